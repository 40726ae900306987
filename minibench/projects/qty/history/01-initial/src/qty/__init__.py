"""qty: physical quantities with units, in pure Python.

>>> from qty import Q_
>>> (Q_(3, "km") / Q_(20, "min")).to("m/s")
Quantity(2.5, 'm/s')
"""
from .errors import DimensionalityError, ParseError, QtyError, UndefinedUnitError
from .registry import UnitRegistry, default_registry
from .quantity import Quantity
from .units import Unit

Q_ = Quantity
ureg = default_registry()

__all__ = [
    "Q_",
    "Quantity",
    "Unit",
    "UnitRegistry",
    "ureg",
    "QtyError",
    "DimensionalityError",
    "UndefinedUnitError",
    "ParseError",
]

__version__ = "1.0.0"
