"""Rallyman: GT circuits: the goal that closes one, and why some boxes cannot.

The pieces of the GT boxes and the checks of a GT request are in
:mod:`trackkit.generator.gt_pieces`.

**Closing the loop** (:class:`CircuitGoal`). The circuit's last tile must sit on the hex
before the start tile (the one its entry faces) and lead into it with the same lanes and
skew hand. After each tile the search asks how far the road end is from that hex, in
free hexes (a breadth-first search round the road already laid): a road end further away
than the tiles still to lay cannot close, and the search steps back at once. The ways
are weighted toward the start as the slack (tiles left minus that distance) runs out,
and the last tile is accepted only when :func:`trackkit.stage.assemble.lay_out` itself snaps
the start tile onto it where it lies (:class:`~trackkit.generator.search.Placer`), so the
lanes and skew edges meet there as at every other edge. Before a way is laid, the
pieces left are asked whether they can still close the road at all (their bends, the
edges they join, and near the end the pieces themselves tried to the start:
:meth:`CircuitGoal.can_close`); boxes whose pieces cannot close a circuit of the size
asked at all fail at once, saying what they hold (:meth:`CircuitGoal.why_not`).

Examples
--------
>>> from trackkit.generator.gt_pieces import check_gt_request
>>> from trackkit.generator.request import Request
>>> request, pal = check_gt_request(Request(boxes=("gt-core",), ruleset="gt", tiles=10))
>>> goal = CircuitGoal.of(10, pal)
>>> goal.why_not(pal) is None  # gt-core's pieces can close a circuit of 10 tiles
True
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from trackkit.generator.gt_pieces import (
    DEFAULT_PLAYERS,
    GT_BOXES,
    LEAST_TILES,
    fitting_starts,
    grid_slots,
    gt_palette,
)
from trackkit.generator.pieces import Palette, Piece, Way
from trackkit.generator.request import GenerateError, Request
from trackkit.models.stage import Stage
from trackkit.road import hexgrid
from trackkit.stage.assemble import lay_out
from trackkit.tiles.library import TileLibrary

if TYPE_CHECKING:
    from trackkit.generator.search import Placer, Road

__all__ = ["CircuitGoal", "no_circuit"]


def no_circuit(
    asked: Request,
    request: Request,
    pal: Palette,
    goal: CircuitGoal,
    library: TileLibrary | None = None,
) -> GenerateError | None:
    """Why no circuit of the size asked can close from the start/finish tiles ``pal``
    keeps (those whose grid holds the players), naming the option really at fault and
    what would work; None when one can (the search still has to find it).

    The players are at fault when the boxes' other start/finish tiles, whose grids hold
    fewer cars, could close it; else the size when another size could (``--tiles``, or
    the default size when none was asked for); else the boxes. What would work is worked
    out, not guessed: the most players, the sizes, and the boxes not named whose pieces
    would close the circuit.

    Parameters
    ----------
    asked : Request
        The request as given (to tell a size asked for from the default one).
    request, pal : Request, Palette
        As :func:`~trackkit.generator.gt_pieces.check_gt_request` settled them.
    goal : CircuitGoal
        The circuit of the size asked (or of the default size).
    """
    why = goal.why_not(pal)
    if why is None:
        return None
    players = request.players or DEFAULT_PLAYERS
    full = gt_palette(request.boxes, library)
    extra = _boxes_that_close(request, goal.tiles, players, library)
    grids = {w.face.id: grid_slots(w.face) for w in full.starts}
    for fewer in sorted({g for g in grids.values() if g < players}, reverse=True):
        starts = fitting_starts(full, fewer)
        other = replace(full, starts=starts, finishes=starts)
        if CircuitGoal.of(goal.tiles, other, library).why_not(other) is not None:
            continue
        holders = ", ".join(
            f"{w.face.id} ({w.face.box}, {grids[w.face.id]} slots)" for w in pal.starts
        )
        others = ", ".join(w.face.id for w in starts if grids[w.face.id] < players)
        return GenerateError(
            "--players",
            f"{players} cars need a grid of {players} slots or more, and of your "
            f"start/finish tiles only {holders} {'has' if len(pal.starts) == 1 else 'have'} "
            f"one; but {why}: use --players {fewer} "
            f"or fewer (the grids of {others} hold {fewer})" + _or_add(extra),
        )
    given = asked.tiles is not None or asked.length_mm is not None
    sizes = [
        n
        for n in range(LEAST_TILES, pal.max_tiles + 1)
        if n != goal.tiles and CircuitGoal.of(n, pal, library).why_not(pal) is None
    ]
    if sizes:
        smaller = [n for n in sizes if n < goal.tiles]
        ask = f"--tiles {max(smaller)} or fewer" if smaller else f"--tiles {min(sizes)} or more"
        option = "--length-mm" if asked.length_mm is not None else "--tiles"
        default = "" if given else f" ({goal.tiles} tiles is the size when --tiles is not given)"
        return GenerateError(option, f"{why}: ask for {ask}{default}" + _or_add(extra))
    if extra:
        instead = _or_add(extra).removeprefix(", or ")
    else:
        instead = "name other boxes"
        # no box closes it from a grid that holds the players: with fewer, one may
        for fewer in range(players - 1, 0, -1):
            boxes = _boxes_that_close(request, goal.tiles, fewer, library)
            if boxes:
                instead = f"use --players {fewer} or fewer" + _or_add(boxes).replace(
                    ", or add", " and add"
                )
                break
    return GenerateError("--boxes", f"{why}; no circuit of another size closes either: {instead}")


def _boxes_that_close(
    request: Request, tiles: int, players: int, library: TileLibrary | None
) -> list[str]:
    """The GT boxes not named whose pieces, added, let a circuit of ``tiles`` close from
    a start/finish tile whose grid holds ``players``."""
    out = []
    for box in GT_BOXES:
        if box in request.boxes:
            continue
        pal = gt_palette((*request.boxes, box), library)
        starts = fitting_starts(pal, players)
        if not starts:
            continue
        more = replace(pal, starts=starts, finishes=starts)
        if CircuitGoal.of(tiles, more, library).why_not(more) is None:
            out.append(box)
    return out


def _or_add(boxes: list[str]) -> str:
    """``, or add gt-core`` (nothing when no box would do)."""
    if not boxes:
        return ""
    return ", or add " + (boxes[0] if len(boxes) == 1 else "one of " + ", ".join(boxes))


#: Tiles left up to which the search looks up whether the road end can still reach the
#: start tile heading into it (:func:`_reach`); beyond it, the distance alone is asked.
REACH_TILES = 8
#: Tiles left up to which the search tries the pieces left to the end, piece by piece
#: (:meth:`CircuitGoal.can_close`)...
FINISH_TILES = 3
#: ... and up to which it does so when at most :data:`SCARCE` pieces are to spare (a
#: box with few pieces of the road's width: most roads cannot close, and only trying
#: the pieces left finds that out in time).
SCARCE_FINISH_TILES = 12
SCARCE = 4
#: With more pieces to spare than :data:`SCARCE`, the bends and edges of the pieces left
#: are summed only while at most this many of them can change the kind of edge.
FEW_CHANGING = 12


@lru_cache(maxsize=16)
def _reach(bends: frozenset[int], tiles: int) -> tuple[frozenset[tuple[int, int, int]], ...]:
    """Where ``n`` tiles of these ``bends`` can lead, for each ``n`` up to ``tiles``.

    Item ``n`` holds ``(dq, dr, dh)``: a road end on hex (0, 0) heading 0 (the next tile
    goes on (0, 0), entered heading along :data:`hexgrid.DIRECTIONS` [0]) reaches hex
    (dq, dr) heading ``dh`` after ``n`` tiles, on an empty table.
    """
    level = frozenset({(0, 0, 0)})
    out = [level]
    for _ in range(tiles):
        nxt = set()
        for q, r, h in level:
            for b in bends:
                g = (h + b) % 6
                dq, dr = hexgrid.DIRECTIONS[g]
                nxt.add((q + dq, r + dr, g))
        level = frozenset(nxt)
        out.append(level)
    return tuple(out)


def _changes(kind: frozenset[tuple[int, int, int]]) -> bool:
    """Whether a piece of this kind can join two kinds of edge (:attr:`CircuitGoal.kinds`)."""
    return any(a != z for a, z, _b in kind)


def _turned(h: hexgrid.Hex, steps: int) -> hexgrid.Hex:
    """Axial vector ``h`` turned ``steps`` directions on (DIRECTIONS[i] -> [i + steps])."""
    q, r = h
    for _ in range(steps % 6):
        q, r = -r, q + r
    return (q, r)


@dataclass(frozen=True, slots=True)
class CircuitGoal:
    """A GT circuit of ``tiles`` tiles: a start/finish tile, the road back to it.

    Besides the distance left to the start (:mod:`trackkit.generator.circuit`), a way is
    laid only where the pieces still in the box can close the road (:meth:`can_close`):

    - **bends**: a circuit that does not cross itself turns once round, its
      :attr:`Way.bend` adding up to 6 or -6; and the edge kinds (lanes, skew hand) the
      pieces join must lead from the road end's edge to the start tile's (an odd number
      of the pieces' ends on each of those two kinds, an even number on any other). Both
      at once, for the number of tiles still to lay, are a small dynamic programme over
      the pieces left, grouped by kind (:meth:`_bend_sums`);
    - **heading**: with :data:`REACH_TILES` or fewer tiles left, the road end must be
      able to reach the start tile's hex heading into it (:func:`_reach`);
    - **to the end**: with :data:`FINISH_TILES` or fewer left (or with few pieces to
      spare, :data:`SCARCE`), the pieces left are tried one after the other to the start
      tile, on an empty table, remembered by what is left (:meth:`_finish`).

    Each is necessary, not sufficient (the placement makes its own checks); together
    they stop the search at once where a box holds few bends or few pieces of the
    road's width, instead of after a few thousand tiles laid in vain. A start/finish
    way whose pieces cannot close at all is not tried (:attr:`opens`), and when none
    can, :meth:`why_not` says why.

    Parameters
    ----------
    tiles : int
        Tiles of the circuit, the start/finish included.
    ends : dict
        Per start way (its key): the hex the last tile must lie on (the one the start
        tile's entry faces) and the start tile's rotation as laid first.
    """

    tiles: int
    ends: dict[str, tuple[hexgrid.Hex, int]]
    pull: float = 0.6
    """How strongly the ways are weighted toward the start as the slack runs out."""
    headings: dict[str, int] = field(default_factory=dict)
    """Per start way: the heading of the road into the start tile (last tile's exit)."""
    edges: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per way: the kinds of edge (lanes and skew hand) it enters and leaves by."""
    kinds: dict[str, tuple[frozenset[tuple[int, int, int]], ...]] = field(default_factory=dict)
    """Per start way: what a piece can be laid as in a circuit from it (the kind of
    edge it is entered by, the kind it leaves by, its bend), each distinct set once:
    pieces of one kind are as good as each other to these checks."""
    kind_of: dict[str, dict[Piece, int]] = field(default_factory=dict)
    """Per start way: each middle piece's kind (an index into ``kinds``); a piece of
    other widths than the start's (with no piece to change to them) has none."""
    groups: dict[str, tuple[tuple[int, ...], int, int]] = field(default_factory=dict)
    """Per start way: the road widths its circuit can have (lanes), the pieces of those
    widths and how many of them bend."""
    opens: dict[str, bool] = field(default_factory=dict)
    """Per start way: whether its pieces can close a circuit at all (their widths,
    bends and edge kinds; :meth:`can_close`)."""
    reach: tuple[frozenset[tuple[int, int, int]], ...] = ()
    failures: Counter[str] = field(default_factory=Counter)
    """Per start way: the searches from it that ran out of budget in this run."""
    _sums: dict[tuple[str, tuple[int, ...]], tuple[list[dict[int, int]], list[int]]] = field(
        default_factory=dict, repr=False
    )
    _finished: dict[tuple[object, ...], bool] = field(default_factory=dict, repr=False)
    _node: dict[tuple[str, tuple[tuple[Piece, int], ...]], list[int]] = field(
        default_factory=dict, repr=False
    )
    """The pieces left per kind at the node the search is at (one entry)."""

    @classmethod
    def of(cls, tiles: int, pal: Palette, library: TileLibrary | None = None) -> CircuitGoal:
        """The goal for the start ways of ``pal``, each laid as a stage's first tile."""
        ends: dict[str, tuple[hexgrid.Hex, int]] = {}
        headings: dict[str, int] = {}
        for way in pal.starts:
            stage = Stage(format="trackkit-stage/1", ruleset="gt", tiles=[way.tile()])
            first = lay_out(stage, library).chain[0]
            assert first.entry_world is not None
            ends[way.key] = (hexgrid.neighbour(first.hex, first.entry_world), first.rotation)
            headings[way.key] = hexgrid.opposite(first.entry_world)
        types: dict[tuple[int, str], int] = {}

        def edge(way: Way, at: int) -> int:
            skew = way.face.skews.get(at)
            key = (way.face.lanes.get(at, 0), skew.value if skew is not None else "")
            return types.setdefault(key, len(types))

        ends_of: dict[str, tuple[int, int]] = {}
        for way in (*pal.starts, *pal.middles):
            assert way.drives is not None
            entry = way.drives[1]
            exit_ = (hexgrid.opposite(entry) + way.bend) % 6
            ends_of[way.key] = (edge(way, entry), edge(way, exit_))
        # the kinds of edge a road can pass between: a circuit stays inside one group
        group = list(range(len(types)))

        def find(t: int) -> int:
            while group[t] != t:
                t = group[t]
            return t

        for w in pal.middles:
            a, b = ends_of[w.key]
            group[find(a)] = find(b)
        kinds: dict[str, tuple[frozenset[tuple[int, int, int]], ...]] = {}
        kind_of: dict[str, dict[Piece, int]] = {}
        for start in pal.starts:
            home = find(ends_of[start.key][0])
            options: dict[Piece, set[tuple[int, int, int]]] = {}
            for w in pal.middles:
                a, b = ends_of[w.key]
                if find(a) == home:
                    options.setdefault(w.piece, set()).add((a, b, w.bend))
            kinds[start.key] = tuple(sorted({frozenset(o) for o in options.values()}, key=sorted))
            kind_of[start.key] = {
                p: kinds[start.key].index(frozenset(o)) for p, o in options.items()
            }
        every = frozenset(w.bend for w in pal.middles)
        reach = _reach(every, min(REACH_TILES, tiles)) if every else ()
        goal = cls(
            tiles,
            ends,
            headings=headings,
            edges=ends_of,
            kinds=kinds,
            kind_of=kind_of,
            reach=reach,
        )
        lanes_of = {t: lanes for (lanes, _skew), t in types.items()}
        for start in pal.starts:
            a, b = ends_of[start.key]
            goal.opens[start.key] = find(a) == find(b) and goal._closable(
                start.key, start, pal.copies, Counter(), tiles - 1, 0
            )
            counts = [0] * len(kinds[start.key])
            for p, kind in kind_of[start.key].items():
                counts[kind] += pal.copies[p] - (p == start.piece)
            if goal.opens[start.key] and sum(counts) - (tiles - 1) <= SCARCE:
                # few pieces to spare: try them all now (the search would, tile by tile)
                heading = (headings[start.key] + start.bend) % 6
                ahead = hexgrid.neighbour((0, 0), heading)
                goal.opens[start.key] = goal._finish(
                    start.key, ahead, heading, b, tiles - 1, start.bend, tuple(counts)
                )
            widths = sorted({lanes_of[t] for t in range(len(types)) if find(t) == find(a)})
            held = {p: pal.copies[p] for p in kind_of[start.key]}
            bends = sum(
                n
                for p, n in held.items()
                if any(bend for _a, _b, bend in kinds[start.key][kind_of[start.key][p]])
            )
            goal.groups[start.key] = (tuple(widths), sum(held.values()), bends)
        return goal

    def why_not(self, pal: Palette) -> str | None:
        """Why no start/finish way of ``pal`` can open a circuit of ``tiles`` tiles, in
        words (None when one can: the search still has to find it)."""
        if any(self.opens.values()):
            return None
        by_width: dict[tuple[int, ...], tuple[list[str], int, int]] = {}
        for way in pal.starts:
            widths, pieces, bends = self.groups[way.key]
            faces, _, _ = by_width.setdefault(widths, ([], pieces, bends))
            faces.append(way.face.id)
        parts = []
        for widths, (faces, pieces, bends) in sorted(by_width.items(), reverse=True):
            lanes = " or ".join(str(n) for n in widths)
            parts.append(
                f"{lanes} lanes wide (start/finish {', '.join(faces)}): {pieces} pieces, "
                f"{bends} of them bends"
            )
        return (
            f"no circuit of {self.tiles} tiles can close with these pieces: a circuit "
            f"needs {self.tiles - 1} pieces besides its start/finish tile, as wide as it "
            "where they meet (lanes and skew edges), whose bends turn it once round "
            f"(six 60-degree turns); your boxes hold, for a road {'; '.join(parts)}"
        )

    def target(self, road: Road) -> hexgrid.Hex:
        """The hex the last tile of ``road`` must lie on."""
        return self.ends[road.ways[0].key][0]

    def next_ways(self, road: Road, pal: Palette) -> tuple[Sequence[Way], bool]:
        """A start first; then the ways whose pieces are left; the last one closes."""
        if not road.ways:
            return [w for w in pal.starts if self.opens.get(w.key, True)], False
        free = [w for w in pal.middles if road.used[w.piece] < pal.copies[w.piece]]
        return free, len(road.ways) == self.tiles - 1

    def room_needed(self, road: Road, pal: Palette) -> int:
        """Tiles still to lay after the last one."""
        return self.tiles - len(road.ways)

    def can_close(
        self, road: Road, pal: Palette, way: Way, ahead: hexgrid.Hex, heading: int, left: int
    ) -> bool:
        """Whether the road, ``way`` laid next (leading to hex ``ahead``, heading
        ``heading``), can still close with ``left`` more tiles: its bends and, with
        :data:`REACH_TILES` or fewer tiles left, its heading (see the class docstring)."""
        start = road.ways[0].key
        if left < len(self.reach):
            dq = road.hexes[0][0] - ahead[0]
            dr = road.hexes[0][1] - ahead[1]
            q, r = _turned((dq, dr), -heading)
            if (q, r, (self.headings[start] - heading) % 6) not in self.reach[left]:
                return False
        return self._closable(
            start, way, pal.copies, road.used, left, road.bend, road, ahead, heading
        )

    def _closable(
        self,
        start: str,
        way: Way,
        copies: dict[Piece, int],
        used: Counter[Piece],
        left: int,
        bent: int,
        road: Road | None = None,
        ahead: hexgrid.Hex = (0, 0),
        heading: int = 0,
    ) -> bool:
        """Whether ``left`` more of the pieces left (after ``way``) can close the road:
        without ``road``, by their bends and edges alone; with it, also tried piece by
        piece near the end (:meth:`_finish`). ``bent``: the road's bends before ``way``."""
        kind_of = self.kind_of[start]
        node = (start, tuple(used.items()))
        base = self._node.get(node)
        if base is None:
            base = [0] * len(self.kinds[start])
            for piece, kind in kind_of.items():
                base[kind] += copies[piece] - used[piece]
            self._node.clear()
            self._node[node] = base
        counts = list(base)
        if way.piece in kind_of:
            counts[kind_of[way.piece]] -= 1
        scarce = sum(counts) - left <= SCARCE
        if left > sum(counts):
            return False
        if road is not None and left <= (SCARCE_FINISH_TILES if scarce else FINISH_TILES):
            home = road.hexes[0]
            rel = (ahead[0] - home[0], ahead[1] - home[1])
            cur = self.edges[way.key][1]
            return self._finish(start, rel, heading, cur, left, bent + way.bend, tuple(counts))
        if road is not None and not scarce:
            # the sums cost more the more pieces can change the edge kind, and with
            # plenty of them to spare they seldom refuse a way
            kinds = self.kinds[start]
            turning = sum(n for n, kind in zip(counts, kinds, strict=True) if _changes(kind))
            if turning > FEW_CHANGING:
                return True
        changing, through = self._bend_sums(start, tuple(counts))
        ends = (1 << self.edges[way.key][1]) ^ (1 << self.edges[start][0])
        # bit offset + s stands for a sum s: two sums add up to need at 2 * offset + need
        for need in (6 - bent - way.bend, -6 - bent - way.bend):
            at = need + 2 * self._offset
            for k in range(min(left, len(changing) - 1) + 1):
                bits = changing[k].get(ends, 0)
                if not bits or left - k >= len(through):
                    continue
                other = through[left - k]
                while bits:
                    low = bits & -bits
                    i = low.bit_length() - 1
                    if i <= at and other >> (at - i) & 1:
                        return True
                    bits ^= low
        return False

    def _finish(
        self,
        start: str,
        rel: hexgrid.Hex,
        heading: int,
        edge: int,
        left: int,
        bent: int,
        counts: tuple[int, ...],
    ) -> bool:
        """Whether ``left`` of the pieces left (``counts`` per kind), the first laid on
        ``rel`` (from the start tile) entered ``heading`` by an edge of kind ``edge``,
        lead into the start tile with the bends adding up: tried piece by piece, on an
        empty table beyond the start tile (the placement makes its own checks)."""
        key = (start, rel, heading, edge, left, bent, counts)
        hit = self._finished.get(key)
        if hit is not None:
            return hit
        target = self.ends[start][0]
        ok = False
        for index, kind in enumerate(self.kinds[start]):
            if not counts[index]:
                continue
            for a, z, bend in kind:
                if a != edge:
                    continue
                h = (heading + bend) % 6
                nxt = hexgrid.neighbour(rel, h)
                if left == 1:
                    ok = (
                        nxt == (0, 0)
                        and h == self.headings[start]
                        and z == self.edges[start][0]
                        and bent + bend in (6, -6)
                    )
                elif nxt != (0, 0) and hexgrid.distance(nxt, target) <= left - 2:
                    rest = (*counts[:index], counts[index] - 1, *counts[index + 1 :])
                    ok = self._finish(start, nxt, h, z, left - 1, bent + bend, rest)
                if ok:
                    break
            if ok:
                break
        self._finished[key] = ok
        return ok

    @property
    def _offset(self) -> int:
        return 2 * self.tiles + 8

    def _bend_sums(
        self, start: str, counts: tuple[int, ...]
    ) -> tuple[list[dict[int, int]], list[int]]:
        """What ``k`` of the pieces left can be laid as, for every ``k`` up to the tiles,
        as bit sets of the sums of their bends (bit ``offset + s`` for a sum ``s``):

        - the pieces that can change the kind of edge (lanes, skew hand): per ``k``, per
          ``mask`` (the edge kinds an odd number of their ends are of);
        - the others, which leave it as they find it: per ``k``, their bends alone.
        """
        hit = self._sums.get((start, counts))
        if hit is not None:
            return hit
        most = min(sum(counts), self.tiles)
        changing: list[dict[int, int]] = [{} for _ in range(most + 1)]
        changing[0][0] = 1 << self._offset
        through = [0] * (most + 1)
        through[0] = 1 << self._offset
        for kind, n in zip(self.kinds[start], counts, strict=True):
            if not _changes(kind):
                bends = {b for _a, _z, b in kind}
                for _ in range(n):
                    for k in range(most - 1, -1, -1):
                        if through[k]:
                            more = 0
                            for b in bends:
                                more |= through[k] << b if b >= 0 else through[k] >> -b
                            through[k + 1] |= more
                continue
            for _ in range(n):
                for k in range(most - 1, -1, -1):
                    for mask, bits in list(changing[k].items()):
                        for a, z, b in kind:
                            flip = mask ^ (1 << a) ^ (1 << z)
                            moved = bits << b if b >= 0 else bits >> -b
                            changing[k + 1][flip] = changing[k + 1].get(flip, 0) | moved
        self._sums[(start, counts)] = (changing, through)
        return changing, through

    def closes(self, road: Road, way: Way, at: hexgrid.Hex, rotation: int, placer: Placer) -> bool:
        """Whether the start tile snaps onto ``way`` (laid on ``at``) where it lies."""
        target, start_rotation = self.ends[road.ways[0].key]
        if at != target:
            return False
        back = placer.after(way, rotation, road.ways[0])
        if back is None:
            return False
        land = (at[0] + back.offset[0], at[1] + back.offset[1])
        return land == road.hexes[0] and back.rotation == start_rotation

    def start_weight(self, way: Way) -> float:
        """How likely the search starts from ``way``: halved by each search from it that
        ran out of its budget in this run (a start/finish tile whose circuits of this size
        are rare or none, though the checks cannot tell), down to 1/64."""
        return 0.5 ** min(self.failures[way.key], 6)

    def weight(self, slack: int, left: int) -> float:
        """The pull toward the start: 1 with slack to spare, less as it runs out."""
        spare = max(0.0, min(float(slack), 4.0))
        return math.exp(-self.pull * (4.0 - spare)) if left > 1 else 1.0
