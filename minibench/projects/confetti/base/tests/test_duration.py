import pytest

from confetti.duration import format_duration, parse_duration


@pytest.mark.parametrize(
    "text, seconds",
    [("90", 90.0), ("1h30m", 5400.0), ("2d 4h", 187200.0), ("250ms", 0.25), ("1.5s", 1.5), ("1w", 604800.0)],
    ids=["seconds", "hours-minutes", "days-hours-spaced", "milliseconds", "fractional", "week"],
)
def test_parse(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "h", "10x", "1h 30"], ids=["empty", "unit-only", "unknown-unit", "missing-unit"])
def test_parse_invalid(text):
    with pytest.raises(ValueError):
        parse_duration(text)


def test_format():
    assert format_duration(5400) == "1h30m"
    assert format_duration(0.25) == "250ms"
