"""Road centre lines and space polygons, in millimetres.

A few shape builders (straight, bend, hairpin, kink, double hairpin, chicane) draw a
DIRT road's centre line between its two edges as cubic Bézier pieces in the tile's *local*
frame (pointy-top, y downwards, local edge ``k`` facing ``60 * k`` degrees clockwise from
east, centre at the origin). Spaces are bands of that line: from back-edge to front-edge
fraction along it, and from one lateral offset to another. Placing a tile turns the local
frame by ``60 * dir`` degrees and moves it to the hex centre.

A Rallyman: GT road (:class:`GtShape`) is drawn from what was read off its picture: the
centre line through the stored pixel points (a smooth curve, meeting each tile edge square
or, at a skew edge, at 60°), the road as wide as its lanes, and each space between its
cross lines, each line where the data puts it in every lane it crosses (its progress
``at``), so the lines of a corner run where they are printed. The space at a tile edge
ends at the edge: a skew edge cuts it there, and the neighbour's part meets it. The
graph measures progress with the same numbers, so map and graph agree.

Examples
--------
>>> from trackkit.tiles.library import default_library
>>> from trackkit.road.spaces import drive
>>> road = drive(default_library().get("205a"), entry=0)
>>> line = centre_line(road, size=240.0)
>>> round(line.length, 1)  # a straight crosses the hex from flat side to flat side
240.0
"""

from __future__ import annotations

import itertools
import math
from bisect import bisect_left
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trackkit.models.lanes import LaneRoad
from trackkit.models.tile import RoadShape
from trackkit.road.lanes import cut_road
from trackkit.road.spaces import DrivenRoad, LocalSpace

if TYPE_CHECKING:  # shapely (and numpy) load only when polygons are drawn
    from shapely.geometry import Polygon

__all__ = [
    "DEFAULT_TILE_SIZE_MM",
    "GT_PICTURE_PX",
    "GT_ROAD_PX",
    "ROAD_WIDTH_RATIO",
    "CentreLine",
    "GtShape",
    "centre_line",
    "gt_shape",
    "local_axial",
    "local_point",
    "local_polygon",
    "picture_point",
    "road_turn",
    "space_polygon",
    "to_world",
]

#: Default tile size: distance between two opposite flat edges of a tile, in millimetres.
DEFAULT_TILE_SIZE_MM = 240.0
#: Road width as a share of the tile size.
ROAD_WIDTH_RATIO = 0.26

Point = tuple[float, float]


def _unit(angle_deg: float) -> Point:
    a = math.radians(angle_deg)
    return (math.cos(a), math.sin(a))


def _add(p: Point, v: Point, k: float = 1.0) -> Point:
    return (p[0] + k * v[0], p[1] + k * v[1])


def _bezier(p0: Point, p1: Point, p2: Point, p3: Point, n: int) -> list[Point]:
    pts = []
    for i in range(n + 1):
        t = i / n
        u = 1 - t
        pts.append(
            (
                u**3 * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t**3 * p3[0],
                u**3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t**3 * p3[1],
            )
        )
    return pts


