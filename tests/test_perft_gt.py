"""Perft pins of the Rallyman: GT turn (``scripts/regen_perft_gt.py``), and hand checks.

As for DIRT (``tests/test_perft.py``): the golden file pins, per fixed GT position, the
number of legal plans, the counts under each first step and the plans carrying each GT
mark (loss of control, sharp corner, automatic danger, flying start, lap line, finish). A
mismatch lists the counts per first step, pinned vs now. Regenerate with
``.venv/bin/python scripts/regen_perft_gt.py`` once the change is understood.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from stagekit import load_script

from trackkit.rules.plans import PlanContext, count_plans, legal_plans

REPO = Path(__file__).resolve().parents[1]
GOLDEN_PATH = REPO / "tests" / "golden" / "perft-gt.json"
RULES_MD = REPO / "docs" / "rules.md"
REGEN: Any = load_script("regen_perft_gt")
POSITIONS: dict[str, dict[str, Any]] = {p["name"]: p for p in REGEN.POSITIONS}
GOLDEN: dict[str, Any] = json.loads(GOLDEN_PATH.read_text(encoding="utf-8"))

#: The GT features of the plan generator by rule id: the positions must cover every one.
FEATURES = {
    "GT-1",  # the flying start: gear 0 straight to 2
    "DASH-2",  # GT-4, GT-5 and GT-6 cars
    "MOVE-4",  # three brake dice
    "MOVE-5",  # the GT-5's boost die
    "CORNER-1",  # corner limits
    "CORNER-4",  # dotted lines: a number, a warning sign; diagonals safe
    "CORNER-5",  # warning triangles
    "TRAFFIC-1",  # coming beside a car
    "TRAFFIC-4",  # a car in gear 00 blocks no one
    "TRAFFIC-5",  # the yellow flag
    "BOARD-3",  # the lap line, the finish after the last lap
    "DAMAGE-3",  # damage takes dice away
}


def context(name: str) -> PlanContext:
    ctx: PlanContext = REGEN.SUITE.context(POSITIONS[name])
    return ctx


def _mismatch(name: str, pinned: dict[str, Any], now: dict[str, Any]) -> str:
    """Counts per first step, pinned vs now, changed rows marked."""
    text: str = REGEN.SUITE.mismatch(name, pinned, now)
    return text


@pytest.mark.parametrize("name", list(POSITIONS))
def test_gt_perft_count_matches_the_golden_file(name: str) -> None:
    pinned = GOLDEN.get(name)
    assert pinned is not None, f"'{name}' is not pinned: run scripts/regen_perft_gt.py"
    now = REGEN.SUITE.tally(POSITIONS[name])
    if now["count"] != pinned["count"] or now["marks"] != pinned["marks"]:
        pytest.fail(_mismatch(name, pinned, now), pytrace=False)
    assert sum(pinned["by_first"].values()) == pinned["count"]


def test_gt_golden_file_pins_exactly_the_positions() -> None:
    assert set(GOLDEN) == set(POSITIONS), "run scripts/regen_perft_gt.py"


def test_gt_positions_cover_every_feature_and_cite_real_ids() -> None:
    covered = {rule for pos in REGEN.POSITIONS for rule in pos["covers"]}
    assert not FEATURES - covered, f"no GT perft position covers {sorted(FEATURES - covered)}"
    ids = set(re.findall(r"^#+ ([A-Z]+-\d+)$", RULES_MD.read_text(encoding="utf-8"), re.M))
    assert not covered - ids, f"unknown rule ids: {sorted(covered - ids)}"


def test_gt_marks_back_up_the_covers() -> None:
    marks = {name: GOLDEN[name]["marks"] for name in GOLDEN}
    for pos in REGEN.POSITIONS:
        name = pos["name"]
        if "CORNER-5" in pos["covers"] or name == "hairpin-sign":
            assert marks[name]["hazards"] > 0, name  # CORNER-4 sign, CORNER-5 triangle
        if "GT-1" in pos["covers"]:
            assert marks[name]["flying"] > 0, name
    assert marks["sharp-line-of-1"]["sharp"] > 0  # CORNER-4: straight over a 1 at 2
    assert marks["final-lap-line"]["finishes"] == marks["final-lap-line"]["lap"] > 0
    assert marks["grid-pole"]["finishes"] == 0  # the first crossing only begins lap 1


def test_gt_1_the_flying_start_adds_exactly_the_plans_that_begin_with_it() -> None:
    # rule: GT-1 (without it, the same plans less those whose first die is the flying 2)
    pole, plain = GOLDEN["grid-pole"], GOLDEN["grid-no-flying"]
    assert pole["count"] - plain["count"] == pole["marks"]["flying"] == 34
    assert {k: v for k, v in pole["by_first"].items() if not k.endswith("G2")} == plain["by_first"]


def test_traffic_4_a_car_off_the_road_changes_no_plan() -> None:
    # rule: TRAFFIC-4, LOC-6 (a car in gear 00 is in nobody's way)
    ctx = context("car-off-the-road")
    ctx.others = ()
    assert count_plans(ctx) == GOLDEN["car-off-the-road"]["count"]


def test_traffic_5_a_yellow_flag_leaves_only_plans_behind_the_car() -> None:
    # rule: TRAFFIC-5 (the same position with the flag out: no plan beside the car on
    # 1:A2a, none level with it or past it; without the flag, many)
    assert GOLDEN["yellow-flag"]["count"] < GOLDEN["no-flag"]["count"]
    ctx = context("yellow-flag")
    beside = ctx.track.beside["1:A2a"]
    for plan in legal_plans(ctx):
        assert not any(s.space in beside for s in plan.steps), str(plan)


def test_traffic_1_hand_count_beside_a_car_in_a_corner() -> None:
    # rule: TRAFFIC-1 (gear 2 on 3:A1b; 4:A3b is taken by a car in gear 2, and 4:A12a lies
    # beside it: only a gear die of 2 or more goes there. G1 is lower, the coast die is
    # no gear die, and the 3 is over the corner's limit of 2 (CORNER-1): one plan, a loss)
    plans = list(legal_plans(context("corner-side-by-side")))
    assert [str(p) for p in plans] == ["4:A12a G3 !corner"]
