from urlkit import QueryParams
from urlkit.query import parse_qsl


def test_parse_qsl_plus_and_escapes():
    assert parse_qsl("a=1+2&b=%C3%A9") == [("a", "1 2"), ("b", "\u00e9")]


def test_multi_values():
    params = QueryParams("a=1&b=2&a=3")
    assert params["a"] == "1"
    assert params.get_list("a") == ["1", "3"]
    assert list(params) == ["a", "b"]


def test_set_keeps_position():
    assert QueryParams("a=1&b=2&a=3").set("a", "9").encode() == "a=9&b=2"


def test_sorted_is_stable():
    assert QueryParams("b=1&a=2&b=0").sorted().encode() == "a=2&b=1&b=0"


def test_equality_ignores_order():
    assert QueryParams("a=1&b=2") == "b=2&a=1"
