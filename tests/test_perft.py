"""Perft pins of the legal-plan generator (issue 4 item 3), and positions counted by hand.

The golden file pins, per fixed position of ``scripts/regen_perft.py``, the number of legal
plans, the counts under each first step and the plans carrying each mark (loss of control,
jump risk, cloud, CLIMB-5 free move). Any change to a plan rule changes a count here; the
failure message lists the counts per first step, pinned vs now, so the step that changed
is found at once. Regenerate with ``.venv/bin/python scripts/regen_perft.py`` only once the
change is understood, and review the diff.

The hand checks below do not read the golden file: their numbers are counted from the rules
(ids from docs/rules.md), the way a player would, in the comments beside them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from stagekit import load_script

from trackkit.rules.dice import BOOST, BRAKE
from trackkit.rules.plans import PlanContext, count_plans, legal_plans, plans_by_first

REPO = Path(__file__).resolve().parents[1]
GOLDEN_PATH = REPO / "tests" / "golden" / "perft.json"
RULES_MD = REPO / "docs" / "rules.md"


def _regen() -> Any:
    return load_script("regen_perft")


REGEN = _regen()
POSITIONS: dict[str, dict[str, Any]] = {p["name"]: p for p in REGEN.POSITIONS}
GOLDEN: dict[str, Any] = json.loads(GOLDEN_PATH.read_text(encoding="utf-8"))

#: The features of the plan generator (issue 4 item 2) by rule id: together the positions
#: must cover every one of them.
FEATURES = {
    "MOVE-1",  # one die per new space, forward only
    "MOVE-2",  # gear dice one up or down
    "MOVE-3",  # coast / leader dice keep the speed, not from gear 0
    "MOVE-4",  # brake dice
    "MOVE-5",  # boost die (R5)
    "MOVE-6",  # each die once, the plan may stop after any die
    "MOVE-7",  # the surface's column, less damage and oxygen
    "BOARD-3",  # a plan ends when the car finishes
    "CORNER-1",  # over-limit corner spaces, closed corners
    "CORNER-2",  # corner lane commitment
    "CORNER-3",  # slides
    "SHORTCUT-1",  # shortcut limit
    "SHORTCUT-2",  # mud: corner limits -1, closed at 0
    "SHORTCUT-3",  # shortcut adjacency for overtaking
    "JUMP-1",  # jumps at N, N+1, N+2
    "JUMP-2",  # forbidden landings
    "FORD-1",  # fords
    "TRAFFIC-1",  # overtaking: a gear die at or above the other car's gear
    "TRAFFIC-2",  # passing diagonally between two cars
    "TRAFFIC-3",  # a car in a corner or sliding
    "TRAFFIC-4",  # a crashed car blocks no one
    "CLIMB-1",  # climb lines, both directions
    "CLIMB-2",  # one gear below ascending, one above descending
    "CLIMB-3",  # coast + boost / coast + brake on climb lines
    "CLIMB-4",  # paired dice in one step
    "CLIMB-5",  # the first-space free move
    "CLIMB-6",  # climb tokens
    "CLIMB-7",  # oxygen tokens
    "CLIMB-8",  # cloud tokens
    "DAMAGE-3",  # damage takes dice away
    "DASH-1",  # the DIRT car's dashboard (snow column)
}


def context(name: str) -> PlanContext:
    """The planning position of a named perft entry."""
    ctx: PlanContext = REGEN.SUITE.context(POSITIONS[name])
    return ctx


def _mismatch(name: str, pinned: dict[str, Any], now: dict[str, Any]) -> str:
    """Counts per first step, pinned vs now, changed rows marked."""
    text: str = REGEN.SUITE.mismatch(name, pinned, now)
    return text


# --- the golden file ------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(POSITIONS))
def test_perft_count_matches_the_golden_file(name: str) -> None:
    pinned = GOLDEN.get(name)
    assert pinned is not None, f"'{name}' is not pinned: run scripts/regen_perft.py"
    now = REGEN.SUITE.tally(POSITIONS[name])
    if now["count"] != pinned["count"] or now["marks"] != pinned["marks"]:
        pytest.fail(_mismatch(name, pinned, now), pytrace=False)
    assert sum(pinned["by_first"].values()) == pinned["count"]


def test_golden_file_pins_exactly_the_positions() -> None:
    assert set(GOLDEN) == set(POSITIONS), "run scripts/regen_perft.py"


def test_mismatch_report_names_the_first_step_that_changed() -> None:
    pinned = json.loads(json.dumps(GOLDEN["ford-gear3"]))
    pinned["count"] += 5
    pinned["by_first"]["2:1.2L C"] += 5
    report = _mismatch("ford-gear3", pinned, REGEN.SUITE.tally(POSITIONS["ford-gear3"]))
    assert re.search(r"2:1\.2L C\s+1864\s+1859\s+<-- differs", report), report
    assert not re.search(r"2:1\.2R C.*differs", report), report


def test_positions_are_well_formed_and_many() -> None:
    keys = {"name", "tiles", "space", "gear", "car", "others", "leader", "damage", "mud"}
    assert len(POSITIONS) == len(REGEN.POSITIONS) >= 24, "names must be unique, 24 at least"
    for pos in REGEN.POSITIONS:
        assert keys | {"covers"} == set(pos), pos["name"]
        assert pos["covers"], pos["name"]
        assert pos["space"] in context(pos["name"]).track.spaces, pos["name"]
        assert GOLDEN[pos["name"]]["count"] > 0, pos["name"]


def test_positions_cover_every_plan_feature() -> None:
    covered = {rule for pos in REGEN.POSITIONS for rule in pos["covers"]}
    assert not FEATURES - covered, f"no perft position covers {sorted(FEATURES - covered)}"


def test_covers_cite_real_rule_ids() -> None:
    # docs/rules.md defines each id with a heading of its own ("### MOVE-3")
    ids = set(re.findall(r"^#+ ([A-Z]+-\d+)$", RULES_MD.read_text(encoding="utf-8"), re.M))
    cited = {rule for pos in REGEN.POSITIONS for rule in pos["covers"]} | FEATURES
    assert not cited - ids, f"unknown rule ids: {sorted(cited - ids)}"


def test_marks_back_up_the_covers() -> None:
    # a position that claims a rule whose effect is a mark must show that mark
    def marks(name: str) -> dict[str, int]:
        m: dict[str, int] = GOLDEN[name]["marks"]
        return m

    for pos in REGEN.POSITIONS:
        name = pos["name"]
        if "CLIMB-5" in pos["covers"]:
            assert marks(name)["free"] > 0, name
        if "CLIMB-8" in pos["covers"]:
            assert marks(name)["cloud"] > 0, name
    assert marks("jump-N+1")["jump_risk"] > 0 and marks("jump-N+1")["loc"] == 0
    assert marks("jump-N+2")["loc"] > 0
    assert marks("jump-at-N")["jump_risk"] == marks("jump-at-N")["loc"] == 0
    assert marks("corner-entry")["loc"] > 0  # over-limit corner steps are marked (CORNER-1)
    # one mud token on the same bend: more steps over the (lowered) limit, fewer plans
    assert marks("mud-1")["loc"] > marks("corner-entry")["loc"]
    assert _count("mud-1") < _count("corner-entry")
    assert sum(marks("gear3-mid").values()) == 0


# --- positions that must agree with each other ---------------------------------------------


def _count(name: str) -> int:
    n: int = GOLDEN[name]["count"]
    return n


def test_leader_dice_stand_in_for_coast_dice() -> None:
    # rule: MOVE-3 (the first player uses orange leader dice instead of the coast dice)
    assert _count("leader") == _count("gear3-mid")
    assert {k.replace(" L", " C") for k in GOLDEN["leader"]["by_first"]} == set(
        GOLDEN["gear3-mid"]["by_first"]
    )
    assert _count("ford-leader") == _count("ford-gear3")


def test_a_crashed_car_blocks_no_one() -> None:
    # rule: TRAFFIC-4 (two crashed cars on the whole row ahead change nothing)
    assert GOLDEN["crashed-car"]["by_first"] == GOLDEN["gear3-mid"]["by_first"]


def test_a_cloud_adds_dangers_not_plans() -> None:
    # rule: CLIMB-8 (same plans as without the cloud; every plan that places a die on the
    # cloud tile is marked, only the 8 one-step plans short of it are not)
    # (the cloud stage has the same four rows ahead as gear3-mid, tile 2 instead of tile 3)
    cloud, plain = GOLDEN["cloud"]["by_first"], GOLDEN["gear3-mid"]["by_first"]
    assert {k.replace("2:1.2", "2:1.3"): n for k, n in cloud.items()} == plain
    assert GOLDEN["cloud"]["marks"]["cloud"] == _count("cloud") - 8


def test_a_mud_token_on_the_tile_equals_mud_in_the_context() -> None:
    # rule: SHORTCUT-2 (a mud token laid in the stage and a drawn one lower limits alike)
    a, b = GOLDEN["mud-token-on-tile"], GOLDEN["mud-corner-closed"]
    assert a["count"] == b["count"] and a["marks"] == b["marks"]


# --- hand-counted positions -----------------------------------------------------------------


def test_hand_gear0_on_a_four_row_run_to_the_finish() -> None:
    # rule: MOVE-2, MOVE-3, MOVE-6, BOARD-3. 202a+203a, car on 1:1.2L in gear 0: four rows
    # ahead (1:1.3, 2:1.1, 2:1.2, 2:1.3 = finish). From gear 0 the first die must be G1
    # (no G0 / G-1, no coast in gear 0, no brake). Die sequences by length:
    #   1: G1                                   -> 1
    #   2: G1 G2 | G1 C                         -> 2
    #   3: G1 G2 G3 | G1 G2 C | G1 C G2 | G1 C C -> 4
    #   4: G1G2G3 +{G4,C} | G1G2C +{G3,C} | G1CG2 +{G3,C} | G1CC +{G2}  -> 7
    # each step goes to either lane: 2*1 + 4*2 + 8*4 + 16*7 = 154, half per first lane.
    ctx = context("gear0-short")
    assert count_plans(ctx) == 154
    assert plans_by_first(ctx) == {"1:1.3L G1": 77, "1:1.3R G1": 77}


def test_hand_mud_closes_the_inner_lane_of_a_hairpin() -> None:
    # rule: SHORTCUT-2, CORNER-1. Hairpin 210a (inner 1, outer 2) with one mud token: inner
    # limit 0 (closed), outer O1..O3 limit 1. Car on 1:1.2L in gear 2, per lane of 1:1.3:
    #   G3: [G3] + O1 {G4!, G2!, G1+B, C(3)!} = 4, then from G1+B (speed 1, brake used):
    #       O2 {G2!, C} = 2, O3 {G2!, C} = 2, 3:1.1 L/R {G2} = 2          -> 1+4+2+2+2 = 11
    #   G1: [G1] + O1 {G2!, C} = 2, O2 {G2!, C} = 2, O3 {G2!} = 1         -> 1+2+2+1   = 6
    #   C:  [C]  + O1 {G3!, G1, C(2)!} = 3, O2 {G2!, C} = 2, O3 {G2!} = 1 -> 1+3+2+1   = 7
    # (! = over the limit: the plan ends there in a loss of control: 5 + 3 + 4 = 12 a lane)
    ctx = context("mud-corner-closed")
    firsts = {
        f"{lane} {die}": n
        for lane in ("1:1.3L", "1:1.3R")
        for die, n in (("G3", 11), ("G1", 6), ("C", 7))
    }
    assert plans_by_first(ctx) == firsts
    plans = list(legal_plans(ctx))
    assert len(plans) == 48
    assert sum(1 for p in plans if p.steps[-1].loc == "corner") == 24
    assert not any(s.space.endswith("I1") for p in plans for s in p.steps)


def test_hand_a_car_in_the_outer_lane_of_a_corner() -> None:
    # rule: TRAFFIC-3, CORNER-1, CORNER-3. 217a (inner 2, outer 3), a car on 2:2.O2; ours on
    # 1:1.3L in gear 3. The inner lane is closed; O1 can be reached, O2 cannot.
    #   step 1 to 2:1.1L / 2:1.1R / slide S1 with G4, G2, G1+B, C:     3 * 4   = 12
    #   step 2 lanes -> O1 with the 13 second dice (4 + 3 + 2 + 4):    2 * 13  = 26
    #   step 2 S1 -> S2 (13), step 3 S2 -> O1 with 13+7+4+12 = 36:     13 + 36 = 49
    # = 87; over the limit 3 into O1: 3 a lane at step 2, 8 at step 3 -> 14.
    ctx = context("car-in-corner")
    plans = list(legal_plans(ctx))
    assert len(plans) == 87
    assert sum(1 for p in plans if p.steps[-1].loc) == 14
    assert not any(s.space in ("2:2.I1", "2:2.O2") for p in plans for s in p.steps)


def test_hand_a_car_sliding_holds_the_whole_row() -> None:
    # rule: TRAFFIC-3, CORNER-3. A car sliding on 2:1.1S2 covers 2:1.1L/R (and S2). Ours on
    # 1:1.2R in gear 2: 1:1.3 L/R with G3, G1, C, then only S1 behind it:
    # from G3 (4: G4 G2 G1+B C), from G1 (2: G2 C), from C (3: G3 G1 C): 2 * (3 + 9) = 24.
    ctx = context("car-sliding")
    plans = list(legal_plans(ctx))
    assert len(plans) == 24
    assert {p.end for p in plans} == {"1:1.3L", "1:1.3R", "2:1.1S1"}


def test_hand_climbing_in_gear_3() -> None:
    # rule: CLIMB-2 (418a uphill: G2 then G1 only), then a flat tile from speed 1 with G2
    # used: coast, coast. Per first lane: 1 + 2 + 4 + 8 = 15.
    ctx = context("climb-up")
    assert plans_by_first(ctx) == {"2:1.2L G2": 15, "2:1.2R G2": 15}
    longest = max(legal_plans(ctx), key=lambda p: len(p.steps))
    assert [str(d) for d in longest.dice] == ["G2", "G1", "C", "C"]


def test_hand_descending_in_gear_6_and_the_free_move() -> None:
    # rule: CLIMB-2, CLIMB-3: descending in gear 6 there is no G7, only coast + brake; the
    # next line needs the brake again: blocked, and not on the first space (no free move).
    ctx = context("climb-down-gear6")
    assert [str(p) for p in legal_plans(ctx)] == ["2:1.2L C+B", "2:1.2R C+B"]
    # rule: CLIMB-5: ascending in gear 1 (DIRT car: no G0, no boost) on the first space:
    # one free move, no die, gear unchanged, the turn ends.
    plans = list(legal_plans(context("climb5-gear1-up")))
    assert [(p.end, p.dice, p.steps[0].speed, p.steps[0].free) for p in plans] == [
        ("2:1.2L", [], 1, True),
        ("2:1.2R", [], 1, True),
    ]


def test_hand_a_jump_cannot_land_on_cars() -> None:
    # rule: JUMP-2. Cars on both spaces of 2:1.2: G3 on the jump 3 (one more space) has
    # nowhere to land; G1 and coast (2, below 3) are normal moves and then the row is full.
    ctx = context("jump-forbidden-landing")
    assert sorted(str(p) for p in legal_plans(ctx)) == [
        "2:1.1L C",
        "2:1.1L G1",
        "2:1.1R C",
        "2:1.1R G1",
    ]


def test_hand_first_steps_under_traffic_and_limits() -> None:
    # rule: TRAFFIC-1: beside a gear-4 car only G4 (not G2, G1+B or coast)
    assert set(plans_by_first(context("overtake-beside"))) == {"2:1.2L G4"}
    # rule: TRAFFIC-1, TRAFFIC-2: diagonally between two cars, beside the gear-2 one: G3 only
    assert set(plans_by_first(context("pass-between"))) == {"2:1.2R G3"}
    # rule: SHORTCUT-3 + SHORTCUT-1: the shortcut touches a gear-3 car and has limit 3: G3
    assert {k for k in plans_by_first(context("shortcut-beside-car")) if "X1" in k} == {"2:X1.1 G3"}
    # rule: SHORTCUT-1: from gear 3 the G4 has no step into the shortcut (limit 3)
    assert {k for k in plans_by_first(context("shortcut-limit")) if "X1" in k} == {
        "2:X1.1 C",
        "2:X1.1 G1+B",
        "2:X1.1 G2",
    }
    # rule: FORD-1: from gear 3 only the coast die crosses (G4, G2, G1+B refused)
    assert set(plans_by_first(context("ford-gear3"))) == {"2:1.2L C", "2:1.2R C"}
    # rule: DAMAGE-3: 2 gear, the brake and 1 coast damaged: G4, G2, C (no brake)
    assert {k.split()[1] for k in plans_by_first(context("damage"))} == {"G4", "G2", "C"}
    # rule: MOVE-5: from gear 0 the R5 car has G1 or G2 + boost
    assert {k.split()[1] for k in plans_by_first(context("r5-gear0-boost"))} == {"G1", "G2+Bo"}


def test_plans_are_distinct_moves_without_jumps() -> None:
    # each plan is a different sequence of (space the dice go on, dice, space reached)
    for name in ("corner-entry", "shortcut-beside-car", "climb-up-r5", "double-hairpin"):
        keys = Counter(
            tuple((s.placed_on, s.dice, s.space) for s in p.steps)
            for p in legal_plans(context(name))
        )
        assert max(keys.values()) == 1, name


def test_hand_jump_n_plus_1_lands_once_per_jump_space() -> None:
    # rule: JUMP-1. Jump 3 on 2:1.1 (204b), car on 1:1.3L in gear 3: G4 is N+1, two more
    # spaces: placed on 2:1.1L or 2:1.1R, landing on 3:1.1L. From the landing in speed 4
    # (G4 used), 3:1.2 then 3:1.3 = finish: 1 + 2*4 + 2*2*(3+3+3+4) = 61 plans a landing,
    # so 2 * 61 = 122 plans start "3:1.1L G4" (one plan per landing, not per flown path).
    assert plans_by_first(context("jump-N+1"))["3:1.1L G4"] == 2 * 61


def test_jump_plans_are_distinct_moves() -> None:
    keys = Counter(
        tuple((s.placed_on, s.dice, s.space) for s in p.steps)
        for p in legal_plans(context("jump-N+1"))
    )
    assert max(keys.values()) == 1


def test_free_climb_move_obeys_the_overtaking_rule() -> None:
    # 418a uphill, car on 2:1.1L in gear 3: the climb line asks for G2. A gear-4 car on
    # 2:1.2R: entering 2:1.2L beside it takes a gear die of 4 or more (TRAFFIC-1), so the G2
    # is refused by the traffic rule, not by the climb line. CLIMB-5's free move follows
    # "the normal movement rules": no die at all cannot meet TRAFFIC-1 either, so the car
    # should have no plan (it is blocked).
    ctx = REGEN.SUITE.context(
        REGEN.pos("x", REGEN.CLIMB_UP, "2:1.1L", 3, [], others=[["2:1.2R", 4]])
    )
    assert [str(p) for p in legal_plans(ctx)] == []


def test_brake_and_boost_dice_print_differently() -> None:
    assert str(BRAKE) != str(BOOST)


@pytest.mark.parametrize("name", list(POSITIONS))
def test_plan_builder_offers_exactly_the_legal_next_steps(name: str) -> None:
    """PlanBuilder (bots) and legal_plans (perft) agree after every prefix they walk."""
    from trackkit.rules.plans import PlanBuilder

    ctx = context(name)
    for pick in (0, -1):  # walk the first option each time, then the last
        builder = PlanBuilder(ctx)
        while True:
            n = len(builder.steps)
            expected = [
                p.steps[-1]
                for p in legal_plans(ctx, max_steps=n + 1, after=builder.steps)
                if len(p.steps) == n + 1
            ]
            options = builder.options()
            assert options == expected, (name, [str(s) for s in builder.steps])
            if not options:
                break
            builder.push(options[pick])
            assert builder.plan().steps == tuple(builder.steps)


@pytest.mark.parametrize("name", list(POSITIONS))
@pytest.mark.parametrize("pruned", [False, True])
def test_turn_ends_are_the_ends_of_the_legal_plans_with_their_most_moves(
    name: str, pruned: bool
) -> None:
    """turn_ends (par time) merges plans that meet inside the turn, and loses no end."""
    from trackkit.rules.dice import DieKind
    from trackkit.rules.plans import turn_ends
    from trackkit.sim.roads import DirtRoad

    ctx = context(name)
    keep, keep_move = DirtRoad.of(ctx.track).pruners() if pruned and ctx.car.space else (None, None)
    want: dict[tuple[str, int, bool, bool], int] = {}
    for plan in legal_plans(ctx, max_steps=4, keep=keep, keep_move=keep_move):
        if any(s.loc for s in plan.steps):
            continue
        last = plan.steps[-1]
        gear = any(d.kind is DieKind.GEAR for d in plan.dice)
        key = (last.space, last.speed, last.finishes, gear)
        moved = sum(1 for s in plan.steps if not s.free)
        want[key] = max(want.get(key, -1), moved)
    assert turn_ends(ctx, max_steps=4, keep=keep, keep_move=keep_move) == want
