"""SVG to PNG and (multi-page) PDF through CairoSVG, and atomic writing of the results.

Only public APIs: each page is a stand-alone SVG converted by :func:`cairosvg.svg2pdf`,
and the one-page PDFs are joined into one document with :class:`pypdf.PdfWriter`.
What a PDF page shows is therefore exactly what its SVG page shows.

Examples
--------
>>> doc = SvgDoc('<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm" '
...              'viewBox="0 0 10 10"><rect width="5" height="5"/></svg>', 10.0, 10.0)
>>> import io, pypdf
>>> pdf = svg_to_pdf([doc, doc])
>>> pdf[:5], len(pypdf.PdfReader(io.BytesIO(pdf)).pages)
(b'%PDF-', 2)
>>> svg_to_png(doc, longest_px=64)[:8]
b'\\x89PNG\\r\\n\\x1a\\n'
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from trackkit.cli import interrupt
from trackkit.formats.files import check_output, check_output_folder, write_bytes_atomic

__all__ = [
    "MAX_PDF_PAGE_MM",
    "MAX_PNG_PIXELS",
    "SvgDoc",
    "check_output",
    "check_output_folder",
    "png_size",
    "svg_to_pdf",
    "svg_to_png",
    "write_bytes_atomic",
]

#: A PNG holds at most this many pixels (about 160 MB while it is drawn): a larger ``--px``
#: is reduced to fit, keeping the map's proportions.
MAX_PNG_PIXELS = 40_000_000
#: PDF pages may not exceed 200 inches a side; larger maps are scaled down to fit.
MAX_PDF_PAGE_MM = 5000.0


@dataclass(frozen=True, slots=True)
class SvgDoc:
    """An SVG document and its page size in millimetres."""

    text: str
    width_mm: float
    height_mm: float


def png_size(doc: SvgDoc, longest_px: int) -> tuple[int, int]:
    """Width and height in pixels of the PNG of ``doc``: ``longest_px`` on the longer side,
    less if the picture would hold more than :data:`MAX_PNG_PIXELS`.

    >>> png_size(SvgDoc("", 200.0, 100.0), 1000)
    (1000, 500)
    >>> w, h = png_size(SvgDoc("", 1000.0, 1000.0), 20000); w * h <= MAX_PNG_PIXELS
    True
    """
    k = longest_px / max(doc.width_mm, doc.height_mm)
    pixels = doc.width_mm * k * doc.height_mm * k
    if pixels > MAX_PNG_PIXELS:
        k *= (MAX_PNG_PIXELS / pixels) ** 0.5
    return max(1, int(doc.width_mm * k)), max(1, int(doc.height_mm * k))


def svg_to_png(doc: SvgDoc, *, longest_px: int) -> bytes:
    """A PNG of ``doc`` whose longer side is ``longest_px`` pixels (see :func:`png_size`)."""
    import cairosvg  # type: ignore[import-untyped, unused-ignore]

    width, height = png_size(doc, longest_px)
    with interrupt.deferred():  # cairo writes through a Python callback: no Ctrl-C inside
        png: bytes = cairosvg.svg2png(
            bytestring=doc.text.encode("utf-8"), output_width=width, output_height=height
        )
    return png


def svg_to_pdf(pages: Sequence[SvgDoc], *, max_page_mm: float = MAX_PDF_PAGE_MM) -> bytes:
    """One PDF with one page per SVG, each page the size of its SVG (true scale).

    Parameters
    ----------
    pages : sequence of SvgDoc
        Stand-alone page drawings, in page order.
    max_page_mm : float
        A page larger than this on a side is scaled down to fit (PDF's limit).

    Raises
    ------
    ValueError
        If there is no page.
    """
    import cairosvg

    if not pages:
        raise ValueError("a PDF needs at least one page")
    one_page = []
    for page in pages:
        scale = min(1.0, max_page_mm / max(page.width_mm, page.height_mm))
        with interrupt.deferred():  # cairo writes through a Python callback: no Ctrl-C inside
            pdf: bytes = cairosvg.svg2pdf(bytestring=page.text.encode("utf-8"), scale=scale)
        one_page.append(pdf)
    if len(one_page) == 1:
        return one_page[0]
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for pdf in one_page:
        writer.append(PdfReader(io.BytesIO(pdf)))
        interrupt.check()
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
