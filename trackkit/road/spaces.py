"""A face's road as driven one way: the one road model of both series.

A road is lanes of spaces separated by cross lines (:mod:`trackkit.models.lanes`), and one
cut (:func:`trackkit.road.lanes.cut_road`) derives its steps, side-by-side pairs and overlapping
spaces, for Rallyman: DIRT and Rallyman: GT alike. :func:`drive` gives the road of a face
driven from one edge, as a :class:`DrivenRoad`:

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
  drawing and for the tokens (:mod:`trackkit.stage.track_tokens`).

Steps carry tags (straight/diagonal, corner_entry, corner, slide, shortcut, into_shortcut,
out_of_shortcut, jump, ford, climb_up/climb_down, tile_edge, dotted); :func:`join` makes the
steps across a tile edge by the same rules (section 5.7 of the GT format: slots, skew
halves). Nothing else re-derives movement.

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

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, cast

from trackkit.models.lanes import (
    DottedMark,
    LaneCorner,
    LaneLine,
    LaneOverlay,
    LaneRoad,
    LaneShortcut,
    StartLine,
)
from trackkit.models.tile import (
    ChicaneSection,
    CornerSection,
    Road,
    RowRef,
    SlideSection,
    StraightSection,
    TileFace,
)
from trackkit.road.lanes import RoadCut, cross_line, cut_road

__all__ = [
    "BRIDGE_ROWS",
    "DrivenRoad",
    "LocalSpace",
    "RowChange",
    "Step",
    "TokenSpot",
    "Unit",
    "crosses_line",
    "drive",
    "face_roads",
    "join",
    "lane_roads",
    "start_entry",
    "with_changes",
]

UnitKind = Literal["row", "full", "slide", "corner", "chicane"]
_Edge = Literal[0, 1, 2, 3, 4, 5]
SpaceKind = Literal["lane", "full", "slide", "corner", "chicane", "shortcut"]

#: Relative length of each kind of unit along the centre line (a corner: per outer space).
UNIT_WEIGHT = {"row": 1.0, "full": 1.0, "slide": 1.0, "corner": 0.8, "chicane": 1.0}

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


@dataclass(frozen=True, slots=True)
class LocalSpace:
    """One space of a driven road.

    ``lanes`` are the lanes it lies in, counted from the left in the driving direction
    (1 = leftmost; a DIRT road has lanes 1 and 2; a shortcut space: the lane it lies
    beside). ``f0``/``f1`` are the back and front edge as fractions of the road's centre
    line, and ``lat`` the lateral band (-1 right edge .. +1 left edge of the road, driving
    direction). ``corner`` names the corner it belongs to on its road (DIRT: its section
    in driving order; GT: road and place, ``A1``).
    """

    id: str
    unit: int
    kind: SpaceKind
    lanes: tuple[int, ...]
    f0: float
    f1: float
    lat: tuple[float, float]
    limit: int | None = None
    corner_lane: Literal["inner", "outer"] | None = None
    jump: int | None = None
    ford: bool = False
    token: str | None = None
    """The Copilot track token that made this space what it is (``"water"``...), if any."""
    corner: str | None = None
    triangle: bool = False
    """GT: the limit is printed in a warning triangle (CORNER-5)."""
    joins: int | None = None
    """GT: the skew edge of the face that cuts this space; the neighbour holds its rest."""


@dataclass(frozen=True, slots=True)
class TokenSpot:
    """Where one token of a placed tile lies, and what it does there.

    ``at`` is in the tile's own frame: axial offsets ``[q, r]`` from its centre, in tile
    widths (as :attr:`trackkit.models.stage.TileToken.at`); None when the token has no place
    (it is drawn beside the road). ``placed`` says whether the stage gave the place or
    trackkit chose it (a Copilot track token without ``at``). ``problem`` says why a Copilot
    track token changes nothing: ``off-road`` (its centre is on no space of the road),
    ``cannot-go`` (on a space where it cannot go, ``why``), ``alone`` (a chicane token with
    no chicane-limit token next to it).
    """

    index: int
    """The token's place in its tile's token list."""
    kind: str | None
    at: tuple[float, float] | None
    dir: float
    placed: bool
    space: str | None = None
    unit: int | None = None
    acts: bool = False
    """Whether it changes the road (a ford, a jump, a chicane space)."""
    problem: Literal["off-road", "cannot-go", "alone"] | None = None
    why: str = ""
    suggest: tuple[float, float] | None = None
    """For a token with a problem: the middle of the nearest row where it could go."""


@dataclass(frozen=True, slots=True)
class RowChange:
    """What a Copilot track token makes of one cross-section (unit) of a road."""

    token: str
    """The token's kind: water, jump or chicane-limit."""
    ford: bool = False
    jump: int | None = None
    chicane: int | None = None
    """The limit of the chicane space the row becomes (one space across the road)."""


