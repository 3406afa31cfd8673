"""The JSON documents ``validate --format json`` and ``simulate --format json`` print for the
examples of both series, pinned byte for byte in ``tests/golden/json-output.json``.

They were first written by the code of main 0b450d8, before the summaries and simulation
reports were typed (``StageSummary``, ``SimReport``): the test that reads them checks that
the typed writers print what the dicts printed, key order included. Regenerate them with
``scripts/regen_golden.py`` only for a change that means to alter a document.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from typer.testing import CliRunner

from trackkit.cli.app import app

REPO = Path(__file__).resolve().parents[1]

_DIRT = ["examples/col-de-turini.yaml", "examples/hillclimb-pikes.yaml"]
_GT = ["examples/gt-core-circuit.yaml", "tests/data/gt-point-to-point.yaml"]
_EVERY = sorted(f"examples/{p.name}" for p in (REPO / "examples").iterdir() if p.is_file())

#: Name -> the command's arguments (run in the repository's folder, so files are named
#: by their relative paths).
CASES: dict[str, list[str]] = {
    "validate every example": ["validate", "--format", "json", *_EVERY],
    **{
        f"validate --simulate {f}": ["validate", "--format", "json", "--simulate", "4", f]
        for f in [*_DIRT, *_GT, "examples/gt-figure-eight.rekee.json"]
    },
    "validate --simulate, seed 2, 2 players": [
        "validate",
        "--format",
        "json",
        "--simulate",
        "5",
        "--seed",
        "2",
        "--players",
        "2",
        "examples/col-de-turini.yaml",
        "examples/gt-core-circuit.yaml",
    ],
    **{f"simulate {f}": ["simulate", "--format", "json", "--races", "4", f] for f in _DIRT + _GT},
    "simulate a bot mix, seed 3": [
        "simulate",
        "--format",
        "json",
        "--races",
        "4",
        "--seed",
        "3",
        "--players",
        "3",
        "--bot",
        "planner",
        "--bot",
        "aggressive",
        "examples/col-de-turini.yaml",
    ],
    "simulate a rally": [
        "simulate",
        "--format",
        "json",
        "--races",
        "3",
        "examples/col-de-turini.yaml",
        "examples/copilot-rekee.json",
    ],
    "simulate a round cap": [
        "simulate",
        "--format",
        "json",
        "--races",
        "3",
        "--max-rounds",
        "6",
        "examples/col-de-turini.yaml",
    ],
    "simulate GT: 1 lap in the rain, grid given, a bot mix": [
        "simulate",
        "--format",
        "json",
        "--races",
        "4",
        "--seed",
        "5",
        "--laps",
        "1",
        "--weather",
        "rain",
        "--grid",
        "given",
        "--bot",
        "aggressive",
        "--bot",
        "planner",
        "--car",
        "gt4",
        "examples/gt-core-circuit.yaml",
    ],
    "simulate an invalid stage": ["simulate", "--format", "json", "examples/broken-stage.yaml"],
}


def json_documents() -> dict[str, str]:
    """What each case prints on stdout."""
    runner = CliRunner()
    out: dict[str, str] = {}
    with contextlib.chdir(REPO):
        for name, args in CASES.items():
            out[name] = runner.invoke(app, args).stdout
    return out
