"""Configuration from environment variables.

With the prefix ``APP``, ``APP_PORT=9000`` sets ``port`` and ``APP_DB__HOST=db`` sets ``db.host``
(a double underscore separates nesting levels). Values stay strings here; the schema converts them.
"""
import os

from .paths import set_path

NESTING_SEPARATOR = "__"


def env_key_to_path(name, prefix):
    """``APP_DB__HOST`` -> ``db.host`` (or ``None`` when the name does not have the prefix)."""
    head = f"{prefix.upper()}_" if prefix else ""
    if not name.upper().startswith(head):
        return None
    rest = name[len(head):]
    if not rest:
        return None
    return ".".join(part.lower() for part in rest.split(NESTING_SEPARATOR))


def env_layer(prefix, environ=None):
    """A nested dict built from the variables that start with ``prefix``."""
    environ = os.environ if environ is None else environ
    layer = {}
    for name in sorted(environ):
        path = env_key_to_path(name, prefix)
        if path is not None:
            set_path(layer, path, environ[name])
    return layer


def read_dotenv(text):
    """Parse the contents of a ``.env`` file into a dict (``KEY=value`` lines, ``#`` comments)."""
    values = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("export "):
            stripped = stripped[len("export "):]
        key, sep, value = stripped.partition("=")
        if not sep:
            raise ValueError(f"line {number}: expected KEY=value")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        else:
            value = value.split(" #", 1)[0]
        values[key.strip()] = value
    return values
