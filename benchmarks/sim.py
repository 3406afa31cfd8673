"""Simulation benchmarks (DESIGN.md / issue 5 targets; run with ``make bench``).

- four-player races per second on a 12-tile stage, one core, cautious bot (target >= 100),
  each run from a fresh stage (the bots' plan memo starts empty), median of three; the
  rate with the memo switched off is shown beside it;
- ``--jobs 2`` speed-up (target >= 1.7x), both runs from a fresh stage, on a short run
  (120 races) and a long one (1,000 races): each worker process fills its own plan memo,
  so the speed-up of a short run is lower;
- peak memory of 10,000 races (target under 300 MB), measured in a child process;
- races per second where mud can close corners (the double hairpins with shortcuts of
  314a and 215b, mixed bots), so that cars get stuck and the stuck checks of
  ``trackkit/sim/stuck.py`` do real work (no target: watch it against the first figure);
- a hillclimb (``examples/hillclimb-pikes.yaml``, three attempts, four players) raced with
  the Unlimited dashboards the bots build against the same races with the fixed DIRT car,
  cautious bots and mixed bots, in CPU seconds (issue 11 target: the Unlimited rate within
  1.5x of the fixed one);
- every mix of the three bots (each alone, each pair, all three; the four drivers cycle
  through the mix) on the 12-tile stage, Col de Turini and the Pikes hillclimb (Unlimited
  boards): four-player races per CPU second from a fresh stage, median of three (issue 11
  target: at least 100 for every mix on every stage);
- ``trackkit validate --simulate 50`` of the 14-tile Col de Turini, of a 14-tile stage of the
  benchmark pattern and of the Pikes hillclimb, wall seconds, start-up included, median of
  five (target under 1 s);
- with ``--suggest`` only: ``trackkit car suggest`` of the Pikes hillclimb with its
  defaults, one job and two (no target: the figure a user waits for);
- Rallyman: GT (``--gt``): six-car three-lap races per CPU second on a 12-tile circuit (a
  ring of the GT core box) for every mix of the three bots, from a fresh track, median of
  three (issue 12 target: at least 50), and ``validate --simulate 50`` of the example
  circuit, wall seconds.

Beside the speed-up, the machine's own ceiling: the same pure-Python loop run twice in one
process, then once in each of two processes (two "cores" of a virtual machine often give
less than 2x, and the figure moves from run to run).

``python benchmarks/sim.py --quick`` skips the 10,000-race run (about a minute);
``--hillclimb``, ``--mixes``, ``--playability``, ``--suggest`` and ``--gt`` print those
figures only.
"""

from __future__ import annotations

import itertools
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import yaml
from run import zigzag_stage

from trackkit.checks.pipeline import validate
from trackkit.models import Stage
from trackkit.rules.positions import GT_RING
from trackkit.rules.track import Track
from trackkit.sim.race import Prepared, Settings, prepare
from trackkit.sim.stats import run_many


def _prepared(tiles: int = 12) -> Prepared:
    report = validate(Stage.model_validate(zigzag_stage(tiles)))
    return prepare(Track.from_graph(report.graph, report.layout))


def _rate(prepared: Prepared, settings: Settings, races: int, jobs: int = 1) -> float:
    start = time.perf_counter()
    run_many(prepared, settings, races=races, seed=1, jobs=jobs)
    return races / (time.perf_counter() - start)


def _cpu(run: Callable[[], object]) -> float:
    """CPU seconds of ``run()`` in this process and in the worker processes it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.process_time()
    run()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return time.process_time() - start + children


def _busy(n: int) -> int:
    """Pure-Python work with dict traffic, like a race's."""
    total, table = 0, {}
    for i in range(n):
        table[i % 5000] = i
        total += table.get((i * 7) % 5000, 0)
    return total


def _ceiling(n: int = 2_000_000) -> float:
    """Speed-up of two processes over one on work that shares nothing."""
    start = time.perf_counter()
    _busy(n)
    _busy(n)
    one = time.perf_counter() - start
    start = time.perf_counter()
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_busy, [n, n]))
    return one / (time.perf_counter() - start)


def _muddy() -> Prepared:
    tiles = [{"tile": t} for t in ("202a", "204a", "314a", "206a", "205a", "215b", "204b", "203a")]
    report = validate(Stage.model_validate({"format": "trackkit-stage/1", "tiles": tiles}))
    return prepare(Track.from_graph(report.graph, report.layout))


def _pikes() -> Prepared:
    from trackkit.formats import load_stage

    report = validate(
        load_stage(Path(__file__).resolve().parents[1] / "examples/hillclimb-pikes.yaml")
    )
    return prepare(Track.from_graph(report.graph, report.layout))


