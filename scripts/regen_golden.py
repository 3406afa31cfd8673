"""Regenerate the golden files of the tests; review the diff before committing.

    .venv/bin/python scripts/regen_golden.py

``tests/golden/graph-counts.json`` pins, like chess perft counts, the spaces and steps of
every library face driven each way, and the graph of every example stage;
``tests/golden/sim-summary.json`` seeded race summaries (``tests/regen_sim.py``);
``tests/golden/json-output.json`` what ``validate --format json`` and ``simulate --format
json`` print for the examples (``tests/regen_json.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from trackkit.checks.summary import shortest_moves
from trackkit.models import Stage
from trackkit.road.spaces import drive
from trackkit.stage.assemble import lay_out
from trackkit.stage.graph import build_graph
from trackkit.tiles.library import default_library

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "graph-counts.json"
STAGES = ["col-de-turini.yaml", "hillclimb-pikes.yaml", "broken-stage.yaml"]


def face_counts() -> dict[str, Any]:
    """Spaces and steps (by tag) of every face, per entry edge."""
    out: dict[str, Any] = {}
    for face in default_library():
        road = face.road
        if road is None:
            continue
        for entry in (road.from_edge, road.to_edge):
            driven = drive(face, entry)
            tags: dict[str, int] = {}
            for step in driven.steps:
                for tag in step.tags:
                    tags[tag] = tags.get(tag, 0) + 1
            out[f"{face.id}@{entry}"] = {
                "spaces": len(driven.spaces),
                "steps": len(driven.steps),
                "tags": dict(sorted(tags.items())),
            }
    return out


def stage_counts() -> dict[str, Any]:
    """Nodes, edges and the shortest start-to-finish move count of each example."""
    out: dict[str, Any] = {}
    for name in STAGES:
        data = yaml.safe_load((REPO / "examples" / name).read_text(encoding="utf-8"))
        g = build_graph(lay_out(Stage.model_validate(data)))
        out[name] = {
            "nodes": g.number_of_nodes(),
            "edges": g.number_of_edges(),
            "shortest_moves": shortest_moves(g),
        }
    return out


def golden() -> dict[str, Any]:
    """Everything the golden file holds."""
    return {"faces": face_counts(), "stages": stage_counts()}


def main() -> None:
    """Write the golden files."""
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(golden(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(REPO)}")
    sys.path.insert(0, str(REPO / "tests"))
    from regen_sim import sim_summaries

    sim = REPO / "tests" / "golden" / "sim-summary.json"
    sim.write_text(json.dumps(sim_summaries(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {sim.relative_to(REPO)}")
    from regen_json import json_documents

    docs = REPO / "tests" / "golden" / "json-output.json"
    docs.write_text(json.dumps(json_documents(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {docs.relative_to(REPO)}")


if __name__ == "__main__":
    main()
