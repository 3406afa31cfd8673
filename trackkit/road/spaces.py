"""A face's road as driven one way: the one road model of both series.

A road is lanes of spaces separated by cross lines (:mod:`trackkit.models.lanes`), and one
cut (:func:`trackkit.road.lanes.cut_road`) derives its steps, side-by-side pairs and overlapping
spaces, for Rallyman: DIRT and Rallyman: GT alike. :func:`drive` gives the road of a face
driven from one edge, as a :class:`~trackkit.road.driven.DrivenRoad`:

- a **GT face** (``face.layout``) is already lanes of spaces: the road is cut as stored and
  turned round when driven ``to -> from``; a face with several roads is driven one road at a
  time (``road``); the road under a bridge gets the spaces of ``BRIDGE_ROWS`` rows;
- a **DIRT face** (``face.roads``, by sections) is converted, for the driving direction, into
  the same model: its *units* (cross-sections: a row of lane spaces, a full-width row, a slide
  row, a corner, a chicane) become 2 lanes of spaces (lane 1 the left one, driving) with a
  cross line between units; a full-width row or a chicane space spans both lanes; inside a
  corner each lane has its own lines, so there is no lane change inside it (CORNER-2). What
  only DIRT has rides on that road as data: the two full-width slide spaces lying over a
  slide row (an overlay, CORNER-3), the shortcut spaces linked to the rows they touch
  (SHORTCUT-1/3), and on the spaces jumps, fords and the Copilot tokens' changes; climb
  lines and the start or finish line lie between units. Space ids read in driving order
  (``"2.O1"``: section 2, outer lane, first space), and the units stay with the road for
  drawing and for the tokens (:mod:`trackkit.stage.track_tokens`). That conversion is
  :mod:`trackkit.road.dirt_cut`; a Copilot track token's changes are made by
  :mod:`trackkit.road.token_changes`.

Steps carry tags (straight/diagonal, corner_entry, corner, slide, shortcut, into_shortcut,
out_of_shortcut, jump, ford, climb_up/climb_down, tile_edge, dotted); :func:`join` makes the
steps across a tile edge by the same rules (section 5.7 of the GT format: slots, skew
halves). Nothing else re-derives movement. The types (the driven road, its spaces, steps
and units) are in :mod:`trackkit.road.driven`. This module holds the GT cut, :func:`drive`
for both series, :func:`join` and :func:`start_entry`.

Examples
--------
>>> from trackkit.tiles.library import default_library
>>> road = drive(default_library().get("217a"), entry=1)
>>> [u.kind for u in road.units]
['slide', 'corner', 'slide']
>>> sorted(road.spaces)[:4]
['1.1L', '1.1R', '1.1S1', '1.1S2']
>>> drive(default_library().get("217a"), entry=3).units[1].turn
'right'
>>> gt = drive(default_library().get("117a"), entry=3)
>>> gt.series, gt.entries, sorted(gt.spaces["A23b"].lanes)
('gt', ['A1c', 'A2c', 'A3c'], [1, 2])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from trackkit.models.lanes import DottedMark, LaneCorner, LaneRoad
from trackkit.models.tile import TileFace
from trackkit.road.dirt_cut import dirt_step, drive_dirt
from trackkit.road.driven import DrivenRoad, LocalSpace, Step, common_tags
from trackkit.road.lanes import cross_line, cut_road

__all__ = [
    "BRIDGE_ROWS",
    "drive",
    "face_roads",
    "join",
    "lane_roads",
    "start_entry",
]

#: Rows of spaces of the road under a GT bridge (153, 154), which no picture shows: as many
#: as the plain straight 103 has (one cross line halfway). A DEFAULT of ``docs/rules.md``.
BRIDGE_ROWS = 2

#: Edge midpoints of the stored GT pictures (px), section 4 of the GT format.
_EDGE_PX = {
    0: (260.0, 0.0),
    1: (455.0, 112.5),
    2: (455.0, 337.5),
    3: (260.0, 450.0),
    4: (65.0, 337.5),
    5: (65.0, 112.5),
}


def drive(face: TileFace, entry: int, road: str | None = None) -> DrivenRoad:
    """A road of ``face`` cut into spaces for a car entering at local edge ``entry``.

    Parameters
    ----------
    face : TileFace
        A DIRT face with a through road, or a GT face with roads.
    entry : int
        The local edge the car enters by.
    road : str, optional
        GT faces with several roads: the road's id (``A``, ``B``...); by default the first
        road with an end at ``entry`` (visible roads first). A DIRT face has one road
        (``A``): ``road`` is not read.

    Raises
    ------
    ValueError
        If ``entry`` is not an end of the face's road (of ``road``), or the face has none.
    """
    if face.layout is None:
        road = None  # a DIRT face has one road (``A``)
    key = (face.id, entry, road)
    hit = _CACHE.get(key)
    if hit is not None and hit.face is face:
        return hit
    result = _drive_gt(face, entry, road) if face.layout is not None else drive_dirt(face, entry)
    _CACHE[key] = result
    return result


_CACHE: dict[tuple[str, int, str | None], DrivenRoad] = {}


def face_roads(face: TileFace) -> list[tuple[str, int, int]]:
    """``(road id, from edge, to edge)`` of every road a car can drive across ``face``.

    A DIRT face has one (``A``); a GT face lists its roads in file order, visible ones
    first (the road under a bridge is driven too).

    >>> from trackkit.tiles.library import default_library
    >>> face_roads(default_library().get("153a")), face_roads(default_library().get("205a"))
    ([('A', 0, 3), ('B', 1, 4)], [('A', 0, 3)])
    """
    if face.layout is not None:
        roads = sorted(face.layout.roads, key=lambda r: r.hidden)
        return [(r.id, r.from_edge, r.to_edge) for r in roads]
    road = face.road
    return [] if road is None else [("A", road.from_edge, road.to_edge)]


def lane_roads(face: TileFace) -> list[LaneRoad]:
    """The roads of a GT face, the road under a bridge with its spaces (``BRIDGE_ROWS``)."""
    if face.layout is None:
        return []
    return [_bridge_road(face, r) if r.hidden else r for r in face.layout.roads]


_BRIDGES: dict[tuple[str, str], LaneRoad] = {}


def _bridge_road(face: TileFace, road: LaneRoad) -> LaneRoad:
    """The road under a bridge, given ``BRIDGE_ROWS`` rows of spaces (DEFAULT, BOARD-2)."""
    key = (face.id, road.id)
    hit = _BRIDGES.get(key)
    if hit is not None:
        return hit
    count = face.lanes.get(road.from_edge, 2)
    rows = [chr(ord("a") + k) for k in range(BRIDGE_ROWS)]
    lines = {f"l{k}": {"at": k / BRIDGE_ROWS} for k in range(1, BRIDGE_ROWS)}
    lanes = {}
    for lane in range(1, count + 1):
        items: list[str] = []
        for k, row in enumerate(rows):
            if k:
                items.append(f"l{k}")
            items.append(f"{road.id}{lane}{row}")
        lanes[lane] = items
    a, b = _EDGE_PX[road.from_edge], _EDGE_PX[road.to_edge]
    built = LaneRoad.model_validate(
        {
            "id": road.id,
            "from": road.from_edge,
            "to": road.to_edge,
            "centre": [a, b],
            "length": math.dist(a, b),
            "lanes": lanes,
            "lines": lines,
        }
    )
    _BRIDGES[key] = built
    return built


def _drive_gt(face: TileFace, entry: int, road_id: str | None) -> DrivenRoad:
    """A road of a GT face, as stored, turned round when driven ``to -> from``."""
    roads = lane_roads(face)
    if road_id is None:
        ends = [r for r in roads if entry in (r.from_edge, r.to_edge)]
        ends.sort(key=lambda r: r.hidden)
        if not ends:
            raise ValueError(f"edge {entry} is not a road end of face {face.id}")
        lane_road = ends[0]
    else:
        found = [r for r in roads if r.id == road_id]
        if not found:
            raise ValueError(f"face {face.id} has no road {road_id}")
        lane_road = found[0]
        if entry not in (lane_road.from_edge, lane_road.to_edge):
            raise ValueError(f"edge {entry} is not an end of road {road_id} of face {face.id}")
    rev = entry == lane_road.to_edge and entry != lane_road.from_edge
    cut = cut_road(lane_road)
    if rev:
        cut = cut.reversed()
    layout = face.layout
    assert layout is not None
    widths = _widths(lane_road)
    corner_of: dict[str, tuple[str, int | None]] = {}
    for n, bend in enumerate(lane_road.corners, start=1):
        name = bend.name or f"{lane_road.id}{n}"
        for sid in bend.spaces:
            corner_of[sid] = (name, _inner(bend, lane_road))
    spaces: dict[str, LocalSpace] = {}
    for sid, rs in cut.spaces.items():
        width = widths.get(sid, len(rs.lanes))
        lanes = tuple(sorted(width + 1 - k for k in rs.lanes)) if rev else rs.lanes
        f0, f1 = rs.back_progress, rs.progress
        if rev:
            f0, f1 = 1.0 - f1, 1.0 - f0
        printed = layout.spaces.get(sid)
        corner, inner = corner_of.get(sid) or (None, None)
        lane_in: Literal["inner", "outer"] | None = None
        if corner is not None and inner is not None:
            lane_in = "inner" if inner in rs.lanes else "outer"
        spaces[sid] = LocalSpace(
            sid,
            -1,
            "corner" if corner is not None else "lane",
            lanes,
            f0,
            f1,
            (1.0 - 2.0 * max(lanes) / width, 1.0 - 2.0 * (min(lanes) - 1) / width),
            limit=printed.limit if printed is not None else None,
            corner_lane=lane_in,
            corner=corner,
            triangle=printed.triangle if printed is not None else False,
            joins=printed.joins if printed is not None else None,
        )
    steps = [
        _step(spaces[s.source], spaces[s.target], s.kind, s.limit, s.hazard) for s in cut.steps
    ]
    line = next((sf for sf in layout.start_finish if sf.road == lane_road.id), None)
    return DrivenRoad(
        face,
        cut,
        entry,
        lane_road.from_edge if rev else lane_road.to_edge,
        rev,
        [],
        spaces,
        steps,
        None,
        line=line,
        length_px=lane_road.length,
        hidden=any(r.id == lane_road.id and r.hidden for r in layout.roads),
    )


def _widths(road: LaneRoad) -> dict[str, int]:
    """How many lanes the road has beside each space (a lane-count transition changes it)."""
    lanes = road.lanes or {}
    order = road.line_order()
    index = {name: i for i, name in enumerate(order)}
    stretch: dict[int, tuple[int, int]] = {}
    spans: dict[str, tuple[int, int]] = {}
    for lane, items in lanes.items():
        full = list(items)
        if full[0] not in index:
            full.insert(0, order[0])
        if full[-1] not in index:
            full.append(order[-1])
        stretch[lane] = (index[full[0]], index[full[-1]])
        for k in range(1, len(full), 2):
            spans[full[k]] = (index[full[k - 1]], index[full[k + 1]])
    return {
        sid: sum(1 for lo, hi in stretch.values() if max(lo, b) < min(hi, f))
        for sid, (b, f) in spans.items()
    }


def _inner(corner: LaneCorner, road: LaneRoad) -> int | None:
    """The inner lane of a GT corner (section 5.6): lane 1 of a left corner (from -> to),
    the road's highest lane of a right one; the same physical lane either way."""
    if corner.turn is None:
        return None
    return 1 if corner.turn == "left" else max(road.lanes or {1: []})


