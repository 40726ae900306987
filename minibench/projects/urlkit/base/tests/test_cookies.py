from urlkit import SetCookie, parse_cookie_header


def test_parse_cookie_header():
    assert parse_cookie_header('a=1; b="two"; a=3') == {"a": "1", "b": "two"}


def test_set_cookie_attributes():
    cookie = SetCookie.parse("sid=abc; Path=/app; Secure; HttpOnly; Max-Age=60")
    assert (cookie.name, cookie.value) == ("sid", "abc")
    assert cookie.path == "/app"
    assert cookie.secure and cookie.http_only
    assert cookie.max_age == 60
