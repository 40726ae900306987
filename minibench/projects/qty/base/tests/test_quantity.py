import pytest

from qty import DimensionalityError, Q_
from qty.errors import OffsetUnitError


def test_from_text():
    q = Q_("3.5 km/h")
    assert q.magnitude == 3.5
    assert str(q.unit) == "km/h"


def test_add_converts_to_left_unit():
    total = Q_(1, "km") + Q_(500, "m")
    assert total.magnitude == pytest.approx(1.5)
    assert str(total.unit) == "km"


def test_add_incompatible():
    with pytest.raises(DimensionalityError):
        Q_(1, "m") + Q_(1, "s")


def test_add_two_temperatures_is_ambiguous():
    with pytest.raises(OffsetUnitError):
        Q_(10, "degC") + Q_(5, "degC")


def test_multiply_divide():
    speed = Q_(100, "m") / Q_(20, "s")
    assert speed.to("km/h").magnitude == pytest.approx(18.0)
    assert (2 * Q_(3, "N")).magnitude == 6


def test_compare_across_units():
    assert Q_(1, "km") > Q_(999, "m")
    assert Q_(1000, "m") == Q_(1, "km")


def test_equality_with_other_dimension_is_false():
    assert Q_(1, "m") != Q_(1, "s")


def test_immutable():
    with pytest.raises(AttributeError):
        Q_(1, "m").magnitude = 2


def test_hash_consistent_with_eq():
    assert hash(Q_(1000, "m")) == hash(Q_(1, "km"))
