"""Where the tile labels go on a map: clear of every road and of each other.

A tile's label (``12 · 203a``) is drawn upright near a free corner or edge of its hexagon.
Chosen tile by tile, a label kept clear of its own tile's road but could sit on the road
of the tile beside it, or on the label of that tile. :func:`place_labels` chooses every
label of the map at once, for both series: each label takes, among a few candidate spots
on its own tile, the one whose text box stays on its tile and keeps clearest of every
road of the map (with the kerbs, shortcut badges and tokens beside it) and of the labels
placed before it, in driving order.

Examples
--------
>>> from trackkit.models import Stage
>>> from trackkit.render.svg import stage_arts
>>> from trackkit.stage.assemble import lay_out
>>> stage = Stage.model_validate({"format": "trackkit-stage/1",
...     "tiles": [{"tile": "202a"}, {"tile": "217b", "turn": "left"}, {"tile": "203a"}]})
>>> layout = lay_out(stage)
>>> arts = stage_arts(layout)
>>> boxes = label_boxes(arts, layout.size)
>>> roads = map_keep_out(arts, layout.size, margin=0.0)
>>> any(b.intersects(r) for b in boxes.values() for r in roads)
False
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trackkit.render.draw import (
    LABEL_AT,
    LABEL_STEP,
    TileArt,
    fit_size,
    label_lines,
    local_hexagon,
)
from trackkit.render.gt_road import label_keep_out
from trackkit.render.tile import corners, mark_spots
from trackkit.road.geometry import space_polygon, to_world
from trackkit.road.spaces import DrivenRoad

__all__ = [
    "label_box",
    "label_boxes",
    "label_fonts",
    "local_road",
    "map_keep_out",
    "place_labels",
]

Point = tuple[float, float]

#: How far (share of the tile size) a label keeps from a road, a mark or another label.
LABEL_MARGIN = 0.012
#: A label may stand out of its hexagon by this share of its box (GT marks are drawn over
#: every tile; a DIRT tile drawn later would hide the part of a label that stands out).
_OUT_SHARE = 0.05

_ROADS: dict[tuple[str, str, int, float], Any] = {}
_SPOTS: dict[tuple[Any, ...], list[Point]] = {}


def local_road(road: DrivenRoad, size: float) -> Any:
    """Every space of a DIRT road as one shape, in its tile's frame (cached per face and way)."""
    from shapely.ops import unary_union

    key = (road.face.id, road.road_id, road.entry, size)
    if key not in _ROADS:
        _ROADS[key] = unary_union([space_polygon(road, s, size) for s in road.spaces.values()])
    return _ROADS[key]


def label_fonts(art: TileArt, size: float) -> tuple[float, float]:
    """Font sizes of a tile's label and of the smaller line under it (0 when it has none),
    as :func:`trackkit.render.tile.draw_tile` sets them."""
    assert art.label is not None
    fs = fit_size(art.label, 0.5 * size, 0.055 * size)
    sub = fit_size(art.sublabel, 0.5 * size, 0.04 * size) if art.sublabel else 0.0
    return fs, sub


def label_box(at: Point, lines: Sequence[str], font: float, below: float, size: float) -> Any:
    """The page-axis box (shapely) of a label of ``lines`` centred on ``at`` (map mm),
    with a line of type ``below`` under it (0: none), as
    :func:`trackkit.render.draw.draw_label` sets it upright on the page (a bold glyph
    taken as 0.66 of the type size)."""
    from shapely.geometry import box

    w = 0.66 * font * max(len(line) for line in lines) / 2
    h = 0.5 * font + (len(lines) - 1) / 2 * LABEL_STEP * font
    down = 0.06 * size + 0.5 * below if below else 0.0
    x, y = at
    return box(x - w, y - h, x + w, y + h + down)


_KEEP: dict[tuple[Any, ...], Any] = {}


def _road_keep_out(art: TileArt, size: float, grow: float) -> Any:
    """A tile's road (a GT pit: its board) grown by ``grow`` mm, in its frame (cached)."""
    face = art.face
    if art.gt is not None and face is not None and face.layout is not None:
        key: tuple[Any, ...] = ("gt", face.id, size, grow)
    elif art.road is not None:
        key = ("dirt", art.road.face.id, art.road.road_id, art.road.entry, size, grow)
    else:
        return None
    if key not in _KEEP:
        if len(_KEEP) >= 4096:
            _KEEP.clear()
        if key[0] == "gt":
            assert face is not None
            shape = label_keep_out(face, size)
        else:
            assert art.road is not None
            shape = local_road(art.road, size)
        if grow:
            shape = shape.buffer(grow, quad_segs=4).simplify(0.2)
        _KEEP[key] = shape
    return _KEEP[key]


