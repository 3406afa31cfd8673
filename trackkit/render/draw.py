"""What every drawing is made of: ids and text, the symbols, the tile's frame, labels.

Everything is drawn in a tile's *local* frame: a tile is a ``<g>`` turned by ``60 *
rotation`` degrees and moved to its hex centre, so text is turned back to stay upright
(:func:`upright_text`). Repeated shapes (limit discs, chevrons, waves, arrows, danger
markers, tokens) are ``<symbol>`` s placed by ``<use>`` (:func:`place`); they take their
colours from the ``<use>`` (see :func:`theme.css`).

:class:`TileArt` is what one tile shows, whichever drawing it ends up in, for both series;
:func:`trackkit.render.tile.draw_tile` draws it: its spaces and the marks printed on them
(:mod:`trackkit.render.marks`), as each series' road reading places them
(:mod:`trackkit.render.dirt_road`, :mod:`trackkit.render.gt_road`), its label and its tokens
(:mod:`trackkit.render.tokens`).

Examples
--------
>>> svg_id("space", 3, "2.O1"), fmt(12.3456), fmt(-0.001)
('space-3-2.O1', '12.35', '0')
>>> [fmt(c) for c in off((1.0, 2.0), turned((1.0, 0.0), 90.0), 2.0)]
['1', '4']
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import svgwrite
from svgwrite.container import Group

from trackkit.models.stage import TileToken
from trackkit.models.tile import TileFace
from trackkit.road.geometry import CentreLine
from trackkit.road.spaces import DrivenRoad

__all__ = [
    "LABEL_AT",
    "LABEL_STEP",
    "Climb",
    "GtArt",
    "GtRoadArt",
    "TileArt",
    "add_symbols",
    "clean_text",
    "draw_label",
    "fit_size",
    "fmt",
    "frame",
    "free_corners",
    "heat_colour",
    "label_lines",
    "local_hexagon",
    "neg",
    "off",
    "page_down",
    "path_data",
    "place",
    "points",
    "svg_id",
    "turned",
    "upright_text",
]

Point = tuple[float, float]
Climb = Literal["up", "down"]

_SQRT3 = math.sqrt(3.0)
#: Where the tile label sits: this share of the way to a free hex corner.
LABEL_AT = 0.7
_XML_BAD = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ID_BAD = re.compile(r"[^A-Za-z0-9_.-]")


def clean_text(text: str, limit: int = 200) -> str:
    """User text made safe for XML: characters XML cannot hold become U+FFFD.

    Escaping of ``<``, ``&`` and quotes is left to the XML writer (svgwrite escapes text
    and attribute values); this only removes what no escaping can carry.

    >>> clean_text("Col\\x00de <Turini>")
    'Col\\ufffdde <Turini>'
    """
    text = _XML_BAD.sub("\ufffd", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def svg_id(*parts: object) -> str:
    """An XML id from parts joined by ``-``; characters outside ``[A-Za-z0-9_.-]`` become ``_``.

    >>> svg_id("space", 3, "2.O1"), svg_id("tile", "a b")
    ('space-3-2.O1', 'tile-a_b')
    """
    return _ID_BAD.sub("_", "-".join(str(p) for p in parts))


def fmt(x: float) -> str:
    """A coordinate in millimetres, to a hundredth."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def local_hexagon(size: float) -> list[Point]:
    """Corners of a tile's hexagon in its local frame (pointy-top, centre at the origin)."""
    r = size / _SQRT3
    return [
        (r * math.cos(math.radians(30 + 60 * k)), r * math.sin(math.radians(30 + 60 * k)))
        for k in range(6)
    ]


@dataclass(frozen=True, slots=True)
class GtRoadArt:
    """One road of a Rallyman: GT face as a drawing shows it."""

    road: DrivenRoad
    """The road as driven (a road the track does not drive: from its ``from`` edge)."""
    nodes: Mapping[str, str] = field(default_factory=dict)
    """Space id -> the graph node it is (empty: the road is not part of the track)."""
    on_track: bool = True
    """Drawn as road of the track (False: another road of the piece, drawn dimmed)."""


