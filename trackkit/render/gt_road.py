"""How a Rallyman: GT piece is read for drawing: every lane space and what is printed on it.

A GT face is drawn from its lane layout with the shapes of :mod:`trackkit.road.geometry`
(:class:`~trackkit.road.geometry.GtShape`): the same centre line and cross-line progress the
stage graph measures with, so map and graph agree. Every road of the face is drawn, the
ones the track does not drive dimmed. :data:`GT` is the series' look for
:func:`trackkit.render.tile.draw_tile`, which draws a piece in two layers, so that a
space cut by a skew edge can be drawn whole over both tiles and still lie under every
mark (:mod:`trackkit.render.marks`):

``<g id="tile-4" class="tile gt surface-asphalt danger-low">``
    the hex and every space: ``<path id="space-4-A1b" class="space kind-corner
    lane-inner road-A" data-node="4:A1b">``, with ``off-track`` (a road of the piece the
    track does not drive), ``hidden`` (the road under a bridge, dashed beneath it),
    ``overlap`` (a crossing's spaces over those of the road they cross, half
    see-through), ``joined`` (a space cut by a skew edge, drawn whole once by the later
    of its two tiles, with the graph node's id), ``half`` (the part of such a space whose
    other part is on no tile), ``pit-access`` (a space the pit is reached from, GT-2);
``<g id="marks-4" class="tile-marks">``, drawn after every tile
    ``feature limit`` (the corner limit in a circle, ``triangle``: in a warning triangle,
    CORNER-1, CORNER-5), ``feature dotted`` (a sharp corner's dotted line over one lane
    with its number; ``dotted-hazard``: a warning sign, CORNER-4), ``feature
    start-finish`` (or ``start``/``finish``: the chequered line), ``feature grid`` (a
    grid slot's mark and its place from pole), ``feature direction`` (the race
    direction), ``feature danger`` (the road ends' markers), ``feature pit`` (the pit
    board of 101), the tile label and the tokens.

On a heat map (``render --heat``) the spaces' fill gives the losses of control, and
``<g id="overtakes-4" class="overtakes-layer">`` (drawn after every tile, under every
piece's marks) a ring per space where cars overtook (:func:`overtake_layer`).

The piece of a track driven twice (a crossing, parallel roads) is drawn once, with every
road it is driven on; its label names both visits (``4, 9 · 141b``).

Examples
--------
>>> from trackkit.tiles.library import default_library
>>> from trackkit.render.arts import gt_face_art
>>> art = gt_face_art(default_library().get("117a"))
>>> sum(1 for _ in GT.spaces(art, 240.0))
8
>>> sorted(type(m).__name__ for road in art.gt.roads for m in road_marks(art, road, 240.0, 0.0))[:3]
['Dotted', 'Dotted', 'Kerbs']
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import svgwrite
from svgwrite.container import Group

from trackkit.models.tile import TileFace
from trackkit.render.draw import (
    LABEL_AT,
    GtRoadArt,
    TileArt,
    fit_size,
    fmt,
    frame,
    free_corners,
    local_hexagon,
    off,
    path_data,
    points,
    svg_id,
    turned,
)
from trackkit.render.marks import (
    Chequer,
    Direction,
    Dotted,
    Kerbs,
    Limit,
    Mark,
    PitBoard,
    PitColumn,
    Slot,
    SpacePath,
)
from trackkit.road.geometry import (
    GT_PICTURE_PX,
    GtShape,
    gt_shape,
    picture_point,
    space_polygon,
)

__all__ = [
    "GT",
    "OVERTAKE_HALO",
    "OVERTAKE_RADIUS",
    "OVERTAKE_STROKE",
    "GtLook",
    "each_space",
    "kerb_spots",
    "label_keep_out",
    "label_spot",
    "overtake_layer",
    "overtake_ring",
    "piece_outline",
    "pit_board",
    "road_lines",
    "road_marks",
]

Point = tuple[float, float]
Spot = tuple[Point, float]

#: Pit board columns (picture px): half a column's width, and how far they run.
_PIT_HALF_PX = 36.5
_PIT_SPAN_PX = (24.0, 426.0)

# --- shapes in a tile's frame -------------------------------------------------------------


def _visible(art: TileArt) -> list[GtRoadArt]:
    assert art.gt is not None
    return [r for r in art.gt.roads if not r.road.hidden]


def road_lines(face: TileFace, size: float) -> list[list[Point]]:
    """The centre line of every visible road of a GT face (local frame, mm)."""
    return [
        list(gt_shape(r, size).line.points)
        for r in (face.layout.roads if face.layout else [])
        if not r.hidden
    ]


_OUTLINES: dict[tuple[str, float], Any] = {}


def piece_outline(face: TileFace, size: float) -> Any:
    """Every space of every visible road of a GT face as one shape (local frame, mm)."""
    from shapely.ops import unary_union

    key = (face.id, size)
    if key not in _OUTLINES:
        _OUTLINES[key] = unary_union(
            [
                poly
                for r in (face.layout.roads if face.layout else [])
                if not r.hidden
                for poly in gt_shape(r, size).polygons.values()
            ]
        )
    return _OUTLINES[key]


def label_keep_out(face: TileFace, size: float) -> Any:
    """What a GT tile's label keeps clear of (local frame): its roads, or its pit board."""
    from shapely.geometry import Polygon

    assert face.layout is not None
    if face.layout.pit is not None:
        lo, hi = _PIT_SPAN_PX
        xs = [s.px[0] for s in face.layout.pit.spots if s.px is not None]
        if xs:
            corners = [
                (min(xs) - _PIT_HALF_PX, lo),
                (max(xs) + _PIT_HALF_PX, lo),
                (max(xs) + _PIT_HALF_PX, hi),
                (min(xs) - _PIT_HALF_PX, hi),
            ]
            return Polygon([picture_point(p, size) for p in corners])
    return piece_outline(face, size)


