import pytest

from confetti import Template, TemplateError, render


def test_variables_and_filters():
    assert render("Hello {{ user.name | title }}!", user={"name": "ada lovelace"}) == "Hello Ada Lovelace!"


def test_filter_with_numeric_argument():
    assert render("{{ text | truncate(8) }}", text="configuration") == "confi..."


@pytest.mark.parametrize(
    "source, expected",
    [
        ('{{ hosts | join(", ") }}', "a, b, c"),
        ("{{ hosts | join(' | ') }}", "a | b | c"),
        ('{{ hosts | join(",") | upper }}', "A,B,C"),
        ('{{ hosts | join(", ") | truncate(6, "~") }}', "a, b,~"),
    ],
    ids=["comma-space", "pipe-in-string", "chained", "two-args"],
)
def test_string_arguments_with_separators(source, expected):
    assert render(source, hosts=["a", "b", "c"]) == expected


def test_default_filter():
    assert render("{{ missing | default('n/a') }}") == "n/a"


def test_if_else():
    template = Template("{% if debug %}DEBUG{% else %}INFO{% endif %}")
    assert template.render(debug=True) == "DEBUG"
    assert template.render(debug=False) == "INFO"


def test_for_loop():
    source = "{% for s in servers %}{{ s }}{% if loop.last %}.{% else %}, {% endif %}{% endfor %}"
    assert render(source, servers=["a", "b", "c"]) == "a, b, c."


def test_comment():
    assert render("a{# hidden #}b") == "ab"


class TestErrors:
    def test_unknown_filter(self):
        with pytest.raises(TemplateError, match="unknown filter"):
            Template("{{ x | shout }}")

    def test_unclosed_block(self):
        with pytest.raises(TemplateError, match="line 2"):
            Template("ok\n{% if x %}never closed")

    def test_malformed_filter_arguments(self):
        with pytest.raises(TemplateError, match="invalid arguments"):
            Template('{{ x | join(", ) }}')

    def test_unexpected_tag(self):
        with pytest.raises(TemplateError):
            Template("{% endfor %}")