@dataclass(frozen=True, slots=True)
class Step:
    """A legal forward step between two spaces of one road (or across a tile edge).

    ``limit``/``hazard``: a straight step across a GT sharp-corner dotted line (CORNER-4):
    the highest gear for it, or one danger result for crossing it.
    """

    source: str
    target: str
    tags: frozenset[str]
    limit: int | None = None
    hazard: bool = False


@dataclass(slots=True)
class Unit:
    """A cross-section of a DIRT road, in driving order."""

    index: int
    kind: UnitKind
    section: int
    row: int
    f0: float = 0.0
    f1: float = 0.0
    turn: str | None = None
    spaces: list[str] = field(default_factory=list)
    entries: list[str] = field(default_factory=list)
    exits: list[str] = field(default_factory=list)


@dataclass(slots=True)
class DrivenRoad:
    """A road of a face as driven from ``entry`` to ``exit`` (local edges).

    ``cut`` is the road in the lane model, as driven: its lanes, steps, side-by-side pairs
    and overlapping spaces; ``spaces`` and ``steps`` are what the stage graph is built
    from. DIRT roads also keep their sections (:attr:`road`) and ``units``; a GT road has
    no units, and ``line`` is its start/finish line, if it has one.
    """

    face: TileFace
    cut: RoadCut
    entry: int
    exit: int
    reversed: bool
    units: list[Unit]
    spaces: dict[str, LocalSpace]
    steps: list[Step]
    climb: Literal["up", "down"] | None
    start_after: int | None = None
    finish_after: int | None = None
    shortcut_limits: dict[str, int] = field(default_factory=dict)
    tokens: tuple[TokenSpot, ...] = ()
    """Where the tokens of the placed tile lie (those with a place), see :func:`with_changes`."""
    sections: Road | None = None
    """The DIRT road by sections (None on a GT face)."""
    line: StartLine | None = None
    """GT: the road's chequered start/finish line, if it has one."""
    length_px: float = 0.0
    """GT: the road's length in picture pixels (450 px flat to flat)."""
    hidden: bool = False
    """GT: the road runs under a bridge (153, 154): driven, never drawn, ``BRIDGE_ROWS`` rows."""

    @property
    def road(self) -> Road:
        """The DIRT road by sections.

        Raises
        ------
        ValueError
            On a GT road (its lanes are in :attr:`cut`).
        """
        if self.sections is None:
            raise ValueError(f"road {self.cut.road.id} of {self.face.id} is a GT road")
        return self.sections

    @property
    def series(self) -> Literal["dirt", "gt"]:
        """The game series of the face."""
        return "dirt" if self.sections is not None else "gt"

    @property
    def road_id(self) -> str:
        """The road's id on its face (``A`` on DIRT faces)."""
        return self.cut.road.id

    @property
    def corner_turns(self) -> list[str]:
        """Turns of the corners in driving order."""
        if self.sections is None:
            bends = self.cut.road.corners[::-1] if self.reversed else self.cut.road.corners
            return [t for c in bends if (t := _turn(c, self.reversed))]
        return [u.turn for u in self.units if u.kind == "corner" and u.turn]

    @property
    def token_units(self) -> frozenset[int]:
        """Units a Copilot track token has changed (they are drawn by the token)."""
        return frozenset(t.unit for t in self.tokens if t.acts and t.unit is not None)

    @property
    def entries(self) -> list[str]:
        """Spaces a car enters the road into."""
        if self.units:
            return list(self.units[0].entries)
        return self.cut.entries()

    @property
    def exits(self) -> list[str]:
        """Spaces a car leaves the road from."""
        if self.units:
            return list(self.units[-1].exits)
        return self.cut.exits()

    @property
    def start_at(self) -> float | None:
        """Where the start line lies along the road (0..1, driving), if it has one.

        A GT start/finish line counts only when the road is driven the way its grid faces.
        """
        if self.sections is not None:
            if self.start_after is None:
                return None
            return self.units[self.start_after].f1
        index = self._line_index()
        if index is None:
            return None
        return _line_progress(self.cut, index)

    @property
    def start_spaces(self) -> list[str]:
        """The spaces a car starts from: DIRT, every space behind the start line; GT, the
        grid slots, nearest the line first, each row left to right (BOARD-3, GT-1)."""
        if self.sections is not None:
            if self.start_after is None:
                return []
            return [s for u in self.units[: self.start_after + 1] for s in u.spaces]
        if self._line_index() is None or self.line is None:
            return []
        return [s for row in self.line.grid for s in row if s in self.spaces]

    @property
    def finish_spaces(self) -> list[str]:
        """The first spaces past the finish line on this road ([] when none lies on it, or
        when it is the road's end edge, see :attr:`finish_at_end`)."""
        if self.sections is not None:
            if self.finish_after is None or self.finish_after + 1 >= len(self.units):
                return []
            return list(self.units[self.finish_after + 1].entries)
        index = self._line_index()
        if index is None:
            return []
        key = "back" if not self.cut.reverse else "front"
        return [s for s, sp in self.cut.spaces.items() if getattr(sp, key) == index]

    @property
    def line_ends(self) -> list[str]:
        """GT: the spaces whose front edge is the start/finish line (driven the right way)."""
        index = self._line_index() if self.sections is None else None
        if index is None:
            return []
        key = "front" if not self.cut.reverse else "back"
        return [s for s, sp in self.cut.spaces.items() if getattr(sp, key) == index]

    @property
    def finish_at_end(self) -> bool:
        """Whether the finish line is the road's exit edge (DIRT finish faces 203/302)."""
        return self.finish_after is not None and self.finish_after + 1 >= len(self.units)

    @property
    def grid_backwards(self) -> bool:
        """GT: the road has a start/finish line and is driven against its grid."""
        return self.line is not None and self.line.race_toward != self.exit

    def _line_index(self) -> int | None:
        """GT: the index of the start/finish line in the cut's order, driven the right way."""
        if self.line is None or self.line.race_toward != self.exit:
            return None
        return self.cut.order.index(self.line.line)


