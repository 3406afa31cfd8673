"""DIRT roads into the lane model: a face's sections, driven one way, as a :class:`DrivenRoad`.

A DIRT face (``face.roads``, by sections) is converted, for the driving direction, into the
one road model of both series (:mod:`trackkit.road.spaces`): its *units* (cross-sections: a
row of lane spaces, a full-width row, a slide row, a corner, a chicane) become 2 lanes of
spaces (lane 1 the left one, driving) with a cross line between units; a full-width row or a
chicane space spans both lanes; inside a corner each lane has its own lines, so there is no
lane change inside it (CORNER-2). What only DIRT has rides on that road as data: the two
full-width slide spaces lying over a slide row (an overlay, CORNER-3), the shortcut spaces
linked to the rows they touch (SHORTCUT-1/3), and on the spaces jumps, fords and the Copilot
tokens' changes; climb lines and the start or finish line lie between units.

:func:`drive_dirt` does the conversion (:func:`trackkit.road.spaces.drive` calls it and
caches the result); :func:`dirt_road` cuts units and spaces in the lane model and tags the
steps with :func:`dirt_step`, which :func:`trackkit.road.spaces.join` also uses across a
tile edge and :mod:`trackkit.road.token_changes` when a token changes a row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

from trackkit.models.lanes import LaneCorner, LaneLine, LaneOverlay, LaneRoad, LaneShortcut
from trackkit.models.tile import (
    ChicaneSection,
    CornerSection,
    Road,
    RowRef,
    SlideSection,
    StraightSection,
    TileFace,
)
from trackkit.road.driven import (
    DrivenRoad,
    LocalSpace,
    Step,
    TokenSpot,
    Unit,
    UnitKind,
    common_tags,
)
from trackkit.road.lanes import cut_road

__all__ = [
    "UNIT_WEIGHT",
    "Shortcut",
    "crosses_line",
    "dirt_road",
    "dirt_step",
    "drive_dirt",
]

_Edge = Literal[0, 1, 2, 3, 4, 5]

#: Relative length of each kind of unit along the centre line (a corner: per outer space).
UNIT_WEIGHT = {"row": 1.0, "full": 1.0, "slide": 1.0, "corner": 0.8, "chicane": 1.0}


def drive_dirt(face: TileFace, entry: int) -> DrivenRoad:
    """The DIRT road of ``face`` cut into spaces for a car entering at local edge ``entry``.

    Use :func:`trackkit.road.spaces.drive`, which caches the result.

    Raises
    ------
    ValueError
        If the face has no through road, or ``entry`` is not one of its ends.
    """
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

    return dirt_road(
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
class Shortcut:
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
) -> list[Shortcut]:
    """The road's shortcuts: spaces beside the inner side of the bend (SHORTCUT-1)."""
    out: list[Shortcut] = []
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
        out.append(Shortcut(tuple(ids), sc.limit, lane, tuple(into), tuple(outs), (f_start, f_end)))
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
    shortcuts: Sequence[Shortcut],
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


def dirt_road(
    face: TileFace,
    road: Road,
    entry: int,
    exit_edge: int,
    rev: bool,
    units: list[Unit],
    spaces: dict[str, LocalSpace],
    climb: Literal["up", "down"] | None,
    shortcuts: Sequence[Shortcut],
    start_after: int | None,
    finish_after: int | None,
    tokens: tuple[TokenSpot, ...] = (),
) -> DrivenRoad:
    """A DIRT road from its units and spaces: cut in the lane model, steps tagged."""
    lane_road = _lane_road(units, spaces, entry, exit_edge, shortcuts)
    cut = cut_road(lane_road, space_order=list(spaces))
    steps = [dirt_step(spaces[s.source], spaces[s.target], s.kind, climb) for s in cut.steps]
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


def dirt_step(
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
        tags = common_tags(a, b, kind, edge=edge)
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
