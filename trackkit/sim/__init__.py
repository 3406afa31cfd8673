"""Races with bots: the race loop, bots, statistics, replays and par time."""

from trackkit.sim.bots import BOTS, make_bot
from trackkit.sim.race import DriverSpec, RaceResult, Settings, prepare, run_race
from trackkit.sim.stats import run_many, summarize_races

__all__ = [
    "BOTS",
    "DriverSpec",
    "RaceResult",
    "Settings",
    "make_bot",
    "prepare",
    "run_many",
    "run_race",
    "summarize_races",
]