def _step(
    a: LocalSpace,
    b: LocalSpace,
    kind: str,
    limit: int | None = None,
    hazard: bool = False,
    *,
    edge: bool = False,
) -> Step:
    """A step with its tags (GT roads)."""
    tags = common_tags(a, b, kind, edge=edge)
    if limit is not None or hazard:
        tags.add("dotted")  # rule: CORNER-4 (a sharp corner's dotted line)
    return Step(a.id, b.id, frozenset(tags), limit, hazard)


# --- across tile edges ---------------------------------------------------------------------


def join(
    a: DrivenRoad, b: DrivenRoad, *, lanes: int | None = None
) -> tuple[list[Step], list[tuple[str, str]]]:
    """The steps from road ``a`` into road ``b`` across the tile edge where they meet.

    Section 5.7 of the GT format, for both series: the edge's slots count its lanes
    clockwise round each tile, so slot s of ``a``'s exit faces slot N+1-s of ``b``'s entry;
    across a straight edge a car steps straight into the facing slot or diagonally into a
    neighbouring one (MOVE-1). At a skew edge the end spaces of facing slots are halves of
    one space: no step, the pairs are returned to be made one space.

    Parameters
    ----------
    a, b : DrivenRoad
        The road left and the road entered (their exit and entry edges meet).
    lanes : int, optional
        The edge's lane count (default: ``a``'s exit lanes).

    Returns
    -------
    (steps, halves)
        Steps with local space ids (``a``'s source, ``b``'s target), and the (``a`` space,
        ``b`` space) pairs of skew halves.
    """
    width = lanes or a.face.lanes.get(a.exit) or len(a.exits)
    key = (id(a), id(b), width)
    hit = _JOINS.get(key)
    if hit is not None and hit[0] is a and hit[1] is b:
        return list(hit[2]), list(hit[3])
    steps, halves = _join(a, b, width)
    if len(_JOINS) >= 4096:  # the roads of the last stages laid out are enough
        _JOINS.clear()
    _JOINS[key] = (a, b, tuple(steps), tuple(halves))
    return steps, halves


