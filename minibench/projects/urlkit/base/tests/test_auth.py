from urlkit import BasicAuth


def test_header_roundtrip():
    auth = BasicAuth("aladdin", "open sesame")
    assert auth.to_header() == "Basic YWxhZGRpbjpvcGVuIHNlc2FtZQ=="
    assert BasicAuth.from_header(auth.to_header()) == auth


def test_from_url():
    assert BasicAuth.from_url("https://bob:s%40cret@example.com/") == BasicAuth("bob", "s@cret")


def test_repr_hides_password():
    assert "cret" not in repr(BasicAuth("bob", "secret"))