@dataclass(slots=True)
class GtArt:
    """What a Rallyman: GT piece shows besides its hex: every road of the face, and what
    the stage graph adds (see :mod:`trackkit.render.gt_road`)."""

    roads: list[GtRoadArt] = field(default_factory=list)
    joined: dict[str, tuple[str, Any]] = field(default_factory=dict)
    """Space id -> (node, outline in this tile's frame) of a space cut by a skew edge,
    drawn whole here, over both tiles."""
    elsewhere: set[str] = field(default_factory=set)
    """Spaces cut by a skew edge that the neighbouring tile draws whole."""
    grid: dict[str, int] = field(default_factory=dict)
    """Grid slot space id -> its place on the grid (1: pole)."""
    pit_access: frozenset[str] = frozenset()
    """Graph nodes that give access to a pit tile (GT-2)."""
    arrows: list[tuple[str, float]] = field(default_factory=list)
    """Where race-direction arrows go: (road id, progress along it ``from -> to``); on a
    map one, on the piece the race starts from."""


@dataclass(slots=True)
class TileArt:
    """What to draw for one tile, whichever drawing it ends up in.

    ``limits`` maps space ids to the limit to print (a stage's graph lowers corner limits
    under mud tokens); spaces missing from it show the printed limit. ``climb_lines``
    maps a unit index to the way the line *after* that unit is crossed driving: "up" or
    "down" (the graph's climb edges, so climb tokens count too).
    """

    key: str
    """Tile part of every id: the number in driving order, or a face id on a sheet."""
    face: TileFace | None
    road: DrivenRoad | None
    rotation: int = 0
    centre: Point = (0.0, 0.0)
    tokens: Sequence[TileToken] = ()
    classes: Sequence[str] = ()
    label: str | None = None
    sublabel: str | None = None
    """A second, smaller line under the label (tiles without a road: what they are)."""
    label_at: Point | None = None
    """Where the label goes (the tile's frame), chosen over the whole map by
    :func:`trackkit.render.labels.place_labels`; None: chosen from the tile alone."""
    label_size: float | None = None
    """The label's type size (mm) chosen with ``label_at``; None: the tile's own."""
    label_stack: bool = False
    """Set the label on two lines, the numbers over the face id (``18`` / ``109a``), where
    one line finds no room clear of the roads."""
    limits: Mapping[str, int | None] = field(default_factory=dict)
    climb_lines: Mapping[int, Climb] = field(default_factory=dict)
    node_prefix: str | None = None
    """Prefix of the graph's node ids (``"3:"``) for ``data-node``; None on a sheet."""
    heat: Mapping[str, float] = field(default_factory=dict)
    """Graph node -> 0..1: losses of control there, relative to the worst space (heat
    map)."""
    overtakes: Mapping[str, float] = field(default_factory=dict)
    """Graph node -> 0..1: overtakes there, relative to the space with most (a GT piece's
    heat map; see :func:`trackkit.render.gt_road.overtake_layer`)."""
    gt: GtArt | None = None
    """A Rallyman: GT face: drawn by :mod:`trackkit.render.gt_road` (``road`` is then None)."""


# --- symbols ---------------------------------------------------------------------------


