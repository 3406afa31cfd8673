"""``trackkit schema``: write the JSON Schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from trackkit.cli.commands.common import ForceOption, fail
from trackkit.errors import InputError


def schema(
    out: Annotated[Path, typer.Option(help="Folder to write the JSON Schemas into.")] = Path(
        "schemas"
    ),
    force: ForceOption = False,
) -> None:
    """Write JSON Schemas of the stage, car and tile file formats, generated from the models.

    The folder is made when missing. Each schema file in it is replaced atomically, under
    the rules of every output (a read-only one only with --force); a schema file that is
    a symbolic link is refused, since the folder, not the file, is what you named.
    """
    from trackkit.formats.files import check_output, write_text_atomic
    from trackkit.schema import schemas

    texts = schemas()
    paths = [out / name for name in texts]
    try:
        if out.exists() and not out.is_dir():
            raise InputError(str(out), "cannot write schemas: it is not a folder")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(str(out), f"cannot make the folder: {exc.strerror or exc}") from None
        for path in paths:  # every file checked before the first is written
            check_output(path, force=force, named=False)
        for path, text in zip(paths, texts.values(), strict=True):
            write_text_atomic(path, text, force=force, named=False)
            typer.echo(f"wrote {path}")
    except InputError as exc:
        raise fail(str(exc)) from None
