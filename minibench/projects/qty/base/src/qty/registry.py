"""The unit registry: definitions, lookup with prefixes and plurals, and parsing."""
import functools
import threading

from . import definitions
from .dimensions import Dimension
from .errors import UndefinedUnitError
from .parser import parse_expression
from .prefixes import split_prefix
from .units import ONE, Unit


class UnitRegistry:
    """Holds unit definitions and turns names and expressions into :class:`~qty.units.Unit` objects."""

    def __init__(self, load_defaults=True):
        self._units = {}
        self._aliases = {}
        self._lock = threading.RLock()
        if load_defaults:
            self._load_defaults()

    def _load_defaults(self):
        for symbol, aliases, dimension in definitions.BASE_UNITS:
            self.define(Unit(symbol, 1.0, Dimension.base(dimension)), aliases)
        for symbol, aliases, expression in definitions.DERIVED_UNITS + definitions.DELTA_UNITS:
            self.define_expression(symbol, expression, aliases)
        for symbol, aliases, factor, offset in definitions.OFFSET_UNITS:
            self.define(Unit(symbol, factor, Dimension.base("temperature"), offset), aliases)

    def define(self, unit, aliases=()):
        with self._lock:
            if unit.symbol in self._units:
                raise ValueError(f"unit {unit.symbol!r} is already defined")
            self._units[unit.symbol] = unit
            for alias in aliases:
                self._aliases[alias] = unit.symbol
            self.get_unit.cache_clear()

    def define_expression(self, symbol, expression, aliases=()):
        parsed = self.parse_unit(expression)
        self.define(Unit(symbol, parsed.factor, parsed.dimension), aliases)

    def __contains__(self, name):
        try:
            self.get_unit(name)
        except UndefinedUnitError:
            return False
        return True

    @functools.lru_cache(maxsize=512)
    def get_unit(self, name):
        """Look up one unit name: symbol, alias, plural alias or SI-prefixed form."""
        symbol = self._aliases.get(name, name)
        if symbol in self._units:
            return self._units[symbol]
        if name.endswith("s") and name[:-1] in self._aliases:
            return self._units[self._aliases[name[:-1]]]
        known = set(self._units) | set(self._aliases)
        split = split_prefix(name, known)
        if split is not None:
            factor, prefix, rest = split
            unit = self.get_unit(rest)
            if unit.is_offset:
                raise UndefinedUnitError(name)
            return Unit(name, unit.factor * factor, unit.dimension)
        raise UndefinedUnitError(name)

    def parse_unit(self, text):
        """Parse a unit expression (``"kg*m/s^2"``); the result keeps ``text`` as its symbol."""
        text = text.strip()
        if text in ("", "1", "dimensionless"):
            return ONE
        try:
            return self.get_unit(text)
        except UndefinedUnitError:
            pass
        unit = parse_expression(text, self.get_unit, lambda value: Unit("", value))
        return Unit(text, unit.factor, unit.dimension, unit.offset)

    def units(self):
        return dict(self._units)


_DEFAULT = None
_DEFAULT_LOCK = threading.Lock()


def default_registry():
    """The process-wide registry with the default definitions (created on first use)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = UnitRegistry()
        return _DEFAULT
