"""HTTP Basic authentication credentials."""
import base64
import binascii
from dataclasses import dataclass

from .encoding import USERINFO_SAFE, quote, unquote
from .exceptions import InvalidHeader


@dataclass(frozen=True)
class BasicAuth:
    username: str
    password: str = ""

    def to_header(self):
        token = base64.b64encode(f"{self.username}:{self.password}".encode("utf-8")).decode("ascii")
        return f"Basic {token}"

    @classmethod
    def from_header(cls, value):
        scheme, _, token = value.strip().partition(" ")
        if scheme.lower() != "basic" or not token:
            raise InvalidHeader(f"not a Basic authorization header: {value!r}")
        try:
            decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise InvalidHeader("malformed Basic credentials") from exc
        username, _, password = decoded.partition(":")
        return cls(username, password)

    @classmethod
    def from_url(cls, url):
        """Credentials from a URL's userinfo, or ``None`` when it has none."""
        from .url import URL

        url = URL.parse(url)
        if not url.userinfo:
            return None
        username, _, password = url.userinfo.partition(":")
        return cls(unquote(username), unquote(password))

    def to_userinfo(self):
        user = quote(self.username, USERINFO_SAFE - {":"})
        if not self.password:
            return user
        return f"{user}:{quote(self.password, USERINFO_SAFE)}"

    def __repr__(self):
        return f"BasicAuth(username={self.username!r}, password='***')"