def label_spot(
    face: TileFace, text: str, font: float, *, size: float, turn: float, below: float = 0.0
) -> Point:
    """Where a GT tile's label goes (local frame): near a hex corner or edge, the place
    whose text box (upright on the page, ``below`` a smaller line) keeps clearest of the
    tile's roads, and stays on the tile."""
    key = (face.id, len(text), round(font, 3), size, round(turn % 360.0, 3), round(below, 3))
    hit = _LABELS.get(key)
    if hit is None:
        if len(_LABELS) >= 4096:  # the labels of the last maps drawn are enough
            _LABELS.clear()
        hit = _LABELS[key] = _label_spot(face, len(text), font, size, turn, below)
    return hit


_LABELS: dict[tuple[str, int, float, float, float, float], Point] = {}


def _label_spot(
    face: TileFace, chars: int, font: float, size: float, turn: float, below: float
) -> Point:
    from shapely.geometry import Polygon
    from shapely.ops import polylabel

    road = label_keep_out(face, size)
    hexagon = Polygon(local_hexagon(size))
    places = [off((0.0, 0.0), c, LABEL_AT) for c in free_corners(road_lines(face, size), size)]
    places += [off((0.0, 0.0), m, 0.82) for m in _edge_middles(size)]
    # and the middle of the widest stretches of the tile off the road (a hairpin's island)
    free = hexagon.buffer(-0.03 * size).difference(road.buffer(0.01 * size))
    parts = sorted(getattr(free, "geoms", [free]), key=lambda g: -g.area)[:3]
    places += [(c.x, c.y) for c in (polylabel(g, 0.5) for g in parts if not g.is_empty)]
    w, h = 0.66 * font * chars / 2 + 0.01 * size, 0.6 * font + 0.01 * size
    down = 0.06 * size + 0.5 * below if below else 0.0
    best: tuple[Any, ...] | None = None
    spot = places[0]
    for rank, at in enumerate(places):
        box = [(-w, -h), (w, -h), (w, h + down), (-w, h + down)]  # page axes
        poly = Polygon([off(at, turned(p, -turn), 1.0) for p in box])
        over = poly.intersection(road).area
        out = poly.difference(hexagon).area
        clear = min(poly.distance(road), 0.05 * size)
        score = (out > 0.05 * poly.area, round(over / (0.01 * poly.area)), -clear, rank)
        if best is None or score < best:
            best, spot = score, at
    return spot


