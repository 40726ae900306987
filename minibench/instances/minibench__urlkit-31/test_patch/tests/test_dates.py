import datetime

import pytest

from urlkit import dates


def test_format_http_date_from_timestamp():
    assert dates.format_http_date(784111777) == "Sun, 06 Nov 1994 08:49:37 GMT"


def test_format_http_date_naive_is_utc():
    assert dates.format_http_date(datetime.datetime(1994, 11, 6, 8, 49, 37)) == "Sun, 06 Nov 1994 08:49:37 GMT"


@pytest.mark.parametrize(
    "value",
    [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
    ],
    ids=["imf-fixdate", "rfc850", "asctime"],
)
def test_parse_http_date_formats(value):
    assert dates.parse_http_date(value) == 784111777


@pytest.mark.parametrize(
    "value",
    ["", "yesterday", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"],
    ids=["empty", "word", "bad-day", "bad-month"],
)
def test_parse_http_date_invalid(value):
    assert dates.parse_http_date(value) is None


def test_format_parse_roundtrip():
    assert dates.parse_http_date(dates.format_http_date(1700000000)) == 1700000000
