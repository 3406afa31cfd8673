"""What bots read of a track: one interface, a reading per series.

The bot engine (:mod:`trackkit.sim.bots`) searches the same way on every track; what it
reads of the road ahead is the series' own, worked out once per track:

- :class:`DirtRoad` (Rallyman: DIRT, The Climb): the nearest corner ahead and its best
  limit, lane changes on straights (which no bot makes mid-turn), the finish and the
  furthest progress within reach (the planner's bound), dead ends and traps that mud
  makes (:mod:`trackkit.sim.stuck`);
- :class:`GtRoad` (Rallyman: GT): the highest speed from which every corner and dotted
  line ahead round the lap can still be taken (CORNER-1, CORNER-4), the road within reach,
  the cars ahead a plan can get past (the planner counts them), the pit (GT-2), and
  whether the last lap can change a plan (BOARD-3).

Both give the same things (:class:`Road`): per space the moves to the limit that matters
and that limit (:attr:`Road.look`) and the speed a bot aims for (:attr:`Road.target`),
the bots' pruners, the planner's bound, the spaces whose cars a plan reads, and what a
bot does when no sensible plan is left (:meth:`Road.fallback`). One scorer
(:func:`scorer`) reads them for both series.

Examples
--------
>>> from trackkit.rules.positions import track_of
>>> dirt = DirtRoad.of(track_of(["202a", "205a", "206a", "203a"]))
>>> dirt.look["1:1.1L"], dirt.target["1:1.1L"]
((99, 6), 6)
>>> gt = GtRoad.of(track_of(["102a", {"tile": "107a", "turn": "left"}, "103a"]))
>>> gt.look["2:A12a"], gt.target["2:A12a"]
((0, 1), 1)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import ClassVar, TypeVar

from trackkit.rules.plans import (
    Plan,
    PlanBuilder,
    PlanContext,
    PlanStep,
    Prune,
    PruneMove,
    legal_plans,
)
from trackkit.rules.resolve import sisu_ready
from trackkit.rules.risk import RiskSoFar, flat_out_risk
from trackkit.rules.track import Track, derive
from trackkit.sim.stuck import reach_of

__all__ = [
    "LOC_COST_MM",
    "MAX_STEPS",
    "OVERTAKE_MM",
    "PIT_MM",
    "DirtRoad",
    "GtRoad",
    "Road",
    "Wish",
    "scorer",
]

#: Longest plan a bot considers (steps).
MAX_STEPS = 6
#: What a loss of control costs a bot, in millimetres of progress (about two turns).
LOC_COST_MM = 500.0
#: What getting past another car is worth to the GT planner, in millimetres of road.
OVERTAKE_MM = 120.0
#: What ending a turn in the pit lane in first gear is worth to a car that wants to pit.
PIT_MM = 600.0

#: A step's bound for the planner: (step, moves left after it) -> the most its plans score.
Bound = Callable[[PlanStep, int], float]

_R = TypeVar("_R", bound="Road")


@dataclass(frozen=True, slots=True)
class Wish:
    """What a car wants of its turn besides road: a pit stop (GT-2)."""

    pit: bool = False


#: No wish: the turn is for road alone.
NO_WISH = Wish()


class Road:
    """What bots read of a track, worked out once per track (see the module docstring).

    A series' reading fills :attr:`look`, :attr:`target` and :attr:`sideways` and says how
    its planner walks (:attr:`branches`), bounds a step (:meth:`bound`) and falls back.
    """

    look: dict[str, tuple[int, int]]
    """Per space: the moves to the limit that matters ahead and that limit (the scorer
    penalises a plan that ends faster than that limit plus the moves, less one gear a
    move and the brake die)."""
    target: dict[str, int]
    """Per space: the highest speed to stand there with (the pruners keep speeds near it)."""
    sideways: frozenset[tuple[str, str]] = frozenset()
    """Steps from a lane space to the other lane on a straight: no bot takes one mid-turn."""
    penalty: dict[str, tuple[float, ...]]
    """Per space and speed 0..6: what the scorer takes off a plan that ends there, 400 a
    gear over :attr:`look`'s limit plus its moves, less one (one gear a move, plus the
    brake die): worked out once from :attr:`look`."""
    moves_key: ClassVar[Hashable | None] = None
    """Given: the pruners read the target space, the speeds and the step, and of the steps
    so far only whether there are any and where the last ends, and the plan builder
    remembers their answers per track under this key
    (:attr:`~trackkit.rules.plans.PlanBuilder.moves_key`)."""
    branches: ClassVar[int | None] = None
    """The planner goes on from the best this many next steps of each step (a beam,
    weighed first), or from every one in plan order as it weighs them (None)."""

    def __init__(self, track: Track) -> None:
        self.track = track
        self._prune: tuple[Prune, PruneMove] | None = None

    def __reduce__(self) -> tuple[type[Road], tuple[Track]]:
        """Pickled as its track, read again where it lands (bots carry roads to Dask
        workers; the compiled build's classes pickle no other way)."""
        return type(self), (self.track,)

    def _read(self, look: dict[str, tuple[int, int]]) -> None:
        """Set :attr:`look`, and the :attr:`penalty` that follows from it."""
        self.look = look
        self.penalty = {
            n: tuple(400.0 * max(0, max(1, v - dist - 1) - limit) for v in range(7))
            for n, (dist, limit) in look.items()
        }

    @classmethod
    def of(cls: type[_R], track: Track) -> _R:
        """This series' reading of ``track``, made once per track."""
        return derive(track, cls)

    def pruners(self) -> tuple[Prune, PruneMove]:
        """Steps a sensible driver considers: speeds near the target of the road ahead.

        The target speed of a space is the highest from which the limits ahead can still
        be taken, slowing one gear per space (MOVE-2). The pruners read the road alone:
        made once per track.
        """
        if self._prune is None:
            self._prune = _pruners(self.target, self.sideways)
        return self._prune

    def passed(self, ctx: PlanContext) -> list[float]:
        """How far ahead the cars are whose passing the planner counts, mm, nearest first."""
        return []

    def reads(self, ctx: PlanContext) -> frozenset[str]:
        """Spaces beyond those the plan builder examined whose cars the planner reads."""
        return frozenset()

    def dead_ends(self, ctx: PlanContext) -> frozenset[str]:
        """Spaces from which this car could never finish (no bot ends a plan there)."""
        return frozenset()

    def stuck_after(self, ctx: PlanContext) -> Callable[[PlanStep], bool] | None:
        """Whether a turn ending with a step leaves the car stuck (None: never)."""
        return None

    def remembered(self, ctx: PlanContext) -> PlanContext:
        """``ctx`` as the plan memo keys it (a fact that changes no plan left out)."""
        return ctx

    def bound(self, ctx: PlanContext, wish: Wish) -> Bound:
        """The planner's bound: the most any plan going on from a step can score."""
        raise NotImplementedError

    def fallback(self, ctx: PlanContext, max_risk: float | None) -> Plan:
        """The plan when no sensible plan is within ``max_risk`` (None: the planner's)."""
        raise NotImplementedError


def _pruners(
    target_of: dict[str, int], sideways: frozenset[tuple[str, str]]
) -> tuple[Prune, PruneMove]:
    """The bots' pruners on a road (written out twice: the plan search calls them for
    every move it weighs, and a road without lane changes on straights skips that test)."""

    def keep_move(stack: list[PlanStep], target: str, speed: int, v: int) -> bool:
        tgt = target_of.get(target, 6)
        if min(tgt, speed + 1) - 1 <= v <= tgt:
            return True
        return tgt < speed - 1 and v < speed  # far too fast: any slowing down

    def keep_move_straight(stack: list[PlanStep], target: str, speed: int, v: int) -> bool:
        if stack and (stack[-1].space, target) in sideways:
            return False  # changing lane mid-turn on a straight gains nothing
        tgt = target_of.get(target, 6)
        if min(tgt, speed + 1) - 1 <= v <= tgt:
            return True
        return tgt < speed - 1 and v < speed

    def keep(stack: list[PlanStep], step: PlanStep) -> bool:
        return step.loc is None  # no bot plans a certain loss of control

    return keep, (keep_move_straight if sideways else keep_move)


def scorer(
    ctx: PlanContext, road: Road, wish: Wish = NO_WISH, *, overtakes: bool = False
) -> Callable[[PlanStep], float]:
    """The score of a plan from ``ctx``, which only its last step decides.

    The road gained, 8 a gear of speed, less 400 a gear the car ends too fast for the
    limit ahead (:attr:`Road.look`; one gear a move, plus the brake die); a finish beats
    any road. GT: a turn ending in first gear on a pit space is worth :data:`PIT_MM` to a
    car that wants to pit (GT-2), and with ``overtakes`` each car got past
    :data:`OVERTAKE_MM` (:meth:`Road.passed`).

    >>> from trackkit.rules.positions import position
    >>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=2)
    >>> score = scorer(ctx, DirtRoad.of(ctx.track))
    >>> step = PlanBuilder(ctx).options()[0]
    >>> str(step), score(step) == ctx.track.gain("1:1.1L", step.space) + 8 * step.speed
    ('1:1.2L G3', True)
    """
    track = ctx.track
    here = ctx.car.space
    assert here is not None
    penalty = road.penalty
    # a car counts as got past once the plan ends more than a hair beyond it (the cars
    # nearest first: the count is where the plan's gain falls among them)
    passed = [g + 1e-6 for g in road.passed(ctx)] if overtakes else []
    pit = wish.pit
    gains: dict[str, float] = {}

    def score(last: PlanStep) -> float:
        if last.finishes:
            return 1e6 + 10.0 * last.speed
        space = last.space
        gain = gains.get(space)
        if gain is None:
            gain = gains[space] = track.gain(here, space)
        value = gain + 8.0 * last.speed - penalty[space][last.speed]
        if pit and last.speed == 1 and track.spaces[space].pit is not None:
            value += PIT_MM  # rule: GT-2 (a pit stop takes first gear on a pit space)
        if passed:
            value += OVERTAKE_MM * bisect_left(passed, gain)
        return value

    return score


def _climb(ctx: PlanContext) -> int:
    """Gears a move can gain at the most: two with a boost die, else one (MOVE-2, -5)."""
    return 2 if any(c.boost for c in ctx.dashboard.columns.values()) else 1


class DirtRoad(Road):
    """A DIRT stage as bots read it (point to point, corners, mud, jumps)."""

    moves_key = "roads:dirt-target"

    def __init__(self, track: Track) -> None:
        super().__init__(track)
        spaces = track.spaces
        order = sorted(spaces, key=lambda n: -spaces[n].progress)
        look: dict[str, tuple[int, int]] = {}
        for n in order:  # furthest first: successors are already known
            info = spaces[n]
            if info.corner is not None and info.limit is not None:
                look[n] = (0, info.limit)
                continue
            best = (99, 6)
            for succ, _climb in track.successors[n]:
                d, lim = look.get(succ, (99, 6))
                if d + 1 < best[0] or (d + 1 == best[0] and lim > best[1]):
                    best = (d + 1, lim)
            look[n] = best
        self._read(look)  # per space: the nearest corner ahead and its best limit
        self.target = {n: min(6, limit + dist) for n, (dist, limit) in look.items()}
        self.sideways = frozenset(
            (a, b)
            for a, succs in track.successors.items()
            for b, _climb in succs
            if spaces[a].kind == "lane"
            and spaces[b].kind == "lane"
            and spaces[a].lanes != spaces[b].lanes
        )
        # furthest progress and the finish within k moves, k = 0..MAX_STEPS: a move is one
        # step of the graph, or onto a jump space and on one or two more (JUMP-1)
        moves: dict[str, set[str]] = {}
        for n in spaces:
            reach: set[str] = set()
            for succ, _climb in track.successors[n]:
                reach.add(succ)
                if spaces[succ].jump:
                    for one, _c in track.successors[succ]:
                        reach.add(one)
                        reach.update(two for two, _c2 in track.successors[one])
            moves[n] = reach
        layer = {n: (info.finished, info.progress) for n, info in spaces.items()}
        layers = [layer]
        for _ in range(MAX_STEPS):
            prev = layers[-1]
            nxt = {}
            for n in spaces:
                fin, most = prev[n]
                for m in moves[n]:
                    f2, m2 = prev[m]
                    fin, most = fin or f2, max(most, m2)
                nxt[n] = (fin, most)
            layers.append(nxt)
        self.ahead = {n: tuple(layers[k][n] for k in range(MAX_STEPS + 1)) for n in spaces}
        """Per space, for k = 0..MAX_STEPS more moves: whether the finish may be within
        reach, and the furthest progress that may be (the planner's bound)."""

    def dead_ends(self, ctx: PlanContext) -> frozenset[str]:
        """Spaces from which this car could never finish (mud closed the way on: CORNER-1)."""
        return reach_of(ctx.track).dead(ctx.mud)

    def stuck_after(self, ctx: PlanContext) -> Callable[[PlanStep], bool]:
        """Whether a turn ending with a step leaves the car stuck (``Reach.traps``)."""
        trapped = reach_of(ctx.track).traps(ctx)
        return lambda last: not last.finishes and trapped(last.space, last.speed)

    def bound(self, ctx: PlanContext, wish: Wish) -> Bound:
        """The finish within reach, or the furthest progress and the highest speed the
        moves left can reach (a gear up a move, two with a boost: MOVE-2, MOVE-5)."""
        ahead = self.ahead
        here = ctx.car.space
        assert here is not None
        start = ctx.track.spaces[here].progress
        climb = _climb(ctx)

        def top(step: PlanStep, left: int) -> float:
            finish, most = ahead[step.space][left]
            fastest = min(6, step.speed + left * climb)
            best = 1e6 + 60.0 if finish else most - start + 8.0 * fastest
            return max(best, -LOC_COST_MM)

        return top

    def candidates(self, ctx: PlanContext) -> list[tuple[float, Plan]]:
        """Scored plans to choose from: none that leaves the car stuck if another does not.

        The pruned legal plans (else any of two steps at the most), without those that end
        where the car would be stuck for good, unless every one does (then any legal plan
        that does not, else those).
        """
        keep, keep_move = self.pruners()
        score = scorer(ctx, self)
        plans = legal_plans(ctx, max_steps=MAX_STEPS, keep=keep, keep_move=keep_move)
        out = [(score(p.steps[-1]), p) for p in plans]
        if not out:  # nothing a sensible driver would do: any legal plan, safest first
            out = [(score(p.steps[-1]), p) for p in legal_plans(ctx, max_steps=2)]
        stuck_after = self.stuck_after(ctx)
        kept = [(s, p) for s, p in out if not stuck_after(p.steps[-1])]
        if not kept and out:  # every sensible plan leaves it stuck: any legal one that does not
            every = legal_plans(ctx, max_steps=MAX_STEPS)
            kept = [(score(p.steps[-1]), p) for p in every if not stuck_after(p.steps[-1])]
        return kept or out

    def fallback(self, ctx: PlanContext, max_risk: float | None) -> Plan:
        """Among :meth:`candidates`: the best-scoring plan within ``max_risk``, else the
        least risky one; the planner's (None), the best expected value."""
        sisu = sisu_ready(ctx)
        if max_risk is None:
            chosen: tuple[float, Plan] | None = None
            for score, plan in self.candidates(ctx):
                risk = flat_out_risk(ctx, plan, sisu=sisu)
                value = (1 - risk) * score - risk * LOC_COST_MM
                if chosen is None or value > chosen[0]:
                    chosen = (value, plan)
            return chosen[1] if chosen else Plan(())
        best: tuple[float, Plan] | None = None
        safest: tuple[float, float, Plan] | None = None
        for score, plan in self.candidates(ctx):
            risk = flat_out_risk(ctx, plan, sisu=sisu)
            if risk <= max_risk and (best is None or score > best[0]):
                best = (score, plan)
            if safest is None or (risk, -score) < (safest[0], -safest[1]):
                safest = (risk, score, plan)
        if best is not None:
            return best[1]
        return safest[2] if safest is not None else Plan(())


class GtRoad(Road):
    """A GT circuit as bots read it (round the lap: the circuit is a cycle)."""

    moves_key = "roads:gt-target"
    branches = 2

    def __init__(self, track: Track) -> None:
        super().__init__(track)
        spaces = track.spaces
        order = sorted(spaces, key=lambda n: (-spaces[n].progress, n))
        safe = {n: 6 for n in spaces}
        for _ in range(len(spaces)):  # a fixed point round the cycle (a few passes)
            changed = False
            for n in order:
                info = spaces[n]
                own = info.limit if info.kind in ("corner", "chicane") and info.limit else 6
                best = 0
                for succ, _climb in track.successors[n]:
                    mark = track.marks.get((n, succ))
                    cap = safe[succ]
                    if mark is not None and mark.limit is not None:
                        cap = min(cap, mark.limit)  # rule: CORNER-4 (a dotted line's number)
                    best = max(best, cap + 1)
                value = max(1, min(own, best if track.successors[n] else 6, 6))
                if value != safe[n]:
                    safe[n] = value
                    changed = True
            if not changed:
                break
        self._read({n: (0, v) for n, v in safe.items()})  # the moves are in the speed
        self.target = safe
        """Per space: the highest speed a car may stand there with and still take every
        limit ahead (corner limits and dotted lines), slowing one gear a move (MOVE-2)."""
        layers = [{n: 0.0 for n in spaces}]
        for _ in range(MAX_STEPS):
            prev = layers[-1]
            layers.append(
                {
                    n: max(
                        (track.gain(n, s) + prev[s] for s, _c in track.successors[n]),
                        default=0.0,
                    )
                    for n in spaces
                }
            )
        self.reach = {n: tuple(layers[k][n] for k in range(MAX_STEPS + 1)) for n in spaces}
        """Per space, for k = 0..MAX_STEPS moves: the most road (mm) k moves can gain."""
        self.windows: dict[str, frozenset[str]] = {}
        self.line: dict[str, bool] = {}

    def window(self, here: str) -> frozenset[str]:
        """The spaces ahead of ``here`` within the road a plan can gain.

        Cars on them count for the planner's overtakes wherever they stand, reachable or
        not (a car in another lane just ahead is got past by driving by it): the plan memo
        keys the planner's plans on them (:class:`~trackkit.sim.memo.PlanMemo`).
        """
        hit = self.windows.get(here)
        if hit is None:
            track = self.track
            most = self.reach[here][MAX_STEPS]
            hit = self.windows[here] = frozenset(
                s for s in track.spaces if 0 < track.gain(here, s) <= most
            )
        return hit

    def passed(self, ctx: PlanContext) -> list[float]:
        """The blocking cars on :meth:`window`'s spaces: how far ahead, nearest first."""
        track = ctx.track
        here = ctx.car.space
        assert here is not None
        window = self.window(here)
        return sorted(
            track.gain(here, o.space) for o in ctx.others if o.blocks and o.space in window
        )

    def reads(self, ctx: PlanContext) -> frozenset[str]:
        """The cars within reach ahead, which the planner's overtakes count (anywhere on
        the road, reachable or not: the memo's zone of reachable spaces misses some)."""
        here = ctx.car.space
        assert here is not None
        return self.window(here)

    def last_lap_matters(self, here: str) -> bool:
        """Whether a plan from ``here`` can tell the last lap from another one.

        On the last lap the step over the start/finish line ends the race (BOARD-3), and
        the planner's bound counts the line within reach. A plan from ``here`` takes at
        most :data:`MAX_STEPS` moves: when no line is within them (and the road they can
        gain stops short of it), every bot's plan is the plan of another lap, and the plan
        memo gives it.
        """
        hit = self.line.get(here)
        if hit is None:
            track = self.track
            lap = track.lap_length
            hit = not lap
            frontier, seen = {here}, {here}
            for _ in range(MAX_STEPS):
                nxt = set()
                for space in frontier:
                    for target, _climb in track.successors[space]:
                        mark = track.marks.get((space, target))
                        hit = hit or (mark is not None and mark.lap)
                        nxt.add(target)
                frontier = nxt - seen
                seen |= frontier
            if lap and not hit:  # as the planner's bound reads the line (see bound)
                hit = any(max(self.reach[s]) >= lap - track.spaces[s].progress - 1e-6 for s in seen)
            self.line[here] = hit
        return hit

    def remembered(self, ctx: PlanContext) -> PlanContext:
        """On the last lap far from the line: the context of another lap (the same plan)."""
        gt, here = ctx.gt, ctx.car.space
        if gt is not None and gt.final_lap and here is not None and not self.last_lap_matters(here):
            return replace(ctx, gt=replace(gt, final_lap=False))
        return ctx

    def bound(self, ctx: PlanContext, wish: Wish) -> Bound:
        """The road gained and the most the moves left can gain, the highest speed they
        reach, the cars within reach and the pit (GT-2); the finish line within reach on
        the last lap (BOARD-3)."""
        here = ctx.car.space
        assert here is not None
        reach = self.reach
        bonus = OVERTAKE_MM * len(self.passed(ctx)) + (PIT_MM if wish.pit else 0.0)
        climb = _climb(ctx)
        final = ctx.gt is not None and ctx.gt.final_lap
        lap = ctx.track.lap_length or 0.0
        spaces = ctx.track.spaces
        gain_of = ctx.track.gain

        def top(step: PlanStep, left: int) -> float:
            space = step.space
            ahead = reach[space][left]
            fastest = min(6, step.speed + left * climb)
            best = gain_of(here, space) + ahead + 8.0 * fastest + bonus
            if final and ahead >= lap - spaces[space].progress - 1e-6:
                best = max(best, 1e6 + 60.0)  # the finish line within reach
            return best

        return top

    def fallback(self, ctx: PlanContext, max_risk: float | None) -> Plan:
        """The one-step plan least likely to lose control.

        A car whose every move loses control (first gear before a hairpin of 1 with its
        coast dice lost: MOVE-2, DAMAGE-3) takes the slowest such move rather than wait
        for good.
        """
        best: tuple[float, float, Plan] | None = None
        forced: tuple[int, Plan] | None = None
        score = scorer(ctx, self)
        for step in PlanBuilder(ctx).options():
            if step.loc is not None:
                if forced is None or step.speed < forced[0]:
                    forced = (step.speed, Plan((step,)))
                continue
            risk = RiskSoFar().then(ctx, step).value(ctx)
            key = (risk, -score(step))
            if best is None or key < (best[0], best[1]):
                best = (key[0], key[1], Plan((step,)))
        if best is not None:
            return best[2]
        return forced[1] if forced is not None else Plan(())