def _edge_middles(size: float) -> list[Point]:
    """Midpoints of a tile's six edges (local frame), edge 0 first."""
    a = size / 2.0
    return [
        (a * math.cos(math.radians(60 * k)), a * math.sin(math.radians(60 * k))) for k in range(6)
    ]


_KERBS: dict[tuple[str, float], dict[tuple[str, int], list[tuple[Point, Point]]]] = {}


def kerb_spots(face: TileFace, size: float) -> dict[tuple[str, int], list[tuple[Point, Point]]]:
    """Where the danger markers go beside the ends of a GT face's roads: ``(road id,
    edge) -> [(point, road heading)]``, local frame. A marker that would lie on another
    road of the face (a junction's roads share an edge) or on one already placed is left
    out: the markers stand beside the road."""
    from shapely.geometry import Point as At

    key = (face.id, size)
    hit = _KERBS.get(key)
    if hit is not None:
        return hit
    outline = piece_outline(face, size)
    kept: list[Point] = []  # the other roads' markers
    out: dict[tuple[str, int], list[tuple[Point, Point]]] = {}
    for road in face.layout.roads if face.layout else []:
        if road.hidden:
            continue
        shape = gt_shape(road, size)
        mine: list[Point] = []
        for edge, p in ((road.from_edge, 0.035), (road.to_edge, 0.965)):
            _at, d, _left = frame(shape.line, p, past_ends=True)
            spots = out.setdefault((road.id, edge), [])
            for side in (1.0, -1.0):
                at = shape.line.beyond(p, side * (shape.half(p) + 0.035 * size))
                if outline.contains(At(at)) or any(math.dist(at, k) < 0.04 * size for k in kept):
                    continue
                mine.append(at)
                spots.append((at, d))
        kept += mine
    _KERBS[key] = out
    return out


def _lane_u(shape: GtShape, lane: int, p: float) -> tuple[float, float, float]:
    """Lateral band of a lane at progress ``p``: its left edge, middle and right edge."""
    n = shape.lanes_at(min(max(p, 0.0), 1.0))
    left = 1.0 - 2.0 * (lane - 1) / n
    right = 1.0 - 2.0 * lane / n
    return left, (left + right) / 2, right


def _limit_at(face: TileFace, sid: str, geom: Any, size: float) -> Point:
    """Where a space's limit is printed: its picture point, else inside its outline."""
    assert face.layout is not None
    printed = face.layout.spaces.get(sid)
    if printed is not None and printed.px is not None:
        return picture_point(printed.px, size)
    c = geom.representative_point()
    return (c.x, c.y)


def _drawn_before(art: TileArt, road: GtRoadArt, sid: str) -> set[str]:
    """``{sid}`` when a road drawn before ``road`` shares the space (a junction)."""
    gt = art.gt
    assert gt is not None
    for other in _visible(art):
        if other is road:
            return set()
        if sid in other.road.cut.spaces:
            return {sid}
    return set()


def _page_box(at: Point, w: float, h: float, turn: float) -> Any:
    """A box ``2w`` wide and ``2h`` high on the page (a tile turned by ``turn``) round a
    local point: what upright words there cover."""
    from shapely.geometry import Polygon

    corners = [(-w, -h), (w, -h), (w, h), (-w, h)]
    return Polygon([off(at, turned(c, -turn), 1.0) for c in corners])