def _turn(corner: LaneCorner, reverse: bool) -> str | None:
    if corner.turn is None:
        return None
    if not reverse:
        return corner.turn
    return "right" if corner.turn == "left" else "left"


def _line_progress(cut: RoadCut, index: int) -> float:
    """Progress (0..1, driving) of the line at ``index`` of the cut's order: the mean of
    the front progress of the spaces it ends."""
    key = "back" if cut.reverse else "front"
    ends = [sp for sp in cut.spaces.values() if getattr(sp, key) == index]
    if not ends:
        return 0.0
    values = [sp.back_progress if cut.reverse else sp.progress for sp in ends]
    value = sum(values) / len(values)
    return 1.0 - value if cut.reverse else value


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
    result = _drive_gt(face, entry, road) if face.layout is not None else _drive(face, entry)
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
    tags = _common_tags(a, b, kind, edge=edge)
    if limit is not None or hazard:
        tags.add("dotted")  # rule: CORNER-4 (a sharp corner's dotted line)
    return Step(a.id, b.id, frozenset(tags), limit, hazard)


def _common_tags(a: LocalSpace, b: LocalSpace, kind: str, *, edge: bool) -> set[str]:
    """What crossing from ``a`` to ``b`` means, whichever series (DESIGN.md's edge tags)."""
    tags: set[str] = set()
    if kind != "link":
        tags.add(kind)
    if a.corner is not None and a.corner == b.corner and not edge:
        tags.add("corner")
    elif b.corner is not None:
        tags.add("corner_entry")
    if b.kind == "slide":
        tags.add("slide")
    if edge:
        tags.add("tile_edge")
    return tags


