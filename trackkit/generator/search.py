"""Build a road tile by tile on the hex grid: a depth-first search with backtracking.

The road starts with a start tile on hex (0, 0), as a stage file's first tile is laid,
and each further tile is snapped onto the road end by :func:`trackkit.stage.assemble.lay_out`
itself: :class:`Placer` lays out the tile before (where it lies) and the tile tried, and
reads where the tried one landed (:attr:`PlacedTile.hex`, :attr:`PlacedTile.rotation`,
:attr:`PlacedTile.exit_world`). Where a tile lands depends only on the tile before it
and how that one is turned, so each answer is remembered under those and asked for once
per run. Every candidate stage is laid out whole again and validated: its tiles must lie
where the search put them.

At each step the ways the boxes still hold are tried in a weighted random order (one
generator passed in; the weights come from :func:`trackkit.generator.score.way_weights`:
the surface mix still wanted, the difficulty aimed at, the climb tiles a hillclimb needs).
A tile is refused when its hex is taken, when the hex its road leads to is taken, or when
fewer free hexes lie beyond than tiles remain (a flood fill); when every way is refused
the search steps back and tries the next way of the tile before. A search that runs out
of its step budget starts again from the start tile, with the same generator.

The :class:`Goal` says which ways may come next and when the road is complete. DIRT
stages are :class:`ChainGoal`: a start, the road, a finish. A GT circuit would be another
goal (no finish tile; complete when the road's exit meets the start tile's entry) over
the same search.

Examples
--------
>>> import random
>>> from trackkit.generator.pieces import check_dirt_request
>>> from trackkit.generator.request import Request
>>> from trackkit.generator.score import Aim
>>> request = Request(boxes=("dirt-core",), tiles=8)
>>> request, pal = check_dirt_request(request)
>>> aim = Aim.of(request, pal)
>>> road = build_road(pal, ChainGoal(tiles=8), aim, random.Random(3), Placer())
>>> len(road.ways), road.ways[0].line, road.ways[-1].line, len(set(road.hexes))
(8, 'start', 'finish', 8)
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from trackkit.generator.circuit import CircuitGoal
from trackkit.generator.pieces import Palette, Piece, Way
from trackkit.generator.score import Aim, way_weights
from trackkit.models.stage import Stage, StageTile
from trackkit.road import hexgrid
from trackkit.stage.assemble import lay_out
from trackkit.tiles.library import TileLibrary, default_library

__all__ = ["ChainGoal", "Goal", "Placer", "Road", "SearchFailed", "Step", "build_road"]

#: Tries of a tile per tile of the road before a search starts again.
STEPS_PER_TILE = 60
#: Fresh starts before a search gives up.
RESTARTS = 40


class SearchFailed(Exception):
    """No road met the goal within the search budget (the caller says why, in words)."""


@dataclass(frozen=True, slots=True)
class Step:
    """Where a way lands: the hex offset from the tile before, its exit and rotation."""

    offset: hexgrid.Hex
    exit: int
    rotation: int


class Placer:
    """Where the next tile lands, as :func:`~trackkit.stage.assemble.lay_out` places it.

    Each question is a small stage file laid out: the tile before, placed where it lies
    (``at: [0, 0]``, its ``dir``), and the tile tried, snapped onto it. The answer is
    remembered under the tile before, its rotation and the way tried.

    Parameters
    ----------
    library : TileLibrary, optional
        The faces (default: the shipped library).
    """

    def __init__(self, library: TileLibrary | None = None) -> None:
        self.library = library
        self._memo: dict[tuple[str, int, str], Step | None] = {}
        self._first: dict[str, Step | None] = {}
        self._gt: dict[tuple[tuple[int, int, str], str], Step | None] = {}
        self._pairs: set[tuple[tuple[int, int, str], str]] = set()
        self._exits: dict[str, tuple[int, int, str]] = {}
        self.layouts = 0
        """How many small stages were laid out (for the benchmark)."""

    def _lay(self, tiles: list[StageTile], *, counted: bool = True) -> Step | None:
        """The last tile of ``tiles`` as laid out, or None if the placement refuses it."""
        self.layouts += counted
        layout = lay_out(Stage(format="trackkit-stage/1", tiles=tiles), self.library)
        if len(layout.chain) != len(tiles) or any(
            f.location.tile_index == len(tiles) for f in layout.findings
        ):
            return None  # S102, S103, S104: the placement refuses this way here
        last = layout.chain[-1]
        if last.exit_world is None:
            return None
        (q0, r0), (q1, r1) = layout.chain[0].hex, last.hex
        return Step((q1 - q0, r1 - r0), last.exit_world, last.rotation)

    def first(self, way: Way) -> Step | None:
        """``way`` laid as a stage's first tile: on hex (0, 0), offset (0, 0)."""
        if way.key not in self._first:
            self._first[way.key] = self._lay([way.tile()])
        return self._first[way.key]

    def after(self, prev: Way, rotation: int, way: Way) -> Step | None:
        """Where ``way`` lands after ``prev`` laid with ``rotation``.

        A GT answer is asked once per way and edge the tile before leaves by (its
        number, lanes and skew hand, ``prev`` laid unturned: nothing else of it changes
        where the next one lands), and turned with it: auto-snap is the same in every
        direction (the hex the road leads to, the turn that meets it), and GT pieces are
        asked about far more often (every way is placed before the search picks one,
        :func:`_close`). The answers of the shipped library are shared by the process;
        ``layouts`` counts the questions of this placer all the same, so the run's
        figures do not depend on what ran before.
        """
        if prev.face.series == "gt":
            return self._gt_after(prev, rotation, way)
        key = (prev.key, rotation, way.key)
        if key not in self._memo:
            before = prev.probe().model_copy(update={"at": (0, 0), "dir": rotation})
            self._memo[key] = self._lay([before, way.tile()])
        return self._memo[key]

    def _gt_after(self, prev: Way, rotation: int, way: Way) -> Step | None:
        leaves = self._exits.get(prev.key)
        if leaves is None:
            leaves = self._exits[prev.key] = _exit_of(prev)
        pair = (leaves, way.key)
        if pair not in self._pairs:
            self._pairs.add(pair)
            self.layouts += 1
        shared = self.library is None or self.library is default_library()
        memo = _GT_STEPS if shared else self._gt
        if pair not in memo:
            before = prev.probe().model_copy(update={"at": (0, 0), "dir": 0})
            memo[pair] = self._lay([before, way.tile()], counted=False)
        base = memo[pair]
        if base is None:
            return None
        if rotation == 0:
            return base
        d = hexgrid.DIRECTIONS.index(base.offset)
        return Step(
            hexgrid.DIRECTIONS[(d + rotation) % 6],
            (base.exit + rotation) % 6,
            (base.rotation + rotation) % 6,
        )


