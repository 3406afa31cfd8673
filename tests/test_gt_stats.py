"""Figures of GT races as the simulation document gives them."""

from __future__ import annotations

import json

from stagekit import REPO
from typer.testing import CliRunner

from trackkit.cli.app import app

CORE = REPO / "examples" / "gt-core-circuit.yaml"


def test_overtakes_are_counted_on_the_laps_of_the_race() -> None:
    """A car that passes another in the move that takes it over the line for the last time
    made that pass on the last lap, not on a lap after the race."""
    args = ["simulate", str(CORE), "--races", "20", "--players", "6", "--laps", "2"]
    done = CliRunner().invoke(
        app, [*args, "--bot", "aggressive", "--bot", "planner", "--format", "json"]
    )
    assert done.exit_code == 0, done.stderr
    doc = json.loads(done.stdout)
    by_lap = doc["overtakes"]["by_lap"]
    assert by_lap and set(by_lap) <= {"1", "2"}
    assert sum(by_lap.values()) == doc["overtakes"]["total"]