@dataclass(frozen=True, slots=True)
class CentreLine:
    """A sampled centre line with cumulative arc length."""

    points: tuple[Point, ...]
    cumulative: tuple[float, ...]

    @property
    def length(self) -> float:
        """Length in millimetres."""
        return self.cumulative[-1]

    def at(self, fraction: float, lateral: float = 0.0) -> Point:
        """Point at a fraction of the length, offset to the left by ``lateral`` mm."""
        s = min(max(fraction, 0.0), 1.0) * self.length
        i = max(1, min(bisect_left(self.cumulative, s), len(self.points) - 1))
        s0, s1 = self.cumulative[i - 1], self.cumulative[i]
        t = 0.0 if s1 == s0 else (s - s0) / (s1 - s0)
        (x0, y0), (x1, y1) = self.points[i - 1], self.points[i]
        dx, dy = x1 - x0, y1 - y0
        norm = math.hypot(dx, dy) or 1.0
        # Left of the heading on a y-down drawing is (dy, -dx).
        return (x0 + t * dx + lateral * dy / norm, y0 + t * dy - lateral * dx / norm)

    def heading(self, fraction: float) -> float:
        """Direction of travel at a fraction of the length: degrees clockwise from east."""
        eps = 0.004
        (x0, y0), (x1, y1) = self.at(max(0.0, fraction - eps)), self.at(min(1.0, fraction + eps))
        return math.degrees(math.atan2(y1 - y0, x1 - x0)) % 360.0

    def reversed(self) -> CentreLine:
        """The same line run the other way."""
        return _polyline(self.points[::-1])

    def beyond(self, fraction: float, lateral: float = 0.0) -> Point:
        """Like :meth:`at`, but a fraction below 0 or above 1 runs on straight past the
        end, along the heading there (a space cut by a skew edge reaches over it)."""
        if 0.0 <= fraction <= 1.0:
            return self.at(fraction, lateral)
        start = fraction < 0.0
        (x0, y0), (x1, y1) = self.points[:2] if start else self.points[-2:]
        norm = math.hypot(x1 - x0, y1 - y0) or 1.0
        ux, uy = (x1 - x0) / norm, (y1 - y0) / norm  # the direction of travel there
        bx, by = (x0, y0) if start else (x1, y1)
        past = (fraction if start else fraction - 1.0) * self.length
        return (bx + past * ux + lateral * uy, by + past * uy - lateral * ux)


def _polyline(points: tuple[Point, ...] | list[Point]) -> CentreLine:
    """A :class:`CentreLine` through ``points``."""
    cumulative = [0.0]
    for p, q in itertools.pairwise(points):
        cumulative.append(cumulative[-1] + math.dist(p, q))
    return CentreLine(tuple(points), tuple(cumulative))


def road_turn(entry: int, exit_: int) -> str | None:
    """Which way a road bends between two edges, seen driving: left, right or None."""
    delta = ((60 * exit_) - (60 * entry + 180)) % 360
    if delta == 0:
        return None
    return "right" if delta < 180 else "left"


_LINE_CACHE: dict[tuple[str, str, int, float], CentreLine] = {}


def centre_line(road: DrivenRoad, size: float = DEFAULT_TILE_SIZE_MM) -> CentreLine:
    """The centre line of a driven road in the tile's local frame, in driving order.

    A GT road's is that of its :class:`GtShape`, turned round when driven ``to -> from``.
    """
    key = (road.face.id, road.road_id, road.entry, size)
    hit = _LINE_CACHE.get(key)
    if hit is None:
        if road.sections is None:
            hit = gt_shape(road.cut.road, size).line
            if road.reversed:
                hit = hit.reversed()
        else:
            hit = _build(road, size)
        _LINE_CACHE[key] = hit
    return hit


