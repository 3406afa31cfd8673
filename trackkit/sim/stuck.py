"""Cars that can never finish: the road ahead closed for good (CORNER-1, SHORTCUT-2).

A race must not wait for its round cap when a car can never get past a spot. Two things
decide it, both only ever getting worse for the car during a stage attempt:

- the road: mud tokens (stage file and shortcut draws, SHORTCUT-2) only ever lower corner
  limits, and a corner space at 0 or less cannot be entered (CORNER-1). A car is stuck when
  no path of open spaces leads from where it stands past the finish line. The path is taken
  as generously as the rules allow (any speed on a shortcut, any jump made, fords and climb
  lines crossed), so a car is called stuck only when no plan at all could ever get it on;
  other cars are ignored: traffic moves on or finishes (:class:`Reach`);
- the car itself: a car with no legal move even alone on the track, whose blocked turn
  leaves it as it was (a stay keeps its space and gear; damage and mud only grow), will
  never move again: for instance in gear 6 before a shortcut of limit 3 that is the only
  way left, or before a ford with its coast dice lost to damage (:func:`no_move_cause`).

Traffic, dice spent this turn and a crashed car waiting behind others are temporary: they
never make a car stuck.

Examples
--------
>>> from trackkit.rules.testing import track_of
>>> track = track_of(["202a", "204a", "314a", "206a", "203a"])
>>> reach = reach_of(track)
>>> reach.can_finish("3:1.1L", {}), reach.can_finish("3:1.1L", {3: 2})
(True, False)
>>> reach.can_finish("3:1.1R", {3: 2})  # the shortcut still goes round the hairpin
True
>>> reach.cause("3:1.1L", {3: 2}).cause
'two mud tokens on tile 3 (314a) closed both lanes of its first hairpin'
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, replace

import networkx as nx

from trackkit.models.tile import RoadShape
from trackkit.rules.dashboard import Dashboard
from trackkit.rules.plans import PlanContext, legal_plans
from trackkit.rules.ruleset import Ruleset
from trackkit.rules.state import CarState
from trackkit.rules.track import Track, derive
from trackkit.tiles.library import default_library

__all__ = ["Reach", "StuckSpot", "dashboard_key", "no_move_cause", "reach_of", "stuck_spot"]


@dataclass(frozen=True, slots=True)
class StuckSpot:
    """Where a car got stuck and why, in words.

    ``tile`` and ``face`` name the tile that closed the way on (a designer fixes that
    one), ``space`` the space the car stood on.
    """

    tile: int
    face: str
    space: str
    cause: str


def dashboard_key(board: Dashboard) -> Hashable:
    """What a dashboard allows, as a key: equal keys, equal plans (a race builds new ones).

    The dice per surface and where leader dice replace coast dice; not the name, the SISU
    token or the tyres, which no plan depends on (whether the SISU token can be flipped
    is part of a position, :func:`~trackkit.rules.resolve.sisu_ready`).
    """
    columns = tuple(
        (s, tuple(c.gears), c.brake, c.coast, c.boost, c.danger_limit)
        for s, c in sorted(board.columns.items())
    )
    return (
        columns,
        tuple(sorted(board.leader_surfaces)),
        tuple(sorted(board.forced_leader_surfaces)),
    )


_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def _count(n: int, noun: str, plural: str | None = None) -> str:
    word = _NUMBERS[n] if n < len(_NUMBERS) else str(n)
    return f"{word} {noun if n == 1 else plural or noun + 's'}"


class Reach:
    """Which spaces of a track still lead past the finish line, given the mud for a car.

    The graph is the stage graph's steps plus, for every jump space, a step to each space
    one or two beyond it (JUMP-1 carries a car over spaces it could not enter).
    """

    def __init__(self, track: Track) -> None:
        self.track = track
        graph = nx.DiGraph()
        graph.add_nodes_from(track.spaces)
        for node, succs in track.successors.items():
            graph.add_edges_from((node, succ) for succ, _climb in succs)
        for node, info in track.spaces.items():
            if info.jump:  # rule: JUMP-1 (one or two more spaces, over whatever is between)
                for one, _c in track.successors[node]:
                    graph.add_edge(node, one)
                    graph.add_edges_from((node, two) for two, _c2 in track.successors[one])
        self.graph = graph
        self.finish = tuple(n for n, info in track.spaces.items() if info.finished)
        self.start = tuple(track.start)
        corners: dict[int, list[tuple[str, int]]] = defaultdict(list)
        for node, info in track.spaces.items():
            if info.kind in ("corner", "chicane") and info.limit is not None:
                corners[info.tile].append((node, info.limit))
        self._corners = dict(corners)
        self._faces = {
            info.tile: str(track.graph.nodes[n]["face"]) for n, info in track.spaces.items()
        }
        self._alive: dict[tuple[tuple[int, int], ...], frozenset[str]] = {}
        self._dead: dict[tuple[tuple[int, int], ...], frozenset[str]] = {}
        self._traps: dict[Hashable, Callable[[str, int], bool]] = {}
        self._boards: dict[int, tuple[Dashboard, Hashable]] = {}
        self._plain: dict[tuple[tuple[int, int], ...], dict[str, frozenset[str]]] = {}
        self._climbs: dict[tuple[tuple[int, int], ...], frozenset[str]] = {}
        self._rulesets: dict[int, Ruleset] = {}
        self._base = self.alive({})
        self.open = not self.dead({})
        """Whether, before any mud is drawn, every space leads to the finish (valid stages)."""

    def _key(self, mud: Mapping[int, int]) -> tuple[tuple[int, int], ...]:
        """The mud that can close something, as a key (tiles without corners left out)."""
        if not mud:
            return ()
        return tuple(sorted((t, n) for t, n in mud.items() if n and t in self._corners))

    def closed(self, mud: Mapping[int, int]) -> frozenset[str]:
        """Corner spaces a car cannot enter: limit, less the mud that counts, at 0 or less."""
        # rule: CORNER-1, SHORTCUT-2 (mud in the stage file is already in the limit)
        return frozenset(
            node
            for tile, spaces in self._corners.items()
            for node, limit in spaces
            if limit - mud.get(tile, 0) <= 0
        )

    def alive(self, mud: Mapping[int, int]) -> frozenset[str]:
        """Open spaces from which some path of open spaces leads past the finish line."""
        key = self._key(mud)
        hit = self._alive.get(key)
        if hit is None:
            closed = self.closed(dict(key))
            view = nx.subgraph_view(self.graph, filter_node=lambda n: n not in closed)
            alive: set[str] = set()
            for end in self.finish:
                if end in view and end not in alive:
                    alive.add(end)
                    alive |= nx.ancestors(view, end)
            hit = self._alive[key] = frozenset(alive)
        return hit

    def dead(self, mud: Mapping[int, int]) -> frozenset[str]:
        """Spaces from which no path of open spaces leads past the finish line any more.

        Empty on a valid stage before any mud is drawn (R206 rejects stage files whose mud
        closes a corner): bots test that first, for speed.
        """
        key = self._key(mud)
        hit = self._dead.get(key)
        if hit is None:
            hit = self._dead[key] = frozenset(self.track.spaces) - self.alive(dict(key))
        return hit

    def traps(self, ctx: PlanContext) -> Callable[[str, int], bool]:
        """For ``ctx``'s car: whether ending a turn on a space in a gear leaves it stuck.

        Stuck there means: no path on (:meth:`dead`), or no legal move alone on the track
        with the car's dashboard, damage and mud, which no later turn changes (a blocked
        turn keeps the space and gear). Answers are kept per dashboard (by what it allows:
        every race builds its own), damage and mud, for the races of one ruleset.
        """
        board = ctx.dashboard
        seen = self._boards.get(id(board))
        if seen is None or seen[0] is not board:
            if len(self._boards) >= 64:
                self._boards.clear()
            seen = self._boards[id(board)] = (board, dashboard_key(board))
        mud = tuple(sorted((t, n) for t, n in ctx.mud.items() if n)) if ctx.mud else ()
        self._rulesets.setdefault(id(ctx.ruleset), ctx.ruleset)  # kept: its id stays its own
        key = (seen[1], id(ctx.ruleset), ctx.car.damage, mud)
        hit = self._traps.get(key)
        if hit is None:
            if len(self._traps) >= 1024:
                self._traps.clear()
            hit = self._traps[key] = self._trap_test(ctx, mud)
        return hit

    def _trap_test(
        self, ctx: PlanContext, mud: tuple[tuple[int, int], ...]
    ) -> Callable[[str, int], bool]:
        known: dict[tuple[str, int], bool] = {}
        dead = self.dead(dict(mud))
        car = ctx.car
        board = ctx.dashboard
        # MOVE-2, DAMAGE-3: a plain step on (see plain()) with a gear die one above or one
        # below the gear, on a surface whose column has that die and a gear die left to
        # use, is a legal move: no need to ask the rules engine
        plain_to = self.plain_surfaces(dict(mud))
        # CLIMB-5: a step over a climb line into an open space always has a plan, a die or
        # else the free move
        climbs = self.climbs_out(dict(mud))
        moves: dict[str, frozenset[int]] = {}
        for surface in {s for found in plain_to.values() for s in found}:
            col = board.column(surface)
            has = set(col.gears) if len(col.gears) > car.damage.gear else set()
            moves[surface] = frozenset(
                g for g in range(7) if (g < 6 and g + 1 in has) or (g > 1 and g - 1 in has)
            )

        def trapped(space: str, gear: int) -> bool:
            hit = known.get((space, gear))
            if hit is None:
                if space in dead:
                    hit = True
                elif space in climbs or any(
                    gear in moves[surface] for surface in plain_to.get(space, ())
                ):
                    hit = False
                else:
                    state = replace(car, space=space, gear=gear, on_track=True, finished=False)
                    alone = PlanContext(
                        self.track, ctx.dashboard, ctx.ruleset, state, (), True, dict(mud)
                    )
                    hit = next(legal_plans(alone, max_steps=1), None) is None
                known[(space, gear)] = hit
            return hit

        return trapped

    def plain(self, mud: Mapping[int, int]) -> frozenset[str]:
        """Spaces with a plain step on, which a gear die one up or down makes (:meth:`traps`).

        A plain step crosses no climb line and goes into a space that is no ford or
        shortcut (lane, full width, slide, or a corner that is not closed: entering it too
        fast is a legal plan, which loses control); a jump space counts if it has open
        landings one and two spaces on (JUMP-1: whatever the die, it lands).
        """
        return frozenset(self.plain_surfaces(mud))

    def plain_surfaces(self, mud: Mapping[int, int]) -> dict[str, frozenset[str]]:
        """Per space with a plain step on (:meth:`plain`), the surfaces of those steps."""
        key = self._key(mud)
        hit = self._plain.get(key)
        if hit is None:
            closed = self.closed(dict(key))
            spaces, successors = self.track.spaces, self.track.successors

            def lands(jump: str) -> bool:
                one = [a for a, _c in successors[jump] if a not in closed]
                two = [b for a, _c in successors[jump] for b, _c2 in successors[a]]
                return bool(one) and any(b not in closed for b in two)

            found: dict[str, frozenset[str]] = {}
            for node, succs in successors.items():
                surfaces = frozenset(
                    spaces[t].surface
                    for t, climb in succs
                    if climb is None
                    and spaces[t].kind in ("lane", "full", "slide", "corner", "chicane")
                    and not spaces[t].ford
                    and t not in closed
                    and (not spaces[t].jump or lands(t))
                )
                if surfaces:
                    found[node] = surfaces
            hit = self._plain[key] = found
        return hit

    def climbs_out(self, mud: Mapping[int, int]) -> frozenset[str]:
        """Spaces with a step over a climb line into a space that is not closed (CLIMB-5).

        Such a step is always a legal move alone on the track: with the die the slope
        takes, or else as The Climb's free move.
        """
        key = self._key(mud)
        hit = self._climbs.get(key)
        if hit is None:
            closed = self.closed(dict(key))
            hit = self._climbs[key] = frozenset(
                node
                for node, succs in self.track.successors.items()
                if any(climb is not None and t not in closed for t, climb in succs)
            )
        return hit

    def can_finish(self, space: str | None, mud: Mapping[int, int]) -> bool:
        """Whether a car on ``space`` (None: not on the stage yet) could still finish.

        A car may stand on a corner space closed after it got there: it needs an open way
        on from it.
        """
        alive = self.alive(mud) if mud else self._base
        if space is None:
            return any(s in alive for s in self.start)
        return space in alive or any(s in alive for s in self.graph.successors(space))

    def cause(self, space: str | None, mud: Mapping[int, int]) -> StuckSpot:
        """Where the way on from ``space`` is closed, and by what (for a stuck car)."""
        closed = self.closed(mud)
        view = nx.subgraph_view(self.graph, filter_node=lambda n: n not in closed)
        sources = list(self.start) if space is None else [space]
        seen = set(sources)
        for s in sources:
            if s in view:
                seen |= nx.descendants(view, s)
        shut = sorted(
            {v for u in seen for v in self.graph.successors(u) if v in closed},
            key=lambda n: (self.track.spaces[n].progress, n),
        )
        where = space or "start"
        if not shut:
            # mud laid in the stage file: the graph has no steps into the corners it closed
            # (CORNER-1), so name the closed corner nearest ahead
            spaces = self.track.spaces
            front = max((spaces[n].progress for n in seen if n in spaces), default=-1e9)
            ahead = sorted((spaces[n].progress, n) for n in closed if spaces[n].progress > front)
            if ahead:
                corner = spaces[ahead[0][1]].corner
                shut = [n for _p, n in ahead if spaces[n].corner == corner]
        if not shut:  # no corner closed it: the road itself ends (not on a valid stage)
            tile = self.track.spaces[space].tile if space else 0
            return StuckSpot(tile, self.face_of(tile), where, "no road leads on to the finish")
        words = _closures(self.track, shut, mud)
        tile = self.track.spaces[shut[0]].tile
        return StuckSpot(tile, self.face_of(tile), where, "; ".join(words))

    def face_of(self, tile: int) -> str:
        """The face id of the tile at ``tile`` in driving order ("?" if none)."""
        return self._faces.get(tile, "?")


def _closures(track: Track, shut: Iterable[str], mud: Mapping[int, int]) -> list[str]:
    """Closed corner spaces in words, per tile: "two mud tokens on tile 3 (314a) closed ..."."""
    spaces, nodes = track.spaces, track.graph.nodes
    by_tile: dict[int, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for node in shut:
        info = spaces[node]
        by_tile[info.tile][info.corner or node].add(info.corner_lane or "")
    out = []
    for tile, corners in sorted(by_tile.items()):
        face = str(nodes[next(iter(n for n in shut if spaces[n].tile == tile))]["face"])
        on_tile = sorted(
            {i.corner for i in spaces.values() if i.tile == tile and i.corner},
            key=lambda c: int(c.split(":")[1]) if c.split(":")[1].isdigit() else 0,
        )
        sample = next(n for n in shut if spaces[n].tile == tile)
        printed = nodes[sample]["printed_limit"]
        laid = (printed - spaces[sample].limit) if printed is not None else 0
        tokens = laid + mud.get(tile, 0)
        parts = []
        for corner, lanes in sorted(corners.items(), key=lambda kv: on_tile.index(kv[0])):
            noun = _corner_noun(face, track, corner)
            its = f"its {noun}"
            if len(on_tile) > 1:
                its = f"its {_ORDINALS[min(on_tile.index(corner), 5)]} {noun}"
            if lanes >= {"inner", "outer"}:
                parts.append(f"both lanes of {its}")
            elif lanes & {"inner", "outer"}:
                parts.append(f"the {next(iter(lanes & {'inner', 'outer'}))} lane of {its}")
            else:
                parts.append(its)
        out.append(
            f"{_count(tokens, 'mud token')} on tile {tile} ({face}) closed " + " and ".join(parts)
        )
    return out


def _corner_noun(face_id: str, track: Track, corner: str) -> str:
    if any(i.kind == "chicane" for i in track.spaces.values() if i.corner == corner):
        return "chicane"
    face = default_library().get(face_id)
    road = face.road if face is not None else None
    if road is not None and road.shape in (RoadShape.HAIRPIN, RoadShape.DOUBLE_HAIRPIN):
        return "hairpin"
    return "corner"


def no_move_cause(ctx: PlanContext) -> StuckSpot:
    """Why a car with no legal move, alone on the track, cannot leave its space (words).

    Each way on is named by what shuts it: mud (CORNER-1), a shortcut's limit out of reach
    from the car's gear (SHORTCUT-1), a ford without the die it takes (FORD-1); anything
    else is the dice the car has left (MOVE-2, DAMAGE-3).
    """
    track, car = ctx.track, ctx.car
    here = car.space
    assert here is not None
    spaces = track.spaces
    reach = reach_of(track)
    closed = reach.closed(ctx.mud)
    gear = car.gear
    damage = car.damage
    lost = [
        _count(n, f"{kind} die", f"{kind} dice")
        for kind, n in (("gear", damage.gear), ("brake", damage.brake), ("coast", damage.coast))
        if n
    ]
    shut: list[str] = []
    reasons: list[str] = []
    first_tile: int | None = None
    for target, _climb in track.successors[here]:
        info = spaces[target]
        if target in closed:
            shut.append(target)
        elif info.kind == "shortcut":
            reasons.append(
                f"the shortcut on tile {info.tile} ({reach.face_of(info.tile)}, limit "
                f"{info.limit}) cannot be entered from gear {gear}"
            )  # rule: SHORTCUT-1
        elif info.ford:
            reasons.append(
                f"the ford on tile {info.tile} ({reach.face_of(info.tile)}) takes a coast die "
                "or gear 1 from gear 2"
            )  # rule: FORD-1
        else:
            continue
        first_tile = info.tile if first_tile is None else first_tile
    words = _closures(track, shut, ctx.mud) if shut else []
    words += list(dict.fromkeys(reasons))
    if not words:
        words = [f"no die left can move it on from gear {gear}"]
    tile = first_tile if first_tile is not None else spaces[here].tile
    state = f"in gear {gear}" + (f", damage: {', '.join(lost)} lost" if lost else "")
    return StuckSpot(
        tile,
        reach.face_of(tile),
        here,
        f"no legal move from {here} {state}: " + ", and ".join(words),
    )


def stuck_spot(
    track: Track,
    board: Dashboard,
    ruleset: Ruleset,
    car: CarState,
    mud: Mapping[int, int],
    *,
    stayed: bool,
) -> StuckSpot | None:
    """Where and why ``car`` can never finish, or None if it still could.

    Parameters
    ----------
    track, board, ruleset : Track, Dashboard, Ruleset
        The stage, the car's dashboard and the rules.
    car : CarState
        The car before its turn (``space`` None: not on the stage yet).
    mud : Mapping[int, int]
        Drawn mud tokens per tile that count for this car (SHORTCUT-2).
    stayed : bool
        Whether its last turn on the track did not move it: only then is its lack of a
        legal move alone on the track looked for (a car that moves has one).

    Other cars are left out on purpose: traffic moves on or finishes, so it never makes
    a car stuck. A crashed car is judged once it is back on the track (LOC-4).
    """
    if car.space is not None and not car.on_track:
        return None
    if car.finished:
        return None
    reach = reach_of(track)
    if not reach.can_finish(car.space, mud):  # rule: CORNER-1, SHORTCUT-2 (closed for good)
        return reach.cause(car.space, mud)
    if stayed and car.space is not None:
        # alone on the track with no legal move: a blocked turn keeps its space and gear,
        # and mud and damage only grow, so no later turn has one either
        alone = PlanContext(track, board, ruleset, car, (), leader=True, mud=dict(mud))
        if next(legal_plans(alone, max_steps=1), None) is None:
            return no_move_cause(alone)
    return None


def reach_of(track: Track) -> Reach:
    """The :class:`Reach` of a track, worked out once per track."""
    return derive(track, Reach)
