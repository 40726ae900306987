"""Converters from raw (mostly string) values to Python types."""
from .duration import parse_duration

_TRUE = frozenset({"1", "true", "yes", "on", "y", "t"})
_FALSE = frozenset({"0", "false", "no", "off", "n", "f", ""})


def to_bool(value):
    """Interpret ``value`` as a boolean (``"yes"``, ``"off"``, ``1``, ...)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        if value in _FALSE:
            return False
        if value in _TRUE:
            return True
        return bool(value)
    raise TypeError(f"cannot interpret {type(value).__name__} as a boolean")


def to_int(value):
    if isinstance(value, bool):
        raise TypeError("refusing to treat a boolean as an integer")
    if isinstance(value, str):
        value = value.strip().replace("_", "")
        return int(value, 0)
    return int(value)


def to_float(value):
    if isinstance(value, str):
        value = value.strip()
    return float(value)


def to_list(value, item=str, separator=","):
    """A list from a list or from a separated string; items are converted with ``item``."""
    if isinstance(value, str):
        parts = [part.strip() for part in value.split(separator)]
        value = [part for part in parts if part]
    return [item(element) for element in value]


def to_str(value):
    return value if isinstance(value, str) else str(value)


def to_duration(value):
    return parse_duration(value)


CONVERTERS = {
    bool: to_bool,
    int: to_int,
    float: to_float,
    str: to_str,
    list: to_list,
    "duration": to_duration,
}


def converter_for(kind):
    """The converter for a type (``int``), a type name (``"duration"``) or a callable."""
    if kind in CONVERTERS:
        return CONVERTERS[kind]
    if callable(kind):
        return kind
    raise ValueError(f"no converter for {kind!r}")
