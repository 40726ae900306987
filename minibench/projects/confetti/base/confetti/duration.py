"""Human-friendly durations such as ``1h30m`` or ``250ms``."""
import re

_UNITS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w)")


def parse_duration(text):
    """Parse a duration into seconds (a float).

    Accepts a plain number of seconds (``"90"``) or a sequence of number+unit parts (``"1h30m"``,
    ``"2d 4h"``, ``"1.5s"``). Raises ``ValueError`` for anything else.
    """
    if isinstance(text, (int, float)):
        return float(text)
    compact = text.strip().replace(" ", "")
    if not compact:
        raise ValueError("empty duration")
    try:
        return float(compact)
    except ValueError:
        pass
    position = 0
    total = 0.0
    for match in _PART.finditer(compact):
        if match.start() != position:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if position != len(compact):
        raise ValueError(f"invalid duration {text!r}")
    return total


def format_duration(seconds):
    """Format seconds compactly: ``5400`` -> ``"1h30m"``."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    parts = []
    remaining = int(round(seconds))
    for unit in ("w", "d", "h", "m", "s"):
        size = _UNITS[unit]
        count, remaining = divmod(remaining, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)
