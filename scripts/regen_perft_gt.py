"""Regenerate the perft pins of the Rallyman: GT turn; review the diff before committing.

    .venv/bin/python scripts/regen_perft_gt.py

``tests/golden/perft-gt.json`` pins, like ``scripts/regen_perft.py`` does for DIRT, the
number of legal turn plans of fixed GT positions (:func:`trackkit.rules.plans.count_plans`),
the counts under each first step (:func:`trackkit.rules.plans.plans_by_first`) and the
plans carrying each GT mark: ``loc`` (a loss of control whatever the roll: over a corner
limit, CORNER-1, or ``sharp``, straight over a dotted line above its number, CORNER-4),
``hazards`` (a danger result whatever the dice: a warning sign, CORNER-4, or a triangle's
gear, CORNER-5), ``flying`` (a flying start, GT-1), ``lap`` (over the start/finish line)
and ``finishes`` (over it after the last lap, BOARD-3).

Each position names the rule ids (``docs/rules.md``) its plans exercise in ``covers``;
``tests/test_perft_gt.py`` checks that together they cover every GT feature of the plan
generator.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from trackkit.formats import load_stage
from trackkit.rules.plans import GtTurn, PlanContext, legal_plans, plans_by_first
from trackkit.rules.positions import GT_RING, position, track_of
from trackkit.rules.ruleset import load_ruleset
from trackkit.rules.state import Damage, OtherCar
from trackkit.rules.track import Track

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "perft-gt.json"

#: The ring of 12 GT core tiles the positions are played on.
RING = list(GT_RING)


@cache
def track(name: str) -> Track:
    """The tracks of the positions: ``core`` (the example circuit) and ``ring``."""
    if name == "core":
        stage = load_stage(REPO / "examples" / "gt-core-circuit.yaml")
        return track_of([t.model_dump(mode="json", exclude_none=True) for t in stage.tiles])
    return track_of(RING)


def _pos(
    name: str,
    where: str,
    space: str,
    gear: int,
    covers: list[str],
    *,
    car: str = "gt6",
    others: list[list[Any]] | None = None,
    damage: dict[str, int] | None = None,
    final_lap: bool = False,
    yellow: bool = False,
    flying: bool = True,
) -> dict[str, Any]:
    return {
        "name": name,
        "track": where,
        "space": space,
        "gear": gear,
        "car": car,
        "others": others or [],
        "damage": damage or {},
        "gt": {"final_lap": final_lap, "yellow": yellow, "flying": flying},
        "covers": covers,
    }


POSITIONS: list[dict[str, Any]] = [
    # --- the grid, gears, the flying start -------------------------------------------
    _pos("grid-pole", "core", "1:A3b", 0, ["GT-1", "MOVE-2", "BOARD-3", "DASH-2"]),
    _pos("grid-no-flying", "core", "1:A3b", 0, ["MOVE-2", "BOARD-3"], flying=False),
    _pos("grid-row-3-gt4", "core", "1:A1d", 0, ["GT-1", "DASH-2"], car="gt4"),
    _pos("gt5-boost", "core", "3:A2a", 1, ["MOVE-5", "DASH-2"], car="gt5"),
    _pos("gt6-brakes", "core", "3:A2a", 6, ["MOVE-4", "DASH-2"]),
    # --- sharp corners, warning signs, triangles --------------------------------------
    _pos("hairpin-sign", "core", "1:A2a", 1, ["CORNER-4", "CORNER-1"]),
    _pos("sharp-line-of-1", "core", "3:A2a", 2, ["CORNER-4", "CORNER-1"]),
    _pos(
        "triangle-4",
        "core",
        "11:A3a",
        3,
        ["CORNER-5", "CORNER-1", "DAMAGE-3"],
        damage={"coast": 1, "brake": 3},
    ),
    _pos(
        "triangle-5-ring",
        "ring",
        "12:A3a",
        4,
        ["CORNER-5", "BOARD-3", "DAMAGE-3"],
        damage={"coast": 1, "brake": 3},
    ),
    # --- traffic ------------------------------------------------------------------------
    _pos("beside-a-car", "core", "1:A2c", 3, ["TRAFFIC-1"], others=[["1:A1b", 4]]),
    _pos(
        "yellow-flag", "core", "1:A2c", 3, ["TRAFFIC-5", "GT-4"], others=[["1:A2a", 2]], yellow=True
    ),
    _pos("no-flag", "core", "1:A2c", 3, ["TRAFFIC-1"], others=[["1:A2a", 2]]),
    _pos(
        "car-off-the-road", "core", "1:A2c", 3, ["TRAFFIC-4", "LOC-6"], others=[["1:A2a", 2, False]]
    ),
    _pos("corner-side-by-side", "core", "3:A1b", 2, ["TRAFFIC-1"], others=[["4:A3b", 2]]),
    # --- laps, damage, a whole lap ------------------------------------------------------
    _pos("final-lap-line", "core", "1:A2c", 2, ["BOARD-3"], final_lap=True),
    _pos(
        "damage",
        "ring",
        "7:A2a",
        4,
        ["DAMAGE-3", "DAMAGE-4"],
        damage={"gear": 2, "coast": 1, "brake": 2},
    ),
    _pos("ring-fast", "ring", "4:A2a", 5, ["CORNER-4", "MOVE-4"]),
]


def context(pos: dict[str, Any]) -> PlanContext:
    """The planning position a perft entry describes."""
    others = [tuple(o) for o in pos["others"]]
    ctx = position(
        track(pos["track"]),
        space=pos["space"],
        gear=pos["gear"],
        car=pos["car"],
        others=[(str(o[0]), int(o[1])) for o in others],
        damage=Damage(**pos["damage"]),
        ruleset=load_ruleset("gt"),
        gt=GtTurn(**pos["gt"]),
    )
    if any(len(o) > 2 for o in others):  # a third item: the car blocks (False: gear 00)
        blocking = tuple(
            OtherCar(str(o[0]), int(o[1]), bool(o[2]) if len(o) > 2 else True) for o in others
        )
        ctx = replace(ctx, others=blocking)
    return ctx


def tally(pos: dict[str, Any]) -> dict[str, Any]:
    """Plan count and counts per mark of one position (one pass over its plans)."""
    count = 0
    marks = {"loc": 0, "sharp": 0, "hazards": 0, "flying": 0, "lap": 0, "finishes": 0}
    for plan in legal_plans(context(pos)):
        count += 1
        steps = plan.steps
        marks["loc"] += steps[-1].loc is not None
        marks["sharp"] += steps[-1].loc == "sharp"
        marks["hazards"] += any(s.hazards for s in steps)
        marks["flying"] += steps[0].flying
        marks["lap"] += any(s.lap for s in steps)
        marks["finishes"] += steps[-1].finishes
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
