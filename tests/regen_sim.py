"""Seeded race summaries pinned in tests/golden/sim-summary.json (see scripts/regen_golden.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trackkit.checks.pipeline import validate
from trackkit.formats import load_stage
from trackkit.rules.track import Track
from trackkit.sim.race import Settings, prepare
from trackkit.sim.stats import run_many, summarize_races

REPO = Path(__file__).resolve().parents[1]


def sim_summaries() -> dict[str, Any]:
    """Three seeded races of each example with every bot."""
    out: dict[str, Any] = {}
    for name in ("col-de-turini.yaml", "hillclimb-pikes.yaml"):
        stage = load_stage(REPO / "examples" / name)
        report = validate(stage)
        prepared = prepare(Track.from_graph(report.graph, report.layout))
        settings = Settings.default(
            3, bots=("cautious", "aggressive", "planner"), hillclimb=stage.kind.value == "hillclimb"
        )
        races = run_many(prepared, settings, races=3, seed=1)
        tiles = {t.index: t.face_id for t in report.layout.chain if t.index is not None}
        out[name] = summarize_races(races, settings, seed=1, tiles=tiles).to_json()
    return out