_JOINS: dict[
    tuple[int, int, int],
    tuple[DrivenRoad, DrivenRoad, tuple[Step, ...], tuple[tuple[str, str], ...]],
] = {}


def _join(a: DrivenRoad, b: DrivenRoad, width: int) -> tuple[list[Step], list[tuple[str, str]]]:
    before = a.cut.edge_slots(a.exit, width)
    facing = b.cut.edge_slots(b.entry, width)
    after = {width + 1 - s: ids for s, ids in facing.items()}
    skew_a, skew_b = a.face.skews.get(a.exit), b.face.skews.get(b.entry)
    if skew_a is not None and skew_b is not None:
        halves = [
            (x, y)
            for s in sorted(before)
            for x in before[s]
            for y in after.get(s, ())
            if a.spaces[x].joins is not None or b.spaces[y].joins is not None
        ]
        return [], list(dict.fromkeys(halves))
    dotted = _edge_marks(a, before, b, after)
    place = {sid: i for i, sid in enumerate(b.spaces)}
    # the two tiles' space ids may be the same strings: keep them apart while crossing
    crossing = cross_line(
        f"E{b.entry}",
        {s: ["<" + x for x in ids] for s, ids in before.items()},
        {s: [">" + y for y in ids] for s, ids in after.items()},
        dotted,
    )
    crossing.sort(key=lambda s: place[s.target[1:]])
    steps = []
    dirt = a.series == "dirt" and b.series == "dirt"
    for st in crossing:
        x, y = a.spaces[st.source[1:]], b.spaces[st.target[1:]]
        if dirt:
            steps.append(dirt_step(x, y, st.kind, None, edge=True))
        else:
            steps.append(_step(x, y, st.kind, st.limit, st.hazard, edge=True))
    return steps, []