# --- DIRT: sections into units, units into the lane model --------------------------------


def _drive(face: TileFace, entry: int) -> DrivenRoad:
    road = face.road
    if road is None:
        raise ValueError(f"face {face.id} has no through road")
    if entry == road.from_edge:
        rev, exit_edge = False, road.to_edge
    elif entry == road.to_edge:
        rev, exit_edge = True, road.from_edge
    else:
        raise ValueError(f"edge {entry} is not a road end of face {face.id}")
    order = _Order(road, rev)
    units, unit_of = _units(road, order)
    jumps = {unit_of[order.row(j)]: j.value for j in road.jumps}
    fords = {unit_of[order.row(f)] for f in road.fords}
    spaces: dict[str, LocalSpace] = {}
    for unit, fsec in zip(units, order.section_per_unit(), strict=True):
        sec = road.sections[fsec - 1]
        jump, ford = jumps.get(unit.index), unit.index in fords
        if unit.kind in ("row", "slide"):
            _row_spaces(unit, spaces, jump, ford)
        elif unit.kind == "full":
            _full_space(unit, spaces, jump, ford)
        elif isinstance(sec, CornerSection):
            _corner_spaces(unit, sec, spaces)
        elif isinstance(sec, ChicaneSection):
            _corner_run(unit, spaces, "C", sec.spaces, "chicane", (1, 2), (-1.0, 1.0), sec.limit)

    climb: Literal["up", "down"] | None = None
    if road.climb is not None:
        up_forward = road.climb.forward == "uphill"
        climb = "up" if up_forward != rev else "down"
    shortcuts = _shortcuts(road, order, units, unit_of, spaces)

    def line_after(kind: str) -> int | None:
        sf = road.start_finish
        if sf is None or sf.kind != kind:
            return None
        u = unit_of[order.row(sf.after)]
        return (u - 1) if rev else u  # reversed, the line lies before the same row

    return _dirt_road(
        face,
        road,
        entry,
        exit_edge,
        rev,
        units,
        spaces,
        climb,
        shortcuts,
        line_after("start"),
        line_after("finish"),
    )


@dataclass(frozen=True, slots=True)
class _Order:
    """Sections and rows of a DIRT road in driving order (``rev``: driven ``to -> from``)."""

    road: Road
    rev: bool

    def section(self, section: int) -> int:
        """Forward section number -> driving order."""
        return len(self.road.sections) + 1 - section if self.rev else section

    def rows_in(self, section: int) -> int:
        s = self.road.sections[section - 1]
        return s.rows if isinstance(s, StraightSection | SlideSection) else 1

    def row(self, ref: RowRef) -> tuple[int, int]:
        """A row reference (forward) as (section, row) in driving order."""
        if not self.rev:
            return ref.section, ref.row
        return self.section(ref.section), self.rows_in(ref.section) + 1 - ref.row

    def forward_sections(self) -> range:
        n = len(self.road.sections)
        return range(n, 0, -1) if self.rev else range(1, n + 1)

    def section_per_unit(self) -> list[int]:
        out: list[int] = []
        for fsec in self.forward_sections():
            out += [fsec] * self.rows_in(fsec)
        return out


