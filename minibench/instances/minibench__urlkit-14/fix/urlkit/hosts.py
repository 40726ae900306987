"""Host and port handling for the authority component of a URL."""
import ipaddress
import re

from .exceptions import InvalidURL

_REG_NAME = re.compile(r"^[A-Za-z0-9._~!$&'()*+,;=%-]*$")
MAX_PORT = 65535


def split_host_port(hostport):
    """Split ``host[:port]`` into ``(host, port)``; ``port`` is ``None`` when absent.

    IPv6 literals keep their brackets in the returned host, e.g. ``"[::1]:8080"`` gives
    ``("[::1]", 8080)``.
    """
    if not hostport:
        return "", None
    if hostport.startswith("["):
        # An IPv6 literal contains colons itself, so the port can only follow the closing bracket.
        end = hostport.find("]")
        if end == -1:
            raise InvalidURL(f"unterminated IPv6 literal {hostport!r}")
        host, rest = hostport[: end + 1], hostport[end + 1 :]
        if not rest:
            return host, None
        if not rest.startswith(":"):
            raise InvalidURL(f"unexpected {rest!r} after IPv6 literal {host!r}")
        return host, parse_port(rest[1:])
    host, sep, port_text = hostport.rpartition(":")
    if not sep:
        return hostport, None
    return host, parse_port(port_text)


def parse_port(text):
    """Parse a port number; an empty string (``"example.com:"``) means no port."""
    if text == "":
        return None
    if not text.isdigit():
        raise InvalidURL(f"invalid port {text!r}")
    port = int(text)
    if port > MAX_PORT:
        raise InvalidURL(f"port out of range: {port}")
    return port


def is_ipv6_literal(host):
    return host.startswith("[") and host.endswith("]")


def normalize_host(host):
    """Lower-case a registered name and compress an IPv6 literal.

    >>> normalize_host("[2001:DB8:0:0:0:0:0:1]")
    '[2001:db8::1]'
    """
    if is_ipv6_literal(host):
        try:
            address = ipaddress.IPv6Address(host[1:-1])
        except ipaddress.AddressValueError as exc:
            raise InvalidURL(f"invalid IPv6 address {host!r}") from exc
        return f"[{address.compressed}]"
    if not _REG_NAME.match(host):
        raise InvalidURL(f"invalid host {host!r}")
    return host.lower().rstrip(".") if host != "." else host


def format_host_port(host, port):
    if port is None:
        return host
    return f"{host}:{port}"
