"""Conversion of magnitudes between compatible units."""
from .errors import DimensionalityError


def to_base(value, unit):
    """Express ``value`` (in ``unit``) in the coherent SI base units of its dimension."""
    return value * unit.factor + unit.offset


def from_base(value, unit):
    """Inverse of :func:`to_base`."""
    return (value - unit.offset) / unit.factor


def convert(value, source, target):
    """Convert ``value`` from unit ``source`` to unit ``target``.

    Raises :class:`~qty.errors.DimensionalityError` when the units measure different things.
    """
    if source.dimension != target.dimension:
        raise DimensionalityError(source, target, f"({source.dimension} vs {target.dimension})")
    if source == target:
        return value
    return from_base(to_base(value, source), target)


def conversion_factor(source, target):
    """The multiplier from ``source`` to ``target``; only defined for units without an offset."""
    if source.is_offset or target.is_offset:
        raise ValueError("offset units have no single conversion factor; use convert()")
    if source.dimension != target.dimension:
        raise DimensionalityError(source, target)
    return source.factor / target.factor
