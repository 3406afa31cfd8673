"""``trackkit tiles`` and ``trackkit tiles show``."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated

import typer

from trackkit.cli.commands.common import OutputFormat, fail, fail_json


class Surface(StrEnum):
    """Surfaces ``--surface`` accepts (``trackkit.tiles.describe.SURFACES``)."""

    gravel = "gravel"
    asphalt = "asphalt"
    snow = "snow"


class Shape(StrEnum):
    """Shapes ``--shape`` accepts (``trackkit.tiles.describe.SHAPES``)."""

    straight = "straight"
    bend = "bend"
    hairpin = "hairpin"
    kink = "kink"
    s_bend = "s-bend"
    double_hairpin = "double-hairpin"
    chicane = "chicane"
    start = "start"
    finish = "finish"
    service = "service"
    scenery = "scenery"
    crossing = "crossing"
    junction = "junction"
    bridge = "bridge"
    two_roads = "two-roads"
    pit = "pit"


class Series(StrEnum):
    """Game series ``--series`` accepts."""

    dirt = "dirt"
    gt = "gt"


FormatOption = Annotated[OutputFormat, typer.Option("--format", help="text or json.")]


def tiles(
    ctx: typer.Context,
    box: Annotated[
        str | None,
        typer.Option(
            metavar="BOX",
            help="Only faces of this box (dirt-core, ..., gt-core, gt-championship, ...).",
        ),
    ] = None,
    series: Annotated[
        Series | None,
        typer.Option(help="Only faces of this series: dirt (Rallyman: DIRT) or gt (Rallyman: GT)."),
    ] = None,
    surface: Annotated[Surface | None, typer.Option(help="Only faces of this surface.")] = None,
    shape: Annotated[
        Shape | None,
        typer.Option(
            help="Only faces of this shape: the road's shape (straight; bend, 60 degrees; "
            "hairpin, 120 degrees; kink or s-bend, a curved road that still ends on the "
            "opposite edge; double-hairpin; chicane), start or finish (the faces with that "
            "line, which are straights too), service / scenery / pit (faces without a road), "
            "or for GT faces with several roads crossing, junction, bridge or two-roads."
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=6,
            help="Only faces with a corner or chicane whose printed limit is exactly N on "
            "either lane (--limit 2 finds corners 1/2 and 2/3).",
            metavar="N",
        ),
    ] = None,
    output: FormatOption = OutputFormat.text,
) -> None:
    """List the tile faces of the library; the filters combine (a face must pass them all).

    With --format json, stdout is one JSON document, an "error" object on an error.
    """
    if ctx.invoked_subcommand is not None:
        return
    from trackkit.formats.suggest import unknown_box
    from trackkit.tiles.describe import face_facts, face_line, select_faces
    from trackkit.tiles.library import default_library

    lib = default_library()
    unknown = None if box is None else unknown_box(box, lib)
    if unknown is not None:
        message = f"--box: {unknown} (the boxes: {', '.join(lib.boxes())})"
        raise fail_json(message) if output is OutputFormat.json else fail(message)
    faces = select_faces(
        [f for f in (lib.in_box(box) if box else lib) if series is None or f.series == series],
        surface=surface.value if surface else None,
        shape=shape.value if shape else None,
        limit=limit,
    )
    if output is OutputFormat.json:
        typer.echo(json.dumps({"faces": [face_facts(f) for f in faces]}, indent=2))
    elif not faces:  # a filter that matches nothing says so (on stderr: stdout lists faces)
        asked = [
            f"--{name} {value}"
            for name, value in (
                ("box", box),
                ("series", series),
                ("surface", surface),
                ("shape", shape),
                ("limit", limit),
            )
            if value is not None
        ]
        typer.echo(f"trackkit: note: no faces match {' '.join(asked)}", err=True)
    else:
        for face in faces:
            typer.echo(face_line(face))


def tiles_show(
    ctx: typer.Context,
    face_id: Annotated[str, typer.Argument(metavar="ID", help="Face id, e.g. 217a.")],
    output: Annotated[
        OutputFormat | None,
        typer.Option(
            "--format", help="text or json (default: the --format given to 'trackkit tiles')."
        ),
    ] = None,
) -> None:
    """Describe one face in words: road, sections, spaces per lane, features."""
    from trackkit.formats.suggest import close_tile_ids, did_you_mean
    from trackkit.tiles.describe import describe_face, face_details
    from trackkit.tiles.library import default_library

    if output is None:  # 'trackkit tiles --format json show ID'
        parent = ctx.parent.params.get("output") if ctx.parent else None
        output = parent if isinstance(parent, OutputFormat) else OutputFormat.text
    lib = default_library()
    face = lib.get(face_id)
    if face is None:
        guess = did_you_mean(close_tile_ids(face_id, lib))
        shown = face_id if len(face_id) <= 40 else face_id[:37] + "..."
        message = (
            f"unknown tile '{shown}'" + (f": {guess}" if guess else "") + " (try 'trackkit tiles')"
        )
        raise fail_json(message) if output is OutputFormat.json else fail(message)
    if output is OutputFormat.json:
        typer.echo(json.dumps({"face": face_details(face)}, indent=2, ensure_ascii=False))
    else:
        typer.echo(describe_face(face))
