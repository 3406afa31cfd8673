"""Bots for Rallyman: GT: the same three driving styles, on a circuit, wheel to wheel.

- ``cautious`` rolls one by one and secures dice with focus tokens (GT-5) before the danger
  limit could be exceeded (TURN-6), or stops;
- ``aggressive`` rolls flat out and takes the furthest plan whose risk is at most one half;
- ``planner`` rolls flat out and takes the plan of the best expected value, counting the
  cars it gets past (an overtake is worth :data:`OVERTAKE_MM` of road), from the exact
  risk (:class:`~trackkit.rules.risk.RiskSoFar`).

All three read the road ahead round the lap (the highest speed from which every corner
and sharp corner ahead can still be taken, slowing a gear a move: CORNER-1, CORNER-4),
plan into the pit in first gear when they want tyres or repairs (GT-2), search the same
legal plans (:class:`~trackkit.rules.plans.PlanBuilder`) and break ties by plan order: the
same position always gets the same plan, and the plan memo
(:class:`~trackkit.sim.memo.PlanMemo`) gives it back at once.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Literal

from trackkit.rules.dashboard import Dashboard
from trackkit.rules.plans import Plan, PlanBuilder, PlanContext, PlanStep, Prune, PruneMove
from trackkit.rules.resolve import DefaultPolicy, Mode, RollView, roll_units
from trackkit.rules.risk import RiskSoFar
from trackkit.rules.track import Track
from trackkit.sim.bots import Choice, _p_at_least
from trackkit.sim.memo import PlanMemo
from trackkit.sim.stuck import dashboard_key

__all__ = ["GT_BOTS", "GtBot", "last_lap_matters", "make_gt_bot", "road_of"]

#: Longest plan a GT bot considers (steps).
MAX_STEPS = 6
#: What a loss of control costs, in millimetres of road (about a turn and a half).
LOC_COST_MM = 500.0
#: What getting past another car is worth to the planner, in millimetres of road.
OVERTAKE_MM = 120.0
#: The planner goes on from the best few next steps of each step it weighs (a beam).
BRANCHES = 2
#: What ending a turn in the pit lane in first gear is worth to a car that wants to pit.
PIT_MM = 600.0


@dataclass(frozen=True, slots=True)
class GtRoad:
    """What GT bots read of a circuit, worked out once per track."""

    safe: dict[str, int]
    """Per space: the highest speed a car may stand there with and still take every limit
    ahead (corner limits and dotted lines), slowing one gear a move (MOVE-2)."""
    reach: dict[str, tuple[float, ...]]
    """Per space, for k = 0..MAX_STEPS moves: the most road (mm) k moves can gain."""
    windows: dict[str, frozenset[str]] = field(default_factory=dict)
    """Per space (filled as asked, :func:`ahead_window`): the spaces ahead within reach of
    a plan, where a car counts for the planner's overtakes."""
    prune: list[tuple[Prune, PruneMove]] = field(default_factory=list)
    """The bots' pruners on this road (:func:`_pruners`: they read its safe speeds alone)."""
    line: dict[str, bool] = field(default_factory=dict)
    """Per space (filled as asked, :func:`last_lap_matters`): whether the last lap can
    change a plan from there."""


_ROADS: dict[int, tuple[Track, GtRoad]] = {}


def road_of(track: Track) -> GtRoad:
    """The :class:`GtRoad` of a track (round the lap: the circuit is a cycle).

    >>> from trackkit.rules.positions import track_of
    >>> road = road_of(track_of(["102a", {"tile": "107a", "turn": "left"}, "103a"]))
    >>> road.safe["2:A12a"]
    1
    """
    hit = _ROADS.get(id(track))
    if hit is not None and hit[0] is track:
        return hit[1]
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
    layer = {n: 0.0 for n in spaces}
    layers = [layer]
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
    reach = {n: tuple(layers[k][n] for k in range(MAX_STEPS + 1)) for n in spaces}
    road = GtRoad(safe, reach)
    if len(_ROADS) >= 16:
        _ROADS.clear()
    _ROADS[id(track)] = (track, road)
    return road


@dataclass(frozen=True, slots=True)
class Wish:
    """What a car wants of its turn besides road: a pit stop (GT-2), cars to get past."""

    pit: bool = False


