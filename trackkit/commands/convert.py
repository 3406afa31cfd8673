"""``trackkit convert``: between native, Rekee and .rgt files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trackkit.commands.common import fail
from trackkit.errors import InputError


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
    from trackkit.convert import dump_stage
    from trackkit.formats import format_for_path, load_stage, write_text_atomic

    try:
        stage = load_stage(source)
        fmt = format_for_path(output)
        if fmt in ("rekee", "rgt"):
            lost = [
                f"{name}: {value}"
                for name, value, default in (
                    ("kind", stage.kind.value, "rally"),
                    ("ruleset", stage.ruleset, "dirt"),
                    ("boxes", stage.boxes, None),
                )
                if value != default
            ]
            if lost:
                typer.echo(
                    f"trackkit: warning: {output.name} ({fmt}) cannot hold {'; '.join(lost)} "
                    "(give --kind hillclimb to validate and simulate it as such)",
                    err=True,
                )
        write_text_atomic(output, dump_stage(stage, fmt))
    except InputError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"wrote {output} ({fmt})")
