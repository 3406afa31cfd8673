"""Writing a run's files into its folder: all checked first, each written whole.

A run's files are one set of files trackkit owns (:mod:`trackkit.formats.fileset`):
``index.json`` is its manifest, listing every file the run wrote with its SHA-256
(``written``). A later run into the folder replaces or removes only the files that list
names with the bytes it gives; any other file that has a name the run would write is in
the way (exit status 2 naming it; ``force`` replaces it), and a file the run does not
write again is removed only if the earlier run wrote it and it has not changed since.
The rules of every trackkit output (:func:`trackkit.formats.files.check_output`) apply
to each file, as names trackkit makes up (a symbolic link among them is refused). The
folder is made when missing, and written under a lock, so two runs into one folder leave
one run's files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trackkit.errors import InputError
from trackkit.formats.fileset import (
    FileSetPlan,
    manifest_bytes,
    plan_file_set,
    read_manifest,
    write_file_set,
)

__all__ = ["INDEX", "WRITTEN_KEY", "Written", "check_folder", "check_outputs", "write_outputs"]

#: The run's manifest: its JSON index.
INDEX = "index.json"
#: The key of ``index.json`` that lists the files written, with their SHA-256.
WRITTEN_KEY = "written"
#: What a refusal suggests instead of ``--force``.
HINT = "generate into another folder (-o)"


def check_folder(folder: Path) -> None:
    """Fail before the work if ``folder`` cannot be the output folder.

    Raises
    ------
    InputError
        If it is something other than a folder, or it is missing and so is its parent.
    """
    if folder.exists():
        if not folder.is_dir():
            raise InputError(str(folder), "cannot write the stages here: it is not a folder")
        return
    parent = folder.parent
    if not parent.is_dir():
        raise InputError(
            str(folder), f"cannot make this folder: {str(parent)!r} is not an existing folder"
        )


def check_outputs(folder: Path, names: Iterable[str], *, force: bool) -> None:
    """Check, before the work, every file a run will write into ``folder`` and the
    earlier run's files it would remove.

    Raises
    ------
    FilesInTheWay
        Naming every file in the way that trackkit did not write (without ``force``).
    InputError
        Naming the first file that may not be written or removed.
    """
    check_folder(folder)
    if not folder.exists():
        return
    owned = read_manifest(folder, INDEX, WRITTEN_KEY)
    plan_file_set(folder, names, owned, force=force, hint=HINT)


@dataclass(frozen=True, slots=True)
class Written:
    """The files of a run, and what writing them did to the folder."""

    files: list[Path]
    """Every file written, in the order written (``index.json`` last)."""
    plan: FileSetPlan


def write_outputs(
    folder: Path, files: Mapping[str, bytes], index: Mapping[str, Any], *, force: bool = False
) -> Written:
    """Write ``files`` (name -> content) and the run's ``index`` as ``index.json``, which
    lists them all with their SHA-256; remove the earlier run's files not written again.

    Raises
    ------
    FilesInTheWay
        Naming every file in the way (without ``force``); nothing is written then.
    InputError
        Naming the first file that may not be written or removed; nothing is written then.
    """
    check_folder(folder)
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise InputError(str(folder), f"cannot make the folder: {exc.strerror}") from None
    everything = {n: data for n, data in files.items() if n != INDEX}
    everything[INDEX] = manifest_bytes(index, WRITTEN_KEY, INDEX, everything)
    plan = write_file_set(folder, everything, manifest=(INDEX, WRITTEN_KEY), force=force, hint=HINT)
    return Written([folder / n for n in everything], plan)
