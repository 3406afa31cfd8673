"""Replay files: the full turn log of one race, re-run and checked event by event.

What ``simulate --replay`` writes, ``replay`` reads: the seeds ``--seed`` accepts
(:data:`MAX_SEED`) give race seeds a replay file accepts (:data:`MAX_RACE_SEED`), and a
replay is never written larger than a replay file may be
(:data:`~trackkit.formats.source.MAX_REPLAY_BYTES`).

Each turn of the log (``trackkit-replay/2``) holds the round, driver and attempt, where
the car stood and in which gear (``start``, ``gear``), its plan as text (``plan``) and as
data (``steps``: each step's ``space`` and ``dice``, and for a jump the space the dice were
placed on, ``placed_on``), the rolling mode and every event; a GT race's turns also hold
the drivers whose yellow flag was out (``flags``, from 0, GT-4; a GT file written before
them has none, and is checked without them). A file of the first version,
``trackkit-replay/1``, has no ``start``, ``gear`` or ``steps``: it is still replayed, its
turns checked on the fields it has.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError

from trackkit.checks.pipeline import validate
from trackkit.errors import TrackkitError
from trackkit.formats.source import MAX_REPLAY_BYTES, format_loc, read_json
from trackkit.models.car import CarFile
from trackkit.models.stage import Stage
from trackkit.rules.cars import car_problems
from trackkit.rules.plans import PlanStep
from trackkit.rules.resolve import Event, Mode
from trackkit.rules.track import Track
from trackkit.sim.race import DriverSpec, RaceResult, Settings, prepare, run_race
from trackkit.sim.script import Script, ScriptedTurn, ScriptError
from trackkit.sim.stats import race_seed

__all__ = [
    "MAX_RACE_SEED",
    "MAX_SEED",
    "REPLAY_FORMAT",
    "REPLAY_FORMAT_1",
    "ReplayError",
    "check_replay",
    "load_replay",
    "replay_document",
]

REPLAY_FORMAT = "trackkit-replay/2"
#: Replay files of the first version: their turns lack ``start``, ``gear`` and ``steps``.
REPLAY_FORMAT_1 = "trackkit-replay/1"
#: The fields of a turn in a ``trackkit-replay/1`` file (what a check of one compares).
_FIELDS_1 = ("round", "driver", "attempt", "plan", "mode", "events")

#: ``--seed`` is a whole number from ``-MAX_SEED`` to ``MAX_SEED`` (a signed 64-bit number).
MAX_SEED = 2**63 - 1
#: The most races one run has (``simulate --races``).
MAX_RACES = 100_000
#: A replay file's seed is the seed of its race, ``race_seed(seed, index)``: at most this far
#: from 0 for any seed ``--seed`` accepts.
MAX_RACE_SEED = race_seed(MAX_SEED, MAX_RACES)


def _driver_dict(d: DriverSpec) -> dict[str, Any]:
    car = d.car if isinstance(d.car, str) else d.car.model_dump(mode="json", exclude_none=True)
    bot: str | dict[str, Any] = d.bot if isinstance(d.bot, str) else _script_dict(d.bot)
    return {"name": d.name, "car": car, "bot": bot}  # a car file is kept whole


def _script_dict(script: Script) -> dict[str, Any]:
    turns = [
        {"plan": str(t), "mode": t.mode.value, **({"pit": t.pit} if t.pit else {})}
        for t in script.turns
    ]
    return {"script": turns, "then": script.then}


def _step_dict(step: PlanStep) -> dict[str, Any]:
    out: dict[str, Any] = {"space": step.space, "dice": [d.label for d in step.dice]}
    if step.placed_on != step.space:  # a jump: the dice lie on the jump, the car lands on
        out["placed_on"] = step.placed_on
    return out


def _settings_dict(settings: Settings) -> dict[str, Any]:
    out: dict[str, Any] = {
        "drivers": [_driver_dict(d) for d in settings.drivers],
        "hillclimb": settings.hillclimb,
        "attempts": settings.attempts,
        "max_rounds": settings.max_rounds,
        "short_game": settings.short_game,
    }
    gt = settings.gt
    if gt is not None:  # a GT race: its laps, weather, grid and options (GT-1..3)
        out["gt"] = {
            "laps": gt.laps,
            "weather": gt.weather,
            "grid": gt.grid,
            "pit_stops": gt.pit_stops,
            "flying_start": gt.flying_start,
        }
    return out


def _events(events: Sequence[Event], gt: bool) -> list[dict[str, Any]]:
    """A turn's events as a replay holds them.

    A GT race counts no time: the rules engine's ``seconds`` event (the second tokens a
    flat-out throw earns, TURN-4) is, on a GT track, the focus tokens earned (GT-5) and
    is written ``focus``.
    """
    out = [e._asdict() for e in events]
    if gt:
        for e in out:
            if e["kind"] == "seconds":
                e["kind"] = "focus"
    return out


def _log(result: RaceResult) -> list[dict[str, Any]]:
    gt = result.gt is not None
    return [
        {
            "round": t.round,
            "driver": t.driver,
            "attempt": t.attempt,
            "start": t.start,
            "gear": t.gear,
            "plan": t.plan,
            "steps": [_step_dict(s) for s in t.steps],
            "mode": t.mode,
            "events": _events(t.events, gt),
            **({"flags": list(t.flags)} if gt else {}),  # GT: the yellow flags out (GT-4)
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


def _bot(bot: str | _ReplayScript) -> str | Script:
    if isinstance(bot, str):
        return bot
    turns = tuple(ScriptedTurn.parse(t.plan, t.mode, t.pit) for t in bot.script)
    return Script(turns, bot.then)


class ReplayError(TrackkitError, ValueError):
    """A replay file that cannot be replayed at all (exit status 2)."""


class _ReplayTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    plan: str = Field(max_length=2000, description="The plan, as the turn log writes it.")
    mode: Mode = Field(description="flat-out or one-by-one.")
    pit: Literal["no", "tyres", "repair"] | None = Field(
        default=None, description="GT: the pit stop asked for, if any (GT-2)."
    )


class _ReplayScript(BaseModel):
    model_config = ConfigDict(extra="forbid")
    script: list[_ReplayTurn] = Field(max_length=10_000, description="Scripted turns.")
    then: str | None = Field(description="The bot that drives on after the script.")


class _ReplayDriver(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200, description="Driver name.")
    car: str | CarFile = Field(description="Car id, or the whole car file.")
    bot: str | _ReplayScript = Field(description="Bot name, or a scripted driver's script.")


class _ReplayGt(BaseModel):
    model_config = ConfigDict(extra="forbid")
    laps: StrictInt | None = Field(ge=1, le=1000, description="Laps (None: the track's).")
    weather: Literal["dry", "rain"] | None = Field(description="The weather at the start.")
    grid: Literal["drawn", "given"] = Field(description="How the grid was filled.")
    pit_stops: StrictBool | None = Field(description="GT-2 played (None: the ruleset's).")
    flying_start: StrictBool | None = Field(description="GT-1 played (None: the ruleset's).")


class _ReplaySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    drivers: list[_ReplayDriver] = Field(min_length=1, max_length=6, description="Drivers.")
    hillclimb: StrictBool = Field(description="Three attempts each.")
    attempts: StrictInt = Field(ge=1, le=10, description="Attempts per driver.")
    max_rounds: StrictInt = Field(ge=1, le=10_000, description="Turn cap.")
    short_game: StrictBool = Field(description="HILLCLIMB-4 short-game rule.")
    gt: _ReplayGt | None = Field(default=None, description="A Rallyman: GT race's options.")


class _ReplayFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: str = Field(description="trackkit-replay/2 (or /1).")
    stage: Stage = Field(description="The stage raced.")
    settings: _ReplaySettings = Field(description="How the race was run.")
    seed: StrictInt = Field(ge=-MAX_RACE_SEED, le=MAX_RACE_SEED, description="The race's seed.")
    times: list[StrictInt | None] = Field(description="Each driver's best time.")
    log: list[dict[str, Any]] = Field(description="Every turn and its events.")


def _difference(key: str, recorded: object, replayed: object) -> str:
    """What differs in a turn's field, as users read it.

    Drivers are counted from 1, as everywhere users see them (the log holds them from
    0); of two lists (the events, the steps) the first item that differs is shown, with
    its place, rather than both lists cut short before it.
    """
    if key == "driver" and isinstance(recorded, int) and isinstance(replayed, int):
        return f"its driver: recorded driver {recorded + 1}, replayed driver {replayed + 1}"
    if isinstance(recorded, list) and isinstance(replayed, list):
        item = key[:-1] if key.endswith("s") else key
        for i, (x, y) in enumerate(zip(recorded, replayed, strict=False)):
            if x != y:
                return (
                    f"its {key}, {item} {i + 1} of {len(recorded)}: recorded {_item(x)}, "
                    f"replayed {_item(y)}"
                )
        shorter, more = (
            ("replayed", recorded) if len(recorded) > len(replayed) else ("recorded", replayed)
        )
        i = min(len(recorded), len(replayed))
        return (
            f"its {key}: {len(recorded)} recorded, {len(replayed)} replayed; the {shorter} "
            f"turn stops before {item} {i + 1}, {_item(more[i])}"
        )
    return f"its {key}: recorded {_short(recorded)}, replayed {_short(replayed)}"


def _renamed(events: list[Any]) -> list[Any]:
    """A GT turn's recorded events with ``seconds`` read as ``focus`` (see :func:`_events`)."""
    return [
        {**e, "kind": "focus"} if isinstance(e, dict) and e.get("kind") == "seconds" else e
        for e in events
    ]


