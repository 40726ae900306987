"""Syntax-based URL normalization (RFC 3986 section 6.2.2) plus scheme-based rules (6.2.3)."""
from .encoding import unquote_unreserved
from .hosts import normalize_host
from .paths import remove_dot_segments
from .query import QueryParams
from .schemes import default_port, is_hierarchical


def normalize_url(url, sort_query=False, drop_fragment=False):
    """Return a normalized copy of ``url`` (a :class:`~urlkit.url.URL` or a string).

    * scheme and host are lower-cased, IPv6 literals compressed;
    * the port is dropped when it is the scheme's default;
    * percent-escapes of unreserved characters are decoded, other escapes upper-cased;
    * dot segments are removed and an empty path of a hierarchical URL becomes ``/``;
    * optionally the query is sorted by name and the fragment dropped.
    """
    from .url import URL

    url = URL.parse(url) if isinstance(url, str) else url
    host = normalize_host(url.host) if url.host else url.host
    port = url.port
    if port is not None and port == default_port(url.scheme):
        port = None
    path = remove_dot_segments(unquote_unreserved(url.path))
    if not path and url.host is not None and is_hierarchical(url.scheme):
        path = "/"
    query = url.query
    if query is not None:
        query = unquote_unreserved(query)
        if sort_query:
            query = QueryParams(query).sorted().encode()
    fragment = None if drop_fragment else url.fragment
    if fragment is not None:
        fragment = unquote_unreserved(fragment)
    return url.replace(host=host, port=port, path=path, query=query, fragment=fragment)


def urls_equivalent(first, second):
    """True when two URLs are equal after normalization."""
    return str(normalize_url(first)) == str(normalize_url(second))
