"""Bots: deterministic drivers that choose a plan and a rolling mode each turn.

- ``cautious`` rolls one by one, secures dice (second tokens; GT: focus tokens, GT-5) or
  stops before a loss of control is likely, and takes the best plan whose flat-out risk is
  at most 0.35;
- ``aggressive`` rolls flat out and takes the best plan whose risk is at most one half;
- ``planner`` rolls flat out and takes the plan with the best expected outcome, from the
  exact risk (:class:`~trackkit.rules.risk.RiskSoFar`); on a GT track it counts the cars
  it gets past.

One engine for both series: the same legal plans (:class:`~trackkit.rules.plans.PlanBuilder`),
pruned to steps a sensible driver considers, the same greedy search and the same planner's
walk, scored by one scorer; what they read of the road ahead is the series' own
(:mod:`trackkit.sim.roads`: :class:`~trackkit.sim.roads.DirtRoad`,
:class:`~trackkit.sim.roads.GtRoad`). Ties go to the first plan in plan order: the same
position always gets the same plan, and the plan memo (:class:`~trackkit.sim.memo.PlanMemo`)
gives it back at once. No bot ends a turn where it can see it would be stuck (no path to
the finish left, :mod:`trackkit.sim.stuck`) while another plan keeps a path open.

Examples
--------
>>> from trackkit.rules.positions import position
>>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=2)
>>> str(make_bot("planner").plan(ctx))
'1:1.2L G3 > 1:1.3L C > 2:1.1L G4 > 2:1.2L G5 > 2:1.3L C'
>>> [make_bot(name).choose(ctx, random.Random(1)).mode.value for name in BOTS]
['one-by-one', 'flat-out', 'flat-out']
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar, Literal

from mypy_extensions import mypyc_attr

from trackkit.rules.dashboard import Dashboard
from trackkit.rules.dice import Die
from trackkit.rules.plans import Plan, PlanBuilder, PlanContext, PlanStep
from trackkit.rules.resolve import DefaultPolicy, Mode, RollPolicy, RollView, roll_units, sisu_ready
from trackkit.rules.risk import RiskSoFar
from trackkit.rules.state import PitChoice
from trackkit.rules.track import Track
from trackkit.sim.memo import PlanMemo
from trackkit.sim.roads import (
    LOC_COST_MM,
    MAX_STEPS,
    NO_WISH,
    DirtRoad,
    Road,
    Wish,
    scorer,
)
from trackkit.sim.stuck import dashboard_key

__all__ = [
    "BOTS",
    "LOC_COST_MM",
    "MAX_STEPS",
    "Aggressive",
    "Bot",
    "CarefulPolicy",
    "Cautious",
    "Choice",
    "Planner",
    "Wish",
    "greedy",
    "make_bot",
    "planner_walk",
]


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


class CarefulPolicy(DefaultPolicy):
    """Secure dice that could lose control; stop before a step if securing cannot pay.

    Rolling one by one, each die (or pair rolled together) is asked about on its own
    (TURN-5): the risk weighed is that of the step's dice still to roll, these first, of
    reaching the danger limit, or of going over it where the ruleset says so
    (``danger_limit_rule``, TURN-6: DIRT reaches, GT exceeds). A cloud (CLIMB-8) and a
    GT hazard (CORNER-4, CORNER-5) are dangers before any die; a jump one over its number
    loses control on its die's own danger face (JUMP-1). Second tokens (GT: focus tokens,
    GT-5) secure dice.
    """

    def __init__(self, ctx: PlanContext) -> None:
        self.ctx = ctx
        self.over = 0 if ctx.ruleset.danger_limit_rule == "reach" else 1

    def before_roll(self, view: RollView) -> Literal["roll", "secure", "stop"]:
        """Roll while control is safe enough, else secure the dice, else stop."""
        # the answer reads the rules, the step, which of its dice, the dangers so far,
        # whether securing is paid for and whether the step is the first: remembered by
        # them (asked for every die a cautious bot rolls, of the same few steps)
        step, rules, dice = view.step, self.ctx.ruleset, view.dice
        key = (
            id(step),
            id(rules),
            id(dice),
            view.unit,
            view.dangers,
            view.second_tokens >= view.cost_to_secure,
            view.step_index > 0,
        )
        hit = _DECIDED.get(key)
        if hit is not None and hit[0] is step and hit[1] is rules and hit[2] is dice:
            return hit[3]
        choice = self._decide(view)
        if len(_DECIDED) >= 16384:
            _DECIDED.clear()
        _DECIDED[key] = (step, rules, dice, choice)  # kept with it: their ids stay their own
        return choice

    def _decide(self, view: RollView) -> Literal["roll", "secure", "stop"]:
        """What :meth:`before_roll` answers (a policy that decides otherwise overrides
        that: the answers are shared by every careful policy)."""
        step = view.step
        unit = view.unit
        need = step.limit + self.over - view.dangers
        if unit == 0:  # dangers that come whatever the dice
            need -= step.hazards + step.cloud
        # one die, or dice rolled together: nothing after them
        dice = view.dice
        rest = dice if len(step.dice) == len(dice) else _rest(step, unit)
        p = _p_at_least(self.ctx, rest, need) if need > 0 else 1.0
        if step.jump_risk and unit == 0 and step.dice:  # JUMP-1: its face is enough
            first = step.dice[0]
            p = max(p, self.ctx.ruleset.danger_probability(first.kind, first.value))
        if p <= 0.1:
            return "roll"
        if view.second_tokens >= view.cost_to_secure:
            return "secure"
        return "stop" if unit == 0 and view.step_index > 0 else "roll"  # (view.can_stop)


def _p_at_least(ctx: PlanContext, dice: tuple[Die, ...], need: int) -> float:
    """Chance that ``dice`` show at least ``need`` danger faces.

    Asked for every die a cautious bot rolls, of the same few dice tuples (the plan search
    and the memo hand the same tuples back): remembered by the tuple and the ruleset's odds
    (a die's odds take an enum's hash to look up).
    """
    if need <= 0:
        return 1.0
    odds = ctx.ruleset.danger_odds
    key = (id(odds), id(dice), need)
    hit = _ODDS.get(key)
    if hit is not None and hit[0] is odds and hit[1] is dice:
        return hit[2]
    p = _tail(tuple([odds[d.kind, d.value] for d in dice]), need)
    if len(_ODDS) >= 4096:
        _ODDS.clear()
    _ODDS[key] = (odds, dice, p)  # both kept with it: their ids stay their own
    return p


#: :meth:`CarefulPolicy.before_roll` by what it reads (see there), with the step and rules.
_DECIDED: dict[
    tuple[int, int, int, int, int, bool, bool],
    tuple[PlanStep, object, tuple[Die, ...], Literal["roll", "secure", "stop"]],
] = {}
#: :func:`_p_at_least` by (the odds, the dice, the dangers needed), with the odds and dice.
_ODDS: dict[tuple[int, int, int], tuple[object, tuple[Die, ...], float]] = {}
#: :func:`_rest` by (the step's dice, the unit), with the dice.
_RESTS: dict[tuple[int, int], tuple[tuple[Die, ...], tuple[Die, ...]]] = {}


def _rest(step: PlanStep, unit: int) -> tuple[Die, ...]:
    """The dice of ``step`` still to roll one by one from its ``unit``-th on (TURN-5)."""
    dice = step.dice
    hit = _RESTS.get((id(dice), unit))
    if hit is not None and hit[0] is dice:
        return hit[1]
    rest = tuple(d for u in roll_units(step)[unit:] for d in u)
    if len(_RESTS) >= 4096:
        _RESTS.clear()
    _RESTS[id(dice), unit] = (dice, rest)
    return rest


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


def greedy(
    ctx: PlanContext, road: Road, wish: Wish = NO_WISH, *, max_risk: float
) -> tuple[Plan, set[str] | None]:
    """Build a plan step by step: the best-scoring next step within ``max_risk``.

    A :class:`~trackkit.rules.plans.PlanBuilder` offers the legal steps after the chosen
    prefix, and the risk grows with it (:class:`~trackkit.rules.risk.RiskSoFar`), so a
    turn costs a few dozen steps instead of every plan. A step into a dead end is passed
    over, and no plan stops where the car would be stuck for good (:class:`Road`). Also
    returns the spaces whose traffic the search read (None when it fell back to
    :meth:`Road.fallback`).

    >>> from trackkit.rules.positions import position
    >>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=2)
    >>> plan, read = greedy(ctx, DirtRoad.of(ctx.track), max_risk=0.35)
    >>> str(plan), len(read)
    ('1:1.2L G3 > 1:1.3L G4 > 2:1.1L G5 > 2:1.2L G6 > 2:1.3L C > 3:1.1L C', 7)
    """
    keep, keep_move = road.pruners()
    builder = PlanBuilder(ctx, keep=keep, keep_move=keep_move, moves_key=road.moves_key)
    score_of = scorer(ctx, road, wish)
    sisu = sisu_ready(ctx)
    risk = RiskSoFar.shared()  # (what it grows is remembered from search to search)
    dead = road.dead_ends(ctx)
    stuck_after = road.stuck_after(ctx)
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
        if score > best_score and (stuck_after is None or not stuck_after(step)):
            best_plan, best_score = builder.plan(step), score  # never stop where stuck
        if step.finishes:
            break
        builder.push(step)
    if not best_plan.steps:  # nothing within the risk
        return road.fallback(ctx, max_risk), None
    return best_plan, builder.examined


#: The value of a plan not weighed (one that leaves the car stuck).
_NO_VALUE = float("-inf")


def planner_walk(
    ctx: PlanContext, road: Road, wish: Wish = NO_WISH
) -> tuple[Plan, set[str] | None]:
    """The plan of the best expected value, (1 - risk) * score - risk * a loss's cost.

    A depth-first walk of the pruned plans (the order of
    :func:`~trackkit.rules.plans.legal_plans`) with two cuts:

    - a plan's risk only grows as it goes on and the road ahead bounds its score
      (:meth:`Road.bound`), so the plans that go on from one that cannot lead to a better
      value are not walked;
    - a plan whose state (:meth:`PlanBuilder.state`) and risk so far are those of an
      earlier one (the same dice, another lane) has the same continuations, the same
      values, later: it is not walked either.

    The road says how far the walk goes (:attr:`Road.branches`): from every step in plan
    order as it weighs them (DIRT: the same plan as weighing every plan, ties to the first),
    or from the best few of each step's next steps once they are all weighed (GT: a beam).
    No plan that ends where the car would be stuck for good is chosen.

    With the plan come the spaces whose traffic the walk read (its builder's
    :attr:`~trackkit.rules.plans.PlanBuilder.examined`, and those whose cars the road's
    scorer counts: :meth:`Road.reads`): other cars change the walk, its cuts included,
    only through them, so the same cars on those spaces give the same choice (the plan
    memo keys by them). No such plan: :meth:`Road.fallback` (spaces unknown, None).

    >>> from trackkit.rules.positions import position
    >>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=2)
    >>> str(planner_walk(ctx, DirtRoad.of(ctx.track))[0])
    '1:1.2L G3 > 1:1.3L C > 2:1.1L G4 > 2:1.2L G5 > 2:1.3L C'
    """
    keep, keep_move = road.pruners()
    score_of = scorer(ctx, road, wish, overtakes=True)
    stuck_after = road.stuck_after(ctx)
    top = road.bound(ctx, wish)
    branches = road.branches
    sisu = sisu_ready(ctx)
    builder = PlanBuilder(ctx, keep=keep, keep_move=keep_move, moves_key=road.moves_key)
    seen: set[Hashable] = set()
    best_value = _NO_VALUE
    best_steps: tuple[PlanStep, ...] | None = None

    def descend(step: PlanStep, grown: RiskSoFar, r: float, n: int) -> None:
        if best_steps is not None:  # the risk only grows: a bound of every plan on
            bound = (1 - r) * top(step, MAX_STEPS - n - 1) - r * LOC_COST_MM
            if bound <= best_value - 1e-9:
                return
        builder.push(step)
        key = (builder.state(), grown.key())
        if key not in seen:
            seen.add(key)
            walk(grown, n + 1)
        builder.pop()

    def walk(risk: RiskSoFar, n: int) -> None:
        nonlocal best_value, best_steps
        then = risk.then
        last = n + 1 >= MAX_STEPS
        weighed: list[tuple[float, int, PlanStep, RiskSoFar, float]] = []
        for k, step in enumerate(builder.options()):
            grown = then(ctx, step)
            r = grown.value(ctx, sisu=sisu)
            value = _NO_VALUE
            if stuck_after is None or not stuck_after(step):
                value = (1 - r) * score_of(step) - r * LOC_COST_MM
                if best_steps is None or value > best_value:
                    best_value, best_steps = value, (*builder.steps, step)
            if last or step.loc is not None or step.finishes or step.free:
                continue
            if branches is None:
                descend(step, grown, r, n)
            else:
                weighed.append((-value, k, step, grown, r))
        if weighed:
            weighed.sort()  # by value, then plan order (``k`` tells every two apart)
            for _v, _k, step, grown, r in weighed[:branches]:
                descend(step, grown, r, n)

    walk(RiskSoFar.shared(), 0)
    if best_steps is None:
        return road.fallback(ctx, None), None
    extra = road.reads(ctx)
    return Plan(best_steps), (builder.examined | extra) if extra else builder.examined


# compiled (setup.py), the bots may still be subclassed by interpreted code (a user's own
# style, a test's): mypyc refuses that to a class not marked so
@mypyc_attr(allow_interpreted_subclasses=True)
class Bot:
    """A bot: a driving style on the stage's plan memo (the same position, the same plan).

    A style sets :attr:`name`, :attr:`max_risk` and, to roll otherwise than flat out,
    :meth:`choose`. ``road`` is the series' reading of the track
    (:class:`~trackkit.sim.roads.DirtRoad`, :class:`~trackkit.sim.roads.GtRoad`).
    """

    # ClassVar: compiled, an attribute set in the class body is a slot per instance, and a
    # subclass's own value, set in an interpreted class body, would go unseen
    name: ClassVar[str] = ""
    """The style's name (``--bot``), the key of its plans in the memo."""
    max_risk: ClassVar[float | None] = None
    """The greedy search within this flat-out risk; None: the planner's walk."""

    def __init__(self, memo: PlanMemo | None = None, *, road: type[Road] = DirtRoad) -> None:
        self.memo = memo
        self.reading = road
        self.wish = NO_WISH
        """What the race tells the bot it wants this turn (GT: a pit stop)."""
        self._board: tuple[Dashboard, Hashable] | None = None

    def choose(self, ctx: PlanContext, rng: random.Random) -> Choice:
        """This turn's plan, rolled flat out."""
        return Choice(self.plan(ctx), Mode.FLAT_OUT, DefaultPolicy())

    def road(self, track: Track) -> Road:
        """The bot's reading of ``track`` (made once per track, kept with it)."""
        return self.reading.of(track)

    def plan(self, ctx: PlanContext) -> Plan:
        """This bot's plan in ``ctx`` (from the memo when the position was seen)."""
        if self.memo is None:
            return self.search(ctx)[0]
        ctx = self.road(ctx.track).remembered(ctx)
        name = self.name + ":pit" if self.wish.pit else self.name
        return self.memo.plan(name, self._board_key(ctx.dashboard), ctx, self.search)

    def search(self, ctx: PlanContext) -> tuple[Plan, set[str] | None]:
        """This bot's plan in ``ctx``, and the spaces whose traffic it read (None: unknown)."""
        road = self.road(ctx.track)
        if self.max_risk is None:
            return planner_walk(ctx, road, self.wish)
        return greedy(ctx, road, self.wish, max_risk=self.max_risk)

    def _board_key(self, board: Dashboard) -> Hashable:
        # a seat keeps its dashboard all race: its key is worked out once, as a number
        # (the memo hashes it every turn; a number costs less than the nested tuple)
        if self._board is None or self._board[0] is not board:
            key = dashboard_key(board)
            self._board = (board, _BOARD_NUMBERS.setdefault(key, len(_BOARD_NUMBERS)))
        return self._board[1]


