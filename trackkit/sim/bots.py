"""Bots: deterministic drivers that choose a plan and a rolling mode each turn.

- ``cautious`` rolls one by one, secures or stops before a loss of control is likely;
- ``aggressive`` rolls flat out and takes the furthest plan whose risk is at most one half;
- ``planner`` rolls flat out and takes the plan with the best expected outcome, using the
  exact risk of :func:`trackkit.rules.risk.flat_out_risk`.

All three search the same legal plans (:func:`trackkit.rules.plans.legal_plans`), pruned
to steps a sensible driver considers, and break ties by plan order: the same seed and
position always give the same choice. None of them ends a turn where it can see it would
be stuck (no path to the finish left, :mod:`trackkit.sim.stuck`) while another plan keeps
a path open.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from trackkit.rules.dashboard import Dashboard
from trackkit.rules.dice import Die
from trackkit.rules.plans import (
    Plan,
    PlanBuilder,
    PlanContext,
    PlanStep,
    Prune,
    PruneMove,
    legal_plans,
)
from trackkit.rules.resolve import DefaultPolicy, Mode, RollPolicy, RollView, roll_units, sisu_ready
from trackkit.rules.risk import RiskSoFar, flat_out_risk
from trackkit.rules.state import PitChoice
from trackkit.rules.track import Track
from trackkit.sim.memo import PlanMemo
from trackkit.sim.stuck import dashboard_key, reach_of

__all__ = ["BOTS", "Bot", "Choice", "make_bot", "pruners"]

#: Longest plan a bot considers (steps).
MAX_STEPS = 6


@dataclass(frozen=True, slots=True)
class Choice:
    """A bot's decision for one turn.

    ``pit`` (GT): what the driver does if its turn ends in first gear on a pit space
    (GT-2): drive on (``no``), fit tyres only or mend the damage (``tyres``, ``repair``);
    None: the race decides, as for the bots (a stop when the car is damaged or on the
    wrong tyres, not on the last lap).
    """

    plan: Plan
    mode: Mode
    policy: RollPolicy
    pit: PitChoice | None = None


@dataclass(frozen=True, slots=True)
class _Road:
    """What bots read of a track on every step they weigh, worked out once per track."""

    look: dict[str, tuple[int, int]]
    """Per space: steps to the nearest corner space ahead and the best limit there."""
    target: dict[str, int]
    """Per space: the highest speed from which that corner can still be taken."""
    sideways: frozenset[tuple[str, str]]
    """Steps from a lane space to the other lane (a lane change on a straight)."""
    ahead: dict[str, tuple[tuple[bool, float], ...]]
    """Per space, for k = 0..MAX_STEPS more moves: whether the finish may be within reach,
    and the furthest progress that may be: an upper bound for the planner's search."""


_ROADS: dict[int, tuple[Track, _Road]] = {}


def _road(track: Track) -> _Road:
    hit = _ROADS.get(id(track))
    if hit is not None and hit[0] is track:
        return hit[1]
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
    target = {n: min(6, limit + dist) for n, (dist, limit) in look.items()}
    sideways = frozenset(
        (a, b)
        for a, succs in track.successors.items()
        for b, _climb in succs
        if spaces[a].kind == "lane"
        and spaces[b].kind == "lane"
        and spaces[a].lanes != spaces[b].lanes
    )
    # furthest progress and the finish within k moves, k = 0..MAX_STEPS: a move is one step
    # of the graph, or onto a jump space and on one or two more (JUMP-1)
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
    ahead = {n: tuple(layers[k][n] for k in range(MAX_STEPS + 1)) for n in spaces}
    road = _Road(look, target, sideways, ahead)
    if len(_ROADS) >= 16:  # a long-lived process that loads many stages keeps the last few
        _ROADS.clear()
    _ROADS[id(track)] = (track, road)
    return road


def pruners(ctx: PlanContext) -> tuple[Prune, PruneMove]:
    """Steps a sensible driver considers: speed near the target for the road ahead.

    The target speed of a space is the highest from which the next corner can still be
    taken at its best limit, slowing one gear per space (MOVE-2): limit + distance.
    """
    road = _road(ctx.track)
    target_of, sideways = road.target, road.sideways

    def keep_move(stack: list[PlanStep], target: str, speed: int, v: int) -> bool:
        if stack and (stack[-1].space, target) in sideways:
            return False  # changing lane mid-turn on a straight gains nothing
        tgt = target_of.get(target, 6)
        if min(tgt, speed + 1) - 1 <= v <= tgt:
            return True
        return tgt < speed - 1 and v < speed  # far too fast: any slowing down

    def keep(stack: list[PlanStep], step: PlanStep) -> bool:
        return step.loc is None  # no bot plans a certain loss of control

    return keep, keep_move


