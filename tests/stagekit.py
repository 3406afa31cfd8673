"""Shared helpers for the tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from trackkit.models import Stage

REPO = Path(__file__).resolve().parents[1]


def load_script(name: str) -> Any:
    """A script of ``scripts/`` as a module (the regeneration scripts hold the test data)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _merged(into: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(into)
    for key, value in over.items():
        keep = out.get(key)
        both = isinstance(value, dict) and isinstance(keep, dict) and value and keep
        out[key] = _merged(keep, value) if both else value
    return out


def sim_report(gt: bool = False, players: int = 2, **over: Any) -> Any:
    """A simulation report (:class:`~trackkit.models.simreport.SimReport`) of no races,
    DIRT or GT (3 laps), with ``over`` written over its JSON (an object over an object
    key by key): the figures a test of the findings needs, and only those."""
    from trackkit.models.simreport import SimReport
    from trackkit.sim.gt_race import GtOptions
    from trackkit.sim.race import Settings
    from trackkit.sim.stats import summarize_races

    settings = Settings.default(players, gt=GtOptions(laps=3) if gt else None)
    empty = summarize_races([], settings, seed=1, tiles={}).to_json()
    return SimReport.model_validate(_merged(empty, over))


def make_stage(*tiles: str | dict[str, Any], **fields: Any) -> Stage:
    """A native stage from face ids or tile dicts, in driving order."""
    specs = [t if isinstance(t, dict) else {"tile": t} for t in tiles]
    return Stage.model_validate({"format": "trackkit-stage/1", "tiles": specs, **fields})


@pytest.fixture
def examples() -> Path:
    return REPO / "examples"


#: A Rallyman: GT circuit of core-box tiles (3 lanes): the start/finish straight, two
#: straights, three bends left, two straights, three bends left; the last tile's exit meets
#: the first tile's entry.
GT_OVAL: tuple[dict[str, Any], ...] = (
    {"tile": "102a"},
    {"tile": "103a"},
    {"tile": "105a", "turn": "left"},
    {"tile": "106a", "turn": "left"},
    {"tile": "112a", "turn": "left"},
    {"tile": "103a"},
    {"tile": "104a"},
    {"tile": "115a", "turn": "left"},
    {"tile": "117a", "turn": "left"},
    {"tile": "118a", "turn": "left"},
)

#: A GT circuit that crosses itself on 141b (Team Challenge): road A on the way out, road B
#: on the way back (the same piece, met again), with four bends each side of the crossing.
GT_EIGHT: tuple[dict[str, Any], ...] = (
    {"tile": "102a"},
    {"tile": "141b", "road": "A"},
    {"tile": "103a"},
    {"tile": "105a", "turn": "left"},
    {"tile": "106a", "turn": "left"},
    {"tile": "112a", "turn": "left"},
    {"tile": "113a", "turn": "left"},
    {"tile": "103a"},
    {"tile": "141b"},
    {"tile": "103a"},
    {"tile": "115a", "turn": "right"},
    {"tile": "117a", "turn": "right"},
    {"tile": "118a", "turn": "right"},
    {"tile": "105a", "turn": "right"},
)