def _units(road: Road, order: _Order) -> tuple[list[Unit], dict[tuple[int, int], int]]:
    """The road's units in driving order, spread along the centre line by their weights."""
    units: list[Unit] = []
    unit_of: dict[tuple[int, int], int] = {}
    weights: list[float] = []
    for fsec in order.forward_sections():
        sec = road.sections[fsec - 1]
        ds = order.section(fsec)
        if isinstance(sec, StraightSection | SlideSection):
            kind: UnitKind = (
                "slide" if isinstance(sec, SlideSection) else ("full" if sec.lanes == 1 else "row")
            )
            for r in range(1, sec.rows + 1):
                unit_of[(ds, r)] = len(units)
                units.append(Unit(len(units), kind, ds, r))
                weights.append(UNIT_WEIGHT[kind])
        elif isinstance(sec, CornerSection):
            unit_of[(ds, 1)] = len(units)
            turn = sec.turn.flipped() if order.rev else sec.turn
            units.append(Unit(len(units), "corner", ds, 1, turn=turn.value))
            weights.append(UNIT_WEIGHT["corner"] * max(sec.outer.spaces, sec.inner.spaces))
        else:
            unit_of[(ds, 1)] = len(units)
            units.append(Unit(len(units), "chicane", ds, 1))
            weights.append(UNIT_WEIGHT["chicane"] * sec.spaces)
    total = sum(weights) or 1.0
    acc = 0.0
    for unit, w in zip(units, weights, strict=True):
        unit.f0, unit.f1 = acc / total, (acc + w) / total
        acc += w
    return units, unit_of


def _add(spaces: dict[str, LocalSpace], space: LocalSpace, unit: Unit) -> None:
    spaces[space.id] = space
    unit.spaces.append(space.id)


def _row_spaces(unit: Unit, spaces: dict[str, LocalSpace], jump: int | None, ford: bool) -> None:
    """A row's two lane spaces; a slide row also its two full-width slide spaces."""
    prefix = f"{unit.section}.{unit.row}"
    for side, lane, lat in (("L", 1, (0.0, 1.0)), ("R", 2, (-1.0, 0.0))):
        space = LocalSpace(
            f"{prefix}{side}",
            unit.index,
            "lane",
            (lane,),
            unit.f0,
            unit.f1,
            lat,
            jump=jump,
            ford=ford,
        )
        _add(spaces, space, unit)
    unit.entries += [f"{prefix}L", f"{prefix}R"]
    unit.exits += [f"{prefix}L", f"{prefix}R"]
    if unit.kind == "slide":  # rule: CORNER-3 (two full-width slide spaces)
        mid = (unit.f0 + unit.f1) / 2
        for name, f0, f1 in (("S1", unit.f0, mid), ("S2", mid, unit.f1)):
            space = LocalSpace(
                f"{prefix}{name}",
                unit.index,
                "slide",
                (1, 2),
                f0,
                f1,
                (-1.0, 1.0),
                jump=jump,
                ford=ford,
            )
            _add(spaces, space, unit)
        unit.entries.append(f"{prefix}S1")
        unit.exits.append(f"{prefix}S2")


def _full_space(unit: Unit, spaces: dict[str, LocalSpace], jump: int | None, ford: bool) -> None:
    """A full-width row: one space across both lanes (snow faces, BOARD-2)."""
    sid = f"{unit.section}.{unit.row}F"
    space = LocalSpace(
        sid, unit.index, "full", (1, 2), unit.f0, unit.f1, (-1.0, 1.0), jump=jump, ford=ford
    )
    _add(spaces, space, unit)
    unit.entries.append(sid)
    unit.exits.append(sid)


def _corner_spaces(unit: Unit, sec: CornerSection, spaces: dict[str, LocalSpace]) -> None:
    """A corner: the inner lane on the side it turns to, the outer lane (CORNER-2)."""
    inner_lane = 1 if unit.turn == "left" else 2
    for name, lane, number in (
        ("inner", sec.inner, inner_lane),
        ("outer", sec.outer, 3 - inner_lane),
    ):
        lat = (0.0, 1.0) if number == 1 else (-1.0, 0.0)
        letter = "I" if name == "inner" else "O"
        # rule: CORNER-2 (each lane its own run: no lane change inside a corner)
        _corner_run(
            unit,
            spaces,
            letter,
            lane.spaces,
            "corner",
            (number,),
            lat,
            lane.limit,
            name,  # type: ignore[arg-type]
        )


