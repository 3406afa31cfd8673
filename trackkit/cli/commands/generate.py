"""``trackkit generate``: stages from the boxes you own, with a report and a map each."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from trackkit import limits
from trackkit.cli.commands.common import (
    FLAG,
    FileSetForceOption,
    SchedulerOption,
    StageKind,
    fail,
    jobs_on,
)
from trackkit.cli.startup import loading
from trackkit.errors import InputError

if TYPE_CHECKING:
    from trackkit.formats.fileset import FileSetPlan
    from trackkit.generator.request import Request
    from trackkit.generator.run import Generation, Outcome


class Level(StrEnum):
    """Difficulty levels (``trackkit.generator.request.Difficulty``)."""

    easy = "easy"
    medium = "medium"
    hard = "hard"


class Ruleset(StrEnum):
    """The series a run builds for."""

    dirt = "dirt"
    gt = "gt"


class StageFileFormat(StrEnum):
    """Formats of the stage files written."""

    native = "native"
    rekee = "rekee"


class MapFormat(StrEnum):
    """Maps drawn beside each stage."""

    svg = "svg"
    png = "png"
    both = "both"
    none = "none"


_MAPS = {"svg": ("svg",), "png": ("png",), "both": ("svg", "png"), "none": ()}
_LABELS = {"building": "building roads", "racing": "racing finalists"}
#: The most searches per stage ``--tries`` takes.
MAX_TRIES = 50
#: ``--par``'s tolerance in per cent (trackkit.generator.fit.PAR_TOLERANCE, repeated here so
#: that ``--help`` does not import the generator; a test keeps the two equal).
PAR_PERCENT = 10


def _label(phase: str) -> str:
    """``building roads``, ``building roads (search 2)``: a progress bar's label."""
    base, _, attempt = phase.partition(" ")
    label = _LABELS.get(base, base)
    return f"{label} (search {attempt})" if attempt else label


