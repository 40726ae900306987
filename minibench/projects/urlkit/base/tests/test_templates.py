import pytest

from urlkit import expand
from urlkit.templates import variables_of


@pytest.mark.parametrize(
    "template, expected",
    [
        ("{var}", "value"),
        ("{+path}/here", "/foo/bar/here"),
        ("{/var}", "/value"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{#path}", "#/foo/bar"),
        ("{hello}", "Hello%20World%21"),
    ],
)
def test_expand(template, expected):
    variables = {"var": "value", "path": "/foo/bar", "x": 1024, "y": 768, "hello": "Hello World!"}
    assert expand(template, variables) == expected


def test_missing_variables_vanish():
    assert expand("/search{?q,page}", q="cats") == "/search?q=cats"


def test_variables_of():
    assert variables_of("/u/{id}{?fields,id}") == ["id", "fields"]
