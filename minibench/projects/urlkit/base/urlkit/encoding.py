"""Percent-encoding as specified by RFC 3986 section 2."""
import string

from .exceptions import InvalidURL

UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
GEN_DELIMS = frozenset(":/?#[]@")
SUB_DELIMS = frozenset("!$&'()*+,;=")
RESERVED = GEN_DELIMS | SUB_DELIMS

# Characters that may appear unencoded in each component, beyond the unreserved set.
PATH_SAFE = SUB_DELIMS | {":", "@", "/"}
QUERY_SAFE = PATH_SAFE | {"?"}
FRAGMENT_SAFE = QUERY_SAFE
USERINFO_SAFE = SUB_DELIMS | {":"}

_HEXDIGITS = frozenset(string.hexdigits)


def quote(text, safe=frozenset()):
    """Percent-encode every character of ``text`` that is neither unreserved nor in ``safe``.

    Existing escapes (``%XX``) are kept as they are, upper-cased, so quoting is idempotent.
    """
    allowed = UNRESERVED | frozenset(safe)
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "%" and _is_escape(text, i):
            out.append(text[i : i + 3].upper())
            i += 3
            continue
        if char in allowed:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8"))
        i += 1
    return "".join(out)


def unquote(text, errors="strict"):
    """Decode every percent-escape in ``text`` (as UTF-8)."""
    raw = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "%":
            if not _is_escape(text, i):
                if errors == "strict":
                    raise InvalidURL(f"invalid percent-escape at position {i}", text)
                raw.extend(b"%")
                i += 1
                continue
            raw.append(int(text[i + 1 : i + 3], 16))
            i += 3
        else:
            raw.extend(text[i].encode("utf-8"))
            i += 1
    return raw.decode("utf-8", errors="replace" if errors != "strict" else "strict")


def unquote_unreserved(text):
    """Decode only the escapes that stand for characters which never need encoding.

    This is the "decoding percent-encoded octets of unreserved characters" step of RFC 3986
    section 6.2.2.2. Escapes of any other character are kept (with upper-case hex digits), because
    decoding them could change what the URL means.
    """
    out = []
    i = 0
    while i < len(text):
        if text[i] == "%" and _is_escape(text, i):
            char = chr(int(text[i + 1 : i + 3], 16))
            if char in UNRESERVED or char in PATH_SAFE:
                out.append(char)
            else:
                out.append(text[i : i + 3].upper())
            i += 3
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _is_escape(text, i):
    return i + 2 < len(text) and text[i + 1] in _HEXDIGITS and text[i + 2] in _HEXDIGITS
