"""The ``trackkit`` command line: thin typer commands over plain functions.

Each command lives in its own module under :mod:`trackkit.commands`; this module only
registers them. Only the command layer exits the process. Exit status: 0 success / every
stage valid (warnings allowed), 1 a stage has errors, 2 unusable input (DESIGN.md).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from trackkit import __version__
from trackkit.commands import convert, print_, render, schema, sheet, simulate, tiles, validate
from trackkit.errors import TrackkitError

app = typer.Typer(
    no_args_is_help=True,
    help="Design, validate, print and simulate Rallyman: DIRT stages.",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"trackkit {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_show_version,
            is_eager=True,
            help="Print trackkit's version and exit.",
        ),
    ] = False,
) -> None:
    """Design, validate, print and simulate Rallyman: DIRT stages.

    Shell completion: `trackkit --install-completion` (bash, zsh, fish, PowerShell).
    """


app.command("validate")(validate.validate)
tiles_app = typer.Typer(help="List and describe the tile faces of the library.")
tiles_app.callback(invoke_without_command=True)(tiles.tiles)
tiles_app.command("show")(tiles.tiles_show)
tiles_app.command("sheet")(sheet.tiles_sheet)
app.add_typer(tiles_app, name="tiles")
app.command("schema")(schema.schema)
app.command("convert")(convert.convert)
app.command("simulate")(simulate.simulate)
app.command("replay")(simulate.replay_cmd)
app.command("render")(render.render)
app.command("print")(print_.print_stage)


def main() -> None:
    """Console entry point: never a traceback for bad input."""
    try:
        app()
    except TrackkitError as exc:
        typer.echo(f"trackkit: error: {exc}", err=True)
        sys.exit(2)
