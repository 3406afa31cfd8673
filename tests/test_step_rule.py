"""The one step rule of both series (``trackkit.rules.steps``).

Its checks read the features of a space and of a line, and the turn, never the series;
where the two rulebooks differ the ruleset says so. The table of moves kept per track and
dashboard is a cache of the one check: it gives what the check gives, whatever the
position that filled it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from stagekit import load_script

from trackkit.rules import load_ruleset
from trackkit.rules.plans import GtTurn, PlanContext, PlanStep, legal_plans
from trackkit.rules.positions import GT_RING, position, track_of
from trackkit.rules.steps import Traffic, Walk, apply_step, level, start_walk

DIRT_PERFT: Any = load_script("regen_perft")
GT_PERFT: Any = load_script("regen_perft_gt")
GT = load_ruleset("gt")
DIRT = load_ruleset("dirt")
CORNER: list[str | dict[str, Any]] = ["202a", "205a", {"tile": "217b", "turn": "left"}, "203a"]


def _contexts() -> list[tuple[str, PlanContext]]:
    out = [(p["name"], DIRT_PERFT.SUITE.context(p)) for p in DIRT_PERFT.POSITIONS]
    out += [(p["name"], GT_PERFT.SUITE.context(p)) for p in GT_PERFT.POSITIONS]
    return out


CONTEXTS = _contexts()


def _walk(ctx: PlanContext, traffic: Traffic, depth: int) -> list[str]:
    """Every step of every plan up to ``depth`` steps, walked with ``traffic``'s table."""
    here = ctx.car.space
    assert here is not None
    out: list[str] = []

    def go(space: str, speed: int, stack: list[PlanStep], walk: Walk, left: int) -> None:
        for step, record in level(ctx, space, speed, walk, stack, traffic):
            out.append(" > ".join(str(s) for s in (*stack, step)))
            if record is None or left <= 1 or step.loc is not None or step.finishes:
                continue
            grown = replace(
                walk, gears=set(walk.gears), tiles=set(walk.tiles), alongside=set(walk.alongside)
            )
            apply_step(grown, *record)
            go(step.space, step.speed, [*stack, step], grown, left - 1)

    go(here, ctx.car.gear, [], start_walk(ctx, here, traffic), depth)
    return out


@pytest.mark.parametrize(("name", "ctx"), CONTEXTS, ids=[n for n, _ in CONTEXTS])
def test_the_move_table_gives_what_the_one_check_gives(name: str, ctx: PlanContext) -> None:
    # rule: MOVE-2..8, CORNER-1, CORNER-4, CORNER-5, SHORTCUT-1, SHORTCUT-2, JUMP-1, FORD-1,
    # CLIMB-2..8, TRAFFIC-1, TRAFFIC-3, GT-1, BOARD-3: every perft position of both series,
    # walked with the table per track and dashboard and with the check made afresh at every
    # step, gives the same steps in the same order
    table = Traffic.of(ctx)
    fresh = replace(table, moves=None)
    assert table.moves is not None
    assert _walk(ctx, table, 3) == _walk(ctx, fresh, 3)


def test_the_move_table_is_kept_apart_for_all_that_the_check_reads() -> None:
    # rule: SHORTCUT-2 (mud lowers a corner's limit for the cars that did not draw it),
    # MOVE-3 (the leader's coast die is a leader die), BOARD-3 (the last lap), GT-1 (the
    # flying start): positions that differ only in these share a track and a dashboard;
    # each gets its own moves, whichever filled the table first
    dirt = position(CORNER, space="2:1.2L", gear=4, leader=False)
    muddy = replace(dirt, mud={3: 1})
    leading = replace(dirt, leader=True)
    for first, then in ((dirt, muddy), (muddy, dirt), (dirt, leading), (leading, dirt)):
        list(legal_plans(first, max_steps=3))  # fills the table
        fresh = replace(Traffic.of(then), moves=None)
        assert _walk(then, Traffic.of(then), 3) == _walk(then, fresh, 3)
    assert _walk(muddy, Traffic.of(muddy), 3) != _walk(dirt, Traffic.of(dirt), 3)
    assert _walk(leading, Traffic.of(leading), 2) != _walk(dirt, Traffic.of(dirt), 2)
    ring = position(track_of(GT_RING), space="1:A2d", gear=0, car="gt6", ruleset=GT)
    variants = [
        replace(ring, gt=GtTurn(final_lap=f, flying=y))
        for f in (False, True)
        for y in (False, True)
    ]
    for a in variants:
        list(legal_plans(a, max_steps=3))
        for b in variants:
            assert _walk(b, Traffic.of(b), 3) == _walk(b, replace(Traffic.of(b), moves=None), 3)


