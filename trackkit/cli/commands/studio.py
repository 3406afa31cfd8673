"""``trackkit studio``: design a stage in the browser, with the rules checking every move."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from trackkit.cli.commands.common import FLAG, fail
from trackkit.errors import InputError

#: The studio's first port (trackkit.studio.server.DEFAULT_PORT, repeated here so that
#: ``--help`` does not import the web server).
DEFAULT_PORT = 8420


class StudioSeries(StrEnum):
    """Series of a new stage."""

    dirt = "dirt"
    gt = "gt"


def studio(
    file: Annotated[
        Path | None,
        typer.Argument(
            metavar="FILE",
            help="Stage file to open (native YAML/JSON, Rekee JSON or .rgt), or a new file "
            "to create (its name picks the format: .yaml, .json, .rekee.json, .rgt). Left "
            "out: a new stage that you export from the page. The studio writes only this "
            "file.",
            show_default=False,
        ),
    ] = None,
    series: Annotated[
        StudioSeries,
        typer.Option(help="The series of a new stage: dirt (Rallyman: DIRT) or gt (Rallyman: GT)."),
    ] = StudioSeries.dirt,
    host: Annotated[
        str,
        typer.Option(
            metavar="ADDRESS",
            help="Address to listen on. The default, 127.0.0.1, is this machine only; "
            "another address lets other machines reach the studio (a warning says so).",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int,
        typer.Option(
            metavar="PORT",
            min=0,
            max=65535,
            help="Port to listen on; taken, the next free one is used (0: any free port).",
        ),
    ] = DEFAULT_PORT,
    no_open: Annotated[
        bool,
        typer.Option(
            "--no-open", metavar=FLAG, help="Do not open the browser; only print the address."
        ),
    ] = False,
) -> None:
    """Open a stage in the browser: lay tiles by clicking, see every finding at once, race it,
    print it and save it.

    The address printed carries a random token: the page works only with it. Stop the
    studio with Ctrl-C.
    """
    from trackkit.studio.server import open_studio, serve

    if host not in ("127.0.0.1", "localhost", "::1"):
        typer.echo(
            f"trackkit: warning: --host {host}: the studio can be reached from other machines; "
            "anyone with its address (and token) can edit and save your file",
            err=True,
        )
    try:
        ready = open_studio(file, series=series.value, host=host, port=port)
    except InputError as exc:
        raise fail(str(exc)) from None
    except OSError as exc:
        raise fail(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
    what = str(file) if file is not None else f"a new {series.value.upper()} stage"

    def announce() -> None:
        typer.echo(f"trackkit studio: {what}")
        typer.echo(f"  open {ready.url}")
        typer.echo("  (Ctrl-C stops it)")

    serve(ready, open_browser=not no_open, ready=announce)
