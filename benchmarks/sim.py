"""Simulation benchmarks (DESIGN.md / issue 5 targets; run with ``make bench``).

- four-player races per second on a 12-tile stage, one core, cautious bot (target >= 100);
- ``--jobs 2`` speed-up (target >= 1.7x);
- peak memory of many races (target: 10,000 races under 300 MB), measured on a smaller run
  and extrapolated from the per-race growth.
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import zigzag_stage

from trackkit.models import Stage
from trackkit.rules.track import Track
from trackkit.sim.race import Settings, prepare
from trackkit.sim.stats import run_many
from trackkit.validate import validate


def _prepared(tiles: int = 12):  # type: ignore[no-untyped-def]
    report = validate(Stage.model_validate(zigzag_stage(tiles)))
    return prepare(Track.from_graph(report.graph, report.layout))


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> None:
    """Print the figures."""
    prepared = _prepared()
    settings = Settings.default(4, bots=("cautious",))
    races = 60
    start = time.perf_counter()
    run_many(prepared, settings, races=races, seed=1, jobs=1)
    one = time.perf_counter() - start
    print(f"races/s, 4 players, 12 tiles, cautious, 1 core: {races / one:.2f} (target >= 100)")
    start = time.perf_counter()
    run_many(prepared, settings, races=races, seed=1, jobs=2)
    two = time.perf_counter() - start
    print(f"--jobs 2 speed-up: {one / two:.2f}x (target >= 1.7x)")
    before = _rss_mb()
    many = 200
    run_many(prepared, settings, races=many, seed=2, jobs=1)
    after = _rss_mb()
    per_race = max(0.0, after - before) / many
    print(
        f"peak RSS {after:.0f} MB after {many} more races ({per_race * 1024:.1f} KB/race): "
        f"10,000 races ~ {after + per_race * (10_000 - many):.0f} MB (target < 300 MB)"
    )


if __name__ == "__main__":
    main()
