"""Theme files are data, not CSS: colours and a font list only, refused by key otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tinycss2
from stagekit import REPO
from typer.testing import CliRunner

from trackkit.cli.app import app
from trackkit.errors import InputError
from trackkit.render.theme import DEFAULT_THEME, css, load_theme, make_theme

EXAMPLE = str(REPO / "examples" / "col-de-turini.yaml")
runner = CliRunner()

NOT_COLOURS = [
    "expression(alert(1))",
    "url(javascript:alert(1))",
    "url(#x)",
    "inherit",
    "initial",
    "currentColor",
    "banana",
    "rgb(999, 0, 0)",
    "rgb(10%, 0%, 0%)",
    "rgba(1, 2, 3, 0.5)",
    "hsl(0, 100%, 50%)",
    "#abcd",
    "#12345",
    "red;",
    "red } svg { display: none",
    "red /* x */",
    "",
]
COLOURS = ["red", "DarkOliveGreen", "transparent", "#abc", "#A1B2C3", "rgb(0, 128, 255)"]
NOT_FONTS = [
    "Arial'",
    '"Arial',
    "Arial; fill: red",
    "a,,b",
    ", Arial",
    "Arial,",
    "url(x)",
    "</style><script>",
    '"Open Sans" Bold',
    "x" * 121,
    "",
]


@pytest.mark.parametrize("value", NOT_COLOURS)
def test_anything_but_a_colour_is_refused_naming_the_key(value: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"theme key 'road\.gravel': .* is not a colour"):
        make_theme({"road.gravel": value})
    theme = tmp_path / "theme.json"
    theme.write_text(json.dumps({"road.gravel": value}), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_theme(theme)
    assert err.value.file == str(theme) and "'road.gravel'" in err.value.message


@pytest.mark.parametrize("value", NOT_FONTS)
def test_anything_but_a_font_list_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match=r"theme key 'font': .* is not a font list"):
        make_theme({"font": value})


@pytest.mark.parametrize("value", COLOURS)
def test_colours_of_the_accepted_forms_reach_the_style(value: str) -> None:
    assert make_theme({"road.gravel": f"  {value} "})["road.gravel"] == value


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("DejaVu Sans, Verdana, Arial, sans-serif", "DejaVu Sans, Verdana, Arial, sans-serif"),
        ("'Open Sans', serif", '"Open Sans", serif'),
        ('"Fira Sans Condensed",monospace', '"Fira Sans Condensed", monospace'),
        ("  Noto   Sans  ", "Noto Sans"),
    ],
)
def test_font_lists_are_kept_in_a_plain_form(value: str, kept: str) -> None:
    assert make_theme({"font": value})["font"] == kept


def _rules(text: str) -> list[tuple[str, str]]:
    """(selector, declarations) of a style sheet; fails on anything CSS could not parse."""
    out = []
    for rule in tinycss2.parse_stylesheet(text, skip_whitespace=True, skip_comments=True):
        assert rule.type == "qualified-rule", rule
        for decl in tinycss2.parse_blocks_contents(rule.content, skip_whitespace=True):
            assert decl.type == "declaration", decl
        out.append((tinycss2.serialize(rule.prelude).strip(), tinycss2.serialize(rule.content)))
    return out


def test_a_theme_changes_values_only_never_the_rules() -> None:
    theme = make_theme({"font": "'Open Sans', serif", "danger.high": "rgb(1, 2, 3)"})
    default, themed = _rules(css(make_theme())), _rules(css(theme))
    assert [sel for sel, _ in themed] == [sel for sel, _ in default]
    assert "rgb(1, 2, 3)" in dict(themed)[".danger.danger-high use"]


def test_render_refuses_a_css_theme_with_exit_2_naming_the_key(tmp_path: Path) -> None:
    theme = tmp_path / "evil.json"
    theme.write_text(json.dumps({"text": "expression(alert(1))"}), encoding="utf-8")
    out = tmp_path / "map.svg"
    result = runner.invoke(app, ["render", EXAMPLE, "-o", str(out), "--theme", str(theme)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"trackkit: error: {theme}: theme key 'text'")
    assert not out.exists()


def test_every_default_value_passes_its_own_check() -> None:
    assert make_theme(DEFAULT_THEME) == DEFAULT_THEME
