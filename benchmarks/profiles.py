"""cProfile tables of issue 22's speed rows, in Markdown (for ``benchmarks/PROFILES.md``).

Each row's command (``benchmarks/targets.py``'s, with fewer races: the profiler makes a
run four to eight times slower) runs under ``python -m cProfile`` in a new process; the
table lists the top entries by cumulative time (the wrappers that only pass the work on
left out: typer, click, the command, ``run_many`` and its executor, import machinery)
and by own time (tottime)::

    .venv/bin/python benchmarks/profiles.py > profiles.md          # every row
    .venv/bin/python benchmarks/profiles.py --only gt-skew-11 --top 25
    .venv/bin/python benchmarks/profiles.py --checkout ../base   # another checkout's code

The figures are CPU seconds under the profiler: compare rows of one run, not with
``targets.py``'s figures.
"""

from __future__ import annotations

import argparse
import os
import pstats
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MIXED = ("cautious", "aggressive", "planner")


def _simulate(
    stage: str, players: int, races: int, *bots: str, laps: int | None = None
) -> list[str]:
    """``trackkit simulate`` of a row (seed 1, one job)."""
    args = ["simulate", stage, "--players", str(players), "--races", str(races), "--seed", "1"]
    args += ["--jobs", "1", *(a for b in bots for a in ("--bot", b))]
    return args + (["--laps", str(laps)] if laps is not None else [])


#: (row, trackkit arguments): benchmarks/targets.py's rows, with fewer races.
ROWS: tuple[tuple[str, list[str]], ...] = (
    ("gt-skew-11", _simulate("benchmarks/tracks/gt-skew-11.rekee.json", 6, 100, *MIXED, laps=3)),
    ("gt-long-30", _simulate("benchmarks/tracks/gt-long-30.rekee.json", 6, 60, "cautious", laps=3)),
    ("dirt-turini", _simulate("examples/col-de-turini.yaml", 4, 300, *MIXED)),
    ("climb-pikes", _simulate("examples/hillclimb-pikes.yaml", 3, 100, *MIXED)),
    ("validate-sim-dirt", ["validate", "examples/col-de-turini.yaml", "--simulate", "50"]),
    ("validate-sim-gt", ["validate", "examples/gt-core-circuit.yaml", "--simulate", "50"]),
    ("validate", ["validate", "examples/col-de-turini.yaml"]),
)

#: Frames that only wrap the work (left out of the cumulative table).
WRAPPERS = re.compile(
    r"typer/|click/|trackkit/cli/|trackkit/cli\.py|trackkit/entry\.py|<frozen|runpy\.py"
    r"|trackkit/commands/"
    r"|trackkit/sim/simulate\.py|trackkit/parallel\.py|trackkit/sim/stats\.py"
)


def _name(func: tuple[str, int, str]) -> str:
    file, line, fn = func
    if file.startswith("~"):
        return fn
    file = re.sub(r".*/site-packages/", "", file)
    file = re.sub(r".*/lib/python3\.\d+/", "", file)
    file = re.sub(r"^" + re.escape(str(REPO)) + "/", "", file)
    file = re.sub(r".*/(trackkit/)", r"\1", file)
    return f"{file}:{line}({fn})"


def table(path: Path, top: int) -> str:
    """The Markdown of a profile: top ``top`` by cumulative time and by own time."""
    stats = pstats.Stats(str(path))
    entries = [
        (func, row)
        for func, row in stats.stats.items()  # type: ignore[attr-defined]
        if func[2] not in ("<module>", "<built-in method builtins.exec>")
        and "__import__" not in func[2]
        and "_find_and_load" not in func[2]
    ]
    total = stats.total_tt  # type: ignore[attr-defined]
    out = [f"{total:.2f} CPU s under the profiler.", ""]
    for title, col, skip in (("cumulative", 3, True), ("tottime", 2, False)):
        out += [f"By {title}:", "", "| # | calls | tottime s | cumtime s | function |"]
        out.append("|---|---|---|---|---|")
        ranked = sorted(entries, key=lambda kv: -kv[1][col])
        if skip:
            ranked = [kv for kv in ranked if not WRAPPERS.search(kv[0][0])]
        for i, (func, (cc, nc, tt, ct, _callers)) in enumerate(ranked[:top], 1):
            calls = f"{nc}" if cc == nc else f"{nc}/{cc}"
            out.append(f"| {i} | {calls} | {tt:.3f} | {ct:.3f} | `{_name(func)}` |")
        out.append("")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Profile the rows asked for and print their tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="ROW", help="profile only ROW")
    parser.add_argument("--top", type=int, default=15, help="entries per table (default 15)")
    parser.add_argument(
        "--checkout", type=Path, default=REPO, metavar="DIR", help="profile DIR's trackkit"
    )
    args = parser.parse_args(argv)
    checkout = args.checkout.resolve()
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    for row, command in ROWS:
        if args.only and row not in args.only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "run.prof"
            cmd = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "trackkit", *command]
            subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, check=False)
            if not out.exists():
                print(f"### {row}\n\n(the profiled run failed: {' '.join(command)})\n")
                continue
            print(f"### {row}\n\n`trackkit {' '.join(command)}`\n\n{table(out, args.top)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
