"""How a Rallyman: DIRT tile's road is read for drawing: where its spaces and marks go.

A DIRT road is drawn from its centre line (:func:`trackkit.road.geometry.centre_line`), the
same the graph measures with, as a band of constant width: every space of the road
(lanes first, then the shortcut islands, then the slide spaces on top) and, by unit of
the road in driving order, the marks printed on it (:mod:`trackkit.render.marks`):
the danger kerbs at both ends, the start and finish lines after their row, the climb
arrows, per row the slide line (CORNER-3), the ford (FORD-1) and the jump (JUMP-1), the
limit of each corner lane (CORNER-1) and each shortcut's badge (SHORTCUT-1). A row a
Copilot track token made shows the token instead (:mod:`trackkit.render.tokens`).
:data:`DIRT` is the series' look for :func:`trackkit.render.tile.draw_tile`.

Examples
--------
>>> from trackkit.tiles.library import default_library
>>> from trackkit.road.spaces import drive
>>> from trackkit.render.draw import TileArt
>>> face = default_library().get("217a")
>>> art = TileArt(key="1", face=face, road=drive(face, 1))
>>> [type(m).__name__ for m in road_marks(art, art.road, 240.0)][:4]
['Kerbs', 'Kerbs', 'Slide', 'Slide']
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence

from trackkit.render.draw import LABEL_AT, TileArt, fmt, frame, neg, off, path_data, svg_id
from trackkit.render.marks import (
    Chequer,
    ClimbArrow,
    Ford,
    Jump,
    Kerbs,
    Limit,
    Mark,
    Shortcut,
    Slide,
    SpacePath,
)
from trackkit.road.geometry import (
    ROAD_WIDTH_RATIO,
    CentreLine,
    centre_line,
    space_polygon,
)
from trackkit.road.spaces import DrivenRoad

__all__ = ["DIRT", "DirtLook", "kerb_spots", "road_marks", "shortcut_spots", "space_paths"]

Point = tuple[float, float]
Spot = tuple[Point, float]

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
        paths[sid] = path_data(poly)
        if poly.is_empty:
            middles[sid] = (0.0, 0.0)
            continue
        c = poly.centroid
        middles[sid] = (c.x, c.y)
    _PATHS[key] = (road, paths, middles)
    return paths, middles


def kerb_spots(line: CentreLine, half: float, size: float) -> dict[str, list[tuple[Point, Point]]]:
    """Where the danger markers go at each end of the road: (point, road heading) pairs."""
    out: dict[str, list[tuple[Point, Point]]] = {}
    for end, f in (("entry", 0.035), ("exit", 0.965)):
        p, d, left = frame(line, f)
        out[end] = [(off(p, left, side * (half + 0.035 * size)), d) for side in (1.0, -1.0)]
    return out


def shortcut_spots(
    road: DrivenRoad, line: CentreLine, half: float, middles: Mapping[str, Point], size: float
) -> dict[str, tuple[Point, int | None]]:
    """Where each shortcut's badge goes (by shortcut name), and the limit it shows.

    It sits on the shortcut island; an island too thin to hold it (gentle bends) gets it
    just beyond, so that it never covers the corner limits.
    """
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


def road_marks(art: TileArt, road: DrivenRoad, size: float) -> Iterator[Mark]:
    """Every mark printed on a DIRT road, in drawing order (see the module)."""
    line = centre_line(road, size)
    half = ROAD_WIDTH_RATIO * size / 2.0
    key, face = art.key, art.face
    if face is not None and face.danger.value != "none":
        for end, spots in kerb_spots(line, half, size).items():
            yield Kerbs((key, end), face.danger.value, spots)
    for kind, after in (("start", road.start_after), ("finish", road.finish_after)):
        if after is None:
            continue
        p, d, left = frame(line, road.units[after].f1)
        w = half / 4.0
        stripes = []
        for k in (-0.5, 0.5):
            mid = off(p, d, k * w)
            a, b = off(mid, left, -half), off(mid, left, half)
            stripes.append([(fmt(a[0]), fmt(a[1])), (fmt(b[0]), fmt(b[1]))])
        words_at = off(p, left, half + 0.085 * size)
        yield Chequer(kind, (key,), stripes, w, True, kind.upper(), words_at, 0.04 * size)
    for unit_index, way in sorted(art.climb_lines.items()):
        if unit_index + 1 >= len(road.units):
            continue
        p, d, left = frame(line, road.units[unit_index].f1)
        uphill = d if way == "up" else neg(d)
        yield ClimbArrow((key, unit_index), way, off(p, left, -0.5 * half), uphill)
    yield from _row_marks(key, road, line, half)
    yield from _limits(art, road, line, half)
    middles = space_paths(road, size)[1]
    for name, (at, limit) in shortcut_spots(road, line, half, middles, size).items():
        yield Shortcut((key, name), at, limit)


def _row_marks(key: str, road: DrivenRoad, line: CentreLine, half: float) -> Iterator[Mark]:
    """Per row: slide dotted lines (CORNER-3), fords (FORD-1) and jumps (JUMP-1)."""
    chevrons = _driven_units_of_jumps(road)
    by_token = road.token_units  # drawn as their tokens, where the tokens lie
    for unit in road.units:
        first = road.spaces[unit.spaces[0]] if unit.spaces else None
        if first is None:
            continue
        mid = (unit.f0 + unit.f1) / 2.0
        if unit.kind == "slide":
            p, _d, left = frame(line, mid)
            yield Slide((key, unit.index), off(p, left, -half), off(p, left, half))
        if first.ford and unit.index not in by_token:
            p, d, _left = frame(line, mid)
            yield Ford((key, unit.index), p, d, half)
        if first.jump is not None and unit.index not in by_token:
            p, d, left = frame(line, mid)
            spec = chevrons.get(unit.index, "sideways")
            right_of_from_to = left if road.reversed else neg(left)
            forward_from_to = neg(d) if road.reversed else d
            toward = {
                "sideways": right_of_from_to,
                "sideways-right": right_of_from_to,
                "sideways-left": neg(right_of_from_to),
                "forward": forward_from_to,
                "backward": neg(forward_from_to),
            }.get(spec, right_of_from_to)
            yield Jump((key, unit.index), p, toward, first.jump)


def _limits(art: TileArt, road: DrivenRoad, line: CentreLine, half: float) -> Iterator[Limit]:
    """CORNER-1: the limit of each corner lane (and each chicane), in its lane's middle."""
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
            p, _d, left = frame(line, (unit.f0 + unit.f1) / 2.0)
            at = off(p, left, lat * half)
            yield Limit(
                (art.key, unit.section, lane),
                at,
                shown,
                None if lane == "both" else lane,
                muddy=shown != printed,
            )


