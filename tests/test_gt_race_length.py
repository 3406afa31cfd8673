"""How long a GT race is: a point-to-point track has no laps, the round cap scales with
the laps (a long race finishes, a capped one counts the laps driven and decides nothing),
and no lap-1 figure for a one-lap race or one car.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stagekit import REPO, sim_report, simulate_text
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.rules import load_ruleset
from trackkit.rules.track import Track

GT = load_ruleset("gt")
runner = CliRunner()


# --- 2. a point-to-point GT track has no laps -------------------------------------------

SPRINT = """format: trackkit-stage/1
name: Short sprint
kind: point-to-point
tiles:
  - tile: 144b
    road: A
    enter: 1
  - tile: 121b
  - tile: 143b
    road: B
    enter: 4
"""


@pytest.fixture()
def sprint(tmp_path: Path) -> Path:
    path = tmp_path / "sprint.yaml"
    path.write_text(SPRINT, encoding="utf-8")
    return path


def test_point_to_point_gt_races_report_no_laps(sprint: Path):
    doc = json.loads(simulate_text(str(sprint), "--races", "6"))
    assert doc["settings"]["laps"] is None and doc["settings"]["point_to_point"] is True
    assert doc["overtakes"]["per_lap"] is None and doc["overtakes"]["by_lap"] == {}
    assert doc["overtakes"]["per_race"] == round(doc["overtakes"]["total"] / 6, 4)
    assert doc["decided_on_lap_1"] is None and doc["laps_led"] is None
    assert all(d["laps_led_per_race"] is None for d in doc["drivers"])
    assert doc["finish_rate"] == 1.0 and sum(doc["wins_by_grid_slot"].values()) == 6
    text = runner.invoke(app, ["simulate", str(sprint), "--races", "6"])
    assert text.exit_code == 0, text.output
    head = text.output.splitlines()
    assert head[0].startswith("6 races point to point, 4 drivers")
    assert "overtakes per race" in head[1] and "lap" not in head[1]
    assert " led " not in head[3] and "passes" in head[3]
    circuit = json.loads(simulate_text(str(REPO / "examples/gt-core-circuit.yaml"), "--races", "2"))
    assert circuit["settings"]["point_to_point"] is False and circuit["settings"]["laps"] == 3


def test_point_to_point_gt_refuses_laps(sprint: Path):
    for args in ([], ["--format", "json"]):
        out = runner.invoke(app, ["simulate", str(sprint), "--laps", "3", *args])
        assert out.exit_code == 2
        assert "--laps" in out.output and "point-to-point" in out.output


def test_point_to_point_gt_playability_counts_per_race(sprint: Path):
    from trackkit.sim.playability import gt_findings, playability

    report = validate(load_stage(sprint))
    found, extras = playability(report, races=12, seed=1)
    sim = extras.simulation.gt
    assert sim.laps is None and sim.overtakes_per_lap is None
    assert sim.decided_on_lap_1 is None and sim.overtakes_per_race > 0
    assert "P610" not in [f.code for f in found]
    p607 = next(f for f in found if f.code == "P607")
    assert f"{sim.overtakes_per_race:.2f} overtakes per race" in p607.message
    # P608 on a point-to-point track: overtakes per race (one drive of the track, a lap's)
    doc = sim_report(
        gt=True,
        players=4,
        settings={"laps": None, "point_to_point": True, "races": 12},
        wins_by_grid_slot={},
        overtakes={"per_lap": None, "per_race": 0.3},
        decided_on_lap_1=None,
    )
    assert "P608" in [f.code for f in gt_findings(doc, report, races=12, players=4)]
    busy = sim_report(
        gt=True,
        players=4,
        settings={"laps": None, "point_to_point": True, "races": 12},
        wins_by_grid_slot={},
        overtakes={"per_lap": None, "per_race": 0.8},
    )
    assert "P608" not in [f.code for f in gt_findings(busy, report, races=12, players=4)]
    text = runner.invoke(app, ["validate", str(sprint), "--simulate", "12"])
    assert text.exit_code == 0, text.output
    line = next(x for x in text.output.splitlines() if "simulated" in x)
    assert "point to point" in line and "lap" not in line


# --- 3. long races: the round cap scales with the laps ----------------------------------


def test_the_default_round_cap_lets_a_long_gt_race_finish(gt_core: Track):
    from trackkit.sim.gt_race import gt_round_cap

    track = gt_core
    assert gt_round_cap(track, 3) == 200  # a race of the usual laps keeps DIRT's cap
    assert gt_round_cap(track, 100) > gt_round_cap(track, 50) > 200
    doc = json.loads(
        simulate_text(str(REPO / "examples/gt-core-circuit.yaml"), "--races", "1", "--laps", "100")
    )
    assert doc["settings"]["max_rounds"] == gt_round_cap(track, 100)
    assert doc["finish_rate"] == 1.0 and doc["overtakes"]["laps_driven"] == 100
    assert doc["rounds"]["mean"] < doc["settings"]["max_rounds"]


def test_a_gt_race_stopped_by_the_cap_counts_the_laps_driven_and_decides_nothing():
    doc = json.loads(
        simulate_text(
            str(REPO / "examples/gt-core-circuit.yaml"),
            *("--races", "2", "--laps", "100", "--max-rounds", "60"),
        )
    )
    assert doc["finish_rate"] == 0.0 and doc["settings"]["max_rounds"] == 60
    driven = doc["overtakes"]["laps_driven"]
    assert 2 <= driven < 20  # the leaders began a handful of laps each, not 100
    assert doc["overtakes"]["per_lap"] == round(doc["overtakes"]["total"] / driven, 4)
    assert doc["decided_on_lap_1"] is None  # nobody won
    text = runner.invoke(
        app,
        [
            "simulate",
            str(REPO / "examples/gt-core-circuit.yaml"),
            "--races",
            "2",
            "--laps",
            "100",
            "--max-rounds",
            "60",
        ],
    )
    assert "decided on lap 1" not in text.output and "(60 rounds)" in text.output


# --- 4. lap 1 of a one-lap race, or of one car -------------------------------------------


def test_no_decided_on_lap_1_figure_nor_p610_for_one_lap_or_one_car():
    from trackkit.sim.playability import gt_findings

    core = str(REPO / "examples/gt-core-circuit.yaml")
    one_lap = json.loads(simulate_text(core, "--races", "3", "--laps", "1"))
    assert one_lap["decided_on_lap_1"] is None
    alone = json.loads(simulate_text(core, "--races", "2", "--laps", "2", "--players", "1"))
    assert alone["decided_on_lap_1"] is None
    two = json.loads(simulate_text(core, "--races", "3", "--laps", "2"))
    assert two["decided_on_lap_1"] is not None  # asked where it means something
    text = runner.invoke(app, ["simulate", core, "--races", "3", "--laps", "1"])
    assert "decided on lap 1" not in text.output
    report = validate(load_stage(REPO / "examples/gt-core-circuit.yaml"))
    given = {
        "wins_by_grid_slot": {},
        "overtakes": {"per_lap": 2.0, "per_race": 2.0},
        "decided_on_lap_1": 0.9,
    }
    doc = sim_report(gt=True, players=4, settings={"laps": 1, "races": 20}, **given)
    assert "P610" not in [f.code for f in gt_findings(doc, report, races=20, players=4)]
    doc = sim_report(gt=True, players=4, settings={"laps": 3, "races": 20}, **given)
    assert "P610" in [f.code for f in gt_findings(doc, report, races=20, players=4)]
