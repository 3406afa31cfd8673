"""One race engine for Rallyman: DIRT and Rallyman: GT (issue 20).

The race loop (:mod:`trackkit.sim.loop`) and the bot engine (:mod:`trackkit.sim.bots`) are
written once, with per-series hooks (:mod:`trackkit.sim.rally`, :mod:`trackkit.sim.gt_race`)
and road readings (:mod:`trackkit.sim.roads`); the race data types sit in
:mod:`trackkit.sim.model`, which they all import: no module of the engine imports
another that imports it back.
"""

from __future__ import annotations

import ast
import itertools
import math
import random
from dataclasses import replace
from pathlib import Path

import networkx as nx
import pytest

from trackkit.rules.dice import BRAKE, GEARS, Die
from trackkit.rules.plans import PlanBuilder, PlanContext, PlanStep
from trackkit.rules.positions import GT_RING, PositionError, position, track_of
from trackkit.rules.resolve import RollView
from trackkit.rules.ruleset import load_ruleset
from trackkit.rules.state import CarState
from trackkit.sim.bots import BOTS, CarefulPolicy, Cautious, make_bot
from trackkit.sim.gt_race import GtLoop
from trackkit.sim.loop import RaceLoop, back_on
from trackkit.sim.model import GtOptions, RacePosition, Settings
from trackkit.sim.race import prepare, run_race
from trackkit.sim.rally import RallyLoop
from trackkit.sim.roads import DirtRoad, GtRoad

PACKAGE = Path(__file__).resolve().parents[1] / "trackkit"

#: The modules of the race engine: what a race and its bots are made of.
ENGINE = (
    "trackkit.sim.model",
    "trackkit.sim.loop",
    "trackkit.sim.rally",
    "trackkit.sim.gt_race",
    "trackkit.sim.race",
    "trackkit.sim.bots",
    "trackkit.sim.roads",
    "trackkit.sim.memo",
    "trackkit.sim.script",
    "trackkit.sim.stuck",
)


def _imports() -> nx.DiGraph:
    """Which trackkit module imports which, every import counted (lazy ones, those for
    type checking), as the source says."""
    graph = nx.DiGraph()
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        graph.add_node(name)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            graph.add_edges_from((name, t) for t in targets if t.startswith("trackkit."))
    return graph


@pytest.mark.slow
def test_no_module_of_the_race_engine_is_in_an_import_cycle():
    graph = _imports()
    assert set(ENGINE) <= set(graph)
    cycles = [c for c in nx.strongly_connected_components(graph) if len(c) > 1]
    caught = [sorted(c) for c in cycles if c & set(ENGINE)]
    assert caught == [], caught
    # the series import the loop, the loop the model; nothing of them imports the series
    assert not nx.has_path(graph, "trackkit.sim.gt_race", "trackkit.sim.race")
    assert not nx.has_path(graph, "trackkit.sim.rally", "trackkit.sim.gt_race")
    assert not nx.has_path(graph, "trackkit.sim.model", "trackkit.sim.loop")


def test_both_series_race_through_the_one_loop():
    dirt = prepare(track_of(["202a", "205a", "206a", "204a", "203a"]))
    gt = prepare(track_of(GT_RING))
    rally = RallyLoop(dirt, Settings.default(2), 1)
    circuit = GtLoop(gt, Settings.default(3, gt=GtOptions(laps=1)), 1)
    assert isinstance(rally, RaceLoop) and isinstance(circuit, RaceLoop)
    assert rally.run() == run_race(dirt, Settings.default(2), 1)
    assert circuit.run() == run_race(gt, Settings.default(3, gt=GtOptions(laps=1)), 1)


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_both_series_refuse_a_start_with_two_cars_on_one_space_alike(series: str):
    # rule: TRAFFIC-3 (one car a space), checked by the one position check for both
    if series == "dirt":
        stage = prepare(track_of(["202a", "205a", "203a"]))
        settings, space = Settings.default(2), "2:1.2L"
    else:
        stage = prepare(track_of(GT_RING))
        settings, space = Settings.default(2, gt=GtOptions(laps=1)), "3:A2b"
    start = RacePosition((CarState(0, space, 2), CarState(1, space, 2)), round=3)
    with pytest.raises(PositionError) as caught:
        run_race(stage, settings, 1, start=start)
    assert "driver 2" in str(caught.value) and space in str(caught.value)


def test_a_car_back_on_the_road_comes_back_round_the_lap_on_a_circuit():
    # rule: LOC-6 (GT: its space, or the nearest free one behind), LOC-4 (DIRT alike)
    track = track_of(GT_RING)
    first = min(track.spaces, key=lambda s: (track.spaces[s].progress, s))
    behind = back_on(track, first, {first})
    assert behind is not None
    assert track.gain(first, behind) < 0  # behind it, over the line on the last tile
    assert track.spaces[behind].progress > track.spaces[first].progress
    nearer = [
        s
        for s in track.spaces
        if track.gain(first, behind) < track.gain(first, s) < 0
        and track.spaces[s].kind != "shortcut"
    ]
    assert all(s in track.overlaps.get(first, ()) for s in nearer)  # none nearer and free


