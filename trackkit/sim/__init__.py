"""Races with bots: the race loop, bots, stuck cars, statistics, replays and par time.

To script a race: :class:`RacePosition` (where it starts: cars, gears, damage, tokens,
mud, round; for a Rallyman: GT race, :class:`GtCar` per car: gear 00 or the pit, tyres,
a yellow flag out, and the weather of :class:`GtOptions`), :class:`Script` (a driver
that plays given plans, and at a GT pit space drives on, fits tyres or mends its damage:
:class:`ScriptedTurn`), ``run_race(..., dice=ScriptedDice(...))`` (fixed rolls,
:mod:`trackkit.rules.dice`); each :class:`TurnLog` says where the car stood, its plan's
steps and, GT, the yellow flags out.

Examples
--------
>>> from trackkit.rules import CarState, position, track_of
>>> from trackkit.sim import DriverSpec, RacePosition, Script, Settings, prepare, run_race
>>> stage = prepare(track_of(["202a", "205a", "206a", "203a"]))
>>> me = DriverSpec("me", bot=Script.of(["2:1.2L G4 > 2:1.3L G5"], then="cautious"))
>>> result = run_race(stage, Settings((me,)), seed=1,
...                   start=RacePosition((CarState(0, "2:1.1L", 3),)))
>>> result.log[0].plan, result.drivers[0].finished
('2:1.2L G4 > 2:1.3L G5', True)
"""

from trackkit.rules.state import GtCar
from trackkit.sim.bots import BOTS, make_bot
from trackkit.sim.garage import build_unlimited, stage_profile
from trackkit.sim.gt_race import GtOptions
from trackkit.sim.race import (
    UNLIMITED,
    Dnf,
    DriverSpec,
    RacePosition,
    RaceResult,
    Settings,
    TurnLog,
    prepare,
    run_race,
)
from trackkit.sim.script import Script, Scripted, ScriptedTurn, ScriptError
from trackkit.sim.stats import run_many, summarize_races
from trackkit.sim.stuck import StuckSpot

__all__ = [
    "BOTS",
    "UNLIMITED",
    "Dnf",
    "DriverSpec",
    "GtCar",
    "GtOptions",
    "RacePosition",
    "RaceResult",
    "Script",
    "ScriptError",
    "Scripted",
    "ScriptedTurn",
    "Settings",
    "StuckSpot",
    "TurnLog",
    "build_unlimited",
    "make_bot",
    "prepare",
    "run_many",
    "run_race",
    "stage_profile",
    "summarize_races",
]
