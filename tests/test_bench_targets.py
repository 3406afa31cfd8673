"""benchmarks/targets.py (issue 22's table): its quickest run prints rows a script can read."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
TARGETS = REPO / "benchmarks" / "targets.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TARGETS), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_quick_race_row_is_a_parsable_row_whose_rate_is_its_races_over_their_cpu() -> None:
    done = _run("--quick", "--only", "dirt-turini", "--races", "30", "--json")
    assert done.returncode == 0, done.stderr
    objects = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert len(objects) == 1
    row = objects[0]
    assert row["row"] == "dirt-turini"
    assert row["races"] == 30
    assert row["runs"] == 1 and row["quick"] is True
    # the start-up (a plain validate of the same stage) is taken off the simulate process
    assert row["cpu"] > row["startup_cpu"] > 0
    assert abs(row["race_cpu"] - (row["cpu"] - row["startup_cpu"])) < 0.002
    assert abs(row["measured"] - 30 / row["race_cpu"]) < 0.01 * row["measured"] + 0.5
    assert row["met"] is (row["measured"] >= row["target"])
    assert row["target"] == 500 and row["op"] == ">="
    assert "--races 30" in row["command"] and row["command"].count("--bot") == 3
    # the human table goes to stderr with --json: work | measured | target | met?
    lines = [ln for ln in done.stderr.splitlines() if ln.count(" | ") == 3]
    assert lines[0] == "work | measured | target | met?"
    work, measured, target, met = lines[1].split(" | ")
    assert "Col de Turini" in work
    assert float(measured.split()[0]) == round(row["measured"])
    assert target == ">= 500 races/CPU s"
    assert met == ("yes" if row["met"] else "no")


def test_unknown_row_is_refused_naming_the_rows() -> None:
    done = _run("--only", "no-such-row")
    assert done.returncode == 2
    assert "no-such-row" in done.stderr and "dirt-turini" in done.stderr
    assert done.stdout == ""


def test_against_another_checkout_measures_each_row_twice_side_by_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the other checkout: a copy of this package whose entry point marks each run it makes
    other = tmp_path / "other"
    shutil.copytree(REPO / "trackkit", other / "trackkit", ignore=shutil.ignore_patterns("*.pyc"))
    (other / "examples").symlink_to(REPO / "examples")  # the rows run in the checkout
    entry = other / "trackkit" / "cli" / "entry.py"
    mark = tmp_path / "mark"
    entry.write_text(
        entry.read_text(encoding="utf-8") + f"\nopen({str(mark)!r}, 'a').write('x')\n",
        encoding="utf-8",
    )
    done = _run(
        "--quick", "--only", "validate-imports", "--runs", "1", "--json", "--against", str(other)
    )
    assert done.returncode == 0, done.stderr
    # the row's 5 runs of validate (its least) on the other side, none of ours
    assert mark.read_text() == "x" * 5
    # its package byte-compiled first, what validate does not import too (the studio)
    assert any((other / "trackkit" / "studio" / "__pycache__").glob("*.pyc"))
    (row,) = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert row["row"] == "validate-imports" and row["against"]["row"] == "validate-imports"
    assert row["against"]["dir"] == str(other)
    assert row["against"]["validate_cpu"] > 0 and row["validate_cpu"] > 0
    lines = [ln for ln in done.stderr.splitlines() if ln.count(" | ") == 4]
    assert lines[0] == f"work | {other} | measured | target | met?"
    work, theirs, ours, target, met = lines[1].split(" | ")
    assert "Col de Turini" in work and target == "<= 1.2 x"
    # the text shows the figure to 2 places, the JSON to 4: rounding that again to 2 may
    # differ by one in the last place (1.65499 is 1.65 shown, 1.655 in the JSON)
    assert float(theirs.split()[0]) == pytest.approx(row["against"]["measured"], abs=0.0051)
    assert float(ours.split()[0]) == pytest.approx(row["measured"], abs=0.0051)
    assert met == ("yes" if row["met"] else "no")


def _targets_module() -> object:
    spec = importlib.util.spec_from_file_location("targets", TARGETS)
    assert spec is not None and spec.loader is not None
    targets = importlib.util.module_from_spec(spec)
    sys.modules["targets"] = targets  # its dataclasses look their module up
    try:
        spec.loader.exec_module(targets)
    finally:
        del sys.modules["targets"]
    return targets


def test_a_row_beyond_start_up_also_shows_both_whole_processes() -> None:
    # a side whose start-up got lighter reads worse beyond it (its lazily imported modules
    # count as the work): the line also gives the whole processes' CPU, the other side first
    targets: Any = _targets_module()
    row = next(r for r in targets.ROWS if r.id == "validate-sim-gt")
    theirs = targets.Measured(1.37, {"cpu": 1.90, "startup_cpu": 0.53})
    ours = targets.Measured(1.44, {"cpu": 1.84, "startup_cpu": 0.40})
    line = targets.line_of(row, ours, theirs)
    assert line.endswith(
        "| 1.37 CPU s | 1.44 CPU s | < 0.5 CPU s | no (whole process 1.90 -> 1.84 CPU s)"
    )
    assert "whole process" not in targets.line_of(row, ours)


def test_against_a_directory_without_trackkit_is_refused(tmp_path: Path) -> None:
    done = _run("--only", "dirt-turini", "--against", str(tmp_path))
    assert done.returncode == 2
    assert "--against" in done.stderr and "no trackkit package" in done.stderr


def test_the_compiled_build_side_by_side_gets_a_verdict_of_its_own() -> None:
    targets: Any = _targets_module()
    row = next(r for r in targets.ROWS if r.id == "dirt-turini")
    pure = targets.Measured(410.0, {"cpu": 2.71, "startup_cpu": 0.25})
    compiled = targets.Measured(617.0, {"cpu": 1.88, "startup_cpu": 0.26})
    line = targets.line_of(row, pure, compiled=compiled)
    # work | pure | compiled | target | pure met? / compiled met?, the pure build first
    assert line.endswith(
        "| 410 races/CPU s | 617 races/CPU s | >= 500 races/CPU s | no / yes"
        " (whole process 2.71 -> 1.88 CPU s)"
    )


def test_compiled_without_a_compiled_build_there_is_refused(tmp_path: Path) -> None:
    # a pure package is not the compiled build: measuring it would say nothing
    (tmp_path / "trackkit" / "sim").mkdir(parents=True)
    (tmp_path / "trackkit" / "sim" / "loop.py").write_text("", encoding="utf-8")
    done = _run("--only", "dirt-turini", "--compiled", str(tmp_path))
    assert done.returncode == 2
    assert "--compiled" in done.stderr and "make compiled" in done.stderr
    both = _run("--only", "dirt-turini", "--compiled", str(tmp_path), "--against", str(tmp_path))
    assert both.returncode == 2 and "one at a time" in both.stderr
