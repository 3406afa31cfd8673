"""Regenerate the perft pins of the rules engine; review the diff before committing.

    .venv/bin/python scripts/regen_perft.py

``tests/golden/perft.json`` pins, like chess perft counts, the number of legal turn plans
(:func:`trackkit.rules.plans.count_plans`) of fixed positions, with the counts under each
first step (:func:`trackkit.rules.plans.plans_by_first`) so that a mismatch points at the
step that changed, and the number of plans carrying each mark (``loc``: the plan ends in a
loss of control whatever the roll; ``jump_risk``: a jump one over its number; ``cloud``: an
automatic danger; ``free``: CLIMB-5's move without a die) -- marks the plain count does not
see (a cloud token adds no plan, only a danger). The runner is the GT suite's too:
:mod:`trackkit.rules.perft`; this file is the DIRT positions and marks.

Each position names the rule ids (``docs/rules.md``) whose plans it exercises in
``covers``; ``tests/test_perft.py`` checks that together they cover every feature of the
plan generator.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trackkit.rules.perft import Mark, Position, Suite, entry

REPO = Path(__file__).resolve().parents[1]

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


def pos(
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
) -> Position:
    """A DIRT position: its stage's ``tiles``, the car leading (MOVE-3), mud by tile."""
    return entry(
        name,
        space,
        gear,
        covers,
        car=car,
        others=others,
        damage=damage,
        tiles=tiles,
        leader=leader,
        mud=mud or {},
    )


