"""Exception hierarchy for urlkit.

Every error raised on bad input derives from :class:`URLError`, so callers can catch one type.
"""


class URLError(ValueError):
    """Base class for all urlkit errors."""


class InvalidURL(URLError):
    """A URL (or one of its components) could not be parsed."""

    def __init__(self, message, url=None):
        super().__init__(message)
        self.url = url

    def __str__(self):
        base = super().__str__()
        if self.url is not None:
            return f"{base} (in {self.url!r})"
        return base


class InvalidHeader(URLError):
    """A header name or value is not valid according to RFC 9110."""


class CookieError(URLError):
    """A Cookie or Set-Cookie header could not be parsed."""