def _beside(
    art: TileArt,
    shape: GtShape,
    p: float,
    prefer: float,
    extent: tuple[float, float],
    size: float,
    turn: float,
    avoid: Any = None,
) -> tuple[Point, Any]:
    """A place beside a road at progress ``p`` for something ``extent`` (half width and
    height on the page) big: on side ``prefer`` (+1: left seen ``from -> to``), or on the
    other one where that side is another road of the piece (parallel roads) or ``avoid``.
    Returns the place and the box it covers."""
    from shapely.geometry import Polygon

    assert art.face is not None
    roads = label_keep_out(art.face, size)
    hexagon = Polygon(local_hexagon(size))
    _at, _d, left = frame(shape.line, p, past_ends=True)
    lx, ly = turned(left, turn)
    w, h = extent
    reach = abs(lx) * w + abs(ly) * h  # the box's half size across the road
    best: tuple[Any, ...] | None = None
    spot: tuple[Point, Any] = ((0.0, 0.0), None)
    for rank, side in enumerate((prefer, -prefer)):
        at = shape.line.beyond(p, side * (shape.half(p) + 0.015 * size + reach))
        box = _page_box(at, w, h, turn)
        over = box.intersection(roads).area + (box.intersection(avoid).area if avoid else 0.0)
        out = box.difference(hexagon).area
        score = (round(over / (0.02 * box.area)), out > 0.3 * box.area, rank)
        if best is None or score < best:
            best, spot = score, (at, box)
    return spot


def _line_words(
    art: TileArt,
    shape: GtShape,
    kind: str,
    line: str,
    toward_to: bool,
    size: float,
    turn: float,
) -> tuple[str, float, Point, Any]:
    """What a start/finish line says beside the road, its size and place (on the driver's
    left, or right where a parallel road lies on the left), and the box the words cover."""
    words = {"start-finish": "START · FINISH", "start": "START", "finish": "FINISH"}[kind]
    fs = fit_size(words, 0.4 * size, 0.032 * size)
    extent = (0.66 * fs * len(words) / 2, 0.6 * fs)
    prefer = 1.0 if toward_to else -1.0
    at, box = _beside(art, shape, shape.progress(line), prefer, extent, size, turn)
    return words, fs, at, box


def _slot_marks(
    shape: GtShape, sid: str, toward_to: bool, size: float
) -> tuple[list[Point], Point]:
    """A grid slot's bar (with its two legs, at the slot's front) and where its place
    from pole is written."""
    sp = shape.cut.spaces[sid]
    front = sp.front if toward_to else sp.back
    way = 1.0 if toward_to else -1.0
    length = shape.line.length or 1.0
    inset, leg = 0.02 * size / length, 0.035 * size / length
    right, left = shape.band(sp.lanes, sid)
    margin = 0.15 * (left - right)
    a, b = left - margin, right + margin

    def at(u: float, back: float) -> Point:
        return shape.point(shape.at(front, u) - way * (inset + back), u)

    bar = [at(a, leg), at(a, 0.0)]
    bar += [at(a + (b - a) * i / 6, 0.0) for i in range(1, 6)]
    bar += [at(b, 0.0), at(b, leg)]
    mid = (a + b) / 2
    return bar, shape.point(shape.at(front, mid) - way * (inset + 2.2 * leg), mid)


def _arrow_at(road: GtRoadArt, shape: GtShape, p: float, size: float) -> tuple[Point, Point]:
    """Where the race-direction arrow of a line at ``p`` goes, and which way it points."""
    _at, d, _left = frame(shape.line, p, past_ends=True)
    way = -1.0 if road.road.reversed else 1.0
    past = p + way * 0.1 * size / (shape.line.length or 1.0)
    return shape.point(min(max(past, 0.06), 0.94), 0.0), (way * d[0], way * d[1])


# --- the marks of a piece -------------------------------------------------------------


