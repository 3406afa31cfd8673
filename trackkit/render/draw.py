"""Draw one tile: its hex, every space of its road, and the features printed on it.

Everything is drawn from the geometry the graph is built from
(:func:`trackkit.geometry.centre_line` and :func:`trackkit.geometry.space_polygon`), in
the tile's *local* frame: a tile is a ``<g>`` turned by ``60 * rotation`` degrees and
moved to its hex centre, so text is turned back to stay upright. Repeated shapes
(limit discs, chevrons, waves, arrows, danger markers, tokens) are ``<symbol>`` s placed
by ``<use>``; they take their colours from the ``<use>`` (see :func:`theme.css`).

Ids and classes (for tests and users' CSS)::

    <g id="tile-3" class="tile surface-gravel danger-low">
      <path id="space-3-2.O1" class="space kind-corner lane-outer" data-node="3:2.O1"/>
      <g id="limit-3-2-outer" class="feature limit lane-outer">...</g>
      <g class="feature jump">, "feature ford", "feature shortcut", "feature climb",
      "feature start", "feature finish", "feature danger danger-low", "feature token token-oxygen"
      <g id="token-3-1" class="feature track-token token-water ford token-surface-gravel">

Tokens with a place (``at``) are drawn where they lie on the tile, the others in a row
beside the road; a Copilot track token as the symbol printed on it, turned as placed, on the
space it lies on (its row is drawn as the token made it: a chicane-limit token's row is one
chicane space). A tile shows at most ``MAX_TILE_TOKENS`` tokens (R210).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal

import svgwrite
from svgwrite.container import Group

from trackkit.geometry import (
    ROAD_WIDTH_RATIO,
    CentreLine,
    centre_line,
    local_point,
    space_polygon,
)
from trackkit.models.stage import MAX_TILE_TOKENS, TileToken, TokenKind
from trackkit.models.tile import TileFace
from trackkit.spaces import DrivenRoad, TokenSpot

__all__ = [
    "LABEL_AT",
    "TOKENS_AT",
    "TOKEN_RADIUS",
    "Climb",
    "GtArt",
    "GtRoadArt",
    "TileArt",
    "add_symbols",
    "clean_text",
    "draw_label",
    "draw_tile",
    "draw_tokens",
    "fit_size",
    "fmt",
    "free_corners",
    "label_lines",
    "local_hexagon",
    "mark_spots",
    "place",
    "svg_id",
    "token_spots",
    "upright_text",
]

Point = tuple[float, float]
Climb = Literal["up", "down"]

_SQRT3 = math.sqrt(3.0)
#: Where the tile label and the tokens sit: this share of the way to a free hex corner.
LABEL_AT = 0.7
TOKENS_AT = 0.6
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
    the stage graph adds (see :mod:`trackkit.render.gt`)."""

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
    """Space id -> 0..1: losses of control there, relative to the worst space (heat map);
    on a GT piece, graph node -> 0..1."""
    overtakes: Mapping[str, float] = field(default_factory=dict)
    """Graph node -> 0..1: overtakes there, relative to the space with most (a GT piece's
    heat map; see :func:`trackkit.render.gt.overtake_layer`)."""
    gt: GtArt | None = None
    """A Rallyman: GT face: drawn by :mod:`trackkit.render.gt` (``road`` is then None)."""


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


def _frame(line: CentreLine, f: float) -> tuple[Point, Point, Point]:
    """Point at fraction ``f``, unit heading, and unit vector to the left of the heading."""
    eps = 0.004
    a, b = max(0.0, f - eps), min(1.0, f + eps)
    (x0, y0), (x1, y1) = line.at(a), line.at(b)
    n = math.hypot(x1 - x0, y1 - y0) or 1.0
    d = ((x1 - x0) / n, (y1 - y0) / n)
    return line.at(f), d, (d[1], -d[0])


def _off(p: Point, v: Point, k: float) -> Point:
    return (p[0] + k * v[0], p[1] + k * v[1])


