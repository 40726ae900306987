import pytest

from confetti.paths import flatten, get_path, set_path, split_path


def test_split_with_escape():
    assert split_path("a\\.b.c") == ["a.b", "c"]


def test_split_rejects_empty_part():
    with pytest.raises(KeyError):
        split_path("a..b")


def test_get_and_set():
    data = {}
    set_path(data, "db.primary.host", "localhost")
    assert get_path(data, "db.primary.host") == "localhost"
    assert get_path(data, "db.replica", default=None) is None


def test_flatten():
    assert flatten({"a": {"b": 1, "c": {}}, "d": 2}) == {"a.b": 1, "a.c": {}, "d": 2}
