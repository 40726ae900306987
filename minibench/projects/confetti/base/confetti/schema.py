"""Declarative schemas: which keys exist, their types, defaults and constraints."""
from .errors import ValidationError
from .paths import flatten, get_path, set_path
from .types import converter_for

_REQUIRED = object()


class Field:
    """One configuration value.

    ``kind`` is a type (``int``), a converter name (``"duration"``) or a callable that converts a raw
    value. ``choices`` restricts the converted value; ``validator`` may raise ``ValueError``.
    """

    def __init__(self, kind=str, default=_REQUIRED, choices=None, validator=None, help=""):
        self.kind = kind
        self.convert = converter_for(kind)
        self.default = default
        self.choices = tuple(choices) if choices is not None else None
        self.validator = validator
        self.help = help

    @property
    def required(self):
        return self.default is _REQUIRED

    def clean(self, raw):
        value = self.convert(raw)
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(map(repr, self.choices))
            raise ValueError(f"{value!r} is not one of {allowed}")
        if self.validator is not None:
            self.validator(value)
        return value

    def __repr__(self):
        name = getattr(self.kind, "__name__", self.kind)
        return f"Field({name}, default={'<required>' if self.required else repr(self.default)})"


class Schema:
    """A mapping from dotted keys to :class:`Field` objects."""

    def __init__(self, fields, allow_unknown=False):
        self.fields = dict(fields)
        self.allow_unknown = allow_unknown

    def defaults(self):
        values = {}
        for key, field in self.fields.items():
            if not field.required:
                set_path(values, key, field.default)
        return values

    def validate(self, data):
        """Return a new nested dict with every value converted; raises :class:`ValidationError`."""
        errors = {}
        cleaned = {}
        for key, field in self.fields.items():
            raw = get_path(data, key, default=_REQUIRED)
            if raw is _REQUIRED:
                if field.required:
                    errors[key] = "required value is missing"
                    continue
                raw = field.default
            try:
                set_path(cleaned, key, field.clean(raw) if raw is not None else None)
            except (TypeError, ValueError) as exc:
                errors[key] = str(exc)
        if not self.allow_unknown:
            for key in flatten(data):
                if key not in self.fields and not any(key.startswith(f + ".") for f in self.fields):
                    errors[key] = "unknown key"
        if errors:
            raise ValidationError(errors)
        return cleaned
