"""Parsing of ``Cookie`` request headers and ``Set-Cookie`` response headers (RFC 6265)."""
from dataclasses import dataclass, field

from ._utils import strip_ows, unquote_header_value
from .dates import format_http_date
from .exceptions import CookieError


def parse_cookie_header(value):
    """Parse a ``Cookie`` header (``a=1; b=2``) into a dict; later duplicates are ignored."""
    cookies = {}
    for chunk in value.split(";"):
        chunk = strip_ows(chunk)
        if not chunk:
            continue
        name, sep, cookie_value = chunk.partition("=")
        if not sep:
            continue
        name = strip_ows(name)
        cookies.setdefault(name, unquote_header_value(strip_ows(cookie_value)))
    return cookies


@dataclass
class SetCookie:
    """One cookie as sent in a ``Set-Cookie`` header."""

    name: str
    value: str
    attributes: dict = field(default_factory=dict)

    @property
    def secure(self):
        return "secure" in self.attributes

    @property
    def http_only(self):
        return "httponly" in self.attributes

    @property
    def path(self):
        return self.attributes.get("path", "/")

    @property
    def max_age(self):
        raw = self.attributes.get("max-age")
        if raw is None:
            return None
        try:
            return int(raw)
        except ValueError:
            raise CookieError(f"invalid Max-Age {raw!r} for cookie {self.name!r}") from None

    @classmethod
    def parse(cls, header_value):
        """Parse one ``Set-Cookie`` header value."""
        pair, *attribute_chunks = header_value.split(";")
        name, sep, value = pair.partition("=")
        name = strip_ows(name)
        if not sep or not name:
            raise CookieError(f"Set-Cookie without a name=value pair: {header_value!r}")
        attributes = {}
        for chunk in attribute_chunks:
            key, _, attr_value = strip_ows(chunk).partition("=")
            if key:
                attributes[key.lower()] = strip_ows(attr_value) if attr_value else True
        return cls(name, unquote_header_value(strip_ows(value)), attributes)

    def serialize(self):
        parts = [f"{self.name}={self.value}"]
        for key, value in self.attributes.items():
            if key == "expires" and not isinstance(value, str):
                value = format_http_date(value)
            parts.append(key if value is True else f"{key}={value}")
        return "; ".join(parts)
