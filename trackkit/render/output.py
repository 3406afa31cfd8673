"""Writing drawings to files: the format from the file name, every file written atomically.

Examples
--------
>>> output_kind("maps/Turini.PDF", ("svg", "png", "pdf"))
'pdf'
>>> [p.as_posix() for p in page_paths("out/plan.svg", [2, 3])]
['out/plan-page-02.svg', 'out/plan-page-03.svg']
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from trackkit.errors import InputError
from trackkit.formats import write_text_atomic
from trackkit.render.convert import (
    SvgDoc,
    svg_to_pdf,
    svg_to_png,
    write_bytes_atomic,
)

__all__ = ["output_kind", "page_paths", "save_document", "save_pages"]


def output_kind(path: str | Path, allowed: Sequence[str]) -> str:
    """The output format asked for by ``path``'s suffix, one of ``allowed``.

    Raises
    ------
    InputError
        If the suffix is none of them (checked before any work, like the folder:
        see :func:`trackkit.render.convert.check_output_folder`).
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in allowed:
        names = ", ".join(f".{a}" for a in allowed[:-1]) + f" or .{allowed[-1]}"
        raise InputError(
            str(path), f"cannot tell the output format from the file name: use {names}"
        )
    return suffix


def save_document(path: str | Path, doc: SvgDoc, *, kind: str, px: int = 3000) -> None:
    """Write one drawing as SVG, PNG (``px`` on the longer side) or a one-page PDF.

    The file is converted in memory first and written through a temporary file: a
    failure leaves any earlier file at ``path`` as it was.
    """
    if kind == "svg":
        write_text_atomic(path, doc.text)
    elif kind == "png":
        write_bytes_atomic(path, svg_to_png(doc, longest_px=px))
    elif kind == "pdf":
        write_bytes_atomic(path, svg_to_pdf([doc]))
    else:
        raise ValueError(f"unknown output kind {kind!r}")


def page_paths(path: str | Path, numbers: Sequence[int]) -> list[Path]:
    """File names of pages of a multi-page SVG output, by page number: ``OUT-page-02.svg``."""
    p = Path(path)
    width = max(2, len(str(max(numbers, default=1))))
    return [p.with_name(f"{p.stem}-page-{n:0{width}d}{p.suffix}") for n in numbers]


def save_pages(path: str | Path, first: SvgDoc, pages: Sequence[SvgDoc]) -> list[Path]:
    """Write ``first`` (page 1) to ``path`` and ``pages`` beside it, named by their page
    numbers 2, 3, ...: ``OUT-page-02.svg``, ``OUT-page-03.svg``, ...

    Every page is rendered before anything is written, and each file is written
    atomically. Returns the paths written.
    """
    paths = [Path(path), *page_paths(path, range(2, len(pages) + 2))]
    for target, doc in zip(paths, [first, *pages], strict=True):
        write_text_atomic(target, doc.text)
    return paths
