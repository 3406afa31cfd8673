"""Replay files: the full turn log of one race, re-run and checked event by event.

What ``simulate --replay`` writes, ``replay`` reads: the seeds ``--seed`` accepts
(:data:`MAX_SEED`) give race seeds a replay file accepts (:data:`MAX_RACE_SEED`), and a
replay is never written larger than a replay file may be
(:data:`~trackkit.formats.source.MAX_REPLAY_BYTES`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trackkit.errors import TrackkitError
from trackkit.formats.source import MAX_REPLAY_BYTES, format_loc, read_json
from trackkit.models.car import CarFile
from trackkit.models.stage import Stage
from trackkit.rules.cars import car_problems
from trackkit.rules.track import Track
from trackkit.sim.race import DriverSpec, RaceResult, Settings, prepare, run_race
from trackkit.sim.stats import race_seed
from trackkit.validate import validate

__all__ = [
    "MAX_RACE_SEED",
    "MAX_SEED",
    "REPLAY_FORMAT",
    "ReplayError",
    "check_replay",
    "load_replay",
    "replay_document",
]

REPLAY_FORMAT = "trackkit-replay/1"

#: ``--seed`` is a whole number from ``-MAX_SEED`` to ``MAX_SEED`` (a signed 64-bit number).
MAX_SEED = 2**63 - 1
#: The most races one run has (``simulate --races``).
MAX_RACES = 100_000
#: A replay file's seed is the seed of its race, ``race_seed(seed, index)``: at most this far
#: from 0 for any seed ``--seed`` accepts.
MAX_RACE_SEED = race_seed(MAX_SEED, MAX_RACES)


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
    """A replay file: stage, settings, seed and every turn's events.

    Raises
    ------
    ReplayError
        If the file would be larger than a replay file may be (a race of thousands of
        rounds on a very long stage), or ``seed`` is beyond :data:`MAX_RACE_SEED`: the
        file could not be read back.
    """
    if abs(seed) > MAX_RACE_SEED:
        raise ReplayError(f"a race seed of {seed} is beyond what a replay file holds")
    log = _log(result)
    doc = {
        "format": REPLAY_FORMAT,
        "stage": stage.model_dump(mode="json", exclude_none=True),
        "settings": _settings_dict(settings),
        "seed": seed,
        "times": [d.best for d in result.drivers],
        "log": log,
    }
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    size = len(text.encode("utf-8"))
    if size > MAX_REPLAY_BYTES:
        mb = 1024 * 1024
        raise ReplayError(
            f"the replay of this race ({len(log):,} turns) would be {size / mb:.1f} MB, "
            f"over the {MAX_REPLAY_BYTES / mb:.0f} MB replay files may hold: not written "
            "(a lower --max-rounds or fewer --players make a shorter race)"
        )
    return text


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
    seed: int = Field(ge=-MAX_RACE_SEED, le=MAX_RACE_SEED, description="The race's seed.")
    times: list[int | None] = Field(description="Each driver's best time.")
    log: list[dict[str, Any]] = Field(description="Every turn and its events.")


def load_replay(path: str | Path) -> Any:
    """The parsed JSON of a replay file (checked by :func:`check_replay`).

    Raises
    ------
    InputError
        Missing, not a regular file, over :data:`~trackkit.formats.source.MAX_REPLAY_BYTES`,
        not JSON, or nested too deeply.
    """
    return read_json(path, what="replay file", limit=MAX_REPLAY_BYTES)


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
