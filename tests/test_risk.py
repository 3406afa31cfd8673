"""Exact loss-of-control risk (issue 4 item 5) against hand counts, brute force and rolling.

``flat_out_risk`` and ``one_by_one_risk`` compute the probability exactly. Here they are
checked three ways: against numbers worked out by hand from DICE-1 (danger faces: coast,
G1, G2 one in six; G3-G6, brake, boost, leader two in six); against a brute-force sum over
every danger outcome of every die, written independently of the engine; and against the
loss-of-control frequency of :func:`resolve` over thousands of seeded turns, within four
standard errors of the exact value (sigma = sqrt(p (1 - p) / runs); with p = 0 or 1 every
run must agree).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

import pytest

from trackkit.rules import (
    DefaultPolicy,
    Mode,
    Plan,
    PlanContext,
    RollPolicy,
    flat_out_risk,
    legal_plans,
    new_table,
    one_by_one_risk,
    resolve,
)
from trackkit.rules.dice import Die, DieKind
from trackkit.rules.resolve import RollView, securing_cost
from trackkit.rules.testing import position

RUNS = 6000  # per Monte-Carlo check: sigma <= 0.0065, 4 sigma <= 0.026

LONG = ["202a", "205a", "206a", "203a"]  # gravel, limit 3
SNOW = ["301b", "305b", "325b"]  # snow, limit 2 (the DIRT car's snow column, DASH-1)
SNOW_THEN_ASPHALT = ["301b", "305b", "302a"]  # limit 2, then 3 on tile 3
CLOUD = ["301a", {"tile": "303a", "tokens": [{"token": "cloud"}]}, "302a"]
JUMP = ["202a", "204b", "205a", "203a"]  # jump 3 on tile 2 row 1
JUMP_SHORT = ["202a", "204b", "302a"]
BEND = ["202a", {"tile": "217a", "turn": "left"}, "302a"]  # corner inner 2 / outer 3
SNOW_CLIMB = ["301b", {"tile": "325b", "climb": "up"}, "302b"]

Decide = Callable[[RollView], Literal["roll", "secure", "stop"]]


def plan_of(ctx: PlanContext, text: str) -> Plan:
    """The legal plan written ``text`` (as ``str(plan)`` writes it)."""
    for plan in legal_plans(ctx):
        if str(plan) == text:
            return plan
    raise AssertionError(f"no legal plan {text!r}")


def danger_sixths(die: Die) -> int:
    """DICE-1, written out here rather than read from the ruleset."""
    if die.kind is DieKind.COAST or (die.kind is DieKind.GEAR and die.value in (1, 2)):
        return 1
    return 2


def brute_force_sisu(plan: Plan) -> float:
    """One by one, always rolling, with a SISU token flipped when the count reaches a limit.

    After the flip every danger rolled this turn counts for nothing, only clouds (CLIMB-8);
    a jump die one over its number still loses control on its danger face (LOC-7, JUMP-1).
    """
    dice = [
        (j, k, danger_sixths(d) / 6) for j, s in enumerate(plan.steps) for k, d in enumerate(s.dice)
    ]
    total = 0.0
    for faces in itertools.product((False, True), repeat=len(dice)):
        p = 1.0
        hits = [0] * len(plan.steps)
        jump_hit = [False] * len(plan.steps)
        for (j, k, q), hit in zip(dice, faces, strict=True):
            p *= q if hit else 1 - q
            hits[j] += hit
            jump_hit[j] |= hit and k == 0 and plan.steps[j].jump_risk
        rolled = clouds = 0
        flipped = lost = False
        for j, step in enumerate(plan.steps):
            clouds += step.cloud
            rolled += 0 if flipped else hits[j]
            if step.loc or jump_hit[j]:
                lost = True
            elif rolled + clouds >= step.limit:
                if not flipped and rolled and clouds < step.limit:
                    flipped, rolled = True, 0
                else:
                    lost = True
            if lost:
                break
        total += p * lost
    return total


def brute_force(plan: Plan, *, one_by_one: bool) -> float:
    """Probability of a loss of control by summing over every danger outcome of every die.

    Flat out (TURN-4, TURN-6): a track element, a jump die one over its number showing
    danger (JUMP-1), or all dangers plus clouds (CLIMB-8) reaching the lowest limit.
    One by one, always rolling: the running count reaching the limit of the step's surface.
    """
    if not plan.steps:
        return 0.0
    dice = [
        (j, k, danger_sixths(d) / 6) for j, s in enumerate(plan.steps) for k, d in enumerate(s.dice)
    ]
    low = min(s.limit for s in plan.steps)
    total = 0.0
    for faces in itertools.product((False, True), repeat=len(dice)):
        p = 1.0
        hits = [0] * len(plan.steps)
        jump_hit = [False] * len(plan.steps)
        for (j, k, q), hit in zip(dice, faces, strict=True):
            p *= q if hit else 1 - q
            hits[j] += hit
            jump_hit[j] |= hit and k == 0 and plan.steps[j].jump_risk
        lost = False
        count = 0
        for j, step in enumerate(plan.steps):
            count += hits[j] + step.cloud
            lost = bool(step.loc) or jump_hit[j] or (one_by_one and count >= step.limit)
            if lost:
                break
        if not one_by_one and count >= low:
            lost = True
        total += p * lost
    return total


def frequency(
    ctx: PlanContext,
    plan: Plan,
    mode: Mode,
    seed: int,
    runs: int = RUNS,
    policy: RollPolicy | None = None,
) -> float:
    """How often ``resolve`` loses control over ``runs`` seeded turns."""
    rng = random.Random(seed)
    table = new_table(ctx.ruleset, rng)  # the table decides what follows, not whether
    lost = 0
    for _ in range(runs):
        lost += resolve(ctx, plan, mode, rng, table=table, policy=policy).lost_control
    return lost / runs


def assert_agrees(exact: float, freq: float, runs: int = RUNS) -> None:
    """``freq`` lies within 4 standard errors of ``exact`` (exactly on it for 0 or 1)."""
    sigma = math.sqrt(exact * (1 - exact) / runs)
    assert abs(freq - exact) <= 4 * sigma, (
        f"exact {exact:.5f}, rolled {freq:.5f} over {runs} turns: "
        f"{abs(freq - exact) / sigma if sigma else math.inf:.1f} sigma off"
    )


class Policy:
    """A RollPolicy driven by the same decision function ``one_by_one_risk`` takes."""

    def __init__(self, decide: Decide) -> None:
        self.decide = decide

    def before_roll(self, view: RollView) -> Literal["roll", "secure", "stop"]:
        return self.decide(view)

    def use_sisu(self, dangers: int, limit: int) -> bool:
        return dangers >= limit

    def choose_loc_step(self, candidates: list[int]) -> int:
        return candidates[-1]


def with_tokens(ctx: PlanContext, tokens: int, *, sisu: bool = False) -> PlanContext:
    """The position with ``tokens`` second tokens (and an unflipped SISU token)."""
    board = ctx.dashboard.with_sisu() if sisu else ctx.dashboard
    return replace(
        ctx, dashboard=board, car=replace(ctx.car, second_tokens=tokens, sisu_token=sisu)
    )


# --- the plans ------------------------------------------------------------------------------

CASES: dict[str, tuple[list[Any], str, int, str, str]] = {
    # name: (tiles, space, gear, car, plan)
    "three-gears": (LONG, "1:1.1L", 0, "dirt", "1:1.2L G1 > 1:1.3L G2 > 2:1.1L G3"),
    "seven-dice": (
        LONG,
        "2:1.1L",
        3,
        "dirt",
        "2:1.2L G4 > 2:1.3L G5 > 3:1.1L C > 3:1.2L G3+B > 3:1.3L G2 > 3:1.4L G1",
    ),
    "snow": (SNOW, "1:1.2L", 2, "dirt", "1:1.3L G3 > 2:1.1L G4 > 2:1.2L C"),
    "snow-long": (SNOW, "1:1.1L", 0, "dirt", "1:1.2L G1 > 1:1.3L G2 > 2:1.1L C > 2:1.2L G3"),
    "snow-then-asphalt": (
        SNOW_THEN_ASPHALT,
        "2:1.2L",
        2,
        "dirt",
        "2:1.3L G3 > 3:1.1L G4 > 3:1.2L G5",
    ),
    "cloud": (CLOUD, "1:1.3L", 3, "dirt", "1:1.4L G4 > 2:1.1L G5"),
    "cloud-long": (CLOUD, "1:1.3L", 2, "dirt", "1:1.4L C > 2:1.1L G3 > 2:1.2L G4 > 3:1.1L C"),
    "jump-over-by-one": (JUMP, "1:1.3L", 3, "dirt", "3:1.1L G4 > 3:1.2L G5 > 3:1.3L G6"),
    "jump-long": (
        JUMP,
        "1:1.3L",
        3,
        "dirt",
        "3:1.1L G4 > 3:1.2L G5 > 3:1.3L G6 > 4:1.1L C > 4:1.2L C",
    ),
    "over-limit-corner": (BEND, "1:1.3L", 3, "dirt", "2:1.1L G4 > 2:2.O1 G5 !corner"),
    "climb-pair": (
        SNOW_CLIMB,
        "2:1.1L",
        3,
        "r5",
        "2:1.2L C+Bo > 2:1.3L G2 > 2:1.4L G1 > 3:1.1L C",
    ),
}


def case(name: str) -> tuple[PlanContext, Plan]:
    tiles, space, gear, car, text = CASES[name]
    ctx = position(tiles, space=space, gear=gear, car=car)
    return ctx, plan_of(ctx, text)


# --- exact values, by hand ------------------------------------------------------------------


def test_hand_three_gear_dice_all_danger() -> None:
    # rule: DICE-1, TURN-6: G1, G2, G3 on gravel (limit 3): all three must show danger
    ctx, plan = case("three-gears")
    assert flat_out_risk(ctx, plan) == pytest.approx(1 / 6 * 1 / 6 * 2 / 6, abs=1e-12)
    assert one_by_one_risk(ctx, plan) == pytest.approx(1 / 108, abs=1e-12)


def test_hand_snow_limit_two() -> None:
    # rule: DASH-1 (snow limit 2), TURN-6: G3, G4, C: two or more of (1/3, 1/3, 1/6)
    # = 1/3*1/3 + 2 * (1/3*2/3*1/6) = 1/9 + 4/54 = 10/54 = 5/27
    ctx, plan = case("snow")
    assert flat_out_risk(ctx, plan) == pytest.approx(5 / 27, abs=1e-12)
    assert one_by_one_risk(ctx, plan) == pytest.approx(5 / 27, abs=1e-12)


def test_hand_flat_out_takes_the_lowest_limit_one_by_one_the_steps() -> None:
    # rule: TURN-6. G3 on snow (limit 2), then G4, G5 on asphalt (limit 3).
    # Flat out the limit is 2: two or more of three 1/3 dice = 3 * 1/9 * 2/3 + 1/27 = 7/27.
    # One by one, two dangers on asphalt are safe: only all three lose control: 1/27.
    ctx, plan = case("snow-then-asphalt")
    assert [s.limit for s in plan.steps] == [2, 3, 3]
    assert flat_out_risk(ctx, plan) == pytest.approx(7 / 27, abs=1e-12)
    assert one_by_one_risk(ctx, plan) == pytest.approx(1 / 27, abs=1e-12)


def test_hand_cloud_adds_one_danger() -> None:
    # rule: CLIMB-8: G4, then G5 on the cloud tile: 1 automatic danger + both dice = 3
    ctx, plan = case("cloud")
    assert [s.cloud for s in plan.steps] == [False, True]
    assert flat_out_risk(ctx, plan) == pytest.approx(1 / 9, abs=1e-12)
    assert one_by_one_risk(ctx, plan) == pytest.approx(1 / 9, abs=1e-12)


def test_hand_jump_one_over_its_number() -> None:
    # rule: JUMP-1: G4 on a jump 3 loses control if it shows danger (2/6); G5 and G6 alone
    # cannot reach 3 dangers: exactly 1/3 either way.
    ctx, plan = case("jump-over-by-one")
    assert plan.steps[0].jump_risk
    assert flat_out_risk(ctx, plan) == pytest.approx(1 / 3, abs=1e-12)
    assert one_by_one_risk(ctx, plan) == pytest.approx(1 / 3, abs=1e-12)
    # rule: LOC-7: a SISU token cancels dice dangers, not the jump's
    assert flat_out_risk(ctx, plan, sisu=True) == pytest.approx(1 / 3, abs=1e-12)


def test_hand_over_the_limit_and_empty_plans() -> None:
    # rule: CORNER-1: G5 into an outer corner space of limit 3: lost whatever the dice
    ctx, plan = case("over-limit-corner")
    assert flat_out_risk(ctx, plan) == 1.0
    assert one_by_one_risk(ctx, plan) == 1.0
    # an empty plan rolls nothing
    assert flat_out_risk(ctx, Plan(())) == 0.0
    assert one_by_one_risk(ctx, Plan(())) == 0.0


def test_hand_securing_with_one_second_token() -> None:
    # rule: TURN-5. Snow G3, G4, C with 1 second token; secure a die once one danger is in.
    # G3 danger (1/3): secure G4 (1 token), then C must be rolled (2 more tokens needed):
    # lost on its danger (1/6). G3 safe: G4 danger (2/3 * 1/3): secure C (1 token): safe.
    # Risk = 1/3 * 1/6 = 1/18.
    ctx, plan = case("snow")
    decide: Decide = lambda v: "secure" if v.dangers >= 1 else "roll"  # noqa: E731
    assert one_by_one_risk(with_tokens(ctx, 1), plan, decide=decide) == pytest.approx(1 / 18)
    # with 3 tokens both the second and the third die can be secured: never lost
    assert one_by_one_risk(with_tokens(ctx, 3), plan, decide=decide) == 0.0


def test_hand_a_pair_is_secured_together() -> None:
    # rule: CLIMB-4, TURN-5: coast + boost on a climb line: secured together for 1 + 2 = 3
    # tokens. Then G2, G1, C rolled on snow (limit 2): two or more of three 1/6 dice:
    # 3 * 1/36 * 5/6 + 1/216 = 16/216 = 2/27.
    ctx, plan = case("climb-pair")
    assert securing_cost(0, 2) == 3
    decide: Decide = lambda v: "secure" if v.step_index == 0 else "roll"  # noqa: E731
    assert one_by_one_risk(with_tokens(ctx, 3), plan, decide=decide) == pytest.approx(2 / 27)
    # with 2 tokens the pair cannot be paid for: everything is rolled
    assert one_by_one_risk(with_tokens(ctx, 2), plan, decide=decide) == pytest.approx(
        brute_force(plan, one_by_one=True)
    )


def test_hand_each_die_of_a_brake_step_is_secured_on_its_own() -> None:
    # rule: TURN-5: snow (limit 2), G5 then G3+B, one second token; secure a die once a
    # danger is in. G5 danger (1/3): secure G3 (1 token), the brake must be rolled (2
    # tokens more): lost on its danger (1/3). G5 safe (2/3): G3 danger: secure the brake;
    # G3 safe: one brake danger is short of 2. Risk = 1/3 * 1/3 = 1/9 (securing G3+B as a
    # block, 3 tokens, would leave everything to the dice: 7/27).
    ctx = position(SNOW, space="1:1.2L", gear=4)
    plan = plan_of(ctx, "1:1.3L G5 > 2:1.1L G3+B")
    decide: Decide = lambda v: "secure" if v.dangers >= 1 else "roll"  # noqa: E731
    assert one_by_one_risk(with_tokens(ctx, 1), plan, decide=decide) == pytest.approx(1 / 9)
    assert_agrees(
        1 / 9, frequency(with_tokens(ctx, 1), plan, Mode.ONE_BY_ONE, 5, RUNS, Policy(decide))
    )


# --- exact values, by brute force over every outcome ------------------------------------------


@pytest.mark.parametrize("name", list(CASES))
def test_exact_risk_matches_brute_force(name: str) -> None:
    ctx, plan = case(name)
    assert flat_out_risk(ctx, plan) == pytest.approx(brute_force(plan, one_by_one=False))
    assert one_by_one_risk(ctx, plan) == pytest.approx(brute_force(plan, one_by_one=True))


@pytest.mark.parametrize(
    ("tiles", "space", "gear", "car", "every"),
    [
        (SNOW_THEN_ASPHALT, "2:1.3L", 3, "dirt", 1),  # limits 2 then 3
        (CLOUD, "2:1.1L", 2, "dirt", 3),  # a cloud on every plan
        (SNOW_CLIMB, "2:1.1R", 4, "r5", 1),  # pairs on climb lines, snow
        (JUMP_SHORT, "1:1.3R", 4, "dirt", 7),  # jumps at N, N+1 (risk), N+2 (lost)
        (BEND, "2:1.1L", 3, "dirt", 13),  # corners over the limit
    ],
)
def test_exact_risk_of_every_plan_of_a_position(
    tiles: list[Any], space: str, gear: int, car: str, every: int
) -> None:
    ctx = position(tiles, space=space, gear=gear, car=car)
    plans = list(legal_plans(ctx))[::every]
    assert len(plans) > 50
    for plan in plans:
        flat = flat_out_risk(ctx, plan)
        obo = one_by_one_risk(ctx, plan)
        assert flat == pytest.approx(brute_force(plan, one_by_one=False), abs=1e-12), str(plan)
        assert obo == pytest.approx(brute_force(plan, one_by_one=True), abs=1e-12), str(plan)
        assert obo <= flat + 1e-12, str(plan)  # always rolling, one by one is never worse


# --- exact values against rolling -------------------------------------------------------------


ROLLED_FLAT_OUT = [  # (three-gears, 1/108, is too rare to roll usefully: exact above)
    "seven-dice",
    "snow-then-asphalt",
    "cloud-long",
    "jump-long",
    "climb-pair",
    "over-limit-corner",
]


@pytest.mark.parametrize("name", ROLLED_FLAT_OUT)
def test_flat_out_risk_matches_rolling(name: str) -> None:
    ctx, plan = case(name)
    exact = flat_out_risk(ctx, plan)
    runs = RUNS if 0 < exact < 1 else 300
    freq = frequency(ctx, plan, Mode.FLAT_OUT, seed=sum(map(ord, name)), runs=runs)
    assert_agrees(exact, freq, runs)


@pytest.mark.parametrize("name", ["seven-dice", "snow-then-asphalt", "jump-long"])
def test_one_by_one_risk_matches_rolling(name: str) -> None:
    ctx, plan = case(name)
    exact = one_by_one_risk(ctx, plan)
    assert_agrees(exact, frequency(ctx, plan, Mode.ONE_BY_ONE, seed=7 + len(name)))


def test_empty_plan_never_loses_control() -> None:
    ctx, _ = case("three-gears")
    for mode in Mode:
        assert frequency(ctx, Plan(()), mode, seed=3, runs=200) == 0.0


@pytest.mark.parametrize(
    ("name", "tokens", "rule"),
    [
        ("snow", 1, "from-one"),  # secure once one danger is in (1/18, by hand above)
        ("seven-dice", 3, "at-two"),  # secure when one more danger would reach 3
        ("seven-dice", 0, "stop-at-two"),  # stop instead
        ("climb-pair", 3, "pair-first"),  # the coast + boost pair secured at once
        ("snow-then-asphalt", 0, "at-limit"),  # cannot pay: rolled (1/27)
    ],
)
def test_one_by_one_risk_with_a_policy_matches_rolling(name: str, tokens: int, rule: str) -> None:
    ctx, plan = case(name)
    ctx = with_tokens(ctx, tokens)
    steps = plan.steps
    rules: dict[str, Decide] = {
        "from-one": lambda v: "secure" if v.dangers >= 1 else "roll",
        "at-two": lambda v: "secure" if v.dangers >= 2 else "roll",
        "stop-at-two": lambda v: "stop" if v.dangers >= 2 else "roll",
        "pair-first": lambda v: "secure" if v.step_index == 0 else "roll",
        "at-limit": lambda v: "secure" if v.dangers >= steps[v.step_index].limit - 1 else "roll",
    }
    decide = rules[rule]
    exact = one_by_one_risk(ctx, plan, decide=decide)
    freq = frequency(
        ctx, plan, Mode.ONE_BY_ONE, seed=tokens * 31 + len(name), policy=Policy(decide)
    )
    assert_agrees(exact, freq)


@pytest.mark.parametrize("name", ["seven-dice", "snow-long", "cloud-long", "jump-long"])
def test_one_by_one_risk_with_a_sisu_token_matches_brute_force_and_rolling(name: str) -> None:
    # rule: LOC-7: one by one, the token flipped on reaching the limit voids every danger
    # of the turn, those rolled and those to come; clouds and a jump's face stay
    ctx, plan = case(name)
    ctx = with_tokens(ctx, 0, sisu=True)
    exact = one_by_one_risk(ctx, plan)
    assert exact == pytest.approx(brute_force_sisu(plan), abs=1e-12)
    assert exact < one_by_one_risk(ctx, plan, sisu=False)
    assert_agrees(exact, frequency(ctx, plan, Mode.ONE_BY_ONE, seed=17 + len(name)))


def test_rolling_with_a_sisu_token_matches_the_exact_risk() -> None:
    # rule: LOC-7: flipped when the dice reach the limit; a jump's danger face still counts
    ctx, plan = case("jump-long")
    ctx = with_tokens(ctx, 0, sisu=True)
    exact = flat_out_risk(ctx, plan, sisu=True)
    assert exact == pytest.approx(1 / 3)
    assert_agrees(exact, frequency(ctx, plan, Mode.FLAT_OUT, seed=11, policy=DefaultPolicy()))
