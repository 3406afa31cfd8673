"""``trackkit convert``: between native, Rekee and .rgt files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trackkit.cli.commands.common import FLAG, KindOption, echo_kind_note, fail, kind_of
from trackkit.errors import InputError
from trackkit.words import plural


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
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            metavar=FLAG,
            help="Convert a stage that has errors all the same, write over IN itself, "
            "and replace a read-only OUT.",
        ),
    ] = False,
) -> None:
    """Convert a stage between native YAML/JSON, Rekee JSON and .rgt.

    A native file is written with the stage's kind spelled out (the file's own, --kind, or
    the one inferred from climb tiles and tokens, which is then noted). A stage with errors
    is not converted (exit 1, with its findings), since a format may not hold what is wrong
    with it: --force converts it as it is. Everything OUT will not keep (a token value the
    format cannot hold, the kind, boxes, comments, ...) is named, one warning per item.
    """
    from trackkit.checks.pipeline import validate
    from trackkit.checks.text import report_text
    from trackkit.formats import format_for_path, load_source
    from trackkit.formats.files import check_output, same_file, write_text_atomic
    from trackkit.formats.roundtrip import conversion_losses
    from trackkit.formats.write import dump_stage

    try:
        fmt = format_for_path(output)
        if not force and same_file(source, output):
            raise InputError(
                str(output),
                "cannot write over the stage file being converted: it would lose its "
                "comments and anything the format does not hold; --force writes it all "
                "the same",
            )
        check_output(output, force=force)
        src = load_source(source)
        report = validate(src.stage, kind=kind_of(kind), file=str(source), source=src)
        echo_kind_note(report.findings, source)
        if not report.valid and not force:
            typer.echo(report_text(report), err=True)
            raise fail(
                f"{source} has {plural(report.errors, 'error')}: not converted, since "
                f"{output.name} "
                "may not hold what is wrong with it (fix them, or give --force to convert "
                "it as it is)",
                code=1,
            )
        stage = src.stage.model_copy(update={"kind": report.kind})
        text = dump_stage(stage, fmt, origin=src.origin)  # .rgt: its tiles where they were
        lost = conversion_losses(src, stage, fmt, text, kind=report.kind, file=str(output))
        for item in lost:
            typer.echo(f"trackkit: warning: {output.name} ({fmt}) {item}", err=True)
        write_text_atomic(output, text, force=force)
    except InputError as exc:
        raise fail(str(exc)) from None
    if not report.valid:
        typer.echo(
            f"trackkit: note: {source} has {plural(report.errors, 'error')}; "
            "converted as it is (--force)",
            err=True,
        )
    typer.echo(f"wrote {output} ({fmt})")
