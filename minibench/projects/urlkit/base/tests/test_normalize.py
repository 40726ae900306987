import pytest

from urlkit import normalize_url
from urlkit.normalize import urls_equivalent


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("HTTP://Example.COM/", "http://example.com/"),
        ("http://example.com:80/", "http://example.com/"),
        ("https://example.com:443/x", "https://example.com/x"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://example.com/%7euser", "http://example.com/~user"),
    ],
)
def test_normalize(raw, expected):
    assert str(normalize_url(raw)) == expected


def test_keeps_non_default_port():
    assert str(normalize_url("http://example.com:8080/")) == "http://example.com:8080/"


def test_sort_query_and_drop_fragment():
    result = normalize_url("http://x/?b=2&a=1#frag", sort_query=True, drop_fragment=True)
    assert str(result) == "http://x/?a=1&b=2"


def test_equivalent():
    assert urls_equivalent("HTTP://x:80/a/../b", "http://x/b")
