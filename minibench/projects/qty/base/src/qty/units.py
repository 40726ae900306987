"""The :class:`Unit` type: a scale factor and an offset relative to the base units of a dimension."""
from .dimensions import DIMENSIONLESS, Dimension
from .errors import OffsetUnitError


class Unit:
    """A unit of measurement.

    A value ``v`` in this unit equals ``v * factor + offset`` in the coherent SI base units of
    ``dimension``. Only temperature scales such as degC have a non-zero offset.
    """

    __slots__ = ("symbol", "factor", "dimension", "offset")

    def __init__(self, symbol, factor=1.0, dimension=DIMENSIONLESS, offset=0.0):
        self.symbol = symbol
        self.factor = float(factor)
        self.dimension = dimension
        self.offset = float(offset)

    @property
    def is_offset(self):
        return self.offset != 0.0

    @property
    def is_dimensionless(self):
        return self.dimension.is_dimensionless

    def _require_multiplicative(self, other, operation):
        if self.is_offset or (isinstance(other, Unit) and other.is_offset):
            raise OffsetUnitError(f"cannot {operation} offset unit(s) {self} and {other}")

    def __mul__(self, other):
        if not isinstance(other, Unit):
            return NotImplemented
        self._require_multiplicative(other, "multiply")
        return Unit(_join(self.symbol, "*", other.symbol), self.factor * other.factor, self.dimension * other.dimension)

    def __truediv__(self, other):
        if not isinstance(other, Unit):
            return NotImplemented
        self._require_multiplicative(other, "divide")
        return Unit(_join(self.symbol, "/", other.symbol), self.factor / other.factor, self.dimension / other.dimension)

    def __pow__(self, power):
        self._require_multiplicative(None, "raise")
        symbol = self.symbol if power == 1 else f"{_group(self.symbol)}**{power}"
        return Unit(symbol, self.factor ** power, self.dimension ** power)

    def is_compatible(self, other):
        return self.dimension == other.dimension

    def __eq__(self, other):
        if not isinstance(other, Unit):
            return NotImplemented
        return (self.factor, self.dimension, self.offset) == (other.factor, other.dimension, other.offset)

    def __hash__(self):
        return hash((self.factor, self.dimension, self.offset))

    def __str__(self):
        return self.symbol

    def __repr__(self):
        return f"<Unit {self.symbol!r} factor={self.factor:g} dimension={self.dimension}>"


def _group(symbol):
    return f"({symbol})" if any(op in symbol for op in "*/") else symbol


def _join(left, operator, right):
    if left == "":
        return right if operator == "*" else f"1/{_group(right)}"
    if right == "":
        return left
    if operator == "/":
        right = _group(right)
    return f"{left}{operator}{right}"


ONE = Unit("", 1.0, Dimension())