def _score(ctx: PlanContext, plan: Plan) -> float:
    """Progress gained, less a penalty for ending too fast for the next corner."""
    return _scorer(ctx)(plan.steps[-1])


def _scorer(ctx: PlanContext) -> Callable[[PlanStep], float]:
    """The score of a plan from ``ctx``, which only its last step decides."""
    spaces = ctx.track.spaces
    look = _road(ctx.track).look
    here = ctx.car.space
    assert here is not None
    start = spaces[here].progress

    def score(last: PlanStep) -> float:
        if last.finishes:
            return 1e6 + 10.0 * last.speed
        gain = spaces[last.space].progress - start
        dist, limit = look.get(last.space, (99, 6))
        reachable = max(1, last.speed - dist - 1)  # one gear a step, plus the brake die
        over = max(0, reachable - limit)
        return gain + 8.0 * last.speed - 400.0 * over

    return score


def _dead_ends(ctx: PlanContext) -> frozenset[str]:
    """Spaces from which this car could never finish (mud closed the way on: CORNER-1)."""
    return reach_of(ctx.track).dead(ctx.mud)


def _stuck_after(ctx: PlanContext) -> Callable[[PlanStep], bool]:
    """Whether a turn ending with a step leaves the car stuck (``Reach.traps``)."""
    trapped = reach_of(ctx.track).traps(ctx)
    return lambda last: not last.finishes and trapped(last.space, last.speed)


def _candidates(ctx: PlanContext) -> list[tuple[float, Plan]]:
    """Scored plans to choose from: none that leaves the car stuck if another does not."""
    keep, keep_move = pruners(ctx)
    plans = legal_plans(ctx, max_steps=MAX_STEPS, keep=keep, keep_move=keep_move)
    out = [(_score(ctx, p), p) for p in plans]
    if not out:  # nothing a sensible driver would do: any legal plan, safest first
        out = [(_score(ctx, p), p) for p in legal_plans(ctx, max_steps=2)]
    stuck_after = _stuck_after(ctx)
    kept = [(score, p) for score, p in out if not stuck_after(p.steps[-1])]
    if not kept and out:  # every sensible plan leaves it stuck: any legal one that does not
        every = legal_plans(ctx, max_steps=MAX_STEPS)
        kept = [(_score(ctx, p), p) for p in every if not stuck_after(p.steps[-1])]
    return kept or out


class _Bot:
    """What every bot shares: a name, and a plan memo (the same position, the same plan)."""

    name = ""

    def __init__(self, memo: PlanMemo | None = None) -> None:
        self.memo = memo
        self._board: tuple[Dashboard, Hashable] | None = None

    def plan(self, ctx: PlanContext) -> Plan:
        """This bot's plan in ``ctx`` (from the memo when the position was seen)."""
        if self.memo is None:
            return self.search(ctx)[0]
        return self.memo.plan(self.name, self._board_key(ctx.dashboard), ctx, self.search)

    def search(self, ctx: PlanContext) -> tuple[Plan, set[str] | None]:
        """This bot's plan in ``ctx``, and the spaces whose traffic it read (None: unknown)."""
        raise NotImplementedError

    def _board_key(self, board: Dashboard) -> Hashable:
        # a seat keeps its dashboard all race: its key is worked out once
        if self._board is None or self._board[0] is not board:
            self._board = (board, dashboard_key(board))
        return self._board[1]


class Cautious(_Bot):
    """Rolls one by one; secures dice or stops when control could be lost."""

    name = "cautious"

    def choose(self, ctx: PlanContext, rng: random.Random) -> Choice:
        """The best plan with a moderate flat-out risk, rolled one by one (or the safest)."""
        return Choice(self.plan(ctx), Mode.ONE_BY_ONE, _CarefulPolicy(ctx))

    def search(self, ctx: PlanContext) -> tuple[Plan, set[str] | None]:
        """The greedy plan within a flat-out risk of 0.35."""
        return _greedy(ctx, max_risk=0.35)


