"""A subset of RFC 6570 URI templates (levels 1 and 2, plus ``?`` and ``&`` expansions)."""
import re

from .encoding import RESERVED, quote

_EXPRESSION = re.compile(r"\{([^{}]+)\}")

# operator -> (prefix, separator, named, allow reserved)
_OPERATORS = {
    "": ("", ",", False, False),
    "+": ("", ",", False, True),
    "#": ("#", ",", False, True),
    "/": ("/", "/", False, False),
    "?": ("?", "&", True, False),
    "&": ("&", "&", True, False),
}


def _encode(value, allow_reserved):
    return quote(str(value), RESERVED if allow_reserved else ())


def _expand_expression(expression, variables):
    operator = expression[0] if expression[0] in "+#/?&" else ""
    names = expression[len(operator):].split(",")
    prefix, separator, named, allow_reserved = _OPERATORS[operator]
    parts = []
    for name in names:
        value = variables.get(name)
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            if not value:
                continue
            encoded = ",".join(_encode(item, allow_reserved) for item in value)
        else:
            encoded = _encode(value, allow_reserved)
        parts.append(f"{name}={encoded}" if named else encoded)
    if not parts:
        return ""
    return prefix + separator.join(parts)


def expand(template, variables=None, **kwargs):
    """Expand ``template`` with ``variables``.

    >>> expand("/users/{id}{?fields}", id=7, fields=["name", "email"])
    '/users/7?fields=name,email'
    """
    values = dict(variables or {}, **kwargs)
    return _EXPRESSION.sub(lambda match: _expand_expression(match.group(1), values), template)


def variables_of(template):
    """Names used by ``template``, in order of first use."""
    names = []
    for expression in _EXPRESSION.findall(template):
        operator = expression[0] if expression[0] in "+#/?&" else ""
        for name in expression[len(operator):].split(","):
            if name not in names:
                names.append(name)
    return names
