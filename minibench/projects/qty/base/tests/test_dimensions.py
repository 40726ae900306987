from fractions import Fraction

import pytest

from qty.dimensions import DIMENSIONLESS, Dimension


def test_multiply_and_divide():
    velocity = Dimension.base("length") / Dimension.base("time")
    assert velocity.as_dict() == {"length": 1, "time": -1}


def test_cancel_to_dimensionless():
    length = Dimension.base("length")
    assert (length / length) == DIMENSIONLESS
    assert (length / length).is_dimensionless


def test_fractional_power():
    area = Dimension.base("length") ** 2
    assert (area ** Fraction(1, 2)) == Dimension.base("length")


def test_unknown_base_dimension():
    with pytest.raises(ValueError):
        Dimension({"charm": 1})