def _edge_marks(
    a: DrivenRoad,
    before: Mapping[int, Sequence[str]],
    b: DrivenRoad,
    after: Mapping[int, Sequence[str]],
) -> dict[int, DottedMark]:
    """The dotted marks of both roads' edge lines, by slot of ``a``'s exit (CORNER-4)."""
    out: dict[int, DottedMark] = {}
    for road, slots, edge in ((a, before, a.exit), (b, after, b.entry)):
        spec = road.cut.road.lines.get(f"E{edge}")
        if spec is None or not spec.dotted:
            continue
        for slot, ids in slots.items():
            lanes = {k for sid in ids for k in road.cut.spaces[sid].lanes}
            for lane, mark in spec.dotted.items():
                if lane in lanes:
                    old = out.get(slot)
                    if isinstance(old, int) and isinstance(mark, int):
                        out[slot] = min(old, mark)
                    elif old is None:
                        out[slot] = mark
    return out


def start_entry(face: TileFace, road: str | None = None) -> int | None:
    """Default entry of a start or finish face: the end with more rows before its line.

    Cars line up behind the start line (BOARD-3); a finish line is crossed with the arch
    facing the driver. Both faces show the arch facing that way. A GT start/finish face is
    entered so that its road runs the way its grid faces (the race direction): the road
    with a line, or ``road`` when given (None when that road has no line). A DIRT face has
    one road: ``road`` is not read.

    >>> from trackkit.tiles.library import default_library
    >>> lib = default_library()
    >>> start_entry(lib.get("202a")), start_entry(lib.get("202a"), "B")
    (3, 3)
    >>> [start_entry(lib.get("144b"), road) for road in (None, "A", "B")]  # two lines
    [1, 1, 4]
    >>> start_entry(lib.get("102a"), "B") is None  # no such road, no line on it
    True
    """
    if face.layout is not None:
        for sf in face.layout.start_finish:
            if road is not None and sf.road != road:
                continue
            for r in face.layout.roads:
                if r.id == sf.road:
                    return r.from_edge if sf.race_toward == r.to_edge else r.to_edge
        return None
    one = face.road
    if one is None or one.start_finish is None:
        return None
    forward = drive(face, one.from_edge)
    after = forward.start_after if one.start_finish.kind == "start" else forward.finish_after
    if after is None:
        return None
    before_rows = after + 1
    after_rows = len(forward.units) - before_rows
    return one.from_edge if before_rows >= after_rows else one.to_edge