def road_marks(art: TileArt, road: GtRoadArt, size: float, turn: float) -> Iterator[Mark]:
    """Every mark printed on one road of a GT piece, in drawing order: the danger kerbs
    at its ends, the dotted lines (CORNER-4), the corner limits (CORNER-1, CORNER-5), the
    start/finish line with its grid slots (BOARD-3, GT-1) and the race direction."""
    face, gt = art.face, art.gt
    assert face is not None and face.layout is not None and gt is not None
    shape = gt_shape(road.road.cut.road, size)
    lane_road = shape.road
    if face.danger.value != "none":
        spots = kerb_spots(face, size)
        for edge in (lane_road.from_edge, lane_road.to_edge):
            if spots.get((lane_road.id, edge)):
                yield Kerbs(
                    (art.key, lane_road.id, edge), face.danger.value, spots[(lane_road.id, edge)]
                )
    for name, line in lane_road.lines.items():
        for lane, mark in sorted(line.dotted.items()):
            p = shape.progress(name)
            left, mid, right = _lane_u(shape, lane, p)
            us = [left + (right - left) * i / 6 for i in range(7)]
            pts = [shape.point(shape.at(name, u), u) for u in us]
            at = shape.point(shape.at(name, mid), mid)
            yield Dotted((art.key, lane_road.id, name, lane), pts, at, mark)
    yield from _limits(art, road, shape, size)
    for sf in face.layout.start_finish:
        if sf.road != lane_road.id:
            continue
        name = sf.line
        w = 0.03 * size
        length = shape.line.length or 1.0
        us = [1.0 - 2.0 * i / 12 for i in range(13)]
        stripes = [
            points(shape.point(shape.at(name, u) + k * w / length, u) for u in us)
            for k in (-0.5, 0.5)
        ]
        toward_to = sf.race_toward == lane_road.to_edge
        words, fs, words_at, _box = _line_words(art, shape, sf.kind, name, toward_to, size, turn)
        yield Chequer(sf.kind, (art.key, sf.road), stripes, w, False, words, words_at, fs)
        for row in sf.grid:
            for sid in row:
                if sid in shape.cut.spaces:
                    node = road.nodes.get(sid)
                    tile_part = node.split(":", 1)[0] if node else art.key
                    bar, number_at = _slot_marks(shape, sid, toward_to, size)
                    yield Slot((tile_part, sid), bar, number_at, gt.grid.get(sid))
    for rid, p in gt.arrows:
        if rid == road.road.road_id:
            at, ahead = _arrow_at(road, shape, p, size)
            yield Direction((art.key, lane_road.id), at, ahead)


def _limits(art: TileArt, road: GtRoadArt, shape: GtShape, size: float) -> Iterator[Limit]:
    """CORNER-1: each corner space's limit in a circle; CORNER-5: in a warning triangle;
    at its picture point, once on a space two roads share."""
    face, gt = art.face, art.gt
    assert face is not None and face.layout is not None and gt is not None
    for sid in shape.road.named_spaces():
        printed = face.layout.spaces.get(sid)
        if printed is None or printed.limit is None or sid in gt.elsewhere:
            continue
        if sid not in shape.cut.spaces or sid in _drawn_before(art, road, sid):
            continue
        node = road.nodes.get(sid)
        shown = art.limits.get(node, printed.limit) if node is not None else printed.limit
        if shown is None:
            continue
        lane = road.road.spaces[sid].corner_lane if sid in road.road.spaces else None
        tile_part = node.split(":", 1)[0] if node else art.key
        at = _limit_at(face, sid, shape.polygons.get(sid), size)
        yield Limit((tile_part, sid), at, shown, lane, shown != printed.limit, printed.triangle)


def pit_board(art: TileArt, size: float) -> PitBoard:
    """GT-2: the pit board of tile 101, its columns with their gear and services."""
    face = art.face
    assert face is not None and face.layout is not None and face.layout.pit is not None
    lo, hi = _PIT_SPAN_PX
    columns = []
    for spot in face.layout.pit.spots:
        if spot.px is None:
            continue
        x = spot.px[0]
        corners = [
            picture_point(p, size)
            for p in (
                (x - _PIT_HALF_PX, lo),
                (x + _PIT_HALF_PX, lo),
                (x + _PIT_HALF_PX, hi),
                (x - _PIT_HALF_PX, hi),
            )
        ]
        at = picture_point(spot.px, size)
        columns.append(
            PitColumn((art.key, spot.id), corners, at, spot.gear, " + ".join(spot.services))
        )
    length = (hi - lo) * size / GT_PICTURE_PX
    width = 2 * _PIT_HALF_PX * size / GT_PICTURE_PX
    return PitBoard((art.key,), columns, length, width)