#: What the GT bots' move pruner reads: the road's safe speeds, no more (the plan builder
#: remembers its answers per track: :attr:`~trackkit.rules.plans.PlanBuilder.moves_key`).
_MOVES_KEY = "gtbots:safe"


def _pruners(ctx: PlanContext, road: GtRoad) -> tuple[Prune, PruneMove]:
    if road.prune:
        return road.prune[0]
    safe = road.safe

    def keep_move(stack: list[PlanStep], target: str, speed: int, v: int) -> bool:
        tgt = safe.get(target, 6)
        if min(tgt, speed + 1) - 1 <= v <= tgt:
            return True
        return tgt < speed - 1 and v < speed  # far too fast: any slowing down

    def keep(stack: list[PlanStep], step: PlanStep) -> bool:
        return step.loc is None  # no bot plans a certain loss of control

    road.prune.append((keep, keep_move))
    return keep, keep_move


def _scorer(
    ctx: PlanContext, road: GtRoad, wish: Wish, overtakes: bool
) -> Callable[[PlanStep], float]:
    """The score of a plan from ``ctx``, which only its last step decides."""
    track = ctx.track
    here = ctx.car.space
    assert here is not None
    safe = road.safe
    # a car counts as got past once the plan ends more than a hair beyond it (the cars
    # nearest first: the count is where the plan's gain falls among them)
    passed = [g + 1e-6 for g in _ahead(ctx, road)] if overtakes else []
    gains: dict[str, float] = {}

    def score(last: PlanStep) -> float:
        if last.finishes:
            return 1e6 + 10.0 * last.speed
        space = last.space
        gain = gains.get(space)
        if gain is None:
            gain = gains[space] = track.gain(here, space)
        over = max(0, last.speed - safe.get(space, 6) - 1)
        value = gain + 8.0 * last.speed - 400.0 * over
        if wish.pit and last.speed == 1 and track.spaces[space].pit is not None:
            value += PIT_MM  # rule: GT-2 (a pit stop takes first gear on a pit space)
        if passed:
            value += OVERTAKE_MM * bisect_left(passed, gain)
        return value

    return score


def ahead_window(track: Track, road: GtRoad, here: str) -> frozenset[str]:
    """The spaces ahead of ``here`` within the road a plan can gain (see :func:`_ahead`).

    Cars on them count for the planner's overtakes wherever they stand, reachable or not
    (a car in another lane just ahead is got past by driving by it): the plan memo keys
    the planner's plans on them (:class:`~trackkit.sim.memo.PlanMemo`).
    """
    hit = road.windows.get(here)
    if hit is None:
        most = road.reach[here][MAX_STEPS]
        hit = road.windows[here] = frozenset(
            s for s in track.spaces if 0 < track.gain(here, s) <= most
        )
    return hit


def last_lap_matters(track: Track, road: GtRoad, here: str) -> bool:
    """Whether a plan from ``here`` can tell the last lap from another one.

    On the last lap the step over the start/finish line ends the race (BOARD-3), and the
    planner's bound counts the line within reach. A plan from ``here`` takes at most
    :data:`MAX_STEPS` moves: when no line is within them (and the road they can gain stops
    short of it), every bot's plan is the plan of another lap, and the plan memo gives it.
    """
    hit = road.line.get(here)
    if hit is None:
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
        if lap and not hit:  # as the planner's bound reads the line (see _bounded)
            hit = any(max(road.reach[s]) >= lap - track.spaces[s].progress - 1e-6 for s in seen)
        road.line[here] = hit
    return hit


def _ahead(ctx: PlanContext, road: GtRoad) -> list[float]:
    """How far ahead the blocking cars within reach of a plan are, mm, nearest first.

    Exactly the cars on :func:`ahead_window`'s spaces.
    """
    track = ctx.track
    here = ctx.car.space
    assert here is not None
    window = ahead_window(track, road, here)
    return sorted(track.gain(here, o.space) for o in ctx.others if o.blocks and o.space in window)


