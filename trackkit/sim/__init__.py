"""Races with bots: the race loop, bots, stuck cars, statistics, replays and par time."""

from trackkit.sim.bots import BOTS, make_bot
from trackkit.sim.garage import build_unlimited, stage_profile
from trackkit.sim.race import UNLIMITED, Dnf, DriverSpec, RaceResult, Settings, prepare, run_race
from trackkit.sim.stats import run_many, summarize_races
from trackkit.sim.stuck import StuckSpot

__all__ = [
    "BOTS",
    "UNLIMITED",
    "Dnf",
    "DriverSpec",
    "RaceResult",
    "Settings",
    "StuckSpot",
    "build_unlimited",
    "make_bot",
    "prepare",
    "run_many",
    "run_race",
    "stage_profile",
    "summarize_races",
]
