import pytest

from qty import UndefinedUnitError, Unit
from qty.dimensions import Dimension


class TestLookup:
    def test_symbol_and_alias(self, registry):
        assert registry.get_unit("metre") == registry.get_unit("m")

    def test_plural(self, registry):
        assert registry.get_unit("meters") == registry.get_unit("m")

    def test_prefix(self, registry):
        assert registry.get_unit("km").factor == 1000.0
        assert registry.get_unit("kilometer").factor == 1000.0

    def test_prefixed_offset_unit_is_rejected(self, registry):
        with pytest.raises(UndefinedUnitError):
            registry.get_unit("kdegC")

    def test_unknown(self, registry):
        assert "furlong" not in registry


class TestDefine:
    def test_define_expression(self, registry):
        registry.define_expression("knot", "1852 * m / h", aliases=("kn",))
        assert registry.get_unit("kn").factor == pytest.approx(0.514444, rel=1e-5)

    def test_redefine_fails(self, registry):
        with pytest.raises(ValueError):
            registry.define(Unit("m", 1.0, Dimension.base("length")))


def test_derived_dimensions(registry):
    newton = registry.get_unit("N")
    assert newton.dimension.as_dict() == {"length": 1, "mass": 1, "time": -2}
    assert registry.get_unit("J").factor == 1.0
