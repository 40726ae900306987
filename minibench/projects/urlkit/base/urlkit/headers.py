"""A case-insensitive, order-preserving multi-dict for HTTP header fields."""
import re
from collections.abc import Mapping, MutableMapping

from .exceptions import InvalidHeader

_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_FORBIDDEN_VALUE_CHARS = re.compile(r"[\r\n\x00]")


def validate_name(name):
    if not _TOKEN.match(name):
        raise InvalidHeader(f"invalid header name {name!r}")
    return name


def validate_value(value):
    value = str(value)
    if _FORBIDDEN_VALUE_CHARS.search(value):
        raise InvalidHeader(f"header value contains a line break or NUL: {value!r}")
    return value.strip(" \t")


class Headers(MutableMapping):
    """HTTP header fields.

    Lookup is case-insensitive. ``headers[name]`` joins repeated fields with ``", "`` as RFC 9110
    section 5.3 allows; use :meth:`get_all` for fields such as ``Set-Cookie`` that must not be joined.
    """

    def __init__(self, items=None, **kwargs):
        self._items = []
        if items is not None:
            pairs = items.items() if isinstance(items, Mapping) else items
            for name, value in pairs:
                self.add(name, value)
        for name, value in kwargs.items():
            self.add(name.replace("_", "-"), value)

    def add(self, name, value):
        self._items.append((validate_name(name), validate_value(value)))

    def get_all(self, name):
        key = name.lower()
        return [value for item_name, value in self._items if item_name.lower() == key]

    def __getitem__(self, name):
        values = self.get_all(name)
        if not values:
            raise KeyError(name)
        return ", ".join(values)

    def __setitem__(self, name, value):
        self.pop(name, None)
        self.add(name, value)

    def __delitem__(self, name):
        key = name.lower()
        before = len(self._items)
        self._items = [(n, v) for n, v in self._items if n.lower() != key]
        if len(self._items) == before:
            raise KeyError(name)

    def __iter__(self):
        seen = set()
        for name, _ in self._items:
            if name.lower() not in seen:
                seen.add(name.lower())
                yield name

    def __len__(self):
        return len({name.lower() for name, _ in self._items})

    def items_raw(self):
        """All fields in order, repeated names included."""
        return list(self._items)

    def copy(self):
        return Headers(self._items)

    def __eq__(self, other):
        if not isinstance(other, Mapping):
            return NotImplemented
        mine = sorted((n.lower(), v) for n, v in self._items)
        if isinstance(other, Headers):
            theirs = sorted((n.lower(), v) for n, v in other._items)
        else:
            theirs = sorted((str(n).lower(), str(v)) for n, v in other.items())
        return mine == theirs

    def __repr__(self):
        return f"Headers({self._items!r})"

    def serialize(self):
        """Render the fields as they appear on the wire (without the final empty line)."""
        return "".join(f"{name}: {value}\r\n" for name, value in self._items)
