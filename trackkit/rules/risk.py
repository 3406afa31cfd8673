"""Exact probability that a plan loses control, for each rolling mode (no sampling).

Flat out, control is lost when a step's track element does it (over a corner limit, a
jump two over its number), when a jump one over its number rolls a danger face, or when
the danger results (plus cloud dangers) reach the lowest danger limit of the turn
(TURN-6). One by one, the count is checked on each step against that step's limit, and
the player may secure dice with second tokens or stop (a policy function decides).

Examples
--------
>>> from trackkit.rules.testing import position
>>> from trackkit.rules.plans import legal_plans
>>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
>>> plan = next(p for p in legal_plans(ctx) if len(p.steps) == 3)   # G1, G2, G3
>>> round(flat_out_risk(ctx, plan), 6)                              # 1/6 * 1/6 * 2/6
0.009259
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from trackkit.rules.dice import Die
from trackkit.rules.plans import Plan, PlanContext, PlanStep
from trackkit.rules.resolve import RollView, roll_units, securing_cost

__all__ = ["OneByOneDecision", "RiskSoFar", "flat_out_risk", "one_by_one_risk"]

#: A one-by-one policy: what to do with the next dice (a roll policy's ``before_roll``).
OneByOneDecision = Callable[[RollView], Literal["roll", "secure", "stop"]]


def _p(ctx: PlanContext, die: Die) -> float:
    return ctx.ruleset.danger_odds[die.kind, die.value]


def flat_out_risk(ctx: PlanContext, plan: Plan, *, sisu: bool = False) -> float:
    """Probability that rolling ``plan`` flat out loses control (TURN-4, TURN-6, JUMP-1).

    With ``sisu`` the car flips its SISU token when the dice reach the limit (LOC-7): only
    clouds and track elements can then make it lose control.
    """
    key = (
        ctx.ruleset.id,
        ctx.ruleset.danger_limit_rule,
        sisu,
        tuple(
            (s.dice, s.limit, s.loc, s.jump_risk, s.cloud, s.hazards, s.flying) for s in plan.steps
        ),
    )
    hit = _RISK_CACHE.get(key)
    if hit is None:
        hit = _flat_out_risk(ctx, plan, sisu=sisu)
        if len(_RISK_CACHE) > 200_000:
            _RISK_CACHE.clear()
        _RISK_CACHE[key] = hit
    return hit


_RISK_CACHE: dict[object, float] = {}


def _flat_out_risk(ctx: PlanContext, plan: Plan, *, sisu: bool = False) -> float:
    risk = RiskSoFar()
    for step in plan.steps:
        risk = risk.then(ctx, step)
    return risk.value(ctx, sisu=sisu)


@dataclass(slots=True)
class RiskSoFar:
    """The flat-out risk of a plan grown a step at a time (a bot building its plan).

    ``RiskSoFar().then(ctx, s1).then(ctx, s2).value(ctx)`` is exactly
    ``flat_out_risk(ctx, Plan((s1, s2)))``: the same sums in the same order. (Not frozen,
    to be cheap to make; :meth:`then` makes a new one and never changes this one, apart
    from remembering what it made: steps with the same dice and marks grow it alike.)
    """

    dist: tuple[float, ...] = (1.0,)
    """Chance of each count of danger results, by count (dice of jump-risk steps aside)."""
    safe_jumps: float = 1.0
    """Chance that no jump one over its number rolls its danger face (JUMP-1)."""
    low: int = 99
    """The lowest danger limit of the steps (TURN-6)."""
    clouds: int = 0
    """Clouds crossed: a danger each that cannot be cancelled (CLIMB-8)."""
    certain: bool = False
    """A step loses control whatever the roll (over a corner limit, a jump two over)."""
    steps: int = 0
    """Steps added so far (none: no risk)."""
    flying: float = 1.0
    """GT-1: chance that a flying start's 2 shows no danger (else the turn ends, safe)."""
    _after: dict[object, tuple[object, object, RiskSoFar]] | None = field(
        default=None, repr=False, compare=False
    )
    _values: dict[object, float] | None = field(default=None, repr=False, compare=False)
    _key: tuple[object, ...] | None = field(default=None, repr=False, compare=False)
    _rule: str | None = field(default=None, repr=False, compare=False)
    _plain: float = field(default=0.0, repr=False, compare=False)

    def then(self, ctx: PlanContext, step: PlanStep) -> RiskSoFar:
        """The risk with ``step`` added at the end."""
        odds = ctx.ruleset.danger_odds
        after = self._after
        if after is not None:
            # the same step again (the move tables hand the same steps to every search):
            # known by its id, kept with the entry so that its id stays its own
            hit = after.get(id(step))
            if hit is not None and hit[0] is step and hit[1] is odds:
                return hit[2]
        # what the risk reads of a step (and of the rules): a planner weighs the same dice
        # into several spaces, and each grows the risk alike. The dice are known by their
        # tuple (the plan generator reuses them), kept with the entry so that its id stays
        # its own (hashing the dice themselves costs more than the sums)
        key = (
            id(step.dice),
            step.limit,
            step.loc,
            step.jump_risk,
            step.cloud,
            step.hazards,
            step.flying,
            id(odds),
        )
        if after is None:
            after = self._after = {}
        else:
            hit = after.get(key)
            if hit is not None and hit[0] is step.dice and hit[1] is odds:
                after[id(step)] = (step, odds, hit[2])
                return hit[2]
        dist = self.dist
        safe_jumps = self.safe_jumps
        flying = self.flying
        for k, die in enumerate(step.dice):
            p = odds[die.kind, die.value]
            if step.flying:
                # rule: GT-1 (a danger on the 2 ends the turn, with no loss of control: the
                # plan goes on only given a safe face, which adds nothing to the count)
                flying *= 1.0 - p
                continue
            if k == 0 and step.jump_risk:
                # the jump's own danger face loses control whatever the count
                safe_jumps *= 1.0 - p  # and the count is unchanged given no danger here
                continue
            # each count: stays with a safe face, or one more with a danger face (the same
            # sums, in the same order, as adding the two ways into each count)
            nxt = [0.0] * (len(dist) + 1)
            miss = 1.0 - p
            for c, q in enumerate(dist):
                nxt[c] += q * miss
                nxt[c + 1] += q * p
            dist = tuple(nxt)
        grown = RiskSoFar(
            dist,
            safe_jumps,
            min(self.low, step.limit),
            self.clouds + (1 if step.cloud else 0) + step.hazards,
            self.certain or bool(step.loc),
            self.steps + 1,
            flying,
        )
        after[key] = (step.dice, odds, grown)
        after[id(step)] = (step, odds, grown)
        global _GROWN
        _GROWN += 1
        return grown

    @staticmethod
    def shared() -> RiskSoFar:
        """The risk of no step, shared: what :meth:`then` grows from it is remembered from
        search to search (searches weigh the same dice again and again), up to
        :data:`SHARED_RISKS` risks, then it starts again."""
        global _ROOT, _GROWN
        if _GROWN > SHARED_RISKS or _ROOT is None:
            _ROOT, _GROWN = RiskSoFar(), 0
        return _ROOT

    def key(self) -> tuple[object, ...]:
        """The risk so far as a key: equal keys, equal risks of every plan going on."""
        if self._key is None:
            self._key = (
                self.dist,
                self.safe_jumps,
                self.low,
                self.clouds,
                self.certain,
                self.steps,
                self.flying,
            )
        return self._key

    def value(self, ctx: PlanContext, *, sisu: bool = False) -> float:
        """Probability that the steps so far, rolled flat out, lose control (TURN-4)."""
        rule = ctx.ruleset.danger_limit_rule
        if not sisu and self._rule is rule:
            return self._plain
        values = self._values
        if values is None:
            values = self._values = {}
        else:
            hit = values.get((sisu, rule))
            if hit is not None:
                return hit
        values[sisu, rule] = risk = self._value(ctx.ruleset.most_dangers(self.low), sisu)
        if not sisu:
            self._rule, self._plain = rule, risk
        return risk

    def _value(self, most: int, sisu: bool) -> float:
        if self.flying != 1.0:  # rule: GT-1 (only a safe 2 lets the rest of the plan run)
            return self.flying * self._unflown(most, sisu)
        return self._unflown(most, sisu)

    def _unflown(self, most: int, sisu: bool) -> float:
        """The risk, given no flying start: ``most`` dangers keep control (TURN-6)."""
        if self.certain:
            return 1.0
        if not self.steps:
            return 0.0
        if self.clouds > most:
            return 1.0
        if sisu:
            return 1.0 - self.safe_jumps
        # counts c with c + clouds at most ``most`` (TURN-6: reach, or exceed for GT)
        bound = most - self.clouds + 1
        p_safe_count = sum(self.dist[: max(0, bound)])
        return 1.0 - self.safe_jumps * p_safe_count


