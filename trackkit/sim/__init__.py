"""Races with bots: the race loop, bots, stuck cars, statistics, replays and par time.

To script a race: :class:`RacePosition` (where it starts: cars, gears, damage, tokens,
mud, round), :class:`Script` (a driver that plays given plans), ``run_race(...,
dice=ScriptedDice(...))`` (fixed rolls, :mod:`trackkit.rules.dice`); each
:class:`TurnLog` says where the car stood and its plan's steps.

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

from trackkit.sim.bots import BOTS, make_bot
from trackkit.sim.garage import build_unlimited, stage_profile
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
