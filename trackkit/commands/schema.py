"""``trackkit schema``: write the JSON Schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trackkit.commands.common import fail


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
        raise fail(f"{out}: cannot write schemas: {exc.strerror or exc}") from None
