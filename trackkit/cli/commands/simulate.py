"""``trackkit simulate`` and ``trackkit replay``: race a stage many times with bots."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from trackkit import limits
from trackkit.cli.commands.common import (
    ForceOption,
    KindOption,
    OutputFormat,
    SchedulerOption,
    SeedOption,
    fail,
    fail_json,
    jobs_on,
    kind_of,
)
from trackkit.cli.startup import loading
from trackkit.errors import InputError, TrackkitError

if TYPE_CHECKING:
    from trackkit.models.car import CarFile


def simulate(
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILES",
            help="Stage file(s); several files make a rally whose times add up.",
            show_default=False,
            readable=False,  # an unreadable file is reported as such, like a missing one
        ),
    ],
    players: Annotated[
        int,
        typer.Option(
            min=limits.MIN_PLAYERS,
            max=limits.MAX_PLAYERS,
            help=f"Drivers, {limits.players_words()} (a GT track's grid must hold them, S127).",
        ),
    ] = limits.DEFAULT_PLAYERS,
    races: Annotated[int, typer.Option(min=1, max=100_000, help="Races to run.")] = 20,
    seed: SeedOption = 1,
    car: Annotated[
        list[str] | None,
        typer.Option(
            metavar="CAR",
            help="Car per driver: dirt, r5, unlimited (each bot builds an Unlimited "
            "dashboard for the stage) or a car file (format: trackkit-car/1); on a "
            "Rallyman: GT track gt4, gt5 or gt6. Repeat it, drivers cycle through the list. "
            "Default: unlimited on a hillclimb, dirt on a rally, gt6 on a GT track.",
        ),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            metavar="BOT",
            help="Bot per driver (cautious, aggressive, planner); repeat it to mix, drivers "
            "cycle through the list. Default: on a hillclimb cautious, aggressive and planner "
            "in turn (a cautious bot alone never loses control on its Unlimited board and "
            "drives the same time every race); on a rally and a GT track cautious.",
        ),
    ] = None,
    output: Annotated[
        OutputFormat, typer.Option("--format", help="text table or one JSON document.")
    ] = OutputFormat.text,
    jobs: Annotated[
        int, typer.Option(min=1, max=64, help="Worker processes (same result as 1).")
    ] = 1,
    scheduler: SchedulerOption = None,
    replay: Annotated[
        Path | None,
        typer.Option(help="Write the full turn log of the first race to this JSON file."),
    ] = None,
    max_rounds: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=10_000,
            help="Round cap: a race ends after this many rounds, and cars still racing "
            'then are DNF "round cap". (A car that can never get past a spot is DNF '
            '"stuck" at once.) Default 200; on a GT track as many as its laps need '
            "(a round for every 100 mm of the race, at least 200).",
            show_default=False,
        ),
    ] = None,  # trackkit.sim.race.MAX_ROUNDS, trackkit.sim.gt_race.gt_round_cap
    kind: KindOption = None,
    force: ForceOption = False,
    laps: Annotated[
        int | None,
        typer.Option(
            min=limits.MIN_LAPS,
            max=limits.MAX_LAPS,
            help=f"GT circuits: laps of the race, {limits.laps_words()} (default: the file's, "
            "else 3). A "
            "point-to-point GT track has no laps: --laps is refused there.",
        ),
    ] = None,
    weather: Annotated[
        str | None,
        typer.Option(
            metavar="dry|rain",
            help="GT tracks: the weather at the start, dry or rain (default dry). The GT "
            "rules (docs/rules.md, GT-3) give the dashboards no rain side: the weather costs "
            "only a car whose tyres do not suit it, a coast die and a point of danger limit "
            "a turn. The cars start on the tyres for the weather, and a weather token turns "
            "rain to dry as it turns dry to rain, so with the same seed a race that starts "
            "in the rain is, turn for turn, the race that starts in the dry: only the weather "
            "named and the tyres fitted differ. DIRT stages have no weather (refused there).",
        ),
    ] = None,
    grid: Annotated[
        str | None,
        typer.Option(
            metavar="drawn|given",
            help="GT tracks: drawn (the seed draws who starts where; the default) or given "
            "(driver 1 on pole, then in order). Refused on a DIRT stage.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Race the stage with bots and report times, losses of control and where cars stall.

    A Rallyman: GT track is raced from its grid over its laps: the report gives places,
    wins by grid slot, laps led, overtakes (per lap, and where), losses of control, pit
    stops and weather changes.

    An invalid stage is not raced: its errors go to stderr and the exit status is 1.
    With --format json, stdout is one JSON document whatever happens: on an error, an
    "error" object (file, message, exit_status), and for invalid stages their findings
    ("files", as 'trackkit validate --format json' lists them). A run of 20 races or more
    shows a progress bar on stderr when stderr is a terminal; Ctrl-C stops it (exit 130).
    --scheduler (or TRACKKIT_SCHEDULER) races on a Dask cluster instead, with the same
    document.
    """
    with loading():  # the command's modules (see trackkit.cli.startup.loading)
        from trackkit.formats import load_source, write_text_atomic
        from trackkit.sim.bots import BOTS
        from trackkit.sim.simulate import NotAGtCar, SimulationError, simulate_files

    as_json = output is OutputFormat.json

    def failed(message: str, *, file: object = None, code: int = 2) -> typer.Exit:
        if as_json:
            return fail_json(message, file=file, code=code)
        return fail(f"{file}: {message}" if file is not None else message, code)

    bots = tuple(bot or ())  # none: the default bots of the stage's kind (default_bots)
    for b in bots:
        if b not in BOTS:
            raise failed(f"unknown bot '{b}' (bots: {', '.join(BOTS)})")
    try:
        cars, car_files = _cars(car or [])
    except InputError as exc:
        raise failed(exc.message, file=exc.file) from None
    try:
        if replay is not None:
            from trackkit.formats.files import check_output, same_file

            check_output(replay, force=force)  # before the races, not after them
            for f in files:
                if not force and same_file(f, replay):
                    raise InputError(
                        str(replay),
                        f"is the stage file {f} itself: the replay would replace it (give "
                        "another --replay name, or --force)",
                    )
        sources = [load_source(f) for f in files]  # the findings get their lines
        stages = [s.stage for s in sources]
    except InputError as exc:
        raise failed(exc.message, file=exc.file) from None
    from trackkit.parallel import SchedulerError
    from trackkit.rules.cars import CarMismatch

    show = races >= 20 and sys.stderr.isatty()
    with (
        jobs_on(scheduler, jobs, failed) as workers,
        typer.progressbar(
            length=races * len(stages), label="racing", file=sys.stderr, hidden=not show
        ) as bar,
    ):
        try:
            doc, replay_text = simulate_files(
                stages,
                [str(f) for f in files],
                players=players,
                races=races,
                seed=seed,
                cars=cars,
                bots=bots,
                jobs=workers,
                progress=bar.update,
                want_replay=replay is not None,
                sources=sources,
                max_rounds=max_rounds,
                kind=kind_of(kind),
                note=lambda text: typer.echo(f"trackkit: note: {text}", err=True),
                laps=laps,
                weather=weather,
                grid=grid,
            )
        except NotAGtCar as exc:  # a car file on a GT track: named by the path typed
            path = next((p for m, p in car_files if m is exc.car), exc.car.name)
            raise failed(exc.naming(path), file=exc.file) from None
        except InputError as exc:  # GT options or cars that do not fit the stage
            raise failed(exc.message, file=exc.file) from None
        except SimulationError as exc:
            from trackkit.checks.text import report_text

            for report in exc.reports:  # the findings, as 'trackkit validate' prints them
                typer.echo(report_text(report), err=True)
            if as_json:
                found = {"files": [report.to_json() for report in exc.reports]}
                raise fail_json(exc.message, file=exc.file, code=1, extra=found) from None
            raise fail(str(exc), code=1) from None
        except CarMismatch as exc:  # a car file for other surfaces (DASH-3): unusable input
            path = next((p for m, p in car_files if m is exc.car), exc.car.name)
            raise failed(exc.message, file=path) from None
        except SchedulerError:  # the cluster was lost: jobs_on says so
            raise
        except TrackkitError as exc:  # a replay too long to be read back (ReplayError)
            raise failed(str(exc), file=replay) from None
    if replay is not None and replay_text is not None:
        try:
            write_text_atomic(replay, replay_text, force=force)
        except InputError as exc:
            raise failed(exc.message, file=exc.file) from None
    if as_json:
        typer.echo(json.dumps(doc.to_json(), indent=2, sort_keys=True))
    else:
        from trackkit.sim.text_report import sim_text

        typer.echo(sim_text(doc))


