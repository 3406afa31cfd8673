"""Replay files: the full turn log of one race, re-run and checked event by event."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from trackkit.assemble import lay_out
from trackkit.graph import build_graph
from trackkit.models.stage import Stage
from trackkit.rules.track import Track
from trackkit.sim.race import DriverSpec, RaceResult, Settings, prepare, run_race

__all__ = ["REPLAY_FORMAT", "check_replay", "replay_document"]

REPLAY_FORMAT = "trackkit-replay/1"


def _settings_dict(settings: Settings) -> dict[str, Any]:
    return {
        "drivers": [asdict(d) for d in settings.drivers],
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
            "events": [asdict(e) for e in t.events],
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


def check_replay(doc: dict[str, Any]) -> tuple[bool, str]:
    """Re-run a replay file's race; (True, summary) if every event matches."""
    if doc.get("format") != REPLAY_FORMAT:
        return False, f"not a replay file (format {doc.get('format')!r}, want {REPLAY_FORMAT})"
    stage = Stage.model_validate(doc["stage"])
    raw = doc["settings"]
    settings = Settings(
        tuple(DriverSpec(**d) for d in raw["drivers"]),
        hillclimb=raw["hillclimb"],
        attempts=raw["attempts"],
        max_rounds=raw["max_rounds"],
        short_game=raw["short_game"],
    )
    layout = lay_out(stage)
    track = Track.from_graph(build_graph(layout), layout)
    result = run_race(prepare(track), settings, int(doc["seed"]))
    again = _log(result)
    want = doc["log"]
    for k, (a, b) in enumerate(zip(want, again, strict=False)):
        if a != b:
            return False, (
                f"turn {k + 1} (round {a['round']}, driver {a['driver'] + 1}) "
                f"differs: recorded {a['plan']!r}, replayed {b['plan']!r}"
            )
    if len(want) != len(again):
        return False, f"recorded {len(want)} turns, replayed {len(again)}"
    return True, f"{len(want)} turns replayed, every event matches"