class _Bars:
    """Progress bars on stderr, one per phase of the run (shown on a terminal)."""

    def __init__(self, show: bool) -> None:
        self.show = show
        self.phase: str | None = None
        self.bar: Any = None
        self.done = 0

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase != self.phase:
            self.close()
            self.bar = typer.progressbar(
                length=total, label=_label(phase), file=sys.stderr, hidden=not self.show
            )
            self.bar.__enter__()
            self.phase, self.done = phase, 0
        self.bar.update(done - self.done)
        self.done = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def generate(
    boxes: Annotated[
        list[str],
        typer.Option(
            "--boxes",
            metavar="BOX",
            help="A box you own (dirt-core, dirt-monte-carlo, dirt-climb, dirt-copilot; with "
            "--ruleset gt: gt-core, gt-championship, gt-world-tour, gt-team-challenge, "
            "gt-adrenaline); repeat it for each box, a box named twice counts twice.",
        ),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            metavar="DIR",
            help="Folder for the stages, their reports and maps, and the index (made when "
            "missing).",
        ),
    ],
    tiles: Annotated[
        int | None,
        typer.Option(
            min=2,
            max=1000,
            help="Tiles of each stage, start and finish included (default 12, or about "
            "--par / 24 s).",
        ),
    ] = None,
    length_mm: Annotated[
        float | None,
        typer.Option(
            "--length-mm",
            metavar="L",
            min=1.0,
            help="Road length from the start line to the finish line, in mm, instead of --tiles.",
        ),
    ] = None,
    kind: Annotated[
        StageKind | None,
        typer.Option(
            "--kind",
            help="Rally, or hillclimb (needs dirt-climb); GT: circuit (default) or point-to-point.",
        ),
    ] = None,
    ruleset: Annotated[
        Ruleset,
        typer.Option(
            "--ruleset",
            help="dirt: rally stages and hillclimbs; gt: Rallyman: GT circuits (closed on "
            "their start/finish tile) and point-to-point tracks.",
        ),
    ] = Ruleset.dirt,
    laps: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            min=limits.MIN_LAPS,
            max=limits.MAX_LAPS,
            help=f"GT circuits: laps of the race, {limits.laps_words()} (default 3).",
        ),
    ] = None,
    players: Annotated[
        int | None,
        typer.Option(
            metavar="P",
            min=limits.MIN_PLAYERS,
            max=limits.MAX_PLAYERS,
            help=f"GT: cars the grid must hold, and the cars of the races, "
            f"{limits.players_words()} (default {limits.DEFAULT_PLAYERS}).",
        ),
    ] = None,
    pit: Annotated[
        bool, typer.Option("--pit", metavar=FLAG, help="GT: lay the pit tile 101 beside the road.")
    ] = False,
    crossings: Annotated[
        int,
        typer.Option(min=0, max=2, help="GT: tiles the track drives twice (not generated yet: 0)."),
    ] = 0,
    surface: Annotated[
        str | None,
        typer.Option(
            metavar="MIX",
            help="Shares of the tiles by surface, e.g. gravel=0.7,asphalt=0.3; surfaces "
            "left out share the rest.",
        ),
    ] = None,
    difficulty: Annotated[
        Level,
        typer.Option(
            help="Losses of control aimed at: the lowest, middle or top third of what the "
            "boxes can make. GT: per driver per 10 tiles driven in GT races, easy 0.06-0.11, "
            "medium 0.11-0.15, hard 0.15-0.20 (the thirds of what random circuits show); "
            "measured in the finalists' races only, so it holds on average over tracks "
            "rather than for every one (raced again, easy and hard tracks differ by about "
            "0.04-0.13), and not at all with --races 0."
        ),
    ] = Level.medium,
    par: Annotated[
        float | None,
        typer.Option(
            metavar="SECONDS",
            min=1.0,
            help="Stage time of a careful driver (the cautious bot's median in the races).",
        ),
    ] = None,
    count: Annotated[int, typer.Option(min=1, max=100, help="Stages to write.")] = 1,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same files.")] = 1,
    tokens: Annotated[
        str | None,
        typer.Option(
            metavar="TOKENS",
            help="The Climb's tokens to place, e.g. oxygen=2,cloud,climb=1 (needs "
            "dirt-climb): oxygen on the last tiles, values rising to 3; clouds in the upper "
            "half; climb -1 on tiles without climb arrows.",
        ),
    ] = None,
    fillers: Annotated[
        int,
        typer.Option(
            min=0,
            max=100,
            help="Filler (scenery) tiles to lay beside the road, in the pockets of its bends "
            "(needs dirt-copilot).",
        ),
    ] = 0,
    file_format: Annotated[
        StageFileFormat,
        typer.Option("--format", help="Stage files: native YAML, or Rekee editor JSON."),
    ] = StageFileFormat.native,
    map_format: Annotated[
        MapFormat, typer.Option("--map", help="Maps beside each stage: svg, png, both or none.")
    ] = MapFormat.svg,
    px: Annotated[
        int, typer.Option("--px", metavar="N", min=100, max=20000, help="PNG maps: pixels.")
    ] = 2000,
    candidates: Annotated[
        int, typer.Option(min=1, max=1000, help="Roads built and scored per stage.")
    ] = 24,
    finalists: Annotated[
        int | None,
        typer.Option(min=1, max=100, help="Best roads of each stage raced (default 3; GT 6)."),
    ] = None,
    races: Annotated[
        int,
        typer.Option(min=0, max=10_000, help="Races per finalist (0: choose by structure alone)."),
    ] = 30,
    tries: Annotated[
        int,
        typer.Option(
            metavar="N",
            min=1,
            max=MAX_TRIES,
            help="Searches per stage at most. A stage fits when its losses of control lie "
            "in the --difficulty band (in its races; DIRT without races, by structure) and, "
            f"with --par, its careful time within {PAR_PERCENT} % of it. After the first "
            "search, each stage that misses is searched again (--candidates new roads, "
            "their finalists raced) until it fits or has had N searches; the same seed "
            "still gives the same files. Default 1: one search, and the misses are "
            "reported (on the terminal, in the reports and the index).",
        ),
    ] = 1,
    jobs: Annotated[
        int, typer.Option(min=1, max=64, help="Worker processes for the races (same files).")
    ] = 1,
    scheduler: SchedulerOption = None,
    force: FileSetForceOption = False,
) -> None:
    """Generate stages from the boxes you own: valid by construction, scored by their
    structure, the best raced by bots, one chosen per stage. With --ruleset gt, Rallyman:
    GT circuits from the GT boxes, chosen by overtakes and grid fairness in GT races.
    Writes into DIR each stage (stage-01.yaml), its map (stage-01.svg) and its report
    (stage-01.md: why it was chosen, targets against what it has, its summary and races),
    and index.md and index.json, which lists every file written with its SHA-256. Into a
    folder an earlier run wrote, only that run's files are replaced, and removed when
    this run does not write them again, and only while they are as it wrote them: any
    other file with a name this run writes stops the run (exit 2, naming it) unless
    --force, and files trackkit did not write are never removed.
    """
    with loading():  # the command's modules (see trackkit.cli.startup.loading)
        from trackkit.generator import GenerateError, Request, generate
        from trackkit.generator.output import check_outputs, write_outputs
        from trackkit.generator.refine import GT_FINALISTS
        from trackkit.generator.report import file_names
        from trackkit.generator.request import Difficulty, parse_surface_mix, parse_tokens
        from trackkit.models.stage import Kind

    fmt, maps = file_format.value, _MAPS[map_format.value]
    gt = ruleset is Ruleset.gt
    try:
        request = Request(
            boxes=tuple(boxes),
            tiles=tiles,
            length_mm=length_mm,
            kind=Kind(kind.value) if kind is not None else None,  # type: ignore[arg-type]
            ruleset=ruleset.value,
            laps=laps,
            players=players,
            pit=pit,
            crossings=crossings,
            surfaces=parse_surface_mix(surface) if surface is not None else (),
            difficulty=Difficulty(difficulty.value),
            par=par,
            count=count,
            seed=seed,
            tokens=parse_tokens(tokens) if tokens is not None else (),
            fillers=fillers,
            candidates=candidates,
            finalists=finalists if finalists is not None else (GT_FINALISTS if gt else 3),
            races=races,
            tries=tries,
        )
        names = [file_names(i, fmt, maps) for i in range(1, count + 1)]
        planned = [n for f in names for n in (f["stage"], f["report"], *f["maps"])]
        check_outputs(output, [*planned, "index.md", "index.json"], force=force)
        bars = _Bars(sys.stderr.isatty())
        try:
            with jobs_on(scheduler if races else None, jobs) as workers:  # races: the cluster's
                generation = generate(request, jobs=workers, progress=bars)
        finally:
            bars.close()
        files, index = _files(generation, names, fmt, maps, px)
        written = write_outputs(output, files, index, force=force)
    except GenerateError as exc:
        raise fail(str(exc)) from None
    except InputError as exc:
        raise fail(str(exc)) from None
    for outcome, f in zip(generation.outcomes, names, strict=True):
        typer.echo(
            f"wrote {output / f['stage']} ({_facts(request, outcome)}) with "
            + ", ".join([f["report"], *f["maps"]])
        )
        searches = f" after {outcome.tries} searches" if outcome.tries > 1 else ""
        if not outcome.fit.fits or searches:
            typer.echo(f"  {_what(request)} {outcome.index} {outcome.fit.words()}{searches}")
    typer.echo(f"wrote {output / 'index.md'} and index.json ({len(written.files)} files)")
    _echo_plan(output, written.plan)
    missed = sum(1 for o in generation.outcomes if not o.fit.fits)
    if missed:
        what = f"{missed} of {request.count} {_what(request)}s" if request.count > 1 else "it"
        how = (
            "--tries N searches again for each one that misses, up to N searches"
            if request.tries == 1
            else f"{request.tries} searches each found none that fits: more --tries or "
            "--candidates may, or a --difficulty or --par these boxes reach more easily"
        )
        typer.echo(
            f"trackkit: note: {what} {'miss' if request.count > 1 else 'misses'} what was "
            f"asked for (above, and in index.md and index.json); {how}",
            err=True,
        )


