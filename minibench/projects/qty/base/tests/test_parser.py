import pytest

from qty import ParseError
from qty.parser import parse_unit, tokenize


def test_tokenize():
    kinds = [kind for kind, _, _ in tokenize("kg*m/s**2")]
    assert kinds == ["name", "op", "name", "op", "name", "op", "number", "end"]


@pytest.mark.parametrize(
    "text, factor, dims",
    [
        ("m/s", 1.0, {"length": 1, "time": -1}),
        ("km/h", 1000 / 3600, {"length": 1, "time": -1}),
        ("kg*m/s^2", 1.0, {"length": 1, "mass": 1, "time": -2}),
        ("N*m", 1.0, {"length": 2, "mass": 1, "time": -2}),
        ("1/s", 1.0, {"time": -1}),
        ("(m/s)**2", 1.0, {"length": 2, "time": -2}),
        ("m**-1", 1.0, {"length": -1}),
    ],
)
def test_parse(registry, text, factor, dims):
    unit = parse_unit(text, registry)
    assert unit.factor == pytest.approx(factor)
    assert unit.dimension.as_dict() == dims


def test_juxtaposition_multiplies(registry):
    assert parse_unit("N m", registry) == parse_unit("N*m", registry)


def test_parse_keeps_text_as_symbol(registry):
    assert str(parse_unit("kg*m/s^2", registry)) == "kg*m/s^2"


@pytest.mark.parametrize("text", ["m/", "kg*(m", "m$s", "**2"])
def test_parse_errors(registry, text):
    with pytest.raises(ParseError):
        parse_unit(text, registry)
