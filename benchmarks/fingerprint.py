"""A fingerprint of the seeded races of the speed rows: the same code gives the same lines.

Speed work must not change one race: this script races the tracks of issue 22's race rows
(``benchmarks/targets.py``) as ``trackkit simulate --jobs 1`` does, with the same seeds,
and prints one SHA-256 per row of every race's whole result (turn logs, events, times,
GT places; ``repr`` of :class:`~trackkit.sim.model.RaceResult`), the par times and the
``validate --simulate`` documents. Run it on two checkouts and compare::

    .venv/bin/python benchmarks/fingerprint.py > after.txt
    PYTHONPATH=../base .venv/bin/python benchmarks/fingerprint.py > before.txt
    diff before.txt after.txt

``--races N`` races each row N times (default 40).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from trackkit.checks.pipeline import validate
from trackkit.formats import load_stage
from trackkit.models.stage import Kind
from trackkit.rules.ruleset import load_ruleset
from trackkit.rules.track import Track
from trackkit.sim.gt_race import GtOptions, gt_round_cap
from trackkit.sim.par import par_time
from trackkit.sim.race import Settings, default_bots, prepare, run_race
from trackkit.sim.stats import race_seed

REPO = Path(__file__).resolve().parents[1]
MIXED = ("cautious", "aggressive", "planner")

#: (row, stage, players, bots, laps): the race rows of benchmarks/targets.py, and the
#: GT example of ``validate-sim-gt``.
ROWS: tuple[tuple[str, str, int, tuple[str, ...], int | None], ...] = (
    ("gt-skew-11", "benchmarks/tracks/gt-skew-11.rekee.json", 6, MIXED, 3),
    ("gt-long-30", "benchmarks/tracks/gt-long-30.rekee.json", 6, ("cautious",), 3),
    ("dirt-turini", "examples/col-de-turini.yaml", 4, MIXED, None),
    ("climb-pikes", "examples/hillclimb-pikes.yaml", 3, MIXED, None),
    ("gt-core", "examples/gt-core-circuit.yaml", 6, MIXED, None),
)


def row_digest(path: str, players: int, bots: tuple[str, ...], laps: int | None, n: int) -> str:
    """SHA-256 of ``n`` seeded races of a row (seed 1, as ``simulate --seed 1``)."""
    stage = load_stage(REPO / path)
    report = validate(stage, players=players)
    track = Track.from_graph(report.graph, report.layout)
    digest = hashlib.sha256()
    if report.layout.series == "gt":
        options = GtOptions(laps=laps or report.layout.laps)
        settings = Settings.default(
            players, bots=bots, max_rounds=gt_round_cap(track, options.laps), gt=options
        )
        prepared = prepare(track, load_ruleset("gt"))
    else:
        hillclimb = report.kind is Kind.HILLCLIMB
        settings = Settings.default(
            players, bots=bots or default_bots(hillclimb=hillclimb), hillclimb=hillclimb
        )
        prepared = prepare(track)
        digest.update(repr(par_time(prepared)).encode())
    for i in range(n):
        digest.update(repr(run_race(prepared, settings, race_seed(1, i))).encode())
    return digest.hexdigest()


def validate_digest(path: str) -> str:
    """SHA-256 of ``validate --simulate 50 --format json`` of a stage (its JSON document)."""
    from typer.testing import CliRunner

    from trackkit.cli.app import app

    os.chdir(REPO)  # the document names the file as given: relative, the same in any checkout
    done = CliRunner().invoke(app, ["validate", path, "--simulate", "50", "--format", "json"])
    return hashlib.sha256(done.output.encode()).hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    """Print ``row digest`` lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=40, help="races per row (default 40)")
    parser.add_argument("--only", action="append", metavar="ROW", help="only this row")
    args = parser.parse_args(argv)
    for row, path, players, bots, laps in ROWS:
        if args.only and row not in args.only:
            continue
        print(row, row_digest(path, players, bots, laps, args.races), flush=True)
    for path in ("examples/col-de-turini.yaml", "examples/gt-core-circuit.yaml"):
        if args.only and "validate" not in args.only:
            continue
        print("validate-simulate", path, validate_digest(path), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