def _cpu_rate(settings: Settings, races: int) -> float:
    """Races per CPU second on a fresh Pikes stage (plan memo empty), median of three."""
    rates = []
    for _ in range(3):
        prepared = _pikes()
        start = time.process_time()
        run_many(prepared, settings, races=races, seed=1)
        rates.append(races / (time.process_time() - start))
    return statistics.median(rates)


def hillclimb(races: int = 30) -> None:
    """Print the hillclimb figures: Unlimited dashboards against the fixed DIRT car."""
    for bots in (("cautious",), ("cautious", "aggressive", "planner")):
        fixed = _cpu_rate(Settings.default(4, cars=("dirt",), bots=bots, hillclimb=True), races)
        free = _cpu_rate(Settings.default(4, bots=bots, hillclimb=True), races)
        print(
            f"hillclimb races/CPU s, Pikes, 4 players, {'+'.join(bots)}, {races} races: "
            f"Unlimited {free:.1f}, fixed DIRT car {fixed:.1f}, slower by "
            f"{fixed / free:.2f}x (target <= 1.5x)"
        )


def _turini() -> Prepared:
    from trackkit.formats import load_stage

    report = validate(
        load_stage(Path(__file__).resolve().parents[1] / "examples/col-de-turini.yaml")
    )
    return prepare(Track.from_graph(report.graph, report.layout))


BOTS = ("cautious", "aggressive", "planner")


def mixes() -> None:
    """Races per CPU second of every mix of the bots on the three stages (target >= 100)."""
    stages: list[tuple[str, Callable[[], Prepared], bool, int]] = [
        ("12-tile stage", _prepared, False, 60),
        ("Col de Turini", _turini, False, 60),
        ("Pikes (Unlimited)", _pikes, True, 30),
    ]
    every = [mix for k in (1, 2, 3) for mix in itertools.combinations(BOTS, k)]
    worst = (float("inf"), "")
    for name, make, hill, races in stages:
        figures = []
        for mix in every:
            settings = Settings.default(4, bots=mix, hillclimb=hill)
            rates = []
            for _ in range(3):
                prepared = make()
                start = time.process_time()
                run_many(prepared, settings, races=races, seed=1)
                rates.append(races / (time.process_time() - start))
            rate = statistics.median(rates)
            label = "+".join(m[0] for m in mix)
            figures.append(f"{label} {rate:.0f}")
            worst = min(worst, (rate, f"{label} on {name}"))
        print(f"races/CPU s, 4 players, {name}, {races} races a run: " + ", ".join(figures))
    print(
        f"  (c cautious, a aggressive, p planner) slowest: {worst[1]} {worst[0]:.0f} "
        "(target >= 100)"
    )


def _wall(args: list[str], runs: int = 5) -> float:
    """Median wall seconds of ``trackkit ARGS`` (interpreter start-up included)."""
    exe = Path(sys.executable).with_name("trackkit")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "trackkit"]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([*cmd, *args], capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def playability() -> None:
    """``validate --simulate 50`` wall seconds (target under 1 s)."""
    repo = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        zigzag = Path(tmp) / "zigzag-14.yaml"
        zigzag.write_text(yaml.safe_dump(zigzag_stage(14)), encoding="utf-8")
        for name, path in (
            ("Col de Turini (14 tiles)", repo / "examples/col-de-turini.yaml"),
            ("a 14-tile stage of the pattern", zigzag),
            ("Pikes hillclimb (9 tiles, 3 attempts)", repo / "examples/hillclimb-pikes.yaml"),
        ):
            seconds = _wall(["validate", str(path), "--simulate", "50"])
            print(
                f"trackkit validate --simulate 50, {name}: median {seconds:.2f} s wall "
                "(target < 1 s)"
            )


def suggest() -> None:
    """``car suggest`` of the Pikes hillclimb, its defaults, one job and two (no target)."""
    pikes = str(Path(__file__).resolve().parents[1] / "examples/hillclimb-pikes.yaml")
    for jobs in (1, 2):
        seconds = _wall(["car", "suggest", pikes, "--jobs", str(jobs)], runs=1)
        print(f"trackkit car suggest Pikes (defaults), --jobs {jobs}: {seconds:.1f} s wall")


def _memory(races: int) -> None:
    """Child process: run ``races`` races and print the peak RSS in MB."""
    run_many(_prepared(), Settings.default(4), races=races, seed=2, jobs=1)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)


