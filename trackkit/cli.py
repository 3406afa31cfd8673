"""The ``trackkit`` command line: thin typer commands over plain functions.

Only this module exits the process. Exit status: 0 success / every stage valid (warnings
allowed), 1 a stage has errors, 2 unusable input (DESIGN.md).
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from trackkit.errors import InputError, TrackkitError

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="Design, validate, print and simulate Rallyman: DIRT stages.",
    pretty_exceptions_enable=False,
)
tiles_app = typer.Typer(help="List and describe the tile faces of the library.")
app.add_typer(tiles_app, name="tiles")


class OutputFormat(StrEnum):
    """Output formats of reports."""

    text = "text"
    json = "json"


class StageKind(StrEnum):
    """Event kinds a stage is checked for."""

    rally = "rally"
    hillclimb = "hillclimb"


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"trackkit: error: {message}", err=True)
    return typer.Exit(code)


@app.command()
def validate(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Stage files (native YAML/JSON, Rekee JSON or .rgt).", show_default=False
        ),
    ],
    kind: Annotated[
        StageKind | None,
        typer.Option(help="Check as this event kind (default: the file's own 'kind')."),
    ] = None,
    output: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for scripts.")
    ] = OutputFormat.text,
) -> None:
    """Check stages against the rules and report every problem with a code and a place."""
    from trackkit.formats import load_stage
    from trackkit.models.stage import Kind
    from trackkit.validate import validate as run_validate
    from trackkit.validate.text import report_text

    status = 0
    entries: list[dict[str, object]] = []
    for path in files:
        try:
            stage = load_stage(path)
        except InputError as exc:
            status = 2
            typer.echo(f"trackkit: error: {exc}", err=True)
            entries.append({"file": str(path), "valid": False, "error": exc.message})
            continue
        report = run_validate(stage, kind=Kind(kind.value) if kind else None, file=str(path))
        if not report.valid:
            status = max(status, 1)
        if output is OutputFormat.json:
            entries.append(report.to_json())
        else:
            typer.echo(report_text(report))
    if output is OutputFormat.json:
        typer.echo(json.dumps({"files": entries}, indent=2, ensure_ascii=False))
    raise typer.Exit(status)


@tiles_app.callback(invoke_without_command=True)
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
        raise _fail(f"unknown box '{box}'; boxes: {', '.join(lib.boxes())}")
    faces = lib.in_box(box) if box else list(lib)
    if output is OutputFormat.json:
        typer.echo(json.dumps({"faces": [face_facts(f) for f in faces]}, indent=2))
    else:
        for face in faces:
            typer.echo(face_line(face))


@tiles_app.command("show")
def tiles_show(
    face_id: Annotated[str, typer.Argument(metavar="ID", help="Face id, e.g. 217a.")],
) -> None:
    """Describe one face in words: road, sections, spaces per lane, features."""
    from trackkit.describe import describe_face
    from trackkit.library import default_library

    face = default_library().get(face_id)
    if face is None:
        raise _fail(f"unknown tile '{face_id}' (try 'trackkit tiles')")
    typer.echo(describe_face(face))


@app.command()
def schema(
    out: Annotated[Path, typer.Option(help="Folder to write the JSON Schemas into.")] = Path(
        "schemas"
    ),
) -> None:
    """Write JSON Schemas of the stage and tile file formats, generated from the models."""
    from trackkit.schema import write_schemas

    try:
        for path in write_schemas(out):
            typer.echo(f"wrote {path}")
    except OSError as exc:
        raise _fail(f"{out}: cannot write schemas: {exc.strerror or exc}") from None


@app.command()
def convert(
    source: Annotated[Path, typer.Argument(metavar="IN", help="Stage file to read.")],
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            metavar="OUT",
            help=(
                "File to write; its suffix picks the format: .yaml/.yml/.json native, "
                ".rekee.json Rekee, .rgt official editor."
            ),
        ),
    ],
) -> None:
    """Convert a stage between native YAML/JSON, Rekee JSON and .rgt."""
    from trackkit.formats import dump_stage, format_for_path, load_stage, write_text_atomic

    try:
        stage = load_stage(source)
        fmt = format_for_path(output)
        write_text_atomic(output, dump_stage(stage, fmt))
    except InputError as exc:
        raise _fail(str(exc)) from None
    typer.echo(f"wrote {output} ({fmt})")


def main() -> None:
    """Console entry point: never a traceback for bad input."""
    try:
        app()
    except TrackkitError as exc:
        typer.echo(f"trackkit: error: {exc}", err=True)
        sys.exit(2)
