"""A very small template language for rendering configuration files.

* ``{{ key.path | filter | filter(arg, ...) }}`` inserts a value;
* ``{% if key %}...{% else %}...{% endif %}`` and ``{% for item in key %}...{% endfor %}`` control output;
* ``{# ... #}`` is a comment.
"""
import ast
import re

from .errors import TemplateError
from .filters import FILTERS
from .paths import get_path

_TAG = re.compile(r"(\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\})", re.DOTALL)
_FILTER_CALL = re.compile(r"\s*(\w+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_MISSING = object()


class _Text:
    def __init__(self, text):
        self.text = text

    def render(self, context):
        return self.text


class _Expression:
    def __init__(self, source, line):
        self.line = line
        name, *filters = _split_top_level(source, "|")
        self.name = name.strip()
        if not self.name:
            raise TemplateError("empty expression", line)
        self.filters = [_parse_filter(text, line) for text in filters]

    def evaluate(self, context):
        value = _lookup(context, self.name)
        for name, args in self.filters:
            value = FILTERS[name](value, *args)
        return value

    def render(self, context):
        value = self.evaluate(context)
        return "" if value is None else str(value)


class _If:
    def __init__(self, condition, line):
        self.condition = condition
        self.body = []
        self.orelse = []
        self.line = line

    def render(self, context):
        branch = self.body if self.condition.evaluate(context) else self.orelse
        return "".join(node.render(context) for node in branch)


class _For:
    def __init__(self, variable, iterable, line):
        self.variable = variable
        self.iterable = iterable
        self.body = []
        self.line = line

    def render(self, context):
        out = []
        items = self.iterable.evaluate(context) or []
        for index, item in enumerate(items):
            scope = dict(context)
            scope[self.variable] = item
            scope["loop"] = {"index": index + 1, "first": index == 0, "last": index == len(items) - 1}
            out.extend(node.render(scope) for node in self.body)
        return "".join(out)


def _parse_filter(text, line):
    match = _FILTER_CALL.match(text)
    if match is None:
        raise TemplateError(f"invalid filter {text.strip()!r}", line)
    name, raw_args = match.groups()
    if name not in FILTERS:
        raise TemplateError(f"unknown filter {name!r}", line)
    if not raw_args or not raw_args.strip():
        return name, ()
    # Let Python's own parser split the arguments, so commas and pipes inside string literals are safe.
    try:
        call = ast.parse(f"_({raw_args})", mode="eval").body
        if not isinstance(call, ast.Call) or call.keywords:
            raise ValueError("only positional arguments are supported")
        args = tuple(ast.literal_eval(node) for node in call.args)
    except (SyntaxError, ValueError) as exc:
        raise TemplateError(f"invalid arguments for filter {name!r}: ({raw_args})", line) from exc
    return name, args


def _split_top_level(text, separator):
    """Split ``text`` on ``separator`` where it is outside quotes and parentheses."""
    parts, current, quote, depth = [], [], None, 0
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            current.append(char)
            if char == "\\" and index + 1 < len(text):
                current.append(text[index + 1])
                index += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
            current.append(char)
        elif char == "(":
            depth += 1
            current.append(char)
        elif char == ")":
            depth = max(0, depth - 1)
            current.append(char)
        elif char == separator and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
        index += 1
    parts.append("".join(current))
    return parts


def _lookup(context, name):
    value = get_path(context, name, default=_MISSING)
    if value is _MISSING:
        return None
    return value


class Template:
    """A compiled template; :meth:`render` it with a (nested) dict of values."""

    def __init__(self, source):
        self.source = source
        self.nodes = self._compile(source)

    @staticmethod
    def _compile(source):
        root = []
        stack = [("root", root, None)]
        line = 1
        for piece in _TAG.split(source):
            if not piece:
                continue
            kind, nodes, block = stack[-1]
            if piece.startswith("{#"):
                pass
            elif piece.startswith("{{"):
                nodes.append(_Expression(piece[2:-2], line))
            elif piece.startswith("{%"):
                words = piece[2:-2].split()
                keyword = words[0] if words else ""
                if keyword == "if" and len(words) >= 2:
                    node = _If(_Expression(" ".join(words[1:]), line), line)
                    nodes.append(node)
                    stack.append(("if", node.body, node))
                elif keyword == "else" and kind == "if":
                    stack[-1] = ("else", block.orelse, block)
                elif keyword == "endif" and kind in ("if", "else"):
                    stack.pop()
                elif keyword == "for" and len(words) >= 4 and words[2] == "in":
                    node = _For(words[1], _Expression(" ".join(words[3:]), line), line)
                    nodes.append(node)
                    stack.append(("for", node.body, node))
                elif keyword == "endfor" and kind == "for":
                    stack.pop()
                else:
                    raise TemplateError(f"unexpected tag {piece.strip()!r}", line)
            else:
                nodes.append(_Text(piece))
            line += piece.count("\n")
        if len(stack) > 1:
            kind, _, block = stack[-1]
            raise TemplateError(f"unclosed {{% {kind.replace('else', 'if')} %}} block", block.line)
        return root

    def render(self, context=None, **values):
        scope = dict(context or {}, **values)
        return "".join(node.render(scope) for node in self.nodes)


def render(source, context=None, **values):
    """Compile and render ``source`` in one go."""
    return Template(source).render(context, **values)
