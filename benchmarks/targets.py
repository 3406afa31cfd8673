"""Issue 22's table, measured side by side: every row against its target (``make bench``).

Each row runs ``trackkit`` as a user runs it, in a new process, and counts the CPU
seconds of that whole process (user + system, with the worker processes it waited for:
``resource.getrusage(RUSAGE_CHILDREN)`` before and after). CPU time, unlike wall time,
hardly moves when other people load the machine. The CPU seconds of a plain ``trackkit
validate`` of the same stage (interpreter, imports, the tile library, reading and checking
the stage) are taken off as start-up, so that a rate counts the races and nothing else.
Every figure is the median of ``--runs`` runs (default 3); the start-up too.

Rows (``--only ID``, repeatable; ``--list`` prints them):

- ``gt-skew-11``: Rallyman: GT, 6 cars, 3 laps, ``benchmarks/tracks/gt-skew-11.rekee.json``
  (an 11-tile 2-lane circuit of GT core and Championship tiles with skew edges, saved as a
  Rekee editor file), cautious + aggressive + planner: races per CPU second (>= 300);
- ``gt-long-30``: GT, 6 cars, 3 laps, ``benchmarks/tracks/gt-long-30.rekee.json`` (30 tiles,
  3 lanes), cautious (>= 150);
- ``dirt-turini``: DIRT, 4 drivers, ``examples/col-de-turini.yaml``, cautious + aggressive +
  planner (>= 500);
- ``climb-pikes``: The Climb, 3 drivers, ``examples/hillclimb-pikes.yaml`` (3 attempts, the
  bots' Unlimited dashboards), cautious + aggressive + planner (>= 300);
- ``validate-sim-dirt`` / ``validate-sim-gt``: ``validate --simulate 50`` of Col de Turini
  (14 tiles) and of ``examples/gt-core-circuit.yaml``, CPU seconds beyond a plain
  ``validate`` (< 0.5 s each);
- ``validate-imports``: a plain ``validate`` of Col de Turini against ``python -c "import
  networkx, pydantic, typer, yaml, platformdirs"`` (the third-party libraries ``python -X
  importtime -m trackkit validate`` shows it importing; not shapely nor svgwrite, which only
  drawing needs), both whole processes, CPU seconds (<= 1.2x). CPU, because both are pure
  start-up work (files come from the page cache, nothing waits on the disk or the network), so
  on an idle machine CPU and wall agree, and CPU keeps the ratio true on a loaded one; the wall
  ratio is in the JSON line beside it;
- ``generate-dirt`` / ``generate-gt``: ``trackkit generate --count 3`` with its default
  simulation (``--boxes dirt-core``; ``--ruleset gt --boxes gt-core``), one job, CPU seconds
  beyond the start-up of a plain ``validate`` of an example of the series (< 5 s / < 10 s);
- ``make-test``: ``make test`` (ruff, mypy and the suite), wall seconds (under 3 min;
  informational, run only with ``--suite``).

Each row prints ``work | measured | target | met?``; with ``--json``, stdout instead carries
one JSON object per row (the table goes to stderr). ``--against DIR`` measures every row a second
time, just before, with the ``trackkit`` of another checkout DIR, run in DIR (with DIR's
own ``.venv``, if it has one; else with this interpreter, DIR first on ``PYTHONPATH``): the
line reads ``work | DIR's | measured | target | met?`` (a row beyond start-up adds both whole
processes' CPU; DIR's package is byte-compiled first) and the JSON object holds DIR's
figure under ``against``; the two sides alternate row by row in one run, so that both
meet the same load. ``--compiled DIR`` does the same with the opt-in compiled build
(``setup.py``'s mypyc modules; ``make compiled`` unpacks its wheel in ``build/compiled``), run
from this checkout with DIR first on ``PYTHONPATH``: the line reads ``work | pure | compiled |
target | met?``, with a verdict for each build (``make bench`` prints this table).
``--quick`` runs each row once with a twentieth of the races (for a
smoke test, not a figure); ``--races N`` sets the races of every race row.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

REPO = Path(__file__).resolve().parents[1]
TRACKS = REPO / "benchmarks" / "tracks"
MIXED = ("cautious", "aggressive", "planner")
#: The third-party libraries a plain ``trackkit validate`` imports (``python -X importtime``).
VALIDATE_LIBRARIES = ("networkx", "pydantic", "typer", "yaml", "platformdirs")

Op = Literal[">=", "<", "<="]


def trackkit_command() -> list[str]:
    """The ``trackkit`` a user runs: the console script beside this interpreter."""
    exe = Path(sys.executable).with_name("trackkit")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "trackkit"]


@dataclass(frozen=True)
class Run:
    """One process: its CPU seconds (user + system, waited-for children included), wall."""

    cpu: float
    wall: float


def run_process(args: Sequence[str], cwd: Path = REPO, env: dict[str, str] | None = None) -> Run:
    """Run ``args`` to the end and measure it.

    Raises
    ------
    SystemExit
        When the command fails (its output is shown): a figure of a failed run means nothing.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(args)} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(cpu=cpu, wall=wall)


