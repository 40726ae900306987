"""Exceptions raised by confetti."""


class ConfettiError(Exception):
    """Base class of every confetti error."""


class ConfigFileError(ConfettiError):
    def __init__(self, path, reason):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ValidationError(ConfettiError):
    """One or more values do not fit the schema; ``errors`` maps dotted keys to messages."""

    def __init__(self, errors):
        self.errors = dict(errors)
        lines = [f"{key}: {message}" for key, message in sorted(self.errors.items())]
        super().__init__("invalid configuration:\n  " + "\n  ".join(lines))


class InterpolationError(ConfettiError):
    pass


class TemplateError(ConfettiError):
    def __init__(self, message, line=None):
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line
