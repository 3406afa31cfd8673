"""Bots' plans remembered per stage: a position seen before gets the same plan at once.

Races on one stage go through the same positions again and again (the same space, gear
and damage, nobody near). A bot's plan is a pure function of the position, so a memo
(a transposition table, as chess engines keep) returns it without searching again.
The memo is exact: a race played with it is the race played without it
(``tests/test_sim.py`` checks this).

A position is looked up in two parts:

- its own part: the bot and the car's dashboard (what it allows); the car's space, gear,
  damage, and whether it could flip a SISU token (LOC-7); whether it leads the round (on
  a stage with a surface where the car's leader dice replace coast dice, MOVE-3); the
  mud tokens that count for it (SHORTCUT-2); on a GT track, the turn's GT facts (the last
  lap, a yellow flag, a flying start: :class:`~trackkit.rules.plans.GtTurn`);
- the other cars, but only where they could have changed the search. A search that says
  which spaces' traffic it read (:attr:`~trackkit.rules.plans.PlanBuilder.examined`)
  depends on the cars on those spaces, on spaces overlapping or beside them and in their
  corners (TRAFFIC-1, TRAFFIC-3); for any other search, on the cars within reach of a
  plan (:data:`~trackkit.sim.bots.MAX_STEPS` moves, jump landings included), see
  :meth:`PlanMemo.zone`. The same cars on those spaces: the same reads, so the same plan.
  A car's gear counts only on a space beside one the search entered (TRAFFIC-1: coming
  beside a car takes a gear die at or above its gear); anywhere else only where it stands
  does (it blocks a space, takes a corner lane, is got past). A car further away shares
  the plan. Under a GT yellow flag, a search
  also reads whether each space it entered takes the car past the nearest car
  ahead, wherever that car is (TRAFFIC-5): the same answers on those spaces, the same
  plan. A search that reads cars beyond the spaces a plan can reach says so in its
  spaces (the GT planner counts the cars it gets past, in any lane:
  :meth:`~trackkit.sim.roads.GtRoad.window`).

Examples
--------
>>> from trackkit.rules.testing import position
>>> from trackkit.rules.plans import Plan
>>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=2)
>>> memo = PlanMemo(ctx.track, ctx.ruleset)
>>> calls = []
>>> def search(ctx):
...     calls.append(1)
...     return Plan(()), None
>>> memo.plan("cautious", ("dirt",), ctx, search) == memo.plan("cautious", ("dirt",), ctx, search)
True
>>> len(calls), len(memo)
(1, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable

from trackkit.rules.dashboard import Dashboard
from trackkit.rules.plans import Plan, PlanContext, past_ahead, yellow_ahead
from trackkit.rules.resolve import sisu_ready
from trackkit.rules.ruleset import Ruleset
from trackkit.rules.track import Track

__all__ = ["PlanMemo"]

#: Plans a memo holds before it starts again (a few hundred bytes each).
MEMO_SIZE = 100_000

#: What a search read of the other cars: the spaces whose cars matter, those whose car's
#: gear matters, and (under a yellow flag) the spaces it entered (:meth:`PlanMemo.plan`).
_Reads = tuple[frozenset[str], frozenset[str], tuple[str, ...]]


class PlanMemo:
    """Plans of bots on one track, keyed by the position as far as it matters.

    Parameters
    ----------
    track : Track
        The stage; contexts on another track are searched, never remembered.
    ruleset : Ruleset
        The rules the races use; contexts with another ruleset object are searched, never
        remembered (a ruleset is known by the object, not its id: a variant may share it).
    moves : int
        The longest plan the bots consider (its reach decides which cars matter).
    size : int
        Entries kept; the memo is emptied when it is full (memory stays bounded).
    """

    def __init__(
        self, track: Track, ruleset: Ruleset, *, moves: int = 6, size: int = MEMO_SIZE
    ) -> None:
        self.track = track
        self.ruleset = ruleset
        self.moves = moves
        self.size = size
        self.hits = 0
        self.misses = 0
        # per position key, the searches made from it: by what they read (the spaces of
        # the cars that mattered, those whose gear did, the spaces read under a yellow flag),
        # then by the cars found there
        self._plans: dict[Hashable, dict[_Reads, dict[Hashable, Plan]]] = {}
        self._size = 0
        self._zones: dict[str, frozenset[str]] = {}
        self._reads: dict[str, frozenset[str]] = {}
        self._surfaces = frozenset(info.surface for info in track.spaces.values())
        self._leading: dict[int, tuple[Dashboard, bool]] = {}

    def __len__(self) -> int:
        return self._size

    def __repr__(self) -> str:
        return f"<PlanMemo {len(self)} plans, {self.hits} hits, {self.misses} misses>"

    def __reduce__(self) -> tuple[Callable[..., PlanMemo], tuple[Track, Ruleset, int, int]]:
        # a worker process starts with an empty memo (and the zones, which are cheap); made
        # anew by a function, as the compiled build's classes pickle no other way
        return _empty_memo, (self.track, self.ruleset, self.moves, self.size)

    def plan(
        self,
        bot: str,
        board: Hashable,
        ctx: PlanContext,
        search: Callable[[PlanContext], tuple[Plan, Collection[str] | None]],
    ) -> Plan:
        """The plan ``search(ctx)`` gives, from the memo when the position was seen.

        ``search`` returns the plan and the spaces whose traffic it read (None: unknown).
        ``bot`` and ``board`` name the bot and the car's dashboard (the caller makes sure
        equal names mean equal bots and dashboards).
        """
        if ctx.track is not self.track or ctx.ruleset is not self.ruleset:
            return search(ctx)[0]
        key = self.key(bot, board, ctx)
        seen = self._plans.get(key)
        if seen is not None:
            near = self._near
            # the blocking cars, sorted once (each group of searches picks its own of them)
            cars = sorted([(o.space, o.gear) for o in ctx.others if o.blocks])
            for reads, plans in seen.items():
                plan = plans.get(near(ctx, reads, cars))
                if plan is not None:
                    self.hits += 1
                    return plan
        self.misses += 1
        plan, examined = search(ctx)
        read: Collection[str]
        if examined is None:
            zone = self.zone(ctx.car.space) if ctx.car.space is not None else frozenset()
            spaces, geared, read = zone, zone, zone
        else:
            spaces, read = self._depends(examined), examined
            geared = self._beside(examined)
        # under a yellow flag the search also read, on each space it entered, whether that
        # took the car past the nearest car ahead (TRAFFIC-5)
        yellow = tuple(sorted(read)) if ctx.gt is not None and ctx.gt.yellow else ()
        if self._size >= self.size:
            self._plans.clear()
            self._size = 0
            seen = None
        reads = (spaces, geared, yellow)
        if seen is None:
            seen = self._plans[key] = {}
        seen.setdefault(reads, {})[self._near(ctx, reads)] = plan
        self._size += 1
        return plan

    def key(self, bot: str, board: Hashable, ctx: PlanContext) -> Hashable:
        """The position's own part of the key (see the module docstring)."""
        car = ctx.car
        mud = tuple(sorted(ctx.mud.items())) if ctx.mud else ()
        gt = ctx.gt
        return (
            bot,
            board,
            car.space,
            car.gear,
            car.damage,
            car.sisu_token and sisu_ready(ctx),
            car.on_track,
            car.finished,
            ctx.leader and self._leads(ctx.dashboard),
            mud,
            # GT: the last lap, a yellow flag, a flying start (None: DIRT); as a tuple, which
            # hashes faster than the dataclass
            None if gt is None else (gt.final_lap, gt.yellow, gt.flying),
        )

    def _leads(self, board: Dashboard) -> bool:
        """Whether leading a round changes anything for a car with ``board`` on this track.

        The leader's coast dice are leader dice only on the board's leader surfaces (MOVE-3;
        an Unlimited board: gravel alone): on a stage without them, leading changes no plan.
        """
        hit = self._leading.get(id(board))
        if hit is None or hit[0] is not board:
            if len(self._leading) >= 256:
                self._leading.clear()
            hit = self._leading[id(board)] = (board, bool(board.leader_surfaces & self._surfaces))
        return hit[1]

    @staticmethod
    def _near(
        ctx: PlanContext, reads: _Reads, blocking: list[tuple[str, int]] | None = None
    ) -> Hashable:
        """The cars a search that read ``reads`` depends on: where they stand (and their
        gear where it was read), and the yellow flag's answers on the spaces entered.

        ``blocking``: the blocking cars of ``ctx`` as (space, gear), sorted (else worked
        out here). Cars on distinct spaces: the order of their spaces is theirs.
        """
        spaces, geared, yellow = reads
        if blocking is None:
            blocking = sorted([(o.space, o.gear) for o in ctx.others if o.blocks])
        cars = tuple(
            [
                (space, gear if space in geared else -1)
                for space, gear in blocking
                if space in spaces
            ]
        )
        if not yellow:
            return cars
        ahead, here = yellow_ahead(ctx), ctx.car.space
        if ahead is None or here is None:
            return cars, (False,) * len(yellow)
        gain = ctx.track.gain
        return cars, tuple(past_ahead(gain(here, s), ahead) for s in yellow)

    def zone(self, space: str) -> frozenset[str]:
        """Spaces where another car could change any plan from ``space``."""
        hit = self._zones.get(space)
        if hit is None:
            hit = self._zones[space] = _zone(self.track, space, self.moves)
        return hit

    def _depends(self, examined: Collection[str]) -> frozenset[str]:
        """Spaces whose cars decide the traffic read at the ``examined`` spaces."""
        out: set[str] = set()
        for space in examined:
            reads = self._reads.get(space)
            if reads is None:
                reads = self._reads[space] = _reads(self.track, space)
            out |= reads
        return frozenset(out)

    def _beside(self, examined: Collection[str]) -> frozenset[str]:
        """Spaces whose car's gear the search may have read: beside those it entered
        (TRAFFIC-1)."""
        out: set[str] = set()
        beside = self.track.beside
        for space in examined:
            near = beside.get(space)
            if near:
                out |= near
        return frozenset(out)