def _symbol_bodies(dwg: svgwrite.Drawing) -> dict[str, list[Any]]:
    """Symbol bodies, drawn pointing to +y in a 2 x 2 box around the origin.

    They set no fill or stroke colour of their own: the ``<use>`` placing them does.
    """
    waves = " ".join(
        f"M -1,{y} " + " ".join("q 0.125,-0.22 0.25,0 q 0.125,0.22 0.25,0" for _ in range(4))
        for y in (-0.3, 0.3)
    )
    round_ends = {"stroke_linecap": "round", "stroke_linejoin": "round"}
    return {
        "sym-disc": [dwg.circle((0, 0), 1, stroke_width=0.16)],
        # a warning triangle, point up (away from +y): CORNER-5, and CORNER-4's sign
        "sym-triangle": [
            dwg.path(
                d="M 0,-1.05 L 1.1,0.85 L -1.1,0.85 Z",
                stroke_width=0.14,
                **{"stroke_linejoin": "round"},
            )
        ],
        "sym-token": [dwg.circle((0, 0), 1, stroke_width=0.1)],
        "sym-chevron": [
            dwg.path(
                d="M -0.85,-0.45 L 0,0.45 L 0.85,-0.45",
                fill="none",
                stroke_width=0.32,
                **round_ends,
            )
        ],
        "sym-arrow": [
            dwg.path(
                d="M -0.2,-1 L 0.2,-1 L 0.2,0.15 L 0.55,0.15 L 0,1 L -0.55,0.15 L -0.2,0.15 Z",
                stroke="none",
            )
        ],
        "sym-waves": [dwg.path(d=waves, fill="none", stroke_width=0.14, **round_ends)],
        "sym-badge": [dwg.rect((-1, -1), (2, 2), rx=0.5, ry=0.7, stroke_width=0.06)],
        "sym-kerb": [dwg.rect((-0.45, -1), (0.9, 2), stroke_width=0.12)],
        "sym-paren": [
            dwg.path(
                d="M 0.35,-1 A 1.35,1.35 0 0 0 0.35,1", fill="none", stroke_width=0.28, **round_ends
            )
        ],
        "sym-cloud": [
            dwg.path(
                d="M -0.75,0.45 A 0.38,0.38 0 0 1 -0.55,-0.2 A 0.5,0.5 0 0 1 0.25,-0.45 "
                "A 0.42,0.42 0 0 1 0.8,0 A 0.32,0.32 0 0 1 0.7,0.45 Z",
                stroke="none",
            )
        ],
    }


def add_symbols(dwg: svgwrite.Drawing) -> None:
    """Add every ``<symbol>`` the drawings place with ``<use>`` to ``dwg``'s defs."""
    for sym_id, parts in _symbol_bodies(dwg).items():
        sym = dwg.symbol(id=sym_id, viewBox="-1 -1 2 2", overflow="visible")
        for part in parts:
            sym.add(part)
        dwg.defs.add(sym)


def place(
    dwg: svgwrite.Drawing,
    symbol: str,
    at: Point,
    toward: Point,
    sx: float,
    sy: float | None = None,
    *,
    cls: str | None = None,
) -> Any:
    """A ``<use>`` of ``symbol`` at ``at``, its +y axis along the unit vector ``toward``.

    ``sx`` and ``sy`` scale the symbol's 2 x 2 box across and along ``toward``.
    """
    ux, uy = toward
    sy = sx if sy is None else sy
    matrix = (uy * sx, -ux * sx, ux * sy, uy * sy, at[0], at[1])
    extra: dict[str, Any] = {"class_": cls} if cls else {}
    return dwg.use(
        "#" + symbol,
        insert=(-1, -1),
        size=(2, 2),
        transform="matrix(" + ",".join(fmt(v) for v in matrix) + ")",
        **extra,
    )


def upright_text(
    dwg: svgwrite.Drawing,
    text: str,
    at: Point,
    *,
    size: float,
    turn: float = 0.0,
    anchor: str = "middle",
    cls: str | None = None,
) -> Any:
    """A ``<text>`` centred on ``at`` that reads upright in a group turned by ``turn`` degrees."""
    x, y = at
    extra: dict[str, Any] = {"font_size": fmt(size), "text_anchor": anchor}
    if turn % 360:
        extra["transform"] = f"rotate({fmt(-turn)} {fmt(x)} {fmt(y)})"
    if cls:
        extra["class_"] = cls
    # 0.36 em below the centre puts the middle of digits and capitals on ``at``.
    return dwg.text(clean_text(text), insert=(fmt(x), fmt(y + 0.36 * size)), **extra)


# --- geometry helpers (all in the tile's local frame) --------------------------------


def frame(line: CentreLine, f: float, *, past_ends: bool = False) -> tuple[Point, Point, Point]:
    """Point at fraction ``f`` of ``line``, unit heading there, and the unit vector to the
    left of the heading.

    The heading is measured over a short stretch round ``f``, kept on the line (a DIRT
    road's frame) or, with ``past_ends``, run on straight past its ends (a GT road's: a
    space cut by a skew edge reaches over it).

    >>> from trackkit.road.geometry import CentreLine
    >>> line = CentreLine(((0.0, 0.0), (10.0, 0.0)), (0.0, 10.0))
    >>> frame(line, 0.5)
    ((5.0, 0.0), (1.0, 0.0), (0.0, -1.0))
    """
    eps = 0.004
    if past_ends:
        (x0, y0), (x1, y1) = line.beyond(f - eps), line.beyond(f + eps)
    else:
        (x0, y0), (x1, y1) = line.at(max(0.0, f - eps)), line.at(min(1.0, f + eps))
    n = math.hypot(x1 - x0, y1 - y0) or 1.0
    d = ((x1 - x0) / n, (y1 - y0) / n)
    return line.beyond(f) if past_ends else line.at(f), d, (d[1], -d[0])