def _build(road: DrivenRoad, size: float) -> CentreLine:
    a = size / 2.0  # apothem
    radius = size / math.sqrt(3.0)
    m_in = _add((0.0, 0.0), _unit(60 * road.entry), a)
    m_out = _add((0.0, 0.0), _unit(60 * road.exit), a)
    h_in = 60 * road.entry + 180.0
    h_out = 60 * road.exit
    u = _unit(h_in)
    left = (u[1], -u[0])
    shape = road.road.shape
    # Waypoints: (point, heading in degrees, handle length).
    way: list[tuple[Point, float, float]]
    chord = math.dist(m_in, m_out)
    if shape is RoadShape.BEND:
        handle = 4 / 3 * math.tan(math.radians(15)) * 1.5 * radius
        way = [(m_in, h_in, handle), (m_out, h_out, handle)]
    elif shape is RoadShape.HAIRPIN:
        vertex = 60 * road.entry + (30 if (road.exit - road.entry) % 6 == 1 else -30)
        apex = _add((0.0, 0.0), _unit(vertex), -0.42 * radius)
        across = math.degrees(math.atan2(m_out[1] - m_in[1], m_out[0] - m_in[0]))
        way = [(m_in, h_in, 0.45 * a), (apex, across, 0.45 * a), (m_out, h_out, 0.45 * a)]
    elif shape is RoadShape.KINK:
        turns = road.corner_turns
        bulge = -1.0 if (turns[0] if turns else "left") == "left" else 1.0
        mid = _add((0.0, 0.0), left, bulge * 0.3 * a)
        way = [(m_in, h_in, chord / 4), (mid, h_in, chord / 4), (m_out, h_out, chord / 4)]
    elif shape is RoadShape.DOUBLE_HAIRPIN:
        turns = road.corner_turns
        s = 1.0 if (turns[0] if turns else "right") == "right" else -1.0
        side = math.degrees(math.atan2(s * left[1], s * left[0]))
        p1 = _add(_add((0.0, 0.0), u, -0.45 * a), left, 0.45 * a * s)
        p2 = (0.0, 0.0)
        p3 = _add(_add((0.0, 0.0), u, 0.45 * a), left, -0.45 * a * s)
        way = [
            (m_in, h_in, 0.3 * a),
            (p1, side, 0.4 * a),
            (p2, side + 180, 0.4 * a),
            (p3, side, 0.4 * a),
            (m_out, h_out, 0.3 * a),
        ]
    elif shape is RoadShape.CHICANE:
        p1 = _add(_add((0.0, 0.0), u, -0.25 * a), left, 0.1 * a)
        p2 = _add(_add((0.0, 0.0), u, 0.25 * a), left, -0.1 * a)
        way = [
            (m_in, h_in, 0.2 * a),
            (p1, h_in, 0.2 * a),
            (p2, h_in, 0.2 * a),
            (m_out, h_out, 0.2 * a),
        ]
    else:  # straight (and anything without a bend)
        way = [(m_in, h_in, chord / 3), (m_out, h_out, chord / 3)]

    points: list[Point] = [way[0][0]]
    for (p0, h0, k0), (p3, h3, k3) in itertools.pairwise(way):
        p1 = _add(p0, _unit(h0), k0)
        p2 = _add(p3, _unit(h3), -k3)
        points += _bezier(p0, p1, p2, p3, 24)[1:]
    cumulative = [0.0]
    for p, q in itertools.pairwise(points):
        cumulative.append(cumulative[-1] + math.dist(p, q))
    return CentreLine(tuple(points), tuple(cumulative))


def space_polygon(
    road: DrivenRoad, space: LocalSpace, size: float = DEFAULT_TILE_SIZE_MM
) -> Polygon:
    """The outline of one space in the tile's local frame (millimetres).

    A GT space is the one its face's road has, whichever way it is driven
    (:attr:`GtShape.polygons`).
    """
    from shapely.geometry import Polygon

    if road.sections is None:
        return gt_shape(road.cut.road, size).polygons.get(space.id) or Polygon()
    line = centre_line(road, size)
    half = ROAD_WIDTH_RATIO * size / 2.0
    lat0, lat1 = space.lat[0] * half, space.lat[1] * half
    n = max(2, math.ceil((space.f1 - space.f0) * 24))
    fs = [space.f0 + (space.f1 - space.f0) * i / n for i in range(n + 1)]
    if space.kind == "shortcut":
        # The island inside the bend: the road's inner edge closed by a straight line.
        edge = half if space.lat[0] > 0 else -half
        n = max(8, math.ceil((space.f1 - space.f0) * 48))
        fs = [space.f0 + (space.f1 - space.f0) * i / n for i in range(n + 1)]
        ring = [line.at(f, edge) for f in fs]
    else:
        ring = [line.at(f, lat0) for f in fs] + [line.at(f, lat1) for f in reversed(fs)]
    poly = Polygon(ring)
    if not poly.is_valid:
        poly = poly.buffer(0)
    # Sampling a curve can overhang the tile edge by a hair: spaces end at the edge.
    clipped = poly.intersection(_local_hexagon(size))
    if isinstance(clipped, Polygon):
        return clipped
    parts = [g for g in getattr(clipped, "geoms", []) if isinstance(g, Polygon)]
    return max(parts, key=lambda g: g.area) if parts else Polygon()


def _local_hexagon(size: float) -> Polygon:
    from shapely.geometry import Polygon

    radius = size / math.sqrt(3.0)
    return Polygon([_add((0.0, 0.0), _unit(30 + 60 * k), radius) for k in range(6)])


