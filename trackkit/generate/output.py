"""Writing a run's files into its folder: all checked first, each written whole.

The rules of every trackkit output (:func:`trackkit.formats.files.check_output`) apply
to each file, as names trackkit makes up (a symbolic link among them is refused). The
folder is made when missing. The files are written under a lock of the folder, so two runs
into one folder leave one run's files; the files an earlier run wrote there
(:data:`trackkit.generate.report.FILE_PATTERN`, ``index.md``, ``index.json``) that this run
does not write again are removed, so the folder never mixes two runs' stages. Only
regular files named exactly so are removed; a read-only one only with ``force``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from trackkit.errors import InputError
from trackkit.formats.files import (
    check_output,
    folder_lock,
    is_read_only,
    write_bytes_atomic,
)
from trackkit.generate.report import FILE_PATTERN

__all__ = ["check_folder", "check_outputs", "write_outputs"]


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
    """Check every file a run will write into ``folder``, and the earlier run's to remove.

    Raises
    ------
    InputError
        Naming the first file that may not be written or removed.
    """
    check_folder(folder)
    if not folder.exists():
        return
    keep = set(names)
    for name in sorted(keep):
        check_output(folder / name, force=force, named=False)
    for old in _stale(folder, keep):
        _check_stale(old, force=force)


def _stale(folder: Path, keep: set[str]) -> list[Path]:
    """Files of an earlier run in ``folder`` that this run does not write."""
    try:
        names = sorted(e.name for e in os.scandir(folder))
    except OSError:
        return []  # the writes will say what is wrong with the folder
    return [
        folder / n
        for n in names
        if n not in keep and (FILE_PATTERN.fullmatch(n) or n in ("index.md", "index.json"))
    ]


def _check_stale(path: Path, *, force: bool) -> None:
    why = "a file of an earlier generate run that this run does not write again"
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(str(path), f"cannot remove {why}: {exc.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise InputError(
            str(path),
            f"a symbolic link named like {why}: trackkit neither follows nor removes it "
            "(remove it, or write into another folder)",
        )
    if not stat.S_ISREG(st.st_mode):
        raise InputError(str(path), f"not a regular file, named like {why}: never removed")
    if not force and is_read_only(st):
        raise InputError(str(path), f"read-only, and {why}; --force removes it")


def write_outputs(
    folder: Path, files: Mapping[str, bytes], *, force: bool = False
) -> tuple[list[Path], list[Path]]:
    """Write ``files`` (name -> content) into ``folder``; remove the earlier run's others.

    Returns
    -------
    tuple of list of Path
        The files written, in ``files`` order, and the files removed.

    Raises
    ------
    InputError
        Naming the first file that may not be written or removed; nothing is written then.
    """
    check_folder(folder)
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise InputError(str(folder), f"cannot make the folder: {exc.strerror}") from None
    written: list[Path] = []
    with folder_lock(folder):
        check_outputs(folder, files, force=force)
        stale = _stale(folder, set(files))
        for name, data in files.items():
            write_bytes_atomic(folder / name, data, force=force, named=False)
            written.append(folder / name)
        for old in stale:
            try:
                old.unlink(missing_ok=True)
            except OSError as exc:
                raise InputError(str(old), f"cannot remove it: {exc.strerror}") from None
    return written, stale
