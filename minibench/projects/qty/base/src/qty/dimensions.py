"""Dimensions as immutable products of powers of the base dimensions."""
from fractions import Fraction

BASE_DIMENSIONS = ("length", "mass", "time", "current", "temperature", "substance", "luminosity")


class Dimension:
    """A mapping from base dimension to a (possibly fractional) exponent, e.g. ``length/time**2``."""

    __slots__ = ("_exponents",)

    def __init__(self, exponents=None):
        clean = {}
        for name, power in (exponents or {}).items():
            if name not in BASE_DIMENSIONS:
                raise ValueError(f"unknown base dimension {name!r}")
            power = Fraction(power)
            if power:
                clean[name] = power
        self._exponents = tuple(sorted(clean.items(), key=lambda item: BASE_DIMENSIONS.index(item[0])))

    @classmethod
    def base(cls, name):
        return cls({name: 1})

    @property
    def is_dimensionless(self):
        return not self._exponents

    def as_dict(self):
        return dict(self._exponents)

    def __mul__(self, other):
        result = self.as_dict()
        for name, power in other._exponents:
            result[name] = result.get(name, 0) + power
        return Dimension(result)

    def __truediv__(self, other):
        return self * other ** -1

    def __pow__(self, power):
        return Dimension({name: exponent * Fraction(power) for name, exponent in self._exponents})

    def __eq__(self, other):
        return isinstance(other, Dimension) and self._exponents == other._exponents

    def __hash__(self):
        return hash(self._exponents)

    def __str__(self):
        if not self._exponents:
            return "dimensionless"
        parts = []
        for name, power in self._exponents:
            parts.append(name if power == 1 else f"{name}**{power}")
        return " * ".join(parts)

    def __repr__(self):
        return f"<Dimension {self}>"


DIMENSIONLESS = Dimension()