#: Dashboard keys (:func:`~trackkit.sim.stuck.dashboard_key`) by number, one a key, for
#: the life of the process (never emptied: a memo keeps the numbers it was given).
_BOARD_NUMBERS: dict[Hashable, int] = {}


@mypyc_attr(allow_interpreted_subclasses=True)
class Cautious(Bot):
    """Rolls one by one; secures dice or stops when control could be lost."""

    name = "cautious"
    max_risk = 0.35

    def choose(self, ctx: PlanContext, rng: random.Random) -> Choice:
        """The best plan with a moderate flat-out risk, rolled one by one (or the safest)."""
        return Choice(self.plan(ctx), Mode.ONE_BY_ONE, CarefulPolicy(ctx))


@mypyc_attr(allow_interpreted_subclasses=True)
class Aggressive(Bot):
    """Flat out, the furthest plan whose risk is at most one half."""

    name = "aggressive"
    max_risk = 0.5


@mypyc_attr(allow_interpreted_subclasses=True)
class Planner(Bot):
    """Flat out, the plan with the best expected outcome under the exact risk."""

    name = "planner"


#: The bots by name (``--bot`` takes them on any track).
BOTS: dict[str, type[Bot]] = {"cautious": Cautious, "aggressive": Aggressive, "planner": Planner}


def make_bot(name: str, memo: PlanMemo | None = None, *, road: type[Road] = DirtRoad) -> Bot:
    """A bot by name, reading the road as ``road`` does (sharing ``memo`` with the other
    bots of the stage, if given).

    >>> from trackkit.sim.roads import GtRoad
    >>> make_bot("planner", road=GtRoad).reading.branches
    2
    >>> make_bot("reckless")
    Traceback (most recent call last):
    ...
    ValueError: unknown bot 'reckless' (bots: cautious, aggressive, planner)
    """
    try:
        return BOTS[name](memo, road=road)
    except KeyError:
        raise ValueError(f"unknown bot '{name}' (bots: {', '.join(BOTS)})") from None
