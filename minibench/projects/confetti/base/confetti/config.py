"""The :class:`Config` object: merged, interpolated and validated configuration layers."""
from types import MappingProxyType

from .env import env_layer
from .interpolate import interpolate
from .loader import load_file
from .merge import deep_merge
from .paths import flatten, get_path


def _freeze(value):
    if isinstance(value, dict):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value


class Config:
    """Read-only configuration values, looked up by dotted key."""

    def __init__(self, values, sources=()):
        self._values = values
        self._frozen = _freeze(values)
        self.sources = tuple(sources)

    @classmethod
    def from_sources(cls, schema=None, defaults=None, files=(), env_prefix=None, environ=None, overrides=None):
        """Merge, in order of increasing priority: schema defaults, ``defaults``, each file, the
        environment (when ``env_prefix`` is given) and ``overrides``; then interpolate and validate."""
        merged = {}
        sources = []
        if schema is not None:
            merged = deep_merge(merged, schema.defaults())
            sources.append("schema defaults")
        if defaults:
            merged = deep_merge(merged, defaults)
            sources.append("defaults")
        for path in files:
            merged = deep_merge(merged, load_file(path))
            sources.append(str(path))
        if env_prefix is not None:
            merged = deep_merge(merged, env_layer(env_prefix, environ))
            sources.append(f"environment ({env_prefix}_*)")
        if overrides:
            merged = deep_merge(merged, overrides)
            sources.append("overrides")
        merged = interpolate(merged)
        if schema is not None:
            merged = schema.validate(merged)
        return cls(merged, sources)

    def get(self, key, default=None):
        return _freeze(get_path(self._values, key, default))

    def __getitem__(self, key):
        return _freeze(get_path(self._values, key))

    def __contains__(self, key):
        try:
            get_path(self._values, key)
        except KeyError:
            return False
        return True

    def as_dict(self):
        return self._frozen

    def flat(self):
        return flatten(self._values)

    def __repr__(self):
        return f"Config({dict(self.flat())!r})"
