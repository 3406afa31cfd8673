"""``trackkit car suggest``: Unlimited dashboards for a hillclimb, found by simulation."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from trackkit import limits
from trackkit.cli.commands.common import (
    ForceOption,
    KindOption,
    SchedulerOption,
    SeedOption,
    echo_kind_note,
    fail,
    jobs_on,
    kind_of,
)
from trackkit.errors import InputError

if TYPE_CHECKING:
    from trackkit.models.stage import Stage
    from trackkit.sim.garage import StageProfile
    from trackkit.sim.suggest import Suggestion

car_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help="Cars: Unlimited dashboards suggested for a hillclimb (car files: format trackkit-car/1).",
)

#: Bots in turn when --bot is not given (trackkit.sim.suggest.DEFAULT_BOTS).
_DEFAULT_BOTS = ("cautious", "aggressive", "planner")


@car_app.command("suggest")
def suggest(
    stage: Annotated[
        Path,
        typer.Argument(
            metavar="STAGE",
            help="A hillclimb stage file (native YAML/JSON, Rekee JSON or .rgt).",
            show_default=False,
            readable=False,
        ),
    ],
    players: Annotated[
        int,
        typer.Option(
            min=limits.MIN_PLAYERS,
            max=limits.MAX_PLAYERS,
            help=f"Drivers per race, {limits.players_words()}, all on the board tried.",
        ),
    ] = limits.DEFAULT_PLAYERS,
    races: Annotated[
        int,
        typer.Option(
            min=1, max=1000, help="Races each of the last boards runs (more: surer, slower)."
        ),
    ] = 16,
    seed: SeedOption = 1,
    top: Annotated[int, typer.Option(min=1, max=20, help="Boards to suggest.")] = 3,
    jobs: Annotated[
        int, typer.Option(min=1, max=64, help="Worker processes (same result as 1).")
    ] = 1,
    scheduler: SchedulerOption = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--out",
            help="Folder to write the suggested boards into as car files "
            "(STAGE-board-1.yaml, ...; made when missing).",
        ),
    ] = None,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            metavar="BOT",
            help="Bot per driver (cautious, aggressive, planner); repeat it to mix. "
            "Default: the three in turn.",
        ),
    ] = None,
    kind: KindOption = None,
    force: ForceOption = False,
) -> None:
    """Search Unlimited dashboards for a hillclimb by simulation; print the best.

    The search space (The Climb, DASH-3 and DASH-4): every order of the
    stage's track-type tokens (the rightmost is the car's best surface);
    gear dice 1 to 4, 1 to 5 or 1 to 6; 0 to 2 brake, 1 to 3 coast and 0 to 2
    boost dice; a SISU token or none; puncture-proof tyres or none (on a stage
    with shortcuts). Tokens go where they work on the most surfaces, and each
    space left empty adds 1 to the danger limit. For a stage of k surfaces
    that is k! x 3 x 3 x 3 x 3 x 2 boards, x 2 with shortcuts: 162 on one
    surface, 324 or 648 on two, 972 or 1944 on three. Boards that give a car
    the same dice on every surface count once; the report says how many.

    The search: every board races once, the better half twice in all, the
    better half of those four times, and so on up to --races races each (or
    until --top boards are left, which then race that often). The best --top
    are printed with their mean best-of-3 time (HILLCLIMB-2), finish rate and
    losses of control per attempt. Each race has --players drivers, all on the
    board being tried, with the bots of --bot in turn, and every board meets
    the same seeded races: the same --seed gives the same report, byte for
    byte, with any --jobs or --scheduler. A progress bar shows on stderr when it is a
    terminal; Ctrl-C stops the search (exit 130, nothing written).

    A stage that is not a hillclimb is refused (exit 2): --kind hillclimb
    searches it as one. An invalid stage is not raced (exit 1, its errors on
    stderr).
    """
    from trackkit.checks.pipeline import validate
    from trackkit.checks.text import report_text
    from trackkit.formats import load_stage
    from trackkit.sim.bots import BOTS

    bots = tuple(bot or _DEFAULT_BOTS)
    for b in bots:
        if b not in BOTS:
            raise fail(f"unknown bot '{b}' (bots: {', '.join(BOTS)})")
    try:
        model = load_stage(stage)
    except InputError as exc:
        raise fail(str(exc)) from None
    report = validate(model, kind=kind_of(kind), file=str(stage))
    if not report.valid:
        typer.echo(report_text(report), err=True)
        codes = ", ".join(f.code for f in report.findings if f.severity.value == "error")
        raise fail(f"{stage}: the stage has errors ({codes}): not raced", 1)
    from trackkit.models.stage import Kind

    if report.kind is not Kind.HILLCLIMB:
        raise fail(
            f"{stage}: a {report.kind.value}, not a hillclimb: Unlimited dashboards are "
            "built for hillclimbs (The Climb, DASH-3); --kind hillclimb searches it as one"
        )
    echo_kind_note(report.findings, stage)
    paths = _outputs(out, stage, top, force=force)

    from trackkit.rules.track import Track
    from trackkit.sim.garage import stage_profile
    from trackkit.sim.race import prepare
    from trackkit.sim.suggest import schedule, search_space
    from trackkit.sim.suggest import suggest as run_suggest

    prepared = prepare(Track.from_graph(report.graph, report.layout))
    profile = stage_profile(prepared.track)
    rounds = schedule(len(search_space(profile)), top, races)
    total = _races_in(rounds)
    show = total >= 20 and sys.stderr.isatty()
    with (
        jobs_on(scheduler, jobs) as workers,
        typer.progressbar(length=total, label="searching", file=sys.stderr, hidden=not show) as bar,
    ):
        found = run_suggest(
            prepared,
            players=players,
            races=races,
            seed=seed,
            top=top,
            jobs=workers,
            bots=bots,
            progress=bar.update,
        )
    typer.echo(_report(stage, model, profile, found, seed=seed))
    if paths:
        _write(paths, model, stage, found, seed=seed, force=force)


def _races_in(rounds: list[tuple[int, int]]) -> int:
    """Races a schedule runs in all (each round adds races to the boards it keeps)."""
    total, before = 0, 0
    for n, r in rounds:
        total += n * (r - before)
        before = r
    return total


def _outputs(out: Path | None, stage: Path, top: int, *, force: bool) -> list[Path]:
    """The car files ``-o`` names, checked before the search starts.

    The folder may be missing (it is made when the files are written), but its own folder
    must exist; each file follows the rules of every output (a link among these names,
    which trackkit makes up, is refused).
    """
    if out is None:
        return []
    from trackkit.formats.files import check_output, check_output_folder

    paths = [out / f"{_stem(stage)}-board-{rank}.yaml" for rank in range(1, top + 1)]
    try:
        if out.exists() or out.is_symlink():
            if not out.is_dir():
                raise InputError(str(out), "cannot write car files: it is not a folder")
            for path in paths:
                check_output(path, force=force, named=False)
        else:
            check_output_folder(out)
    except InputError as exc:
        raise fail(str(exc)) from None
    return paths


def _stem(stage: Path) -> str:
    name = stage.name
    for suffix in (".rekee.json", ".yaml", ".yml", ".json", ".rgt"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)] or "stage"
    return name or "stage"


def _layout(layout: dict[str, list[str | None]]) -> list[str]:
    """A board's spaces as a car file lists them (``-``: an empty space), in two lines."""

    def region(name: str) -> str:
        spaces = layout[name]
        return f"{name}: [" + ", ".join("-" if s is None else s for s in spaces) + "]"

    return ["  ".join(region(n) for n in ("top", "right", "middle")), region("left")]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _report(
    stage: Path, model: Stage, profile: StageProfile, found: Suggestion, *, seed: int
) -> str:
    """The suggestion as text: how the search went, then the boards, best first."""
    names = list(profile.surfaces)
    surfaces = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    rounds = found.rounds
    steps = [f"{rounds[0][0]} boards x {rounds[0][1]}", *(f"{n} x {r}" for n, r in rounds[1:])]
    drivers = len(found.bots)
    lines = [
        f"{stage}: {model.name or _stem(stage)}, a hillclimb on {surfaces}",
        f"{found.searched} Unlimited boards searched ({found.size} before merging those that "
        f"play alike) in {_races_in(rounds)} races",
        f"  races each: {', '.join(steps)}",
        f"{_count(drivers, 'driver')} a race ({', '.join(found.bots)}), 3 attempts each, "
        f"seed {seed}",
        "",
        f"{'rank':>4}  {'best of 3':>9}  {'finish':>6}  {'LoC/attempt':>11}  board",
    ]
    for rank, score in enumerate(found.boards, 1):
        mean = "-" if score.mean_best is None else f"{score.mean_best:.1f}s"
        own = found.builder_of(score.board, profile)
        lines.append(
            f"{rank:>4}  {mean:>9}  {score.finish_rate:>6.0%}  {score.loss_rate:>11.2f}  "
            f"{score.board.short()}" + (f" (the {own} bot's own build)" if own else "")
        )
        lines += [f"{'':>6}{text}" for text in _layout(score.board.layout())]
    lines.append(
        f"best of 3: the mean over {_count(rounds[-1][1], 'race')} x "
        f"{_count(drivers, 'driver')} (seconds); LoC: losses of control"
    )
    return "\n".join(lines)