def _what(request: Request) -> str:
    return "track" if request.ruleset == "gt" else "stage"


def _facts(request: Request, outcome: Outcome) -> str:
    """What the terminal says of a stage written: size, and what its races showed."""
    from trackkit.generator.refine import GtSimResult

    s = outcome.chosen.candidate.structure
    sim = outcome.chosen.sim
    lap = "a lap" if request.kind.value == "circuit" else "start to finish"
    if isinstance(sim, GtSimResult):
        return (
            f"{s.tiles} tiles, {s.length_mm / 1000:.2f} m {lap}, {sim.overtakes:.2f} overtakes "
            f"{sim.overtakes_unit}, pole won {sim.win_rate_by_slot.get('1', 0.0):.0%}, "
            f"{sim.loc_rate:.3f} losses of control"
        )
    if request.ruleset == "gt":
        return f"{s.tiles} tiles, {s.length_mm / 1000:.2f} m {lap}, not raced"
    raced = f", {sim.loc_rate:.2f} raced" if sim else ""
    return (
        f"{s.tiles} tiles, {s.length_mm / 1000:.2f} m of road, difficulty {s.difficulty:.2f}{raced}"
    )


def _echo_plan(output: Path, plan: FileSetPlan) -> None:
    """Say what the run did to files it did not simply create or replace."""
    for name in plan.forced:
        typer.echo(f"replaced {output / name} (not written by trackkit: --force)")
    for name in plan.removed:
        typer.echo(f"removed {output / name} (an earlier run's)")
    for name in plan.kept:
        typer.echo(
            f"kept {output / name} (an earlier run wrote it, and it has changed since: "
            "it is yours now)"
        )


def _files(
    generation: Generation,
    names: list[dict[str, Any]],
    fmt: str,
    maps: tuple[str, ...],
    px: int,
) -> tuple[dict[str, bytes], dict[str, Any]]:
    """Every file of the run by name (stages, maps, reports, index.md), and the document
    of index.json (written last, with the hashes of the others)."""
    from trackkit.formats.write import dump_stage
    from trackkit.generator.report import index_json, index_markdown, stage_report
    from trackkit.render.raster import SvgDoc, svg_to_png
    from trackkit.render.svg import map_svg

    out: dict[str, bytes] = {}
    for outcome, f in zip(generation.outcomes, names, strict=True):
        text = dump_stage(outcome.stage, "rekee" if fmt == "rekee" else "native-yaml")
        out[f["stage"]] = text.encode("utf-8")
        if maps:
            drawn = map_svg(outcome.report)
            view = drawn.frame.view
            doc = SvgDoc(drawn.svg, view.w, view.h)
            for name, kind in zip(f["maps"], maps, strict=True):
                data = doc.text.encode("utf-8") if kind == "svg" else svg_to_png(doc, longest_px=px)
                out[name] = data
        report = stage_report(generation, outcome, f, fmt=fmt, maps=maps)
        out[f["report"]] = report.encode("utf-8")
    out["index.md"] = index_markdown(generation, names, fmt=fmt, maps=maps).encode("utf-8")
    return out, index_json(generation, names, fmt=fmt, maps=maps)