def median_run(
    args: Sequence[str], runs: int, cwd: Path = REPO, env: dict[str, str] | None = None
) -> tuple[Run, list[Run]]:
    """The median CPU and the median wall of ``runs`` runs of ``args``, and the runs."""
    got = [run_process(args, cwd, env) for _ in range(runs)]
    return _median(got), got


def _median(got: Sequence[Run]) -> Run:
    """The median CPU and the median wall of runs."""
    return Run(statistics.median(r.cpu for r in got), statistics.median(r.wall for r in got))


@dataclass
class Options:
    """How the rows are measured."""

    runs: int = 3
    races: int | None = None
    quick: bool = False
    env: dict[str, str] | None = None
    """The environment of the processes (None: this one's); ``--against`` sets PYTHONPATH."""
    cwd: Path = REPO
    """Where the processes run (the stage paths are relative to it; ``--against``: the
    other checkout, whose tile library its code reads)."""
    python: str = sys.executable
    """The interpreter of the imports row (``--against``: the other checkout's, if it has one)."""
    trackkit: list[str] = field(default_factory=trackkit_command)
    """How ``trackkit`` is run (``--against``: ``python -P -m trackkit``, so that the other
    checkout's package on PYTHONPATH comes before this one's, whatever its layout)."""
    startups: dict[str, Run] = field(default_factory=dict)

    def startup(self, stage: Path) -> Run:
        """Median CPU and wall of a plain ``trackkit validate STAGE`` (measured once per stage)."""
        key = _rel(stage)
        if key not in self.startups:
            command = [*self.trackkit, "validate", key]
            self.startups[key] = median_run(command, self.runs, self.cwd, self.env)[0]
        return self.startups[key]

    def races_for(self, default: int) -> int:
        """The races of a race row: ``--races``, else its default (a twentieth with --quick)."""
        if self.races is not None:
            return self.races
        return max(10, default // 20) if self.quick else default


@dataclass(frozen=True)
class Measured:
    """A row's figure and what it was computed from (the JSON line's fields)."""

    value: float | None
    detail: dict[str, Any]


@dataclass(frozen=True)
class Row:
    """A row of issue 22's table."""

    id: str
    work: str
    unit: str
    op: Op
    target: float
    measure: Callable[[Options], Measured]
    informational: bool = False

    def met(self, value: float | None) -> bool | None:
        """Whether ``value`` meets the target (None: nothing measured)."""
        if value is None:
            return None
        if self.op == ">=":
            return value >= self.target
        if self.op == "<":
            return value < self.target
        return value <= self.target


def _rel(path: Path) -> str:
    return str(path.relative_to(REPO))


def race_row(
    stage: Path,
    players: int,
    bots: tuple[str, ...],
    races: int,
    laps: int | None = None,
) -> Callable[[Options], Measured]:
    """Races per CPU second of ``trackkit simulate`` beyond the start-up of ``validate``."""

    def measure(opts: Options) -> Measured:
        n = opts.races_for(races)
        args = [*opts.trackkit, "simulate", _rel(stage), "--players", str(players)]
        args += ["--races", str(n), "--seed", "1", "--jobs", "1"]
        args += [a for b in bots for a in ("--bot", b)]
        if laps is not None:
            args += ["--laps", str(laps)]
        start = opts.startup(stage)
        sim, runs = median_run(args, opts.runs, opts.cwd, opts.env)
        beyond = sim.cpu - start.cpu
        detail = {
            "races": n,
            "cpu": round(sim.cpu, 3),
            "startup_cpu": round(start.cpu, 3),
            "race_cpu": round(beyond, 3),
            "runs_cpu": [round(r.cpu, 3) for r in runs],
            "wall": round(sim.wall, 3),
            "command": " ".join(["trackkit", *args[len(opts.trackkit) :]]),
        }
        # fewer races than the start-up's noise can show: no figure rather than a wrong one
        return Measured(n / beyond if beyond > 0.01 else None, detail)

    return measure


def simulate_row(stage: Path, n: int = 50) -> Callable[[Options], Measured]:
    """CPU seconds of ``validate --simulate N`` beyond a plain ``validate``."""

    def measure(opts: Options) -> Measured:
        args = [*opts.trackkit, "validate", _rel(stage), "--simulate", str(n)]
        start = opts.startup(stage)
        run, runs = median_run(args, opts.runs, opts.cwd, opts.env)
        detail = {
            "cpu": round(run.cpu, 3),
            "startup_cpu": round(start.cpu, 3),
            "runs_cpu": [round(r.cpu, 3) for r in runs],
            "wall": round(run.wall, 3),
            "command": " ".join(["trackkit", *args[len(opts.trackkit) :]]),
        }
        return Measured(run.cpu - start.cpu, detail)

    return measure


def imports_row(stage: Path) -> Callable[[Options], Measured]:
    """A plain ``validate``'s process against one that only imports its libraries."""

    def measure(opts: Options) -> Measured:
        runs = max(opts.runs, 5)  # both are short: a few more runs cost little
        code = "import " + ", ".join(VALIDATE_LIBRARIES)
        command = [*opts.trackkit, "validate", _rel(stage)]
        # in turns, so that both meet the same state of the machine (after a long row,
        # the first runs of either were seen to cost twice as much)
        pairs = [
            (
                run_process([opts.python, "-c", code], opts.cwd, opts.env),
                run_process(command, opts.cwd, opts.env),
            )
            for _ in range(runs)
        ]
        imports = _median([i for i, _v in pairs])
        validate = _median([v for _i, v in pairs])
        detail = {
            "validate_cpu": round(validate.cpu, 3),
            "imports_cpu": round(imports.cpu, 3),
            "validate_wall": round(validate.wall, 3),
            "imports_wall": round(imports.wall, 3),
            "wall_ratio": round(validate.wall / imports.wall, 3),
            "imports": code,
            "clock": "cpu",
        }
        return Measured(validate.cpu / imports.cpu, detail)

    return measure


def generate_row(args: Sequence[str], startup_stage: Path) -> Callable[[Options], Measured]:
    """CPU seconds of ``trackkit generate --count 3 ARGS`` beyond the start-up."""

    def measure(opts: Options) -> Measured:
        cpus = []
        walls = []
        for _ in range(opts.runs):
            with tempfile.TemporaryDirectory() as tmp:
                cmd = [*opts.trackkit, "generate", *args, "--count", "3", "--jobs", "1"]
                run = run_process([*cmd, "-o", tmp], opts.cwd, opts.env)
            cpus.append(run.cpu)
            walls.append(run.wall)
        start = opts.startup(startup_stage)
        cpu = statistics.median(cpus)
        detail = {
            "cpu": round(cpu, 3),
            "startup_cpu": round(start.cpu, 3),
            "runs_cpu": [round(c, 3) for c in cpus],
            "wall": round(statistics.median(walls), 3),
            "command": " ".join(["trackkit generate", *args, "--count 3 --jobs 1"]),
        }
        return Measured(cpu - start.cpu, detail)

    return measure


def suite_row(opts: Options) -> Measured:
    """Wall seconds of ``make test`` (ruff, mypy, the suite), one run."""
    run = run_process(["make", "test"])
    return Measured(run.wall, {"cpu": round(run.cpu, 3), "clock": "wall"})


TURINI = REPO / "examples" / "col-de-turini.yaml"
PIKES = REPO / "examples" / "hillclimb-pikes.yaml"
GT_CIRCUIT = REPO / "examples" / "gt-core-circuit.yaml"
SKEW = TRACKS / "gt-skew-11.rekee.json"
LONG = TRACKS / "gt-long-30.rekee.json"

ROWS: tuple[Row, ...] = (
    Row(
        "gt-skew-11",
        f"GT, 6 cars, 3 laps, 11-tile 2-lane circuit with skew tiles ({_rel(SKEW)}), "
        "cautious + aggressive + planner",
        "races/CPU s",
        ">=",
        300,
        race_row(SKEW, 6, MIXED, 300, laps=3),
    ),
    Row(
        "gt-long-30",
        f"GT, 6 cars, 3 laps, 30-tile 3-lane circuit ({_rel(LONG)}), cautious",
        "races/CPU s",
        ">=",
        150,
        race_row(LONG, 6, ("cautious",), 200, laps=3),
    ),
    Row(
        "dirt-turini",
        f"DIRT, 4 drivers, Col de Turini ({_rel(TURINI)}), cautious + aggressive + planner",
        "races/CPU s",
        ">=",
        500,
        race_row(TURINI, 4, MIXED, 1000),
    ),
    Row(
        "climb-pikes",
        f"The Climb, 3 drivers, hillclimb ({_rel(PIKES)}, 3 attempts), "
        "cautious + aggressive + planner",
        "races/CPU s",
        ">=",
        300,
        race_row(PIKES, 3, MIXED, 300),
    ),
    Row(
        "validate-sim-dirt",
        "validate --simulate 50 of a 14-tile DIRT stage (Col de Turini), beyond a plain validate",
        "CPU s",
        "<",
        0.5,
        simulate_row(TURINI),
    ),
    Row(
        "validate-sim-gt",
        f"validate --simulate 50 of a GT circuit ({_rel(GT_CIRCUIT)}), beyond a plain validate",
        "CPU s",
        "<",
        0.5,
        simulate_row(GT_CIRCUIT),
    ),
    Row(
        "validate-imports",
        "validate of a 14-tile stage (Col de Turini) against the import of its libraries "
        f"({', '.join(VALIDATE_LIBRARIES)}), whole processes, CPU",
        "x",
        "<=",
        1.2,
        imports_row(TURINI),
    ),
    Row(
        "generate-dirt",
        "generate 3 stages with simulation, DIRT (--boxes dirt-core), beyond start-up",
        "CPU s",
        "<",
        5,
        generate_row(["--boxes", "dirt-core"], TURINI),
    ),
    Row(
        "generate-gt",
        "generate 3 stages with simulation, GT (--ruleset gt --boxes gt-core), beyond start-up",
        "CPU s",
        "<",
        10,
        generate_row(["--ruleset", "gt", "--boxes", "gt-core"], GT_CIRCUIT),
    ),
    Row(
        "make-test",
        "make test (ruff, mypy, the suite), quiet",
        "wall s",
        "<",
        180,
        suite_row,
        informational=True,
    ),
)


def _figure(value: float | None, unit: str) -> str:
    if value is None:
        return "not measured (too few races for the start-up's noise: use more --races)"
    digits = 0 if unit == "races/CPU s" or value >= 100 else 2
    return f"{value:.{digits}f} {unit}"


def _verdict(row: Row, met: bool | None) -> str:
    word = "?" if met is None else ("yes" if met else "no")
    return f"{word} (informational)" if row.informational else word


def line_of(
    row: Row, measured: Measured, against: Measured | None = None, compiled: Measured | None = None
) -> str:
    """The table line: ``work | measured | target | met?`` (``work | against | measured |
    target | met?`` with another checkout's figure; ``work | pure | compiled | target | pure
    met? / compiled met?`` with the compiled build's)."""
    target = f"{row.op} {row.target:g} {row.unit}"
    met = row.met(measured.value)
    figure = _figure(measured.value, row.unit)
    if compiled is not None:
        verdicts = f"{_verdict(row, met)} / {_verdict(row, row.met(compiled.value))}"
        line = f"{row.work} | {figure} | {_figure(compiled.value, row.unit)} | {target} | "
        return line + verdicts + _whole(measured, compiled)
    if against is None:
        return f"{row.work} | {figure} | {target} | {_verdict(row, met)}"
    line = f"{row.work} | {_figure(against.value, row.unit)} | {figure} | {target} | "
    return line + _verdict(row, met) + _whole(against, measured)


def _whole(before: Measured, after: Measured) -> str:
    """Both whole processes' CPU, for a row beyond start-up."""
    # a figure beyond start-up reads worse for a side whose start-up got lighter (the
    # imports it no longer makes then count as the work): the whole processes say which is
    # quicker
    if "cpu" in before.detail and "cpu" in after.detail:
        return f" (whole process {before.detail['cpu']:.2f} -> {after.detail['cpu']:.2f} CPU s)"
    return ""


def json_of(row: Row, measured: Measured, opts: Options) -> dict[str, Any]:
    """The row's JSON object."""
    return {
        "row": row.id,
        "work": row.work,
        "measured": None if measured.value is None else round(measured.value, 4),
        "unit": row.unit,
        "op": row.op,
        "target": row.target,
        "met": row.met(measured.value),
        "informational": row.informational,
        "runs": opts.runs,
        "quick": opts.quick,
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        **measured.detail,
    }


def _pythonpath() -> list[str]:
    """This process's ``PYTHONPATH`` entries (kept after another checkout's)."""
    return [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]


def _first_on_path(directory: Path) -> dict[str, str]:
    """This environment with ``directory`` first on ``PYTHONPATH``."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(directory), *_pythonpath()])}


def _byte_compile(python: str, directory: Path, env: dict[str, str] | None) -> None:
    """Byte-compile ``directory``'s package first, as ``make bench`` does this checkout:
    where the environment sets PYTHONDONTWRITEBYTECODE, an uncompiled package compiles what
    it imports on every run."""
    command = [python, "-m", "compileall", "-q", str(directory / "trackkit")]
    subprocess.run(command, env=env, check=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Measure the rows asked for and print them; the exit status is 0 whatever they show."""
    parser = argparse.ArgumentParser(
        description="Issue 22's speed targets, measured (CPU seconds of trackkit processes).",
        epilog="Rows: " + ", ".join(r.id for r in ROWS),
    )
    parser.add_argument("--only", action="append", metavar="ROW", help="measure only ROW")
    parser.add_argument("--json", action="store_true", help="one JSON object per row on stdout")
    parser.add_argument("--quick", action="store_true", help="one run, a twentieth of the races")
    parser.add_argument("--races", type=int, metavar="N", help="races of every race row")
    parser.add_argument("--runs", type=int, metavar="N", help="runs per figure (default 3)")
    parser.add_argument("--suite", action="store_true", help="also time `make test` (wall)")
    parser.add_argument("--list", action="store_true", help="list the rows and exit")
    parser.add_argument(
        "--against",
        type=Path,
        metavar="DIR",
        help="also measure every row with the trackkit of checkout DIR (side by side)",
    )
    parser.add_argument(
        "--compiled",
        type=Path,
        metavar="DIR",
        help="also measure every row with the compiled build unpacked in DIR (make compiled)",
    )
    args = parser.parse_args(argv)
    if args.against is not None and args.compiled is not None:
        parser.error("--against and --compiled: one at a time")
    if args.list:
        for row in ROWS:
            print(f"{row.id}: {row.work}")
        return 0
    known = {r.id for r in ROWS}
    for name in args.only or ():
        if name not in known:
            parser.error(f"--only {name}: no such row (the rows: {', '.join(sorted(known))})")
    if args.races is not None and args.races < 1:
        parser.error("--races: at least 1")
    runs = args.runs if args.runs is not None else (1 if args.quick else 3)
    if runs < 1:
        parser.error("--runs: at least 1")
    opts = Options(runs=runs, races=args.races, quick=args.quick)
    base: Options | None = None
    if args.against is not None:
        other = args.against.resolve()
        if not (other / "trackkit" / "__init__.py").is_file():
            parser.error(f"--against {args.against}: no trackkit package in that directory")
        own = other / ".venv" / "bin" / "python"
        if own.exists():  # its own environment (its package data, its libraries)
            python, env = str(own), None
        else:  # this interpreter, its package first
            python, env = sys.executable, _first_on_path(other)
        _byte_compile(python, other, env)
        base = Options(
            runs=runs,
            races=args.races,
            quick=args.quick,
            env=env,
            cwd=other,
            python=python,
            trackkit=[python, "-P", "-m", "trackkit"],
        )
    second: Options | None = None
    if args.compiled is not None:
        build = args.compiled.resolve()
        if not any((build / "trackkit" / "sim").glob("loop.*.so")):
            parser.error(
                f"--compiled {args.compiled}: no compiled trackkit there (make compiled builds one)"
            )
        env = _first_on_path(build)
        _byte_compile(sys.executable, build, env)
        second = Options(
            runs=runs,
            races=args.races,
            quick=args.quick,
            env=env,
            trackkit=[sys.executable, "-P", "-m", "trackkit"],
        )
    rows = [
        r for r in ROWS if (r.id in args.only if args.only else (args.suite or r.id != "make-test"))
    ]
    table = sys.stderr if args.json else sys.stdout
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"issue 22 targets, CPU seconds of trackkit processes, median of {runs} "
        f"run(s){' (quick: not a figure)' if args.quick else ''}; load average {load} "
        f"on {os.cpu_count()} cores",
        file=table,
        flush=True,
    )
    if second is not None:
        header = f"work | pure | compiled ({args.compiled}) | target | met? (pure / compiled)"
        print(header, file=table, flush=True)
    elif base is not None:
        print(f"work | {args.against} | measured | target | met?", file=table, flush=True)
    else:
        print("work | measured | target | met?", file=table, flush=True)
    for row in rows:
        against = row.measure(base) if base is not None else None
        measured = row.measure(opts)
        # the suite runs the checkout's own package: one figure, whichever build
        compiled = row.measure(second) if second is not None and row.id != "make-test" else None
        print(line_of(row, measured, against, compiled), file=table, flush=True)
        if args.json:
            obj = json_of(row, measured, opts)
            if base is not None and against is not None:
                obj["against"] = {"dir": str(args.against), **json_of(row, against, base)}
            if second is not None and compiled is not None:
                obj["compiled"] = {"dir": str(args.compiled), **json_of(row, compiled, second)}
            print(json.dumps(obj), flush=True)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average at the end {load}", file=table, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
