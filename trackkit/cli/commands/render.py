"""``trackkit render``: the map of a stage as SVG, PNG or PDF."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from trackkit.cli.commands.common import (
    FLAG,
    ForceOption,
    KindOption,
    echo_kind_note,
    fail,
    kind_of,
)
from trackkit.errors import InputError
from trackkit.words import plural

#: The library's default tile size (trackkit.road.geometry.DEFAULT_TILE_SIZE_MM), repeated here
#: so that ``--help`` does not import the geometry.
DEFAULT_TILE_SIZE_MM = 240.0

#: The stage file a command reads (render, print).
StageFileArgument = Annotated[
    Path, typer.Argument(metavar="FILE", help="Stage file (native YAML/JSON, Rekee, .rgt).")
]
ThemeOption = Annotated[
    Path | None,
    typer.Option(
        "--theme",
        metavar="FILE",
        help='JSON object of colour overrides, e.g. {"surface.gravel": "#e0c9a0"}; '
        "unknown keys are an error that lists the keys.",
    ),
]
TileSizeOption = Annotated[
    float | None,
    typer.Option(
        "--tile-size",
        metavar="MM",
        min=20.0,
        max=1000.0,
        show_default=False,
        help="Tile size in mm, flat edge to flat edge, for this run. Default: your size "
        "('trackkit config tile-size MM' sets it once), else 240, the library's assumed "
        "size (measure your tiles).",
    ),
]


def chosen_tile_size(option: float | None) -> float:
    """The tile size of a run: ``--tile-size``, else the user's setting, else 240 mm.

    Raises
    ------
    InputError
        If the user's settings file is unusable (trackkit.config names it).
    """
    if option is not None:
        return option
    from trackkit.config import tile_size

    return tile_size()


class HeatShow(StrEnum):
    """What a heat map shows (trackkit.render.heat.HEAT_SHOW)."""

    loss = "loss"
    overtakes = "overtakes"
    both = "both"


def render(
    file: StageFileArgument,
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            metavar="OUT",
            help="File to write; its suffix picks the format: .svg, .png or .pdf.",
        ),
    ],
    theme: ThemeOption = None,
    event: KindOption = None,
    tile_size: TileSizeOption = None,
    legend: Annotated[
        bool,
        typer.Option("--legend/--no-legend", metavar=FLAG, help="Add the title block and legend."),
    ] = True,
    px: Annotated[
        int,
        typer.Option(
            "--px",
            metavar="N",
            min=100,
            max=20000,
            help="PNG only: pixels on the longer side (a PNG holds at most 40 million "
            "pixels: a larger size is reduced to fit, keeping the proportions).",
        ),
    ] = 3000,
    heat: Annotated[
        Path | None,
        typer.Option(
            metavar="SIM.json",
            help="Colour spaces by losses of control from 'trackkit simulate --format json' "
            "of this stage (a simulation of another stage is refused), with a colour scale; "
            "on a GT track, rings mark the overtakes too.",
        ),
    ] = None,
    heat_show: Annotated[
        HeatShow | None,
        typer.Option(
            "--heat-show",
            help="With --heat: show losses of control, overtakes (GT races) or both "
            "(default: both; a DIRT stage's simulation has losses of control only).",
        ),
    ] = None,
    force: ForceOption = False,
) -> None:
    """Draw the map of a stage: tiles, every space, limits, features, tokens, legend.
    The SVG is in millimetres at true scale (viewBox in mm). A stage with errors is drawn
    all the same (run 'trackkit validate' for the findings). PDF pages larger than 5 m are
    scaled down to fit PDF's page limit; use 'trackkit print' for pages to tape together.
    """
    from trackkit.checks.pipeline import validate
    from trackkit.formats import load_stage
    from trackkit.render.heat import load_simulation, read_heat
    from trackkit.render.output import output_kind, save_document
    from trackkit.render.raster import SvgDoc, check_output
    from trackkit.render.svg import map_svg
    from trackkit.render.theme import load_theme
    from trackkit.stage.assemble import lay_out

    try:
        if heat_show is not None and heat is None:
            raise InputError("--heat-show", "needs --heat SIM.json, the simulation it shows")
        kind = output_kind(output, ("svg", "png", "pdf"))
        check_output(output, force=force)  # before the work, not after it
        stage = load_stage(file)
        colours = load_theme(theme) if theme is not None else None
        doc = load_simulation(heat) if heat is not None else None
        report = validate(stage, kind=kind_of(event))
        echo_kind_note(report.findings, file)
        show = (heat_show or HeatShow.both).value
        losses = read_heat(doc, report, source=str(heat), show=show) if heat is not None else None
        size = chosen_tile_size(tile_size)
        layout = report.layout if size == report.layout.size else lay_out(stage, size=size)
        drawn = map_svg(report, layout, theme=colours, legend=legend, heat=losses)
        view = drawn.frame.view
        save_document(output, SvgDoc(drawn.svg, view.w, view.h), kind=kind, px=px, force=force)
    except InputError as exc:
        raise fail(str(exc)) from None
    report = drawn.report
    if not report.valid:
        typer.echo(
            f"trackkit: note: {file} has {plural(report.errors, 'error')}; drawn as laid out "
            f"(see 'trackkit validate {file}')",
            err=True,
        )
    pixels = ""
    if kind == "png":
        from trackkit.render.raster import png_size

        width, height = png_size(SvgDoc("", view.w, view.h), px)
        pixels = f", {width} x {height} px" + (
            "" if max(width, height) >= px - 1 else f" (reduced from --px {px}: 40 MP at most)"
        )
    typer.echo(
        f"wrote {output} ({kind.upper()}, {view.w / 1000:.2f} x {view.h / 1000:.2f} m{pixels}, "
        f"{plural(sum(t.visit_of is None for t in drawn.layout.chain), 'tile')} "  # a crossing once
        f"of {drawn.layout.size:g} mm)"
    )
