import pytest

from confetti import InterpolationError
from confetti.interpolate import interpolate


def test_reference_keeps_type():
    assert interpolate({"a": 5, "b": "${a}"}) == {"a": 5, "b": 5}


def test_reference_inside_string():
    data = {"host": "db", "port": 5432, "url": "postgres://${host}:${port}/app"}
    assert interpolate(data)["url"] == "postgres://db:5432/app"


def test_nested_and_chained():
    data = {"base": "/srv", "paths": {"data": "${base}/data", "cache": "${paths.data}/cache"}}
    assert interpolate(data)["paths"]["cache"] == "/srv/data/cache"


def test_escaped_dollar():
    assert interpolate({"price": "$$5"})["price"] == "$5"


def test_cycle():
    with pytest.raises(InterpolationError):
        interpolate({"a": "${b}", "b": "${a}"})


def test_missing():
    with pytest.raises(InterpolationError):
        interpolate({"a": "${nope}"})
