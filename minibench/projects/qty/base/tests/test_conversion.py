import pytest

from qty import DimensionalityError, Q_


def test_length():
    assert Q_(1, "mi").to("km").magnitude == pytest.approx(1.609344)


def test_speed():
    assert Q_(36, "km/h").to("m/s").magnitude == pytest.approx(10.0)


def test_energy():
    assert Q_(1, "kWh").to("J").magnitude == pytest.approx(3.6e6)


def test_incompatible():
    with pytest.raises(DimensionalityError):
        Q_(1, "m").to("s")


class TestTemperature:
    def test_celsius_to_kelvin(self):
        assert Q_(25, "degC").to("K").magnitude == pytest.approx(298.15)

    def test_kelvin_to_celsius(self):
        assert Q_(0, "K").to("degC").magnitude == pytest.approx(-273.15)

    def test_fahrenheit_to_celsius(self):
        assert Q_(212, "degF").to("degC").magnitude == pytest.approx(100.0)