class GtLook:
    """A GT piece's look (:class:`trackkit.render.tile.Look`): every road of its face, the
    marks drawn over every tile, so that a space cut by a skew edge, drawn whole by one
    of its two tiles, lies under them."""

    over_every_tile = True

    def has_road(self, art: TileArt) -> bool:
        """A piece always has its roads (or its pit board) to draw."""
        return True

    def lines(self, art: TileArt, size: float) -> Sequence[Sequence[Point]]:
        """The centre line of every visible road of the face."""
        assert art.face is not None
        return road_lines(art.face, size)

    def spaces(self, art: TileArt, size: float) -> Iterator[SpacePath]:
        """Every space once (see :func:`each_space`); a crossing's spaces over those they
        cross."""
        gt, face = art.gt, art.face
        assert gt is not None and face is not None and face.layout is not None
        over: dict[str, set[str]] = {}
        for a, b in face.layout.overlaps:
            over.setdefault(a, set()).add(b)
            over.setdefault(b, set()).add(a)
        drawn: set[str] = set()
        for road, sid, space, node, geom in each_space(art, size):
            drawn.add(sid)
            classes = ["space", f"kind-{space.kind}", f"road-{road.road.road_id}"]
            if space.corner_lane:
                classes.append(f"lane-{space.corner_lane}")
            if sid in gt.joined:
                classes.append("joined")
            elif space.joins is not None:
                classes.append("half")
            if road.road.hidden:
                classes.append("hidden")
            elif not road.on_track and node is None:
                classes.append("off-track")
            if over.get(sid, set()) & drawn:
                classes.append("overlap")
            if node is not None and node in gt.pit_access:
                classes.append("pit-access")
            ident = svg_id("space", *node.split(":", 1)) if node else svg_id("space", art.key, sid)
            yield SpacePath(ident, path_data(geom), classes, node)

    def nodes(self, art: TileArt) -> set[str]:
        """The graph nodes the piece draws (a space cut by a skew edge: where it is whole)."""
        assert art.gt is not None
        mine = {n for r in art.gt.roads for n in r.nodes.values()}
        return mine | {node for node, _geom in art.gt.joined.values()}

    def roads(self, art: TileArt, size: float) -> Iterator[tuple[str | None, Iterator[Mark]]]:
        """Each visible road's marks (a road off the track in its own group), then the
        pit board."""
        face = art.face
        assert face is not None and face.layout is not None
        turn = 60.0 * art.rotation
        for road in _visible(art):
            yield (None if road.on_track else "off-track"), road_marks(art, road, size, turn)
        if face.layout.pit is not None:
            yield None, iter([pit_board(art, size)])

    def label_spot(
        self,
        art: TileArt,
        corners: Sequence[Point],
        font: float,
        below: float,
        *,
        size: float,
        turn: float,
    ) -> Point:
        """Where the label goes when the map did not choose (see :func:`label_spot`)."""
        assert art.face is not None and art.label is not None
        return label_spot(art.face, art.label, font, size=size, turn=turn, below=below)

    def beside(self, art: TileArt, size: float, *, kerbs: bool) -> tuple[list[Spot], list[Spot]]:
        """The danger kerbs beside the road ends (if ``kerbs`` and the face has danger),
        after the tokens in :func:`trackkit.render.tile.mark_spots`."""
        face = art.face
        if not kerbs or face is None or face.danger.value == "none":
            return [], []
        spots = [(at, 0.035 * size) for marks in kerb_spots(face, size).values() for at, _ in marks]
        return [], spots


