"""SVG to PNG and (multi-page) PDF through CairoSVG, and atomic writing of the results.

CairoSVG draws one SVG per surface; a multi-page PDF is made by letting each page's
CairoSVG surface draw onto one shared cairo PDF surface (``set_size`` before each page,
``show_page`` after it), so fonts are embedded once and no PDF merging library is needed.
A large map shown on many print pages is converted once, into a cairo recording that
each page paints through its window (the PDF holds the map once).

Examples
--------
>>> doc = SvgDoc('<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm" '
...              'viewBox="0 0 10 10"><rect width="5" height="5"/></svg>', 10.0, 10.0)
>>> pdf = svg_to_pdf([doc, doc])
>>> import re
>>> pdf[:5], len(re.findall(rb"/Type\\s*/Page\\b", pdf))
(b'%PDF-', 2)
>>> svg_to_png(doc, longest_px=64)[:8]
b'\\x89PNG\\r\\n\\x1a\\n'
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trackkit.formats.files import check_output_folder, write_bytes_atomic

__all__ = [
    "MAX_PDF_PAGE_MM",
    "SvgDoc",
    "Window",
    "check_output_folder",
    "svg_to_pdf",
    "svg_to_png",
    "write_bytes_atomic",
]

#: PDF pages may not exceed 200 inches a side; larger maps are scaled down to fit.
MAX_PDF_PAGE_MM = 5000.0


@dataclass(frozen=True, slots=True)
class SvgDoc:
    """An SVG document and its page size in millimetres."""

    text: str
    width_mm: float
    height_mm: float


def svg_to_png(doc: SvgDoc, *, longest_px: int) -> bytes:
    """A PNG of ``doc`` whose longer side is ``longest_px`` pixels."""
    import cairosvg  # type: ignore[import-untyped, unused-ignore]

    k = longest_px / max(doc.width_mm, doc.height_mm)
    png: bytes = cairosvg.svg2png(
        bytestring=doc.text.encode("utf-8"),
        output_width=max(1, round(doc.width_mm * k)),
        output_height=max(1, round(doc.height_mm * k)),
    )
    return png


@dataclass(frozen=True, slots=True)
class Window:
    """Part of a shared backdrop shown on a page, under the page's own drawing.

    The backdrop point ``(x, y)`` (mm from the backdrop's top-left) lands on the page at
    ``(left, top)`` (mm), and only ``width`` x ``height`` mm of it are shown.
    """

    x: float
    y: float
    left: float
    top: float
    width: float
    height: float
    backdrop: int = 0
    """Which of the backdrops."""


def svg_to_pdf(
    pages: Sequence[SvgDoc | tuple[SvgDoc, Sequence[Window]]],
    *,
    backdrops: Sequence[SvgDoc] = (),
    max_page_mm: float = MAX_PDF_PAGE_MM,
) -> bytes:
    """One PDF with one page per SVG, each page the size of its SVG (true scale).

    Parameters
    ----------
    pages : sequence
        Page drawings; a page given with :class:`Window` s shows parts of ``backdrops``
        under its own drawing.
    backdrops : sequence of SvgDoc
        Drawings shown on many pages (a whole map, the marks every page has), each
        converted once: the PDF holds each once, and the pages refer to it.
    max_page_mm : float
        A page larger than this on a side is scaled down to fit (PDF's limit).
    """
    import cairocffi  # type: ignore[import-untyped, unused-ignore]
    from cairosvg.parser import Tree  # type: ignore[import-untyped, unused-ignore]
    from cairosvg.surface import PDFSurface  # type: ignore[import-untyped, unused-ignore]

    pt = 72.0 / 25.4
    out = io.BytesIO()
    target = cairocffi.PDFSurface(out, 1, 1)
    recorded: list[Any] = []
    windows: list[Sequence[Window]] = [()]

    class _Record(PDFSurface):  # type: ignore[misc, unused-ignore]
        """Converts the backdrop once, into a cairo recording (in PDF points)."""

        def _create_surface(self, width: float, height: float) -> tuple[Any, float, float]:
            surface = cairocffi.RecordingSurface(
                cairocffi.CONTENT_COLOR_ALPHA, (0, 0, width, height)
            )
            recorded.append(surface)
            return surface, width, height

    class _Page(PDFSurface):  # type: ignore[misc, unused-ignore]
        """A CairoSVG PDF surface that draws onto the shared target."""

        def _create_surface(self, width: float, height: float) -> tuple[Any, float, float]:
            target.set_size(width, height)
            for w in windows[0]:
                ctx = cairocffi.Context(target)
                ctx.rectangle(w.left * pt, w.top * pt, w.width * pt, w.height * pt)
                ctx.clip()
                ctx.set_source_surface(
                    recorded[w.backdrop], (w.left - w.x) * pt, (w.top - w.y) * pt
                )
                ctx.paint()
            return target, width, height

        def finish(self) -> None:  # the target is finished once, after the last page
            target.show_page()

    for backdrop in backdrops:  # not finished: the recordings are painted on the pages
        _Record(Tree(bytestring=backdrop.text.encode("utf-8")), None, 96)
    for item in pages:
        page, windows[0] = item if isinstance(item, tuple) else (item, ())
        tree = Tree(bytestring=page.text.encode("utf-8"))
        scale = min(1.0, max_page_mm / max(page.width_mm, page.height_mm))
        _Page(tree, None, 96, scale=scale).finish()
    target.finish()
    return out.getvalue()
