"""Regenerate the perft pins of the rules engine; review the diff before committing.

    .venv/bin/python scripts/regen_perft.py

``tests/golden/perft.json`` pins, like chess perft counts, the number of legal turn plans
(:func:`trackkit.rules.plans.count_plans`) of fixed positions, with the counts under each
first step (:func:`trackkit.rules.plans.plans_by_first`) so that a mismatch points at the
step that changed, and the number of plans carrying each mark (``loc``: the plan ends in a
loss of control whatever the roll; ``jump_risk``: a jump one over its number; ``cloud``: an
automatic danger; ``free``: CLIMB-5's move without a die) -- marks the plain count does not
see (a cloud token adds no plan, only a danger).

Each position names the rule ids (``docs/rules.md``) whose plans it exercises in
``covers``; ``tests/test_perft.py`` checks that together they cover every feature of the
plan generator.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from trackkit.rules.plans import PlanContext, legal_plans, plans_by_first
from trackkit.rules.state import Damage, OtherCar
from trackkit.rules.testing import position

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "perft.json"

# Stages (tile specs in driving order). Short stages ending in a finish keep counts small
# enough to check by hand where it matters, and the whole file fast to recompute.
STRAIGHT = ["202a", "205a", "203a"]  # 3 + 3 + 3 rows, finish on tile 3 row 3
SHORT = ["202a", "203a"]  # 3 + 3 rows, finish on tile 2 row 3
BEND = ["202a", {"tile": "217a", "turn": "left"}, "302a"]  # slide, corner 2/3, slide
SHORTCUT = ["202a", {"tile": "217b", "turn": "left"}, "302a"]  # + shortcut X1.1 limit 3
HAIRPIN = ["202a", {"tile": "210a", "turn": "left"}, "302a"]  # corner 1/2, no slides
HAIRPIN_MUD = [
    "202a",
    {"tile": "210a", "turn": "left", "tokens": [{"token": "mud", "value": -1}]},
    "302a",
]
DOUBLE = ["202a", "215a", "302a"]  # two hairpins 1/2 on one tile, slides between
CHICANE = ["202a", "231a", "302a"]  # one full-width chicane space, limit 5
JUMP3 = ["202a", "204b", "302a"]  # jump 3 on tile 2 row 1
FORD = ["202a", "207b", "302a"]  # ford on tile 2 row 2, jump 4 on row 3
CLIMB_UP = ["301a", {"tile": "418a", "climb": "up"}, "302a"]  # lines 2:1.1>1.2>1.3 uphill
CLIMB_DOWN = ["301a", {"tile": "418a", "climb": "down"}, "302a"]
CLIMB_TOKENS = [
    "301a",
    {"tile": "305a", "tokens": [{"token": "climb", "value": -1}]},  # ascent
    {"tile": "316a", "turn": "right", "tokens": [{"token": "climb", "value": 1}]},  # descent
    "302a",
]
OXYGEN = [
    "301a",
    {"tile": "305a", "tokens": [{"token": "oxygen", "value": 1}]},
    {"tile": "303a", "tokens": [{"token": "oxygen", "value": 1}]},
    "302a",
]
OXYGEN2 = ["301a", {"tile": "305a", "tokens": [{"token": "oxygen", "value": 2}]}, "302a"]
CLOUD = ["301a", "303a", {"tile": "302a", "tokens": [{"token": "cloud"}]}]  # cloud on the finish
SNOW = ["301b", "302a"]  # snow (limit 2) then asphalt (limit 3)
TURINI = [
    "202a",
    "205b",
    {"tile": "217b", "turn": "left"},
    {"tile": "208a", "turn": "right"},
    "206a",
    {"tile": "227a", "turn": "right"},
    "207b",
    {"tile": "222a", "turn": "right"},
    "231a",
    {"tile": "224b", "turn": "left"},
    "204a",
    "203a",
]


def _pos(
    name: str,
    tiles: list[Any],
    space: str,
    gear: int,
    covers: list[str],
    *,
    car: str = "dirt",
    others: list[list[Any]] | None = None,
    leader: bool = False,
    damage: dict[str, int] | None = None,
    mud: dict[int, int] | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "tiles": tiles,
        "space": space,
        "gear": gear,
        "car": car,
        "others": others or [],
        "leader": leader,
        "damage": damage or {},
        "mud": mud or {},
        "covers": covers,
    }


POSITIONS: list[dict[str, Any]] = [
    # --- plain gears, brake, coast, boost -------------------------------------------
    _pos("gear0-start", SHORT, "1:1.1L", 0, ["MOVE-1", "MOVE-2", "MOVE-3", "MOVE-6"]),
    _pos("gear0-short", SHORT, "1:1.2L", 0, ["MOVE-2", "MOVE-3", "MOVE-6", "BOARD-3"]),
    _pos("gear3-mid", STRAIGHT, "2:1.2L", 3, ["MOVE-2", "MOVE-3", "MOVE-4", "MOVE-6"]),
    _pos("gear6-brake", STRAIGHT, "2:1.1R", 6, ["MOVE-2", "MOVE-4"]),
    _pos("r5-gear0-boost", SHORT, "1:1.1L", 0, ["MOVE-5"], car="r5"),
    _pos("r5-gear3-boost", STRAIGHT, "2:1.2L", 3, ["MOVE-4", "MOVE-5"], car="r5"),
    _pos("snow-then-asphalt", SNOW, "1:1.2L", 2, ["MOVE-7", "DASH-1"]),
    # --- corners, slides, shortcuts, chicane ----------------------------------------
    _pos("corner-entry", BEND, "1:1.2L", 2, ["CORNER-1", "CORNER-2", "CORNER-3"]),
    _pos("corner-inside-outer", BEND, "2:2.O1", 3, ["CORNER-1", "CORNER-2"]),
    _pos("corner-inside-inner", BEND, "2:2.I1", 2, ["CORNER-2", "CORNER-3"]),
    _pos("double-hairpin", DOUBLE, "1:1.3R", 2, ["CORNER-1", "CORNER-2", "CORNER-3"]),
    _pos("slide-on-s1", BEND, "2:1.1S1", 3, ["CORNER-3"]),
    _pos("shortcut-limit", SHORTCUT, "2:1.1L", 3, ["SHORTCUT-1", "CORNER-3"]),
    _pos("shortcut-from-slide", SHORTCUT, "2:1.1S2", 4, ["SHORTCUT-1", "CORNER-3"]),
    _pos("chicane", CHICANE, "1:1.3L", 5, ["CORNER-1", "BOARD-2"]),
    # --- jumps and fords --------------------------------------------------------------
    _pos("jump-at-N", JUMP3, "1:1.3L", 2, ["JUMP-1"]),
    _pos("jump-N+1", JUMP3, "1:1.3L", 3, ["JUMP-1"]),
    _pos("jump-N+2", JUMP3, "1:1.3R", 4, ["JUMP-1"]),
    _pos("jump-N+2-boost", JUMP3, "1:1.3L", 3, ["JUMP-1", "MOVE-5"], car="r5"),
    _pos(
        "jump-forbidden-landing",
        JUMP3,
        "1:1.3L",
        2,
        ["JUMP-2", "TRAFFIC-3"],
        others=[["2:1.2L", 1], ["2:1.2R", 1]],
    ),
    _pos("jump-N+1-landing-taken", JUMP3, "1:1.3L", 3, ["JUMP-2"], others=[["3:1.1L", 2]]),
    _pos("ford-gear2", FORD, "2:1.1L", 2, ["FORD-1"]),
    _pos("ford-gear3", FORD, "2:1.1R", 3, ["FORD-1", "MOVE-4"]),
    _pos("ford-leader", FORD, "2:1.1L", 3, ["FORD-1", "MOVE-3"], leader=True),
    # --- climb lines and tokens --------------------------------------------------------
    _pos("climb-up", CLIMB_UP, "2:1.1L", 3, ["CLIMB-1", "CLIMB-2", "CLIMB-3"]),
    _pos("climb-up-r5", CLIMB_UP, "2:1.1L", 3, ["CLIMB-2", "CLIMB-3", "CLIMB-4"], car="r5"),
    _pos("climb-down", CLIMB_DOWN, "2:1.1L", 4, ["CLIMB-1", "CLIMB-2", "CLIMB-3"]),
    _pos("climb-down-gear6", CLIMB_DOWN, "2:1.1L", 6, ["CLIMB-2", "CLIMB-3"]),
    _pos("climb5-gear1-up", CLIMB_UP, "2:1.1L", 1, ["CLIMB-5"]),
    _pos("climb5-gear0-up", CLIMB_UP, "2:1.1R", 0, ["CLIMB-5"]),
    _pos("climb-up-leader", CLIMB_UP, "2:1.1L", 2, ["CLIMB-3", "MOVE-3"], car="r5", leader=True),
    _pos("climb-tokens", CLIMB_TOKENS, "1:1.4L", 4, ["CLIMB-6", "CLIMB-2"]),
    # --- traffic -----------------------------------------------------------------------
    _pos("overtake-beside", STRAIGHT, "2:1.1L", 3, ["TRAFFIC-1"], others=[["2:1.2R", 4]]),
    _pos(
        "pass-between",
        STRAIGHT,
        "2:1.1L",
        2,
        ["TRAFFIC-1", "TRAFFIC-2"],
        others=[["2:1.1R", 5], ["2:1.2L", 2]],
    ),
    _pos(
        "shortcut-beside-car",
        SHORTCUT,
        "2:1.1L",
        2,
        ["SHORTCUT-3", "TRAFFIC-1"],
        others=[["2:3.1L", 3]],
    ),
    _pos(
        "alongside-from-the-start",  # TRAFFIC-1 DEFAULT: beside the car already
        SHORTCUT,
        "2:1.1S1",
        2,
        ["TRAFFIC-1", "SHORTCUT-3", "CORNER-3"],
        others=[["2:X1.1", 5]],
    ),
    _pos("car-in-corner", BEND, "1:1.3L", 3, ["TRAFFIC-3"], others=[["2:2.O2", 3]]),
    _pos("car-sliding", BEND, "1:1.2R", 2, ["TRAFFIC-3", "CORNER-3"], others=[["2:1.1S2", 3]]),
    _pos(
        "crashed-car",
        STRAIGHT,
        "2:1.2L",
        3,
        ["TRAFFIC-4"],
        others=[["2:1.3L", 4, False], ["2:1.3R", 4, False]],
    ),
    # --- tokens, mud, leader, damage ---------------------------------------------------
    _pos("oxygen-1-1", OXYGEN, "1:1.3L", 3, ["CLIMB-7"]),
    _pos("oxygen-2", OXYGEN2, "1:1.3R", 3, ["CLIMB-7"]),
    _pos("cloud", CLOUD, "2:1.1L", 3, ["CLIMB-8"]),
    _pos("mud-1", BEND, "1:1.2L", 2, ["SHORTCUT-2", "CORNER-1"], mud={2: 1}),
    _pos("mud-corner-closed", HAIRPIN, "1:1.2L", 2, ["SHORTCUT-2", "CORNER-1"], mud={2: 1}),
    _pos("mud-token-on-tile", HAIRPIN_MUD, "1:1.2R", 2, ["SHORTCUT-2", "CORNER-1"]),
    _pos("mud-hairpin-shut", HAIRPIN, "1:1.2L", 2, ["SHORTCUT-2", "CORNER-1"], mud={2: 2}),
    _pos("leader", STRAIGHT, "2:1.2L", 3, ["MOVE-3"], leader=True),
    _pos(
        "damage",
        STRAIGHT,
        "2:1.1L",
        3,
        ["DAMAGE-3", "MOVE-7"],
        damage={"gear": 2, "brake": 1, "coast": 1},
    ),
    _pos(
        "damage-leader",
        STRAIGHT,
        "2:1.1L",
        3,
        ["DAMAGE-3", "MOVE-3"],
        leader=True,
        damage={"coast": 2},
    ),
    # --- a whole stage, mid-way --------------------------------------------------------
    _pos("turini-mid", TURINI, "7:1.1L", 3, ["FORD-1", "JUMP-1", "CORNER-1", "MOVE-6"]),
]


def context(pos: dict[str, Any]) -> PlanContext:
    """The planning position a perft entry describes."""
    others = [tuple(o) for o in pos["others"]]
    ctx = position(
        pos["tiles"],
        space=pos["space"],
        gear=pos["gear"],
        car=pos["car"],
        others=[(str(o[0]), int(o[1])) for o in others],
        leader=pos["leader"],
        damage=Damage(**pos["damage"]),
        mud={int(k): v for k, v in pos["mud"].items()},
    )
    if any(len(o) > 2 for o in others):  # a third item: the car blocks (False: crashed)
        blocking = tuple(
            OtherCar(str(o[0]), int(o[1]), bool(o[2]) if len(o) > 2 else True) for o in others
        )
        ctx = replace(ctx, others=blocking)
    return ctx


def tally(pos: dict[str, Any]) -> dict[str, Any]:
    """Plan count and counts per mark of one position (one pass over its plans)."""
    count = 0
    marks = {"loc": 0, "jump_risk": 0, "cloud": 0, "free": 0}
    for plan in legal_plans(context(pos)):
        count += 1
        steps = plan.steps
        marks["loc"] += steps[-1].loc is not None
        marks["jump_risk"] += any(s.jump_risk for s in steps)
        marks["cloud"] += any(s.cloud for s in steps)
        marks["free"] += any(s.free for s in steps)
    return {"count": count, "marks": marks}


def perft(pos: dict[str, Any]) -> dict[str, Any]:
    """What the golden file pins for one position: count, counts per first step, marks."""
    return {**tally(pos), "by_first": plans_by_first(context(pos))}


def golden() -> dict[str, Any]:
    """Everything the golden file holds, by position name."""
    return {pos["name"]: perft(pos) for pos in POSITIONS}


def main() -> None:
    """Write the golden file (``--show``: print the counts instead)."""
    data = golden()
    if "--show" in sys.argv[1:]:
        for name, entry in data.items():
            print(f"{name:26s} {entry['count']:7d}  {entry['marks']}")
        return
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(REPO)} ({len(data)} positions)")


if __name__ == "__main__":
    main()