@pytest.mark.parametrize("rule", ["reach", "exceed"])
def test_the_careful_policy_reads_the_danger_limit_rule(rule: str):
    # rule: TURN-6 (control is lost on reaching the limit, DIRT, or on going over it, GT):
    # the cautious bot secures a die that could lose control, and rolls one that cannot
    ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=2)
    ctx = replace(ctx, ruleset=ctx.ruleset.model_copy(update={"danger_limit_rule": rule}))
    step = PlanBuilder(ctx).options()[0]
    view = RollView(0, step, step.limit - 1, 5, 0, 1, step.dice, 0)  # one danger short
    choice = CarefulPolicy(ctx).before_roll(view)
    assert choice == ("secure" if rule == "reach" else "roll")


def test_the_careful_policys_remembered_chances_are_those_of_each_rulesets_dice():
    # rule: DICE-1 (each die's danger faces), TURN-5 (the dice still to roll one by one):
    # the chance is remembered by the dice tuple, so the same tuple asked under a ruleset
    # with other faces, or an equal tuple, must get that ruleset's own chance
    from trackkit.sim.bots import _p_at_least, _rest

    def exact(ctx: PlanContext, dice: tuple[Die, ...], need: int) -> float:
        odds = [ctx.ruleset.danger_probability(d.kind, d.value) for d in dice]
        return sum(
            math.prod(p if hit else 1 - p for p, hit in zip(odds, hits, strict=True))
            for hits in itertools.product((False, True), repeat=len(dice))
            if sum(hits) >= need
        )

    ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=2)
    faces = ctx.ruleset.danger_faces.model_copy(
        update={"brake": 5, "gear": {**dict.fromkeys(range(1, 7), 4)}}
    )
    riskier = replace(ctx, ruleset=ctx.ruleset.model_copy(update={"danger_faces": faces}))
    dice = (GEARS[3], BRAKE, BRAKE)
    for _ in range(2):  # asked again: from the memory
        for c in (ctx, riskier, ctx):
            for need in range(4):
                for d in (dice, tuple(list(dice)), dice[:2]):
                    assert _p_at_least(c, d, need) == pytest.approx(exact(c, d, need))
    assert _p_at_least(riskier, dice, 2) > _p_at_least(ctx, dice, 2)
    step = PlanStep("x", dice, 3, "x", 3)
    assert _rest(step, 0) == dice and _rest(step, 1) == dice[1:] and _rest(step, 2) == dice[2:]
    assert _rest(step._replace(dice=dice[:2]), 1) == dice[1:2]


def test_the_bots_read_the_road_as_their_series_does():
    dirt = make_bot("planner")
    gt = make_bot("planner", road=GtRoad)
    assert dirt.reading is DirtRoad and gt.reading is GtRoad
    assert DirtRoad.branches is None and GtRoad.branches == 2  # every step; a beam of 2
    assert isinstance(make_bot("cautious"), Cautious) and set(BOTS) == {
        "cautious",
        "aggressive",
        "planner",
    }
    ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=2)
    assert dirt.choose(ctx, random.Random(1)).plan == make_bot("planner").plan(ctx)
    ring = track_of(GT_RING)
    assert GtRoad.of(ring) is GtRoad.of(ring) and DirtRoad.of(ring) is not GtRoad.of(ring)
    assert load_ruleset("gt").danger_limit_rule == "exceed"


def test_seeded_dice_roll_as_randrange_draws_them_whatever_die_object():
    # rule: DICE-1 (a die shows danger on its ruleset's danger faces of 6): the race's
    # generator rolls each die as rng.randrange(6) would, the same numbers in the same
    # order, for the dice plans are made of and for an equal die made anew
    from trackkit.rules.dice import BOOST, COAST, LEADER, DieKind
    from trackkit.rules.resolve import _roller

    ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=2)
    counts = ctx.ruleset.danger_counts
    dice = [*GEARS[1:], COAST, LEADER, BRAKE, BOOST, Die(DieKind.GEAR, 4)] * 40
    ours, theirs = random.Random(11), random.Random(11)
    roll = _roller(ctx, ours, None)
    got = [roll(d) for d in dice]
    assert got == [theirs.randrange(6) < counts[d.kind, d.value] for d in dice]
    assert ours.getstate() == theirs.getstate() and any(got) and not all(got)

    class Other(random.Random):  # a generator of its own: its own randrange is asked
        def randrange(self, *args: int, **kw: int) -> int:  # type: ignore[override]
            return 0

    assert all(_roller(ctx, Other(1), None)(d) for d in dice if counts[d.kind, d.value])