def _write(
    paths: list[Path], model: Stage, stage: Path, found: Suggestion, *, seed: int, force: bool
) -> None:
    """Write the boards as car files (read back first: a file trackkit itself reads)."""
    from trackkit.formats.files import write_text_atomic
    from trackkit.rules.cars import car_file, dump_car, parse_car

    title = (model.name or _stem(stage))[:48]
    try:
        try:
            paths[0].parent.mkdir(exist_ok=True)
        except OSError as exc:
            raise InputError(
                str(paths[0].parent), f"cannot make the folder: {exc.strerror or exc}"
            ) from None
        for rank, (path, score) in enumerate(zip(paths, found.boards, strict=False), 1):
            mean = "no finish" if score.mean_best is None else f"{score.mean_best:.1f} s"
            description = (
                f"trackkit car suggest {stage.name}, rank {rank}: mean best of 3 {mean}, "
                f"finish {score.finish_rate:.0%}, {score.loss_rate:.2f} losses of control "
                f"per attempt ({_count(found.rounds[-1][1], 'race')}, "
                f"{_count(len(found.bots), 'driver')}, seed {seed})"
            )[:500]
            car = car_file(score.board, f"{title} board {rank}", description)
            text = dump_car(car)
            parse_car(text, file=str(path))  # what is written reads back
            write_text_atomic(path, text, force=force, named=False)
            typer.echo(f"wrote {path}")
    except InputError as exc:
        raise fail(str(exc)) from None