def _corner_run(
    unit: Unit,
    spaces: dict[str, LocalSpace],
    letter: str,
    count: int,
    kind: Literal["corner", "chicane"],
    lanes: tuple[int, ...],
    lat: tuple[float, float],
    limit: int,
    lane: Literal["inner", "outer"] | None = None,
) -> None:
    """A lane of corner (or chicane) spaces splitting the unit evenly."""
    ids = []
    for k in range(count):
        f0 = unit.f0 + (unit.f1 - unit.f0) * k / count
        f1 = unit.f0 + (unit.f1 - unit.f0) * (k + 1) / count
        sid = f"{unit.section}.{letter}{k + 1}"
        space = LocalSpace(
            sid,
            unit.index,
            kind,
            lanes,
            f0,
            f1,
            lat,
            limit=limit,
            corner_lane=lane,
            corner=str(unit.section),
        )
        _add(spaces, space, unit)
        ids.append(sid)
    unit.entries.append(ids[0])
    unit.exits.append(ids[-1])


@dataclass(frozen=True, slots=True)
class _Shortcut:
    """A shortcut as driven: its spaces, side, and the spaces linked into and out of it."""

    ids: tuple[str, ...]
    limit: int
    lane: int
    into: tuple[str, ...]
    out: tuple[str, ...]
    at: tuple[float, float]


def _shortcuts(
    road: Road,
    order: _Order,
    units: list[Unit],
    unit_of: dict[tuple[int, int], int],
    spaces: dict[str, LocalSpace],
) -> list[_Shortcut]:
    """The road's shortcuts: spaces beside the inner side of the bend (SHORTCUT-1)."""
    out: list[_Shortcut] = []
    for n, sc in enumerate(road.shortcuts, start=1):
        entry_units = sorted(unit_of[order.row(r)] for r in sc.entry)
        exit_units = sorted(unit_of[order.row(r)] for r in sc.exit)
        if order.rev:
            entry_units, exit_units = exit_units, entry_units
        between = [u for u in units if entry_units[-1] < u.index < exit_units[0]]
        turns = [u.turn for u in between if u.kind == "corner"]
        lane = 1 if (turns[0] if turns else "left") == "left" else 2
        f_start, f_end = units[entry_units[-1]].f1, units[exit_units[0]].f0
        if f_end <= f_start:
            f_end = units[exit_units[0]].f1
        ids = []
        lat = (1.0, 1.6) if lane == 1 else (-1.6, -1.0)
        for k in range(sc.spaces):
            f0 = f_start + (f_end - f_start) * k / sc.spaces
            f1 = f_start + (f_end - f_start) * (k + 1) / sc.spaces
            sid = f"X{n}.{k + 1}"
            spaces[sid] = LocalSpace(sid, -1, "shortcut", (lane,), f0, f1, lat, limit=sc.limit)
            ids.append(sid)
        # rule: SHORTCUT-1 (linked to touching non-corner spaces); CORNER-3 (slide spaces too)
        into = [sid for ui in entry_units for sid in _touching(units[ui], spaces, lane)]
        # a slide is entered at its first space
        outs = [
            sid
            for ui in exit_units
            for sid in _touching(units[ui], spaces, lane)
            if not (spaces[sid].kind == "slide" and sid.endswith("S2"))
        ]
        out.append(
            _Shortcut(tuple(ids), sc.limit, lane, tuple(into), tuple(outs), (f_start, f_end))
        )
    return out


def _touching(unit: Unit, spaces: Mapping[str, LocalSpace], lane: int) -> list[str]:
    return [
        sid
        for sid in unit.spaces
        if spaces[sid].kind in ("lane", "full", "slide") and lane in spaces[sid].lanes
    ]


