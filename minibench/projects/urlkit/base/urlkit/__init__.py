"""urlkit: small, dependency-free helpers for URLs and HTTP messages.

The public API is re-exported here so that ``import urlkit`` is all most callers need::

    >>> from urlkit import URL
    >>> str(URL.parse("HTTP://Example.com:80/a/./b").normalized())
    'http://example.com/a/b'
"""
from .exceptions import URLError, InvalidURL, InvalidHeader, CookieError
from .url import URL
from .query import QueryParams
from .headers import Headers
from .normalize import normalize_url
from .cookies import parse_cookie_header, SetCookie
from .mime import MediaType
from .auth import BasicAuth
from .retry import Retry
from .templates import expand

__all__ = [
    "URL",
    "QueryParams",
    "Headers",
    "normalize_url",
    "parse_cookie_header",
    "SetCookie",
    "MediaType",
    "BasicAuth",
    "Retry",
    "expand",
    "URLError",
    "InvalidURL",
    "InvalidHeader",
    "CookieError",
]

__version__ = "0.3.0"
