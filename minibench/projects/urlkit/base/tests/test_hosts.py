import pytest

from urlkit.exceptions import InvalidURL
from urlkit.hosts import normalize_host, split_host_port


def test_split_name_and_port():
    assert split_host_port("example.com:8080") == ("example.com", 8080)


def test_split_no_port():
    assert split_host_port("example.com") == ("example.com", None)


def test_split_empty_port():
    assert split_host_port("example.com:") == ("example.com", None)


def test_port_out_of_range():
    with pytest.raises(InvalidURL):
        split_host_port("example.com:70000")


def test_normalize_host_lowercases():
    assert normalize_host("ExAmple.COM.") == "example.com"


def test_normalize_ipv6():
    assert normalize_host("[2001:DB8:0:0:0:0:0:1]") == "[2001:db8::1]"
