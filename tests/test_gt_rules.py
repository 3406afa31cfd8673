"""Rallyman: GT rules the first GT tests left open, found by breaking the engine on purpose.

Each test names the rule it pins (``docs/rules.md``) and fails when that rule is broken in
the code: the gaps a mutation audit of issue 12 found (a small deliberate break of the rule
that no test noticed). Positions are taken on the example circuit
``examples/gt-core-circuit.yaml`` (tile 1 the start/finish straight, tile 2 the hairpin
107a with warning signs on its dotted lines, tile 4 the hairpin 111a, tile 7 a straight of
medium danger, the pit beside tiles 4 to 6 and 14 to 15) and on the Rekee figure of eight.
Race positions are scripted: the drivers play given plans, the dice show given results and
then only safe faces, so each race goes exactly as written.
"""

from __future__ import annotations

import itertools
import random
import signal
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from trackkit.checks.pipeline import validate
from trackkit.formats import load_stage
from trackkit.rules import (
    CarState,
    Damage,
    Mode,
    PlanBuilder,
    ScriptedDice,
    legal_plans,
    load_ruleset,
    new_table,
    play_order,
    position,
    resolve,
    track_of,
)
from trackkit.rules.dice import Die
from trackkit.rules.plans import GtTurn, Plan, PlanContext
from trackkit.rules.positions import GT_RING
from trackkit.rules.resolve import DefaultPolicy, Outcome, RollView, loss_orders, reroute
from trackkit.rules.track import Track
from trackkit.sim.gt_race import GtOptions
from trackkit.sim.race import (
    DriverSpec,
    Prepared,
    RacePosition,
    RaceResult,
    Settings,
    TurnLog,
    prepare,
    run_race,
)
from trackkit.sim.script import Script

REPO = Path(__file__).resolve().parents[1]
GT = load_ruleset("gt")


def _track(name: str) -> Track:
    report = validate(load_stage(REPO / "examples" / name))
    return Track.from_graph(report.graph, report.layout)


CORE = _track("gt-core-circuit.yaml")
EIGHT = _track("gt-figure-eight.rekee.json")


def _at(space: str, gear: int, **kw: Any) -> PlanContext:
    return position(CORE, space=space, gear=gear, car=kw.pop("car", "gt6"), ruleset=GT, **kw)


def _plan(ctx: PlanContext, text: str) -> Plan:
    return next(p for p in legal_plans(ctx) if str(p) == text)


def _roll(
    ctx: PlanContext,
    plan: Plan,
    mode: Mode,
    dice: list[str],
    *,
    bag: list[tuple[str, str]] | None = None,
    policy: DefaultPolicy | None = None,
) -> Outcome:
    rng = random.Random(1)
    table = new_table(GT, rng)
    if bag is not None:
        table = table.with_bag(bag)
    return resolve(ctx, plan, mode, rng, table=table, dice=ScriptedDice(dice), policy=policy)


def _notes(out: Outcome, kind: str) -> list[str | None]:
    return [e.note for e in out.events if e.kind == kind]


class _SecureOn(DefaultPolicy):
    """Rolls one by one, securing the dice of the steps onto the spaces given."""

    def __init__(self, *spaces: str) -> None:
        self.spaces = spaces

    def before_roll(self, view: RollView) -> str:  # type: ignore[override]
        return "secure" if view.step.space in self.spaces or not self.spaces else "roll"


class _ThenSafe:
    """Dice that show the given results, then only safe faces (a scripted race)."""

    def __init__(self, results: list[str] | None = None) -> None:
        self.results = list(results or [])

    def danger(self, die: Die, faces: int) -> bool:
        return bool(self.results) and self.results.pop(0) == "danger"


def _scripted_race(
    cars: list[CarState],
    scripts: list[list[str]],
    *,
    bag: list[tuple[str, str]] | None = None,
    dice: list[str] | None = None,
    prepared: Prepared | None = None,
    laps: int = 1,
    **options: Any,
) -> RaceResult:
    """A race of ``laps`` from ``cars`` (on lap 1: by default their last), each driver
    playing its script first."""
    prepared = prepared or prepare(CORE)
    table = new_table(GT, random.Random(0))
    if bag is not None:
        table = table.with_bag(bag)
    drivers = tuple(
        DriverSpec(f"d{i + 1}", car="gt6", bot=Script.of(turns, then="cautious"))
        for i, turns in enumerate(scripts)
    )
    start = RacePosition(tuple(replace(c, crossings=1) for c in cars), round=3, table=table)
    settings = Settings(drivers, gt=GtOptions(laps=laps, **options))
    return run_race(prepared, settings, 7, start=start, dice=_ThenSafe(dice))  # type: ignore[arg-type]


def _turns(result: RaceResult, driver: int) -> list[TurnLog]:
    return [t for t in result.log if t.driver == driver]


# --- TURN-2: the GT order ----------------------------------------------------------------


