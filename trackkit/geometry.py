"""Road centre lines and space polygons, in millimetres.

A few shape builders (straight, bend, hairpin, kink, double hairpin, chicane) draw a
road's centre line between its two edges as cubic Bézier pieces in the tile's *local*
frame (pointy-top, y downwards, local edge ``k`` facing ``60 * k`` degrees clockwise from
east, centre at the origin). Spaces are bands of that line: from back-edge to front-edge
fraction along it, and from one lateral offset to another. Placing a tile turns the local
frame by ``60 * dir`` degrees and moves it to the hex centre.

Examples
--------
>>> from trackkit.library import default_library
>>> from trackkit.spaces import drive
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

from trackkit.models.tile import RoadShape
from trackkit.spaces import DrivenRoad, LocalSpace

if TYPE_CHECKING:  # shapely (and numpy) load only when polygons are drawn
    from shapely.geometry import Polygon

__all__ = [
    "DEFAULT_TILE_SIZE_MM",
    "ROAD_WIDTH_RATIO",
    "CentreLine",
    "centre_line",
    "local_axial",
    "local_point",
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


def road_turn(entry: int, exit_: int) -> str | None:
    """Which way a road bends between two edges, seen driving: left, right or None."""
    delta = ((60 * exit_) - (60 * entry + 180)) % 360
    if delta == 0:
        return None
    return "right" if delta < 180 else "left"


_LINE_CACHE: dict[tuple[str, int, float], CentreLine] = {}


def centre_line(road: DrivenRoad, size: float = DEFAULT_TILE_SIZE_MM) -> CentreLine:
    """The centre line of a driven road in the tile's local frame."""
    key = (road.face.id, road.entry, size)
    hit = _LINE_CACHE.get(key)
    if hit is None:
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
    """The outline of one space in the tile's local frame (millimetres)."""
    from shapely.geometry import Polygon

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
