"""``${dotted.key}`` references between configuration values."""
import re

from .errors import InterpolationError
from .paths import get_path

_REFERENCE = re.compile(r"\$\{([^}]+)\}")
_ESCAPED = "$$"


def interpolate(data):
    """Return a copy of ``data`` with every ``${key}`` replaced by the referenced value.

    A value that is exactly one reference keeps the referenced value's type. ``$$`` is a literal ``$``.
    Cycles and missing keys raise :class:`InterpolationError`.
    """

    def resolve(value, chain):
        if isinstance(value, dict):
            return {key: resolve(item, chain) for key, item in value.items()}
        if isinstance(value, list):
            return [resolve(item, chain) for item in value]
        if not isinstance(value, str) or "$" not in value:
            return value
        whole = _REFERENCE.fullmatch(value)
        if whole:
            return lookup(whole.group(1).strip(), chain)
        parts = value.split(_ESCAPED)
        replaced = [_REFERENCE.sub(lambda m: str(lookup(m.group(1).strip(), chain)), part) for part in parts]
        return "$".join(replaced)

    def lookup(key, chain):
        if key in chain:
            cycle = " -> ".join(chain + (key,))
            raise InterpolationError(f"reference cycle: {cycle}")
        try:
            target = get_path(data, key)
        except KeyError:
            raise InterpolationError(f"reference to missing key {key!r}") from None
        return resolve(target, chain + (key,))

    return resolve(data, ())
