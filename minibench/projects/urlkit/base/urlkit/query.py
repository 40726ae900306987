"""Query strings as an ordered multi-dictionary."""
from collections.abc import Mapping

from .encoding import QUERY_SAFE, quote, unquote


def parse_qsl(query, keep_blank_values=True):
    """Parse ``a=1&b=2`` into ``[("a", "1"), ("b", "2")]``; ``+`` means space."""
    pairs = []
    if not query:
        return pairs
    for chunk in query.split("&"):
        if not chunk:
            continue
        name, sep, value = chunk.partition("=")
        if not sep and not keep_blank_values:
            continue
        pairs.append((_decode(name), _decode(value)))
    return pairs


def _decode(text):
    return unquote(text.replace("+", " "), errors="replace")


def _encode(text):
    return quote(str(text), safe=QUERY_SAFE - {"&", "=", "+", "#"}).replace("%20", "+")


class QueryParams(Mapping):
    """An immutable, ordered multi-dict of query parameters.

    ``params["a"]`` gives the *first* value of ``a``; :meth:`get_list` gives all of them.
    """

    __slots__ = ("_items",)

    def __init__(self, items=None):
        if items is None:
            items = []
        elif isinstance(items, str):
            items = parse_qsl(items)
        elif isinstance(items, QueryParams):
            items = items.multi_items()
        elif isinstance(items, Mapping):
            items = [
                (key, value)
                for key, values in items.items()
                for value in (values if isinstance(values, (list, tuple)) else [values])
            ]
        self._items = tuple((str(k), str(v)) for k, v in items)

    def __getitem__(self, key):
        for name, value in self._items:
            if name == key:
                return value
        raise KeyError(key)

    def __iter__(self):
        seen = []
        for name, _ in self._items:
            if name not in seen:
                seen.append(name)
        return iter(seen)

    def __len__(self):
        return len(set(name for name, _ in self._items))

    def __eq__(self, other):
        if isinstance(other, (str, Mapping)) and not isinstance(other, QueryParams):
            other = QueryParams(other)
        if not isinstance(other, QueryParams):
            return NotImplemented
        return sorted(self._items) == sorted(other._items)

    def __hash__(self):
        return hash(tuple(sorted(self._items)))

    def get_list(self, key):
        return [value for name, value in self._items if name == key]

    def multi_items(self):
        return list(self._items)

    def add(self, key, value):
        """Return a copy with one more ``key=value`` pair at the end."""
        return QueryParams(self.multi_items() + [(key, value)])

    def set(self, key, value):
        """Return a copy where ``key`` has exactly one value, at the position of its first use."""
        items, replaced = [], False
        for name, old in self._items:
            if name == key:
                if not replaced:
                    items.append((key, value))
                    replaced = True
            else:
                items.append((name, old))
        if not replaced:
            items.append((key, value))
        return QueryParams(items)

    def remove(self, key):
        return QueryParams([(n, v) for n, v in self._items if n != key])

    def sorted(self):
        """Return a copy sorted by name (stable for repeated names), useful for cache keys."""
        return QueryParams(sorted(self._items, key=lambda item: item[0]))

    def encode(self):
        return "&".join(f"{_encode(name)}={_encode(value)}" for name, value in self._items)

    def __str__(self):
        return self.encode()

    def __repr__(self):
        return f"QueryParams({self.encode()!r})"