def test_turn_2_gt_level_on_speed_and_distance_the_inner_lane_of_the_next_corner_first():
    # rule: TURN-2 (GT: speed, then distance, then the inner lane of the coming corner:
    # 9:A1c and 9:A3d are level before the left-hand 115a, whose inner lane is lane 1)
    outer, inner = CarState(0, "9:A3d", 3), CarState(1, "9:A1c", 3)
    assert [c.car_id for c in play_order([outer, inner], CORE, GT)] == [1, 0]
    assert [c.car_id for c in play_order([inner, outer], CORE, GT)] == [1, 0]
    # speed and distance come before the lane
    faster = replace(outer, gear=4)
    assert [c.car_id for c in play_order([inner, faster], CORE, GT)] == [0, 1]
    ahead = CarState(0, "10:A2a", 3)
    assert [c.car_id for c in play_order([inner, ahead], CORE, GT)] == [0, 1]


def test_turn_2_gt_the_inner_lane_where_the_corner_s_inner_space_spans_two_lanes():
    # rule: TURN-2 (the grid of the core circuit lies before the line: its next corner is
    # the first of the next lap, 107a, whose inner space 2:A12a spans lanes 1 and 2; lane 1
    # of the road, 1:A3*, is its inner lane, so pole 1:A3b plays before slot 2 on 1:A1b)
    outside, pole = CarState(0, "1:A1b", 0), CarState(1, "1:A3b", 0)
    assert [c.car_id for c in play_order([outside, pole], CORE, GT)] == [1, 0]
    assert [c.car_id for c in play_order([pole, outside], CORE, GT)] == [1, 0]
    # and before 111a (tile 4), whose inner space spans lanes 2 and 3: lane 3 is inner
    left, right = CarState(0, "3:A1b", 2), CarState(1, "3:A3b", 2)
    assert [c.car_id for c in play_order([left, right], CORE, GT)] == [1, 0]
    assert [c.car_id for c in play_order([right, left], CORE, GT)] == [1, 0]


# --- CORNER-4: warning signs ------------------------------------------------------------


def test_corner_4_a_warning_sign_danger_cannot_be_secured_one_by_one():
    # rule: CORNER-4 (the sign's danger result comes with the step, whatever its die: three
    # dangers thrown and the sign make four, over the limit, though the die on it is secured)
    ctx = _at("1:A2d", 2, second_tokens=5)
    plan = _plan(ctx, "1:A2c G3 > 1:A2b G4 > 1:A2a G2+B > 2:A12a G1")
    assert [s.hazards for s in plan.steps] == [0, 0, 0, 1]
    secured = _SecureOn("2:A12a")
    out = _roll(ctx, plan, Mode.ONE_BY_ONE, ["danger", "danger", "danger", "safe"], policy=secured)
    assert _notes(out, "secure") == [None] and out.lost_control
    assert out.car.space == "2:A12a"
    two = _roll(ctx, plan, Mode.ONE_BY_ONE, ["danger", "danger", "safe", "safe"], policy=secured)
    assert not two.lost_control and two.car.space == "2:A12a"  # 2 + the sign: 3, not over


def test_corner_4_flat_out_a_warning_sign_counts_against_the_limit():
    # rule: CORNER-4 (flat out too: two dangers and the sign keep control on the planned
    # route; three and the sign go over the limit, so the dice must take a route without
    # the sign, TURN-4)
    ctx = _at("1:A2c", 0)
    plan = _plan(ctx, "1:A2b G1 > 1:A2a C > 2:A12a C")
    two = _roll(ctx, plan, Mode.FLAT_OUT, ["danger", "danger", "safe"])
    assert not two.lost_control and not _notes(two, "reroute")
    assert [e.space for e in two.events if e.kind == "move"] == ["1:A2b", "1:A2a", "2:A12a"]
    three = _roll(ctx, plan, Mode.FLAT_OUT, ["danger"] * 3)
    moved = [e.space for e in three.events if e.kind == "move"]
    assert _notes(three, "reroute") and moved[-2:] != ["1:A2a", "2:A12a"]


# --- TURN-4: flat out, re-ordering and re-routing ---------------------------------------


def _routes(ctx: PlanContext) -> list[tuple[Counter[str], bool, int, int, float]]:
    """Every legal plan as (its dice, whether it finishes, its own dangers, limit, gain)."""
    here = ctx.car.space
    assert here is not None
    out = []
    for other in legal_plans(ctx, max_steps=4):  # a route has as many steps as the plan
        if any(s.loc for s in other.steps):
            continue  # a step that loses control whatever the dice
        last = other.steps[-1]
        gain = 1e9 if last.finishes else CORE.gain(here, last.space)
        own = sum(s.hazards for s in other.steps)
        low = min(s.limit for s in other.steps)
        out.append((Counter(d.label for d in other.dice), last.finishes, own, low, gain))
    return out


def _furthest_route(
    routes: list[tuple[Counter[str], bool, int, int, float]], plan: Plan, dangers: int
) -> float | None:
    """By brute force: how far the best route of the thrown dice that keeps control goes."""
    thrown = Counter(d.label for d in plan.dice)
    best: float | None = None
    for used, finishes, own, low, gain in routes:
        if used - thrown or (used != thrown and not finishes):
            continue  # each die placed once; only a finishing route may leave some
        if dangers + own > low:  # TURN-6: over the limit
            continue
        best = gain if best is None else max(best, gain)
    return best


_ROUTE_POSITIONS = [
    ("1:A2c", 0),
    ("1:A2d", 2),
    ("3:A1a", 2),
    ("3:A2a", 3),
    ("7:A2b", 3),
    ("8:A2c", 2),
    ("10:A2a", 3),
    ("12:A2b", 3),
    ("13:A2a", 4),
    ("16:A23a", 2),
    ("18:A2a", 2),
]