def _greedy(ctx: PlanContext, wish: Wish, *, max_risk: float) -> tuple[Plan, set[str] | None]:
    """Build a plan step by step: the best-scoring next step within ``max_risk``."""
    road = road_of(ctx.track)
    keep, keep_move = _pruners(ctx, road)
    builder = PlanBuilder(ctx, keep=keep, keep_move=keep_move, moves_key=_MOVES_KEY)
    score_of = _scorer(ctx, road, wish, overtakes=False)
    risk = RiskSoFar()
    best_plan, best_score = Plan(()), float("-inf")
    for _ in range(MAX_STEPS):
        step_best: tuple[float, PlanStep, RiskSoFar] | None = None
        for step in builder.options():
            score = score_of(step)
            if step_best is not None and score <= step_best[0]:
                continue
            grown = risk.then(ctx, step)
            if grown.value(ctx) > max_risk:
                continue
            step_best = (score, step, grown)
        if step_best is None:
            break
        score, step, risk = step_best
        if score > best_score:
            best_plan, best_score = builder.plan(step), score
        if step.finishes:
            break
        builder.push(step)
    if not best_plan.steps:
        return _safest(ctx), None
    return best_plan, builder.examined


def _safest(ctx: PlanContext) -> Plan:
    """No sensible plan within the risk: the one-step plan least likely to lose control.

    A car whose every move loses control (first gear before a hairpin of 1 with its coast
    dice lost: MOVE-2, DAMAGE-3) takes the slowest such move rather than wait for good.
    """
    best: tuple[float, float, Plan] | None = None
    forced: tuple[int, Plan] | None = None
    road = road_of(ctx.track)
    score_of = _scorer(ctx, road, Wish(), overtakes=False)
    for step in PlanBuilder(ctx).options():
        if step.loc is not None:
            if forced is None or step.speed < forced[0]:
                forced = (step.speed, Plan((step,)))
            continue
        risk = RiskSoFar().then(ctx, step).value(ctx)
        key = (risk, -score_of(step))
        if best is None or key < (best[0], best[1]):
            best = (key[0], key[1], Plan((step,)))
    if best is not None:
        return best[2]
    return forced[1] if forced is not None else Plan(())


def _bounded(ctx: PlanContext, wish: Wish) -> tuple[Plan, set[str] | None]:
    """The plan of the best expected value (overtakes counted), by branch and bound.

    The DIRT planner's walk (:func:`trackkit.sim.bots._bounded_best`): a plan's risk only
    grows as it goes on and the road within reach bounds its score, so a branch that
    cannot beat the best so far is cut; a plan whose state and risk are those of an
    earlier one is not walked again.
    """
    road = road_of(ctx.track)
    keep, keep_move = _pruners(ctx, road)
    score_of = _scorer(ctx, road, wish, overtakes=True)
    builder = PlanBuilder(ctx, keep=keep, keep_move=keep_move, moves_key=_MOVES_KEY)
    here = ctx.car.space
    assert here is not None
    reach = road.reach
    bonus = OVERTAKE_MM * len(_ahead(ctx, road)) + (PIT_MM if wish.pit else 0.0)
    climb = 2 if any(c.boost for c in ctx.dashboard.columns.values()) else 1
    seen: set[Hashable] = set()
    best_value = float("-inf")
    best_steps: tuple[PlanStep, ...] = ()

    final = ctx.gt is not None and ctx.gt.final_lap
    lap = ctx.track.lap_length or 0.0
    spaces = ctx.track.spaces
    gain_of = ctx.track.gain

    def walk(risk: RiskSoFar, n: int) -> None:
        nonlocal best_value, best_steps
        then = risk.then
        options = builder.options()
        if n + 1 == MAX_STEPS:  # the last step: the best plan, no going on
            for step in options:
                r = then(ctx, step).value(ctx)
                value = (1 - r) * score_of(step) - r * LOC_COST_MM
                if value > best_value or not best_steps:
                    best_value, best_steps = value, (*builder.steps, step)
            return
        weighed = []
        for k, step in enumerate(options):
            grown = then(ctx, step)
            r = grown.value(ctx)
            value = (1 - r) * score_of(step) - r * LOC_COST_MM
            if value > best_value or not best_steps:
                best_value, best_steps = value, (*builder.steps, step)
            if step.loc is None and not step.finishes:
                weighed.append((-value, k, step, grown, r))
        if not weighed:
            return
        weighed.sort()  # by value, then plan order (``k`` tells every two apart)
        left = MAX_STEPS - n - 1
        for _v, _k, step, grown, r in weighed[:BRANCHES]:
            space = step.space
            ahead = reach[space][left]
            fastest = min(6, step.speed + left * climb)
            top = gain_of(here, space) + ahead + 8.0 * fastest + bonus
            if final and ahead >= lap - spaces[space].progress - 1e-6:
                top = max(top, 1e6 + 60.0)  # the finish line within reach
            if (1 - r) * top - r * LOC_COST_MM <= best_value - 1e-9:
                continue
            builder.push(step)
            key = (builder.state(), grown.key())
            if key not in seen:
                seen.add(key)
                walk(grown, n + 1)
            builder.pop()

    walk(RiskSoFar.shared(), 0)
    if not best_steps:
        return _safest(ctx), None
    # what the walk read of the other cars: the traffic of the spaces the builder examined
    # (TRAFFIC-1..3) and the cars within reach ahead, which its overtakes count (anywhere on
    # the road, reachable or not: the memo's zone of reachable spaces misses some)
    return Plan(best_steps), builder.examined | ahead_window(ctx.track, road, here)


