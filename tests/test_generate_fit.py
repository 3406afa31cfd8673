"""generate says when it misses (issue 19 item 5).

The usage guide's own ``generate ... --difficulty hard --par 300 --count 3`` (then in the
README) wrote stages below
the hard band and up to 495 s against the 300 s asked, and said nothing. Now the terminal,
each stage's report and the index say which stage misses which target and by how much
(:mod:`trackkit.generator.fit`), a finalist that fits goes before one that misses, and
``--tries N`` searches again for the stages that miss. An 8-player GT request blamed
``--tiles`` (not given) and told the user to add gt-core (named): it names the players.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from stagekit import REPO
from typer.testing import CliRunner

from trackkit.cli.app import app
from trackkit.cli.commands.generate import PAR_PERCENT
from trackkit.generator import Difficulty, Request, generate
from trackkit.generator.fit import PAR_TOLERANCE, fit_of

runner = CliRunner()


def guide_command(marker: str) -> list[str]:
    """The arguments of docs/usage.md's ``trackkit generate`` command holding ``marker``."""
    text = (REPO / "docs" / "usage.md").read_text(encoding="utf-8").replace("\\\n", " ")
    for line in text.splitlines():
        if "trackkit generate" in line and marker in line:
            words = shlex.split(line)
            return words[words.index("generate") + 1 :]
    raise AssertionError(f"no generate command with {marker!r} in docs/usage.md")


def expected_misses(doc: dict[str, Any], stage: dict[str, Any]) -> dict[str, float]:
    """What a stage misses, worked out from the figures the index gives: the race rate
    outside the band (by how much past its edge), the careful time off --par by more
    than the tolerance (by how much from --par)."""
    band, sim, par = doc["difficulty_band"], stage["simulation"], doc["request"]["par"]
    out = {}
    rate = sim["loss_of_control_rate"]
    if rate < band["low"]:
        out["difficulty"] = rate - band["low"]
    elif rate > band["high"]:
        out["difficulty"] = rate - band["high"]
    careful = sim["careful_time"]
    if abs(careful - par) > PAR_TOLERANCE * par:
        out["par"] = careful - par
    return out


def test_the_guide_command_says_which_stage_misses_and_by_how_much(tmp_path: Path) -> None:
    args = guide_command("--difficulty hard")
    out = tmp_path / "tonight"
    args[args.index("-o") + 1] = str(out)
    result = runner.invoke(app, ["generate", *args])
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "index.json").read_text(encoding="utf-8"))
    index_md = (out / "index.md").read_text(encoding="utf-8")
    missed = 0
    for stage in doc["stages"]:
        n, fit = stage["index"], stage["fit"]
        want = expected_misses(doc, stage)
        got = {m["target"]: m["off_by"] for m in fit["misses"]}
        assert got == pytest.approx(want, abs=1e-3), (n, got, want)
        assert fit["fits"] is (not want)
        said = [line for line in result.stdout.splitlines() if line.startswith(f"  stage {n} ")]
        row = next(line for line in index_md.splitlines() if line.startswith(f"| {n} |"))
        report = (out / stage["files"]["report"]).read_text(encoding="utf-8")
        if want:
            missed += 1
            assert len(said) == 1 and "misses" in said[0] and "misses" in row, (said, row)
            assert "It misses what was asked for" in report
            for target, off in want.items():
                figure = f"{abs(off):.2f}" if target == "difficulty" else f"{abs(off):.0f} s"
                assert figure in said[0] and figure in row and figure in report, (target, said)
        else:
            assert said == [] and row.rstrip().endswith("| fits |"), row
    assert missed, "the guide's command was chosen because it misses (issue 19)"
    assert doc["all_fit"] is False and "--tries" in result.stderr


def test_the_par_tolerance_the_help_gives_is_the_one_used() -> None:
    assert round(100 * PAR_TOLERANCE) == PAR_PERCENT


#: A small request whose first search misses for a stage and whose later searches find
#: one that fits (seeded: the same every run).
SMALL = Request(
    boxes=("dirt-core",),
    tiles=5,
    count=2,
    candidates=3,
    finalists=2,
    races=6,
    par=100,
    seed=3,
    difficulty=Difficulty.HARD,
)


