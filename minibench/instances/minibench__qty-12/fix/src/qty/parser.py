"""A small recursive-descent parser for unit expressions such as ``kg*m/s**2`` or ``N m``.

Grammar (``*`` may be written as ``*``, ``·`` or plain whitespace)::

    expression := product
    product    := power (("*" | "/" | <juxtaposition>) power)*
    power      := atom (("**" | "^") signed_number)?
    atom       := NAME | NUMBER | "(" expression ")"
"""
import re
from fractions import Fraction

from .errors import ParseError

_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<number>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_\u00b0\u00b5\u03a9%][A-Za-z0-9_\u00b0\u00b5\u03a9]*)"
    r"|(?P<op>\*\*|\^|\*|\u00b7|/|\(|\)|-)"
    r")"
)


def tokenize(text):
    """Yield ``(kind, value, position)`` tuples; raises :class:`ParseError` on stray characters."""
    position = 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise ParseError(text, position, f"unexpected character {text[position]!r}")
        kind = match.lastgroup
        value = match.group(kind)
        if kind == "op" and value == "\u00b7":
            value = "*"
        yield kind, value, match.start(kind)
        position = match.end()
    yield "end", "", len(text)


class _Parser:
    def __init__(self, text, resolve, number):
        self.text = text
        self.tokens = list(tokenize(text))
        self.index = 0
        self.resolve = resolve
        self.number = number

    @property
    def current(self):
        return self.tokens[self.index]

    def advance(self):
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect(self, value):
        kind, actual, position = self.advance()
        if actual != value:
            raise ParseError(self.text, position, f"expected {value!r}, found {actual or 'end of input'!r}")

    def parse(self):
        if self.current[0] == "end":
            return self.number(1)
        result = self.product()
        kind, value, position = self.current
        if kind != "end":
            raise ParseError(self.text, position, f"unexpected {value!r}")
        return result

    def product(self):
        left = self.power()
        while True:
            kind, value, _ = self.current
            if value == "*":
                self.advance()
                left = left * self.power()
            elif value == "/":
                # "/" binds like "*" and associates to the left: kg/m/s is (kg/m)/s.
                self.advance()
                left = left / self.power()
            elif kind in ("name", "number") or value == "(":
                left = left * self.power()
            else:
                return left

    def power(self):
        base = self.atom()
        if self.current[1] in ("**", "^"):
            self.advance()
            base = base ** self.signed_number()
        return base

    def signed_number(self):
        sign = 1
        if self.current[1] == "-":
            self.advance()
            sign = -1
        kind, value, position = self.advance()
        if kind != "number":
            raise ParseError(self.text, position, "expected an exponent")
        exponent = Fraction(value) * sign
        return int(exponent) if exponent.denominator == 1 else float(exponent)

    def atom(self):
        kind, value, position = self.advance()
        if kind == "name":
            return self.resolve(value)
        if kind == "number":
            return self.number(float(value))
        if value == "(":
            inner = self.product()
            self.expect(")")
            return inner
        raise ParseError(self.text, position, f"unexpected {value or 'end of input'!r}")


def parse_expression(text, resolve, number):
    """Parse ``text``; ``resolve(name)`` maps names to units, ``number(x)`` wraps plain numbers."""
    return _Parser(text, resolve, number).parse()


def parse_unit(text, registry=None):
    """Parse a unit expression with ``registry`` (the default registry when omitted).

    >>> parse_unit("km/h").factor
    0.2777777777777778
    """
    if registry is None:
        from .registry import default_registry

        registry = default_registry()
    return registry.parse_unit(text)
