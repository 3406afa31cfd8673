"""Rendering benchmarks (run with ``.venv/bin/python benchmarks/render.py``; no network).

Targets on the 2-core reference machine (issue 3):
- SVG map of a 40-tile stage under 0.5 s (validation, layout and drawing, in-process);
- PDF print of it (A4 pages at true scale, overview included) under 3 s.

For information (issue 10): the SVG map of a 30-tile Rallyman: GT circuit, and its print.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import gt_circuit, zigzag_stage

from trackkit.models import Stage

TILES = 40
GT_TILES = 30


def _times(work: Callable[[], Any], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return times


def bench_svg(stage: Stage, runs: int = 7) -> list[float]:
    """Seconds to validate, lay out and draw the SVG map of ``stage``."""
    from trackkit.render.svg import render_map

    render_map(stage)  # warm caches: faces cut into spaces and polygons, once per process
    return _times(lambda: render_map(stage), runs)


def bench_pdf(stage: Stage, runs: int = 3) -> tuple[list[float], int]:
    """Seconds to print ``stage`` to a multi-page A4 PDF, and the number of PDF pages."""
    from trackkit.checks.pipeline import validate
    from trackkit.render.pages import print_pages

    def work() -> int:
        report = validate(stage)
        job = print_pages(report, report.layout, paper="a4")
        job.pdf()
        return job.plan.pages

    pages = work()  # warm caches and CairoSVG's imports
    return _times(work, runs), pages


def bench_cli(command: str, suffix: str, runs: int = 3) -> list[float]:
    """Wall seconds of ``trackkit render|print`` on the stage, interpreter start-up included."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stage.yaml"
        path.write_text(yaml.safe_dump(zigzag_stage(TILES)), encoding="utf-8")
        exe = Path(sys.executable).with_name("trackkit")
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "trackkit"]
        out = Path(tmp) / f"out.{suffix}"

        def work() -> None:
            done = subprocess.run(
                [*cmd, command, str(path), "-o", str(out)], capture_output=True, check=False
            )
            if done.returncode != 0:
                raise SystemExit(f"{command} failed:\n{done.stderr.decode()}")

        return _times(work, runs)


def main() -> None:
    """Run the rendering benchmarks and print the figures against the targets."""
    stage = Stage.model_validate(zigzag_stage(TILES))
    svg_times = bench_svg(stage)
    pdf_times, pages = bench_pdf(stage)
    circuit = Stage.model_validate(gt_circuit(GT_TILES))
    gt_pdf_times, gt_pages = bench_pdf(circuit)
    rows: list[tuple[str, list[float], float | None]] = [
        (f"SVG map, {TILES} tiles (validate + draw, in-process)", svg_times, 0.5),
        (f"PDF print, {TILES} tiles, A4, {pages} pages (in-process)", pdf_times, 3.0),
        (
            f"SVG map, GT circuit of {GT_TILES} tiles (validate + draw, in-process)",
            bench_svg(circuit),
            None,
        ),
        (
            f"PDF print, GT circuit of {GT_TILES} tiles, A4, {gt_pages} pages (in-process)",
            gt_pdf_times,
            None,
        ),
        (
            f"trackkit render -o .svg, {TILES} tiles (wall, start-up incl.)",
            bench_cli("render", "svg"),
            None,
        ),
        (
            f"trackkit print -o .pdf, {TILES} tiles (wall, start-up incl.)",
            bench_cli("print", "pdf"),
            None,
        ),
    ]
    for name, times, target in rows:
        best, median = min(times), statistics.median(times)
        if target is None:
            print(f"{name}: median {median:.3f} s, best {best:.3f} s (for information)")
            continue
        verdict = "ok" if median < target else "SLOW"
        print(f"{name}: median {median:.3f} s, best {best:.3f} s (target < {target} s) {verdict}")


if __name__ == "__main__":
    main()