POSITIONS: list[Position] = [
    # --- plain gears, brake, coast, boost -------------------------------------------
    pos("gear0-start", SHORT, "1:1.1L", 0, ["MOVE-1", "MOVE-2", "MOVE-3", "MOVE-6"]),
    pos("gear0-short", SHORT, "1:1.2L", 0, ["MOVE-2", "MOVE-3", "MOVE-6", "BOARD-3"]),
    pos("gear3-mid", STRAIGHT, "2:1.2L", 3, ["MOVE-2", "MOVE-3", "MOVE-4", "MOVE-6"]),
    pos("gear6-brake", STRAIGHT, "2:1.1R", 6, ["MOVE-2", "MOVE-4"]),
    pos("r5-gear0-boost", SHORT, "1:1.1L", 0, ["MOVE-5"], car="r5"),
    pos("r5-gear3-boost", STRAIGHT, "2:1.2L", 3, ["MOVE-4", "MOVE-5"], car="r5"),
    pos("snow-then-asphalt", SNOW, "1:1.2L", 2, ["MOVE-7", "DASH-1"]),
    # --- corners, slides, shortcuts, chicane ----------------------------------------
    pos("corner-entry", BEND, "1:1.2L", 2, ["CORNER-1", "CORNER-2", "CORNER-3"]),
    pos("corner-inside-outer", BEND, "2:2.O1", 3, ["CORNER-1", "CORNER-2"]),
    pos("corner-inside-inner", BEND, "2:2.I1", 2, ["CORNER-2", "CORNER-3"]),
    pos("double-hairpin", DOUBLE, "1:1.3R", 2, ["CORNER-1", "CORNER-2", "CORNER-3"]),
    pos("slide-on-s1", BEND, "2:1.1S1", 3, ["CORNER-3"]),
    pos("shortcut-limit", SHORTCUT, "2:1.1L", 3, ["SHORTCUT-1", "CORNER-3"]),
    pos("shortcut-from-slide", SHORTCUT, "2:1.1S2", 4, ["SHORTCUT-1", "CORNER-3"]),
    pos("chicane", CHICANE, "1:1.3L", 5, ["CORNER-1", "BOARD-2"]),
    # --- jumps and fords --------------------------------------------------------------
    pos("jump-at-N", JUMP3, "1:1.3L", 2, ["JUMP-1"]),
    pos("jump-N+1", JUMP3, "1:1.3L", 3, ["JUMP-1"]),
    pos("jump-N+2", JUMP3, "1:1.3R", 4, ["JUMP-1"]),
    pos("jump-N+2-boost", JUMP3, "1:1.3L", 3, ["JUMP-1", "MOVE-5"], car="r5"),
    pos(
        "jump-forbidden-landing",
        JUMP3,
        "1:1.3L",
        2,
        ["JUMP-2", "TRAFFIC-3"],
        others=[["2:1.2L", 1], ["2:1.2R", 1]],
    ),
    pos("jump-N+1-landing-taken", JUMP3, "1:1.3L", 3, ["JUMP-2"], others=[["3:1.1L", 2]]),
    pos("ford-gear2", FORD, "2:1.1L", 2, ["FORD-1"]),
    pos("ford-gear3", FORD, "2:1.1R", 3, ["FORD-1", "MOVE-4"]),
    pos("ford-leader", FORD, "2:1.1L", 3, ["FORD-1", "MOVE-3"], leader=True),
    # --- climb lines and tokens --------------------------------------------------------
    pos("climb-up", CLIMB_UP, "2:1.1L", 3, ["CLIMB-1", "CLIMB-2", "CLIMB-3"]),
    pos("climb-up-r5", CLIMB_UP, "2:1.1L", 3, ["CLIMB-2", "CLIMB-3", "CLIMB-4"], car="r5"),
    pos("climb-down", CLIMB_DOWN, "2:1.1L", 4, ["CLIMB-1", "CLIMB-2", "CLIMB-3"]),
    pos("climb-down-gear6", CLIMB_DOWN, "2:1.1L", 6, ["CLIMB-2", "CLIMB-3"]),
    pos("climb5-gear1-up", CLIMB_UP, "2:1.1L", 1, ["CLIMB-5"]),
    pos("climb5-gear0-up", CLIMB_UP, "2:1.1R", 0, ["CLIMB-5"]),
    pos("climb-up-leader", CLIMB_UP, "2:1.1L", 2, ["CLIMB-3", "MOVE-3"], car="r5", leader=True),
    pos("climb-tokens", CLIMB_TOKENS, "1:1.4L", 4, ["CLIMB-6", "CLIMB-2"]),
    # --- traffic -----------------------------------------------------------------------
    pos("overtake-beside", STRAIGHT, "2:1.1L", 3, ["TRAFFIC-1"], others=[["2:1.2R", 4]]),
    pos(
        "pass-between",
        STRAIGHT,
        "2:1.1L",
        2,
        ["TRAFFIC-1", "TRAFFIC-2"],
        others=[["2:1.1R", 5], ["2:1.2L", 2]],
    ),
    pos(
        "shortcut-beside-car",
        SHORTCUT,
        "2:1.1L",
        2,
        ["SHORTCUT-3", "TRAFFIC-1"],
        others=[["2:3.1L", 3]],
    ),
    pos(
        "alongside-from-the-start",  # TRAFFIC-1 DEFAULT: beside the car already
        SHORTCUT,
        "2:1.1S1",
        2,
        ["TRAFFIC-1", "SHORTCUT-3", "CORNER-3"],
        others=[["2:X1.1", 5]],
    ),
    pos("car-in-corner", BEND, "1:1.3L", 3, ["TRAFFIC-3"], others=[["2:2.O2", 3]]),
    pos("car-sliding", BEND, "1:1.2R", 2, ["TRAFFIC-3", "CORNER-3"], others=[["2:1.1S2", 3]]),
    pos(
        "crashed-car",
        STRAIGHT,
        "2:1.2L",
        3,
        ["TRAFFIC-4"],
        others=[["2:1.3L", 4, False], ["2:1.3R", 4, False]],
    ),
    # --- tokens, mud, leader, damage ---------------------------------------------------
    pos("oxygen-1-1", OXYGEN, "1:1.3L", 3, ["CLIMB-7"]),
    pos("oxygen-2", OXYGEN2, "1:1.3R", 3, ["CLIMB-7"]),
    pos("cloud", CLOUD, "2:1.1L", 3, ["CLIMB-8"]),
    pos("mud-1", BEND, "1:1.2L", 2, ["SHORTCUT-2", "CORNER-1"], mud={2: 1}),
    pos("mud-corner-closed", HAIRPIN, "1:1.2L", 2, ["SHORTCUT-2", "CORNER-1"], mud={2: 1}),
    pos("mud-token-on-tile", HAIRPIN_MUD, "1:1.2R", 2, ["SHORTCUT-2", "CORNER-1"]),
    pos("mud-hairpin-shut", HAIRPIN, "1:1.2L", 2, ["SHORTCUT-2", "CORNER-1"], mud={2: 2}),
    pos("leader", STRAIGHT, "2:1.2L", 3, ["MOVE-3"], leader=True),
    pos(
        "damage",
        STRAIGHT,
        "2:1.1L",
        3,
        ["DAMAGE-3", "MOVE-7"],
        damage={"gear": 2, "brake": 1, "coast": 1},
    ),
    pos(
        "damage-leader",
        STRAIGHT,
        "2:1.1L",
        3,
        ["DAMAGE-3", "MOVE-3"],
        leader=True,
        damage={"coast": 2},
    ),
    # --- a whole stage, mid-way --------------------------------------------------------
    pos("turini-mid", TURINI, "7:1.1L", 3, ["FORD-1", "JUMP-1", "CORNER-1", "MOVE-6"]),
]


def setting(p: Position) -> dict[str, Any]:
    """What a DIRT position adds: its stage, the leader (MOVE-3), mud (SHORTCUT-2)."""
    return {
        "tiles": p["tiles"],
        "leader": p["leader"],
        "mud": {int(k): v for k, v in p["mud"].items()},
    }


SUITE = Suite(
    name="DIRT",
    repo=REPO,
    golden="tests/golden/perft.json",
    regen="scripts/regen_perft.py",
    positions=POSITIONS,
    marks={
        "loc": Mark("last", "loc"),
        "jump_risk": Mark("any", "jump_risk"),
        "cloud": Mark("any", "cloud"),
        "free": Mark("any", "free"),
    },
    setting=setting,
)


if __name__ == "__main__":
    SUITE.main()
