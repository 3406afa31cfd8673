"""Writing drawings to files: the format from the file name, every file written atomically.

A multi-page SVG print is one set of files: ``OUT.svg`` (page 1, the overview) and
``OUT-page-02.svg``, ``OUT-page-03.svg``, ... beside it, and ``OUT-pages.json``, the list
of them with their SHA-256. Writing a set replaces the files the earlier print to ``OUT``
wrote and removes its pages beyond the new count, as long as they are as it wrote them
(:mod:`trackkit.formats.fileset`), under a lock of the folder, so the folder holds one
print's pages, never a mix of two; a file trackkit did not write is never removed.

Examples
--------
>>> output_kind("maps/Turini.PDF", ("svg", "png", "pdf"))
'pdf'
>>> [p.as_posix() for p in page_paths("out/plan.svg", [2, 3])]
['out/plan-page-02.svg', 'out/plan-page-03.svg']
>>> manifest_path("out/plan.svg").as_posix()
'out/plan-pages.json'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from trackkit.errors import InputError
from trackkit.formats.files import write_text_atomic
from trackkit.formats.fileset import manifest_bytes, write_file_set
from trackkit.render.raster import (
    SvgDoc,
    svg_to_pdf,
    svg_to_png,
    write_bytes_atomic,
)

__all__ = [
    "PageFiles",
    "manifest_path",
    "output_kind",
    "page_paths",
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


@dataclass(frozen=True, slots=True)
class PageFiles:
    """The files of a multi-page output."""

    written: list[Path]
    """Page 1 (the output named), then the page files, in page order."""
    removed: list[Path]
    """Page files of the earlier print to this output beyond this print's pages, removed."""
    manifest: Path | None = None
    """The list of the files written, with their SHA-256 (:func:`manifest_path`)."""
    kept: list[Path] = field(default_factory=list)
    """Page files of the earlier print changed since it wrote them: the user's, kept."""
    forced: list[Path] = field(default_factory=list)
    """Files in the way, not written by trackkit, replaced because of ``force``."""


def manifest_path(path: str | Path) -> Path:
    """The list of the files a print to ``path`` wrote: ``OUT-pages.json`` beside it."""
    p = Path(path)
    return p.with_name(f"{p.stem}-pages.json")


#: The format marker of a print's list of pages.
PAGES_FORMAT = "trackkit-print-pages/1"
#: The key of ``OUT-pages.json`` that lists the files written, with their SHA-256.
WRITTEN_KEY = "written"


def save_pages(
    path: str | Path, first: SvgDoc, pages: Sequence[SvgDoc], *, force: bool = False
) -> PageFiles:
    """Write ``first`` (page 1) to ``path`` and ``pages`` beside it, named by their page
    numbers 2, 3, ...: ``OUT-page-02.svg``, ``OUT-page-03.svg``, ..., and the list of
    them all with their SHA-256, ``OUT-pages.json``.

    The pages and that list are one set of files trackkit owns
    (:mod:`trackkit.formats.fileset`): a page file is replaced, or removed when this print
    has fewer pages, only if the earlier print to ``path`` wrote it and it has not
    changed since (as ``OUT-pages.json`` lists it); any other file with the name of one
    of this print's files is in the way and stops the print before it writes anything
    (``force`` replaces it), and a file trackkit did not write is never removed. Every
    page is rendered before anything is written, each file is written atomically, and
    the whole set under :func:`~trackkit.formats.files.folder_lock`, so two runs writing
    the same output leave one run's set.

    Parameters
    ----------
    path : str or Path
        The output named (page 1); the rules of
        :func:`~trackkit.formats.files.check_output` apply to it as a named output, and
        to the page files as names trackkit makes up (a link among them is refused).
    first, pages : SvgDoc
        Page 1, then pages 2, 3, ...
    force : bool
        Replace files in the way and read-only files, remove read-only earlier pages.

    Raises
    ------
    FilesInTheWay
        Naming every file in the way (without ``force``); nothing is written then.
    InputError
        Naming the first file that may not be written or removed; nothing is written then.
    """
    out = Path(path)
    paths = [out, *page_paths(out, range(2, len(pages) + 2))]
    files = {p.name: _utf8(p, doc.text) for p, doc in zip(paths, [first, *pages], strict=True)}
    listing = manifest_path(out)
    doc = {"format": PAGES_FORMAT, "output": out.name, "pages": len(paths)}
    files[listing.name] = manifest_bytes(doc, WRITTEN_KEY, listing.name, files)
    folder = out.parent
    done = write_file_set(
        folder,
        files,
        manifest=(listing.name, WRITTEN_KEY),
        force=force,
        named={out.name},
        hint="print under another name (-o)",
    )
    return PageFiles(
        paths,
        [folder / n for n in done.removed],
        listing,
        [folder / n for n in done.kept],
        [folder / n for n in done.forced],
    )


def _utf8(path: Path, text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            str(path), f"cannot write: the text is not valid Unicode ({exc.reason})"
        ) from None
