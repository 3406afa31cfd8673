"""The text report reads as a person would write it: plurals, one entry per corner tile."""

from __future__ import annotations

import pytest
from stagekit import REPO, make_stage
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.checks.text import report_text
from trackkit.cli.app import app


def test_counts_of_one_are_singular() -> None:
    text = report_text(validate(make_stage("202a", "205a", "203a")))
    assert "(0 errors, 0 warnings)" in text
    ford = report_text(validate(make_stage("202a", "207b", "203a")))
    assert "features: 1 jump, 1 ford\n" in ford
    assert "(s)" not in text + ford


def test_a_tile_with_two_corners_is_listed_once_with_both_limits() -> None:
    report = validate(make_stage("202a", "215b", "203a"))
    assert len(report.summary.corners) == 2  # the JSON keeps one entry per corner
    (line,) = [ln for ln in report_text(report).splitlines() if "corners" in ln]
    assert line.strip() == "corners (2): 215b 1/2 + 1/2"


def _guide_block(first_line_start: str) -> list[str]:
    text = (REPO / "docs" / "usage.md").read_text(encoding="utf-8")
    start = text.index(first_line_start)
    return text[start : text.index("```", start)].rstrip("\n").splitlines()


@pytest.mark.parametrize("example", ["broken-stage.yaml", "turini-typo.rekee.json"])
def test_the_usage_guide_shows_what_validate_prints_for_the_broken_examples(
    example: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # the guide runs it from the checkout
    shown = _guide_block(f"examples/{example}: INVALID")
    result = CliRunner().invoke(app, ["validate", f"examples/{example}"])
    printed = [
        line
        for line in result.stdout.splitlines()
        if line.startswith(("examples/", "  error", "  warning"))
        or (line.startswith("      fix:") and "fix:" in "\n".join(shown))
    ]
    # the guide may leave out fix lines; every line it shows is printed, in order
    assert [line for line in printed if line in shown] == shown


def test_the_summary_counts_the_tiles_the_road_does_not_reach() -> None:
    from trackkit.formats import load_stage

    report = validate(load_stage(REPO / "examples" / "turini-typo.rekee.json"))
    assert report.summary.tiles == 5 and report.summary.tiles_not_driven == 7
    assert "5 tiles (+7 not driven)" in report_text(report)
