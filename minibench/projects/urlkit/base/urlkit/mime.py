"""Media types as found in ``Content-Type`` and ``Accept`` headers."""
from dataclasses import dataclass, field

from ._utils import split_list_header, strip_ows, unquote_header_value
from .exceptions import InvalidHeader


@dataclass(frozen=True)
class MediaType:
    type: str
    subtype: str
    params: dict = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def parse(cls, value):
        """Parse ``text/html; charset="utf-8"`` into a :class:`MediaType`."""
        essence, *raw_params = value.split(";")
        main, sep, sub = strip_ows(essence).partition("/")
        if not sep or not main or not sub:
            raise InvalidHeader(f"invalid media type {value!r}")
        params = {}
        for raw in raw_params:
            key, sep, param_value = strip_ows(raw).partition("=")
            if sep:
                params[key.lower()] = unquote_header_value(param_value)
        return cls(main.lower(), sub.lower(), params)

    @property
    def essence(self):
        return f"{self.type}/{self.subtype}"

    @property
    def charset(self):
        return self.params.get("charset")

    @property
    def is_json(self):
        return self.subtype == "json" or self.subtype.endswith("+json")

    def matches(self, other):
        """Wildcard-aware match: ``text/*`` matches ``text/plain``."""
        other = other if isinstance(other, MediaType) else MediaType.parse(other)
        type_ok = "*" in (self.type, other.type) or self.type == other.type
        sub_ok = "*" in (self.subtype, other.subtype) or self.subtype == other.subtype
        return type_ok and sub_ok

    def __str__(self):
        params = "".join(f"; {k}={v}" for k, v in self.params.items())
        return f"{self.essence}{params}"


def parse_accept(value):
    """Parse an ``Accept`` header into media types ordered by descending quality."""
    ranked = []
    for position, item in enumerate(split_list_header(value)):
        media = MediaType.parse(item)
        try:
            quality = float(media.params.get("q", "1"))
        except ValueError:
            raise InvalidHeader(f"invalid quality value in {item!r}") from None
        ranked.append((-quality, position, media))
    return [media for _, _, media in sorted(ranked, key=lambda entry: entry[:2])]


def negotiate(accept_header, available):
    """Pick the best of ``available`` media types for an ``Accept`` header, or ``None``."""
    for wanted in parse_accept(accept_header):
        if wanted.params.get("q") in ("0", "0.0"):
            continue
        for offer in available:
            if wanted.matches(offer):
                return offer
    return None
