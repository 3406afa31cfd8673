"""Rallyman: GT races: every GT rule of the engine and the race, cited by id.

Positions are taken on the example circuit ``examples/gt-core-circuit.yaml`` (tile 1 the
start/finish straight 102a, tile 2 the hairpin 107a, limit 1 with a warning sign on its
dotted lines, tile 4 the hairpin 111a with dotted lines of 1, tile 11 the bend 117a whose
outer lanes' 4 is in a warning triangle) and on the Rekee figure of eight.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.rules import (
    CarState,
    Damage,
    Mode,
    PlanBuilder,
    ScriptedDice,
    dashboard,
    legal_plans,
    load_ruleset,
    new_table,
    play_order,
    position,
    resolve,
)
from trackkit.rules.plans import GtTurn, Plan, PlanContext
from trackkit.rules.resolve import DefaultPolicy, RollView
from trackkit.rules.track import Track
from trackkit.sim.gt_race import GtOptions, tyre_boards
from trackkit.sim.race import DriverSpec, RacePosition, Settings, prepare, run_race
from trackkit.sim.script import Script
from trackkit.sim.stats import run_many

REPO = Path(__file__).resolve().parents[1]
GT = load_ruleset("gt")


def _track(name: str) -> Track:
    report = validate(load_stage(REPO / "examples" / name))
    return Track.from_graph(report.graph, report.layout)


CORE = _track("gt-core-circuit.yaml")
EIGHT = _track("gt-figure-eight.rekee.json")


def _at(space: str, gear: int, **kw: object) -> PlanContext:
    return position(CORE, space=space, gear=gear, car="gt6", ruleset=GT, **kw)  # type: ignore[arg-type]


def _options(ctx: PlanContext, after: tuple[str, ...] = ()) -> dict[str, object]:
    """The next steps after the steps named (each ``space dice``), by their text."""
    builder = PlanBuilder(ctx)
    for text in after:
        builder.push(next(s for s in builder.options() if str(s).startswith(text)))
    return {str(s): s for s in builder.options()}


def _plan(ctx: PlanContext, text: str) -> Plan:
    return next(p for p in legal_plans(ctx) if str(p) == text)


# --- data (DASH-2, DAMAGE-4, LOC-6, GT-3) ---------------------------------------------


def test_dash_2_the_three_gt_cars():
    # rule: DASH-2 (GT-4: gears 1-4, 3 coast, 3 brake; GT-5: 1-5, 2 coast, 3 brake, a boost;
    # GT-6: 1-6, 2 coast, 3 brake), the same column on every surface, limit 3
    want = {
        "gt4": ([1, 2, 3, 4], 3, 3, 0),
        "gt5": ([1, 2, 3, 4, 5], 2, 3, 1),
        "gt6": ([1, 2, 3, 4, 5, 6], 2, 3, 0),
    }
    for car, (gears, coast, brake, boost) in want.items():
        board = dashboard(car, GT)
        for column in board.columns.values():
            assert (column.gears, column.coast, column.brake, column.boost) == (
                gears,
                coast,
                brake,
                boost,
            )
            assert column.danger_limit == 3
    assert GT.gt is not None and GT.gt.car == "gt6"


def test_damage_4_default_bag_of_42_gt_tokens():
    # rule: DAMAGE-4 (DEFAULT: 6 each of gear, brake, coast, weather, yellow flag; 12 green)
    bag = Counter(kind for kind, _ in new_table(GT, random.Random(1)).bag)
    assert bag == {
        "gear": 6,
        "brake": 6,
        "coast": 6,
        "weather": 6,
        "yellow": 6,
        "green": 12,
    }


def test_loc_6_default_table_by_gear_and_danger():
    # rule: LOC-6 (DEFAULT: slow and safe, gear 0; fast or dangerous, gear 00 and damage)
    assert GT.gt is not None
    table = GT.gt.loss_of_control
    assert (table[1]["low"].gear, table[1]["low"].damage) == ("0", 0)
    assert (table[4]["low"].gear, table[4]["low"].damage) == ("00", 1)
    assert (table[6]["high"].gear, table[6]["high"].damage) == ("00", 3)
    for gear in range(1, 7):  # more danger never costs less
        row = table[gear]
        assert row["low"].damage <= row["medium"].damage <= row["high"].damage


def test_gt_3_default_wrong_tyres_cost_a_coast_die_and_a_danger_point():
    # rule: GT-3 (DEFAULT: tyres that do not suit the weather: coast -1, danger limit -1)
    boards = tyre_boards(prepare(CORE), "gt6")
    right, wrong = boards["right"].column("asphalt"), boards["wrong"].column("asphalt")
    assert (right.coast, right.danger_limit) == (2, 3)
    assert (wrong.coast, wrong.danger_limit) == (1, 2)


# --- the GT turn ------------------------------------------------------------------------


def _four_dice() -> tuple[PlanContext, Plan]:
    """Four dice down the start/finish straight: G3, G4, G2 with a brake (MOVE-4)."""
    ctx = _at("1:A2d", 2)
    return ctx, _plan(ctx, "1:A2c G3 > 1:A2b G4 > 1:A2a G2+B")


def _roll(ctx: PlanContext, plan: Plan, mode: Mode, dice: list[str], **kw: object) -> object:
    rng = random.Random(1)
    table = kw.pop("table", None) or new_table(ctx.ruleset, rng)
    return resolve(ctx, plan, mode, rng, table=table, dice=ScriptedDice(dice), **kw)  # type: ignore[arg-type]


def test_turn_6_gt_control_is_lost_over_the_limit_not_on_reaching_it():
    # rule: TURN-6 (GT: three dangers with a limit of 3 keep control, a fourth loses it)
    ctx, plan = _four_dice()
    for mode in Mode:
        three = _roll(ctx, plan, mode, ["danger", "danger", "danger", "safe"])
        assert not three.lost_control and three.car.space == "1:A2a"  # type: ignore[attr-defined]
        four = _roll(ctx, plan, mode, ["danger"] * 4)
        assert four.lost_control  # type: ignore[attr-defined]
    # the same throw under DIRT's rule (reaching the limit) would lose control
    reach = replace(ctx, ruleset=GT.model_copy(update={"danger_limit_rule": "reach"}))
    assert _roll(reach, plan, Mode.FLAT_OUT, ["danger", "danger", "danger", "safe"]).lost_control  # type: ignore[attr-defined]


def test_move_3_gt_has_no_leader_dice():
    # rule: MOVE-3 (GT: white coast dice only, whoever leads the round)
    ctx = replace(_at("1:A2c", 2), leader=True)
    assert "1:A2b C" in _options(ctx)
    assert not any(s.endswith(" L") for s in _options(ctx))
    result = run_race(prepare(CORE), Settings.default(4, gt=GtOptions(laps=1)), seed=2)
    assert result.log and not any(
        "L" in s.dice_label.split("+") for t in result.log for s in t.steps
    )


def test_corner_4_a_straight_step_over_a_dotted_line_above_its_number_loses_control():
    # rule: CORNER-4 (111a's dotted line of 1: straight over it at 2 loses control, at 1
    # it does not; the diagonal over it is always safe)
    over = next(s for s in _options(_at("3:A2b", 1)).values() if s.space == "4:A12a")
    assert (over.speed, over.loc) == (2, "sharp")
    safe = [s for s in _options(_at("3:A2b", 2)).values() if s.space == "4:A12a" and s.speed == 1]
    assert safe and safe[0].loc is None
    diagonal = [s for s in _options(_at("3:A1b", 1)).values() if s.space == "4:A12a"]
    assert diagonal and diagonal[0].speed == 2 and diagonal[0].loc is None


def test_corner_4_a_warning_sign_on_the_line_adds_a_danger_and_diagonals_do_not():
    # rule: CORNER-4 (107a: a warning sign on the dotted line: one danger result crossing it)
    sign = next(s for s in _options(_at("1:A2a", 1)).values() if s.space == "2:A12a")
    assert sign.hazards == 1
    diagonal = next(s for s in _options(_at("1:A1a", 1)).values() if s.space == "2:A12a")
    assert diagonal.hazards == 0


def test_corner_5_a_triangle_adds_a_danger_in_exactly_its_gear():
    # rule: CORNER-5 (117a's outer 4 in a triangle: a danger at 4, none at 3, over it at 5)
    by_speed = {s.speed: s for s in _options(_at("11:A2a", 4)).values() if s.space == "11:A23b"}
    by_speed |= {s.speed: s for s in _options(_at("11:A2a", 3)).values() if s.space == "11:A23b"}
    assert by_speed[3].hazards == 0 and by_speed[3].loc is None
    assert by_speed[4].hazards == 1 and by_speed[4].loc is None
    fast = [s for s in _options(_at("11:A2a", 4)).values() if s.space == "11:A23b" and s.speed == 5]
    assert fast and fast[0].loc == "corner"  # CORNER-1: over the limit


def test_corner_4_and_5_automatic_dangers_count_against_the_limit():
    # rule: CORNER-4 (three dice dangers and the warning sign's: 4 > 3, control is lost)
    ctx = _at("1:A2c", 0)
    plan = _plan(ctx, "1:A2b G1 > 1:A2a C > 2:A12a C")
    assert plan.steps[-1].hazards == 1
    rng = random.Random(3)
    out = resolve(
        ctx,
        plan,
        Mode.ONE_BY_ONE,
        rng,
        table=new_table(GT, rng),
        dice=ScriptedDice(["danger", "danger", "danger"]),
    )
    assert out.lost_control
    rng = random.Random(3)
    out = resolve(
        ctx,
        plan,
        Mode.ONE_BY_ONE,
        rng,
        table=new_table(GT, rng),
        dice=ScriptedDice(["danger", "danger", "safe"]),
    )
    assert not out.lost_control and out.car.space == "2:A12a"


def test_turn_4_gt_flat_out_re_routes_the_dice_to_keep_control():
    # rule: TURN-4 (GT: the thrown dice take another route: the diagonal into the hairpin
    # has no warning sign, so the same three dangers stay within the limit)
    ctx = _at("1:A2c", 0)
    plan = _plan(ctx, "1:A2b G1 > 1:A2a C > 2:A12a C")
    rng = random.Random(3)
    out = resolve(
        ctx,
        plan,
        Mode.FLAT_OUT,
        rng,
        table=new_table(GT, rng),
        dice=ScriptedDice(["danger", "danger", "danger"]),
    )
    assert not out.lost_control
    route = [e for e in out.events if e.kind == "reroute"]
    assert route and out.car.space == "2:A12a"
    assert "1:A1a C > 2:A12a C" in (route[0].note or "")  # the diagonal into the hairpin
    assert out.car.second_tokens == 3  # GT-5: a focus token per gear or coast die


def test_turn_4_gt_no_route_keeps_control_then_it_is_lost_on_the_furthest_space():
    # rule: TURN-4 (four dangers: no route of the dice helps; the loss comes as far down the
    # road as the dice allow, DEFAULT; GT-5: the focus tokens are earned all the same)
    ctx, plan = _four_dice()
    out = _roll(ctx, plan, Mode.FLAT_OUT, ["danger"] * 4)
    assert out.lost_control and out.car.space == "1:A2a"  # type: ignore[attr-defined]
    assert not [e for e in out.events if e.kind == "reroute"]  # type: ignore[attr-defined]
    assert out.car.second_tokens == 3  # type: ignore[attr-defined]  # G3, G4, G2; not the brake


def test_gt_1_flying_start_shifts_from_0_to_2_and_a_danger_ends_the_turn():
    # rule: GT-1 (gear 0 -> 2 without a boost die; a danger on the 2: one space, gear 2)
    ctx = _at("1:A2c", 0)
    assert _options(ctx)["1:A2b G2"].flying
    assert "1:A2b G2" not in _options(replace(ctx, gt=GtTurn(flying=False)))
    plan = _plan(ctx, "1:A2b G2 > 1:A2a G3")
    for mode, dice in ((Mode.FLAT_OUT, ["danger", "danger"]), (Mode.ONE_BY_ONE, ["danger"])):
        out = _roll(ctx, plan, mode, dice)
        assert (out.car.space, out.car.gear, out.lost_control) == ("1:A2b", 2, False)  # type: ignore[attr-defined]
        assert any(e.kind == "flying-start" for e in out.events)  # type: ignore[attr-defined]
    out = _roll(ctx, plan, Mode.FLAT_OUT, ["safe", "danger"])
    assert (out.car.space, out.car.gear) == ("1:A2a", 3)  # type: ignore[attr-defined]


def test_gt_1_flat_out_a_loss_of_control_with_the_flying_start_danger_is_ignored():
    # rule: GT-1 (flat out: the 2 shows danger and the dice would exceed the limit: no loss)
    ctx = _at("1:A2d", 0)
    plan = next(p for p in legal_plans(ctx) if p.steps[0].flying and len(p.steps) == 4)
    rng = random.Random(5)
    out = resolve(
        ctx,
        plan,
        Mode.FLAT_OUT,
        rng,
        table=new_table(GT, rng),
        dice=ScriptedDice(["danger"] * len(plan.dice)),
    )
    assert not out.lost_control and out.car.space == plan.steps[0].space and out.car.gear == 2


class _Secure(DefaultPolicy):
    def before_roll(self, view: RollView) -> str:  # type: ignore[override]
        return "secure"


def test_gt_5_focus_tokens_are_won_flat_out_and_secure_dice_at_a_rising_price():
    # rule: GT-5 (one per gear or coast die, none for brake dice; securing costs 1, 2, 3)
    ctx = _at("1:A2d", 4)
    plan = next(p for p in legal_plans(ctx) if [d.label for d in p.dice] == ["G3", "G1", "B", "C"])
    rng = random.Random(2)
    out = resolve(
        ctx, plan, Mode.FLAT_OUT, rng, table=new_table(GT, rng), dice=ScriptedDice(["safe"] * 4)
    )
    assert out.car.second_tokens == 3
    ctx = _at("1:A2d", 2, second_tokens=6)
    plan = _plan(ctx, "1:A2c G3 > 1:A2b G4 > 1:A2a C")
    rng = random.Random(2)
    out = resolve(
        ctx,
        plan,
        Mode.ONE_BY_ONE,
        rng,
        table=new_table(GT, rng),
        policy=_Secure(),
        dice=ScriptedDice([]),
    )
    assert out.car.second_tokens == 0 and [e.value for e in out.events if e.kind == "secure"] == [
        1,
        2,
        3,
    ]


def test_traffic_5_no_overtaking_nor_coming_alongside_under_a_yellow_flag():
    # rule: TRAFFIC-5, GT-4 (a yellow flag out: no step beside a car, none level or past it)
    others = [("1:A2a", 2)]
    beside = CORE.beside["1:A2a"]
    ahead = CORE.gain("1:A2c", "1:A2a")
    free = list(legal_plans(_at("1:A2c", 3, others=others)))
    flagged = list(legal_plans(_at("1:A2c", 3, others=others, gt=GtTurn(yellow=True))))
    assert any(s.space in beside for p in free for s in p.steps)
    assert any(CORE.gain("1:A2c", p.end or "") > ahead for p in free)
    assert flagged and not any(s.space in beside for p in flagged for s in p.steps)
    assert not any(CORE.gain("1:A2c", p.end or "") >= ahead - 1e-6 for p in flagged)


def test_traffic_1_gt_coming_beside_a_car_takes_a_gear_at_least_its_gear():
    # rule: TRAFFIC-1 (GT too: beside a car in gear 4 only with a gear die of 4 or more)
    ctx = _at("1:A2c", 3, others=[("1:A1b", 4)])
    steps = _options(ctx)
    assert "1:A2b G4" in steps and "1:A2b G2" not in steps


def test_turn_2_gt_order_speed_then_distance_with_laps_then_inner_lane():
    # rule: TURN-2 (GT: the faster car first, then the one further along the race)
    a = CarState(0, "3:A1a", 3, crossings=1)
    b = CarState(1, "1:A2c", 4, crossings=0)  # on the grid, behind: but faster
    c = CarState(2, "2:A3a", 3, crossings=2)  # a lap ahead of a
    order = [car.car_id for car in play_order([a, b, c], CORE, GT)]
    assert order == [1, 2, 0]
    dirt = [car.car_id for car in play_order([a, b, c], CORE, load_ruleset("dirt"))]
    assert dirt != order  # DIRT: distance first (and no laps)


# --- the race -----------------------------------------------------------------------


def _race(players: int = 6, seed: int = 1, **kw: object) -> object:
    settings = Settings.default(
        players, bots=("cautious", "aggressive", "planner"), gt=GtOptions(**kw)
    )  # type: ignore[arg-type]
    return run_race(prepare(CORE), settings, seed)


def test_turn_2_white_and_black_rounds_each_car_plays_once_in_gt_order():
    # rule: TURN-2 (every round each car still racing plays once, fastest first: a car's
    # gear changes only in its own turn, so the gears the turns begin in never rise)
    settings = Settings.default(6, bots=("cautious", "aggressive", "planner"), gt=GtOptions())
    result = run_race(prepare(CORE), settings, 4)
    assert result.gt is not None and len(result.gt.order) == 6
    by_round: dict[int, list[tuple[int, int]]] = {}
    for t in result.log:
        by_round.setdefault(t.round, []).append((t.driver, t.gear))
    racing = 6
    for rnd in sorted(by_round):
        turns = by_round[rnd]
        drivers = [d for d, _ in turns]
        assert len(drivers) == len(set(drivers)) == racing
        gears = [g for _, g in turns]
        assert gears == sorted(gears, reverse=True)
        racing -= sum(1 for i in result.gt.order if result.gt.finish_round[i] == rnd)


def test_board_3_gt_race_over_laps_finishing_order_and_laps_led():
    # rule: BOARD-3 (over the line after the last lap: done; the first over wins)
    result = _race(6, seed=3, laps=2)
    gt = result.gt  # type: ignore[attr-defined]
    assert sorted(gt.order) == list(range(6))
    rounds = [gt.finish_round[i] for i in gt.order]
    assert rounds == sorted(rounds)
    assert gt.gaps()[gt.order[0]] == 0 and len(gt.lap_leaders) == 2
    assert sum(gt.laps_led) == 2 and gt.laps_led[gt.lap_leaders[0]] >= 1
    laps = [e for t in result.log if t.driver == gt.order[0] for e in t.events if e.kind == "lap"]  # type: ignore[attr-defined]
    assert len(laps) == 3  # from the grid, and twice more


def test_board_3_default_the_grid_is_drawn_by_the_seed_or_given():
    # rule: BOARD-3 (DEFAULT: the cars start on the grid slots, pole first, in an order the
    # seed draws; --grid given: driver 1 on pole)
    given = _race(6, seed=1, laps=1, grid="given").gt  # type: ignore[attr-defined]
    assert given.grid == [0, 1, 2, 3, 4, 5]
    drawn = {tuple(_race(6, seed=s, laps=1).gt.grid) for s in range(4)}  # type: ignore[attr-defined]
    assert len(drawn) > 1
    first = run_race(prepare(CORE), Settings.default(3, gt=GtOptions(laps=1, grid="given")), 1)
    assert first.log[0].start in CORE.start[:3]


def test_loc_6_gear_00_sits_out_a_turn_and_comes_back_in_gear_0():
    # rule: LOC-6 (00: off the road, out for its next turn, back in gear 0; 0: stays there)
    seen_00 = seen_0 = 0
    for seed in range(1, 12):
        result = _race(6, seed=seed, laps=2)
        by_driver: dict[int, list[object]] = {}
        for t in result.log:  # type: ignore[attr-defined]
            by_driver.setdefault(t.driver, []).append(t)
        for turns in by_driver.values():
            for k, t in enumerate(turns[:-1]):
                gear = [e.note for e in t.events if e.kind == "gear"]
                if gear == ["00"]:
                    seen_00 += 1
                    nxt = turns[k + 1]
                    assert nxt.plan.startswith("(gear 00") or nxt.plan.startswith("(off")
                elif gear == ["0"]:
                    seen_0 += 1
                    nxt = turns[k + 1]
                    loc = next(e for e in t.events if e.kind == "loss-of-control")
                    assert nxt.start == loc.space and nxt.gear == 0
        if seen_00 and seen_0:
            break
    assert seen_00 and seen_0


def test_loc_6_damage_tokens_by_the_table():
    # rule: LOC-6 (lost in gear 5 on a low-danger tile: gear 00, off the road, and two damage
    # tokens, DAMAGE-4; a bag of gear tokens only: the car loses two gear dice)
    ctx = _at("1:A2d", 5)
    plan = _plan(ctx, "1:A2c G3+B > 1:A2b G4 > 1:A2a G5")
    rng = random.Random(1)
    table = new_table(GT, rng).with_bag([("gear", "")] * 5)
    out = _roll(ctx, plan, Mode.ONE_BY_ONE, ["danger"] * 4, table=table)
    assert out.lost_control and out.car.space == "1:A2a"  # type: ignore[attr-defined]
    assert [e.note for e in out.events if e.kind == "gear"] == ["00"]  # type: ignore[attr-defined]
    assert not out.car.on_track and out.car.gear == 0 and out.car.damage.gear == 2  # type: ignore[attr-defined]
    slow = _roll(*_four_dice(), Mode.ONE_BY_ONE, ["danger"] * 4)  # lost in gear 2: gear 0
    assert [e.note for e in slow.events if e.kind == "gear"] == ["0"]  # type: ignore[attr-defined]
    assert slow.car.on_track and slow.car.damage == Damage()  # type: ignore[attr-defined]


def test_gt_4_a_yellow_flag_comes_down_at_its_cars_next_move():
    # rule: GT-4 (the flag is out from the damage token to the drawer's next move)
    found = 0
    for seed in range(1, 20):
        result = _race(6, seed=seed, laps=2)
        log = result.log  # type: ignore[attr-defined]
        for k, t in enumerate(log):
            if any(e.kind == "yellow-flag" and e.note == "out" for e in t.events):
                later = [u for u in log[k + 1 :] if u.driver == t.driver and u.plan[:1] != "("]
                if later:
                    assert any(
                        e.kind == "yellow-flag" and e.note == "down" for e in later[0].events
                    )
                    found += 1
        if found:
            break
    assert found


def test_gt_3_a_weather_token_turns_the_weather_and_wrong_tyres_cost_a_danger_point():
    # rule: GT-3 (the weather turns; cars on dry tyres in the rain drive with limit 2)
    for seed in range(1, 30):
        result = _race(6, seed=seed, laps=3)
        gt = result.gt  # type: ignore[attr-defined]
        if gt.weather:
            rnd, _drawer, now = gt.weather[0]
            assert now == "rain"
            after = [t for t in result.log if t.round > rnd + 1 and t.steps]  # type: ignore[attr-defined]
            assert any(s.limit == 2 for t in after for s in t.steps)
            return
    pytest.fail("no weather change in 30 races")


def test_gt_2_a_damaged_car_in_first_gear_on_a_pit_space_pits_and_is_repaired():
    # rule: GT-2 (first gear on a pit space: repairs put it in gear 00, off the road; then 0;
    # then it drives off from its pit space)
    start = RacePosition((CarState(0, "4:A3b", 1, damage=Damage(brake=1)),), round=5)
    me = DriverSpec("me", car="gt6", bot=Script.of(["4:A3a C"], then="cautious"))
    settings = Settings((me, DriverSpec("you", car="gt6")), gt=GtOptions(laps=1))
    result = run_race(prepare(CORE), settings, 7, start=start)
    gt = result.gt
    assert gt is not None and gt.pit_stops
    stop = gt.pit_stops[0]
    assert (stop.driver, stop.space, stop.repair) == (0, "4:A3a", True)
    mine = [t for t in result.log if t.driver == 0]
    assert mine[1].plan == "(pit: gear 00 to 0)"
    assert mine[2].start == "4:A3a" and mine[2].gear == 0 and mine[2].steps
    assert result.drivers[0].finished


def test_gt_race_is_the_same_for_a_seed_and_with_any_jobs():
    settings = Settings.default(6, bots=("cautious", "aggressive", "planner"), gt=GtOptions(laps=1))
    one = run_many(prepare(CORE), settings, races=4, seed=11, jobs=1)
    two = run_many(prepare(CORE), settings, races=4, seed=11, jobs=2)
    assert one == two
    assert run_race(prepare(CORE), settings, 5).log == run_race(prepare(CORE), settings, 5).log


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_rekee_gt_circuit_races_to_the_finish_for_2_to_6_cars(players: int):
    settings = Settings.default(players, bots=("cautious", "aggressive", "planner"), gt=GtOptions())
    for seed in (1, 2):
        result = run_race(prepare(EIGHT), settings, seed)
        assert result.gt is not None
        assert sorted(result.gt.order) == list(range(players))
        assert all(d.finished for d in result.drivers)


# --- the command line -------------------------------------------------------------------

runner = CliRunner()


def test_simulate_a_gt_track_json_laps_weather_cars(tmp_path: Path):
    out = runner.invoke(
        app,
        [
            "simulate",
            str(REPO / "examples/gt-core-circuit.yaml"),
            "--players",
            "3",
            "--races",
            "3",
            "--laps",
            "1",
            "--weather",
            "rain",
            "--car",
            "gt4",
            "--car",
            "gt5",
            "--format",
            "json",
            "--replay",
            str(tmp_path / "race.json"),
        ],
    )
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["settings"]["laps"] == 1 and doc["settings"]["weather"] == "rain"
    assert doc["settings"]["cars"] == ["gt4", "gt5", "gt4"]
    assert set(doc["wins_by_grid_slot"]) == {"1", "2", "3"}
    assert sum(doc["wins_by_grid_slot"].values()) == 3
    assert "by_space" in doc["overtakes"] and "by_space" in doc["loss_of_control"]
    replayed = runner.invoke(app, ["replay", str(tmp_path / "race.json")])
    assert replayed.exit_code == 0 and "every event matches" in replayed.output


def test_simulate_refuses_gt_options_on_dirt_and_dirt_cars_on_gt():
    dirt = runner.invoke(
        app, ["simulate", str(REPO / "examples/col-de-turini.yaml"), "--laps", "2"]
    )
    assert dirt.exit_code == 2 and "--laps" in dirt.output
    gt = runner.invoke(
        app, ["simulate", str(REPO / "examples/gt-core-circuit.yaml"), "--car", "r5"]
    )
    assert gt.exit_code == 2 and "--car" in gt.output
    weather = runner.invoke(
        app, ["simulate", str(REPO / "examples/gt-core-circuit.yaml"), "--weather", "snow"]
    )
    assert weather.exit_code == 2 and "--weather" in weather.output
