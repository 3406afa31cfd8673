"""Writing drawings to files: the format from the file name, every file written atomically.

A multi-page SVG print is one set of files: ``OUT.svg`` (page 1, the overview) and
``OUT-page-02.svg``, ``OUT-page-03.svg``, ... beside it. Writing a set replaces the files
of an earlier set of the same name and removes its pages beyond the new count, under a
lock of the folder, so the folder holds one print's pages, never a mix of two.

Examples
--------
>>> output_kind("maps/Turini.PDF", ("svg", "png", "pdf"))
'pdf'
>>> [p.as_posix() for p in page_paths("out/plan.svg", [2, 3])]
['out/plan-page-02.svg', 'out/plan-page-03.svg']
>>> bool(page_pattern("out/plan.svg").fullmatch("plan-page-117.svg"))
True
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from trackkit.errors import InputError
from trackkit.formats.files import (
    check_output,
    folder_lock,
    is_read_only,
    write_text_atomic,
)
from trackkit.render.convert import (
    SvgDoc,
    svg_to_pdf,
    svg_to_png,
    write_bytes_atomic,
)
from trackkit.words import plural

__all__ = [
    "PageFiles",
    "output_kind",
    "page_paths",
    "page_pattern",
    "save_document",
    "save_pages",
]


def output_kind(path: str | Path, allowed: Sequence[str]) -> str:
    """The output format asked for by ``path``'s suffix, one of ``allowed``.

    Raises
    ------
    InputError
        If the suffix is none of them (checked before any work, like the output itself:
        see :func:`trackkit.formats.files.check_output`).
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in allowed:
        names = ", ".join(f".{a}" for a in allowed[:-1]) + f" or .{allowed[-1]}"
        raise InputError(
            str(path), f"cannot tell the output format from the file name: use {names}"
        )
    return suffix


def save_document(
    path: str | Path, doc: SvgDoc, *, kind: str, px: int = 3000, force: bool = False
) -> None:
    """Write one drawing as SVG, PNG (``px`` on the longer side) or a one-page PDF.

    The file is converted in memory first and written through a temporary file: a
    failure leaves any earlier file at ``path`` as it was. ``force`` replaces a read-only
    file (see :func:`trackkit.formats.files.check_output`).
    """
    if kind == "svg":
        write_text_atomic(path, doc.text, force=force)
    elif kind == "png":
        write_bytes_atomic(path, svg_to_png(doc, longest_px=px), force=force)
    elif kind == "pdf":
        write_bytes_atomic(path, svg_to_pdf([doc]), force=force)
    else:
        raise ValueError(f"unknown output kind {kind!r}")


def page_paths(path: str | Path, numbers: Sequence[int]) -> list[Path]:
    """File names of pages of a multi-page SVG output, by page number: ``OUT-page-02.svg``."""
    p = Path(path)
    width = max(2, len(str(max(numbers, default=1))))
    return [p.with_name(f"{p.stem}-page-{n:0{width}d}{p.suffix}") for n in numbers]


def page_pattern(path: str | Path) -> re.Pattern[str]:
    """The names of every page file a print to ``path`` may write, of any page count."""
    p = Path(path)
    return re.compile(re.escape(p.stem) + r"-page-\d{2,}" + re.escape(p.suffix))


@dataclass(frozen=True, slots=True)
class PageFiles:
    """The files of a multi-page output."""

    written: list[Path]
    """Page 1 (the output named), then the page files, in page order."""
    removed: list[Path]
    """Page files of an earlier print beyond this print's pages, removed."""


def save_pages(
    path: str | Path, first: SvgDoc, pages: Sequence[SvgDoc], *, force: bool = False
) -> PageFiles:
    """Write ``first`` (page 1) to ``path`` and ``pages`` beside it, named by their page
    numbers 2, 3, ...: ``OUT-page-02.svg``, ``OUT-page-03.svg``, ...

    Every page is rendered before anything is written, and each file is written
    atomically. Page files of an earlier print to the same name that this print does not
    replace (it has fewer pages) are removed: only regular files whose names match
    :func:`page_pattern`. Every file is checked before the first is written, and the
    whole set is written under :func:`~trackkit.formats.files.folder_lock`, so two runs
    writing the same output leave one run's set.

    Parameters
    ----------
    path : str or Path
        The output named (page 1); the rules of
        :func:`~trackkit.formats.files.check_output` apply to it as a named output, and
        to the page files as names trackkit makes up (a link among them is refused).
    first, pages : SvgDoc
        Page 1, then pages 2, 3, ...
    force : bool
        Replace (or remove) read-only files all the same.

    Raises
    ------
    InputError
        Naming the first file that may not be written or removed; nothing is written then.
    """
    out = Path(path)
    paths = [out, *page_paths(out, range(2, len(pages) + 2))]
    with folder_lock(out.parent):
        for i, target in enumerate(paths):
            check_output(target, force=force, named=i == 0)
        keep = {p.name for p in paths}
        stale = [p for p in _page_files(out) if p.name not in keep]
        for old in stale:
            _check_stale(old, force=force, count=len(paths))
        for i, (target, doc) in enumerate(zip(paths, [first, *pages], strict=True)):
            write_text_atomic(target, doc.text, force=force, named=i == 0)
        for old in stale:
            try:
                old.unlink(missing_ok=True)
            except OSError as exc:
                why = (exc.strerror or type(exc).__name__).lower()
                raise InputError(
                    str(old), f"cannot remove this page of an earlier print: {why}"
                ) from None
    return PageFiles(paths, stale)


def _page_files(path: Path) -> list[Path]:
    """Files beside ``path`` named like its pages, in name order."""
    pattern = page_pattern(path)
    folder = path.parent
    try:
        names = [e.name for e in os.scandir(folder)]
    except OSError:
        return []  # the writes will say what is wrong with the folder
    return sorted(folder / name for name in names if pattern.fullmatch(name))


def _check_stale(path: Path, *, force: bool, count: int) -> None:
    """Refuse to go on when a page file of an earlier print may not be removed."""
    why = f"named like a page of this print, which has {plural(count, 'page')}"
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(str(path), f"cannot remove it ({why}): {exc.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise InputError(
            str(path),
            f"a symbolic link {why}: trackkit neither follows nor removes it (remove it, "
            "or print under another name)",
        )
    if not stat.S_ISREG(st.st_mode):
        raise InputError(str(path), f"not a regular file, {why}: trackkit never removes it")
    if not force and is_read_only(st):
        raise InputError(
            str(path),
            f"a read-only page of an earlier print ({why}); --force removes it",
        )
