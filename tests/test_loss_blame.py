"""Where a loss of control is charged: to the step that broke the danger limit (one rule for
both series, reach and exceed), which is not always where the car stopped.
"""

from __future__ import annotations

import random

from stagekit import (
    example_track,
)

from trackkit.rules import (
    CarState,
    Mode,
    Ruleset,
    ScriptedDice,
    legal_plans,
    load_ruleset,
    new_table,
    position,
    resolve,
)
from trackkit.rules.blame import loss_space
from trackkit.rules.plans import Plan
from trackkit.rules.track import Track
from trackkit.sim import DriverSpec, RacePosition, Script, Settings, prepare, run_race
from trackkit.sim.gt_race import GtOptions
from trackkit.sim.stats import race_seed

GT = load_ruleset("gt")


# --- losses of control are charged where the limit broke ------------------------------------

#: Col de Turini's finish: 203a is tile 12, its line between rows 2 and 3 (12:1.3 is past it).
FINISHING = "11:1.2L G4 > 12:1.1L G5 > 12:1.2L G6 > 12:1.3L L"  # L: alone, it leads


def _finish_turn(dice: list[str]) -> tuple[list[tuple[int, str]], str | None, bool]:
    """A car on 11:1.1L in gear 3 throws FINISHING flat out with ``dice``: its losses as
    the race charges them, the loss event's space and whether it finished."""
    track = example_track("col-de-turini.yaml")
    me = DriverSpec("me", bot=Script.of([FINISHING], then="cautious"))
    result = run_race(
        prepare(track),
        Settings((me,)),
        seed=1,
        start=RacePosition((CarState(0, "11:1.1L", 3),)),
        dice=ScriptedDice(dice),
    )
    turn = result.log[0]
    assert turn.plan == FINISHING
    loss = next((e for e in turn.events if e.kind == "loss-of-control"), None)
    return result.drivers[0].losses, loss.space if loss else None, result.drivers[0].finished


def test_a_dirt_flat_out_loss_is_charged_where_the_limit_broke_not_past_the_finish_line():
    # rule: TURN-4 (DIRT, flat out: the dice are placed again and control is lost on the
    # furthest step they allow, DEFAULT), TURN-6 (DIRT: reaching the limit of 3),
    # LOC-1..4 DEFAULT (a loss on the move over the finish line: the car finishes)
    losses, event, finished = _finish_turn(["danger", "danger", "danger", "safe"])
    assert finished and event == "12:1.3L"  # the car rolled over the line, out of control
    assert losses == [(12, "12:1.2L")]  # the third danger, on 12:1.2L, reached the limit
    # the die on the space past the line broke the limit: charged there, where it happened
    losses, event, finished = _finish_turn(["danger", "danger", "safe", "danger"])
    assert finished and losses == [(12, "12:1.3L")] and event == "12:1.3L"


def test_loss_space_is_one_rule_for_dirt_and_gt_reach_and_exceed():
    # rule: TURN-6 (DIRT reaches the limit, GT exceeds it), LOC-7 (SISU cancels the dice)
    from trackkit.rules.ruleset import load_ruleset

    ctx = position(["202a", "205a", "206a", "204a", "203a"], space="2:1.1L", gear=3)
    plan = next(
        p for p in legal_plans(ctx) if str(p) == "2:1.2L G4 > 2:1.3L G5 > 3:1.1L G6 > 3:1.2L C"
    )
    rng = random.Random(1)
    dice = ["danger", "danger", "danger", "danger"]
    out = resolve(
        ctx, plan, Mode.FLAT_OUT, rng, table=new_table(ctx.ruleset, rng), dice=ScriptedDice(dice)
    )
    assert out.lost_control and out.car.space == "3:1.2L"
    assert loss_space(ctx.ruleset, plan, Mode.FLAT_OUT, out.events) == "3:1.1L"  # 3 reached
    exceed = load_ruleset("dirt").model_copy(update={"danger_limit_rule": "exceed"})
    assert loss_space(exceed, plan, Mode.FLAT_OUT, out.events) == "3:1.2L"  # 4 > 3
    # one by one, control is lost on the die that reached the limit: charged there
    one = resolve(
        ctx, plan, Mode.ONE_BY_ONE, rng, table=new_table(ctx.ruleset, rng), dice=ScriptedDice(dice)
    )
    assert one.lost_control and one.car.space == "3:1.1L"
    assert loss_space(ctx.ruleset, plan, Mode.ONE_BY_ONE, one.events) == "3:1.1L"
    assert loss_space(ctx.ruleset, plan, Mode.FLAT_OUT, []) is None  # no loss, no space