class _CarefulPolicy(DefaultPolicy):
    """Secure dice that could reach the danger limit; stop before a step if it cannot pay.

    Rolling one by one, each die (or pair rolled together) is asked about on its own
    (TURN-5): the risk weighed is that of the step's dice still to roll, these first.
    """

    def __init__(self, ctx: PlanContext) -> None:
        self.ctx = ctx

    def before_roll(self, view: RollView) -> Literal["roll", "secure", "stop"]:
        step = view.step
        need = step.limit - view.dangers - (1 if step.cloud and view.unit == 0 else 0)
        if len(step.dice) == len(view.dice):
            rest = view.dice  # one die, or dice rolled together: nothing after them
        else:
            rest = tuple(d for u in roll_units(step)[view.unit :] for d in u)
        p = _p_at_least(self.ctx, rest, need)
        if step.jump_risk and view.unit == 0 and step.dice:  # JUMP-1: its face is enough
            first = step.dice[0]
            p = max(p, self.ctx.ruleset.danger_probability(first.kind, first.value))
        if p <= 0.1:
            return "roll"
        if view.second_tokens >= view.cost_to_secure:
            return "secure"
        return "stop" if view.can_stop and view.step_index > 0 else "roll"


def _p_at_least(ctx: PlanContext, dice: tuple[Die, ...], need: int) -> float:
    """Chance that ``dice`` show at least ``need`` danger faces."""
    if need <= 0:
        return 1.0
    odds = ctx.ruleset.danger_odds
    probs = tuple([odds[d.kind, d.value] for d in dice])
    return _tail(probs, need)


@lru_cache(maxsize=4096)
def _tail(probs: tuple[float, ...], need: int) -> float:
    dist = [1.0]
    for p in probs:
        nxt = [0.0] * (len(dist) + 1)
        for c, q in enumerate(dist):
            nxt[c] += q * (1 - p)
            nxt[c + 1] += q * p
        dist = nxt
    return sum(dist[need:])


class Aggressive(_Bot):
    """Flat out, the furthest plan whose risk is at most one half."""

    name = "aggressive"

    def choose(self, ctx: PlanContext, rng: random.Random) -> Choice:
        """The best-scoring plan with risk <= 0.5 (or the safest)."""
        return Choice(self.plan(ctx), Mode.FLAT_OUT, DefaultPolicy())

    def search(self, ctx: PlanContext) -> tuple[Plan, set[str] | None]:
        """The greedy plan within a flat-out risk of 0.5."""
        return _greedy(ctx, max_risk=0.5)


def _greedy(ctx: PlanContext, *, max_risk: float) -> tuple[Plan, set[str] | None]:
    """Build a plan step by step: the best-scoring next step within ``max_risk``.

    A :class:`~trackkit.rules.plans.PlanBuilder` offers the legal steps after the chosen
    prefix, and the risk grows with it (:class:`~trackkit.rules.risk.RiskSoFar`), so a
    turn costs a few dozen steps instead of every plan. Also returns the spaces whose
    traffic the search read (None when it fell back to every plan).
    """
    keep, keep_move = pruners(ctx)
    builder = PlanBuilder(ctx, keep=keep, keep_move=keep_move)
    score_of = _scorer(ctx)
    sisu = sisu_ready(ctx)
    risk = RiskSoFar()
    dead = _dead_ends(ctx)
    stuck_after = _stuck_after(ctx)
    best_plan, best_score = Plan(()), float("-inf")
    for _ in range(MAX_STEPS):
        step_best: tuple[float, PlanStep, RiskSoFar] | None = None
        for step in builder.options():
            if dead and step.space in dead and not step.finishes:
                continue  # a dead end stays one whatever follows (the fallback may take it)
            score = score_of(step)
            if step_best is not None and score <= step_best[0]:
                continue  # cannot beat the best so far: its risk does not matter
            grown = risk.then(ctx, step)
            if grown.value(ctx, sisu=sisu) > max_risk:
                continue
            step_best = (score, step, grown)
        if step_best is None:
            break
        score, step, risk = step_best
        if score > best_score and not stuck_after(step):  # never stop where stuck for good
            best_plan, best_score = builder.plan(step), score
        if step.finishes:
            break
        builder.push(step)
    if not best_plan.steps:  # nothing within the risk: the safest plan
        return _pick(ctx, max_risk=max_risk), None
    return best_plan, builder.examined


def _pick(ctx: PlanContext, *, max_risk: float) -> Plan:
    """The best-scoring plan within ``max_risk``; else the least risky one."""
    best: tuple[float, Plan] | None = None
    safest: tuple[float, float, Plan] | None = None
    sisu = sisu_ready(ctx)
    for score, plan in _candidates(ctx):
        risk = flat_out_risk(ctx, plan, sisu=sisu)
        if risk <= max_risk and (best is None or score > best[0]):
            best = (score, plan)
        if safest is None or (risk, -score) < (safest[0], -safest[1]):
            safest = (risk, score, plan)
    if best is not None:
        return best[1]
    return safest[2] if safest is not None else Plan(())


#: What a loss of control costs a planner, in millimetres of progress (about two turns).
LOC_COST_MM = 500.0