#: The look of a Rallyman: GT piece.
GT = GtLook()


# --- spaces ----------------------------------------------------------------------------


def each_space(art: TileArt, size: float) -> Iterator[tuple[GtRoadArt, str, Any, str | None, Any]]:
    """Every space of a GT piece drawn once, in drawing order: the road under a bridge
    first, the roads off the track, then the track's roads in driving order. Yields
    ``(road, space id, the space, its graph node or None, its outline)``; a space cut by a
    skew edge comes whole from the piece that draws it."""
    gt = art.gt
    assert gt is not None
    order = sorted(gt.roads, key=lambda r: (not r.road.hidden, r.on_track and bool(r.nodes)))
    node_of = {sid: node for r in gt.roads for sid, node in r.nodes.items()}
    drawn: set[str] = set()
    for road in order:
        lane_road = road.road.cut.road
        for sid in lane_road.named_spaces():
            if sid in drawn or sid in gt.elsewhere or sid not in road.road.spaces:
                continue
            drawn.add(sid)
            space = road.road.spaces[sid]
            if sid in gt.joined:
                node, geom = gt.joined[sid]
                yield road, sid, space, node, geom
            else:
                yield road, sid, space, node_of.get(sid), space_polygon(road.road, space, size)


# --- overtakes on the heat map ---------------------------------------------------------

#: An overtake ring's radius and stroke (shares of the tile size), for a space with few
#: overtakes (+ 0) to the space with most (+ 1): the radius grows with the square root of
#: the count (the ring's area with the count), the stroke with the count.
OVERTAKE_RADIUS = (0.016, 0.021)
OVERTAKE_STROKE = (0.004, 0.006)
#: The white halo under a ring (share of the tile size, added to its stroke): it reads on
#: grey road and on red heat fill alike, in colour and in grey.
OVERTAKE_HALO = 0.003


def overtake_ring(share: float, size: float) -> tuple[float, float, float]:
    """Radius, stroke width and opacity of the ring of a space with ``share`` (0..1] of
    the most overtakes on one space, at tile size ``size`` (mm)."""
    share = max(0.0, min(1.0, share))
    r = size * (OVERTAKE_RADIUS[0] + OVERTAKE_RADIUS[1] * math.sqrt(share))
    w = size * (OVERTAKE_STROKE[0] + OVERTAKE_STROKE[1] * share)
    return r, w, 0.75 + 0.25 * share


def _marks_on(art: TileArt, size: float) -> dict[str, Any]:
    """Space id -> what the piece's marks cover on it (limits, grid slots, the race
    direction; at a crossing the spaces of the other road; local frame): an overtake
    ring goes beside them."""
    from shapely.geometry import LineString, Polygon
    from shapely.geometry import Point as Dot
    from shapely.ops import unary_union

    face, gt = art.face, art.gt
    assert face is not None and face.layout is not None and gt is not None
    out: dict[str, list[Any]] = {}
    for road in _visible(art):
        shape = gt_shape(road.road.cut.road, size)
        for sid in shape.road.named_spaces():
            printed = face.layout.spaces.get(sid)
            if printed is None or printed.limit is None or sid not in shape.cut.spaces:
                continue
            at = _limit_at(face, sid, shape.polygons.get(sid), size)
            reach = (0.05 if printed.triangle else 0.046) * size
            out.setdefault(sid, []).append(Dot(at).buffer(reach + 0.006 * size))
        for sf in face.layout.start_finish:
            if sf.road != shape.road.id:
                continue
            toward_to = sf.race_toward == shape.road.to_edge
            for row in sf.grid:
                for sid in row:
                    if sid in shape.cut.spaces:
                        bar, text_at = _slot_marks(shape, sid, toward_to, size)
                        covered = LineString(bar).buffer(0.012 * size)
                        covered = covered.union(Dot(text_at).buffer(0.035 * size))
                        out.setdefault(sid, []).append(covered)
        for rid, p in gt.arrows:
            if rid == road.road.road_id:
                at, (ax, ay) = _arrow_at(road, shape, p, size)
                a, c = 0.075 * size, 0.045 * size  # the arrow's half length and width
                arrow = Polygon(
                    [
                        (at[0] + i * a * ax - j * c * ay, at[1] + i * a * ay + j * c * ax)
                        for i, j in ((1, 1), (1, -1), (-1, -1), (-1, 1))
                    ]
                ).buffer(0.006 * size)
                for sid, poly in shape.polygons.items():
                    if poly.intersects(arrow):
                        out.setdefault(sid, []).append(arrow)
    # a crossing: a space keeps its ring off the spaces of the road across it
    outlines = {
        sid: poly
        for road in _visible(art)
        for sid, poly in gt_shape(road.road.cut.road, size).polygons.items()
    }
    for first, second in face.layout.overlaps:
        for one, other in ((first, second), (second, first)):
            if other in outlines:
                out.setdefault(one, []).append(outlines[other])
    return {sid: unary_union(parts) for sid, parts in out.items()}