def _cars(given: list[str]) -> tuple[tuple[str | CarFile, ...] | None, list[tuple[CarFile, str]]]:
    """The ``--car`` values as cars: ids as they are, car files read.

    An id of the ruleset (``dirt``, ``r5``) or ``unlimited`` is a car id; anything else
    is a car file's path (``./dirt`` for a file named like an id).

    Raises
    ------
    InputError
        For an unknown car id or an unusable car file.
    """
    if not given:
        return None, []
    from trackkit.rules.cars import load_car
    from trackkit.rules.ruleset import load_ruleset
    from trackkit.sim.race import UNLIMITED

    ids = {*load_ruleset("dirt").cars, UNLIMITED, *load_ruleset("gt").cars}
    cars: list[str | CarFile] = []
    files: list[tuple[CarFile, str]] = []
    for c in given:
        if c in ids:
            cars.append(c)
            continue
        if not Path(c).exists() and Path(c).suffix.lower() not in (".yaml", ".yml", ".json"):
            raise InputError(
                "--car",
                f"unknown car '{c}' (cars: {', '.join(sorted(ids))}, or a car file: "
                "format: trackkit-car/1)",
            )
        model = load_car(c)  # InputError names the file and the place
        cars.append(model)
        files.append((model, c))
    return tuple(cars), files


def replay_cmd(
    file: Annotated[
        Path,
        typer.Argument(metavar="FILE", help="A replay file written by --replay.", readable=False),
    ],
) -> None:
    """Re-run a recorded race and confirm that every event matches.

    A replay re-runs this trackkit's rules engine on the recorded stage, settings and seed,
    so a file recorded before the engine changed (another trackkit build) can differ
    without being edited. Replay files are at most 16 MB (what --replay writes never is
    more).
    """
    from trackkit.sim.replay import ReplayError, check_replay, load_replay

    try:
        doc = load_replay(file)
    except InputError as exc:
        raise fail(str(exc)) from None
    try:
        ok, message = check_replay(doc)
    except ReplayError as exc:
        raise fail(f"{file}: {exc}") from None
    typer.echo(f"{file}: {message}")
    if not ok:
        typer.echo(
            "  (a replay re-runs this trackkit's rules engine: an unedited file recorded by a "
            "trackkit whose engine has changed since differs too)"
        )
    raise typer.Exit(0 if ok else 1)