def local_point(at: tuple[float, float], size: float = DEFAULT_TILE_SIZE_MM) -> Point:
    """A place on a tile given as axial offsets ``[q, r]`` in tile widths, in millimetres.

    Both in the tile's local frame (a token's ``at``: the Rekee editor's convention).

    >>> local_point((0.5, 0.0), 240.0), local_point((0.0, 1.0), 2.0)
    ((120.0, 0.0), (1.0, 1.7320508075688772))
    """
    q, r = at
    return (size * (q + r / 2.0), size * (math.sqrt(3.0) / 2.0) * r)


def local_axial(point: Point, size: float = DEFAULT_TILE_SIZE_MM) -> tuple[float, float]:
    """Inverse of :func:`local_point`.

    >>> local_axial(local_point((0.25, -0.5), 240.0), 240.0)
    (0.25, -0.5)
    """
    x, y = point
    r = y / (size * math.sqrt(3.0) / 2.0)
    return (x / size - r / 2.0, r)


def to_world(point: Point, *, centre: Point, rotation: int) -> Point:
    """A local point of a tile placed at ``centre`` turned by ``rotation`` (60° steps)."""
    c, s = math.cos(math.radians(60 * rotation)), math.sin(math.radians(60 * rotation))
    x, y = point
    return (centre[0] + c * x - s * y, centre[1] + s * x + c * y)


def local_polygon(polygon: Polygon, *, centre: Point, rotation: int) -> Polygon:
    """A tile's local polygon placed at ``centre`` turned by ``rotation`` (world mm);
    with a negative ``rotation`` and ``centre`` of the inverse, back into a local frame."""
    from shapely import affinity

    a = math.radians(60 * rotation)
    c, s = math.cos(a), math.sin(a)
    moved: Polygon = affinity.affine_transform(polygon, [c, -s, s, c, centre[0], centre[1]])
    return moved


# --- Rallyman: GT roads --------------------------------------------------------------------

#: Flat-to-flat size of the stored GT pictures in pixels (520 x 450, centre 260, 225).
GT_PICTURE_PX = 450.0
#: Road width in picture pixels by lane count, read from the pictures: 62 px a lane on
#: 2-lane roads, 56 on 3-lane ones, 50 on 4-lane ones; the one-lane hairpin of 151a, 60.
GT_ROAD_PX = {1: 60.0, 2: 124.0, 3: 168.0, 4: 200.0}
#: How far past a tile edge (share of the road's length) a road end runs before the
#: tile's hexagon cuts it: past a skew edge's farthest lane (0.09 on 121a), and more.
_END_REACH = 0.3


def picture_point(point: tuple[float, float], size: float = DEFAULT_TILE_SIZE_MM) -> Point:
    """A point of a stored GT picture (pixels) in the tile's local frame (mm).

    The picture is flat-topped with edge 0 at the top; the local frame has edge 0 east.

    >>> picture_point((260, 0), 240.0), picture_point((455, 112.5), 450.0)
    ((120.0, 0.0), (112.5, 195.0))
    """
    k = size / GT_PICTURE_PX
    x, y = point
    return (-(y - 225.0) * k, (x - 260.0) * k)


def _edge_heading(edge: int, chord: Point, *, outward: bool) -> Point:
    """The unit heading of a road where it meets tile ``edge``: square to the edge, or at
    60° to it (a skew edge), whichever is nearest the road's first or last ``chord``."""
    base = 60.0 * edge + (0.0 if outward else 180.0)
    cx, cy = chord
    norm = math.hypot(cx, cy) or 1.0
    best = max(
        (base + turn for turn in (0.0, 30.0, -30.0)),
        key=lambda h: (math.cos(math.radians(h)) * cx + math.sin(math.radians(h)) * cy) / norm,
    )
    return _unit(best)