#: Risks grown (by any :class:`RiskSoFar`) before :meth:`RiskSoFar.shared` starts again.
SHARED_RISKS = 200_000
_ROOT: RiskSoFar | None = None
_GROWN = 0


def one_by_one_risk(
    ctx: PlanContext,
    plan: Plan,
    *,
    decide: OneByOneDecision | None = None,
    second_tokens: int | None = None,
    sisu: bool | None = None,
) -> float:
    """Probability that rolling ``plan`` one by one loses control (TURN-5, TURN-6).

    ``decide`` chooses before each die, or each pair that goes together (default: always
    roll), from the :class:`~trackkit.rules.resolve.RollView` the roller shows a policy;
    securing costs rise within the turn. With ``sisu`` (default: whether the car's token is
    unflipped) the car flips its SISU token as soon as the dice reach the limit on a
    surface where the dashboard lets it work (:attr:`Dashboard.sisu`), and every danger
    result of the turn, rolled or still to come, counts for nothing (LOC-7). Exact: a sum over
    every roll sequence.
    """
    tokens0 = ctx.car.second_tokens if second_tokens is None else second_tokens
    token = ctx.car.sisu_token if sisu is None else sisu
    walk = _OneByOneWalk(ctx, plan, decide or _always_roll, token)
    return walk.risk(0, 0, 0, 0, tokens0, 0, False)


