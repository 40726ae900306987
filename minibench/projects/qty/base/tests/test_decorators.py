import pytest

from qty import DimensionalityError, Q_
from qty.decorators import check_units, magnitudes_in


@check_units(distance="m", duration="s")
def average_speed(distance, duration):
    return distance / duration


def test_check_units_accepts_compatible():
    assert average_speed(Q_(3, "km"), Q_(1, "h")).to("km/h").magnitude == pytest.approx(3.0)


def test_check_units_rejects_wrong_dimension():
    with pytest.raises(DimensionalityError):
        average_speed(Q_(3, "kg"), Q_(1, "h"))


def test_check_units_unknown_parameter():
    with pytest.raises(TypeError):
        check_units(mass="kg")(lambda distance: distance)


def test_magnitudes_in():
    @magnitudes_in(length="cm")
    def double(length):
        return length * 2

    assert double(Q_(1, "m")) == pytest.approx(200.0)