def _gt_line(road: LaneRoad, size: float) -> CentreLine:
    """The centre line of a GT road (``from -> to``) through its stored points: cubic
    pieces whose handles follow the bisector of the points' chords, and the road's heading
    at each end edge (square, or 60° at a skew edge)."""
    raw = road.centre or [_GT_EDGE_PX[road.from_edge], _GT_EDGE_PX[road.to_edge]]
    pts: list[Point] = []
    for p in raw:
        q = picture_point(p, size)
        if not pts or math.dist(pts[-1], q) > 1e-6:
            pts.append(q)
    if len(pts) < 2:
        return _polyline(pts * 2)
    first = (pts[1][0] - pts[0][0], pts[1][1] - pts[0][1])
    last = (pts[-1][0] - pts[-2][0], pts[-1][1] - pts[-2][1])
    tangents = [_edge_heading(road.from_edge, first, outward=False)]
    for a, b, c in zip(pts, pts[1:], pts[2:], strict=False):
        u, v = (b[0] - a[0], b[1] - a[1]), (c[0] - b[0], c[1] - b[1])
        nu, nv = math.hypot(*u) or 1.0, math.hypot(*v) or 1.0
        t = (u[0] / nu + v[0] / nv, u[1] / nu + v[1] / nv)
        nt = math.hypot(*t) or 1.0
        tangents.append((t[0] / nt, t[1] / nt))
    tangents.append(_edge_heading(road.to_edge, last, outward=True))
    points: list[Point] = [pts[0]]
    for (p0, t0), (p3, t3) in itertools.pairwise(zip(pts, tangents, strict=True)):
        k = math.dist(p0, p3) / 3.0
        n = max(4, math.ceil(math.dist(p0, p3) / (0.01 * size)))
        points += _bezier(p0, _add(p0, t0, k), _add(p3, t3, -k), p3, n)[1:]
    if len(pts) > 2:
        points = _smoothed(_polyline(points), 0.03 * size)
    return _polyline(points)


def _smoothed(line: CentreLine, sigma: float) -> list[Point]:
    """``line`` resampled every ``sigma / 6`` and smoothed by a Gaussian of ``sigma`` along
    it, the smoothing fading out toward the ends (which stay where they are, with their
    headings). A line read by hand off a picture wobbles by a few pixels; the road's edges,
    far from it, would wobble more."""
    length = line.length
    n = max(8, math.ceil(6 * length / sigma))
    samples = [line.at(i / n) for i in range(n + 1)]
    ds = length / n
    out = [samples[0]]
    for i in range(1, n):
        reach = min(i, n - i) * ds
        s = min(sigma, reach / 3.0)
        if s < ds:
            out.append(samples[i])
            continue
        k = min(int(3 * s / ds), i, n - i)
        weights = [math.exp(-0.5 * (j * ds / s) ** 2) for j in range(-k, k + 1)]
        total = sum(weights)
        x = sum(w * samples[i + j][0] for w, j in zip(weights, range(-k, k + 1), strict=True))
        y = sum(w * samples[i + j][1] for w, j in zip(weights, range(-k, k + 1), strict=True))
        out.append((x / total, y / total))
    out.append(samples[-1])
    return out


#: Edge midpoints of the stored GT pictures (px): a road with no stored line (under a
#: bridge) runs straight between them.
_GT_EDGE_PX = {
    0: (260.0, 0.0),
    1: (455.0, 112.5),
    2: (455.0, 337.5),
    3: (260.0, 450.0),
    4: (65.0, 337.5),
    5: (65.0, 112.5),
}


