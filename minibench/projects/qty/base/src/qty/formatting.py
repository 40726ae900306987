"""Text formatting of units and quantities."""
import re

_PRETTY_POWERS = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b")
_POWER = re.compile(r"\*\*(-?\d+)")
_PRODUCT = re.compile(r"(?<!\*)\*(?!\*)")


def format_unit(unit, style="default"):
    """Format a unit symbol.

    ``style`` is ``"default"`` (``kg*m/s**2``), ``"pretty"`` (``kg·m/s²``) or ``"compact"``
    (``kg m s**-2`` style spacing without changing powers).
    """
    symbol = str(unit)
    if style == "default":
        return symbol
    if style == "pretty":
        symbol = _POWER.sub(lambda match: match.group(1).translate(_PRETTY_POWERS), symbol)
        return _PRODUCT.sub("\u00b7", symbol)
    if style == "compact":
        return _PRODUCT.sub(" ", symbol)
    raise ValueError(f"unknown unit style {style!r}")


def format_quantity(quantity, spec=""):
    """Format a quantity; ``spec`` is a float format spec optionally followed by ``~P`` / ``~C``.

    >>> from qty import Q_
    >>> format_quantity(Q_(9.81, "m/s**2"), ".1f~P")
    '9.8 m/s\u00b2'
    """
    style = "default"
    if spec.endswith("~P"):
        style, spec = "pretty", spec[:-2]
    elif spec.endswith("~C"):
        style, spec = "compact", spec[:-2]
    magnitude = format(quantity.magnitude, spec)
    unit = format_unit(quantity.unit, style)
    return f"{magnitude} {unit}" if unit else magnitude