def _gt_ring() -> Prepared:
    tiles = [t if isinstance(t, dict) else {"tile": t} for t in GT_RING]
    stage = Stage.model_validate({"format": "trackkit-stage/1", "laps": 3, "tiles": tiles})
    report = validate(stage, players=6)
    assert report.valid, report.codes
    return prepare(Track.from_graph(report.graph, report.layout))


def gt(races: int = 60) -> None:
    """GT races per CPU second, every mix of the bots, on the 12-tile ring (target >= 50)."""
    from trackkit.sim.gt_race import GtOptions

    every = [mix for k in (1, 2, 3) for mix in itertools.combinations(BOTS, k)]
    figures = []
    worst = (float("inf"), "")
    for mix in every:
        settings = Settings.default(6, bots=mix, gt=GtOptions(laps=3))
        rates = []
        for _ in range(3):
            prepared = _gt_ring()
            start = time.process_time()
            run_many(prepared, settings, races=races, seed=1)
            rates.append(races / (time.process_time() - start))
        rate = statistics.median(rates)
        label = "+".join(m[0] for m in mix)
        figures.append(f"{label} {rate:.0f}")
        worst = min(worst, (rate, label))
    print(
        f"GT races per CPU second, 6 cars, 3 laps, 12-tile ring, {races} races: "
        + ", ".join(figures)
        + f"; slowest {worst[1]} {worst[0]:.0f} (target >= 50)"
    )
    circuit = str(Path(__file__).resolve().parents[1] / "examples" / "gt-core-circuit.yaml")
    wall = _wall(["validate", circuit, "--simulate", "50"])
    print(f"validate --simulate 50 of the 18-tile example circuit: {wall:.2f} s wall")


def main(quick: bool = False) -> None:
    """Print the figures."""
    gt()
    settings = Settings.default(4, bots=("cautious",))
    races = 60
    rates = []
    for _ in range(3):
        prepared = _prepared()
        rates.append(_rate(prepared, settings, races))
    memo = prepared.memo
    print(
        f"races/s, 4 players, 12 tiles, cautious, 1 core, {races} races: "
        f"median {statistics.median(rates):.1f}, best {max(rates):.1f} (target >= 100); "
        f"plan memo: {memo}"
    )
    bare = _rate(replace(_prepared(), memo=None), settings, races)
    print(f"  the same without the plan memo: {bare:.1f} races/s")
    mixed = Settings.default(4, bots=("cautious", "aggressive", "planner"))
    muddy = [_rate(_muddy(), mixed, races) for _ in range(3)]
    print(
        f"races/s where mud closes hairpins (314a, 215b), mixed bots, {races} races: "
        f"median {statistics.median(muddy):.1f}"
    )
    hillclimb()
    mixes()
    playability()
    for n in (120, 1000):
        ratios = []
        for _ in range(1 if quick else 3):
            one = _rate(_prepared(), settings, n)
            two = _rate(_prepared(), settings, n, jobs=2)
            ratios.append(two / one)
        print(
            f"--jobs 2 speed-up, {n} races: median {statistics.median(ratios):.2f}x "
            f"of {', '.join(f'{r:.2f}' for r in ratios)} (target >= 1.7x); "
            f"machine ceiling now {_ceiling():.2f}x"
        )
        if quick:
            return
    # The work itself: CPU seconds of both workers against those of one process (1.0: the
    # parallel run does no extra work; the wall speed-up then depends on the machine only).
    one_cpu = _cpu(lambda: run_many(_prepared(), settings, races=1000, seed=1, jobs=1))
    two_cpu = _cpu(lambda: run_many(_prepared(), settings, races=1000, seed=1, jobs=2))
    print(f"  CPU seconds, 1000 races: one process {one_cpu:.2f}, two workers {two_cpu:.2f}")
    many = 10_000
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, __file__, "--memory", str(many)],
        capture_output=True,
        text=True,
        check=True,
    )
    peak = float(out.stdout.strip().splitlines()[-1])
    seconds = time.perf_counter() - start
    print(f"peak RSS of {many:,} races: {peak:.0f} MB in {seconds:.0f} s (target < 300 MB)")


if __name__ == "__main__":
    if "--help" in sys.argv or "-h" in sys.argv:  # not a benchmark run of several minutes
        print(__doc__)
    elif len(sys.argv) == 3 and sys.argv[1] == "--memory":
        _memory(int(sys.argv[2]))
    elif "--hillclimb" in sys.argv:
        hillclimb()
    elif "--mixes" in sys.argv:
        mixes()
    elif "--playability" in sys.argv:
        playability()
    elif "--suggest" in sys.argv:
        suggest()
    elif "--gt" in sys.argv:
        gt()
    else:
        main(quick="--quick" in sys.argv)
