"""The types of a driven road, for both series: :class:`DrivenRoad` and its parts.

A :class:`DrivenRoad` is a face's road as driven one way (made by
:func:`trackkit.road.spaces.drive`): its :class:`LocalSpace` spaces, its :class:`Step` steps,
and on DIRT roads its :class:`Unit` cross-sections; :class:`TokenSpot` and :class:`RowChange`
say where a placed tile's tokens lie and what a Copilot track token makes of a row
(:mod:`trackkit.road.token_changes`). :func:`common_tags` gives the tags every step has,
whichever series. The types live apart from the code that builds them so that the GT cut
(:mod:`trackkit.road.spaces`), the DIRT conversion (:mod:`trackkit.road.dirt_cut`) and the
token changes share them without importing each other in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from trackkit.models.lanes import LaneCorner, StartLine
from trackkit.models.tile import Road, TileFace
from trackkit.road.lanes import RoadCut

__all__ = [
    "DrivenRoad",
    "LocalSpace",
    "RowChange",
    "SpaceKind",
    "Step",
    "TokenSpot",
    "Unit",
    "UnitKind",
    "common_tags",
]

UnitKind = Literal["row", "full", "slide", "corner", "chicane"]
SpaceKind = Literal["lane", "full", "slide", "corner", "chicane", "shortcut"]


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
    """Where the tokens of the placed tile lie (those with a place), see
    :func:`trackkit.road.token_changes.with_changes`."""
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


def common_tags(a: LocalSpace, b: LocalSpace, kind: str, *, edge: bool) -> set[str]:
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