def _ring_spot(geom: Any, covered: Any, size: float) -> tuple[Point, float]:
    """The middle of a space's widest part clear of its marks, and the room there (the
    middle of the whole space where the marks leave no room for the smallest ring)."""
    from shapely.ops import polylabel

    def widest(shape: Any) -> tuple[Point, float]:
        parts = sorted(getattr(shape, "geoms", [shape]), key=lambda g: -g.area)
        if not parts or parts[0].is_empty:
            return (0.0, 0.0), 0.0
        spot = polylabel(parts[0], 0.002 * size)
        return (spot.x, spot.y), parts[0].exterior.distance(spot)

    smallest = sum(overtake_ring(0.0, size)[:2]) + OVERTAKE_HALO * size
    if covered is not None:
        at, room = widest(geom.difference(covered))
        if room >= smallest:
            return at, room
    return widest(geom)


def overtake_layer(dwg: svgwrite.Drawing, art: TileArt, *, size: float) -> Group | None:
    """The overtakes of a GT piece on the heat map: a ring on each space where cars
    overtook, larger, bolder and darker the more they did (``art.overtakes``: graph node
    -> share of the space with most); None if the piece has none.

    ``<g id="overtakes-4" class="overtakes-layer">`` holds ``<g id="overtakes-4-A1b"
    class="overtakes" data-node="4:A1b">`` (a white halo and the ring) per space. The ring
    sits in the space's widest part clear of its limit, grid slot and arrow, inside its
    lane lines; the layer lies under every piece's marks, so no number is hidden.
    """
    if art.gt is None or not art.overtakes:
        return None
    covered = _marks_on(art, size)
    turn = 60.0 * art.rotation
    cx, cy = art.centre
    transform = f"translate({fmt(cx)},{fmt(cy)})" + (f" rotate({fmt(turn)})" if turn else "")
    layer = dwg.g(id=svg_id("overtakes", art.key), class_="overtakes-layer", transform=transform)
    halo = OVERTAKE_HALO * size
    for _road, sid, _space, node, geom in each_space(art, size):
        share = art.overtakes.get(node) if node is not None else None
        if not share:
            continue
        assert node is not None
        at, room = _ring_spot(geom, covered.get(sid), size)
        r, w, opacity = overtake_ring(share, size)
        r = min(r, max(room - (w + halo) / 2 - 0.002 * size, 0.25 * r))  # inside the lines
        mark = layer.add(
            dwg.g(
                id=svg_id("overtakes", *node.split(":", 1)),
                class_="overtakes",
                opacity=f"{opacity:.2f}",
                data_node=node,
            )
        )
        centre = (fmt(at[0]), fmt(at[1]))
        mark.add(dwg.circle(centre, fmt(r), class_="halo", stroke_width=fmt(w + halo)))
        mark.add(dwg.circle(centre, fmt(r), class_="ring", stroke_width=fmt(w)))
    return layer
