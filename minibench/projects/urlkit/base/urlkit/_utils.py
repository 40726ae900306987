"""Internal helpers shared by several modules."""
import functools


def to_str(value, encoding="utf-8"):
    """Return ``value`` as ``str``, decoding bytes with ``encoding``."""
    if isinstance(value, bytes):
        return value.decode(encoding)
    if not isinstance(value, str):
        raise TypeError(f"expected str or bytes, got {type(value).__name__}")
    return value


def strip_ows(value):
    """Strip optional whitespace (SP / HTAB) as defined by RFC 9110 section 5.6.3."""
    return value.strip(" \t")


def split_list_header(value):
    """Split a comma-separated header value, honouring double-quoted strings."""
    items, current, in_quotes, escaped = [], [], False, False
    for char in value:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\" and in_quotes:
            current.append(char)
            escaped = True
        elif char == '"':
            current.append(char)
            in_quotes = not in_quotes
        elif char == "," and not in_quotes:
            items.append(strip_ows("".join(current)))
            current = []
        else:
            current.append(char)
    tail = strip_ows("".join(current))
    if tail or items:
        items.append(tail)
    return [item for item in items if item]


def unquote_header_value(value):
    """Remove surrounding double quotes and backslash escapes from a header parameter."""
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
        out, escaped = [], False
        for char in value:
            if escaped:
                out.append(char)
                escaped = False
            elif char == "\\":
                escaped = True
            else:
                out.append(char)
        return "".join(out)
    return value


def cached_method(func):
    """Cache a zero-argument method's result on the instance (the instance must allow attributes)."""
    attr = f"_cached_{func.__name__}"

    @functools.wraps(func)
    def wrapper(self):
        try:
            return self.__dict__[attr]
        except KeyError:
            value = func(self)
            self.__dict__[attr] = value
            return value

    return wrapper
