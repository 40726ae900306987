"""confetti: layered configuration (defaults, files, environment) with validation and templates.

>>> from confetti import Config, Field, Schema
>>> schema = Schema({"port": Field(int, default=8000), "debug": Field(bool, default=False)})
>>> Config.from_sources(schema, environ={"APP_PORT": "9000"}, env_prefix="APP").get("port")
9000
"""
from .config import Config
from .errors import ConfettiError, ConfigFileError, InterpolationError, TemplateError, ValidationError
from .schema import Field, Schema

__all__ = [
    "Config",
    "Field",
    "Schema",
    "ConfettiError",
    "ConfigFileError",
    "InterpolationError",
    "TemplateError",
    "ValidationError",
]

__version__ = "2.3.0"
