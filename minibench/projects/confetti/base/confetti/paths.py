"""Dotted key paths into nested dictionaries (``"db.primary.host"``)."""

_MISSING = object()


def split_path(path):
    """Split on dots; a backslash escapes a literal dot (``"a\\.b.c"`` -> ``["a.b", "c"]``)."""
    parts, current, escaped = [], [], False
    for char in path:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ".":
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    if any(part == "" for part in parts):
        raise KeyError(f"invalid key path {path!r}")
    return parts


def get_path(data, path, default=_MISSING):
    node = data
    for part in split_path(path):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif default is not _MISSING:
            return default
        else:
            raise KeyError(path)
    return node


def set_path(data, path, value):
    """Set ``value`` at ``path``, creating intermediate dictionaries."""
    parts = split_path(path)
    node = data
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[parts[-1]] = value


def flatten(data, prefix=""):
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}``."""
    flat = {}
    for key, value in data.items():
        dotted = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            flat.update(flatten(value, dotted))
        else:
            flat[dotted] = value
    return flat