@pytest.mark.parametrize(("space", "gear"), _ROUTE_POSITIONS)
def test_turn_4_gt_the_dice_take_the_furthest_route_that_keeps_control(space: str, gear: int):
    # rule: TURN-4, TURN-6 (GT DEFAULT: after a throw that loses control, the thrown dice take the
    # legal route furthest down the road on which they all lie once, no step loses control
    # whatever the dice, and the dangers thrown and the route's own stay within the limit;
    # none such: no route. Checked against every legal plan of the position.)
    ctx = _at(space, gear)
    plans = [p for p in legal_plans(ctx, max_steps=4) if len(p.steps) >= 2]
    assert plans
    routes = _routes(ctx)
    found = 0
    for plan in plans[:: max(1, len(plans) // 40)]:
        for dangers in (1, 2, 3):
            other = reroute(ctx, plan, dangers)
            want = _furthest_route(routes, plan, dangers)
            if want is None:
                assert other is None, (str(plan), dangers, str(other))
                continue
            assert other is not None, (str(plan), dangers)
            last = other.steps[-1]
            gain = 1e9 if last.finishes else CORE.gain(space, last.space)
            assert gain == pytest.approx(want), (str(plan), dangers, str(other))
            assert not any(s.loc for s in other.steps)
            found += 1
    assert found


def test_turn_4_gt_without_a_route_control_goes_on_the_furthest_space_the_dice_allow():
    # rule: TURN-4 (GT: the dice may be re-ordered to choose where control goes; DEFAULT: as
    # far down the road as they allow. Four dangers on five dice: no route keeps control,
    # and the fifth die's space, in gear 6, is where it goes: gear 00, LOC-6)
    ctx = _at("14:A2a", 1)
    plan = _plan(ctx, "14:A2b G2 > 15:A2a G3 > 15:A2b G4 > 15:A2c G5 > 16:A23a G6")
    out = _roll(ctx, plan, Mode.FLAT_OUT, ["danger"] * 4 + ["safe"], bag=[("green", "")] * 3)
    assert out.lost_control and out.car.space == "16:A23a"
    assert [e.value for e in out.events if e.kind == "loss-of-control"] == [6]
    assert _notes(out, "gear") == ["00"]


class _Earliest(DefaultPolicy):
    """Loses control on the first step it is offered, and keeps what it was offered."""

    def __init__(self) -> None:
        self.offered: list[int] = []

    def choose_loc_step(self, candidates: list[int]) -> int:
        self.offered = list(candidates)
        return candidates[0]


def test_turn_4_gt_every_order_of_the_thrown_dice_is_offered_to_choose_where_control_goes():
    # rule: TURN-4 (GT DEFAULT: the player re-orders the thrown dice on the plan's spaces to
    # choose where control goes. Four dangers of five dice, the first coast die safe: in the
    # planned order the count is over the limit of 3 only on the fifth space; with the coast
    # dice swapped, G2 > G3 > G4 > C (danger) > C (safe), on the fourth already, in gear 4)
    ring = track_of(GT_RING)
    ctx = position(ring, space="1:A2d", gear=1, car="gt6", ruleset=GT)
    plan = _plan(ctx, "1:A1c G2 > 1:A1b C > 1:A1a G3 > 2:A2a C > 2:A2b G4")
    faces = ["danger", "safe", "danger", "danger", "danger"]
    late = _roll(ctx, plan, Mode.FLAT_OUT, faces, bag=[("green", "")] * 4)
    assert late.lost_control and late.car.space == "2:A2b"
    assert [e.value for e in late.events if e.kind == "loss-of-control"] == [4]
    chooser = _Earliest()
    soon = _roll(ctx, plan, Mode.FLAT_OUT, faces, bag=[("green", "")] * 4, policy=chooser)
    assert chooser.offered == [3, 4]
    assert soon.lost_control and soon.car.space == "2:A2a"
    assert [e.value for e in soon.events if e.kind == "loss-of-control"] == [4]
    moved = [(e.space, e.die) for e in soon.events if e.kind == "move"]
    assert moved == [("1:A1c", "G2"), ("1:A1b", "G3"), ("1:A1a", "G4"), ("2:A2a", "C")]
    assert soon.car.second_tokens == 5  # GT-5: the focus tokens all the same


def _orders_by_brute_force(ctx: PlanContext, plan: Plan, faces: list[bool]) -> set[int]:
    """Where control can go: every legal plan on the plan's spaces with its dice, every way
    the thrown faces can lie on them (each die keeps its face), counted step by step."""
    spaces = [s.space for s in plan.steps]
    hits: dict[str, list[bool]] = {}
    for die, hit in zip(plan.dice, faces, strict=True):
        hits.setdefault(die.label, []).append(hit)
    want = Counter(d.label for d in plan.dice)
    out: set[int] = set()
    for other in legal_plans(ctx, max_steps=len(spaces)):
        if [s.space for s in other.steps] != spaces or Counter(d.label for d in other.dice) != want:
            continue
        labels = [d.label for d in other.dice]
        kinds = list(dict.fromkeys(labels))
        for combo in itertools.product(*(set(itertools.permutations(hits[x])) for x in kinds)):
            pools = {x: list(p) for x, p in zip(kinds, combo, strict=True)}
            placed = [pools[x].pop(0) for x in labels]
            k = 0
            count, low = 0, 99
            for j, step in enumerate(other.steps):
                mine = placed[k : k + len(step.dice)]
                k += len(step.dice)
                if j == 0 and step.flying and mine[0]:
                    break  # GT-1: the 2 shows danger, control is kept
                count += sum(mine) + step.hazards
                low = min(low, step.limit)
                if count > low or (step.loc and j == len(spaces) - 1):
                    out.add(j)
    return out


@pytest.mark.parametrize(("space", "gear"), _ROUTE_POSITIONS[:6])
def test_turn_4_gt_the_places_to_lose_control_are_those_of_every_order_of_the_dice(
    space: str, gear: int
):
    # rule: TURN-4 (GT DEFAULT: every order of the thrown dice on the plan's spaces is offered;
    # checked against every legal plan of the position, every way the faces may lie)
    ctx = _at(space, gear)
    plans = [p for p in legal_plans(ctx, max_steps=4) if len(p.steps) >= 3]
    assert plans
    rng = random.Random(space)
    offered = more = 0
    for plan in plans[:: max(1, len(plans) // 12)]:
        for _ in range(3):
            faces = [rng.random() < 0.7 for _ in plan.dice]
            rolled, k = [], 0
            for step in plan.steps:
                rolled.append(faces[k : k + len(step.dice)])
                k += len(step.dice)
            got = loss_orders(ctx, plan, rolled)
            assert set(got) == _orders_by_brute_force(ctx, plan, faces), str(plan)
            for steps, _by_dice in got.values():
                assert [s.space for s in steps] == [s.space for s in plan.steps]
                assert Counter(d.label for s in steps for d in s.dice) == Counter(
                    d.label for d in plan.dice
                )
            offered += bool(got)
            more += len(got) > 1
    assert offered and more


def test_turn_4_gt_a_re_route_avoids_a_limit_the_plan_broke_as_it_avoids_a_warning_sign():
    # rule: TURN-4 (GT DEFAULT: the plan goes straight over the dotted line of 10:A1c in gear 3,
    # over its limit (CORNER-4); flat out, the same dice take the diagonal, which the line
    # does not limit, and control is kept; one by one there is no re-routing)
    ctx = _at("10:A1a", 3)
    plan = _plan(ctx, "10:A1b G2 > 10:A1c G3 !sharp")
    out = _roll(ctx, plan, Mode.FLAT_OUT, ["safe", "safe"])
    assert not out.lost_control and out.car.space == "10:A2d"
    assert _notes(out, "reroute") == ["10:A1b G2 > 10:A2d G3"]
    one = _roll(ctx, plan, Mode.ONE_BY_ONE, ["safe", "safe"], bag=[("green", "")] * 4)
    assert one.lost_control and _notes(one, "loss-of-control") == ["sharp"]


# --- GT-5: focus tokens -------------------------------------------------------------------


def test_gt_5_a_die_is_secured_only_with_the_focus_tokens_to_pay_for_it():
    # rule: GT-5 (securing costs 1, then 2: with one token the first die is secured and the
    # others are thrown; none earned one by one)
    ctx = _at("1:A2d", 2, second_tokens=1)
    plan = _plan(ctx, "1:A2c G3 > 1:A2b G4 > 1:A2a C")
    out = _roll(ctx, plan, Mode.ONE_BY_ONE, ["safe", "safe"], policy=_SecureOn())
    assert [e.value for e in out.events if e.kind == "secure"] == [1]
    assert len([e for e in out.events if e.kind == "roll"]) == 2
    assert out.car.second_tokens == 0 and out.car.space == "1:A2a"


def test_gt_5_one_by_one_earns_no_focus_tokens():
    # rule: GT-5 (only a flat-out throw earns focus tokens)
    ctx = _at("1:A2d", 2)
    plan = _plan(ctx, "1:A2c G3 > 1:A2b G4 > 1:A2a C")
    assert _roll(ctx, plan, Mode.ONE_BY_ONE, ["safe"] * 3).car.second_tokens == 0
    assert _roll(ctx, plan, Mode.FLAT_OUT, ["safe"] * 3).car.second_tokens == 3


# --- LOC-6: gear 0 and gear 00 ------------------------------------------------------------


def test_loc_6_the_table_is_read_by_the_gear_of_the_die_to_blame():
    # rule: LOC-6 (a car in gear 4 loses control on the brake die of its last step, in gear
    # 2, on a low-danger tile: gear 0 and no damage, as gear 2 says, not gear 00 as gear 4)
    ctx = _at("1:A2d", 4)
    plan = _plan(ctx, "1:A2c G5 > 1:A2b G4 > 1:A2a G2+B")
    out = _roll(ctx, plan, Mode.ONE_BY_ONE, ["danger"] * 4, bag=[("gear", "")] * 3)
    assert out.lost_control and _notes(out, "gear") == ["0"]
    assert out.car.on_track and out.car.damage == Damage() and not _notes(out, "damage")


def test_loc_6_the_table_is_read_by_the_danger_of_the_tile():
    # rule: LOC-6 (gear 2: none on a low-danger tile, one token on a medium one, tile 7)
    ctx = _at("6:A2b", 2)
    plan = _plan(ctx, "7:A2a G3 > 7:A2b G4 > 7:A2c G2+B")
    assert CORE.spaces["7:A2c"].danger == "medium"
    out = _roll(ctx, plan, Mode.ONE_BY_ONE, ["danger"] * 4, bag=[("gear", "")] * 3)
    assert out.lost_control and _notes(out, "gear") == ["0"]
    assert _notes(out, "damage") == ["gear"] and out.car.damage == Damage(gear=1)


def test_loc_6_a_car_in_gear_00_blocks_no_one_and_comes_back_behind_a_car_on_its_space():
    # rule: LOC-6 (driver 1 goes off in gear 4 at the hairpin's inner space 4:A12a: gear 00;
    # driver 2 drives onto that very space next round, as the car off the road is in nobody's
    # way; driver 1 comes back in gear 0 on the nearest free space behind it, 4:A3b)
    result = _scripted_race(
        [CarState(0, "3:A1a", 4), CarState(1, "3:A2a", 1)],
        [["3:A1b G5 > 4:A12a G4 !corner"], ["3:A1b G2", "4:A12a C"]],
        bag=[("green", "")] * 4,
    )
    mine, yours = _turns(result, 0), _turns(result, 1)
    assert mine[0].round == yours[0].round
    assert [e.note for e in mine[0].events if e.kind == "gear"] == ["00"]
    assert yours[1].round == mine[1].round and yours[1].steps[-1].space == "4:A12a"
    assert mine[1].plan == "(gear 00: back on the road in gear 0)"
    assert [e.space for e in mine[1].events if e.kind == "back"] == ["4:A3b"]
    assert mine[2].start == "4:A3b" and mine[2].gear == 0
    assert result.gt is not None and sorted(result.gt.order) == [0, 1]


# --- TRAFFIC-5 and GT-4: the yellow flag ------------------------------------------------


def test_traffic_5_no_coming_alongside_even_behind_the_car():
    # rule: TRAFFIC-5 (the outer space of 111a, 4:A3b, lies beside the car on the inner one,
    # 4:A12a, though short of it: under the flag no step goes there)
    free = {str(s) for p in legal_plans(_at("3:A2b", 1, others=[("4:A12a", 1)])) for s in p.steps}
    assert "4:A3b G2" in free and CORE.gain("3:A2b", "4:A3b") < CORE.gain("3:A2b", "4:A12a")
    flagged = _at("3:A2b", 1, others=[("4:A12a", 1)], gt=GtTurn(yellow=True))
    assert not any(s.space == "4:A3b" for p in legal_plans(flagged) for s in p.steps)


def test_traffic_5_no_overtaking_across_the_road_without_coming_alongside():
    # rule: TRAFFIC-5 (DEFAULT: a car in the far lane, 1:A3b, is not beside 1:A1b, the space
    # level with it across the free middle lane: under the flag a plan from 1:A1d may end
    # there, and none goes past it)
    assert "1:A1b" not in CORE.beside["1:A3b"]
    assert CORE.spaces["1:A1b"].lanes == (3,) and CORE.spaces["1:A3b"].lanes == (1,)
    ahead = CORE.gain("1:A1d", "1:A3b")
    free = list(legal_plans(_at("1:A1d", 2, others=[("1:A3b", 1)])))
    assert any(CORE.gain("1:A1d", p.end or "") > ahead + 1e-6 for p in free)
    flagged = list(legal_plans(_at("1:A1d", 2, others=[("1:A3b", 1)], gt=GtTurn(yellow=True))))
    assert flagged and all(CORE.gain("1:A1d", p.end or "") <= ahead + 1e-6 for p in flagged)
    assert any(p.end == "1:A1b" for p in flagged)


def test_traffic_5_a_car_across_a_free_lane_is_not_frozen_by_a_yellow_flag():
    # rule: TRAFFIC-5 (DEFAULT: the car on 1:A1c, lane 3, with the car ahead on 1:A3b, lane 1,
    # a row on: the diagonal into lane 2 comes alongside it, but the straight move into
    # 1:A1b, level with it across the free lane, is open; it had no legal move at all)
    flagged = _at("1:A1c", 2, others=[("1:A3b", 2)], gt=GtTurn(yellow=True))
    steps = {str(s) for s in PlanBuilder(flagged).options()}
    assert steps and all(s.startswith("1:A1b ") for s in steps)
    assert {p.end for p in legal_plans(flagged)} == {"1:A1b"}


def test_traffic_5_under_the_flag_every_step_but_alongside_or_past_the_car_ahead_stays():
    # rule: TRAFFIC-5 (DEFAULT: of the first steps a position has without the flag, the flag
    # takes away exactly those that come alongside the other car, in an adjacent lane, and
    # those that go past it when it is ahead; a car is never held back otherwise. Every
    # pair of spaces of the example circuit within 150 mm of each other, two gears.)
    checked = held = 0
    for mine in CORE.spaces:
        for theirs in CORE.spaces:
            ahead = CORE.gain(mine, theirs)
            if mine == theirs or theirs in CORE.overlaps.get(mine, ()) or abs(ahead) >= 150:
                continue
            for gear in (1, 3):
                free = PlanBuilder(_at(mine, gear, others=[(theirs, 2)])).options()
                flag = _at(mine, gear, others=[(theirs, 2)], gt=GtTurn(yellow=True))
                want = [
                    str(s)
                    for s in free
                    if theirs not in CORE.beside.get(s.space, ())
                    and not (ahead > 0 and CORE.gain(mine, s.space) > ahead + 1e-6)
                ]
                assert [str(s) for s in PlanBuilder(flag).options()] == want, (mine, theirs)
                checked += 1
                held += len(want) < len(free)
    assert checked > 1000 and held > 100


def _flags_and_passes(result: RaceResult) -> tuple[int, int]:
    """Overtakes with a yellow flag out, and overtakes after one came down (race order)."""
    gt = result.gt
    assert gt is not None
    passes = Counter((o.round, o.driver) for o in gt.overtakes)
    out: set[int] = set()
    under = after = 0
    seen_down = False
    for t in result.log:
        for e in t.events:
            if e.kind == "yellow-flag" and e.note == "down":
                out.discard(t.driver)
                seen_down = True
        n = passes[(t.round, t.driver)]
        if out:
            under += n
        elif seen_down:
            after += n
        for e in t.events:
            if e.kind == "yellow-flag" and e.note == "out":
                out.add(t.driver)
    return under, after


def test_traffic_5_gt_4_no_car_overtakes_while_a_flag_is_out_and_they_do_once_it_is_down():
    # rule: TRAFFIC-5, GT-4 (every car is held while any flag is out; once each flag came
    # down at its car's next move, cars overtake again)
    under = after = 0
    bots = ("aggressive", "planner", "cautious")
    for seed in range(1, 16):
        settings = Settings.default(6, bots=bots, gt=GtOptions(laps=2))
        u, a = _flags_and_passes(run_race(prepare(CORE), settings, seed))
        under += u
        after += a
    assert under == 0 and after > 0


def test_gt_4_the_flag_of_a_car_that_finishes_comes_down_as_it_leaves_the_race():
    # rule: GT-4 (DEFAULT: a car that draws a yellow flag on the move that finishes its
    # race has no next move: its flag comes down as it leaves; driver 2 may pass driver 3)
    cars = [CarState(0, "18:A2e", 4), CarState(1, "17:A2a", 3), CarState(2, "18:A1a", 1)]
    finish = "1:A2d G5 > 1:A2c G6 > 1:A2b G4+B > 1:A2a G3"
    pass_three = "18:A2a G4 > 18:A2b G3"
    result = _scripted_race(
        cars,
        [[finish], [pass_three], ["(stay)"]],
        bag=[("yellow", "")] * 6,
        dice=["danger"] * 5,
    )
    first = _turns(result, 0)[0]
    assert any(e.kind == "finish" for e in first.events) and any(
        e.kind == "loss-of-control" for e in first.events
    )
    assert [e.note for e in first.events if e.kind == "yellow-flag"] == ["out", "down"]
    assert _turns(result, 1)[0].steps[-1].space == "18:A2b"


# --- GT-3: weather and tyres --------------------------------------------------------------


def test_gt_3_the_cars_start_on_the_tyres_of_the_weather():
    # rule: GT-3 (DEFAULT: every car on the tyres of the weather at the start: in the rain,
    # rain tyres and the full danger limit)
    settings = Settings.default(3, gt=GtOptions(laps=1, weather="rain"))
    result = run_race(prepare(CORE), settings, 2)
    firsts = [_turns(result, i)[0] for i in range(3)]
    assert all(t.steps and all(s.limit == 3 for s in t.steps) for t in firsts)


# --- GT-2: pit stops ----------------------------------------------------------------------


def test_gt_2_a_car_on_wrong_tyres_pits_for_tyres_in_gear_0_and_drives_off_next_turn():
    # rule: GT-2, GT-3 (driver 2's weather token turns the weather to rain; driver 1, on
    # dry tyres, ends its turn in first gear on the pit space 5:A1b: tyres only, gear 0;
    # its next turn it takes rain tyres and drives off at once, with the full limit)
    result = _scripted_race(
        [CarState(0, "5:A1a", 2), CarState(1, "3:A1a", 3)],
        [["5:A1b G1"], ["3:A1b G2 > 4:A12a G3 !corner"]],
        bag=[("weather", "")] * 4,
        laps=2,  # no stop on the last lap
    )
    gt = result.gt
    assert gt is not None and gt.weather and gt.weather[0][2] == "rain"
    assert [(p.driver, p.space, p.repair, p.tyres) for p in gt.pit_stops][:1] == [
        (0, "5:A1b", False, True)
    ]
    again = _turns(result, 0)[1]
    assert again.start == "5:A1b" and again.gear == 0 and again.steps
    assert [e.note for e in again.events if e.kind == "tyres"] == ["rain"]
    assert all(s.limit == 3 for s in again.steps)


def test_gt_2_a_repair_mends_every_damage_token_and_the_car_in_the_pit_blocks_no_one():
    # rule: GT-2 (driver 1 ends in first gear on the pit space 5:A1b with two damage
    # tokens: mended, gear 00, off the road; driver 2 drives onto the same space)
    states: list[tuple[int, int, tuple[CarState, ...]]] = []
    cars = [CarState(0, "5:A1a", 2, damage=Damage(brake=1, coast=1)), CarState(1, "4:A3a", 1)]
    scripts = [["5:A1b G1"], ["5:A1a C > 5:A1b C"]]
    prepared = prepare(CORE)
    table = new_table(GT, random.Random(0))
    drivers = tuple(
        DriverSpec(f"d{i + 1}", car="gt6", bot=Script.of(s, then="cautious"))
        for i, s in enumerate(scripts)
    )
    start = RacePosition(tuple(replace(c, crossings=1) for c in cars), round=3, table=table)
    result = run_race(
        prepared,
        Settings(drivers, gt=GtOptions(laps=2)),  # no stop on the last lap
        7,
        start=start,
        dice=_ThenSafe(),  # type: ignore[arg-type]
        observe=lambda r, d, c: states.append((r, d, c)),
    )
    gt = result.gt
    assert gt is not None and [(p.driver, p.repair) for p in gt.pit_stops][:1] == [(0, True)]
    after_pit = next(c for r, d, c in states if d == 0)
    assert after_pit[0].damage == Damage() and not after_pit[0].on_track
    assert _turns(result, 1)[0].steps[-1].space == "5:A1b"
    assert _turns(result, 0)[1].plan == "(pit: gear 00 to 0)"


def test_gt_2_the_mended_tokens_go_back_into_the_bag():
    # rule: GT-2 (DEFAULT: the mended damage tokens go back into the bag: driver 1 mends a
    # brake and a coast token from an empty bag; driver 2 then goes off in gear 5 on the
    # medium-danger tile 7, draws two tokens (LOC-6), and they are those two)
    cars = [CarState(0, "5:A1a", 2, damage=Damage(brake=1, coast=1)), CarState(1, "4:A3a", 1)]
    scripts = [["5:A1b G1"], ["5:A1a C > 5:A1b C", "6:A1a G2 > 6:A1b G3 > 7:A1a G4 > 7:A1b G5"]]
    result = _scripted_race(cars, scripts, bag=[], dice=["safe"] * 3 + ["danger"] * 4, laps=2)
    off = _turns(result, 1)[1]
    assert [e.note for e in off.events if e.kind == "gear"] == ["00"]
    assert sorted(e.note or "" for e in off.events if e.kind == "damage") == ["brake", "coast"]


def test_gt_2_no_pit_stop_on_the_last_lap():
    # rule: GT-2 (the stop is the driver's choice: on the last lap it costs turns that the
    # repair cannot win back, so a damaged car ending there in first gear drives on)
    damaged = CarState(0, "5:A1a", 2, damage=Damage(brake=1))
    for laps, stops in ((2, [(0, "5:A1b")]), (1, [])):
        result = _scripted_race([damaged, CarState(1, "3:A2a", 1)], [["5:A1b G1"], []], laps=laps)
        assert result.gt is not None
        assert [(p.driver, p.space) for p in result.gt.pit_stops][:1] == stops, laps


@pytest.mark.parametrize(
    ("car", "plan"),
    [(CarState(0, "5:A1a", 3), "5:A1b G2"), (CarState(0, "5:A2a", 2), "5:A2b G1")],
    ids=["second-gear-on-a-pit-space", "first-gear-beside-the-pit"],
)
def test_gt_2_no_pit_stop_but_in_first_gear_on_a_pit_space(car: CarState, plan: str):
    # rule: GT-2 (a damaged car ending its turn in gear 2 on a pit space, or in gear 1 on a
    # space without pit access, drives on: no stop that turn)
    damaged = replace(car, damage=Damage(brake=1))
    result = _scripted_race([damaged, CarState(1, "3:A2a", 1)], [[plan], ["3:A2b G2"]], laps=2)
    gt = result.gt
    assert gt is not None
    first = _turns(result, 0)[0]
    assert not [p for p in gt.pit_stops if p.round == first.round and p.driver == 0]
    assert not any(e.kind == "pit" for e in first.events)


# --- GT-1: the flying start ----------------------------------------------------------------


def test_gt_1_zero_to_two_with_the_boost_die_is_no_flying_start():
    # rule: GT-1 (the flying start is the shift without a green die: the GT-5's boost to 2
    # is an ordinary move, a danger on it does not end the turn)
    ctx = _at("1:A2c", 0, car="gt5")
    steps = {str(s): s for s in PlanBuilder(ctx).options()}
    assert steps["1:A2b G2"].flying and not steps["1:A2b G2+Bo"].flying
    plan = _plan(ctx, "1:A2b G2+Bo > 1:A2a G3")
    out = _roll(ctx, plan, Mode.FLAT_OUT, ["danger", "safe", "safe"])
    assert not _notes(out, "flying-start") and out.car.space == "1:A2a"


def test_gt_1_a_secured_flying_two_shows_no_face_and_the_move_goes_on():
    # rule: GT-1 (DEFAULT: a 2 secured with focus tokens shows no danger face)
    ctx = _at("1:A2c", 0, second_tokens=1)
    plan = _plan(ctx, "1:A2b G2 > 1:A2a G3")
    out = _roll(ctx, plan, Mode.ONE_BY_ONE, ["danger"], policy=_SecureOn("1:A2b"))
    assert not _notes(out, "flying-start") and (out.car.space, out.car.gear) == ("1:A2a", 3)


def test_gt_1_flat_out_the_short_flying_start_still_earns_every_focus_token():
    # rule: GT-1, GT-5 (DEFAULT: flat out, every gear and coast die thrown earns its token,
    # even when the 2's danger ends the turn after one space)
    ctx = _at("1:A2d", 0)
    plan = _plan(ctx, "1:A2c G2 > 1:A2b G3 > 1:A2a C")
    out = _roll(ctx, plan, Mode.FLAT_OUT, ["danger", "safe", "safe"])
    assert _notes(out, "flying-start") and out.car.space == "1:A2c"
    assert out.car.second_tokens == 3


def test_gt_1_the_ruleset_and_the_race_options_switch_the_flying_start():
    # rule: GT-1 (gt.flying_start in ruleset-gt.yaml: true, cars fly off the grid; false,
    # or GtOptions(flying_start=False), none does)
    def flights(prepared: Prepared, **kw: Any) -> int:
        settings = Settings.default(6, gt=GtOptions(laps=1, **kw))
        return sum(
            1
            for seed in (1, 2)
            for t in run_race(prepared, settings, seed).log
            for s in t.steps
            if s.flying
        )

    assert GT.gt is not None and GT.gt.flying_start
    assert flights(prepare(CORE)) > 0
    assert flights(prepare(CORE), flying_start=False) == 0
    off = GT.model_copy(update={"gt": GT.gt.model_copy(update={"flying_start": False})})
    assert flights(prepare(CORE, off)) == 0


# --- DAMAGE-4: the GT bag -------------------------------------------------------------------


def _lose(damage: Damage, bag: list[tuple[str, str]]) -> Outcome:
    """Control lost in gear 3 on the low-danger 111a: gear 0 and one damage token (LOC-6)."""
    ctx = _at("3:A1a", 3, damage=damage)
    plan = _plan(ctx, "3:A1b G2 > 4:A12a G3 !corner")
    return _roll(ctx, plan, Mode.ONE_BY_ONE, ["safe", "safe"], bag=bag)


def test_damage_4_a_die_token_takes_that_die_out_of_the_plans():
    # rule: DAMAGE-4, DAMAGE-3 (a gear token: one gear die fewer in a turn; both coast
    # tokens: no coast die at all)
    def dice(damage: Damage) -> set[tuple[str, ...]]:
        ctx = _at("5:A2a", 2, damage=damage)
        return {tuple(d.label for d in p.dice) for p in legal_plans(ctx, max_steps=3)}

    whole = dice(Damage())
    assert any(len([x for x in d if x.startswith("G")]) == 3 for d in whole)
    assert not any(len([x for x in d if x.startswith("G")]) > 1 for d in dice(Damage(gear=5)))
    assert any("C" in d for d in whole) and not any("C" in d for d in dice(Damage(coast=2)))


def test_damage_4_a_token_for_a_die_the_car_lacks_goes_back_and_another_is_drawn():
    # rule: DAMAGE-4, DAMAGE-3 (every brake die lost already: the brake tokens go back into
    # the bag, the gear token is the damage)
    out = _lose(Damage(brake=3), [("brake", "")] * 4 + [("gear", "")])
    assert _notes(out, "damage") == ["gear"] and out.car.damage == Damage(brake=3, gear=1)
    assert Counter(out.table.bag) == {("brake", ""): 4}


def test_damage_4_a_die_token_stays_out_a_weather_yellow_or_green_one_goes_back():
    # rule: DAMAGE-4 (DEFAULT: a die token stays on the dashboard, out of the bag; the
    # others act once and go straight back)
    die = _lose(Damage(), [("coast", "")])
    assert die.car.damage == Damage(coast=1) and die.table.bag == ()
    for kind in ("weather", "yellow", "green"):
        out = _lose(Damage(), [(kind, "")])
        assert _notes(out, "damage") == [kind] and out.car.damage == Damage()
        assert out.table.bag == ((kind, ""),)


# --- a Rekee circuit, 2 to 6 cars -------------------------------------------------------------


@contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """Fail (not hang) if the block takes longer than ``seconds`` (POSIX timers)."""

    def expired(signum: int, frame: object) -> None:
        raise AssertionError(f"still racing after {seconds} s: a race hangs")

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_board_3_a_rekee_gt_circuit_races_to_a_full_finishing_order(players: int):
    # rule: BOARD-3 (every car crosses the line after its last lap, in a finishing order,
    # for 2 to 6 cars, every bot mix, well within the round cap and the time)
    prepared = prepare(EIGHT)
    mixes = [("cautious",), ("aggressive",), ("planner",), ("cautious", "aggressive", "planner")]
    with _time_limit(60):
        for k, bots in enumerate(mixes):
            settings = Settings.default(players, bots=bots, gt=GtOptions())
            result = run_race(prepared, settings, 100 + k)
            gt = result.gt
            assert gt is not None and gt.laps == 3
            assert sorted(gt.order) == list(range(players)), (bots, gt.order)
            assert all(d.finished and d.out is None for d in result.drivers)
            rounds = [gt.finish_round[i] for i in gt.order]
            assert rounds == sorted(rounds) and result.rounds < settings.max_rounds
            assert len(gt.lap_leaders) == 3 and gt.winner == gt.order[0]
