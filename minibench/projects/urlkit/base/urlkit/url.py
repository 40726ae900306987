"""The :class:`URL` value type."""
import re

from .encoding import FRAGMENT_SAFE, PATH_SAFE, USERINFO_SAFE, quote
from .exceptions import InvalidURL
from .hosts import format_host_port, split_host_port
from .paths import merge_paths, remove_dot_segments
from .query import QueryParams
from .schemes import is_hierarchical

# RFC 3986 appendix B, with named groups.
_URL_RE = re.compile(
    r"^(?:(?P<scheme>[^:/?#]+):)?"
    r"(?://(?P<authority>[^/?#]*))?"
    r"(?P<path>[^?#]*)"
    r"(?:\?(?P<query>[^#]*))?"
    r"(?:#(?P<fragment>.*))?$",
    re.DOTALL,
)
_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*$")


class URL:
    """An immutable, parsed URL.

    Components are stored percent-encoded; ``str(url)`` recomposes them exactly as RFC 3986
    section 5.3 describes.
    """

    __slots__ = ("scheme", "userinfo", "host", "port", "path", "query", "fragment")

    def __init__(self, scheme="", userinfo=None, host=None, port=None, path="", query=None, fragment=None):
        if scheme and not _SCHEME_RE.match(scheme):
            raise InvalidURL(f"invalid scheme {scheme!r}")
        object.__setattr__(self, "scheme", scheme.lower())
        object.__setattr__(self, "userinfo", userinfo)
        object.__setattr__(self, "host", host)
        object.__setattr__(self, "port", port)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "query", query)
        object.__setattr__(self, "fragment", fragment)

    def __setattr__(self, name, value):
        raise AttributeError("URL objects are immutable; use URL.replace()")

    @classmethod
    def parse(cls, text):
        """Parse ``text`` into a :class:`URL`.

        Raises :class:`~urlkit.exceptions.InvalidURL` when the authority is malformed.
        """
        if isinstance(text, URL):
            return text
        match = _URL_RE.match(text.strip())
        if match is None:  # pragma: no cover - the expression matches every string
            raise InvalidURL("unparseable URL", text)
        parts = match.groupdict()
        userinfo = host = port = None
        authority = parts["authority"]
        if authority is not None:
            userinfo, _, hostport = authority.rpartition("@") if "@" in authority else (None, "", authority)
            try:
                host, port = split_host_port(hostport)
            except InvalidURL as exc:
                raise InvalidURL(str(exc), text) from exc
        return cls(
            scheme=parts["scheme"] or "",
            userinfo=userinfo,
            host=host,
            port=port,
            path=parts["path"],
            query=parts["query"],
            fragment=parts["fragment"],
        )

    @classmethod
    def build(cls, scheme, host, path="/", query=None, fragment=None, port=None, userinfo=None):
        """Build a URL from *decoded* components, percent-encoding them as needed."""
        if isinstance(query, (dict, list, QueryParams)):
            query = QueryParams(query).encode()
        return cls(
            scheme=scheme,
            userinfo=quote(userinfo, USERINFO_SAFE) if userinfo else None,
            host=host,
            port=port,
            path=quote(path, PATH_SAFE),
            query=query,
            fragment=quote(fragment, FRAGMENT_SAFE) if fragment is not None else None,
        )

    # -- derived views -----------------------------------------------------------------------------------

    @property
    def authority(self):
        if self.host is None:
            return None
        hostport = format_host_port(self.host, self.port)
        return f"{self.userinfo}@{hostport}" if self.userinfo is not None else hostport

    @property
    def params(self):
        return QueryParams(self.query or "")

    @property
    def is_absolute(self):
        return bool(self.scheme)

    def replace(self, **changes):
        values = {name: getattr(self, name) for name in self.__slots__}
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"unknown URL component(s): {', '.join(sorted(unknown))}")
        values.update(changes)
        return URL(**values)

    def with_params(self, params):
        return self.replace(query=QueryParams(params).encode())

    def normalized(self):
        from .normalize import normalize_url

        return normalize_url(self)

    def join(self, reference):
        """Resolve ``reference`` against this URL (RFC 3986 section 5.2.2)."""
        ref = URL.parse(reference)
        if ref.scheme:
            return ref.replace(path=remove_dot_segments(ref.path))
        if ref.host is not None:
            return ref.replace(scheme=self.scheme, path=remove_dot_segments(ref.path))
        if not ref.path:
            query = ref.query if ref.query is not None else self.query
            return self.replace(query=query, fragment=ref.fragment)
        if ref.path.startswith("/"):
            path = remove_dot_segments(ref.path)
        else:
            path = remove_dot_segments(merge_paths(self.path, ref.path, self.host is not None))
        return self.replace(path=path, query=ref.query, fragment=ref.fragment)

    # -- value semantics -----------------------------------------------------------------------------------

    def __str__(self):
        out = []
        if self.scheme:
            out.append(self.scheme + ":")
        authority = self.authority
        if authority is not None:
            out.append("//" + authority)
        elif self.scheme and is_hierarchical(self.scheme):
            out.append("//")
        out.append(self.path)
        if self.query is not None:
            out.append("?" + self.query)
        if self.fragment is not None:
            out.append("#" + self.fragment)
        return "".join(out)

    def __repr__(self):
        return f"URL({str(self)!r})"

    def __eq__(self, other):
        if isinstance(other, str):
            other = URL.parse(other)
        if not isinstance(other, URL):
            return NotImplemented
        return str(self) == str(other)

    def __hash__(self):
        return hash(str(self))
