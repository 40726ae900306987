"""urlkit: small, dependency-free helpers for URLs.

The public API is re-exported here so that ``import urlkit`` is all most callers need::

    >>> from urlkit import URL
    >>> str(URL.parse("HTTP://Example.com:80/a/./b").normalized())
    'http://example.com/a/b'
"""
from .exceptions import URLError, InvalidURL, InvalidHeader, CookieError
from .url import URL
from .query import QueryParams
from .normalize import normalize_url

__all__ = [
    "URL",
    "QueryParams",
    "normalize_url",
    "URLError",
    "InvalidURL",
    "InvalidHeader",
    "CookieError",
]

__version__ = "0.1.0"