#: GT placement answers of the shipped library, by the edge a way leaves by and the key
#: of the way after it (see Placer.after).
_GT_STEPS: dict[tuple[tuple[int, int, str], str], Step | None] = {}


def _exit_of(way: Way) -> tuple[int, int, str]:
    """The edge a GT way leaves by, laid unturned: its number, lanes and skew hand.

    Where the next tile lands depends on nothing else of the tile before (auto-snap
    turns it to meet that edge; S104 and S128 compare its lanes and hand), so the
    answers of all the ways that leave by one such edge are one answer."""
    assert way.drives is not None
    edge = (hexgrid.opposite(way.drives[1]) + way.bend) % 6
    skew = way.face.skews.get(edge)
    return (edge, way.face.lanes.get(edge, 0), skew.value if skew is not None else "")


@dataclass(slots=True)
class Road:
    """A road being built: its ways in driving order, their hexes and exit directions."""

    ways: list[Way] = field(default_factory=list)
    hexes: list[hexgrid.Hex] = field(default_factory=list)
    exits: list[int] = field(default_factory=list)
    rotations: list[int] = field(default_factory=list)
    used: Counter[Piece] = field(default_factory=Counter)
    surfaces: Counter[str] = field(default_factory=Counter)
    length_mm: float = 0.0
    climbs: int = 0
    risk: float = 0.0
    """The sum of the laid ways' risks (:func:`trackkit.generator.score.way_risk`)."""
    bend: int = 0
    """The sum of the laid ways' bends (:attr:`Way.bend`): the heading at the road end,
    from the start tile's entry, in 60 degree steps."""

    def push(self, way: Way, at: hexgrid.Hex, step: Step) -> None:
        """Lay ``way`` on hex ``at``, turned and leading on as ``step`` says."""
        self.ways.append(way)
        self.hexes.append(at)
        self.exits.append(step.exit)
        self.rotations.append(step.rotation)
        if not way.again:  # a piece driven again is no new piece
            self.used[way.piece] += 1
            self.surfaces[way.face.surface.value] += 1
        self.length_mm += way.length_mm
        self.climbs += way.is_climb
        self.risk += way.risk
        self.bend += way.bend

    def pop(self) -> None:
        """Take the last tile off again."""
        way = self.ways.pop()
        self.hexes.pop()
        self.exits.pop()
        self.rotations.pop()
        if not way.again:
            self.used[way.piece] -= 1
            self.surfaces[way.face.surface.value] -= 1
        self.length_mm -= way.length_mm
        self.climbs -= way.is_climb
        self.risk -= way.risk
        self.bend -= way.bend

    @property
    def pieces(self) -> int:
        """Tiles on the table: the ways laid, a piece driven again counted once."""
        return sum(1 for w in self.ways if not w.again)

    @property
    def signature(self) -> tuple[str, ...]:
        """The road's ways in order: two roads with one signature are one stage."""
        return tuple(w.key for w in self.ways)


