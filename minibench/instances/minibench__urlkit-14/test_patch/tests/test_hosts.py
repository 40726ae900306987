import pytest

from urlkit.exceptions import InvalidURL
from urlkit.hosts import normalize_host, split_host_port


def test_split_name_and_port():
    assert split_host_port("example.com:8080") == ("example.com", 8080)


def test_split_no_port():
    assert split_host_port("example.com") == ("example.com", None)


def test_split_empty_port():
    assert split_host_port("example.com:") == ("example.com", None)


@pytest.mark.parametrize(
    "hostport, expected",
    [
        ("[::1]", ("[::1]", None)),
        ("[::1]:8080", ("[::1]", 8080)),
        ("[2001:db8::7]", ("[2001:db8::7]", None)),
        ("[fe80::1]:", ("[fe80::1]", None)),
    ],
    ids=["loopback", "loopback-port", "global", "empty-port"],
)
def test_split_ipv6(hostport, expected):
    assert split_host_port(hostport) == expected


def test_split_unterminated_ipv6():
    with pytest.raises(InvalidURL):
        split_host_port("[::1:80")


def test_port_out_of_range():
    with pytest.raises(InvalidURL):
        split_host_port("example.com:70000")


def test_normalize_host_lowercases():
    assert normalize_host("ExAmple.COM.") == "example.com"


def test_normalize_ipv6():
    assert normalize_host("[2001:DB8:0:0:0:0:0:1]") == "[2001:db8::1]"
