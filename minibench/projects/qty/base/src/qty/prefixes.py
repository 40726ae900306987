"""SI prefixes."""

PREFIXES = {
    "Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "h": 1e2,
    "da": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3, "u": 1e-6, "\u00b5": 1e-6, "n": 1e-9, "p": 1e-12,
    "f": 1e-15, "a": 1e-18,
}

LONG_PREFIXES = {
    "yotta": "Y", "zetta": "Z", "exa": "E", "peta": "P", "tera": "T", "giga": "G", "mega": "M",
    "kilo": "k", "hecto": "h", "deca": "da", "deci": "d", "centi": "c", "milli": "m", "micro": "u",
    "nano": "n", "pico": "p", "femto": "f", "atto": "a",
}


def split_prefix(name, known_units):
    """Split ``name`` into ``(prefix factor, prefix text, unit name)`` if it is a prefixed known unit.

    Longer prefixes are tried first so that ``"dam"`` is deca-metre, not deci-"am". Returns ``None``
    when no split gives a known unit.
    """
    for long_name, short in sorted(LONG_PREFIXES.items(), key=lambda item: -len(item[0])):
        if name.startswith(long_name) and name[len(long_name):] in known_units:
            return PREFIXES[short], long_name, name[len(long_name):]
    for prefix in sorted(PREFIXES, key=len, reverse=True):
        if name.startswith(prefix) and name[len(prefix):] in known_units:
            return PREFIXES[prefix], prefix, name[len(prefix):]
    return None
