from urlkit import MediaType
from urlkit.mime import negotiate


def test_parse_params():
    media = MediaType.parse('Text/HTML; Charset="utf-8"')
    assert media.essence == "text/html"
    assert media.charset == "utf-8"


def test_json_suffix():
    assert MediaType.parse("application/problem+json").is_json


def test_negotiate_prefers_quality():
    accept = "text/html;q=0.5, application/json"
    assert negotiate(accept, ["text/html", "application/json"]) == "application/json"