def _neg(v: Point) -> Point:
    return (-v[0], -v[1])


def _turned(v: Point, deg: float) -> Point:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return (c * v[0] - s * v[1], s * v[0] + c * v[1])


_PATHS: dict[tuple[str, int, float], tuple[DrivenRoad, dict[str, str], dict[str, Point]]] = {}


def space_paths(road: DrivenRoad, size: float) -> tuple[dict[str, str], dict[str, Point]]:
    """Path data and centroid of every space of ``road`` (local frame), cached per face and way."""
    key = (road.face.id, road.entry, size)
    hit = _PATHS.get(key)
    if hit is not None and hit[0] is road:
        return hit[1], hit[2]
    paths: dict[str, str] = {}
    middles: dict[str, Point] = {}
    for sid, space in road.spaces.items():
        poly = space_polygon(road, space, size)
        if poly.is_empty:
            paths[sid], middles[sid] = "M 0,0 Z", (0.0, 0.0)
            continue
        coords = list(poly.exterior.coords)[:-1]
        paths[sid] = "M " + " L ".join(f"{fmt(x)},{fmt(y)}" for x, y in coords) + " Z"
        c = poly.centroid
        middles[sid] = (c.x, c.y)
    _PATHS[key] = (road, paths, middles)
    return paths, middles


def free_corners(road: DrivenRoad | None, size: float) -> list[Point]:
    """Hex corners ordered from the farthest from the road to the nearest."""
    corners = local_hexagon(size)
    if road is None:
        order = [4, 3, 5, 2, 0, 1]  # upper corners first: labels read at the top
        return [corners[k] for k in order]
    pts = centre_line(road, size).points[::4]

    def clearance(c: Point) -> float:
        return min(math.dist(c, p) for p in pts)

    return sorted(corners, key=lambda c: -clearance(c))


def _driven_units_of_jumps(road: DrivenRoad) -> dict[int, str]:
    """Chevron direction of each jump, by driven unit index (face data is from -> to)."""
    sections = road.road.sections
    n = len(sections)
    out: dict[int, str] = {}
    for jump in road.road.jumps:
        sec, row = jump.section, jump.row
        if road.reversed:
            rows = getattr(sections[sec - 1], "rows", 1)
            sec, row = n + 1 - sec, rows + 1 - row
        for unit in road.units:
            if unit.section == sec and unit.row == row:
                out[unit.index] = jump.chevron
    return out


# --- the tile ----------------------------------------------------------------------------


