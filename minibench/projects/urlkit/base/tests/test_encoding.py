import pytest

from urlkit.encoding import PATH_SAFE, quote, unquote
from urlkit.exceptions import InvalidURL


def test_quote_space_and_unicode():
    assert quote("a b/\u00e9", PATH_SAFE) == "a%20b/%C3%A9"


def test_quote_is_idempotent():
    once = quote("100% sure", PATH_SAFE)
    assert quote(once, PATH_SAFE) == once


def test_unquote_utf8():
    assert unquote("%C3%A9t%C3%A9") == "\u00e9t\u00e9"


def test_unquote_strict_rejects_bad_escape():
    with pytest.raises(InvalidURL):
        unquote("100%zz")