class Goal(Protocol):
    """What the search builds: which ways may come next, when the road is complete."""

    def next_ways(self, road: Road, pal: Palette) -> tuple[Sequence[Way], bool]:
        """The ways that may be laid next, and whether laying one completes the road."""
        ...

    def room_needed(self, road: Road, pal: Palette) -> int:
        """Free hexes the road still needs beyond the tile just laid."""
        ...


@dataclass(frozen=True, slots=True)
class ChainGoal:
    """A DIRT stage: a start tile, road tiles, a finish tile (BOARD-3).

    Parameters
    ----------
    tiles : int, optional
        Tiles of the stage, start and finish included.
    length_mm : float, optional
        Road length wanted instead: the finish is laid once the road is long enough.
    min_tiles : int
        Tiles the stage has at least (tokens need tiles to lie on).
    climbs : tuple of int
        Least and most climb tiles (a hillclimb needs one, HILLCLIMB-1).
    """

    tiles: int | None = None
    length_mm: float | None = None
    min_tiles: int = 2
    climbs: tuple[int, int] = (0, 0)
    lines_counted: bool = False
    """Finish faces only of pieces left (GT: a start/finish piece is the start or the
    finish; DIRT's start and finish pieces differ)."""

    def _finishing(self, road: Road, pal: Palette) -> bool:
        n = len(road.ways)
        if self.tiles is not None:
            return n == self.tiles - 1
        assert self.length_mm is not None
        if n + 1 < self.min_tiles or road.climbs < self.climbs[0]:
            return False
        # the stage's length runs from the start line to the finish line: about half of
        # the start tile and half of the finish tile count
        finish = min(w.length_mm for w in pal.finishes)
        counted = road.length_mm - road.ways[0].length_mm / 2 + finish / 2
        return counted >= self.length_mm - _half_tile(pal)

    def next_ways(self, road: Road, pal: Palette) -> tuple[Sequence[Way], bool]:
        """Start first, finish last; between, the ways whose pieces are left."""
        if not road.ways:
            return pal.starts, False
        if self._finishing(road, pal):
            if self.lines_counted:
                left = [w for w in pal.finishes if road.used[w.piece] < pal.copies[w.piece]]
                return left, True
            return pal.finishes, True
        free = [w for w in pal.middles if road.used[w.piece] < pal.copies[w.piece]]
        least, most = self.climbs
        if road.climbs >= most:
            free = [w for w in free if not w.is_climb]
        if self.tiles is not None:
            slots = self.tiles - 1 - len(road.ways)  # road tiles still to lay, this one too
            if slots <= least - road.climbs:
                free = [w for w in free if w.is_climb]
        return free, False

    def room_needed(self, road: Road, pal: Palette) -> int:
        """Tiles still to lay after the last one (by length: at the longest tile)."""
        if self.tiles is not None:
            return self.tiles - len(road.ways)
        assert self.length_mm is not None
        longest = max(w.length_mm for w in pal.middles)
        rest = max(0.0, self.length_mm - road.length_mm)
        return max(1, self.min_tiles - len(road.ways), int(rest // longest) + 1)


def _half_tile(pal: Palette) -> float:
    lengths = sorted(w.length_mm for w in pal.middles)
    return lengths[len(lengths) // 2] / 2


def _room(start: hexgrid.Hex, taken: set[hexgrid.Hex], need: int) -> bool:
    """Whether at least ``need`` free hexes are reachable from ``start`` (a flood fill)."""
    if need <= 0:
        return True
    if start in taken:
        return False
    seen = {start}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        for d in range(6):
            n = hexgrid.neighbour(h, d)
            if n not in seen and n not in taken:
                seen.add(n)
                if len(seen) >= need:
                    return True
                queue.append(n)
    return len(seen) >= need


def _ordered(ways: Sequence[Way], weights: Sequence[float], rng: random.Random) -> list[Way]:
    """A weighted random order without repeats (Efraimidis-Spirakis keys u ** (1 / w))."""
    keyed = [(rng.random() ** (1.0 / w), i) for i, w in enumerate(weights)]
    keyed.sort(reverse=True)
    return [ways[i] for _, i in keyed]


def build_road(pal: Palette, goal: Goal, aim: Aim, rng: random.Random, placer: Placer) -> Road:
    """A road that meets ``goal`` from the pieces of ``pal``.

    Parameters
    ----------
    pal : Palette
        The ways the boxes hold and the copies of each piece.
    goal : Goal
        What a complete road is.
    aim : Aim
        The targets the ways are weighted by (surfaces, difficulty).
    rng : random.Random
        The one generator of the run.
    placer : Placer
        Placement answers of :func:`~trackkit.stage.assemble.lay_out`, shared by the run.

    Raises
    ------
    SearchFailed
        When every try ran out of its budget.
    """
    for _ in range(RESTARTS):
        road = Road()
        budget = [STEPS_PER_TILE * max(4, goal.room_needed(road, pal))]
        if isinstance(goal, CircuitGoal):
            if _close(road, pal, goal, aim, rng, placer, budget):
                return road
        elif _extend(road, pal, goal, aim, rng, placer, budget):
            return road
    raise SearchFailed("no road found")


def _extend(
    road: Road,
    pal: Palette,
    goal: Goal,
    aim: Aim,
    rng: random.Random,
    placer: Placer,
    budget: list[int],
) -> bool:
    ways, completes = goal.next_ways(road, pal)
    if not ways:
        return False
    weights = way_weights(ways, road, aim)
    taken = set(road.hexes)
    for way in _ordered(ways, weights, rng):
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if not road.ways:
            step = placer.first(way)
            if step is None:
                continue
            at: hexgrid.Hex = step.offset
        else:
            found = placer.after(road.ways[-1], road.rotations[-1], way)
            if found is None:
                continue
            step = found
            q, r = road.hexes[-1]
            at = (q + step.offset[0], r + step.offset[1])
            if at in taken:
                continue
        if not completes:
            ahead = hexgrid.neighbour(at, step.exit)
            road.push(way, at, step)
            room = _room(ahead, taken | {at}, goal.room_needed(road, pal))
            if room and _extend(road, pal, goal, aim, rng, placer, budget):
                return True
            road.pop()
            if budget[0] < 0:
                return False
            continue
        road.push(way, at, step)
        return True
    return False


def _distances(target: hexgrid.Hex, taken: set[hexgrid.Hex], reach: int) -> dict[hexgrid.Hex, int]:
    """Free hexes within ``reach`` steps of ``target``, by their distance (a BFS)."""
    if target in taken:
        return {}
    out = {target: 0}
    frontier = deque([target])
    while frontier:
        h = frontier.popleft()
        d = out[h]
        if d >= reach:
            continue
        for k in range(6):
            n = hexgrid.neighbour(h, k)
            if n not in out and n not in taken:
                out[n] = d + 1
                frontier.append(n)
    return out


def _close(
    road: Road,
    pal: Palette,
    goal: CircuitGoal,
    aim: Aim,
    rng: random.Random,
    placer: Placer,
    budget: list[int],
) -> bool:
    """:func:`_extend` for a circuit: every way is placed first, those that leave the
    road end too far from the start to close are refused, the rest weighted toward it."""
    ways, completes = goal.next_ways(road, pal)
    taken = set(road.hexes)
    left = goal.tiles - len(road.ways) - 1  # tiles to lay after this one
    near = _distances(goal.target(road), taken, left) if road.ways and not completes else {}
    options: list[tuple[Way, hexgrid.Hex, Step, int]] = []
    for way in ways:
        if not road.ways:
            first = placer.first(way)
            if first is None:
                continue
            options.append((way, first.offset, first, left))
            continue
        found = placer.after(road.ways[-1], road.rotations[-1], way)
        if found is None:
            continue
        q, r = road.hexes[-1]
        at = (q + found.offset[0], r + found.offset[1])
        if at in taken:
            continue
        if completes:
            if goal.closes(road, way, at, found.rotation, placer):
                options.append((way, at, found, 0))
            continue
        ahead = hexgrid.neighbour(at, found.exit)
        if ahead == at or ahead in taken or ahead not in near:
            continue
        slack = left - 1 - near[ahead]
        if slack >= 0 and goal.can_close(road, pal, way, ahead, found.exit, left):
            options.append((way, at, found, slack))
    if not options:
        return False
    weights = way_weights([o[0] for o in options], road, aim)
    weights = [w * goal.weight(o[3], left) for w, o in zip(weights, options, strict=True)]
    if not road.ways:
        weights = [w * goal.start_weight(o[0]) for w, o in zip(weights, options, strict=True)]
    keyed = sorted(((rng.random() ** (1.0 / w), i) for i, w in enumerate(weights)), reverse=True)
    for _, i in keyed:
        way, at, step, _slack = options[i]
        budget[0] -= 1
        if budget[0] < 0:
            return False
        road.push(way, at, step)
        if completes or _close(road, pal, goal, aim, rng, placer, budget):
            return True
        road.pop()
        if not road.ways:
            goal.failures[way.key] += 1
        if budget[0] < 0:
            return False
    return False
