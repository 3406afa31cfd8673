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
generator. The runner is the DIRT suite's too (:mod:`trackkit.rules.perft`); this file is
the GT positions, tracks and marks.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from trackkit.formats import load_stage
from trackkit.rules.perft import Mark, Position, Suite, entry
from trackkit.rules.plans import GtTurn
from trackkit.rules.positions import GT_RING, track_of
from trackkit.rules.ruleset import load_ruleset
from trackkit.rules.track import Track

REPO = Path(__file__).resolve().parents[1]

#: The ring of 12 GT core tiles the positions are played on.
RING = list(GT_RING)


@cache
def track(name: str) -> Track:
    """The tracks of the positions: ``core`` (the example circuit) and ``ring``."""
    if name == "core":
        stage = load_stage(REPO / "examples" / "gt-core-circuit.yaml")
        return track_of([t.model_dump(mode="json", exclude_none=True) for t in stage.tiles])
    return track_of(RING)


def pos(
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
) -> Position:
    """A GT position: the ``track`` it is on (:func:`track`), the lap (GtTurn)."""
    return entry(
        name,
        space,
        gear,
        covers,
        car=car,
        others=others,
        damage=damage,
        track=where,
        gt={"final_lap": final_lap, "yellow": yellow, "flying": flying},
    )


POSITIONS: list[Position] = [
    # --- the grid, gears, the flying start -------------------------------------------
    pos("grid-pole", "core", "1:A3b", 0, ["GT-1", "MOVE-2", "BOARD-3", "DASH-2"]),
    pos("grid-no-flying", "core", "1:A3b", 0, ["MOVE-2", "BOARD-3"], flying=False),
    pos("grid-row-3-gt4", "core", "1:A1d", 0, ["GT-1", "DASH-2"], car="gt4"),
    pos("gt5-boost", "core", "3:A2a", 1, ["MOVE-5", "DASH-2"], car="gt5"),
    pos("gt6-brakes", "core", "3:A2a", 6, ["MOVE-4", "DASH-2"]),
    # --- sharp corners, warning signs, triangles --------------------------------------
    pos("hairpin-sign", "core", "1:A2a", 1, ["CORNER-4", "CORNER-1"]),
    pos("sharp-line-of-1", "core", "3:A2a", 2, ["CORNER-4", "CORNER-1"]),
    pos(
        "triangle-4",
        "core",
        "11:A3a",
        3,
        ["CORNER-5", "CORNER-1", "DAMAGE-3"],
        damage={"coast": 1, "brake": 3},
    ),
    pos(
        "triangle-5-ring",
        "ring",
        "12:A3a",
        4,
        ["CORNER-5", "BOARD-3", "DAMAGE-3"],
        damage={"coast": 1, "brake": 3},
    ),
    # --- traffic ------------------------------------------------------------------------
    pos("beside-a-car", "core", "1:A2c", 3, ["TRAFFIC-1"], others=[["1:A1b", 4]]),
    pos(
        "yellow-flag", "core", "1:A2c", 3, ["TRAFFIC-5", "GT-4"], others=[["1:A2a", 2]], yellow=True
    ),
    pos("no-flag", "core", "1:A2c", 3, ["TRAFFIC-1"], others=[["1:A2a", 2]]),
    pos(
        "car-off-the-road", "core", "1:A2c", 3, ["TRAFFIC-4", "LOC-6"], others=[["1:A2a", 2, False]]
    ),
    pos("corner-side-by-side", "core", "3:A1b", 2, ["TRAFFIC-1"], others=[["4:A3b", 2]]),
    # --- laps, damage, a whole lap ------------------------------------------------------
    pos("final-lap-line", "core", "1:A2c", 2, ["BOARD-3"], final_lap=True),
    pos(
        "damage",
        "ring",
        "7:A2a",
        4,
        ["DAMAGE-3", "DAMAGE-4"],
        damage={"gear": 2, "coast": 1, "brake": 2},
    ),
    pos("ring-fast", "ring", "4:A2a", 5, ["CORNER-4", "MOVE-4"]),
]


def setting(p: Position) -> dict[str, Any]:
    """What a GT position adds: its track, the GT ruleset, the lap (:class:`GtTurn`)."""
    return {"tiles": track(p["track"]), "ruleset": load_ruleset("gt"), "gt": GtTurn(**p["gt"])}


SUITE = Suite(
    name="GT",
    repo=REPO,
    golden="tests/golden/perft-gt.json",
    regen="scripts/regen_perft_gt.py",
    positions=POSITIONS,
    marks={
        "loc": Mark("last", "loc"),
        "sharp": Mark("last", "loc", "sharp"),
        "hazards": Mark("any", "hazards"),
        "flying": Mark("first", "flying"),
        "lap": Mark("any", "lap"),
        "finishes": Mark("last", "finishes"),
    },
    setting=setting,
)


if __name__ == "__main__":
    SUITE.main()
