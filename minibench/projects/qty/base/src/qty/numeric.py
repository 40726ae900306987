"""Numeric helpers."""
import math


def round_significant(value, digits):
    """Round ``value`` to ``digits`` significant digits.

    >>> round_significant(123456, 2)
    120000.0
    """
    if digits < 1:
        raise ValueError("digits must be at least 1")
    if value == 0 or not math.isfinite(value):
        return float(value)
    magnitude = math.floor(math.log10(abs(value)))
    return round(float(value), digits - 1 - magnitude)


def is_close(first, second, rel_tol=1e-9, abs_tol=1e-12):
    return math.isclose(first, second, rel_tol=rel_tol, abs_tol=abs_tol)


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)
