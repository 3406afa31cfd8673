"""``trackkit tiles sheet``: a printable catalogue of tile faces."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trackkit.cli.commands.common import ForceOption, fail
from trackkit.cli.commands.print_ import Paper
from trackkit.cli.commands.render import ThemeOption
from trackkit.errors import InputError
from trackkit.words import plural


def tiles_sheet(
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            metavar="OUT",
            help="OUT.pdf: pages of a dozen faces. OUT.svg: every face on one long sheet.",
        ),
    ],
    box: Annotated[
        str | None, typer.Option(metavar="BOX", help="Only the faces of this box.")
    ] = None,
    paper: Annotated[Paper, typer.Option(help="Paper size.")] = Paper.a4,
    theme: ThemeOption = None,
    force: ForceOption = False,
) -> None:
    """Draw a catalogue of tile faces, each with its spaces, limits and features.
    Each face is labelled with its id, box, surface, danger and shape.
    Faces are drawn from the same geometry as stage maps, driven from their 'from' edge.
    """
    from trackkit.formats.suggest import unknown_box
    from trackkit.render.output import output_kind, save_document
    from trackkit.render.raster import check_output, svg_to_pdf, write_bytes_atomic
    from trackkit.render.sheet import tile_sheet
    from trackkit.render.theme import load_theme
    from trackkit.tiles.library import default_library

    lib = default_library()
    unknown = None if box is None else unknown_box(box, lib)
    if unknown is not None:
        raise fail(f"--box: {unknown} (the boxes: {', '.join(lib.boxes())})")
    faces = lib.in_box(box) if box else list(lib)
    try:
        kind = output_kind(output, ("pdf", "svg"))
        check_output(output, force=force)  # before the work, not after it
        colours = load_theme(theme) if theme is not None else None
        title = f"Tile catalogue: {box}" if box else "Tile catalogue: every box"
        sheet = tile_sheet(faces, paper=paper.value, title=title, theme=colours)
        if kind == "pdf":
            write_bytes_atomic(output, svg_to_pdf(sheet.pages), force=force)
        else:
            save_document(output, sheet.single, kind="svg", force=force)
    except InputError as exc:
        raise fail(str(exc)) from None
    pages = (
        f", {plural(len(sheet.pages), 'page')} of {paper.value.upper()}" if kind == "pdf" else ""
    )
    typer.echo(f"wrote {output}: {plural(len(faces), 'face')}{pages}")
