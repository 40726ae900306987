"""Deep merging of configuration layers."""


def deep_merge(base, override):
    """Merge ``override`` into ``base`` and return the result.

    Nested dictionaries are merged key by key; any other value in ``override`` replaces the one in
    ``base``. A value of ``None`` in ``override`` removes the key.
    """
    result = base
    for key, value in override.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = deep_merge(result[key], value)
        else:
            result[key] = value
    return result


def merge_all(layers):
    """Merge several layers, later ones winning."""
    merged = {}
    for layer in layers:
        merged = deep_merge(merged, layer)
    return merged