def _lane_road(
    units: list[Unit],
    spaces: Mapping[str, LocalSpace],
    entry: int,
    exit_edge: int,
    shortcuts: Sequence[_Shortcut],
) -> LaneRoad:
    """The DIRT road as driven, in the lane model: 2 lanes (1 on the left, driving), a cross
    line between units, each corner lane with its own lines, slides as overlays."""
    lanes: dict[int, list[str]] = {1: [], 2: []}
    lines: dict[str, LaneLine] = {}
    overlays: list[LaneOverlay] = []
    corners: list[LaneCorner] = []
    back = f"E{entry}"
    for unit in units:
        front = f"r{unit.index}" if unit.index + 1 < len(units) else f"E{exit_edge}"
        ids = unit.spaces
        kinds = {spaces[s].kind for s in ids}
        if unit.kind in ("row", "slide") and "chicane" not in kinds:
            lanes[1].append(f"{unit.section}.{unit.row}L")
            lanes[2].append(f"{unit.section}.{unit.row}R")
            if unit.kind == "slide":
                mid = f"s{unit.index}"
                s1, s2 = ids[2], ids[3]
                lines[mid] = LaneLine.model_construct(at=spaces[s1].f1)
                overlays.append(
                    LaneOverlay.model_construct(lanes=[1, 2], spaces=[back, s1, mid, s2, front])
                )
        else:
            by_lane: dict[int, list[str]] = {}
            for sid in ids:
                for lane in spaces[sid].lanes:
                    by_lane.setdefault(lane, []).append(sid)
            inner: list[tuple[float, int, str]] = []
            for lane, run in sorted(by_lane.items()):
                items: list[str] = []
                for k, sid in enumerate(run):
                    if k:
                        name = f"c{unit.index}.{lane if len(spaces[sid].lanes) == 1 else 0}.{k}"
                        items.append(name)
                        if name not in {n for _f, _l, n in inner}:
                            inner.append((spaces[run[k - 1]].f1, lane, name))
                    items.append(sid)
                lanes[lane] += items
            for f, _lane, name in sorted(inner):
                lines[name] = LaneLine.model_construct(at=f)
            corner = spaces[ids[0]].corner
            if corner is not None:
                turn: Literal["left", "right"] | None = (
                    "left" if unit.turn == "left" else "right" if unit.turn == "right" else None
                )
                corners.append(LaneCorner.model_construct(turn=turn, spaces=list(ids), name=corner))
        if front.startswith("r"):
            lines[front] = LaneLine.model_construct(at=unit.f1)
            lanes[1].append(front)
            lanes[2].append(front)
        back = front
    # built by this code from a face the library checked: constructed, not validated again
    # (the cut checks what it relies on), so laying a stage out stays quick
    return LaneRoad.model_construct(
        id="A",
        from_edge=cast(_Edge, entry),
        to_edge=cast(_Edge, exit_edge),
        lanes=lanes,
        lines=lines,
        corners=corners,
        overlays=overlays,
        shortcuts=[
            LaneShortcut.model_construct(
                spaces=list(sc.ids),
                limit=sc.limit,
                side=sc.lane,
                into=list(sc.into),
                out=list(sc.out),
                at=sc.at,
            )
            for sc in shortcuts
        ],
    )


def _dirt_road(
    face: TileFace,
    road: Road,
    entry: int,
    exit_edge: int,
    rev: bool,
    units: list[Unit],
    spaces: dict[str, LocalSpace],
    climb: Literal["up", "down"] | None,
    shortcuts: Sequence[_Shortcut],
    start_after: int | None,
    finish_after: int | None,
    tokens: tuple[TokenSpot, ...] = (),
) -> DrivenRoad:
    """A DIRT road from its units and spaces: cut in the lane model, steps tagged."""
    lane_road = _lane_road(units, spaces, entry, exit_edge, shortcuts)
    cut = cut_road(lane_road, space_order=list(spaces))
    steps = [_dirt_step(spaces[s.source], spaces[s.target], s.kind, climb) for s in cut.steps]
    return DrivenRoad(
        face,
        cut,
        entry,
        exit_edge,
        rev,
        units,
        spaces,
        steps,
        climb,
        start_after,
        finish_after,
        {sid: sc.limit for sc in shortcuts for sid in sc.ids},
        tokens,
        sections=road,
    )


