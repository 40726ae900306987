import pytest

from qty import Q_
from qty.formatting import format_unit


@pytest.mark.parametrize(
    "spec, expected",
    [("", "9.81 m/s**2"), (".1f", "9.8 m/s**2"), (".1f~P", "9.8 m/s\u00b2"), ("~C", "9.81 m/s**2")],
    ids=["plain", "fixed", "pretty", "compact"],
)
def test_format_quantity(spec, expected):
    assert format(Q_(9.81, "m/s**2"), spec) == expected


def test_pretty_negative_power():
    assert format_unit(Q_(1, "m**-1").unit, "pretty") == "m\u207b\u00b9"


def test_unknown_style():
    with pytest.raises(ValueError):
        format_unit(Q_(1, "m").unit, "fancy")
