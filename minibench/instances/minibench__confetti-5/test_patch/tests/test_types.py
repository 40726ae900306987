import pytest

from confetti.types import converter_for, to_bool, to_int, to_list


@pytest.mark.parametrize("raw", ["1", "true", "yes", "on", True, 1], ids=["str-1", "true", "yes", "on", "bool", "int"])
def test_truthy(raw):
    assert to_bool(raw) is True


@pytest.mark.parametrize(
    "raw", ["0", "false", "no", "off", "", False, 0], ids=["str-0", "false", "no", "off", "empty", "bool", "int"]
)
def test_falsy(raw):
    assert to_bool(raw) is False


@pytest.mark.parametrize(
    "raw",
    ["False", "FALSE", "No", "Off", " false", "0 "],
    ids=["False", "FALSE", "No", "Off", "leading-space", "trailing-space"],
)
def test_falsy_any_case_and_whitespace(raw):
    assert to_bool(raw) is False


@pytest.mark.parametrize("raw", ["True", "YES", " on "], ids=["True", "YES", "padded"])
def test_truthy_any_case_and_whitespace(raw):
    assert to_bool(raw) is True


@pytest.mark.parametrize("raw", ["maybe", "enabled", "2"])
def test_unrecognised_string_is_an_error(raw):
    with pytest.raises(ValueError):
        to_bool(raw)


def test_to_int_accepts_underscores_and_hex():
    assert to_int("1_000") == 1000
    assert to_int("0x10") == 16


def test_to_int_rejects_bool():
    with pytest.raises(TypeError):
        to_int(True)


def test_to_list():
    assert to_list("a, b,,c") == ["a", "b", "c"]
    assert to_list("1,2", item=int) == [1, 2]


def test_converter_for_duration():
    assert converter_for("duration")("1m") == 60.0