def _always_roll(_view: RollView) -> Literal["roll", "secure", "stop"]:
    return "roll"


class _OneByOneWalk:
    """:func:`one_by_one_risk`'s sum over every roll sequence, each state summed once.

    A class, not a closure that calls itself: mypyc compiles a method's recursion, not a
    nested function's (a compiled hot path is measured, not yet built: see
    ``benchmarks/PROFILES.md``, "mypyc, round two").
    """

    def __init__(self, ctx: PlanContext, plan: Plan, decide: OneByOneDecision, token: bool) -> None:
        self.steps = plan.steps
        self.units = [roll_units(s) for s in self.steps]
        works = ctx.dashboard.sisu
        spaces = ctx.track.spaces
        self.can_flip = [token and spaces[s.placed_on].surface in works for s in self.steps]
        self.odds = ctx.ruleset.danger_odds
        self.loses_control = ctx.ruleset.loses_control  # rule: TURN-6
        self.decide = decide
        self.memo: dict[tuple[int, int, int, int, int, int, bool], float] = {}

    def risk(
        self, j: int, k: int, dangers: int, clouds: int, tokens: int, secured: int, flip: bool
    ) -> float:
        """The probability of losing control from die unit ``k`` of step ``j`` on."""
        key = (j, k, dangers, clouds, tokens, secured, flip)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = self._risk(j, k, dangers, clouds, tokens, secured, flip)
        return hit

    def _risk(
        self, j: int, k: int, dangers: int, clouds: int, tokens: int, secured: int, flip: bool
    ) -> float:
        steps, units = self.steps, self.units
        loses_control = self.loses_control
        if j == len(steps):
            return 0.0
        step = steps[j]
        if not units[j]:  # CLIMB-5's free move: no die, nothing to roll
            return 1.0 if step.loc else 0.0
        dice = units[j][k]
        cost = securing_cost(secured, len(dice))
        choice = self.decide(RollView(j, step, dangers, tokens, secured, cost, dice, k))
        if choice == "stop" and k == 0:
            return 0.0
        if step.loc:
            return 1.0  # over a corner limit or a jump: lost whatever the dice
        cloud = (1 if (k == 0 and step.cloud) else 0) + (step.hazards if k == 0 else 0)
        # every outcome of these dice: (dangers rolled, the jump die's danger, probability)
        outcomes: dict[tuple[int, bool], float] = {(0, False): 1.0}
        if choice == "secure" and tokens >= cost:
            tokens_after, secured_after = tokens - cost, secured + len(dice)
        else:
            tokens_after, secured_after = tokens, secured
            for i, die in enumerate(dice):
                p = self.odds[die.kind, die.value]
                if step.flying:
                    # rule: GT-1 (a danger on the 2: one space, and the turn ends safely)
                    outcomes = {(c, jumped): q * (1 - p) for (c, jumped), q in outcomes.items()}
                    continue
                jump_die = k == 0 and i == 0 and step.jump_risk
                nxt: dict[tuple[int, bool], float] = {}
                for (c, jumped), q in outcomes.items():
                    nxt[(c, jumped)] = nxt.get((c, jumped), 0.0) + q * (1 - p)
                    key = (c + 1, jumped or jump_die)
                    nxt[key] = nxt.get(key, 0.0) + q * p
                outcomes = nxt
        total = 0.0
        for (c, jumped), q in outcomes.items():
            if jumped:
                total += q  # rule: JUMP-1 (a track element: SISU leaves it, LOC-7)
                continue
            cl = clouds + cloud
            d = dangers + cloud + (0 if flip else c)
            flipped = flip
            if loses_control(d, step.limit):
                if not flip and self.can_flip[j] and d > cl and not loses_control(cl, step.limit):
                    d, flipped = cl, True  # rule: LOC-7 (every danger of the turn void)
                else:
                    total += q
                    continue
            if k + 1 < len(units[j]):
                total += q * self.risk(j, k + 1, d, cl, tokens_after, secured_after, flipped)
            elif not step.finishes:
                total += q * self.risk(j + 1, 0, d, cl, tokens_after, secured_after, flipped)
        return total
