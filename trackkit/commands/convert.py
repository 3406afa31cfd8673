"""``trackkit convert``: between native, Rekee and .rgt files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trackkit.commands.common import ForceOption, KindOption, echo_kind_note, fail, kind_of
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
    kind: KindOption = None,
    force: ForceOption = False,
) -> None:
    """Convert a stage between native YAML/JSON, Rekee JSON and .rgt.

    A native file is written with the stage's kind spelled out (the file's own, --kind, or
    the one inferred from climb tiles and tokens, which is then noted).
    """
    from trackkit.assemble import lay_out
    from trackkit.convert import dump_stage
    from trackkit.formats import format_for_path, load_stage
    from trackkit.formats.files import check_output, write_text_atomic
    from trackkit.validate.hillclimb import stage_kind

    try:
        stage = load_stage(source)
        fmt = format_for_path(output)
        check_output(output, force=force)
        layout = lay_out(stage)
        event, notes = stage_kind(layout, kind_of(kind))
        echo_kind_note(notes, source)
        # Editor files hold no kind: reading one back infers it from its climb tiles.
        inferred, _ = stage_kind(lay_out(stage.model_copy(update={"kind": None})))
        stage = stage.model_copy(update={"kind": event})
        if fmt in ("rekee", "rgt"):
            lost = [
                f"{name}: {value}"
                for name, value, default in (
                    ("kind", event.value, inferred.value),
                    ("ruleset", stage.ruleset, "dirt"),
                    ("boxes", stage.boxes, None),
                )
                if value != default
            ]
            if lost:
                hint = (
                    f" (give --kind {event.value} to validate and simulate it as such)"
                    if event != inferred
                    else ""
                )
                typer.echo(
                    f"trackkit: warning: {output.name} ({fmt}) cannot hold {'; '.join(lost)}{hint}",
                    err=True,
                )
        write_text_atomic(output, dump_stage(stage, fmt), force=force)
    except InputError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"wrote {output} ({fmt})")