@pytest.mark.parametrize(
    "name", [p["name"] for p in DIRT_PERFT.POSITIONS], ids=[p["name"] for p in DIRT_PERFT.POSITIONS]
)
def test_a_stage_without_gt_marks_plans_the_same_in_a_gt_turn(name: str) -> None:
    # the step rule reads the features of the space and of the line, not the series: a
    # DIRT stage has no dotted line, warning sign, triangle or lap line, so a turn with no
    # last lap, yellow flag or flying start plans exactly as a DIRT turn (CORNER-1, CORNER-4,
    # CORNER-5, BOARD-3)
    ctx = DIRT_PERFT.SUITE.context(next(p for p in DIRT_PERFT.POSITIONS if p["name"] == name))
    plain = replace(ctx, gt=GtTurn(final_lap=False, yellow=False, flying=False))
    assert [str(p) for p in legal_plans(plain)] == [str(p) for p in legal_plans(ctx)]


@pytest.mark.parametrize(
    "name", [p["name"] for p in GT_PERFT.POSITIONS], ids=[p["name"] for p in GT_PERFT.POSITIONS]
)
def test_a_circuits_marks_count_without_a_gt_turn(name: str) -> None:
    # rule: CORNER-4, CORNER-5 (a dotted line's number and warning sign, a warning
    # triangle), BOARD-3 (the lap line): features of the circuit, read by the one rule
    # whatever the turn; a turn with no last lap, yellow flag or flying start plans alike
    ctx = GT_PERFT.SUITE.context(next(p for p in GT_PERFT.POSITIONS if p["name"] == name))
    assert ctx.gt is not None
    plain = replace(ctx, gt=GtTurn(final_lap=False, yellow=False, flying=False))
    bare = replace(ctx, gt=None)
    assert [(str(p), [(s.hazards, s.lap, s.loc) for s in p.steps]) for p in legal_plans(bare)] == [
        (str(p), [(s.hazards, s.lap, s.loc) for s in p.steps]) for p in legal_plans(plain)
    ]


def _first_steps(ctx: PlanContext) -> set[str]:
    return {str(p.steps[0]).split()[0] for p in legal_plans(ctx, max_steps=1)}


def test_traffic_3_corner_lanes_are_the_rulesets_dirt_shuts_the_other_lane_gt_does_not() -> None:
    # rule: TRAFFIC-3 (DIRT: a car in a corner shuts its other lane; GT corners are wide,
    # only the occupied space is shut): the ruleset's corner_lanes says which
    dirt = position(CORNER, space="3:1.1R", gear=2, others=[("3:2.O2", 0)])
    assert _first_steps(dirt) == {"3:2.O1"}
    wide = replace(dirt, ruleset=DIRT.model_copy(update={"corner_lanes": False}))
    assert _first_steps(wide) == {"3:2.O1", "3:2.I1"}
    ring = track_of(GT_RING)
    gt = position(ring, space="4:A1a", gear=2, car="gt6", ruleset=GT, others=[("4:A23c", 0)])
    assert "4:A1b" in _first_steps(gt)
    lanes = replace(gt, ruleset=GT.model_copy(update={"corner_lanes": True}))
    assert "4:A1b" not in _first_steps(lanes) and "4:A23b" in _first_steps(lanes)


@pytest.mark.parametrize("ruleset", [DIRT, GT], ids=["dirt", "gt"])
def test_turn_6_the_danger_limit_is_read_once_from_the_ruleset(ruleset: Any) -> None:
    # rule: TURN-6 (DIRT: reaching the limit loses control; GT: exceeding it)
    for limit in range(1, 7):
        most = ruleset.most_dangers(limit)
        assert not ruleset.loses_control(most, limit) and ruleset.loses_control(most + 1, limit)
    assert DIRT.most_dangers(3) == 2 and GT.most_dangers(3) == 3
