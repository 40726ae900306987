"""The :class:`Quantity` type: a magnitude together with a unit."""
import functools

from .conversion import convert
from .errors import DimensionalityError, OffsetUnitError
from .numeric import is_close, is_number
from .units import ONE, Unit


def _registry():
    from .registry import default_registry

    return default_registry()


def _as_unit(unit):
    if unit is None:
        return ONE
    if isinstance(unit, Unit):
        return unit
    return _registry().parse_unit(unit)


@functools.total_ordering
class Quantity:
    """An immutable physical quantity.

    >>> Quantity(1.5, "km").to("m")
    Quantity(1500.0, 'm')
    """

    __slots__ = ("magnitude", "unit")

    def __init__(self, magnitude, unit=None):
        if isinstance(magnitude, str) and unit is None:
            magnitude, unit = _split_quantity_text(magnitude)
        if not is_number(magnitude):
            raise TypeError(f"magnitude must be a number, not {type(magnitude).__name__}")
        object.__setattr__(self, "magnitude", magnitude)
        object.__setattr__(self, "unit", _as_unit(unit))

    def __setattr__(self, name, value):
        raise AttributeError("Quantity objects are immutable")

    @property
    def dimension(self):
        return self.unit.dimension

    @property
    def dimensionless(self):
        return self.unit.is_dimensionless

    def to(self, unit):
        target = _as_unit(unit)
        return Quantity(convert(self.magnitude, self.unit, target), target)

    def to_base_units(self):
        return Quantity(self.magnitude * self.unit.factor + self.unit.offset, Unit(_base_symbol(self.unit), 1.0, self.dimension))

    def m_as(self, unit):
        """The magnitude expressed in ``unit``."""
        return self.to(unit).magnitude

    # -- arithmetic ----------------------------------------------------------------------------------------

    def _add(self, other, sign):
        if is_number(other):
            # A plain 0 is the additive identity of every dimension; that is what makes sum() work.
            if other == 0:
                return Quantity(self.magnitude, self.unit)
            if self.dimensionless:
                return Quantity(self.magnitude + sign * other / self.unit.factor, self.unit)
            raise DimensionalityError(self.unit, "dimensionless", f"(cannot add a plain number {other!r})")
        if not isinstance(other, Quantity):
            return NotImplemented
        if self.unit.is_offset and other.unit.is_offset:
            raise OffsetUnitError("adding two absolute temperatures is ambiguous; convert to kelvin first")
        converted = other.to(self.unit)
        return Quantity(self.magnitude + sign * converted.magnitude, self.unit)

    def __add__(self, other):
        return self._add(other, 1)

    __radd__ = __add__

    def __sub__(self, other):
        return self._add(other, -1)

    def __rsub__(self, other):
        return (-self)._add(other, 1)

    def __neg__(self):
        return Quantity(-self.magnitude, self.unit)

    def __abs__(self):
        return Quantity(abs(self.magnitude), self.unit)

    def __mul__(self, other):
        if isinstance(other, Quantity):
            return Quantity(self.magnitude * other.magnitude, self.unit * other.unit)
        if is_number(other):
            return Quantity(self.magnitude * other, self.unit)
        return NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, Quantity):
            return Quantity(self.magnitude / other.magnitude, self.unit / other.unit)
        if is_number(other):
            return Quantity(self.magnitude / other, self.unit)
        return NotImplemented

    def __rtruediv__(self, other):
        if is_number(other):
            return Quantity(other / self.magnitude, ONE / self.unit)
        return NotImplemented

    def __pow__(self, power):
        return Quantity(self.magnitude ** power, self.unit ** power)

    # -- comparison ----------------------------------------------------------------------------------------

    def _comparable_magnitude(self, other):
        if isinstance(other, Quantity):
            return other.to(self.unit).magnitude
        if is_number(other) and self.dimensionless:
            return other
        raise DimensionalityError(self.unit, type(other).__name__)

    def __eq__(self, other):
        try:
            return is_close(self.magnitude, self._comparable_magnitude(other))
        except DimensionalityError:
            return False

    def __lt__(self, other):
        return self.magnitude < self._comparable_magnitude(other)

    def __hash__(self):
        base = self.to_base_units()
        return hash((round(base.magnitude, 9), base.dimension))

    # -- display -------------------------------------------------------------------------------------------

    def __repr__(self):
        return f"Quantity({self.magnitude!r}, {str(self.unit)!r})"

    def __str__(self):
        from .formatting import format_quantity

        return format_quantity(self)

    def __format__(self, spec):
        from .formatting import format_quantity

        return format_quantity(self, spec)


def _split_quantity_text(text):
    """Split ``"3.5 km/h"`` into ``(3.5, "km/h")``."""
    number, _, unit = text.strip().partition(" ")
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"cannot read a quantity from {text!r}") from None
    if value.is_integer() and "." not in number and "e" not in number.lower():
        value = int(value)
    return value, unit.strip() or None


def _base_symbol(unit):
    names = {"length": "m", "mass": "kg", "time": "s", "current": "A", "temperature": "K", "substance": "mol", "luminosity": "cd"}
    parts = []
    for name, power in unit.dimension.as_dict().items():
        symbol = names[name]
        parts.append(symbol if power == 1 else f"{symbol}**{power}")
    return "*".join(parts)
