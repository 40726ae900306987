"""Exceptions raised by qty."""


class QtyError(Exception):
    """Base class for every qty error."""


class UndefinedUnitError(QtyError, KeyError):
    def __init__(self, name):
        super().__init__(name)
        self.name = name

    def __str__(self):
        return f"'{self.name}' is not defined in the unit registry"


class DimensionalityError(QtyError, TypeError):
    def __init__(self, first, second, extra=""):
        super().__init__(first, second)
        self.first = first
        self.second = second
        self.extra = extra

    def __str__(self):
        message = f"cannot convert from '{self.first}' to '{self.second}'"
        return f"{message} {self.extra}".rstrip()


class ParseError(QtyError, ValueError):
    def __init__(self, text, position, reason):
        super().__init__(text, position, reason)
        self.text = text
        self.position = position
        self.reason = reason

    def __str__(self):
        return f"{self.reason} at position {self.position} in {self.text!r}"


class OffsetUnitError(QtyError, TypeError):
    """Raised for arithmetic that is ambiguous with offset units such as degC."""
