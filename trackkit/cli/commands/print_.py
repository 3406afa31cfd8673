"""``trackkit print``: a stage at true scale over numbered pages that tape together."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from trackkit.cli.commands.common import (
    FLAG,
    FileSetForceOption,
    KindOption,
    echo_kind_note,
    fail,
    kind_of,
)
from trackkit.cli.commands.render import (
    StageFileArgument,
    ThemeOption,
    TileSizeOption,
    chosen_tile_size,
)
from trackkit.errors import InputError
from trackkit.words import plural

if TYPE_CHECKING:
    from trackkit.render.output import PageFiles


class Paper(StrEnum):
    """Paper sizes."""

    a4 = "a4"
    letter = "letter"
    a3 = "a3"


def print_stage(
    file: StageFileArgument,
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            metavar="OUT",
            help="OUT.pdf: one PDF, page 1 the assembly overview, then the map pages "
            "2, 3, ... OUT.svg: the overview (page 1) in OUT.svg and each map page beside "
            "it, named by its page number: OUT-page-02.svg, OUT-page-03.svg, ..., and "
            "OUT-pages.json, the list of them with their SHA-256 (the earlier print's page "
            "files beyond this print's pages are removed, if they are as it wrote them; "
            "other files with those names stop the print unless --force).",
        ),
    ],
    paper: Annotated[Paper, typer.Option(help="Paper size.")] = Paper.a4,
    tile_size: TileSizeOption = None,
    overlap: Annotated[
        float,
        typer.Option(
            metavar="MM", min=0.0, max=50.0, help="Strip shared by neighbouring pages, in mm."
        ),
    ] = 10.0,
    all_pages: Annotated[
        bool,
        typer.Option(
            "--all-pages",
            metavar=FLAG,
            help="Print every page of the grid, also those that would show only empty "
            "paper, scenery or bare tile corners.",
        ),
    ] = False,
    skip_scenery: Annotated[
        bool,
        typer.Option(
            "--skip-scenery/--no-skip-scenery",
            metavar=FLAG,
            help="Only the road earns pages (default); with --no-skip-scenery the tiles "
            "beside the road (scenery, service areas) earn pages too.",
        ),
    ] = True,
    theme: ThemeOption = None,
    event: KindOption = None,
    force: FileSetForceOption = False,
) -> None:
    """Print a stage at true scale (1:1) over numbered pages with overlap and alignment marks.
    Pages are laid out in rows (or columns) that each cover their road with the fewest
    pages; portrait or landscape, rows or columns, whichever needs fewest sheets (the
    command says how many). Each page has its number and place ('row 2, 3rd from the
    left'), its neighbours' numbers, crop marks, dashed lines where the neighbours
    begin, registration marks in the overlap, and a 100 mm bar to check the printer
    did not scale. An overview page shows how the pages assemble, with the title block
    and the legend, and the tiles to take out of the boxes. Only pages that hold road
    are printed (see --skip-scenery); a page whose only road is a thin strip that its
    neighbours' overlap already shows is left out.
    """
    from trackkit.checks.pipeline import validate
    from trackkit.formats import load_stage
    from trackkit.render.output import output_kind, save_pages
    from trackkit.render.pages import paper_name, print_pages
    from trackkit.render.raster import check_output, write_bytes_atomic
    from trackkit.render.theme import load_theme
    from trackkit.stage.assemble import lay_out

    try:
        kind = output_kind(output, ("pdf", "svg"))
        check_output(output, force=force)  # before the work, not after it
        stage = load_stage(file)
        colours = load_theme(theme) if theme is not None else None
        report = validate(stage, kind=kind_of(event))
        echo_kind_note(report.findings, file)
        size = chosen_tile_size(tile_size)
        layout = report.layout if size == report.layout.size else lay_out(stage, size=size)
        try:
            job = print_pages(
                report,
                layout,
                paper=paper.value,
                overlap=overlap,
                theme=colours,
                all_pages=all_pages,
                scenery=not skip_scenery,
            )
        except ValueError as exc:
            raise InputError(str(file), str(exc)) from None
        if kind == "pdf":
            write_bytes_atomic(output, job.pdf(), force=force)
            written = f"{output}"
        else:
            files = save_pages(output, job.overview, job.svg_pages(), force=force)
            paths = files.written
            written = f"{paths[0]} (overview) and {plural(len(paths) - 1, 'page file')} " + (
                f"{paths[1].name} .. {paths[-1].name}" if len(paths) > 1 else ""
            )
            if files.manifest is not None:
                written += f", listed in {files.manifest.name}"
            _notes(output, files)
    except InputError as exc:
        raise fail(str(exc)) from None
    if not report.valid:
        typer.echo(
            f"trackkit: note: {file} has {plural(report.errors, 'error')}; printed as laid out "
            f"(see 'trackkit validate {file}')",
            err=True,
        )
    plan = job.plan
    typer.echo(
        f"wrote {written}: the print takes {plural(plan.pages, 'sheet')} of "
        f"{paper_name(plan.paper)}: the overview and {plural(len(plan.printed), 'map page')} "
        f"({'landscape' if plan.landscape else 'portrait'}, in "
        f"{plural(plan.strips, 'column' if plan.columns else 'row')}), "
        f"tiles {layout.size:g} mm, overlap {plan.overlap:g} mm"
    )


def _notes(output: Path, files: PageFiles) -> None:
    """Say on stderr what the print did to files beside it other than its own pages."""
    said = (
        (files.removed, "removed {} of the earlier print to {}"),
        (files.kept, "kept {} of the earlier print to {}, changed since (yours now)"),
        (files.forced, "replaced {} that trackkit did not write, for the print to {} (--force)"),
    )
    for paths, words in said:
        if paths:
            names = ", ".join(p.name for p in paths[:3]) + (" ..." if len(paths) > 3 else "")
            what = plural(len(paths), "file")
            typer.echo(f"trackkit: note: {words.format(what, output.name)}: {names}", err=True)