def _item(value: object) -> str:
    """An event or step of a turn in a line: its fields that are set, ``key=value``."""
    if not isinstance(value, dict):
        return _short(value)
    text = "{" + ", ".join(f"{k}={v!r}" for k, v in value.items() if v is not None) + "}"
    return text if len(text) <= 160 else text[:159] + "…"


def _short(value: object, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
    if not isinstance(doc, dict) or doc.get("format") not in (REPLAY_FORMAT, REPLAY_FORMAT_1):
        got = doc.get("format") if isinstance(doc, dict) else None
        if isinstance(got, str) and got.startswith("trackkit-replay/"):
            raise ReplayError(
                f"replay format {got[:40]!r} is not one this trackkit reads: it replays "
                f"{REPLAY_FORMAT} and {REPLAY_FORMAT_1} files"
            )
        raise ReplayError(_not_a_replay(doc))
    try:
        rep = _ReplayFile.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ReplayError(f"broken replay file at {where}: {first['msg']}") from None
    report = validate(rep.stage, players=len(rep.settings.drivers))
    if not report.valid:
        raise ReplayError(f"the recorded stage has errors ({', '.join(report.codes)})")
    raw = rep.settings
    for d in raw.drivers:
        problems = car_problems(d.car) if isinstance(d.car, CarFile) else []
        if problems:
            loc, message = problems[0]
            raise ReplayError(f"broken car of {d.name!r} at {format_loc(loc)}: {message}")
    try:
        drivers = tuple(DriverSpec(d.name, d.car, _bot(d.bot)) for d in raw.drivers)
    except ScriptError as exc:
        raise ReplayError(f"broken script in the replay file: {exc}") from None
    gt = None
    if raw.gt is not None:
        from trackkit.sim.gt_race import GtOptions

        g = raw.gt
        gt = GtOptions(g.laps, g.weather, g.grid, g.pit_stops, g.flying_start)
    settings = Settings(
        drivers,
        hillclimb=raw.hillclimb,
        attempts=raw.attempts,
        max_rounds=raw.max_rounds,
        short_game=raw.short_game,
        gt=gt,
    )
    try:
        prepared = prepare(Track.from_graph(report.graph, report.layout))
        result = run_race(prepared, settings, rep.seed)
    except ScriptError as exc:  # a script that no longer fits the race
        return False, f"the race replayed differs: {exc}"
    except ValueError as exc:  # an unknown car or bot
        raise ReplayError(str(exc)) from None
    again = _log(result)
    want = rep.log
    if raw.gt is not None:  # GT replays written before focus events had seconds events
        want = [
            {**turn, "events": _renamed(turn["events"])}
            if isinstance(turn.get("events"), list)
            else turn
            for turn in want
        ]
    if rep.format == REPLAY_FORMAT_1:  # what the first version recorded of each turn
        again = [{k: turn[k] for k in _FIELDS_1} for turn in again]
    elif raw.gt is not None and not any("flags" in turn for turn in want):
        # a GT replay written before its turns held the yellow flags out
        again = [{k: v for k, v in turn.items() if k != "flags"} for turn in again]
    for k, (a, b) in enumerate(zip(want, again, strict=False)):
        if a != b:
            # name the first field that differs (the plan may be the same, the events not)
            key = next((f for f in (*b, *a) if a.get(f) != b.get(f)), "plan")
            return False, (
                f"turn {k + 1} (round {a.get('round')}, driver {b['driver'] + 1}) differs in "
                + _difference(key, a.get(key), b.get(key))
            )
    if len(want) != len(again):
        return False, f"recorded {len(want)} turns, replayed {len(again)}"
    times = [d.best for d in result.drivers]
    if times != rep.times:
        return False, f"recorded times {rep.times}, replayed {times}"
    return True, f"{len(want)} turns replayed, every event matches"


def _not_a_replay(doc: object) -> str:
    """Why ``doc`` is not a replay document, in words (and what writes one)."""
    hint = "'trackkit simulate STAGE --replay FILE' writes one"
    if not isinstance(doc, dict):
        kinds = {list: "a list", str: "a string", bool: "true or false", type(None): "null"}
        what = next((w for t, w in kinds.items() if isinstance(doc, t)), "a number")
        return f"not a replay file: it holds {what}, not a replay document ({hint})"
    if "format" not in doc:
        report = "settings" in doc and "finish_rate" in doc
        return (
            "not a replay file: the file has no 'format' (a replay file says format: "
            f"{REPLAY_FORMAT})"
            + ("; it looks like a 'simulate --format json' report" if report else "")
            + f"; {hint}"
        )
    got = doc["format"]
    shown = got[:40] if isinstance(got, str) else got
    return (
        f"not a replay file: its format is {shown!r}, not {REPLAY_FORMAT} or "
        f"{REPLAY_FORMAT_1} ({hint})"
    )
