"""Seeded races, the same for both series: a seed gives one race (whatever the plan memo
has seen before), another seed another race, and the races of a run are the same in one
process or in several."""

from __future__ import annotations

import pytest
from stagekit import example_prepared

from trackkit.sim.gt_race import GtOptions
from trackkit.sim.race import Settings, run_race
from trackkit.sim.stats import run_many

BOTS = ("cautious", "aggressive", "planner")

#: Each series' race: its example, and the drivers of a race (and of a run of races).
RACES = {
    "dirt": ("col-de-turini.yaml", Settings.default(3, bots=BOTS), Settings.default(2)),
    "gt": (
        "gt-core-circuit.yaml",
        Settings.default(6, bots=BOTS, gt=GtOptions(laps=1)),
        Settings.default(6, bots=BOTS, gt=GtOptions(laps=1)),
    ),
}


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_same_seed_same_race_and_different_seed_differs(series: str):
    name, settings, _ = RACES[series]
    stage = example_prepared(name)
    a, b = run_race(stage, settings, 11), run_race(stage, settings, 11)  # b: a warm memo
    assert [(t.plan, t.events) for t in a.log] == [(t.plan, t.events) for t in b.log]
    assert run_race(example_prepared(name), settings, 11).log == a.log == b.log
    c = run_race(stage, settings, 12)
    assert [t.plan for t in a.log] != [t.plan for t in c.log]


@pytest.mark.parametrize(("series", "seed"), [("dirt", 9), ("gt", 11)])
def test_jobs_give_the_same_result_as_one_process(series: str, seed: int):
    name, _, settings = RACES[series]
    one = run_many(example_prepared(name), settings, races=4, seed=seed, jobs=1)
    two = run_many(example_prepared(name), settings, races=4, seed=seed, jobs=2)
    assert one == two
