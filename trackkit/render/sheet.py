"""A catalogue sheet of tile faces: each face drawn with its spaces and features, labelled.

Faces are drawn from the same geometry as stage maps (the road driven from its ``from``
edge, :func:`trackkit.spaces.drive`), a dozen to an A4 page. Climb faces show their
arrows as printed: the −1 arrow points uphill.

Rallyman: GT faces (until GT maps exist) are drawn from the pixel data of their lane layout,
a plain and honest sketch: each road as a band along its centre line, the cross lines where
they were read (dashed where dotted, with their number or ``!``), every space as a dot with
its id, its limit circled or in a triangle, skew halves marked ``½``, the start/finish line
chequered with its grid slots numbered, the road under a bridge dashed, and the pit board's
columns. The picture is turned as a placed face with ``dir`` 0 is (edge 0 to the right).

Examples
--------
>>> from trackkit.library import default_library
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
from shapely.geometry import LineString, Point

from trackkit.geometry import DEFAULT_TILE_SIZE_MM
from trackkit.models.lanes import LaneLayout, LaneRoad
from trackkit.models.tile import TileFace
from trackkit.render.convert import SvgDoc
from trackkit.render.draw import TileArt, clean_text, draw_tile, fmt
from trackkit.render.pages import PAPERS
from trackkit.render.svg import Box, new_drawing
from trackkit.render.theme import Theme, make_theme
from trackkit.spaces import drive
from trackkit.words import plural

__all__ = ["SHEET_COLUMNS", "SHEET_ROWS", "TileSheet", "face_art", "gt_face_sketch", "tile_sheet"]

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
    """What to draw for a face on its own: the road driven from its ``from`` edge."""
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
    holder.add(draw_tile(dwg, face_art(face), size=DEFAULT_TILE_SIZE_MM))
    if face.layout is not None:
        holder.add(gt_face_sketch(dwg, face, size=DEFAULT_TILE_SIZE_MM))
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


# ------------------------------------------------------------------ Rallyman: GT faces

#: Picture pixels (520 x 450, flat to flat 450) of the GT fact files.
_PICTURE_CENTRE = (260.0, 225.0)
_PICTURE_FLAT = 450.0
#: Road width in picture pixels by lane count (read from the pictures: 56 px a lane on
#: 3-lane roads, 62 on 2-lane ones, 50 on 4-lane ones).
_ROAD_PX = {1: 60.0, 2: 124.0, 3: 168.0, 4: 200.0}
_INK = "#333333"
#: Edge midpoints of the picture (a hidden road has no centre line: it runs between them).
_EDGE_MIDDLES = [(260, 0), (455, 112.5), (455, 337.5), (260, 450), (65, 337.5), (65, 112.5)]


class _Picture:
    """Picture pixels to tile millimetres: scaled, and turned 90° clockwise (edge 0 right)."""

    def __init__(self, size: float) -> None:
        self.k = size / _PICTURE_FLAT

    def __call__(self, x: float, y: float) -> tuple[str, str]:
        dx, dy = x - _PICTURE_CENTRE[0], y - _PICTURE_CENTRE[1]
        return fmt(-dy * self.k), fmt(dx * self.k)

    def mm(self, px: float) -> float:
        return px * self.k

    def below(self, x: float, y: float, px: float) -> tuple[str, str]:
        """The point ``px`` picture pixels below ``(x, y)`` on the sheet (not the picture)."""
        dx, dy = x - _PICTURE_CENTRE[0], y - _PICTURE_CENTRE[1]
        return fmt(-dy * self.k), fmt((dx + px) * self.k)


def _across(road: LaneRoad, x: float, y: float, half: float) -> tuple[Point, Point]:
    """A segment across the road at a picture point: perpendicular to the centre line."""
    centre = LineString(road.centre)
    at = centre.project(Point(x, y))
    a = centre.interpolate(max(at - 2.0, 0.0))
    b = centre.interpolate(min(at + 2.0, centre.length))
    tx, ty = b.x - a.x, b.y - a.y
    norm = math.hypot(tx, ty) or 1.0
    nx_, ny_ = -ty / norm * half, tx / norm * half
    return Point(x - nx_, y - ny_), Point(x + nx_, y + ny_)


def _road_lanes(road: LaneRoad) -> int:
    return max(1, len(road.lanes or {}))


def gt_face_sketch(
    dwg: svgwrite.Drawing, face: TileFace, *, size: float
) -> svgwrite.container.Group:
    """A GT face drawn from the pixel points of its lane layout (see the module docstring).

    Parameters
    ----------
    dwg : svgwrite.Drawing
        The drawing the group is made for.
    face : TileFace
        A face with a ``layout``.
    size : float
        Tile size in millimetres (flat edge to flat edge).
    """
    layout = face.layout
    assert layout is not None, "only GT faces have a lane layout"
    pic = _Picture(size)
    g = dwg.g(class_="gt-sketch")
    for road in layout.roads:
        _sketch_road(dwg, g, pic, road, hidden_lanes=face.lanes.get(road.from_edge, 2))
    for road in layout.roads:
        if not road.hidden:
            _sketch_lines(dwg, g, pic, road)
    _sketch_spaces(dwg, g, pic, layout)
    _sketch_start(dwg, g, pic, layout)
    if layout.pit is not None:
        for spot in layout.pit.spots:
            if spot.px is None:
                continue
            at = pic(*spot.px)
            g.add(dwg.circle(center=at, r=fmt(pic.mm(30)), fill="#ffffff", stroke=_INK))
            g.add(_text(dwg, f"{spot.id} {spot.gear}", at, pic.mm(16), cls="gt-pit"))
    return g


def _sketch_road(
    dwg: svgwrite.Drawing,
    g: svgwrite.container.Group,
    pic: _Picture,
    road: LaneRoad,
    *,
    hidden_lanes: int,
) -> None:
    centre = road.centre or [_EDGE_MIDDLES[road.from_edge], _EDGE_MIDDLES[road.to_edge]]
    points = [pic(x, y) for x, y in centre]
    if road.hidden:  # the road under a bridge: its course, dashed
        width = pic.mm(_ROAD_PX.get(hidden_lanes, 124.0))
        g.add(
            dwg.polyline(
                points,
                fill="none",
                stroke=_INK,
                stroke_width=fmt(width),
                stroke_opacity="0.12",
                class_=f"gt-road gt-hidden road-{road.id}",
            )
        )
        g.add(
            dwg.polyline(
                points,
                fill="none",
                stroke=_INK,
                stroke_width=fmt(pic.mm(3)),
                stroke_dasharray=f"{fmt(pic.mm(14))},{fmt(pic.mm(10))}",
                class_="gt-hidden-centre",
            )
        )
        return
    width = pic.mm(_ROAD_PX.get(_road_lanes(road), 168.0))
    g.add(
        dwg.polyline(
            points,
            fill="none",
            stroke="#9a9a9a",
            stroke_width=fmt(width),
            stroke_opacity="0.55",
            class_=f"gt-road road-{road.id}",
        )
    )
    g.add(
        dwg.polyline(
            points,
            fill="none",
            stroke="#ffffff",
            stroke_width=fmt(pic.mm(2)),
            stroke_dasharray=f"{fmt(pic.mm(6))},{fmt(pic.mm(6))}",
            class_="gt-centre",
        )
    )


def _sketch_lines(
    dwg: svgwrite.Drawing, g: svgwrite.container.Group, pic: _Picture, road: LaneRoad
) -> None:
    """Cross lines at their read points; dotted ones dashed, with their number or ``!``."""
    lanes = _road_lanes(road)
    lane_px = _ROAD_PX.get(lanes, 168.0) / lanes
    for name, line in road.lines.items():
        if line.px is None:
            continue
        raw = line.px
        points = [raw] if isinstance(raw, tuple) else list(raw)
        whole = len(points) == 1 and lanes > 1
        crossed = sorted(road.lanes or {}) if whole else sorted(road.lanes or {})[: len(points)]
        half = (lane_px * lanes if whole else lane_px) / 2
        for n, (x, y) in enumerate(points):
            a, b = _across(road, x, y, half)
            lane = crossed[n] if n < len(crossed) else None
            mark = line.dotted.get(lane) if (lane is not None and not whole) else None
            dotted = bool(line.dotted) and (whole or mark is not None)
            g.add(
                dwg.line(
                    start=pic(a.x, a.y),
                    end=pic(b.x, b.y),
                    stroke="#ffffff" if not dotted else _INK,
                    stroke_width=fmt(pic.mm(4)),
                    class_="gt-line" + (" gt-dotted" if dotted else ""),
                    **(
                        {"stroke_dasharray": f"{fmt(pic.mm(5))},{fmt(pic.mm(5))}"} if dotted else {}
                    ),
                )
            )
        for lane, value in sorted(line.dotted.items()):
            index = min(len(points) - 1, lane - 1) if not whole else 0
            x, y = points[index]
            text = "!" if value == "hazard" else str(value)
            g.add(_text(dwg, text, pic(x + 10, y + 10), pic.mm(20), cls="gt-dotted-mark"))
        _ = name


def _sketch_spaces(
    dwg: svgwrite.Drawing, g: svgwrite.container.Group, pic: _Picture, layout: LaneLayout
) -> None:
    """Each space: a dot with its id; its limit circled or in a triangle; ½ on skew halves."""
    for sid, space in layout.spaces.items():
        if space.px is None:
            continue
        x, y = space.px
        at = pic(x, y)
        if space.limit is not None:
            r = pic.mm(17)
            if space.triangle:
                cx, cy = -(y - _PICTURE_CENTRE[1]) * pic.k, (x - _PICTURE_CENTRE[0]) * pic.k
                tri = [
                    (fmt(cx), fmt(cy - 1.3 * r)),
                    (fmt(cx + 1.2 * r), fmt(cy + 0.8 * r)),
                    (fmt(cx - 1.2 * r), fmt(cy + 0.8 * r)),
                ]
                g.add(dwg.polygon(tri, fill="#ffdd00", stroke="#c00000", class_="gt-triangle"))
            else:
                g.add(dwg.circle(center=at, r=fmt(r), fill="#ffffff", stroke="#c00000"))
            g.add(_text(dwg, str(space.limit), at, pic.mm(20), cls="gt-limit"))
            label_at = pic.below(x, y, 26)
        else:
            g.add(dwg.circle(center=at, r=fmt(pic.mm(5)), fill=_INK, class_="gt-space"))
            label_at = pic.below(x, y, 13)
        label = sid + (" ½" if space.joins is not None else "")
        g.add(_text(dwg, label, label_at, pic.mm(13), cls="gt-space-id"))


def _sketch_start(
    dwg: svgwrite.Drawing, g: svgwrite.container.Group, pic: _Picture, layout: LaneLayout
) -> None:
    """The chequered line across its road and the grid slots numbered from pole."""
    roads = {r.id: r for r in layout.roads}
    for sf in layout.start_finish:
        road = roads[sf.road]
        line = road.lines.get(sf.line)
        if line is None or line.px is None:
            continue
        raw = line.px
        points = [raw] if isinstance(raw, tuple) else list(raw)
        lanes = _road_lanes(road)
        half = _ROAD_PX.get(lanes, 168.0) / 2 if len(points) == 1 else _ROAD_PX[lanes] / lanes / 2
        for x, y in points:
            a, b = _across(road, x, y, half)
            for colour, offset in (("#000000", "0"), ("#ffffff", fmt(pic.mm(8)))):
                g.add(
                    dwg.line(
                        start=pic(a.x, a.y),
                        end=pic(b.x, b.y),
                        stroke=colour,
                        stroke_width=fmt(pic.mm(12)),
                        stroke_dasharray=f"{fmt(pic.mm(8))},{fmt(pic.mm(8))}",
                        stroke_dashoffset=offset,
                        class_="gt-chequered",
                    )
                )
        n = 0
        for row in sf.grid:
            for sid in row:
                n += 1
                px = layout.spaces[sid].px
                if px is not None:
                    at = pic.below(px[0], px[1], -14)
                    g.add(_text(dwg, f"G{n}", at, pic.mm(14), cls="gt-grid"))


def _text(
    dwg: svgwrite.Drawing, text: str, at: tuple[str, str], size: float, *, cls: str
) -> svgwrite.text.Text:
    return dwg.text(
        clean_text(text, 40),
        insert=at,
        font_size=fmt(size),
        text_anchor="middle",
        dominant_baseline="central",
        fill=_INK,
        class_=cls,
    )