def draw_tile(dwg: svgwrite.Drawing, art: TileArt, *, size: float) -> Group:
    """The ``<g>`` of one tile: hex, spaces, features, label and tokens.

    Parameters
    ----------
    dwg : svgwrite.Drawing
        The drawing the group is made for (holds the symbols).
    art : TileArt
        What to draw.
    size : float
        Tile size in millimetres (flat edge to flat edge).
    """
    turn = 60.0 * art.rotation
    cx, cy = art.centre
    g = dwg.g(
        id=svg_id("tile", art.key),
        class_=" ".join(["tile", *art.classes]),
        transform=f"translate({fmt(cx)},{fmt(cy)})" + (f" rotate({fmt(turn)})" if turn else ""),
    )
    g.add(
        dwg.polygon(
            [(fmt(x), fmt(y)) for x, y in local_hexagon(size)],
            class_="hex",
        )
    )
    road = art.road
    if road is not None:
        _draw_road(dwg, g, art, road, size, turn)
    corners = free_corners(road, size)
    if art.label and road is None:
        # Nothing else on the tile: the label goes in the middle, where the hex is widest,
        # so it never runs onto the neighbouring tiles (which are drawn over it).
        down = _turned((0.0, 1.0), -turn)
        lines = [(art.label, fit_size(art.label, 0.75 * size, 0.055 * size), "tile-label")]
        if art.sublabel:
            sub = fit_size(art.sublabel, 0.75 * size, 0.04 * size)
            lines.append((art.sublabel, sub, "tile-label-sub"))
        centres = [0.0]
        for (_, above, _), (_, below, _) in pairwise(lines):
            centres.append(centres[-1] + 0.65 * (above + below))
        for (text, fs, cls), c in zip(lines, centres, strict=True):
            at = _off((0.0, 0.0), down, c - centres[-1] / 2)
            g.add(upright_text(dwg, text, at, size=fs, turn=turn, cls=cls))
    elif art.label:
        at = art.label_at if art.label_at is not None else _off((0.0, 0.0), corners[0], LABEL_AT)
        fs = art.label_size or fit_size(art.label, 0.5 * size, 0.055 * size)
        draw_label(dwg, g, art, at, font=fs, below=0.0, size=size, turn=turn)
    if art.tokens:
        draw_tokens(dwg, g, art, corners[1], size, turn)
    return g


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
    down = _turned((0.0, 1.0), -turn)
    lines = label_lines(art)
    half = (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        spot = _off(at, down, (i - half) * LABEL_STEP * font)
        parent.add(upright_text(dwg, line, spot, size=font, turn=turn, cls="tile-label"))
    if art.sublabel and below:
        spot = _off(at, down, half * LABEL_STEP * font + 0.06 * size)
        parent.add(
            upright_text(dwg, art.sublabel, spot, size=below, turn=turn, cls="tile-label-sub")
        )


def fit_size(text: str, width: float, size: float) -> float:
    """The font size, at most ``size``, at which ``text`` (bold) fits in ``width`` mm."""
    return min(size, width / (0.66 * max(1, len(text))))


def _draw_road(
    dwg: svgwrite.Drawing, g: Group, art: TileArt, road: DrivenRoad, size: float, turn: float
) -> None:
    line = centre_line(road, size)
    half = ROAD_WIDTH_RATIO * size / 2.0
    paths, middles = space_paths(road, size)
    key = art.key

    # Spaces: lanes first, then shortcut islands, then the dotted slide spaces on top.
    rank = {"shortcut": 1, "slide": 2}
    spaces = g.add(dwg.g(class_="spaces"))
    for sid in sorted(road.spaces, key=lambda s: (rank.get(road.spaces[s].kind, 0), s)):
        sp = road.spaces[sid]
        cls = f"space kind-{sp.kind}"
        if sp.corner_lane:
            cls += f" lane-{sp.corner_lane}"
        heat = art.heat.get(sid)
        if heat:
            cls += " heat"
        attrs: dict[str, Any] = {"id": svg_id("space", key, sid), "class_": cls}
        if heat:  # white -> red with the losses of control of this space
            attrs["style"] = f"fill:{heat_colour(heat)}"
        if art.node_prefix is not None:
            attrs["data_node"] = art.node_prefix + sid
        spaces.add(dwg.path(d=paths[sid], **attrs))

    feats = g.add(dwg.g(class_="features"))
    pen = _Pen(dwg, feats, art, road, line, half, size, turn, middles)
    for draw in (_draw_danger, _draw_lines, _draw_climb, _draw_rows, _draw_limits, _draw_shortcuts):
        draw(pen)


@dataclass(frozen=True, slots=True)
class _Pen:
    """What every feature of one tile's road is drawn with."""

    dwg: svgwrite.Drawing
    feats: Group
    """The tile's ``<g class="features">``."""
    art: TileArt
    road: DrivenRoad
    line: CentreLine
    half: float
    """Half the road's width (mm)."""
    size: float
    """Tile size (mm, flat edge to flat edge)."""
    turn: float
    """The tile's rotation (degrees): text is turned back to stay upright."""
    middles: Mapping[str, Point]
    """Middle point of each space (tile frame, mm)."""


def heat_colour(level: float) -> str:
    """A colour from pale yellow (few losses of control) to deep red (the most)."""
    level = max(0.0, min(1.0, level))
    r, g, b = 255, round(235 - 200 * level), round(160 - 140 * level)
    return f"#{r:02x}{g:02x}{b:02x}"


def _kerb_spots(line: CentreLine, half: float, size: float) -> dict[str, list[tuple[Point, Point]]]:
    """Where the danger markers go at each end of the road: (point, road heading) pairs."""
    out: dict[str, list[tuple[Point, Point]]] = {}
    for end, f in (("entry", 0.035), ("exit", 0.965)):
        p, d, left = _frame(line, f)
        out[end] = [(_off(p, left, side * (half + 0.035 * size)), d) for side in (1.0, -1.0)]
    return out


def _draw_danger(pen: _Pen) -> None:
    dwg, feats, art, line, half, size = pen.dwg, pen.feats, pen.art, pen.line, pen.half, pen.size
    face = art.face
    if face is None or face.danger.value == "none":
        return
    for end, spots in _kerb_spots(line, half, size).items():
        grp = feats.add(
            dwg.g(
                id=svg_id("danger", art.key, end),
                class_=f"feature danger danger-{face.danger.value}",
            )
        )
        for at, d in spots:
            grp.add(place(dwg, "sym-kerb", at, d, 0.022 * size, 0.03 * size))


def _draw_lines(pen: _Pen) -> None:
    """Start and finish lines: a chequered band across the road after their row."""
    dwg, feats, key, road, line = pen.dwg, pen.feats, pen.art.key, pen.road, pen.line
    half, size, turn = pen.half, pen.size, pen.turn
    for kind, after in (("start", road.start_after), ("finish", road.finish_after)):
        if after is None:
            continue
        p, d, left = _frame(line, road.units[after].f1)
        w = half / 4.0
        grp = feats.add(dwg.g(id=svg_id(kind, key), class_=f"feature {kind}"))
        for k, shift in ((-0.5, 0.0), (0.5, w)):
            mid = _off(p, d, k * w)
            a, b = _off(mid, left, -half), _off(mid, left, half)
            for cls, dash in (("paper", None), ("ink", f"{fmt(w)} {fmt(w)}")):
                attrs: dict[str, Any] = {"class_": cls, "stroke_width": fmt(w)}
                if dash:
                    attrs["stroke_dasharray"] = dash
                    attrs["stroke_dashoffset"] = fmt(shift)
                grp.add(dwg.line((fmt(a[0]), fmt(a[1])), (fmt(b[0]), fmt(b[1])), **attrs))
        label_at = _off(p, left, half + 0.085 * size)
        grp.add(upright_text(dwg, kind.upper(), label_at, size=0.04 * size, turn=turn))


def _draw_climb(pen: _Pen) -> None:
    """CLIMB-1: on each climb line, the −1 arrow points uphill (+1 on its tail)."""
    dwg, feats, art, road, line = pen.dwg, pen.feats, pen.art, pen.road, pen.line
    half, size, turn = pen.half, pen.size, pen.turn
    for unit_index, way in sorted(art.climb_lines.items()):
        if unit_index + 1 >= len(road.units):
            continue
        p, d, left = _frame(line, road.units[unit_index].f1)
        uphill = d if way == "up" else _neg(d)
        at = _off(p, left, -0.5 * half)
        grp = feats.add(
            dwg.g(
                id=svg_id("climb", art.key, unit_index),
                class_=f"feature climb climb-{way}",
            )
        )
        grp.add(place(dwg, "sym-arrow", at, uphill, 0.035 * size, 0.05 * size))
        fs = 0.038 * size
        grp.add(upright_text(dwg, "−1", _off(at, uphill, 0.082 * size), size=fs, turn=turn))
        grp.add(upright_text(dwg, "+1", _off(at, uphill, -0.082 * size), size=fs, turn=turn))


def _draw_rows(pen: _Pen) -> None:
    """Per row: slide dotted lines (CORNER-3), jumps (JUMP-1) and fords (FORD-1)."""
    dwg, feats, key, road, line = pen.dwg, pen.feats, pen.art.key, pen.road, pen.line
    half, size, turn = pen.half, pen.size, pen.turn
    chevrons = _driven_units_of_jumps(road)
    by_token = road.token_units  # drawn as their tokens, where the tokens lie
    for unit in road.units:
        first = road.spaces[unit.spaces[0]] if unit.spaces else None
        if first is None:
            continue
        mid = (unit.f0 + unit.f1) / 2.0
        if unit.kind == "slide":
            # CORNER-3: the dotted line splitting the row into two full-width slide spaces.
            p, _d, left = _frame(line, mid)
            a, b = _off(p, left, -half), _off(p, left, half)
            feats.add(
                dwg.line(
                    (fmt(a[0]), fmt(a[1])),
                    (fmt(b[0]), fmt(b[1])),
                    id=svg_id("slide", key, unit.index),
                    class_="feature slide",
                )
            )
        if first.ford and unit.index not in by_token:
            p, d, _left = _frame(line, mid)
            grp = feats.add(dwg.g(id=svg_id("ford", key, unit.index), class_="feature ford"))
            grp.add(place(dwg, "sym-waves", p, d, 0.85 * half, 0.6 * half))
        if first.jump is not None and unit.index not in by_token:
            p, d, left = _frame(line, mid)
            spec = chevrons.get(unit.index, "sideways")
            right_of_from_to = left if road.reversed else _neg(left)
            forward_from_to = _neg(d) if road.reversed else d
            toward = {
                "sideways": right_of_from_to,
                "sideways-right": right_of_from_to,
                "sideways-left": _neg(right_of_from_to),
                "forward": forward_from_to,
                "backward": _neg(forward_from_to),
            }.get(spec, right_of_from_to)
            grp = feats.add(dwg.g(id=svg_id("jump", key, unit.index), class_="feature jump"))
            grp.add(place(dwg, "sym-chevron", p, toward, 0.05 * size))
            grp.add(
                upright_text(
                    dwg,
                    str(first.jump),
                    _off(p, toward, -0.075 * size),
                    size=0.06 * size,
                    turn=turn,
                )
            )


def _draw_limits(pen: _Pen) -> None:
    """CORNER-1: the limit of each corner lane (and each chicane) in a circle."""
    dwg, feats, art, road, line = pen.dwg, pen.feats, pen.art, pen.road, pen.line
    half, size, turn = pen.half, pen.size, pen.turn
    for unit in road.units:
        if unit.kind not in ("corner", "chicane") or unit.index in road.token_units:
            continue  # a chicane-limit token's row: the token shows the limit
        lanes: dict[str, list[str]] = {}
        for sid in unit.spaces:
            lanes.setdefault(road.spaces[sid].corner_lane or "both", []).append(sid)
        for lane, sids in sorted(lanes.items()):
            sp = road.spaces[sids[0]]
            printed = sp.limit
            shown = art.limits.get(sids[0], printed)
            if printed is None or shown is None:
                continue
            lat = 0.0 if lane == "both" else (0.5 if 1 in sp.lanes else -0.5)
            p, _d, left = _frame(line, (unit.f0 + unit.f1) / 2.0)
            at = _off(p, left, lat * half)
            cls = "feature limit" + ("" if lane == "both" else f" lane-{lane}")
            if shown != printed:
                cls += " muddy"
            grp = feats.add(dwg.g(id=svg_id("limit", art.key, unit.section, lane), class_=cls))
            r = 0.042 * size
            grp.add(place(dwg, "sym-disc", at, (0.0, 1.0), r))
            grp.add(upright_text(dwg, str(shown), at, size=0.056 * size, turn=turn))


def _shortcut_spots(
    road: DrivenRoad, line: CentreLine, half: float, middles: Mapping[str, Point], size: float
) -> dict[str, tuple[Point, int | None]]:
    """Where each shortcut's badge goes (by shortcut name), and the limit it shows."""
    groups: dict[str, list[str]] = {}
    for sid, sp in road.spaces.items():
        if sp.kind == "shortcut":
            groups.setdefault(sid.split(".")[0], []).append(sid)
    out: dict[str, tuple[Point, int | None]] = {}
    for name, sids in sorted(groups.items()):
        xs = [middles[s][0] for s in sids]
        ys = [middles[s][1] for s in sids]
        at = (sum(xs) / len(xs), sum(ys) / len(ys))
        first, last = road.spaces[sids[0]], road.spaces[sids[-1]]
        side = 1.0 if first.lat[0] > 0 else -1.0
        edge = line.at((first.f0 + last.f1) / 2.0, side * half)
        if math.dist(at, edge) < 0.07 * size:
            at = line.at((first.f0 + last.f1) / 2.0, side * (half + 0.07 * size))
        out[name] = (at, first.limit)
    return out


def _draw_shortcuts(pen: _Pen) -> None:
    """SHORTCUT-1: the "(" symbol with the shortcut's limit, once per shortcut.

    It sits on the shortcut island; an island too thin to hold it (gentle bends) gets it
    just beyond, so that it never covers the corner limits.
    """
    dwg, feats, key, road, line = pen.dwg, pen.feats, pen.art.key, pen.road, pen.line
    half, middles, size, turn = pen.half, pen.middles, pen.size, pen.turn
    down = _turned((0.0, 1.0), -turn)  # world "down" in the tile's frame
    right = (down[1], -down[0])
    for name, (at, limit) in _shortcut_spots(road, line, half, middles, size).items():
        grp = feats.add(dwg.g(id=svg_id("shortcut", key, name), class_="feature shortcut"))
        grp.add(place(dwg, "sym-badge", at, down, 0.05 * size, 0.034 * size, cls="badge"))
        grp.add(place(dwg, "sym-paren", _off(at, right, -0.018 * size), down, 0.022 * size))
        grp.add(
            upright_text(
                dwg, str(limit), _off(at, right, 0.014 * size), size=0.048 * size, turn=turn
            )
        )


def _token_value(tok: TileToken) -> str:
    """The number on a token: signed for climb and mud tokens (``−1``), plain for oxygen."""
    if tok.value is None:
        return ""
    signed = tok.kind in (TokenKind.CLIMB, TokenKind.MUD)
    return (f"{tok.value:+d}" if signed else str(tok.value)).replace("-", "−")


#: The word on a token above its number (none on cloud and climb tokens).
_TOKEN_TEXT: dict[TokenKind, str] = {
    TokenKind.OXYGEN: "O₂",
    TokenKind.MUD: "mud",
    TokenKind.CLOUD: "",
    TokenKind.CLIMB: "",
    # Copilot track tokens with nowhere to go (R208) wait beside the road as discs
    TokenKind.WATER: "ford",
    TokenKind.JUMP: "jump",
    TokenKind.CHICANE: "kerb",
    TokenKind.CHICANE_LIMIT: "limit",
}


#: A token's radius, as a share of the tile size.
TOKEN_RADIUS = 0.05


def token_spots(corner: Point, n: int, size: float) -> list[Point]:
    """Where ``n`` tokens go: in a row across the way to ``corner``."""
    r = TOKEN_RADIUS * size
    base = _off((0.0, 0.0), corner, TOKENS_AT)
    norm = math.hypot(*corner) or 1.0
    along = (-corner[1] / norm, corner[0] / norm)
    return [_off(base, along, (i - (n - 1) / 2.0) * 2.25 * r) for i in range(n)]


def _placed(
    road: DrivenRoad | None, tokens: Sequence[TileToken]
) -> dict[int, tuple[tuple[float, float], float, TokenSpot | None]]:
    """Tokens that lie somewhere on their tile: index -> (``at``, ``dir``, spot).

    A road's spots (:attr:`DrivenRoad.tokens`) hold the places trackkit chose for Copilot
    track tokens given none; without a road, the tokens' own ``at``.
    """
    out: dict[int, tuple[tuple[float, float], float, TokenSpot | None]] = {}
    if road is not None:
        for spot in road.tokens:
            if spot.at is not None and spot.index < len(tokens):
                out[spot.index] = (spot.at, spot.dir, spot)
        return out
    for i, tok in enumerate(tokens):
        if tok.at is not None:
            out[i] = (tok.at, tok.dir or 0.0, None)
    return out


def _spread(points: dict[int, Point], r: float) -> dict[int, Point]:
    """Discs that would lie on one another (several tokens at one place) set side by side."""
    groups: dict[tuple[int, int], list[int]] = {}
    for i, (x, y) in points.items():
        groups.setdefault((round(x / r), round(y / r)), []).append(i)
    out: dict[int, Point] = {}
    for members in groups.values():
        n = len(members)
        for k, i in enumerate(members):
            out[i] = _off(points[i], (1.0, 0.0), (k - (n - 1) / 2.0) * 2.25 * r)
    return out


def mark_spots(
    road: DrivenRoad | None, *, danger: bool, tokens: int, size: float
) -> list[tuple[Point, float]]:
    """Where a tile's marks that may lie off its road's spaces are drawn (local frame).

    Danger markers beside both road ends (if ``danger``), shortcut badges and the
    ``tokens`` tokens (those the road knows a place for where they lie, the others in a
    row beside the road), each as (centre, radius) in millimetres: a print shows them
    whole, with the road.
    """
    out: list[tuple[Point, float]] = []
    placed = 0
    if road is not None:
        line = centre_line(road, size)
        half = ROAD_WIDTH_RATIO * size / 2.0
        if danger:
            out += [
                (at, 0.035 * size)
                for spots in _kerb_spots(line, half, size).values()
                for at, _ in spots
            ]
        middles = space_paths(road, size)[1]
        out += [
            (at, 0.055 * size)
            for at, _ in _shortcut_spots(road, line, half, middles, size).values()
        ]
        for spot in road.tokens[:tokens]:
            if spot.at is not None:
                placed += 1
                out.append((local_point(spot.at, size), 1.2 * TOKEN_RADIUS * size))
    if tokens - placed > 0:
        corner = free_corners(road, size)[1]
        spots = token_spots(corner, tokens - placed, size)
        out += [(at, 1.05 * TOKEN_RADIUS * size) for at in spots]
    return out


def draw_tokens(
    dwg: svgwrite.Drawing, g: Group, art: TileArt, corner: Point, size: float, turn: float
) -> None:
    """Tokens where they lie on the tile; those without a place in a row beside the road.

    Copilot track tokens are drawn as the symbols they carry, turned as placed (see
    :func:`_draw_track_token`); the others as round tokens with their number, upright.
    """
    r = TOKEN_RADIUS * size
    tokens = art.tokens[:MAX_TILE_TOKENS]
    placed = _placed(art.road, tokens)
    rest = [i for i in range(len(tokens)) if i not in placed]
    where = dict(zip(rest, token_spots(corner, len(rest), size), strict=True))
    discs = {
        i: local_point(at, size)
        for i, (at, _, _) in placed.items()
        if not (tokens[i].kind and tokens[i].kind.on_track)  # type: ignore[union-attr]
    }
    where.update(_spread(discs, r))
    for i, tok in enumerate(tokens):
        if i in placed and i not in discs:
            at, d, spot = placed[i]
            _draw_track_token(dwg, g, art, i, tok, spot, local_point(at, size), d, size, turn)
        else:
            _draw_disc_token(dwg, g, art, i, tok, where[i], r, turn)


def _draw_disc_token(
    dwg: svgwrite.Drawing,
    g: Group,
    art: TileArt,
    i: int,
    tok: TileToken,
    at: Point,
    r: float,
    turn: float,
) -> None:
    """A round token with its number (climb, oxygen, cloud, mud; unknown names)."""
    down = _turned((0.0, 1.0), -turn)
    kind = tok.kind
    name = kind.value if kind is not None else "unknown"
    grp = g.add(dwg.g(id=svg_id("token", art.key, i + 1), class_=f"feature token token-{name}"))
    grp.add(place(dwg, "sym-token", at, down, r))
    value = _token_value(tok)
    if kind is TokenKind.CLOUD:
        grp.add(place(dwg, "sym-cloud", at, down, 0.75 * r, cls="glyph"))
    top = _TOKEN_TEXT.get(kind, "?") if kind is not None else clean_text(tok.token, 12)
    if top and value:
        grp.add(upright_text(dwg, top, _off(at, down, -0.38 * r), size=0.55 * r, turn=turn))
        grp.add(upright_text(dwg, value, _off(at, down, 0.38 * r), size=0.8 * r, turn=turn))
    elif top or value:
        grp.add(upright_text(dwg, top or value, at, size=(0.6 if top else 0.9) * r, turn=turn))


def _draw_track_token(
    dwg: svgwrite.Drawing,
    g: Group,
    art: TileArt,
    i: int,
    tok: TileToken,
    spot: TokenSpot | None,
    at: Point,
    rotation: float,
    size: float,
    turn: float,
) -> None:
    """A Copilot track token as the symbol printed on it, where it lies, turned as placed.

    Water: the ford's waves (FORD-1); jump: the chevron, across the token, and its number
    (JUMP-1); chicane-limit: the limit in its circle (CORNER-1, after mud); chicane: a
    kerb barrier across half the road. The token's forward axis points at ``60 * dir``
    degrees (the tile's edge 0 at 0). A token that changes nothing (R207..R209) is classed
    ``idle``.
    """
    kind = tok.kind
    assert kind is not None
    half = ROAD_WIDTH_RATIO * size / 2.0
    forward = _turned((1.0, 0.0), 60.0 * rotation)
    across = _turned(forward, 90.0)
    feature = {
        TokenKind.WATER: "ford",
        TokenKind.JUMP: "jump",
        TokenKind.CHICANE_LIMIT: "limit",
        TokenKind.CHICANE: "danger danger-high",
    }[kind]
    classes = ["feature", "track-token", f"token-{kind.value}", feature]
    if tok.surface:
        classes.append(f"token-surface-{tok.surface}")
    road = art.road
    space = road.spaces.get(spot.space) if road is not None and spot and spot.space else None
    acting = spot is not None and spot.acts and space is not None
    if not acting:
        classes.append("idle")
    shown: int | None = None
    if kind is TokenKind.CHICANE_LIMIT and acting and space is not None and spot is not None:
        shown = art.limits.get(spot.space or "", space.limit)
        if shown != space.limit:
            classes.append("muddy")
    grp = g.add(dwg.g(id=svg_id("token", art.key, i + 1), class_=" ".join(classes)))
    if kind is TokenKind.WATER:
        grp.add(place(dwg, "sym-waves", at, forward, 0.85 * half, 0.6 * half))
    elif kind is TokenKind.JUMP:
        grp.add(place(dwg, "sym-chevron", at, across, 0.05 * size))
        number = space.jump if acting and space is not None else tok.value
        if number is not None:
            text_at = _off(at, across, -0.075 * size)
            grp.add(upright_text(dwg, str(number), text_at, size=0.06 * size, turn=turn))
    elif kind is TokenKind.CHICANE_LIMIT:
        grp.add(place(dwg, "sym-disc", at, (0.0, 1.0), 0.042 * size))
        number = shown if shown is not None else tok.value
        if number is not None:
            grp.add(upright_text(dwg, str(number), at, size=0.056 * size, turn=turn))
    else:
        bar = _off(at, across, 0.5 * half)
        grp.add(place(dwg, "sym-kerb", bar, across, 0.03 * size, 0.5 * half))