class DirtLook:
    """A DIRT tile's look (:class:`trackkit.render.tile.Look`): one road, drawn in the
    tile's own group."""

    over_every_tile = False

    def has_road(self, art: TileArt) -> bool:
        """Whether the tile has a road to draw."""
        return art.road is not None

    def lines(self, art: TileArt, size: float) -> Sequence[Sequence[Point]]:
        """The centre line of the tile's road (none without a road)."""
        return [centre_line(art.road, size).points] if art.road is not None else []

    def spaces(self, art: TileArt, size: float) -> Iterator[SpacePath]:
        """Every space: lanes first, then shortcut islands, then the dotted slide spaces."""
        road = art.road
        assert road is not None
        paths = space_paths(road, size)[0]
        rank = {"shortcut": 1, "slide": 2}
        for sid in sorted(road.spaces, key=lambda s: (rank.get(road.spaces[s].kind, 0), s)):
            sp = road.spaces[sid]
            classes = ["space", f"kind-{sp.kind}"]
            if sp.corner_lane:
                classes.append(f"lane-{sp.corner_lane}")
            node = art.node_prefix + sid if art.node_prefix is not None else None
            yield SpacePath(svg_id("space", art.key, sid), paths[sid], classes, node)

    def nodes(self, art: TileArt) -> set[str]:
        """The graph nodes the tile draws."""
        if art.road is None or art.node_prefix is None:
            return set()
        return {art.node_prefix + sid for sid in art.road.spaces}

    def roads(self, art: TileArt, size: float) -> Iterator[tuple[str | None, Iterator[Mark]]]:
        """The road's marks, in the tile's features group."""
        if art.road is not None:
            yield None, road_marks(art, art.road, size)

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
        """Where the label goes when the map did not choose: towards the freest corner."""
        return off((0.0, 0.0), corners[0], LABEL_AT)

    def beside(self, art: TileArt, size: float, *, kerbs: bool) -> tuple[list[Spot], list[Spot]]:
        """The marks beside the road (kerbs at both ends if ``kerbs``, shortcut badges),
        before and after the tokens in :func:`trackkit.render.tile.mark_spots`."""
        road = art.road
        out: list[Spot] = []
        if road is None:
            return out, []
        line = centre_line(road, size)
        half = ROAD_WIDTH_RATIO * size / 2.0
        if kerbs:
            out += [
                (at, 0.035 * size)
                for spots in kerb_spots(line, half, size).values()
                for at, _ in spots
            ]
        middles = space_paths(road, size)[1]
        out += [
            (at, 0.055 * size) for at, _ in shortcut_spots(road, line, half, middles, size).values()
        ]
        return out, []


#: The look of a Rallyman: DIRT tile.
DIRT = DirtLook()