def test_tries_search_again_for_the_stages_that_miss_until_they_fit() -> None:
    from dataclasses import replace

    once = generate(SMALL)
    more = generate(replace(SMALL, tries=4))
    rescued = 0
    for first, last in zip(once.outcomes, more.outcomes, strict=True):
        assert first.tries == 1
        # the first search is the same search: its finalists come first, in order
        head = [f.candidate.stage for f in last.finalists[: len(first.finalists)]]
        assert head == [f.candidate.stage for f in first.finalists]
        assert last.fit.fits or last.tries == 4  # searched until it fits, or out of tries
        if first.fit.fits:
            assert last.tries == 1 and last.chosen.candidate.stage == first.chosen.candidate.stage
        elif last.fit.fits:
            rescued += 1
            assert last.tries > 1 and len(last.finalists) == SMALL.finalists * last.tries
        # the stage kept: the lowest total of the finalists that fit, else of all
        fits = [
            f
            for f in last.finalists
            if fit_of(more.request, more.aim.band, f.candidate.structure.difficulty, f.sim).fits
        ]
        assert last.chosen.total == min(f.total for f in fits or last.finalists)
        assert last.fit.fits is bool(fits)
    assert rescued >= 1, "this request has a stage only a later search fits"
    assert more.stats["searches"] == sum(o.tries for o in more.outcomes)


def test_cli_tries_is_said_reproduced_and_the_same_with_any_jobs(tmp_path: Path) -> None:
    args = ["--boxes", "dirt-core", "--tiles", "5", "--count", "2", "--candidates", "3"]
    args += ["--finalists", "2", "--races", "6", "--par", "100", "--seed", "3"]
    args += ["--difficulty", "hard", "--map", "none", "--tries", "4"]
    a, b = tmp_path / "a", tmp_path / "b"
    first = runner.invoke(app, ["generate", *args, "-o", str(a)])
    assert first.exit_code == 0, first.output
    second = runner.invoke(app, ["generate", *args, "--jobs", "2", "-o", str(b)])
    assert second.exit_code == 0, second.output

    def files(folder: Path) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in folder.iterdir()}

    assert files(a) == files(b)
    doc = json.loads((a / "index.json").read_text(encoding="utf-8"))
    assert doc["request"]["tries"] == 4 and "--tries 4" in doc["command"]
    searched = [s for s in doc["stages"] if s["searches"] > 1]
    assert searched
    for stage in searched:
        line = next(
            x for x in first.stdout.splitlines() if x.startswith(f"  stage {stage['index']} ")
        )
        assert f"after {stage['searches']} searches" in line


# --- GT: name the real reason ---------------------------------------------------------------

GT = ["generate", "--ruleset", "gt"]
TEAM_ADRENALINE = ["--boxes", "gt-team-challenge", "--boxes", "gt-adrenaline"]
FAST = ["--races", "0", "--candidates", "1", "--map", "none"]


def test_eight_gt_cars_name_the_players_not_tiles_nor_a_box_already_named(
    tmp_path: Path,
) -> None:
    out = tmp_path / "x"
    boxes = ["--boxes", "gt-core", "--boxes", "gt-team-challenge"]
    result = runner.invoke(
        app,
        [*GT, *boxes, "--players", "8", "-o", str(out)],
    )
    assert result.exit_code == 2, result.output
    err = result.stderr
    assert err.startswith("trackkit: error: --players:"), err
    assert "12 slots" in err and "4 lanes wide" in err, err  # the grid, and the road
    assert "--players 6 or fewer" in err, err  # what would work
    assert "add gt-core" not in err and "--tiles" not in err, err
    assert not out.exists()


def test_a_default_size_that_cannot_close_says_it_was_the_default(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [*GT, *TEAM_ADRENALINE, "-o", str(tmp_path / "x")],
    )
    assert result.exit_code == 2
    err = result.stderr
    assert err.startswith("trackkit: error: --tiles:") and "not given" in err, err
    asked = re.search(r"ask for --tiles (\d+) or fewer", err)
    assert asked, err
    fewer = runner.invoke(
        app,
        [*GT, *TEAM_ADRENALINE, "--tiles", asked.group(1), *FAST, "-o", str(tmp_path / "y")],
    )
    assert fewer.exit_code == 0, fewer.output  # what it said works, works
