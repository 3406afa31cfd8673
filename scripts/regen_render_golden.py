"""Regenerate the golden file of the map tests; review the diff before committing.

    .venv/bin/python scripts/regen_render_golden.py

``tests/golden/render-examples.json`` pins the structure of the map of every example
stage (size in mm, elements counted by class, tiles with their classes), so that a
change in drawing shows up as a readable diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trackkit.formats import load_stage
from trackkit.render.svg import render_map, structure

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "render-examples.json"
STAGES = [
    "col-de-turini.yaml",
    "hillclimb-pikes.yaml",
    "broken-stage.yaml",
    "gt-core-circuit.yaml",
    "gt-figure-eight.rekee.json",
    "gt-broken.yaml",
]


def examples() -> dict[str, Any]:
    """The structure of each example's map."""
    return {
        name: structure(render_map(load_stage(REPO / "examples" / name)).svg) for name in STAGES
    }


def main() -> None:
    """Write the golden file."""
    GOLDEN.write_text(json.dumps(examples(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(REPO)}")


if __name__ == "__main__":
    main()