class Planner(_Bot):
    """Flat out, the plan with the best expected outcome under the exact risk."""

    name = "planner"

    def choose(self, ctx: PlanContext, rng: random.Random) -> Choice:
        """Maximise (1 - risk) * score - risk * cost of a loss of control."""
        return Choice(self.plan(ctx), Mode.FLAT_OUT, DefaultPolicy())

    def search(self, ctx: PlanContext) -> tuple[Plan, set[str] | None]:
        """The plan of the best expected value among the pruned legal plans.

        A branch-and-bound walk of the plans :func:`_candidates` weighs, in the same
        order: the risk only grows as a plan goes on, and the road ahead bounds its score,
        so plans that cannot beat the best so far are not walked. The same plan as
        weighing every candidate (ties go to the first, as there).
        """
        best = _bounded_best(ctx)
        if best is not None:
            return best
        chosen: tuple[float, Plan] | None = None  # no sensible plan: the fallbacks
        sisu = sisu_ready(ctx)
        for score, plan in _candidates(ctx):
            risk = flat_out_risk(ctx, plan, sisu=sisu)
            value = (1 - risk) * score - risk * LOC_COST_MM
            if chosen is None or value > chosen[0]:
                chosen = (value, plan)
        return (chosen[1] if chosen else Plan(())), None


def _bounded_best(ctx: PlanContext) -> tuple[Plan, set[str]] | None:
    """The planner's choice among the pruned plans that do not leave it stuck, or None.

    A depth-first walk of the plans of :func:`legal_plans` (the same order), with two cuts
    that never change the choice, since it goes to the first plan of the best value:

    - a plan's risk only grows as it goes on and the road ahead bounds its score, so the
      plans that go on from one that cannot lead to a better value are not walked;
    - a plan whose state (:meth:`PlanBuilder.state`) and risk so far are those of an
      earlier one (the same dice, another lane) has the same continuations, the same
      values, later: it is not walked either.

    With the plan come the spaces whose traffic the walk read (its builder's
    :attr:`~trackkit.rules.plans.PlanBuilder.examined`): other cars change the walk, its
    cuts included, only through the steps the builder offers, so the same cars on those
    spaces give the same choice (the plan memo keys by them). None when there is no such
    plan (:func:`_candidates` then falls back to others).
    """
    keep, keep_move = pruners(ctx)
    score_of = _scorer(ctx)
    stuck_after = _stuck_after(ctx)
    sisu = sisu_ready(ctx)
    ahead = _road(ctx.track).ahead
    here = ctx.car.space
    assert here is not None
    start = ctx.track.spaces[here].progress
    builder = PlanBuilder(ctx, keep=keep, keep_move=keep_move)
    best: list[tuple[float, Plan]] = []
    seen: set[Hashable] = set()
    climb = 2 if any(c.boost for c in ctx.dashboard.columns.values()) else 1

    def walk(risk: RiskSoFar, n: int) -> None:
        for step in builder.options():
            grown = risk.then(ctx, step)
            r = grown.value(ctx, sisu=sisu)
            value = None
            if not stuck_after(step):
                value = (1 - r) * score_of(step) - r * LOC_COST_MM
                if not best or value > best[0][0]:
                    best[:] = [(value, builder.plan(step))]
            if n + 1 >= MAX_STEPS or step.loc is not None or step.finishes or step.free:
                continue
            if best:
                left = MAX_STEPS - n - 1
                finish, most = ahead[step.space][left]
                # the score's bound: the finish, or the furthest gain and the highest speed
                # the moves left can reach (a gear up a move, two with a boost: MOVE-2, -5)
                fastest = min(6, step.speed + left * climb)
                top = 1e6 + 60.0 if finish else most - start + 8.0 * fastest
                bound = (1 - r) * max(top, -LOC_COST_MM) - r * LOC_COST_MM  # risk only grows
                if bound <= best[0][0] - 1e-9:
                    continue
            builder.push(step)
            key = (builder.state(), grown.key())
            if key not in seen:
                seen.add(key)
                walk(grown, n + 1)
            builder.pop()

    walk(RiskSoFar(), 0)
    return (best[0][1], builder.examined) if best else None


Bot = Cautious | Aggressive | Planner
BOTS: dict[str, type[Cautious] | type[Aggressive] | type[Planner]] = {
    "cautious": Cautious,
    "aggressive": Aggressive,
    "planner": Planner,
}


def make_bot(name: str, memo: PlanMemo | None = None) -> Bot:
    """A bot by name (sharing ``memo`` with the other bots of the stage, if given)."""
    try:
        return BOTS[name](memo)
    except KeyError:
        raise ValueError(f"unknown bot '{name}' (bots: {', '.join(BOTS)})") from None