def test_dirt_races_charge_each_loss_to_its_step_and_some_are_not_where_the_car_stopped():
    prepared = prepare(example_track("col-de-turini.yaml"))
    settings = Settings.default(4, bots=("aggressive",))
    elsewhere = 0
    for i in range(4):
        result = run_race(prepared, settings, race_seed(1, i))
        for driver, d in enumerate(result.drivers):
            turns = [
                t
                for t in result.log
                if t.driver == driver and any(e.kind == "loss-of-control" for e in t.events)
            ]
            assert len(turns) == len(d.losses)
            for t, (tile, space) in zip(turns, d.losses, strict=True):
                loss = next(e for e in t.events if e.kind == "loss-of-control")
                rules = prepared.ruleset
                assert space == loss_space(rules, Plan(tuple(t.steps)), Mode(t.mode), t.events)
                assert tile == prepared.track.spaces[space].tile
                elsewhere += space != loss.space
    assert elsewhere > 0  # flat out, the car often stops past the step that broke the limit


# --- 5. a loss of control is charged to the step that broke the limit --------------------


def test_a_flat_out_loss_is_charged_to_the_step_that_broke_the_limit_not_the_moves_end(
    gt_core: Track, gt_rules: Ruleset
):
    # rule: TURN-4 (flat out, the dice are placed again: control is lost as late as they
    # allow), TURN-6, CORNER-5 (the triangle of 117a in gear 4 adds a danger)
    from trackkit.rules import Mode, ScriptedDice, legal_plans, new_table, position, resolve
    from trackkit.rules.blame import loss_space

    ctx = position(gt_core, space="10:A1c", gear=3, car="gt6", ruleset=gt_rules)
    plan = next(
        p for p in legal_plans(ctx) if str(p) == "11:A1a G4 > 11:A23b C > 11:A2c G5 > 12:A1b G6"
    )
    rng = random.Random(1)
    out = resolve(
        ctx,
        plan,
        Mode.FLAT_OUT,
        rng,
        table=new_table(gt_rules, rng),
        dice=ScriptedDice(["danger"] * 4),
    )
    assert out.lost_control and out.car.space == "12:A1b"  # the move ends on the straight
    # 1 die, then 1 + 1 + the triangle (3, the limit), then a fourth on 11:A2c: over it
    assert loss_space(gt_rules, plan, Mode.FLAT_OUT, out.events) == "11:A2c"
    # one by one, the loss happens on the step that broke the limit: charged there
    one = resolve(
        ctx,
        plan,
        Mode.ONE_BY_ONE,
        rng,
        table=new_table(gt_rules, rng),
        dice=ScriptedDice(["danger"] * 4),
    )
    assert one.lost_control and one.car.space == "11:A2c"
    assert loss_space(gt_rules, plan, Mode.ONE_BY_ONE, one.events) == "11:A2c"


def test_gt_races_charge_each_loss_to_its_blame_and_some_are_not_where_the_car_stopped(
    gt_core: Track, gt_rules: Ruleset
):
    from trackkit.rules.blame import loss_space
    from trackkit.rules.plans import Plan
    from trackkit.rules.resolve import Mode

    settings = Settings.default(6, bots=("aggressive",), gt=GtOptions(laps=2))
    elsewhere, core = 0, prepare(gt_core)
    for i in range(3):
        result = run_race(core, settings, race_seed(3, i))
        for driver, d in enumerate(result.drivers):
            turns = [
                t
                for t in result.log
                if t.driver == driver and any(e.kind == "loss-of-control" for e in t.events)
            ]
            assert len(turns) == len(d.losses)
            for t, (tile, space) in zip(turns, d.losses, strict=True):
                loss = next(e for e in t.events if e.kind == "loss-of-control")
                assert space == loss_space(gt_rules, Plan(tuple(t.steps)), Mode(t.mode), t.events)
                assert tile == gt_core.spaces[space].tile
                elsewhere += space != loss.space
    assert elsewhere > 0  # flat out, the car often stops past the step that broke the limit
