"""Pinned space and step counts, like chess perft: a change to movement shows up here.

Regenerate with ``.venv/bin/python scripts/regen_golden.py`` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stagekit import load_script

REPO = Path(__file__).resolve().parents[1]


def _regen() -> Any:
    return load_script("regen_golden")


def test_face_space_and_step_counts_match_the_golden_file():
    pinned = json.loads((REPO / "tests/golden/graph-counts.json").read_text())["faces"]
    now = _regen().face_counts()
    diffs = [
        f"{key}: pinned {pinned.get(key)} now {now.get(key)}"
        for key in sorted(set(pinned) | set(now))
        if pinned.get(key) != now.get(key)
    ]
    assert not diffs, "counts differ per face and entry edge:\n" + "\n".join(diffs)


def test_example_stage_graphs_match_the_golden_file():
    pinned = json.loads((REPO / "tests/golden/graph-counts.json").read_text())["stages"]
    assert _regen().stage_counts() == pinned


def test_golden_counts_are_plausible():
    # independent of the generator: 205a is 3 rows of 2 lanes -> 6 spaces, 2 row lines
    # with 4 steps each (straight and diagonal); 217a adds slide and corner spaces.
    faces = json.loads((REPO / "tests/golden/graph-counts.json").read_text())["faces"]
    assert faces["205a@0"] == {"spaces": 6, "steps": 8, "tags": {"diagonal": 4, "straight": 4}}
    assert faces["217a@1"]["spaces"] == 2 + 2 + 1 + 3 + 2 + 2
