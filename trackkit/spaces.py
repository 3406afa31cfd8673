"""A face's road cut into spaces, for one driving direction.

The road of a face is described from edge ``from`` to edge ``to``; a stage may drive it
either way. :func:`drive` turns the description into *units* (cross-sections: a row of
lane spaces, a full-width row, a slide row, a corner, a chicane) in driving order, with
space ids that read in that order (``"2.O1"``: section 2, outer lane, first space), the
steps between spaces inside the tile, and where each unit lies along the centre line.

Every move rule that depends on the cut of a road lives here and in :mod:`trackkit.graph`
(which chains tiles with :func:`connect`); nothing else re-derives movement.

Examples
--------
>>> from trackkit.library import default_library
>>> road = drive(default_library().get("217a"), entry=1)
>>> [u.kind for u in road.units]
['slide', 'corner', 'slide']
>>> sorted(road.spaces)[:4]
['1.1L', '1.1R', '1.1S1', '1.1S2']
>>> drive(default_library().get("217a"), entry=3).units[1].turn
'right'
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from trackkit.models.tile import (
    ChicaneSection,
    CornerSection,
    Road,
    RowRef,
    SlideSection,
    StraightSection,
    TileFace,
)

__all__ = [
    "DrivenRoad",
    "LocalSpace",
    "RowChange",
    "Step",
    "TokenSpot",
    "Unit",
    "connect",
    "crosses_line",
    "drive",
    "start_entry",
    "with_changes",
]

UnitKind = Literal["row", "full", "slide", "corner", "chicane"]
SpaceKind = Literal["lane", "full", "slide", "corner", "chicane", "shortcut"]
Side = Literal["L", "R"]

#: Relative length of each kind of unit along the centre line (a corner: per outer space).
UNIT_WEIGHT = {"row": 1.0, "full": 1.0, "slide": 1.0, "corner": 0.8, "chicane": 1.0}


@dataclass(frozen=True, slots=True)
class LocalSpace:
    """One space of a driven road.

    ``f0``/``f1`` are the back and front edge as fractions of the road's centre line, and
    ``lat`` the lateral band (-1 right edge .. +1 left edge of the road, driving direction).
    """

    id: str
    unit: int
    kind: SpaceKind
    sides: frozenset[str]
    f0: float
    f1: float
    lat: tuple[float, float]
    limit: int | None = None
    corner_lane: Literal["inner", "outer"] | None = None
    jump: int | None = None
    ford: bool = False
    token: str | None = None
    """The Copilot track token that made this space what it is (``"water"``...), if any."""


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
    """A legal forward step between two spaces of one road (or across a tile edge)."""

    source: str
    target: str
    tags: frozenset[str]


@dataclass(slots=True)
class Unit:
    """A cross-section of the road, in driving order."""

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
    """The road of a face as driven from ``entry`` to ``exit`` (local edges)."""

    face: TileFace
    road: Road
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

    @property
    def corner_turns(self) -> list[str]:
        """Turns of the corners in driving order."""
        return [u.turn for u in self.units if u.kind == "corner" and u.turn]

    @property
    def token_units(self) -> frozenset[int]:
        """Units a Copilot track token has changed (they are drawn by the token)."""
        return frozenset(t.unit for t in self.tokens if t.acts and t.unit is not None)


def _flip(side: str) -> str:
    return {"L": "R", "R": "L"}.get(side, side)


def drive(face: TileFace, entry: int) -> DrivenRoad:
    """Cut ``face``'s road into spaces for a car entering at local edge ``entry``.

    Raises
    ------
    ValueError
        If ``entry`` is not an end of the face's through road.
    """
    key = (face.id, entry)
    hit = _CACHE.get(key)
    if hit is not None and hit.face is face:
        return hit
    result = _drive(face, entry)
    _CACHE[key] = result
    return result


_CACHE: dict[tuple[str, int], DrivenRoad] = {}


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

    n_sections = len(road.sections)

    def dsec(section: int) -> int:  # forward section number -> driving order
        return n_sections + 1 - section if rev else section

    def rows_in(section: int) -> int:
        s = road.sections[section - 1]
        return s.rows if isinstance(s, StraightSection | SlideSection) else 1

    def drow(ref: RowRef) -> tuple[int, int]:
        if not rev:
            return ref.section, ref.row
        return dsec(ref.section), rows_in(ref.section) + 1 - ref.row

    # Units in driving order.
    order = range(n_sections, 0, -1) if rev else range(1, n_sections + 1)
    units: list[Unit] = []
    unit_of: dict[tuple[int, int], int] = {}
    weights: list[float] = []
    for fsec in order:
        sec = road.sections[fsec - 1]
        ds = dsec(fsec)
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
            turn = sec.turn.flipped() if rev else sec.turn
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

    jumps = {unit_of[drow(j)]: j.value for j in road.jumps}
    fords = {unit_of[drow(f)] for f in road.fords}
    spaces: dict[str, LocalSpace] = {}
    steps: list[Step] = []

    def add(space: LocalSpace, unit: Unit) -> None:
        spaces[space.id] = space
        unit.spaces.append(space.id)

    for unit, fsec in zip(units, _section_per_unit(road, rev), strict=True):
        sec = road.sections[fsec - 1]
        prefix = f"{unit.section}.{unit.row}"
        jump, ford = jumps.get(unit.index), unit.index in fords
        if unit.kind in ("row", "slide"):
            for side, lat in (("L", (0.0, 1.0)), ("R", (-1.0, 0.0))):
                add(
                    LocalSpace(
                        f"{prefix}{side}",
                        unit.index,
                        "lane",
                        frozenset(side),
                        unit.f0,
                        unit.f1,
                        lat,
                        jump=jump,
                        ford=ford,
                    ),
                    unit,
                )
            unit.entries += [f"{prefix}L", f"{prefix}R"]
            unit.exits += [f"{prefix}L", f"{prefix}R"]
            if unit.kind == "slide":  # rule: CORNER-3 (two full-width slide spaces)
                mid = (unit.f0 + unit.f1) / 2
                both = frozenset("LR")
                add(
                    LocalSpace(
                        f"{prefix}S1",
                        unit.index,
                        "slide",
                        both,
                        unit.f0,
                        mid,
                        (-1.0, 1.0),
                        jump=jump,
                        ford=ford,
                    ),
                    unit,
                )
                add(
                    LocalSpace(
                        f"{prefix}S2",
                        unit.index,
                        "slide",
                        both,
                        mid,
                        unit.f1,
                        (-1.0, 1.0),
                        jump=jump,
                        ford=ford,
                    ),
                    unit,
                )
                steps.append(Step(f"{prefix}S1", f"{prefix}S2", frozenset({"slide", "straight"})))
                unit.entries.append(f"{prefix}S1")
                unit.exits.append(f"{prefix}S2")
        elif unit.kind == "full":
            add(
                LocalSpace(
                    f"{prefix}F",
                    unit.index,
                    "full",
                    frozenset("LR"),
                    unit.f0,
                    unit.f1,
                    (-1.0, 1.0),
                    jump=jump,
                    ford=ford,
                ),
                unit,
            )
            unit.entries.append(f"{prefix}F")
            unit.exits.append(f"{prefix}F")
        elif isinstance(sec, CornerSection):
            inner_side: Side = "L" if unit.turn == "left" else "R"
            outer_side: Side = "R" if inner_side == "L" else "L"
            for lane_name, lane, side in (
                ("inner", sec.inner, inner_side),
                ("outer", sec.outer, outer_side),
            ):
                lat = (0.0, 1.0) if side == "L" else (-1.0, 0.0)
                letter = "I" if lane_name == "inner" else "O"
                # rule: CORNER-2 (each lane its own run: no lane change inside a corner)
                steps += _corner_run(
                    unit,
                    add,
                    letter,
                    lane.spaces,
                    "corner",
                    side,
                    lat,
                    lane.limit,
                    "inner" if lane_name == "inner" else "outer",
                )
        elif isinstance(sec, ChicaneSection):
            steps += _corner_run(
                unit, add, "C", sec.spaces, "chicane", "LR", (-1.0, 1.0), sec.limit, None
            )

    climb: Literal["up", "down"] | None = None
    if road.climb is not None:
        up_forward = road.climb.forward == "uphill"
        climb = "up" if up_forward != rev else "down"

    for a, b in itertools.pairwise(units):
        steps += connect(a, b, spaces, spaces, internal=True)

    shortcut_limits: dict[str, int] = {}
    for n, sc in enumerate(road.shortcuts, start=1):
        entry_units = sorted(unit_of[drow(r)] for r in sc.entry)
        exit_units = sorted(unit_of[drow(r)] for r in sc.exit)
        if rev:
            entry_units, exit_units = exit_units, entry_units
        between = [u for u in units if entry_units[-1] < u.index < exit_units[0]]
        turns = [u.turn for u in between if u.kind == "corner"]
        side = "L" if (turns[0] if turns else "left") == "left" else "R"
        f_start, f_end = units[entry_units[-1]].f1, units[exit_units[0]].f0
        if f_end <= f_start:
            f_end = units[exit_units[0]].f1
        ids = []
        lat = (1.0, 1.6) if side == "L" else (-1.6, -1.0)
        for k in range(sc.spaces):
            f0 = f_start + (f_end - f_start) * k / sc.spaces
            f1 = f_start + (f_end - f_start) * (k + 1) / sc.spaces
            sid = f"X{n}.{k + 1}"
            spaces[sid] = LocalSpace(
                sid, -1, "shortcut", frozenset(side), f0, f1, lat, limit=sc.limit
            )
            shortcut_limits[sid] = sc.limit
            ids.append(sid)
        steps += [
            Step(a, b, frozenset({"shortcut", "straight"})) for a, b in itertools.pairwise(ids)
        ]
        # rule: SHORTCUT-1 (linked to touching non-corner spaces); CORNER-3 (slide spaces too)
        for ui in entry_units:
            for sid in _touching(units[ui], spaces, side):
                steps.append(Step(sid, ids[0], frozenset({"shortcut", "into_shortcut"})))
        for ui in exit_units:
            for sid in _touching(units[ui], spaces, side):
                if spaces[sid].kind == "slide" and sid.endswith("S2"):
                    continue  # a slide is entered at its first space
                tags = {"shortcut", "out_of_shortcut"} | (
                    {"slide"} if sid.endswith("S1") else set()
                )
                steps.append(Step(ids[-1], sid, frozenset(tags)))

    def line_after(kind: str) -> int | None:
        sf = road.start_finish
        if sf is None or sf.kind != kind:
            return None
        u = unit_of[drow(sf.after)]
        return (u - 1) if rev else u  # reversed, the line lies before the same row

    if climb is not None:
        steps = [
            Step(s.source, s.target, s.tags | {f"climb_{climb}"})
            if crosses_line(spaces[s.source], spaces[s.target])
            else s
            for s in steps
        ]
    return DrivenRoad(
        face,
        road,
        entry,
        exit_edge,
        rev,
        units,
        spaces,
        steps,
        climb,
        line_after("start"),
        line_after("finish"),
        shortcut_limits,
    )


def _corner_run(
    unit: Unit,
    add: Callable[[LocalSpace, Unit], None],
    letter: str,
    count: int,
    kind: Literal["corner", "chicane"],
    sides: str,
    lat: tuple[float, float],
    limit: int,
    lane: Literal["inner", "outer"] | None,
) -> list[Step]:
    """A lane of corner (or chicane) spaces splitting the unit evenly; the steps along it."""
    ids = []
    for k in range(count):
        f0 = unit.f0 + (unit.f1 - unit.f0) * k / count
        f1 = unit.f0 + (unit.f1 - unit.f0) * (k + 1) / count
        sid = f"{unit.section}.{letter}{k + 1}"
        add(
            LocalSpace(
                sid, unit.index, kind, frozenset(sides), f0, f1, lat, limit=limit, corner_lane=lane
            ),
            unit,
        )
        ids.append(sid)
    unit.entries.append(ids[0])
    unit.exits.append(ids[-1])
    return [Step(a, b, frozenset({"corner", "straight"})) for a, b in itertools.pairwise(ids)]


def _section_per_unit(road: Road, rev: bool) -> list[int]:
    out: list[int] = []
    order = range(len(road.sections), 0, -1) if rev else range(1, len(road.sections) + 1)
    for fsec in order:
        sec = road.sections[fsec - 1]
        out += [fsec] * (sec.rows if isinstance(sec, StraightSection | SlideSection) else 1)
    return out


def _touching(unit: Unit, spaces: dict[str, LocalSpace], side: str) -> list[str]:
    return [
        sid
        for sid in unit.spaces
        if spaces[sid].kind in ("lane", "full", "slide") and side in spaces[sid].sides
    ]


def crosses_line(a: LocalSpace, b: LocalSpace) -> bool:
    """Whether a step crosses a line between spaces of the tile (CLIMB-1, CLIMB-6).

    Steps inside a corner or across a slide's dotted line cross no climb line.
    """
    if a.kind == "shortcut" or b.kind == "shortcut":
        return True
    return a.unit != b.unit


def connect(
    a: Unit,
    b: Unit,
    a_spaces: dict[str, LocalSpace],
    b_spaces: dict[str, LocalSpace],
    *,
    internal: bool,
    a_prefix: str = "",
    b_prefix: str = "",
) -> list[Step]:
    """Steps from the exits of unit ``a`` into the entries of the next unit ``b``.

    A car moves straight ahead or diagonally into the next cross-section (MOVE-1); it
    chooses its corner lane on entering (CORNER-2) and enters a slide at its first
    full-width space (CORNER-3).
    """
    steps: list[Step] = []
    for x in a.exits:
        sx = a_spaces[x]
        for y in b.entries:
            sy = b_spaces[y]
            tags = {"straight" if sx.sides & sy.sides else "diagonal"}
            if sy.kind in ("corner", "chicane"):
                tags.add("corner_entry")
            if sy.kind == "slide":
                tags.add("slide")
            if sy.jump:
                tags.add("jump")  # rule: JUMP-1 (the die placed on the jump space decides)
            if sy.ford:
                tags.add("ford")  # rule: FORD-1
            if not internal:
                tags.add("tile_edge")
            steps.append(Step(a_prefix + x, b_prefix + y, frozenset(tags)))
    return steps


def with_changes(
    road: DrivenRoad, changes: Mapping[int, RowChange], tokens: Sequence[TokenSpot] = ()
) -> DrivenRoad:
    """``road`` with Copilot track tokens' changes, by unit index, and where its tokens lie.

    A ford or a jump marks every space of its row (as printed ones do, FORD-1, JUMP-1); a
    chicane replaces the row's spaces by one chicane space across the road, with its limit
    (CORNER-1, BOARD-2: a corner space of both lanes, like 231's). The steps into and out of
    a changed row are made again (:func:`connect`), so they carry the right tags; everything
    else is shared with ``road``, which is never changed (:func:`drive` caches it).
    """
    if not changes and not tokens:
        return road
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
                frozenset("LR"),
                unit.f0,
                unit.f1,
                (-1.0, 1.0),
                limit=change.chicane,
                token=change.token,
            )
            units[index] = Unit(
                index, "chicane", unit.section, unit.row, unit.f0, unit.f1, None, [cid], [cid]
            )
            units[index].exits.append(cid)
            continue
        for sid in unit.spaces:
            sp = spaces[sid]
            spaces[sid] = dataclasses.replace(
                sp,
                ford=sp.ford or change.ford,
                jump=change.jump if change.jump is not None else sp.jump,
                token=change.token,
            )
    changed = set(changes)

    def redone(step: Step) -> bool:
        a, b = road.spaces[step.source].unit, road.spaces[step.target].unit
        return a >= 0 and b >= 0 and a != b and (a in changed or b in changed)

    steps = [s for s in road.steps if s.source in spaces and s.target in spaces and not redone(s)]
    pairs = sorted({(i - 1, i) for i in changed if i > 0} | {(i, i + 1) for i in changed})
    for a, b in pairs:
        if b < len(units):
            for step in connect(units[a], units[b], spaces, spaces, internal=True):
                if road.climb is not None:  # every step between two rows crosses a line
                    step = Step(step.source, step.target, step.tags | {f"climb_{road.climb}"})
                steps.append(step)
    return dataclasses.replace(road, units=units, spaces=spaces, steps=steps, tokens=tuple(tokens))


def start_entry(face: TileFace) -> int | None:
    """Default entry of a start or finish face: the end with more rows before its line.

    Cars line up behind the start line (BOARD-3); a finish line is crossed with the arch
    facing the driver. Both faces show the arch facing that way.
    """
    road = face.road
    if road is None or road.start_finish is None:
        return None
    forward = drive(face, road.from_edge)
    after = forward.start_after if road.start_finish.kind == "start" else forward.finish_after
    if after is None:
        return None
    before_rows = after + 1
    after_rows = len(forward.units) - before_rows
    return road.from_edge if before_rows >= after_rows else road.to_edge
