"""A catalogue sheet of tile faces: each face drawn with its spaces and features, labelled.

Faces are drawn from the same geometry as stage maps (the road driven from its ``from``
edge, :func:`trackkit.road.spaces.drive`), a dozen to an A4 page. Climb faces show their
arrows as printed: the −1 arrow points uphill.

Rallyman: GT faces are drawn as on maps (:mod:`trackkit.render.gt_road`): every road of the
face with its lane spaces, limits, dotted lines, start/finish line and grid, the road
under a bridge dashed, the pit board; turned as a placed face with ``dir`` 0 is (edge 0
to the right).

Examples
--------
>>> from trackkit.tiles.library import default_library
>>> faces = [default_library().get(i) for i in ("202a", "217b", "418a")]
>>> sheet = tile_sheet(faces)
>>> len(sheet.pages), sheet.pages[0].text.count('class="tile ')
(1, 3)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import svgwrite

from trackkit.models.tile import TileFace
from trackkit.render.arts import gt_face_art
from trackkit.render.draw import TileArt, clean_text, fmt
from trackkit.render.pages import PAPERS
from trackkit.render.raster import SvgDoc
from trackkit.render.svg import Box, new_drawing
from trackkit.render.theme import Theme, make_theme
from trackkit.render.tile import draw_tile
from trackkit.road.geometry import DEFAULT_TILE_SIZE_MM
from trackkit.road.spaces import drive
from trackkit.words import plural

__all__ = ["SHEET_COLUMNS", "SHEET_ROWS", "TileSheet", "face_art", "tile_sheet"]

#: Faces per row and rows per page (portrait paper).
SHEET_COLUMNS = 3
SHEET_ROWS = 4
_MARGIN = 10.0
_HEADER = 12.0
_LABEL = 11.0


@dataclass(frozen=True, slots=True)
class TileSheet:
    """A catalogue: printable pages, and the whole of it as one long SVG for screens."""

    pages: list[SvgDoc]
    single: SvgDoc
    tile_size: float
    """Size of the faces on paper (mm); they are drawn at the map's size and scaled."""


def face_art(face: TileFace, *, centre: tuple[float, float] = (0.0, 0.0)) -> TileArt:
    """What to draw for a face on its own: the road driven from its ``from`` edge (a GT
    face: each of its roads)."""
    kinds = [f"surface-{face.surface.value}", f"danger-{face.danger.value}"]
    if face.layout is not None:
        return gt_face_art(face, centre=centre, classes=[*kinds, f"kind-{face.kind.value}"])
    road = drive(face, face.road.from_edge) if face.road is not None else None
    climb = {}
    if road is not None and road.climb is not None:
        # CLIMB-1: arrows on every line between the road's cross-sections.
        climb = {u.index: road.climb for u in road.units[:-1]}
    return TileArt(
        key=face.id,
        face=face,
        road=road,
        centre=centre,
        classes=[
            f"surface-{face.surface.value}",
            f"danger-{face.danger.value}",
            f"kind-{face.kind.value}",
        ],
        climb_lines=climb,
    )


def _cell_size(paper: str) -> tuple[float, float, float]:
    """Cell width and height, and the tile size that fits a cell, in mm."""
    w, h = PAPERS[paper]
    cw = (w - 2 * _MARGIN) / SHEET_COLUMNS
    ch = (h - 2 * _MARGIN - _HEADER) / SHEET_ROWS
    size = min(0.92 * cw, (ch - _LABEL - 2) * math.sqrt(3.0) / 2)
    return cw, ch, size


def tile_sheet(
    faces: Sequence[TileFace],
    *,
    paper: str = "a4",
    title: str = "Tile catalogue",
    theme: Theme | None = None,
) -> TileSheet:
    """Draw ``faces`` on catalogue pages of ``paper`` (and on one long sheet).

    Raises
    ------
    ValueError
        For an unknown paper.
    """
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {', '.join(PAPERS)}")
    theme = theme or make_theme()
    cw, ch, size = _cell_size(paper)
    per_page = SHEET_COLUMNS * SHEET_ROWS
    factory = svgwrite.Drawing(debug=False)
    cells = [_cell(factory, face, size, cw, ch) for face in faces]
    chunks = [cells[i : i + per_page] for i in range(0, len(cells), per_page)] or [[]]
    pw, ph = PAPERS[paper]
    pages = []
    for n, chunk in enumerate(chunks, start=1):
        head = f"{title} — page {n} of {len(chunks)}"
        pages.append(_sheet(chunk, pw, ph, head, cw, ch, theme))
    rows = max(1, math.ceil(len(cells) / SHEET_COLUMNS))
    long_h = 2 * _MARGIN + _HEADER + rows * ch
    single = _sheet(cells, pw, long_h, f"{title} — {plural(len(faces), 'face')}", cw, ch, theme)
    return TileSheet(pages, single, size)


def _cell(
    dwg: svgwrite.Drawing, face: TileFace, size: float, cw: float, ch: float
) -> svgwrite.container.Group:
    """One face and its label, in a cell whose top-left is the origin."""
    cell = dwg.g(class_="sheet-cell")
    hex_h = size * 2 / math.sqrt(3.0)
    # Drawn at the map's tile size and scaled down, so lines keep the map's proportions.
    k = size / DEFAULT_TILE_SIZE_MM
    holder = cell.add(
        dwg.g(transform=f"translate({fmt(cw / 2)},{fmt(1 + hex_h / 2)}) scale({k:.5f})")
    )
    for group in draw_tile(dwg, face_art(face), size=DEFAULT_TILE_SIZE_MM):
        holder.add(group)
    y = 1 + hex_h + 4.2
    cell.add(
        dwg.text(
            f"{face.id}  ·  {face.box}",
            insert=(fmt(cw / 2), fmt(y)),
            font_size="3.6",
            text_anchor="middle",
            class_="title",
        )
    )
    what = [face.surface.value, f"{face.danger.value} danger"]
    if face.kind.value != "road":
        what = [face.kind.value]
    elif face.road is not None:
        what.append(face.road.shape.value)
    elif face.layout is not None:
        lanes = "/".join(str(n) for n in sorted(set(face.lanes.values())))
        what.append(f"{lanes} lanes")
    cell.add(
        dwg.text(
            clean_text(" · ".join(what), 60),
            insert=(fmt(cw / 2), fmt(y + 4.2)),
            font_size="2.9",
            text_anchor="middle",
            class_="muted",
        )
    )
    return cell


def _sheet(
    cells: Sequence[svgwrite.container.Group],
    width: float,
    height: float,
    head: str,
    cw: float,
    ch: float,
    theme: Theme,
) -> SvgDoc:
    dwg = new_drawing(Box(0, 0, width, height), theme, title=head, parts=("base", "map"))
    dwg.add(
        dwg.text(
            clean_text(head, 120),
            insert=(fmt(_MARGIN), fmt(_MARGIN + 5)),
            font_size="5",
            class_="title",
        )
    )
    top = _MARGIN + _HEADER
    for i, cell in enumerate(cells):
        r, c = divmod(i, SHEET_COLUMNS)
        cell["transform"] = f"translate({fmt(_MARGIN + c * cw)},{fmt(top + r * ch)})"
        dwg.add(cell)
    return SvgDoc(dwg.tostring(), width, height)
