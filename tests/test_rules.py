"""The rules engine, one rule at a time (ids from docs/rules.md).

Each test would fail if the rule it cites were broken.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from trackkit.rules import (
    DefaultPolicy,
    Mode,
    UnlimitedDashboard,
    check_unlimited,
    dashboard,
    flat_out_risk,
    legal_plans,
    load_ruleset,
    new_table,
    resolve,
)
from trackkit.rules.dice import Die, DieKind
from trackkit.rules.plans import Plan, PlanContext
from trackkit.rules.resolve import RollView, securing_cost, stage_time
from trackkit.rules.state import Damage
from trackkit.rules.table import Table
from trackkit.rules.testing import position

STAGE = [
    "202a",
    "205a",
    {"tile": "217b", "turn": "left"},
    "206b",
    {"tile": "218a", "turn": "right"},
    "207b",
    "203a",
]
RS = load_ruleset("dirt")


def plans(ctx: PlanContext, depth: int = 3) -> list[Plan]:
    """Legal plans of up to ``depth`` steps (the rules checked here show within three)."""
    return list(legal_plans(ctx, max_steps=depth))


def firsts(ctx: PlanContext) -> set[tuple[str, str]]:
    """(space, dice) of every legal first step."""
    return {(p.steps[0].space, "+".join(map(str, p.steps[0].dice))) for p in plans(ctx, 1)}


def plan_to(ctx: PlanContext, *moves: tuple[str, str]) -> Plan:
    """The legal plan whose steps are exactly ``moves`` (space, dice)."""
    for p in plans(ctx, len(moves)):
        if [(s.space, "+".join(map(str, s.dice))) for s in p.steps] == list(moves):
            return p
    raise AssertionError(f"no legal plan {moves}")


class Rolls(random.Random):
    """A generator whose dice results are scripted: True = a danger face."""

    def __init__(self, dangers: list[bool], cards: str = "crash") -> None:
        super().__init__(1)
        self.dangers = list(dangers)

    def randrange(self, n: int, *args: object, **kwargs: object) -> int:  # type: ignore[override]
        if n == 6 and self.dangers:
            return 0 if self.dangers.pop(0) else 5
        return super().randrange(n)


def table_with(card: str) -> Table:
    """A table whose every loss-of-control deck starts with ``card``."""
    t = new_table(RS, random.Random(0))
    return replace(t, decks=tuple((card, *d) for d in t.decks))


# --- MOVE -------------------------------------------------------------------------------


def test_move_1_forward_only_straight_or_diagonal():
    # rule: MOVE-1
    ctx = position(STAGE, space="2:1.1L", gear=2)
    assert {s for s, _ in firsts(ctx)} == {"2:1.2L", "2:1.2R"}


def test_move_2_gear_dice_one_above_or_below():
    # rule: MOVE-2
    ctx = position(STAGE, space="2:1.1L", gear=3)
    dice = {d for _, d in firsts(ctx)}
    assert {"G4", "G2"} <= dice and "G3" not in dice and "G5" not in dice


def test_move_3_coast_keeps_speed_not_from_gear_0_and_leader_for_the_first_player():
    # rule: MOVE-3
    assert "C" not in {d for _, d in firsts(position(STAGE, space="1:1.1L", gear=0))}
    ctx = position(STAGE, space="2:1.1L", gear=3)
    coast = [p for p in plans(ctx) if str(p.steps[0].dice[0]) == "C"]
    assert coast and coast[0].steps[0].speed == 3
    leader = position(STAGE, space="2:1.1L", gear=3, leader=True)
    kinds = {p.steps[0].dice[0].kind for p in plans(leader)}
    assert DieKind.LEADER in kinds and DieKind.COAST not in kinds


def test_move_4_brake_skips_gears_down():
    # rule: MOVE-4 (6 -> 4 with brake + gear 4)
    ctx = position(STAGE, space="2:1.1L", gear=6)
    assert ("2:1.2L", "G4+B") in firsts(ctx)
    assert all(d != "G3+B" for _, d in firsts(ctx))


def test_move_5_boost_two_gears_up_only_with_a_boost_die():
    # rule: MOVE-5
    assert ("2:1.2L", "G5+Bo") not in firsts(position(STAGE, space="2:1.1L", gear=3))
    r5 = position(STAGE, space="2:1.1L", gear=3, car="r5")
    boosted = [
        p.steps[0]
        for p in plans(r5)
        if len(p.steps[0].dice) == 2 and p.steps[0].dice[1].kind is DieKind.BOOST
    ]
    assert boosted and {s.speed for s in boosted} == {5}


def test_move_6_each_die_once_per_turn():
    # rule: MOVE-6
    for p in plans(position(STAGE, space="2:1.1L", gear=2), depth=99):
        gears = [d.value for d in p.dice if d.kind is DieKind.GEAR]
        assert len(gears) == len(set(gears))
        assert sum(1 for d in p.dice if d.kind is DieKind.COAST) <= 2
        assert sum(1 for d in p.dice if d.kind is DieKind.BRAKE) <= 1


def test_move_7_dice_come_from_the_surface_column_less_damage():
    # rule: MOVE-7, DAMAGE-3 (a gear token removes one gear die, whatever its value)
    full = position(STAGE, space="2:1.1L", gear=2)
    hurt = position(STAGE, space="2:1.1L", gear=2, damage=Damage(gear=3, coast=2, brake=1))
    assert max(len([d for d in p.dice if d.kind is DieKind.GEAR]) for p in plans(hurt)) == 3
    assert all(d.kind is DieKind.GEAR for p in plans(hurt) for d in p.dice)
    assert len(plans(hurt)) < len(plans(full))


def test_move_8_climb_tyres_make_coast_dice_leader_dice():
    # rule: MOVE-8
    board = replace(dashboard("dirt"), forced_leader_surfaces=frozenset({"gravel"}))
    ctx = position(STAGE, space="2:1.1L", gear=3, car=board)
    assert {p.steps[0].dice[0].kind for p in plans(ctx)} >= {DieKind.LEADER}
    assert DieKind.COAST not in {d.kind for p in plans(ctx) for d in p.dice}


# --- CORNER -----------------------------------------------------------------------------


def test_corner_1_over_the_limit_loses_control_and_ends_the_plan():
    # rule: CORNER-1
    ctx = position(STAGE, space="3:1.1L", gear=4)
    over = [p for p in plans(ctx) if p.steps[0].space == "3:2.I1" and p.steps[0].speed > 2]
    assert over and all(p.steps[0].loc == "corner" and len(p.steps) == 1 for p in over)
    ok = [p for p in plans(ctx) if p.steps[0].space == "3:2.O1" and p.steps[0].speed == 3]
    assert ok and ok[0].steps[0].loc is None


def test_corner_1_a_corner_at_limit_zero_cannot_be_entered():
    # rule: CORNER-1, SHORTCUT-2 (mud lowers limits: inner 2 -> 0)
    ctx = position(STAGE, space="3:1.1L", gear=2, mud={3: 2})
    assert "3:2.I1" not in {s for s, _ in firsts(ctx)}
    assert "3:2.O1" in {s for s, _ in firsts(ctx)}


def test_corner_2_lane_chosen_on_entry_and_kept():
    # rule: CORNER-2
    ctx = position(STAGE, space="3:2.O1", gear=3)
    assert {s for s, _ in firsts(ctx)} == {"3:2.O2"}


def test_corner_3_slide_spaces_are_a_committed_alternative():
    # rule: CORNER-3
    ctx = position(STAGE, space="2:1.3L", gear=3)
    assert "3:1.1S1" in {s for s, _ in firsts(ctx)}
    sliding = position(STAGE, space="3:1.1S1", gear=3)
    # on: the second slide space, or the shortcut linked to the slide (CORNER-3)
    assert {s for s, _ in firsts(sliding)} == {"3:1.1S2", "3:X1.1"}


# --- SHORTCUT, JUMP, FORD ---------------------------------------------------------------


def test_shortcut_1_die_at_most_the_limit():
    # rule: SHORTCUT-1 (217b shortcut limit 3)
    into = {(s, d) for s, d in firsts(position(STAGE, space="3:1.1L", gear=3)) if s == "3:X1.1"}
    assert into == {("3:X1.1", "G2"), ("3:X1.1", "C"), ("3:X1.1", "G1+B")}
    assert not any(
        s == "3:X1.1" for s, _ in firsts(position(STAGE, space="3:1.1L", gear=4)) if _ == "C"
    )


def test_shortcut_2_token_drawn_on_entry_mud_counts_for_others_only():
    # rule: SHORTCUT-2
    ctx = position(STAGE, space="3:1.1L", gear=3)
    plan = plan_to(ctx, ("3:X1.1", "G2"))
    table = new_table(RS, random.Random(0))
    table = replace(table, bag=(("green", "mud"),))
    out = resolve(ctx, plan, Mode.ONE_BY_ONE, Rolls([False]), table=table)
    assert [e.note for e in out.events if e.kind == "shortcut-token"] == ["mud"]
    assert out.table.mud == ((3, 0),)
    assert out.table.mud_for(0) == {} and out.table.mud_for(1) == {3: 1}


def test_shortcut_2_coast_side_costs_a_coast_die_from_next_turn():
    # rule: SHORTCUT-2, DAMAGE-3
    ctx = position(STAGE, space="3:1.1L", gear=3)
    table = replace(new_table(RS, random.Random(0)), bag=(("coast", "coast"),))
    out = resolve(ctx, plan_to(ctx, ("3:X1.1", "C")), Mode.ONE_BY_ONE, Rolls([False]), table=table)
    assert out.car.damage.coast == 1


def test_shortcut_3_shortcut_is_adjacent_to_its_linked_spaces():
    # rule: SHORTCUT-3, TRAFFIC-1 (a car on the shortcut: entering 3:3.1L needs gear >= 4)
    ctx = position(STAGE, space="3:2.I1", gear=2, others=[("3:X1.1", 4)])
    assert "3:3.1L" not in {s for s, _ in firsts(ctx)}
    assert "3:3.1R" in {s for s, _ in firsts(ctx)}


def test_jump_1_at_n_one_more_space_n_plus_1_risk_n_plus_2_loss():
    # rule: JUMP-1 (206b: jump 5 on row 3, entered from row 2)
    at4 = position(STAGE, space="4:1.2L", gear=4)
    by_speed = {}
    for p in plans(at4):
        s = p.steps[0]
        if s.placed_on.startswith("4:1.3"):
            by_speed.setdefault(s.speed, set()).add((s.space, s.jump_risk, s.loc))
    assert {sp for sp, _, _ in by_speed[5]} == {"4:1.4L", "4:1.4R"}  # one more space
    assert {sp for sp, _, _ in by_speed[3]} == {"4:1.3L", "4:1.3R"}  # below: normal
    at5 = position(STAGE, space="4:1.2L", gear=5)
    six = {(s.space, s.jump_risk) for p in plans(at5) for s in p.steps[:1] if s.speed == 6}
    assert six and all(risk for _, risk in six)
    assert all(sp.startswith("5:") for sp, _ in six)  # two more spaces: onto the next tile


def test_jump_1_n_plus_2_is_a_loss_of_control():
    # rule: JUMP-1 (207b: jump 4 on row 3)
    ctx = position(STAGE, space="6:1.2L", gear=5, damage=Damage())
    # gear 5 -> G6 on the jump space is N+2
    six = [p.steps[0] for p in plans(ctx) if p.steps[0].speed == 6]
    assert six and all(s.loc == "jump" for s in six)


def test_jump_2_cannot_land_on_a_car():
    # rule: JUMP-2
    free = position(STAGE, space="4:1.2L", gear=4)
    blocked = position(STAGE, space="4:1.2L", gear=4, others=[("4:1.4L", 1)])
    land = {s.space for p in plans(free) for s in p.steps[:1] if s.speed == 5}
    land_b = {s.space for p in plans(blocked) for s in p.steps[:1] if s.speed == 5}
    assert land == {"4:1.4L", "4:1.4R"} and land_b == {"4:1.4R"}


def test_ford_1_default_gear_1_with_no_coast_die_left_cannot_cross():
    # rule: FORD-1 (from gear 1 the only die into the ford is a coast die: G0 does not exist)
    ctx = position(STAGE, space="6:1.1L", gear=1)
    assert {s for s, _d in firsts(ctx)} == {"6:1.2L", "6:1.2R"}
    assert {d for _s, d in firsts(ctx)} == {"C"}
    no_coast = position(STAGE, space="6:1.1L", gear=1, damage=Damage(coast=2))
    assert plans(no_coast) == []  # stuck before the ford (a simulation reports it)


def test_traffic_1_default_a_jump_landing_beside_a_car_needs_its_gear_too():
    # rule: TRAFFIC-1 DEFAULT, JUMP-2 (206b: G5 on the jump lands one row on, 4:1.4L or R)
    faster = position(STAGE, space="4:1.2L", gear=4, others=[("4:1.4R", 6)])
    level = position(STAGE, space="4:1.2L", gear=4, others=[("4:1.4R", 5)])
    land = {s.space for p in plans(faster) for s in p.steps[:1] if s.speed == 5}
    land_level = {s.space for p in plans(level) for s in p.steps[:1] if s.speed == 5}
    assert land == set()  # beside a car in gear 6 with a G5: no
    assert land_level == {"4:1.4L"}  # beside a car in gear 5: yes


def test_ford_1_only_coast_or_gear_1_without_brake():
    # rule: FORD-1 (207b row 2 is a ford)
    ctx = position(STAGE, space="6:1.1L", gear=2)
    into_ford = {d for s, d in firsts(ctx) if s.startswith("6:1.2")}
    assert into_ford == {"G1", "C"}
    fast = position(STAGE, space="6:1.1L", gear=4)
    assert {d for s, d in firsts(fast) if s.startswith("6:1.2")} == {"C"}


# --- TRAFFIC ----------------------------------------------------------------------------


def test_traffic_1_entering_beside_a_car_needs_a_gear_die_at_or_above_its_gear():
    # rule: TRAFFIC-1
    ctx = position(STAGE, space="2:1.1L", gear=3, others=[("2:1.2R", 3)])
    beside = {d for s, d in firsts(ctx) if s == "2:1.2L"}
    assert beside == {"G4"}  # G2 is below its gear; coast never meets it
    assert "2:1.2R" not in {s for s, _ in firsts(ctx)}


def test_traffic_1_default_a_car_that_begins_its_turn_alongside_is_already_alongside():
    # rule: TRAFFIC-1 DEFAULT, SHORTCUT-3: on the slide 3:1.1S1, beside the car in gear 5
    # on the shortcut 3:X1.1, the car is alongside it already: the slide's second space,
    # beside that car too, takes any die
    ctx = position(STAGE, space="3:1.1S1", gear=2, others=[("3:X1.1", 5)])
    assert {d for s, d in firsts(ctx) if s == "3:1.1S2"} == {"G3", "G1", "C"}
    # coming up beside it from behind still takes a gear die at or above its gear
    behind = position(STAGE, space="2:1.3L", gear=2, others=[("3:X1.1", 5)])
    assert not {d for s, d in firsts(behind) if s == "3:1.1S1"}


def test_traffic_2_pass_diagonally_between_two_cars():
    # rule: TRAFFIC-2
    ctx = position(STAGE, space="2:1.1R", gear=3, others=[("2:1.1L", 2), ("2:1.2R", 2)])
    assert ("2:1.2L", "G4") in firsts(ctx) and ("2:1.2L", "G2") in firsts(ctx)


def test_traffic_3_car_in_a_corner_closes_the_other_lane_and_its_space():
    # rule: TRAFFIC-3
    ctx = position(STAGE, space="3:1.1L", gear=3, others=[("3:2.O2", 3)])
    spaces = {s for p in plans(ctx) for s in (st.space for st in p.steps)}
    assert "3:2.I1" not in spaces and "3:2.O1" in spaces and "3:2.O2" not in spaces
    sliding = position(STAGE, space="2:1.3L", gear=3, others=[("3:1.1S2", 3)])
    first = {s for s, _ in firsts(sliding)}
    assert "3:1.1L" not in first and "3:1.1S1" in first


def test_traffic_4_a_crashed_car_blocks_no_one():
    # rule: TRAFFIC-4, LOC-4
    from trackkit.rules.state import OtherCar

    ctx = position(STAGE, space="2:1.1L", gear=3)
    ctx.others = (OtherCar("2:1.2L", 5, blocks=False),)
    assert ("2:1.2L", "G2") in firsts(ctx)


# --- TURN, LOC, TIME, DAMAGE, DICE ------------------------------------------------------


def test_turn_3_and_4_flat_out_safe_roll_earns_seconds_for_gear_and_coast_dice():
    # rule: TURN-3, TURN-4 (brake dice earn none)
    ctx = position(STAGE, space="2:1.1L", gear=5)
    plan = plan_to(ctx, ("2:1.2L", "G3+B"), ("2:1.3L", "C"))
    out = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([False, False, False]), table=table_with("crash"))
    assert not out.lost_control and out.car.second_tokens == 2 and out.car.space == "2:1.3L"


def test_turn_4_loss_flat_out_still_earns_seconds_and_loses_control_late():
    # rule: TURN-4 (DIRT: re-placed dice; DEFAULT: control lost at the furthest step)
    ctx = position(STAGE, space="2:1.1L", gear=2)
    plan = plan_to(ctx, ("2:1.2L", "G3"), ("2:1.3L", "G4"), ("3:1.1L", "G5"))
    out = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([True, True, True]), table=table_with("spin"))
    assert out.lost_control and out.car.space == "3:1.1L" and out.car.second_tokens == 3
    assert [e.value for e in out.events if e.kind == "loss-of-control"] == [5]


def test_turn_5_one_by_one_secure_at_rising_cost_and_stop():
    # rule: TURN-5
    assert [securing_cost(0, 1), securing_cost(1, 1), securing_cost(2, 1)] == [1, 2, 3]
    assert securing_cost(0, 2) == 3  # a pair: two consecutive secured dice
    assert securing_cost(1, 2) == 2 + 3 and securing_cost(2, 3) == 3 + 4 + 5  # costs keep rising

    class SecureAll(DefaultPolicy):
        def before_roll(self, view: RollView):  # type: ignore[no-untyped-def]
            return "secure" if view.step_index < 2 else "stop"

    ctx = position(STAGE, space="2:1.1L", gear=2)
    ctx.car = replace(ctx.car, second_tokens=3)
    plan = plan_to(ctx, ("2:1.2L", "G3"), ("2:1.3L", "G4"), ("3:1.1L", "G5"))
    out = resolve(
        ctx,
        plan,
        Mode.ONE_BY_ONE,
        Rolls([True, True, True]),
        table=table_with("spin"),
        policy=SecureAll(),
    )
    assert not out.lost_control and out.car.space == "2:1.3L" and out.car.second_tokens == 0
    assert [e.value for e in out.events if e.kind == "secure"] == [1, 2]


def test_turn_5_one_by_one_each_die_of_a_brake_step_is_secured_on_its_own():
    # rule: TURN-5 (each die secured alone at the rising cost: G3 for 1 token, then the
    # brake die rolled); today's block of G3+B would cost 1 + 2 = 3
    class SecureFirst(DefaultPolicy):
        def before_roll(self, view: RollView):  # type: ignore[no-untyped-def]
            return "secure" if view.step_index == 0 else "roll"

    ctx = position(STAGE, space="2:1.1L", gear=5)
    ctx.car = replace(ctx.car, second_tokens=1)
    plan = plan_to(ctx, ("2:1.2L", "G3+B"))
    out = resolve(
        ctx, plan, Mode.ONE_BY_ONE, Rolls([False]), table=table_with("spin"), policy=SecureFirst()
    )
    assert [(e.kind, e.die, e.value) for e in out.events if e.kind in ("secure", "roll")] == [
        ("secure", "G3", 1),
        ("roll", "B", 0),
    ]
    assert out.car.second_tokens == 0 and out.car.space == "2:1.2L" and out.car.gear == 3


def test_turn_5_only_dice_rolled_together_are_secured_together():
    # rule: TURN-5, MOVE-5, CLIMB-4 (a gear die with its boost and a climb pair go as one)
    from trackkit.rules.resolve import roll_units

    r5 = position(STAGE, space="2:1.1L", gear=2, car="r5")
    boost = plan_to(r5, ("2:1.2L", "G4+Bo")).steps[0]
    brakes = plan_to(position(STAGE, space="2:1.1L", gear=6), ("2:1.2L", "G4+B")).steps[0]
    pair = plan_to(position(CLIMB, space="2:1.1L", gear=3, car="r5"), ("2:1.2L", "C+Bo")).steps[0]
    assert [len(u) for u in roll_units(boost)] == [2]
    assert [len(u) for u in roll_units(pair)] == [2]
    assert [[str(d) for d in u] for u in roll_units(brakes)] == [["G4"], ["B"]]


def test_turn_8_default_a_secured_last_gear_die_sets_the_time_card():
    # rule: TURN-8 DEFAULT (the gear of the last gear die resolved, secured or rolled: G4
    # secured, then a coast die: the gear-4 card, not the top card of the pile again)
    class SecureGear(DefaultPolicy):
        def before_roll(self, view: RollView):  # type: ignore[no-untyped-def]
            return "secure" if view.step_index == 0 else "roll"

    ctx = position(STAGE, space="2:1.1L", gear=3)
    ctx.car = replace(ctx.car, second_tokens=1, cards=(RS.time_cards[3],))
    plan = plan_to(ctx, ("2:1.2L", "G4"), ("2:1.3L", "C"))
    out = resolve(
        ctx, plan, Mode.ONE_BY_ONE, Rolls([False]), table=table_with("spin"), policy=SecureGear()
    )
    assert [e.kind for e in out.events if e.kind in ("secure", "roll")] == ["secure", "roll"]
    assert out.car.cards == (RS.time_cards[3], RS.time_cards[4]) and out.car.gear == 4


def test_turn_6_danger_limit_reached_loses_control_on_that_die_one_by_one():
    # rule: TURN-6, DICE-1
    ctx = position(STAGE, space="2:1.1L", gear=2)
    plan = plan_to(ctx, ("2:1.2L", "G3"), ("2:1.3L", "G4"), ("3:1.1L", "G5"))
    out = resolve(ctx, plan, Mode.ONE_BY_ONE, Rolls([True, True, True]), table=table_with("spin"))
    assert out.lost_control and out.car.space == "3:1.1L"
    two = resolve(ctx, plan, Mode.ONE_BY_ONE, Rolls([True, True, False]), table=table_with("spin"))
    assert not two.lost_control  # 2 dangers < limit 3 on gravel


def test_turn_6_snow_limit_two_and_lowest_limit_flat_out():
    # rule: TURN-6, DASH-1 (snow limit 2)
    snow = ["301b", "305b", "304b", "302b"]
    ctx = position(snow, space="1:1.1L", gear=2)
    plan = next(p for p in plans(ctx) if len(p.steps) == 2)
    assert {s.limit for s in plan.steps} == {2}
    out = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([True, True]), table=table_with("spin"))
    assert out.lost_control


def test_turn_7_and_8_turn_ends_and_time_card_of_the_current_gear():
    # rule: TURN-7, TURN-8, TIME-1
    ctx = position(STAGE, space="2:1.1L", gear=3)
    out = resolve(
        ctx, plan_to(ctx, ("2:1.2L", "G4")), Mode.FLAT_OUT, Rolls([False]), table=table_with("spin")
    )
    assert out.car.cards == (20,) and out.car.time_seconds == 20
    ctx2 = replace(ctx, car=out.car)
    ctx2.car = replace(out.car, space="2:1.2L")
    again = resolve(
        ctx2,
        plan_to(ctx2, ("2:1.3L", "C")),
        Mode.FLAT_OUT,
        Rolls([False]),
        table=table_with("spin"),
    )
    assert again.car.cards == (20, 20)  # coast only: the same card as the top of the pile


def test_turn_8_default_a_car_in_gear_0_that_stays_takes_the_gear_1_card():
    # rule: TURN-8 DEFAULT, TIME-1
    ctx = position(STAGE, space="1:1.1L", gear=0)
    out = resolve(ctx, Plan(()), Mode.FLAT_OUT, Rolls([]), table=table_with("spin"))
    assert out.car.cards == (RS.time_cards[1],) and out.car.time_seconds == 50


def test_loc_default_control_lost_on_the_finishing_move_still_costs_the_card():
    # rule: LOC-3, TIME-1 DEFAULT (the car finishes, and the spin's 60 s count)
    ctx = position(STAGE, space="7:1.1L", gear=3)
    plan = plan_to(ctx, ("7:1.2L", "G4"), ("7:1.3L", "G2+B"))
    assert plan.steps[-1].finishes
    out = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([True] * 3), table=table_with("spin"))
    assert out.lost_control and out.car.finished and not out.car.on_track
    assert out.car.cards == (60,) and out.car.time_seconds == 60


def test_damage_1_default_green_tokens_stay_out_and_an_empty_bag_is_refilled():
    # rule: DAMAGE-1 DEFAULT, DAMAGE-2 (a crash in gear 5 on a low-danger tile: one token)
    ctx = position(STAGE, space="3:1.1L", gear=4)
    plan = plan_to(ctx, ("3:2.I1", "G5"))
    table = replace(table_with("crash"), bag=(("green", "ok"),))
    out = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([False]), table=table)
    assert [e.note for e in out.events if e.kind == "damage"] == ["green"]
    assert out.table.bag == () and out.car.damage == Damage()
    token, after = out.table.draw_token(random.Random(3), RS)
    assert len(after.bag) == sum(t.count for t in RS.damage_bag) - 1 and token[0]


def test_loc_1_to_4_cards_sisu_spin_crash():
    # rule: LOC-1, LOC-2, LOC-3, LOC-4, TIME-1, DAMAGE-2
    ctx = position(STAGE, space="3:1.1L", gear=4)
    plan = plan_to(ctx, ("3:2.I1", "G5"))  # over the limit 2: a loss of control (CORNER-1)
    sisu = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([False]), table=table_with("sisu"))
    assert sisu.lost_control and sisu.car.time_seconds == 15 and sisu.car.on_track
    assert sisu.car.gear == 0 and sisu.car.space == "3:2.I1"
    spin = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([False]), table=table_with("spin"))
    assert spin.car.time_seconds == 60 and spin.car.on_track and spin.car.damage == Damage()
    crash = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([False]), table=table_with("crash"))
    assert crash.car.time_seconds == 60 and not crash.car.on_track
    # gear 5 on a low-danger tile: max(0, 5 + 1 - 5) = 1 token
    assert sum(1 for e in crash.events if e.kind == "damage") == 1


def test_loc_5_default_deck_and_damage_2_table():
    # rule: LOC-5, DAMAGE-2, DAMAGE-1
    assert (RS.loc_deck.sisu, RS.loc_deck.spin, RS.loc_deck.crash) == (1, 2, 3)
    assert RS.crash_tokens(6, "high") == 4 and RS.crash_tokens(3, "low") == 0
    assert sum(t.count for t in RS.damage_bag) == 48
    deck = new_table(RS, random.Random(3)).decks[0]
    assert sorted(deck) == ["crash", "crash", "crash", "sisu", "spin", "spin"]


def with_sisu(ctx: PlanContext) -> PlanContext:
    """The position with a SISU token on the dashboard (every surface), still unflipped."""
    board = replace(ctx.dashboard, sisu=frozenset({"gravel", "asphalt", "snow"}))
    return replace(ctx, dashboard=board, car=replace(ctx.car, sisu_token=True))


def test_loc_7_sisu_token_cancels_danger_results_but_not_track_elements():
    # rule: LOC-7
    ctx = with_sisu(position(STAGE, space="2:1.1L", gear=2))
    plan = plan_to(ctx, ("2:1.2L", "G3"), ("2:1.3L", "G4"), ("3:1.1L", "G5"))
    out = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([True, True, True]), table=table_with("spin"))
    assert not out.lost_control and not out.car.sisu_token
    corner = with_sisu(position(STAGE, space="3:1.1L", gear=4))
    out2 = resolve(
        corner,
        plan_to(corner, ("3:2.I1", "G5")),
        Mode.FLAT_OUT,
        Rolls([True]),
        table=table_with("spin"),
    )
    assert out2.lost_control


def test_loc_7_one_by_one_a_flipped_sisu_token_also_cancels_the_dangers_still_to_come():
    # rule: LOC-7 ("any and all danger results they have or will roll this turn"): rolling
    # one by one, three dangers reach the limit 3 and the token is flipped; the three
    # dangers that follow count for nothing either
    ctx = with_sisu(position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0))
    six = ("1:1.2L", "G1"), ("1:1.3L", "G2"), ("2:1.1L", "G3"), ("2:1.2L", "G4")
    plan = plan_to(ctx, *six, ("2:1.3L", "G5"), ("3:1.1L", "G6"))
    out = resolve(ctx, plan, Mode.ONE_BY_ONE, Rolls([True] * 6), table=table_with("spin"))
    assert [e.kind for e in out.events].count("sisu") == 1 and not out.car.sisu_token
    assert not out.lost_control and out.car.space == "3:1.1L" and out.car.gear == 6
    # without the token the third danger loses control on the third die
    plain = resolve(
        replace(ctx, car=replace(ctx.car, sisu_token=False)),
        plan,
        Mode.ONE_BY_ONE,
        Rolls([True] * 6),
        table=table_with("spin"),
    )
    assert plain.lost_control and plain.car.space == "2:1.1L"


def test_loc_7_the_token_works_where_its_column_does_and_not_on_a_car_without_one():
    # rule: LOC-7, DASH-3 (SISU in the right column works on the right token's surface only)
    ctx = position(STAGE, space="2:1.1L", gear=2)
    plan = plan_to(ctx, ("2:1.2L", "G3"), ("2:1.3L", "G4"), ("3:1.1L", "G5"))
    elsewhere = replace(
        ctx,
        dashboard=replace(ctx.dashboard, sisu=frozenset({"asphalt"})),
        car=replace(ctx.car, sisu_token=True),
    )
    no_token = replace(ctx, car=replace(ctx.car, sisu_token=True))  # a printed car has none
    for c in (elsewhere, no_token):
        for mode in Mode:
            out = resolve(c, plan, mode, Rolls([True] * 3), table=table_with("spin"))
            assert out.lost_control and "sisu" not in [e.kind for e in out.events]


def test_time_2_stage_time_is_cards_less_second_tokens():
    # rule: TIME-2
    ctx = position(STAGE, space="2:1.1L", gear=3)
    car = replace(ctx.car, time_seconds=95, second_tokens=7)
    assert stage_time(car) == 88


def test_damage_3_token_naming_a_missing_die_is_put_back():
    # rule: DAMAGE-3 (the dirt car has one brake die: a second brake token goes back)
    ctx = position(STAGE, space="3:1.1L", gear=6, damage=Damage(brake=1))
    plan = plan_to(ctx, ("3:2.I1", "G5"))
    table = replace(table_with("crash"), bag=(("brake", "ok"), ("gear", "ok")))
    out = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([False]), table=table)
    assert out.car.damage.brake == 1 and out.car.damage.gear >= 1
    assert ("brake", "ok") in out.table.bag  # the brake token went back into the bag


def test_damage_3_a_die_the_board_has_elsewhere_is_not_missing():
    # rule: DAMAGE-3 (a token naming a die "not present on your Dashboard" goes back): the
    # Unlimited car crashing on gravel has its only brake die in the asphalt column, so a
    # brake token stays on its board (and takes that die on asphalt)
    board = UnlimitedDashboard(
        ("gravel", "asphalt"),
        right=("brake",),
        left=("gear-1", "gear-2", "gear-3", "gear-4", "gear-5", "gear-6", "coast", "coast"),
    ).as_dashboard()
    assert board.column("gravel").brake == 0 and board.most("brake") == 1
    ctx = position(STAGE, space="3:1.1L", gear=6, car=board)
    table = replace(table_with("crash"), bag=(("brake", "ok"),))
    out = resolve(ctx, plan_to(ctx, ("3:2.I1", "G5")), Mode.FLAT_OUT, Rolls([False]), table=table)
    assert out.car.damage.brake == 1 and ("brake", "ok") not in out.table.bag


def test_dice_1_danger_faces():
    # rule: DICE-1
    p = RS.danger_probability
    assert [p("coast"), p("gear", 1), p("gear", 2)] == [1 / 6] * 3
    assert [p("gear", 3), p("gear", 6), p("leader"), p("brake"), p("boost")] == [2 / 6] * 5
    die = Die(DieKind.GEAR, 4)
    assert str(die) == "G4" and eval(repr(die), {"Die": Die}) == die  # repr rebuilds it


# --- CLIMB ------------------------------------------------------------------------------

CLIMB = ["202a", {"tile": "418a", "climb": "up"}, {"tile": "418b", "climb": "down"}, "203a"]


def test_climb_1_and_2_ascending_one_gear_below_descending_one_above():
    # rule: CLIMB-1, CLIMB-2
    up = position(CLIMB, space="2:1.1L", gear=3, car="r5")
    assert {d for _, d in firsts(up)} == {"G2", "C+Bo"}
    assert {d for _, d in firsts(position(CLIMB, space="2:1.1L", gear=3))} == {"G2"}
    down = position(CLIMB, space="3:1.1L", gear=3)
    assert {d for _, d in firsts(down)} == {"G4", "C+B"}
    assert {p.steps[0].dice[1].kind for p in plans(down) if len(p.steps[0].dice) == 2} == {
        DieKind.BRAKE
    }


def test_climb_3_no_plain_coast_brake_or_boost_on_a_climb_line():
    # rule: CLIMB-3
    up = position(CLIMB, space="2:1.1L", gear=5, car="r5")
    assert all(d in ("G4", "C+Bo") for _, d in firsts(up))


def test_climb_4_paired_dice_secured_together():
    # rule: CLIMB-4
    ctx = position(CLIMB, space="2:1.1L", gear=3, car="r5")
    plan = plan_to(ctx, ("2:1.2L", "C+Bo"))
    ctx.car = replace(ctx.car, second_tokens=3)

    class Secure(DefaultPolicy):
        def before_roll(self, view: RollView):  # type: ignore[no-untyped-def]
            return "secure"

    out = resolve(ctx, plan, Mode.ONE_BY_ONE, Rolls([]), table=table_with("spin"), policy=Secure())
    assert [e.value for e in out.events if e.kind == "secure"] == [3]


def test_climb_5_blocked_on_the_first_space_moves_one_space_free():
    # rule: CLIMB-5 (gear 1 ascending: no gear 0 die, no coast+boost for the dirt car)
    ctx = position(CLIMB, space="2:1.1L", gear=1)
    ps = plans(ctx)
    assert ps and all(len(p.steps) == 1 and p.steps[0].free for p in ps)
    out = resolve(ctx, ps[0], Mode.FLAT_OUT, Rolls([]), table=table_with("spin"))
    assert out.car.space == ps[0].steps[0].space and out.car.gear == 1


def test_climb_6_token_turns_a_tile_into_an_ascent_not_across_tile_edges():
    # rule: CLIMB-6
    tiles = ["202a", {"tile": "205a", "tokens": [{"token": "climb", "value": -1}]}, "203a"]
    entering = position(tiles, space="1:1.3L", gear=3)
    assert {d for _, d in firsts(entering)} >= {"G4", "C"}  # the tile edge is no climb line
    inside = position(tiles, space="2:1.1L", gear=3)
    assert {d for _, d in firsts(inside)} == {"G2"}


def test_climb_6_default_a_slides_dotted_line_is_no_climb_line():
    # rule: CLIMB-6 DEFAULT, CORNER-3: on 217a made an ascent by a climb token, the step
    # across the slide's dotted line (S1 to S2) takes the usual dice; out of the slide
    # into the corner is a climb line (one gear below)
    tiles = [
        "202a",
        {"tile": "217a", "turn": "left", "tokens": [{"token": "climb", "value": -1}]},
        "302a",
    ]
    on_slide = position(tiles, space="2:1.1S1", gear=3)
    assert {d for _, d in firsts(on_slide)} == {"G4", "G2", "G1+B", "C"}
    leaving = position(tiles, space="2:1.1S2", gear=3)
    assert {d for _, d in firsts(leaving)} == {"G2"}


def test_climb_7_oxygen_reduces_coast_dice():
    # rule: CLIMB-7
    tiles = ["202a", {"tile": "205a", "tokens": [{"token": "oxygen", "value": 2}]}, "203a"]
    ctx = position(tiles, space="1:1.3L", gear=3)
    assert not any(
        d.kind is DieKind.COAST
        for p in plans(ctx)
        for s in p.steps
        for d in s.dice
        if s.placed_on.startswith("2:")
    )
    one = ["202a", {"tile": "205a", "tokens": [{"token": "oxygen", "value": 1}]}, "203a"]
    assert (
        max(
            sum(1 for d in p.dice if d.kind is DieKind.COAST)
            for p in plans(position(one, space="1:1.3L", gear=3))
        )
        == 1
    )


def test_climb_8_cloud_adds_one_danger_once_per_turn():
    # rule: CLIMB-8
    tiles = ["202a", {"tile": "205a", "tokens": [{"token": "cloud"}]}, "203a"]
    ctx = position(tiles, space="1:1.3L", gear=2)
    plan = plan_to(ctx, ("2:1.1L", "G3"), ("2:1.2L", "G4"))
    assert [s.cloud for s in plan.steps] == [True, False]
    # two dangers rolled + the cloud reach the limit of 3
    out = resolve(ctx, plan, Mode.FLAT_OUT, Rolls([True, True]), table=table_with("spin"))
    assert out.lost_control
    assert flat_out_risk(ctx, plan) == pytest.approx((2 / 6) * (2 / 6))  # both dice


# --- DASH -------------------------------------------------------------------------------


def test_dash_1_default_car():
    # rule: DASH-1
    board = dashboard("dirt")
    for surface, limit in (("gravel", 3), ("asphalt", 3), ("snow", 2)):
        col = board.column(surface)
        assert (col.gears, col.brake, col.coast, col.danger_limit) == (
            [1, 2, 3, 4, 5, 6],
            1,
            2,
            limit,
        )


def test_dash_3_unlimited_columns_by_surface_rank():
    # rule: DASH-3
    board = UnlimitedDashboard(
        ("snow", "asphalt", "gravel"),
        left=("gear-1", "gear-2", "gear-3", "gear-4", "coast"),
        middle=("gear-5", "brake"),
        right=("gear-6", "boost"),
    )
    assert board.column("gravel").gears == [1, 2, 3, 4, 5, 6]
    assert board.column("asphalt").gears == [1, 2, 3, 4, 5] and board.column("asphalt").boost == 0
    assert board.column("snow").gears == [1, 2, 3, 4] and board.column("snow").brake == 0
    assert check_unlimited(board, ["gravel", "snow", "asphalt"]) == []
    assert check_unlimited(board, ["gravel"])  # tokens for surfaces the stage lacks


def test_dash_4_empty_spaces_raise_the_danger_limit_and_equipment():
    # rule: DASH-4
    light = UnlimitedDashboard(("gravel",), left=("gear-1", "gear-2", "gear-3"))
    assert light.empty_spaces() == 17 - 1 - 3
    assert light.column("gravel").danger_limit == 1 + 13
    tyres = UnlimitedDashboard(("gravel",), left=("gear-1", "tyres", "sisu")).as_dashboard()
    assert tyres.puncture_proof == tyres.sisu == {"gravel"} and tyres.leader_surfaces == {"gravel"}
    assert check_unlimited(UnlimitedDashboard(("gravel",), left=("gear-9",)), ["gravel"])


UNLIMITED_GEARS = ("gear-1", "gear-2", "gear-3", "gear-4", "gear-5", "gear-6")


def test_dash_4_puncture_proof_tyres_put_back_a_shortcut_coast_token_where_they_work():
    # rule: DASH-4, SHORTCUT-2, DASH-3 (tyres in the right column work on its surface only)
    def through_the_shortcut(board: UnlimitedDashboard) -> tuple[int, tuple[tuple[str, str], ...]]:
        ctx = position(STAGE, space="3:1.1L", gear=2, car=board.as_dashboard())
        table = replace(table_with("spin"), bag=(("coast", "coast"),))
        out = resolve(
            ctx, plan_to(ctx, ("3:X1.1", "G3")), Mode.FLAT_OUT, Rolls([False]), table=table
        )
        return out.car.damage.coast, out.table.bag

    everywhere = UnlimitedDashboard(("gravel",), left=(*UNLIMITED_GEARS, "coast", "tyres"))
    assert through_the_shortcut(everywhere) == (0, (("coast", "coast"),))  # back in the bag
    elsewhere = UnlimitedDashboard(
        ("gravel", "asphalt"), right=("tyres",), left=(*UNLIMITED_GEARS, "coast")
    )
    assert elsewhere.as_dashboard().puncture_proof == {"asphalt"}
    assert through_the_shortcut(elsewhere) == (1, ())  # gravel: the coast die is lost


def test_move_3_an_unlimited_car_takes_leader_dice_on_gravel_only():
    # rule: MOVE-3 (on an Unlimited dashboard the leader swap only happens on gravel)
    board = UnlimitedDashboard(
        ("asphalt", "gravel"), left=(*UNLIMITED_GEARS, "brake", "coast", "coast")
    ).as_dashboard()
    gravel = position(STAGE, space="2:1.1L", gear=3, car=board, leader=True)
    assert {d for _, d in firsts(gravel)} >= {"L"} and "C" not in {d for _, d in firsts(gravel)}
    asphalt = position(["301a", "305a", "302a"], space="1:1.2L", gear=3, car=board, leader=True)
    assert "C" in {d for _, d in firsts(asphalt)} and "L" not in {d for _, d in firsts(asphalt)}
    printed = position(["301a", "305a", "302a"], space="1:1.2L", gear=3, leader=True)
    assert "L" in {d for _, d in firsts(printed)}  # a printed car leads on every surface


# --- API --------------------------------------------------------------------------------


def test_same_seed_replays_the_same_turn_and_state_is_cheap_to_copy():
    ctx = position(STAGE, space="2:1.1L", gear=2)
    plan = plan_to(ctx, ("2:1.2L", "G3"), ("2:1.3L", "G4"), ("3:1.1L", "G5"))
    runs = []
    for _ in range(2):
        rng = random.Random(42)
        out = resolve(ctx, plan, Mode.FLAT_OUT, rng, table=new_table(RS, rng))
        runs.append((out.car, out.events, out.table))
    assert runs[0] == runs[1]
    moved = replace(ctx.car, gear=4)
    assert moved.gear == 4 and ctx.car.gear == 2  # frozen state: copies, never mutation


def test_plans_after_a_prefix_are_exactly_its_legal_continuations():
    ctx = position(STAGE, space="2:1.1L", gear=2)
    prefix = plan_to(ctx, ("2:1.2L", "G3"), ("2:1.3L", "G4")).steps
    grown = {str(p) for p in legal_plans(ctx, max_steps=3, after=prefix)}
    expected = {str(p) for p in plans(ctx, 3) if p.steps[:2] == prefix and len(p.steps) == 3}
    assert grown == expected and len(grown) > 3
