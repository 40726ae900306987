"""Filters usable in templates: ``{{ name | upper }}``, ``{{ items | join(", ") }}``."""
import functools

FILTERS = {}


def template_filter(name=None):
    """Register a function as a template filter (under its own name unless ``name`` is given)."""

    def decorator(func):
        FILTERS[name or func.__name__] = func
        return func

    return decorator


@template_filter()
def upper(value):
    return str(value).upper()


@template_filter()
def lower(value):
    return str(value).lower()


@template_filter()
def title(value):
    return str(value).title()


@template_filter()
def default(value, fallback=""):
    return fallback if value is None or value == "" else value


@template_filter()
def join(value, separator=","):
    return separator.join(str(item) for item in value)


@template_filter()
def truncate(value, length=80, ellipsis="..."):
    text = str(value)
    if len(text) <= length:
        return text
    return text[: max(0, length - len(ellipsis))] + ellipsis


@template_filter(name="len")
def length(value):
    return len(value)


@template_filter()
@functools.lru_cache(maxsize=None)
def indent(value, width=4):
    pad = " " * width
    return "\n".join(pad + line if line else line for line in str(value).split("\n"))
