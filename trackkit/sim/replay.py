"""Replay files: the full turn log of one race, re-run and checked event by event."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trackkit.errors import TrackkitError
from trackkit.formats.source import format_loc
from trackkit.models.car import CarFile
from trackkit.models.stage import Stage
from trackkit.rules.cars import car_problems
from trackkit.rules.track import Track
from trackkit.sim.race import DriverSpec, RaceResult, Settings, prepare, run_race
from trackkit.validate import validate

__all__ = ["REPLAY_FORMAT", "ReplayError", "check_replay", "replay_document"]

REPLAY_FORMAT = "trackkit-replay/1"


def _driver_dict(d: DriverSpec) -> dict[str, Any]:
    car = d.car if isinstance(d.car, str) else d.car.model_dump(mode="json", exclude_none=True)
    return {"name": d.name, "car": car, "bot": d.bot}  # a car file is kept whole


def _settings_dict(settings: Settings) -> dict[str, Any]:
    return {
        "drivers": [_driver_dict(d) for d in settings.drivers],
        "hillclimb": settings.hillclimb,
        "attempts": settings.attempts,
        "max_rounds": settings.max_rounds,
        "short_game": settings.short_game,
    }


def _log(result: RaceResult) -> list[dict[str, Any]]:
    return [
        {
            "round": t.round,
            "driver": t.driver,
            "attempt": t.attempt,
            "plan": t.plan,
            "mode": t.mode,
            "events": [e._asdict() for e in t.events],
        }
        for t in result.log
    ]


def replay_document(stage: Stage, settings: Settings, seed: int, result: RaceResult) -> str:
    """A replay file: stage, settings, seed and every turn's events."""
    doc = {
        "format": REPLAY_FORMAT,
        "stage": stage.model_dump(mode="json", exclude_none=True),
        "settings": _settings_dict(settings),
        "seed": seed,
        "times": [d.best for d in result.drivers],
        "log": _log(result),
    }
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


class ReplayError(TrackkitError, ValueError):
    """A replay file that cannot be replayed at all (exit status 2)."""


class _ReplayDriver(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200, description="Driver name.")
    car: str | CarFile = Field(description="Car id, or the whole car file.")
    bot: str = Field(description="Bot name.")


class _ReplaySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    drivers: list[_ReplayDriver] = Field(min_length=1, max_length=6, description="Drivers.")
    hillclimb: bool = Field(description="Three attempts each.")
    attempts: int = Field(ge=1, le=10, description="Attempts per driver.")
    max_rounds: int = Field(ge=1, le=10_000, description="Turn cap.")
    short_game: bool = Field(description="HILLCLIMB-4 short-game rule.")


class _ReplayFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: str = Field(description="trackkit-replay/1.")
    stage: Stage = Field(description="The stage raced.")
    settings: _ReplaySettings = Field(description="How the race was run.")
    seed: int = Field(ge=0, lt=2**63, description="The race's seed.")
    times: list[int | None] = Field(description="Each driver's best time.")
    log: list[dict[str, Any]] = Field(description="Every turn and its events.")


def check_replay(doc: object) -> tuple[bool, str]:
    """Re-run a replay file's race; (True, summary) if every event and time matches.

    Raises
    ------
    ReplayError
        If ``doc`` is not a replay document, or its stage cannot be raced.
    """
    if not isinstance(doc, dict) or doc.get("format") != REPLAY_FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise ReplayError(f"not a replay file (format {got!r}; expected {REPLAY_FORMAT})")
    try:
        rep = _ReplayFile.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReplayError(f"broken replay file at {where}: {first['msg']}") from None
    report = validate(rep.stage)
    if not report.valid:
        raise ReplayError(f"the recorded stage has errors ({', '.join(report.codes)})")
    raw = rep.settings
    for d in raw.drivers:
        problems = car_problems(d.car) if isinstance(d.car, CarFile) else []
        if problems:
            loc, message = problems[0]
            raise ReplayError(f"broken car of {d.name!r} at {format_loc(loc)}: {message}")
    settings = Settings(
        tuple(DriverSpec(d.name, d.car, d.bot) for d in raw.drivers),
        hillclimb=raw.hillclimb,
        attempts=raw.attempts,
        max_rounds=raw.max_rounds,
        short_game=raw.short_game,
    )
    try:
        prepared = prepare(Track.from_graph(report.graph, report.layout))
        result = run_race(prepared, settings, rep.seed)
    except ValueError as exc:  # an unknown car or bot
        raise ReplayError(str(exc)) from None
    again = _log(result)
    want = rep.log
    for k, (a, b) in enumerate(zip(want, again, strict=False)):
        if a != b:
            return False, (
                f"turn {k + 1} (round {a.get('round')}, driver {b['driver'] + 1}) differs: "
                f"recorded {a.get('plan')!r}, replayed {b['plan']!r}"
            )
    if len(want) != len(again):
        return False, f"recorded {len(want)} turns, replayed {len(again)}"
    times = [d.best for d in result.drivers]
    if times != rep.times:
        return False, f"recorded times {rep.times}, replayed {times}"
    return True, f"{len(want)} turns replayed, every event matches"
