"""``trackkit generate``: stages from the boxes you own, with a report and a map each."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from trackkit.commands.common import FLAG, ForceOption, StageKind, fail
from trackkit.errors import InputError

if TYPE_CHECKING:
    from trackkit.generate.run import Generation


class Level(StrEnum):
    """Difficulty levels (``trackkit.generate.request.Difficulty``)."""

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
                length=total, label=_LABELS.get(phase, phase), file=sys.stderr, hidden=not self.show
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
        typer.Option(metavar="N", help="GT circuits: laps of the race (default 3)."),
    ] = None,
    players: Annotated[
        int | None,
        typer.Option(
            metavar="P",
            help="GT: cars the grid must hold, and the cars of the races (default 4).",
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
    jobs: Annotated[
        int, typer.Option(min=1, max=64, help="Worker processes for the races (same files).")
    ] = 1,
    force: ForceOption = False,
) -> None:
    """Generate stages from the boxes you own: valid by construction, scored by their
    structure, the best raced by bots, one chosen per stage. With --ruleset gt, Rallyman:
    GT circuits from the GT boxes, chosen by overtakes and grid fairness in GT races.
    Writes into DIR each stage (stage-01.yaml), its map (stage-01.svg) and its report
    (stage-01.md: why it was chosen, targets against what it has, its summary and races),
    and index.md and index.json. Files of an earlier run in DIR that this run does not
    write are removed.
    """
    from trackkit.generate import GenerateError, Request, generate
    from trackkit.generate.output import check_outputs, write_outputs
    from trackkit.generate.refine import GT_FINALISTS, GtSimResult
    from trackkit.generate.report import file_names
    from trackkit.generate.request import Difficulty, parse_surface_mix, parse_tokens
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
        )
        names = [file_names(i, fmt, maps) for i in range(1, count + 1)]
        planned = [n for f in names for n in (f["stage"], f["report"], *f["maps"])]
        check_outputs(output, [*planned, "index.md", "index.json"], force=force)
        bars = _Bars(sys.stderr.isatty())
        try:
            generation = generate(request, jobs=jobs, progress=bars)
        finally:
            bars.close()
        files = _files(generation, names, fmt, maps, px)
        written, removed = write_outputs(output, files, force=force)
    except GenerateError as exc:
        raise fail(str(exc)) from None
    except InputError as exc:
        raise fail(str(exc)) from None
    for outcome, f in zip(generation.outcomes, names, strict=True):
        s = outcome.chosen.candidate.structure
        sim = outcome.chosen.sim
        with_files = ", ".join([f["report"], *f["maps"]])
        lap = "a lap" if request.kind.value == "circuit" else "start to finish"
        if isinstance(sim, GtSimResult):
            raced = (
                f", {sim.overtakes:.2f} overtakes {sim.overtakes_unit}, pole won "
                f"{sim.win_rate_by_slot.get('1', 0.0):.0%}, {sim.loc_rate:.3f} losses of control"
            )
            typer.echo(
                f"wrote {output / f['stage']} ({s.tiles} tiles, {s.length_mm / 1000:.2f} m {lap}"
                f"{raced}) with {with_files}"
            )
            continue
        if request.ruleset == "gt":
            typer.echo(
                f"wrote {output / f['stage']} ({s.tiles} tiles, {s.length_mm / 1000:.2f} m {lap}"
                f", not raced) with {with_files}"
            )
            continue
        raced = f", {sim.loc_rate:.2f} raced" if sim else ""
        typer.echo(
            f"wrote {output / f['stage']} ({s.tiles} tiles, {s.length_mm / 1000:.2f} m of road, "
            f"difficulty {s.difficulty:.2f}{raced}) with {with_files}"
        )
    typer.echo(f"wrote {output / 'index.md'} and index.json ({len(written)} files)")
    for old in removed:
        typer.echo(f"removed {old} (an earlier run's)")


def _files(
    generation: Generation,
    names: list[dict[str, Any]],
    fmt: str,
    maps: tuple[str, ...],
    px: int,
) -> dict[str, bytes]:
    """Every file of the run by name: stages, maps, reports, then the index."""
    from trackkit.convert import dump_stage
    from trackkit.generate.report import index_json, index_markdown, stage_report
    from trackkit.render.convert import SvgDoc, svg_to_png
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
    doc_json = index_json(generation, names, fmt=fmt, maps=maps)
    out["index.json"] = (json.dumps(doc_json, indent=2, sort_keys=True) + "\n").encode("utf-8")
    return out