def off(p: Point, v: Point, k: float) -> Point:
    """``p`` moved ``k`` times the vector ``v``."""
    return (p[0] + k * v[0], p[1] + k * v[1])


def neg(v: Point) -> Point:
    """The vector ``v`` turned round."""
    return (-v[0], -v[1])


def turned(v: Point, deg: float) -> Point:
    """The vector ``v`` turned by ``deg`` degrees (clockwise on a y-down drawing)."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return (c * v[0] - s * v[1], s * v[0] + c * v[1])


def page_down(turn: float) -> Point:
    """Down the page, in the frame of a tile turned by ``turn`` degrees: text and signs
    drawn along it read upright."""
    return turned((0.0, 1.0), -turn)


def points(pts: Iterable[Point]) -> list[tuple[str, str]]:
    """Points as SVG coordinates (a ``<polyline>``'s or a ``<polygon>``'s)."""
    return [(fmt(x), fmt(y)) for x, y in pts]


def path_data(geom: Any) -> str:
    """SVG path data of a polygon (or of each polygon of a multipolygon); ``M 0,0 Z`` for
    an empty one."""
    polys = list(getattr(geom, "geoms", [geom]))
    rings = []
    for poly in polys:
        if poly.is_empty:
            continue
        coords = list(poly.exterior.coords)[:-1]
        rings.append("M " + " L ".join(f"{fmt(x)},{fmt(y)}" for x, y in coords) + " Z")
    return " ".join(rings) or "M 0,0 Z"


def free_corners(lines: Sequence[Sequence[Point]], size: float) -> list[Point]:
    """Hex corners ordered from the farthest from the roads (their centre ``lines``) to the
    nearest; without a road, the upper corners first (labels read at the top)."""
    corners = local_hexagon(size)
    if not lines:
        order = [4, 3, 5, 2, 0, 1]
        return [corners[k] for k in order]
    pts = [p for line in lines for p in line[::4]]

    def clearance(c: Point) -> float:
        return min(math.dist(c, p) for p in pts)

    return sorted(corners, key=lambda c: -clearance(c))


# --- labels -----------------------------------------------------------------------------

#: Line step of a label set on two lines, as a share of its type size.
LABEL_STEP = 1.1


def label_lines(art: TileArt) -> list[str]:
    """The lines of a tile's label: one, or with ``label_stack`` the numbers over the id."""
    assert art.label is not None
    if art.label_stack and " · " in art.label:
        return art.label.split(" · ", 1)
    return [art.label]


def draw_label(
    dwg: svgwrite.Drawing,
    parent: Group,
    art: TileArt,
    at: Point,
    *,
    font: float,
    below: float,
    size: float,
    turn: float,
) -> None:
    """A tile's label centred on ``at`` (the tile's frame), upright on the page, on one
    line or two (:func:`label_lines`), and its smaller line under it in type ``below``."""
    down = page_down(turn)
    lines = label_lines(art)
    half = (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        spot = off(at, down, (i - half) * LABEL_STEP * font)
        parent.add(upright_text(dwg, line, spot, size=font, turn=turn, cls="tile-label"))
    if art.sublabel and below:
        spot = off(at, down, half * LABEL_STEP * font + 0.06 * size)
        parent.add(
            upright_text(dwg, art.sublabel, spot, size=below, turn=turn, cls="tile-label-sub")
        )


def fit_size(text: str, width: float, size: float) -> float:
    """The font size, at most ``size``, at which ``text`` (bold) fits in ``width`` mm."""
    return min(size, width / (0.66 * max(1, len(text))))


def heat_colour(level: float) -> str:
    """A colour from pale yellow (few losses of control) to deep red (the most)."""
    level = max(0.0, min(1.0, level))
    r, g, b = 255, round(235 - 200 * level), round(160 - 140 * level)
    return f"#{r:02x}{g:02x}{b:02x}"
