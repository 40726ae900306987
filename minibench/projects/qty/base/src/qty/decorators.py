"""Decorators that check or convert the units of function arguments."""
import functools
import inspect

from .errors import DimensionalityError
from .quantity import Quantity, _as_unit


def check_units(**expected):
    """Check that the named arguments are quantities compatible with the given units.

    >>> @check_units(distance="m", duration="s")
    ... def speed(distance, duration):
    ...     return distance / duration
    """
    expected_units = {name: _as_unit(unit) for name, unit in expected.items()}

    def decorator(func):
        signature = inspect.signature(func)
        unknown = set(expected_units) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{func.__name__}() has no parameter(s) {', '.join(sorted(unknown))}")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            for name, unit in expected_units.items():
                if name not in bound.arguments:
                    continue
                value = bound.arguments[name]
                if not isinstance(value, Quantity) or not value.unit.is_compatible(unit):
                    got = value.unit if isinstance(value, Quantity) else type(value).__name__
                    raise DimensionalityError(got, unit, f"for argument {name!r} of {func.__name__}()")
            return func(*args, **kwargs)

        return wrapper

    return decorator


def magnitudes_in(**units):
    """Convert the named quantity arguments to plain magnitudes in the given units before the call."""
    target_units = {name: _as_unit(unit) for name, unit in units.items()}

    def decorator(func):
        signature = inspect.signature(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            for name, unit in target_units.items():
                value = bound.arguments.get(name)
                if isinstance(value, Quantity):
                    bound.arguments[name] = value.m_as(unit)
            return func(*bound.args, **bound.kwargs)

        return wrapper

    return decorator