def _dirt_step(
    a: LocalSpace, b: LocalSpace, kind: str, climb: str | None, *, edge: bool = False
) -> Step:
    """A DIRT step with its tags: jumps and fords are met across a row line (JUMP-1,
    FORD-1), climb lines lie between rows (CLIMB-1)."""
    if "shortcut" in (a.kind, b.kind):
        tags = {"shortcut"}
        if kind == "link":
            tags.add("into_shortcut" if b.kind == "shortcut" else "out_of_shortcut")
            if b.kind == "slide":
                tags.add("slide")
        else:
            tags.add(kind)
    else:
        tags = _common_tags(a, b, kind, edge=edge)
        if edge or a.unit != b.unit:
            if b.jump:
                tags.add("jump")  # rule: JUMP-1 (the die placed on the jump space decides)
            if b.ford:
                tags.add("ford")  # rule: FORD-1
    if climb is not None and not edge and crosses_line(a, b):
        tags.add(f"climb_{climb}")
    return Step(a.id, b.id, frozenset(tags))


def crosses_line(a: LocalSpace, b: LocalSpace) -> bool:
    """Whether a step crosses a line between spaces of the tile (CLIMB-1, CLIMB-6).

    Steps inside a corner or across a slide's dotted line cross no climb line.
    """
    if a.kind == "shortcut" or b.kind == "shortcut":
        return True
    return a.unit != b.unit


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
            steps.append(_dirt_step(x, y, st.kind, None, edge=True))
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


# --- Copilot tokens ------------------------------------------------------------------------


def with_changes(
    road: DrivenRoad, changes: Mapping[int, RowChange], tokens: Sequence[TokenSpot] = ()
) -> DrivenRoad:
    """``road`` with Copilot track tokens' changes, by unit index, and where its tokens lie.

    A ford or a jump marks every space of its row (as printed ones do, FORD-1, JUMP-1); a
    chicane replaces the row's spaces by one chicane space across the road, with its limit
    (CORNER-1, BOARD-2: a corner space of both lanes, like 231's), a corner of its own. The
    road is cut again in the lane model, so every step carries the right tags; ``road``
    itself is never changed (:func:`drive` caches it).
    """
    if not changes and not tokens:
        return road
    if road.sections is None:
        return dataclasses.replace(road, tokens=tuple(tokens))
    spaces = dict(road.spaces)
    units = list(road.units)
    for index, change in sorted(changes.items()):
        unit = units[index]
        if change.chicane is not None:
            for sid in unit.spaces:
                del spaces[sid]
            cid = f"{unit.section}.{unit.row}C"
            spaces[cid] = LocalSpace(
                cid,
                index,
                "chicane",
                (1, 2),
                unit.f0,
                unit.f1,
                (-1.0, 1.0),
                limit=change.chicane,
                token=change.token,
                corner=f"{unit.section}.{unit.row}",
            )
            units[index] = Unit(
                index,
                "chicane",
                unit.section,
                unit.row,
                unit.f0,
                unit.f1,
                None,
                [cid],
                [cid],
                [cid],
            )
            continue
        for sid in unit.spaces:
            sp = spaces[sid]
            spaces[sid] = dataclasses.replace(
                sp,
                ford=sp.ford or change.ford,
                jump=change.jump if change.jump is not None else sp.jump,
                token=change.token,
            )
    shortcuts = [
        _Shortcut(
            tuple(sc.spaces),
            sc.limit,
            sc.side,
            tuple(sc.into),
            tuple(sc.out),
            sc.at,
        )
        for sc in road.cut.road.shortcuts
    ]
    return _dirt_road(
        road.face,
        road.road,
        road.entry,
        road.exit,
        road.reversed,
        units,
        spaces,
        road.climb,
        shortcuts,
        road.start_after,
        road.finish_after,
        tuple(tokens),
    )


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