class _CarefulPolicy(DefaultPolicy):
    """Secure dice with focus tokens that could exceed the limit; stop if it cannot pay."""

    def __init__(self, ctx: PlanContext) -> None:
        self.ctx = ctx

    def before_roll(self, view: RollView) -> Literal["roll", "secure", "stop"]:
        step = view.step
        # rule: TURN-6 (GT: control is lost over the limit, so one danger more than it)
        need = step.limit + 1 - view.dangers - (step.hazards if view.unit == 0 else 0)
        if len(step.dice) == len(view.dice):
            rest = view.dice
        else:
            rest = tuple(d for u in roll_units(step)[view.unit :] for d in u)
        p = _p_at_least(self.ctx, rest, need)
        if p <= 0.1:
            return "roll"
        if view.second_tokens >= view.cost_to_secure:
            return "secure"  # rule: GT-5 (focus tokens secure dice)
        return "stop" if view.can_stop and view.step_index > 0 else "roll"


class GtBot:
    """A GT bot: a style (cautious, aggressive, planner) and the stage's plan memo."""

    def __init__(self, name: str, memo: PlanMemo | None = None) -> None:
        if name not in GT_BOTS:
            raise ValueError(f"unknown bot '{name}' (bots: {', '.join(GT_BOTS)})")
        self.name = name
        self.memo = memo
        self.wish = Wish()
        """What the race tells the bot it wants this turn (a pit stop)."""
        self._board: tuple[Dashboard, Hashable] | None = None

    def choose(self, ctx: PlanContext, rng: random.Random) -> Choice:
        """This turn's plan and rolling mode."""
        plan = self.plan(ctx)
        if self.name == "cautious":
            return Choice(plan, Mode.ONE_BY_ONE, _CarefulPolicy(ctx))
        return Choice(plan, Mode.FLAT_OUT, DefaultPolicy())

    def plan(self, ctx: PlanContext) -> Plan:
        """The plan (from the memo when the position was seen)."""
        if self.memo is None:
            return self.search(ctx)[0]
        gt, here = ctx.gt, ctx.car.space
        if (
            gt is not None
            and gt.final_lap
            and here is not None
            and not last_lap_matters(ctx.track, road_of(ctx.track), here)
        ):
            ctx = replace(ctx, gt=replace(gt, final_lap=False))  # the same plan, remembered
        name = self.name + (":pit" if self.wish.pit else "")
        return self.memo.plan(name, self._board_key(ctx.dashboard), ctx, self.search)

    def search(self, ctx: PlanContext) -> tuple[Plan, set[str] | None]:
        """This bot's plan in ``ctx`` and the spaces whose traffic it read (None: unknown)."""
        if self.name == "planner":
            return _bounded(ctx, self.wish)
        return _greedy(ctx, self.wish, max_risk=0.35 if self.name == "cautious" else 0.5)

    def _board_key(self, board: Dashboard) -> Hashable:
        if self._board is None or self._board[0] is not board:
            self._board = (board, dashboard_key(board))
        return self._board[1]


#: The GT bots by name (the names of the DIRT bots: ``--bot`` takes them on any track).
GT_BOTS = ("cautious", "aggressive", "planner")


def make_gt_bot(name: str, memo: PlanMemo | None = None) -> GtBot:
    """A GT bot by name (sharing ``memo`` with the other bots of the track, if given)."""
    return GtBot(name, memo)
