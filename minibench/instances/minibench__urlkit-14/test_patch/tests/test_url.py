import pytest

from urlkit import URL, InvalidURL


def test_parse_components():
    url = URL.parse("https://user:pw@example.com:8443/a/b?x=1#frag")
    assert url.scheme == "https"
    assert url.userinfo == "user:pw"
    assert url.host == "example.com"
    assert url.port == 8443
    assert url.path == "/a/b"
    assert url.query == "x=1"
    assert url.fragment == "frag"


def test_roundtrip():
    text = "http://example.com/a%20b?q=1#top"
    assert str(URL.parse(text)) == text


def test_parse_without_port():
    url = URL.parse("http://example.com/")
    assert url.port is None


def test_parse_ipv6_host_without_port():
    url = URL.parse("http://[::1]/status")
    assert (url.host, url.port, url.path) == ("[::1]", None, "/status")
    assert str(url) == "http://[::1]/status"


def test_invalid_port():
    with pytest.raises(InvalidURL):
        URL.parse("http://example.com:http/")


def test_immutable():
    url = URL.parse("http://example.com/")
    with pytest.raises(AttributeError):
        url.path = "/other"


def test_build_encodes():
    url = URL.build("https", "example.com", path="/a b", query={"q": "x y"})
    assert str(url) == "https://example.com/a%20b?q=x+y"


@pytest.mark.parametrize(
    "reference, expected",
    [
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("../g", "http://a/b/g"),
        ("/g", "http://a/g"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y#s", "http://a/b/c/g?y#s"),
        ("//g", "http://g"),
    ],
)
def test_join_rfc3986_examples(reference, expected):
    base = URL.parse("http://a/b/c/d;p?q")
    assert str(base.join(reference)) == expected


class TestEquality:
    def test_equal_to_string(self):
        assert URL.parse("http://example.com/") == "http://example.com/"

    def test_hashable(self):
        assert len({URL.parse("http://x/"), URL.parse("http://x/")}) == 1
