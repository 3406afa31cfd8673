"""The text report reads as a person would write it: plurals, one entry per corner tile."""

from __future__ import annotations

from stagekit import make_stage

from trackkit.validate import validate
from trackkit.validate.text import report_text


def test_counts_of_one_are_singular() -> None:
    text = report_text(validate(make_stage("202a", "205a", "203a")))
    assert "(0 errors, 0 warnings)" in text
    ford = report_text(validate(make_stage("202a", "207b", "203a")))
    assert "features: 1 jump, 1 ford\n" in ford
    assert "(s)" not in text + ford


def test_a_tile_with_two_corners_is_listed_once_with_both_limits() -> None:
    report = validate(make_stage("202a", "215b", "203a"))
    assert len(report.summary["corners"]) == 2  # the JSON keeps one entry per corner
    (line,) = [ln for ln in report_text(report).splitlines() if "corners" in ln]
    assert line.strip() == "corners (2): 215b 1/2 + 1/2"