def _keep_out_local(art: TileArt, size: float, grow: float = 0.0) -> list[Any]:
    """What labels keep clear of on one tile (its frame), grown by ``grow`` mm: the road
    (a GT pit: its board) and the marks beside it (kerbs, shortcut badges, tokens)."""
    from shapely.geometry import Point as ShapelyPoint

    shapes: list[Any] = []
    road = _road_keep_out(art, size, grow)
    if road is not None and not road.is_empty:
        shapes.append(road)
    spots = mark_spots(art, size, kerbs=True)
    shapes += [ShapelyPoint(at).buffer(r + grow, quad_segs=4) for at, r in spots]
    return shapes


def _placed(shape: Any, art: TileArt) -> Any:
    from shapely import affinity

    a = math.radians(60 * art.rotation)
    c, s = math.cos(a), math.sin(a)
    return affinity.affine_transform(shape, [c, -s, s, c, *art.centre])


def map_keep_out(
    arts: Sequence[TileArt], size: float, *, margin: float = LABEL_MARGIN
) -> list[Any]:
    """What labels keep clear of on the whole map (map mm), grown by ``margin`` of the
    tile size: every road and the marks beside it."""
    return [
        _placed(shape, art) for art in arts for shape in _keep_out_local(art, size, margin * size)
    ]


def _candidates(art: TileArt, size: float) -> list[Point]:
    """Spots a tile's label may take (its frame): near each hex corner (the freest
    first), near each edge's middle, and in the widest stretches off its road."""
    from shapely.geometry import Polygon
    from shapely.ops import polylabel, unary_union

    face = art.face
    key = (
        face.id if face is not None else None,
        art.road.entry if art.road is not None else None,
        art.road.road_id if art.road is not None else None,
        art.gt is not None,
        len(art.tokens),
        size,
    )
    hit = _SPOTS.get(key)
    if hit is not None:
        return hit
    spots = [(LABEL_AT * x, LABEL_AT * y) for x, y in corners(art, size)]
    a = size / 2.0
    spots += [
        (0.82 * a * math.cos(math.radians(60 * k)), 0.82 * a * math.sin(math.radians(60 * k)))
        for k in range(6)
    ]
    # and a ring of spots halfway out, towards each corner and each edge
    r = size / math.sqrt(3.0)
    for k in range(12):
        reach = (0.5 * r) if k % 2 == 0 else (0.5 * a)
        angle = math.radians(30 * k + 30)
        spots.append((reach * math.cos(angle), reach * math.sin(angle)))
    keep = _keep_out_local(art, size)
    free = Polygon(local_hexagon(size)).buffer(-0.03 * size)
    if keep:
        free = free.difference(unary_union(keep).buffer(0.01 * size))
    parts = sorted(getattr(free, "geoms", [free]), key=lambda g: -g.area)[:3]
    spots += [(c.x, c.y) for c in (polylabel(g, 0.5) for g in parts if not g.is_empty)]
    if len(_SPOTS) >= 4096:
        _SPOTS.clear()
    _SPOTS[key] = spots
    return spots


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _gap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    dx = max(a[0] - b[2], b[0] - a[2], 0.0)
    dy = max(a[1] - b[3], b[1] - a[3], 0.0)
    return math.hypot(dx, dy)


#: How a label may be set, in order, when no spot is clear the way before: its type size
#: (a share of its own) and whether on two lines (numbers over the face id).
_WAYS = ((1.0, False), (1.0, True), (0.85, False), (0.85, True), (0.7, False), (0.7, True))


def _free_spots(hexagon: Any, keep: Sequence[Any], size: float) -> list[Point]:
    """The middles (poles of inaccessibility) of the widest parts of a tile's hexagon
    left free by every road and mark of the map near it (map mm)."""
    from shapely.ops import polylabel, unary_union

    free = hexagon.buffer(-0.02 * size)
    if keep:
        free = free.difference(unary_union(list(keep)))
    parts = sorted(getattr(free, "geoms", [free]), key=lambda g: -g.area)[:3]
    return [(c.x, c.y) for c in (polylabel(g, 0.5) for g in parts if not g.is_empty)]


def _to_local(at: Point, art: TileArt) -> Point:
    a = math.radians(-60 * art.rotation)
    x, y = at[0] - art.centre[0], at[1] - art.centre[1]
    return (math.cos(a) * x - math.sin(a) * y, math.sin(a) * x + math.cos(a) * y)


@dataclass(frozen=True, slots=True)
class _Scene:
    """What a label spot is weighed against: the map's keep-out shapes (in an R-tree),
    the labels placed so far (boxes), the margin kept and the clearance that counts."""

    keep: Sequence[Any]
    tree: Any
    placed: list[tuple[float, float, float, float]]
    margin: float
    cap: float
    size: float


