"""``trackkit tiles`` and ``trackkit tiles show``."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from trackkit.commands.common import OutputFormat, fail


def tiles(
    ctx: typer.Context,
    box: Annotated[str | None, typer.Option(help="Only faces of this box.")] = None,
    output: Annotated[
        OutputFormat, typer.Option("--format", help="text or json.")
    ] = OutputFormat.text,
) -> None:
    """List the tile faces of the library."""
    if ctx.invoked_subcommand is not None:
        return
    from trackkit.describe import face_facts, face_line
    from trackkit.library import default_library

    lib = default_library()
    if box is not None and box not in lib.tilesets:
        raise fail(f"unknown box '{box}'; boxes: {', '.join(lib.boxes())}")
    faces = lib.in_box(box) if box else list(lib)
    if output is OutputFormat.json:
        typer.echo(json.dumps({"faces": [face_facts(f) for f in faces]}, indent=2))
    else:
        for face in faces:
            typer.echo(face_line(face))


def tiles_show(
    face_id: Annotated[str, typer.Argument(metavar="ID", help="Face id, e.g. 217a.")],
) -> None:
    """Describe one face in words: road, sections, spaces per lane, features."""
    from trackkit.describe import describe_face
    from trackkit.library import default_library

    face = default_library().get(face_id)
    if face is None:
        raise fail(f"unknown tile '{face_id}' (try 'trackkit tiles')")
    typer.echo(describe_face(face))
