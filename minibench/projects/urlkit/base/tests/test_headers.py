import pytest

from urlkit import Headers, InvalidHeader


def test_case_insensitive():
    headers = Headers({"Content-Type": "text/plain"})
    assert headers["content-type"] == "text/plain"


def test_repeated_fields_joined():
    headers = Headers([("Accept", "text/html"), ("accept", "application/json")])
    assert headers["Accept"] == "text/html, application/json"
    assert headers.get_all("ACCEPT") == ["text/html", "application/json"]


def test_setitem_replaces_all():
    headers = Headers([("X-A", "1"), ("x-a", "2")])
    headers["X-A"] = "3"
    assert headers.get_all("x-a") == ["3"]


def test_rejects_header_injection():
    with pytest.raises(InvalidHeader):
        Headers({"X-Evil": "a\r\nSet-Cookie: x=1"})


def test_serialize():
    assert Headers(host="example.com").serialize() == "host: example.com\r\n"
