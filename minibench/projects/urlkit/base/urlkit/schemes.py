"""Knowledge about URL schemes: default ports and which schemes have an authority."""

DEFAULT_PORTS = {
    "http": 80,
    "https": 443,
    "ws": 80,
    "wss": 443,
    "ftp": 21,
}

# Schemes whose URLs always carry a "//authority" part (RFC 3986 calls them hierarchical).
HIERARCHICAL = frozenset(DEFAULT_PORTS) | {"file", "ssh", "git"}


def default_port(scheme):
    """Return the default port for ``scheme`` or ``None`` when it has none."""
    return DEFAULT_PORTS.get(scheme.lower())


def is_hierarchical(scheme):
    return scheme.lower() in HIERARCHICAL


def is_secure(scheme):
    """True for schemes that run over TLS."""
    return scheme.lower() in {"https", "wss"}
