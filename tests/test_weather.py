"""The weather of a GT race (GT-3): a race that starts in the rain is the race in the dry, on
rain tyres, as ``simulate --help`` says.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from stagekit import (
    EXAMPLES,
    REPO,
    simulate_help,
    simulate_text,
)
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.rules.track import Track
from trackkit.sim import Settings, prepare, run_race
from trackkit.sim.gt_race import GtOptions

runner = CliRunner()


# --- a race in the rain: the same race, on rain tyres (GT-3) ---------------------------------


@pytest.mark.slow
def test_a_race_that_starts_in_the_rain_is_turn_for_turn_the_race_that_starts_in_the_dry():
    # rule: GT-3 (no rain side of the dashboards: only tyres that do not suit the weather
    # cost; every car starts on the tyres of the weather, DEFAULT), DASH-2, DAMAGE-4 (the
    # weather token turns the weather either way)

    report = validate(load_stage(EXAMPLES / "gt-core-circuit.yaml"))
    prepared = prepare(Track.from_graph(report.graph, report.layout))

    def race(weather: str, seed: int) -> Any:
        settings = Settings.default(
            6, bots=("aggressive", "planner"), gt=GtOptions(laps=3, weather=weather)
        )
        return run_race(prepared, settings, seed)

    def turns(result: Any) -> list[Any]:  # every turn's plan, mode and dice, not the names
        return [
            (t.round, t.driver, t.plan, t.mode, [(e.kind, e.space, e.value) for e in t.events])
            for t in result.log
        ]

    other = {"dry": "rain", "rain": "dry"}
    changed = None
    for seed in range(1, 30):
        dry, rain = race("dry", seed), race("rain", seed)
        assert turns(dry) == turns(rain)
        assert [(r, other[w]) for r, _d, w in dry.gt.weather] == [
            (r, w) for r, _d, w in rain.gt.weather
        ]
        if rain.gt.weather and changed is None:
            changed = rain
    assert changed is not None, "no weather change in 30 races"
    # in the rain every car drives on rain tyres with the full limit of 3 (DASH-2) until a
    # weather token turns it dry: then rain tyres are the wrong ones, limit 2 (GT-3)
    turned = changed.gt.weather[0][0]
    before = [s.limit for t in changed.log if t.round < turned and t.steps for s in t.steps]
    after = [s.limit for t in changed.log if t.round > turned + 1 and t.steps for s in t.steps]
    assert set(before) == {3} and 2 in after
    # the help says so, naming the rule
    assert "GT-3" in simulate_help() and "no rain side" in simulate_help()


def test_weather_help_says_the_tyres_follow_it():
    out = runner.invoke(app, ["simulate", "--help"], terminal_width=200)
    assert "GT-3" in " ".join(out.output.split())  # the rule that makes it so
    core = str(REPO / "examples/gt-core-circuit.yaml")
    rain = json.loads(simulate_text(core, "--races", "3", "--weather", "rain"))
    dry = json.loads(simulate_text(core, "--races", "3", "--weather", "dry"))
    assert rain["settings"].pop("weather") == "rain" and dry["settings"].pop("weather") == "dry"
    assert rain == dry  # what the help says: a label, with the tyres for it