def _score(
    at: Point,
    lines: list[str],
    fs: float,
    sub: float,
    step: int,
    rank: int,
    hexagon: Any,
    env: _Scene,
) -> tuple[Any, ...]:
    """How good a spot is (smaller is better; see :func:`place_labels`), and what to keep:
    ``(out of the tile, overlap %, way, -clearance, rank, at, type size, grown box,
    two lines)``."""
    poly = label_box(at, lines, fs, sub, env.size)
    area = poly.area
    out = poly.difference(hexagon).area if not hexagon.contains(poly) else 0.0
    keep = env.keep
    near = env.tree.query(poly, predicate="dwithin", distance=env.cap).tolist()
    over = sum(poly.intersection(keep[i]).area for i in near if poly.intersects(keep[i]))
    clear = min((poly.distance(keep[i]) for i in near), default=env.cap)
    b, m = poly.bounds, env.margin
    grown = (b[0] - m, b[1] - m, b[2] + m, b[3] + m)
    crowd = sum(_overlap(grown, other) for other in env.placed)
    clear = min([clear, env.cap, *(_gap(grown, other) for other in env.placed)])
    return (
        out > _OUT_SHARE * area,
        round((over + 3.0 * crowd) / (0.01 * area)),
        step,
        -round(clear, 1),
        rank,
        at,
        fs,
        grown,
        len(lines) > 1,
    )


def place_labels(arts: Sequence[TileArt], size: float) -> None:
    """Choose the spot and the setting of every tile label on the map: sets each art's
    ``label_at``, ``label_size`` and ``label_stack``.

    Labels are placed in the order of ``arts`` (driving order first). Each takes, among
    its candidate spots (near the hex corners and edges, halfway out, and the middles of
    the widest parts of its tile that the map's roads leave free) and settings (one line
    at its own size, else two lines, else smaller type: :data:`_WAYS`), the first by: its
    box stays on its tile (all but a few %); it overlaps no road, mark or label already
    placed (the least of them otherwise); the earlier setting; it keeps clearest of them
    (up to a twentieth of the tile size); the tile's own order of spots (the freest hex
    corner first). The label of a tile without a road stays in the middle of its hexagon,
    where the drawing puts it.
    """
    from shapely import STRtree
    from shapely.geometry import Polygon

    keep = map_keep_out(arts, size)
    tree = STRtree(keep)
    margin = LABEL_MARGIN * size
    placed: list[tuple[float, float, float, float]] = []
    movable: list[TileArt] = []
    for art in arts:
        if not art.label:
            continue
        if art.gt is None and art.road is None:
            # the middle of a tile without a road (scenery, an unknown tile): fixed
            fs, sub = label_fonts(art, size)
            w = 0.66 * max(fs * len(art.label), sub * len(art.sublabel or "")) / 2
            x, y = art.centre
            h = 0.7 * (fs + sub)
            placed.append((x - w - margin, y - h - margin, x + w + margin, y + h + margin))
        else:
            movable.append(art)
    env = _Scene(keep, tree, placed, margin, 0.05 * size, size)
    cap = env.cap
    for art in movable:
        assert art.label is not None
        label = art.label
        fs0, sub = label_fonts(art, size)
        hexagon = Polygon([(art.centre[0] + x, art.centre[1] + y) for x, y in local_hexagon(size)])
        spots = [
            to_world(p, centre=art.centre, rotation=art.rotation) for p in _candidates(art, size)
        ]
        ways = [
            (step, fs0 * scale, label.split(" · ", 1) if stacked else [label], stacked)
            for step, (scale, stacked) in enumerate(_WAYS)
            if not stacked or " · " in label
        ]

        best: tuple[Any, ...] | None = None
        free_added = False
        for step, fs, lines, _stacked in ways:
            rank = 0
            while rank < len(spots):
                got = _score(spots[rank], lines, fs, sub, step, rank, hexagon, env)
                if best is None or got[:5] < best[:5]:
                    best = got
                if not got[0] and not got[1] and -got[3] >= round(cap, 1):
                    break  # clear by the most that counts: no later spot can do better
                rank += 1
                if rank == len(spots) and not free_added:
                    # none clear so far: the middles of what the map's roads leave free
                    near_hex = [keep[i] for i in tree.query(hexagon).tolist()]
                    spots += _free_spots(hexagon, near_hex, size)
                    free_added = True
            assert best is not None
            if not best[0] and not best[1]:
                break  # a clear spot this way: no need for smaller type or two lines
        assert best is not None
        art.label_at = _to_local(best[5], art)
        art.label_size = best[6]
        art.label_stack = best[8]
        placed.append(best[7])


def label_boxes(arts: Sequence[TileArt], size: float) -> dict[str, Any]:
    """The page-axis box (map mm) of each drawn tile label, by tile key: where
    :func:`place_labels` put it (the middle of a tile without a road)."""
    out = {}
    for art in arts:
        if not art.label:
            continue
        fs, sub = label_fonts(art, size)
        fs = art.label_size or fs
        if art.label_at is not None:
            at = to_world(art.label_at, centre=art.centre, rotation=art.rotation)
            out[art.key] = label_box(at, label_lines(art), fs, sub, size)
        elif art.gt is None and art.road is None:
            out[art.key] = label_box(art.centre, [art.label], fs, 0.0, size)
    return out
