"""Reading configuration files: JSON, TOML, INI and .env."""
import configparser
import json
import tomllib
from pathlib import Path

from .env import read_dotenv
from .errors import ConfigFileError


def _load_json(text, path):
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ConfigFileError(path, "the top level must be an object")
    return data


def _load_toml(text, path):
    return tomllib.loads(text)


def _load_ini(text, path):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(text, source=str(path))
    data = {section: dict(parser[section]) for section in parser.sections()}
    if parser.defaults():
        data.update(parser.defaults())
    return data


def _load_env(text, path):
    return {key.lower(): value for key, value in read_dotenv(text).items()}


LOADERS = {
    ".json": _load_json,
    ".toml": _load_toml,
    ".ini": _load_ini,
    ".cfg": _load_ini,
    ".env": _load_env,
}


def load_file(path, format=None):
    """Load one file into a nested dict; the format comes from the suffix unless given."""
    path = Path(path)
    suffix = format or (".env" if path.name == ".env" else path.suffix.lower())
    loader = LOADERS.get(suffix)
    if loader is None:
        raise ConfigFileError(path, f"unsupported format {suffix!r}")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigFileError(path, exc.strerror or str(exc)) from exc
    try:
        return loader(text, path)
    except (ValueError, configparser.Error, tomllib.TOMLDecodeError) as exc:
        if isinstance(exc, ConfigFileError):
            raise
        raise ConfigFileError(path, str(exc)) from exc