def _reads(track: Track, space: str) -> frozenset[str]:
    """Where a car changes what entering ``space`` allows (TRAFFIC-1, TRAFFIC-3)."""
    info = track.spaces[space]
    out = {space}
    out |= track.overlaps.get(space, frozenset())  # a car over it blocks it
    out |= track.beside.get(space, frozenset())  # coming beside a car needs its gear
    if info.corner is not None:  # a car in the corner takes its lane
        out.update(n for n, i in track.spaces.items() if i.corner == info.corner)
    return frozenset(out)


def _zone(track: Track, space: str, moves: int) -> frozenset[str]:
    reach = {space}
    frontier = {space}
    for _ in range(moves):
        nxt: set[str] = set()
        for here in frontier:
            for target, _climb in track.successors[here]:
                nxt.add(target)
                if track.spaces[target].jump:  # rule: JUMP-2 (landing one or two beyond)
                    for beyond, _c in track.successors[target]:
                        nxt.add(beyond)
                        nxt.update(s for s, _c2 in track.successors[beyond])
        frontier = nxt - reach
        reach |= frontier
    corners = {track.spaces[s].corner for s in reach} - {None}
    zone = set(reach)
    for s in reach:  # rule: TRAFFIC-1 (beside), TRAFFIC-3 (occupied, same corner lane)
        zone |= track.beside.get(s, frozenset())
        zone |= track.overlaps.get(s, frozenset())
    zone.update(n for n, info in track.spaces.items() if info.corner in corners)
    return frozenset(zone)


def _empty_memo(track: Track, ruleset: Ruleset, moves: int, size: int) -> PlanMemo:
    """A new, empty memo (what a pickled memo becomes)."""
    return PlanMemo(track, ruleset, moves=moves, size=size)
