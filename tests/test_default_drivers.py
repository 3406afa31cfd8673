"""The drivers a simulation races when none are named: a hillclimb's vary and its report says
something; a rally keeps its cautious drivers, whose races vary already.
"""

from __future__ import annotations

import json

import pytest
from stagekit import EXAMPLES, simulate_help, simulate_json
from typer.testing import CliRunner

from trackkit.cli.app import app

runner = CliRunner()


# --- the default drivers make races that vary ------------------------------------------------


@pytest.mark.slow
def test_a_hillclimb_raced_with_the_default_drivers_varies_and_says_something():
    # rule: DASH-3 (each bot builds its Unlimited board), HILLCLIMB-2 (best of the attempts)
    pikes = str(EXAMPLES / "hillclimb-pikes.yaml")
    doc = simulate_json(pikes, "--races", "20")
    assert doc["settings"]["bots"] == ["cautious", "aggressive", "planner", "cautious"]
    best = doc["hillclimb"]["best_of_attempts"]
    assert best["p10"] < best["p90"]  # the times vary from race to race
    assert doc["loss_of_control"]["per_race"] > 0 and doc["loss_of_control"]["by_tile"]
    # four cautious drivers (the old default) drive 170 s every race and never lose control
    cautious = simulate_json(pikes, "--races", "20", "--bot", "cautious")
    assert (
        cautious["hillclimb"]["best_of_attempts"]["p10"]
        == cautious["hillclimb"]["best_of_attempts"]["p90"]
    )
    assert cautious["loss_of_control"]["per_race"] == 0
    # validate --simulate races the same drivers
    done = runner.invoke(app, ["validate", pikes, "--simulate", "20", "--format", "json"])
    sim = json.loads(done.stdout)["files"][0]["summary"]["simulation"]
    assert sim["mean_time"] == doc["time"]["overall"]["mean"]
    assert sim["losses_per_race"] == doc["loss_of_control"]["per_race"]
    # and the help says what the default is
    assert "cautious, aggressive and planner in turn" in simulate_help()


def test_a_rally_keeps_its_cautious_drivers_whose_races_vary_already():
    doc = simulate_json(str(EXAMPLES / "col-de-turini.yaml"), "--races", "20")
    assert doc["settings"]["bots"] == ["cautious"] * 4
    overall = doc["time"]["overall"]
    assert overall["p10"] < overall["p90"] and doc["loss_of_control"]["per_race"] > 0
