"""Benchmarks for the DESIGN.md targets (run with ``make bench``; not timed tests).

Targets on the 2-core reference machine:
- ``trackkit validate`` of a 15-tile stage under 0.5 s wall, interpreter start-up included;
- graph + full validation of a 100-tile stage under 0.2 s in-process;
- layout, graph and full validation of a 30-tile Rallyman: GT circuit under 0.2 s in-process.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from trackkit.checks.pipeline import validate
from trackkit.models import Stage

PATTERN: list[dict[str, Any]] = [
    {"tile": "206a"},
    {"tile": "217a", "turn": "left"},
    {"tile": "227a", "turn": "right"},
    {"tile": "205b"},
    {"tile": "222a", "turn": "left"},
    {"tile": "224a", "turn": "right"},
]


def zigzag_stage(tiles: int) -> dict[str, Any]:
    """A stage of ``tiles`` tiles that zig-zags forward without overlapping itself."""
    middle = [PATTERN[i % len(PATTERN)] for i in range(tiles - 2)]
    return {
        "format": "trackkit-stage/1",
        "name": f"zigzag {tiles}",
        "tiles": [{"tile": "202a"}, *middle, {"tile": "203a"}],
    }


#: The straights of the GT benchmark circuit's two long sides, in turn.
GT_STRAIGHTS = ["103a", "104a", "110a", "116a"]
#: Its bends: three left at each end (60 degrees each) make the half turn.
GT_BENDS = ["105a", "112a", "117a", "106a", "115a", "118a"]


def gt_circuit(tiles: int = 30) -> dict[str, Any]:
    """A GT circuit of ``tiles`` tiles: the start/finish straight and straights along one
    side, three bends, straights back, three bends (``tiles`` even, at least 8)."""
    side = (tiles - 6) // 2
    straights = [{"tile": GT_STRAIGHTS[i % len(GT_STRAIGHTS)]} for i in range(2 * side - 1)]
    bends = [{"tile": b, "turn": "left"} for b in GT_BENDS]
    specs = [
        {"tile": "102a"},
        *straights[: side - 1],
        *bends[:3],
        *straights[side - 1 :],
        *bends[3:],
    ]
    return {"format": "trackkit-stage/1", "name": f"GT circuit {tiles}", "tiles": specs}


def bench_cli(tiles: int = 15, runs: int = 7) -> list[float]:
    """Wall seconds of ``python -m trackkit validate`` on a stage file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stage.yaml"
        path.write_text(yaml.safe_dump(zigzag_stage(tiles)), encoding="utf-8")
        exe = Path(sys.executable).with_name("trackkit")
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "trackkit"]
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            done = subprocess.run([*cmd, "validate", str(path)], capture_output=True, check=False)
            times.append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"validate failed:\n{done.stdout.decode()}{done.stderr.decode()}")
    return times


def bench_import_floor(runs: int = 7) -> list[float]:
    """Wall seconds of an interpreter that only imports the stack ``validate`` needs.

    networkx (the stage graph), pydantic (the models), typer (the command line) and PyYAML:
    no ``trackkit validate`` can start faster than this on the same machine.
    """
    code = "import networkx, pydantic, typer, yaml"
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - start)
    return times


def bench_in_process(
    tiles: int = 100, runs: int = 15, stage_data: dict[str, Any] | None = None
) -> list[float]:
    """Seconds to lay out, build the graph and validate a stage, in-process."""
    stage = Stage.model_validate(stage_data or zigzag_stage(tiles))
    report = validate(stage)  # warm caches: faces are cut into spaces once per process
    if not report.valid:
        raise SystemExit(f"benchmark stage is invalid: {report.codes}")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        validate(stage)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    """Run every benchmark and print the figures against the targets."""
    rows = [
        ("trackkit validate, 15 tiles (wall, incl. start-up)", bench_cli(), 0.5),
        ("graph + validation, 100 tiles (in-process)", bench_in_process(), 0.2),
        (
            "GT circuit, 30 tiles: layout + graph + validation (in-process)",
            bench_in_process(stage_data=gt_circuit(30)),
            0.2,
        ),
    ]
    for name, times, target in rows:
        median = statistics.median(times)
        verdict = "ok" if median < target else "SLOW"
        print(
            f"{name}: median {median:.3f} s, best {min(times):.3f} s "
            f"(target < {target} s) {verdict}"
        )
    floor = bench_import_floor()
    print(
        "  for comparison, python -c 'import networkx, pydantic, typer, yaml': "
        f"median {statistics.median(floor):.3f} s, best {min(floor):.3f} s"
    )


if __name__ == "__main__":
    main()