class GtShape:
    """A GT road's shape in a tile's local frame (mm): its centre line ``from -> to``, its
    width (as wide as its lanes there), its cross lines and its spaces' outlines.

    Places on the road are given by progress ``p`` along the centre line (0 at the
    ``from`` edge, 1 at the ``to`` edge, as the tile data's ``at``) and a lateral ``u``
    across it: +1 the road's left edge driving ``from -> to``, -1 its right edge, each
    lane a band of ``2 / lanes`` (lane 1 leftmost).

    Examples
    --------
    >>> from trackkit.tiles.library import default_library
    >>> road = default_library().get("103a").layout.roads[0]
    >>> shape = gt_shape(road, 450.0)
    >>> round(shape.line.length), shape.half(0.5), shape.lanes_at(0.5)
    (450, 84.0, 3)
    >>> sorted(round(shape.polygons[s].area) for s in ("A1a", "A2a", "A3a"))
    [12600, 12600, 12600]
    """

    def __init__(self, road: LaneRoad, size: float) -> None:
        self.road = road
        self.size = size
        self.line = _gt_line(road, size)
        self._k = size / GT_PICTURE_PX
        cut = cut_road(road)
        self.cut = cut
        order = cut.order
        self._last = len(order) - 1
        # lane -> (first line index, last line index) of its stretch of road
        stretch: dict[int, tuple[int, int]] = {}
        for sp in cut.spaces.values():
            if sp.layer != "lane":
                continue
            for lane in sp.lanes:
                lo, hi = stretch.get(lane, (sp.back, sp.front))
                stretch[lane] = (min(lo, sp.back), max(hi, sp.front))
        self._stretch = stretch
        self.widths = {
            sid: max(
                1, sum(1 for lo, hi in stretch.values() if max(lo, sp.back) < min(hi, sp.front))
            )
            for sid, sp in cut.spaces.items()
        }
        # each line's progress, lane by lane, as (u of the lane's middle, at)
        profile: dict[int, dict[int, tuple[float, float]]] = {}
        for sid, sp in cut.spaces.items():
            n = self.widths[sid]
            for j, lane in enumerate(sp.lanes):
                u = 1.0 - (2.0 * lane - 1.0) / n
                profile.setdefault(sp.back, {}).setdefault(lane, (u, sp.back_at[j]))
                profile.setdefault(sp.front, {}).setdefault(lane, (u, sp.front_at[j]))
        self._profile = {i: sorted(v.values()) for i, v in profile.items()}
        self._index = {name: i for i, name in enumerate(order)}
        # the road's width along it: as wide as its lanes between each two lines; where
        # the lane count changes, the narrower side flares out to the line over its
        # stretch up to the next line across all its lanes (119a: l1..l2, 120b: l1..l3)
        crossing = {i: set(v) for i, v in profile.items()}
        self._places = [self._mean(i) for i in range(len(order))]
        covering = [
            {k for k, (lo, hi) in stretch.items() if lo <= i < hi} for i in range(self._last)
        ]
        self._counts = [len(c) or 1 for c in covering]
        self._flares: list[tuple[float, float, float, float]] = []
        for j in range(1, self._last):
            wide, narrow = self._counts[j - 1], self._counts[j]
            if wide == narrow:
                continue
            after = narrow < wide
            side = covering[j] if after else covering[j - 1]
            far = range(j + 1, self._last + 1) if after else range(j - 1, -1, -1)
            f = next((i for i in far if side <= crossing.get(i, set())), far[-1])
            if not after:
                wide, narrow = narrow, wide
            p_lo, p_hi = sorted((self._places[j], self._places[f]))
            h_wide, h_narrow = self._half_px(wide), self._half_px(narrow)
            ends = (h_wide, h_narrow) if after else (h_narrow, h_wide)
            self._flares.append((p_lo, p_hi, *ends))
        self.polygons = self._outlines()

    def _half_px(self, lanes: int) -> float:
        return GT_ROAD_PX.get(lanes, 50.0 * lanes) / 2.0 * self._k

    def _mean(self, index: int) -> float:
        """The progress of line ``index`` (its mean over the lanes it crosses)."""
        if index == 0:
            return 0.0
        if index == self._last:
            return 1.0
        values = [at for _u, at in self._profile.get(index, [])]
        return sum(values) / len(values) if values else 0.5

    def progress(self, line: str) -> float:
        """Where cross line ``line`` lies along the road: its mean over its lanes."""
        return self._mean(self._index[line])

    def _interval(self, p: float) -> int:
        """The stretch between two lines that progress ``p`` lies in."""
        k = bisect_left(self._places, p) - 1
        return min(max(k, 0), self._last - 1)

    def half(self, p: float) -> float:
        """Half the road's width at progress ``p`` (mm)."""
        for lo, hi, a, b in self._flares:
            if lo <= p <= hi and hi > lo:
                return a + (b - a) * (p - lo) / (hi - lo)
        return self._half_px(self._counts[self._interval(p)])

    def lanes_at(self, p: float) -> int:
        """How many lanes the road has at progress ``p``."""
        return self._counts[self._interval(p)]

    def point(self, p: float, u: float) -> Point:
        """The place at progress ``p`` and lateral ``u`` (mm, local frame)."""
        return self.line.beyond(p, u * self.half(p))

    def at(self, line: str | int, u: float) -> float:
        """Where cross line ``line`` (a name or an index of the road's line order) lies
        at lateral ``u``: its progress, between (and past) the lanes' readings."""
        index = self._index[line] if isinstance(line, str) else line
        points = self._profile.get(index)
        if not points:
            return 0.0 if index == 0 else 1.0
        if len(points) == 1:
            return points[0][1]
        k = 1
        while k < len(points) - 1 and u > points[k][0]:
            k += 1
        (u0, a0), (u1, a1) = points[k - 1], points[k]
        return a0 + (a1 - a0) * (u - u0) / ((u1 - u0) or 1.0)

    def band(self, lanes: tuple[int, ...], sid: str | None = None) -> tuple[float, float]:
        """The lateral band ``(u right, u left)`` of ``lanes`` (of space ``sid``)."""
        n = self.widths.get(sid, 0) if sid is not None else 0
        if not n:
            n = len(self._stretch) or 1
        return (1.0 - 2.0 * max(lanes) / n, 1.0 - 2.0 * (min(lanes) - 1) / n)

    def across(self, line: str, lanes: tuple[int, ...] | None = None) -> list[Point]:
        """Cross line ``line`` drawn across ``lanes`` (default: the whole road), left to
        right seen ``from -> to``."""
        index = self._index[line]
        at = self._mean(index)
        n = self.lanes_at(min(max(at, 0.0), 1.0))
        lo, hi = (
            (-1.0, 1.0)
            if lanes is None
            else (1.0 - 2.0 * max(lanes) / n, 1.0 - 2.0 * (min(lanes) - 1) / n)
        )
        steps = max(2, math.ceil((hi - lo) * 4))
        us = [hi - (hi - lo) * i / steps for i in range(steps + 1)]
        return [self.point(self.at(index, u), u) for u in us]

    def _edge(self, index: int, u: float) -> float:
        """Progress of a space's back or front line at ``u``; a road end runs on past its
        tile edge, for the hexagon to cut it there (square or skew)."""
        if index == 0:
            return -_END_REACH
        if index == self._last:
            return 1.0 + _END_REACH
        return self.at(index, u)

    def _side(self, back: int, front: int, u: float) -> list[Point]:
        """A space's side at lateral ``u``, from its back line to its front line."""
        p0, p1 = self._edge(back, u), self._edge(front, u)
        n = max(2, math.ceil(abs(p1 - p0) * 60))
        return [self.point(p0 + (p1 - p0) * i / n, u) for i in range(n + 1)]

    def _cross(self, index: int, u0: float, u1: float) -> list[Point]:
        """The inner points of line ``index`` from lateral ``u0`` to ``u1``."""
        n = max(2, math.ceil(abs(u1 - u0) * 6))
        us = [u0 + (u1 - u0) * i / n for i in range(1, n)]
        return [self.point(self._edge(index, u), u) for u in us]

    def _outlines(self) -> dict[str, Polygon]:
        """Every space's outline, cut by the tile's hexagon."""
        from shapely.geometry import Polygon

        hexagon = _local_hexagon(self.size)
        out: dict[str, Polygon] = {}
        for sid, sp in self.cut.spaces.items():
            if sp.layer != "lane":
                continue
            right, left = self.band(sp.lanes, sid)
            ring = (
                self._side(sp.back, sp.front, left)
                + self._cross(sp.front, left, right)
                + self._side(sp.back, sp.front, right)[::-1]
                + self._cross(sp.back, right, left)
            )
            poly = Polygon(ring)
            if not poly.is_valid:
                poly = poly.buffer(0)
            clipped = poly.intersection(hexagon)
            if not isinstance(clipped, Polygon):
                parts = [g for g in getattr(clipped, "geoms", []) if isinstance(g, Polygon)]
                clipped = max(parts, key=lambda g: g.area) if parts else Polygon()
            out[sid] = clipped
        return out


_SHAPES: dict[tuple[int, float], tuple[LaneRoad, GtShape]] = {}


def gt_shape(road: LaneRoad, size: float = DEFAULT_TILE_SIZE_MM) -> GtShape:
    """The :class:`GtShape` of a GT face's road at tile size ``size`` (cached)."""
    key = (id(road), size)
    hit = _SHAPES.get(key)
    if hit is not None and hit[0] is road:
        return hit[1]
    shape = GtShape(road, size)
    if len(_SHAPES) >= 4096:
        _SHAPES.clear()
    _SHAPES[key] = (road, shape)
    return shape
