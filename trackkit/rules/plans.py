"""Legal turn plans: every sequence of steps, each a space and the dice placed on it.

A plan is what a player lays out before rolling (TURN-3): from the car's space and gear,
each step moves into a next space (graph successor) with one speed die — a gear die one
above or below the current speed, a gear die with brake dice or a boost die, or a coast /
leader die — and the plan may end after any die (MOVE-6). Which steps exist is the one step
rule of :mod:`trackkit.rules.steps` (docs/rules.md sections MOVE, CORNER, SHORTCUT, JUMP,
FORD, TRAFFIC, CLIMB, DASH, GT-1 and BOARD-3), for DIRT and GT alike; this module walks them
into plans (:func:`legal_plans`, :class:`PlanBuilder`, :func:`turn_ends`), and
:mod:`trackkit.rules.resolve` rolls them. The types of a plan live in
:mod:`trackkit.rules.turn`.

Examples
--------
>>> from trackkit.rules.testing import position
>>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
>>> plans = list(legal_plans(ctx))
>>> [str(p) for p in plans[:3]]
['1:1.2L G1', '1:1.2L G1 > 1:1.3L G2', '1:1.2L G1 > 1:1.3L G2 > 2:1.1L G3']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence

from trackkit.rules.dice import DieKind
from trackkit.rules.steps import (
    Prune,
    PruneMove,
    Record,
    Traffic,
    Undo,
    Walk,
    apply_step,
    level,
    past_ahead,
    start_walk,
    unapply_step,
    yellow_ahead,
)
from trackkit.rules.turn import GtTurn, Plan, PlanContext, PlanStep

__all__ = [
    "GtTurn",
    "Plan",
    "PlanBuilder",
    "PlanContext",
    "PlanStep",
    "Prune",
    "PruneMove",
    "count_plans",
    "legal_plans",
    "past_ahead",
    "plans_by_first",
    "turn_ends",
    "yellow_ahead",
]


def legal_plans(
    ctx: PlanContext,
    *,
    max_steps: int | None = None,
    keep: Prune | None = None,
    keep_move: PruneMove | None = None,
    after: Sequence[PlanStep] = (),
    descend: Callable[[Plan], bool] | None = None,
) -> Iterator[Plan]:
    """Every legal non-empty plan of ``ctx.car``, depth first (first steps in graph order).

    With ``after``, only the plans that go on from those first steps (the prefix is walked
    once, not every plan; :class:`PlanBuilder` grows a plan without walking it at all).

    ``max_steps`` limits the plans to that many steps (their first steps, for instance);
    ``keep`` lets a bot skip steps it will never choose (and every plan through them);
    ``keep_move`` does the same from the target space and speeds alone, before the step
    is built (fast). ``descend`` is asked, once a plan has been yielded, whether to go on
    to the plans that extend it (a branch-and-bound search answers from what it saw).
    """
    start = ctx.car.space
    if start is None or not ctx.car.on_track or ctx.car.finished:
        return
    traffic = Traffic.of(ctx)
    depth = 99 if max_steps is None else max_steps
    yield from _extend(
        ctx,
        start,
        ctx.car.gear,
        start_walk(ctx, start, traffic),
        [],
        traffic,
        depth=depth,
        keep=keep,
        keep_move=keep_move,
        after=tuple(after),
        descend=descend,
    )


class PlanBuilder:
    """One plan grown a step at a time: the legal next steps after the steps taken so far.

    The same steps, in the same order, as the plans of :func:`legal_plans` that go on from
    :attr:`steps` (with the same ``keep`` and ``keep_move``), without re-walking them: a
    bot that builds its plan greedily asks for :meth:`options` and :meth:`push` es one.

    Examples
    --------
    >>> from trackkit.rules.testing import position
    >>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
    >>> builder = PlanBuilder(ctx)
    >>> [str(s) for s in builder.options()]
    ['1:1.2L G1', '1:1.2R G1']
    >>> builder.push(builder.options()[0])
    >>> [str(s) for s in builder.options()]
    ['1:1.3L G2', '1:1.3L C', '1:1.3R G2', '1:1.3R C']
    >>> str(builder.plan())
    '1:1.2L G1'
    """

    def __init__(
        self,
        ctx: PlanContext,
        *,
        keep: Prune | None = None,
        keep_move: PruneMove | None = None,
        moves_key: Hashable | None = None,
    ) -> None:
        self.ctx = ctx
        self.keep = keep
        self.keep_move = keep_move
        self.moves_key = moves_key
        """Given: ``keep_move`` reads the target space and the two speeds and ``keep`` the
        step (of the steps so far only whether there are any and where the last ends; not
        the cars), and they prune alike for every builder on the track given the same key,
        so their answers are remembered with the track's moves."""
        self.steps: list[PlanStep] = []
        self.examined: set[str] = set()
        """Spaces whose traffic the builder read (entering, coming beside; TRAFFIC-1..3).

        Other cars change the builder's steps only through these spaces: each one's
        occupant, the spaces overlapping or beside it, and the lane taken in its corner.
        """
        self._traffic = Traffic.of(ctx, examined=self.examined)
        start = ctx.car.space
        self._walk = start_walk(ctx, start, self._traffic) if start is not None else Walk()
        self._options: list[tuple[PlanStep, Record | None]] | None = None
        self._undo: list[tuple[Undo | None, list[tuple[PlanStep, Record | None]] | None]] = []
        # the tiles whose entering the rest of a plan depends on (oxygen, clouds)
        self._special = frozenset(ctx.track.oxygen) | ctx.track.clouds

    def options(self) -> list[PlanStep]:
        """The legal next steps (none once the plan finishes, loses control or moved free)."""
        return [step for step, _record in self._level()]

    def push(self, step: PlanStep) -> None:
        """Take ``step``, one of :meth:`options`."""
        record = self._record(step)
        undo = apply_step(self._walk, *record) if record is not None else None
        self.steps.append(step)
        self._undo.append((undo, self._options))
        self._options = None

    def _record(self, step: PlanStep) -> Record | None:
        """What ``step``, one of :meth:`options`, records in the walk."""
        level = self._level()
        for option, record in level:
            if option is step:  # the options themselves, as a search hands them back
                return record
        for option, record in level:
            if option == step:
                return record
        raise ValueError(f"{step} is not a legal next step after {self.plan()}")

    def pop(self) -> PlanStep:
        """Take back the last step: the builder is as it was before it (a search backtracks).

        >>> from trackkit.rules.testing import position
        >>> builder = PlanBuilder(position(["202a", "205a", "203a"], space="1:1.1L", gear=0))
        >>> first = builder.options()
        >>> builder.push(first[0])
        >>> builder.pop() == first[0] and builder.options() == first and builder.steps == []
        True
        """
        if not self.steps:
            raise IndexError("no step to take back")
        step = self.steps.pop()
        undo, options = self._undo.pop()
        if undo is not None:
            unapply_step(self._walk, undo)
        self._options = options
        return step

    def state(self) -> Hashable:
        """What the steps so far leave to the rest of the plan, as a key.

        The number of steps, the last space and speed, the dice used, the tiles entered that
        carry oxygen or a cloud (CLIMB-7, CLIMB-8), the cars come beside (TRAFFIC-1): two
        plans of one position with the same state have the same legal continuations.
        """
        walk = self._walk
        last = self.steps[-1] if self.steps else None
        special = self._special
        return (
            len(self.steps),
            None if last is None else (last.space, last.speed, last.loc, last.finishes, last.free),
            frozenset(walk.gears),
            walk.brakes,
            walk.coasts,
            walk.boosts,
            frozenset(walk.tiles & special) if special else None,
            walk.oxygen,
            frozenset(walk.alongside) if walk.alongside else None,
        )

    def plan(self, step: PlanStep | None = None) -> Plan:
        """The plan so far (with ``step`` after it, if given)."""
        return Plan((*self.steps, step) if step is not None else tuple(self.steps))

    def _level(self) -> list[tuple[PlanStep, Record | None]]:
        if self._options is None:
            ctx = self.ctx
            if not self.steps:
                here, speed = ctx.car.space, ctx.car.gear
                if here is None or not ctx.car.on_track or ctx.car.finished:
                    self._options = []
                    return self._options
            else:
                last = self.steps[-1]
                if last.loc is not None or last.finishes or last.free:
                    self._options = []
                    return self._options
                here, speed = last.space, last.speed
            self._options = level(
                ctx,
                here,
                speed,
                self._walk,
                self.steps,
                self._traffic,
                keep=self.keep,
                keep_move=self.keep_move,
                moves_key=self.moves_key,
            )
        return self._options


def _extend(
    ctx: PlanContext,
    here: str,
    speed: int,
    walk: Walk,
    stack: list[PlanStep],
    traffic: Traffic,
    *,
    depth: int,
    keep: Prune | None = None,
    keep_move: PruneMove | None = None,
    after: tuple[PlanStep, ...] = (),
    descend: Callable[[Plan], bool] | None = None,
) -> Iterator[Plan]:
    if depth <= 0:
        return
    n = len(stack)
    ref = after[n] if n < len(after) else None
    options = level(ctx, here, speed, walk, stack, traffic, keep=keep, keep_move=keep_move, ref=ref)
    for step, record in options:
        if record is None:  # the free move of CLIMB-5 ends the plan
            yield Plan((*stack, step))
            continue
        undo = apply_step(walk, *record)
        stack.append(step)
        go_on = step.loc is None and not step.finishes and depth > 1
        if ref is None:
            plan = Plan(tuple(stack))
            yield plan
            if go_on and descend is not None:
                go_on = descend(plan)
        if go_on:
            yield from _extend(
                ctx,
                step.space,
                step.speed,
                walk,
                stack,
                traffic,
                depth=depth - 1,
                keep=keep,
                keep_move=keep_move,
                after=after,
                descend=descend,
            )
        stack.pop()
        unapply_step(walk, undo)


#: A turn's end as :func:`turn_ends` gives it: (space, speed, finishes, a gear die used).
TurnEnd = tuple[str, int, bool, bool]


def turn_ends(
    ctx: PlanContext,
    *,
    max_steps: int,
    keep: Prune | None = None,
    keep_move: PruneMove | None = None,
    moves_key: Hashable | None = None,
) -> dict[TurnEnd, int]:
    """Where the legal plans of ``ctx.car`` can end, with the most dice-moves to get there.

    The same ends as walking :func:`legal_plans` (with the same limits and pruners), but
    breadth first, partial plans merged when they reach the same space at the same speed
    with the same dice left: what follows them is the same, so the number of plans does
    not matter, only that of distinct positions inside the turn. The value is the most
    steps moved with a die (second tokens earned flat out, TURN-4); CLIMB-5's free move
    counts 0. Plans that lose control whatever the roll (CORNER-1, JUMP-1) are left out.
    The pruners see the plan's last step only (``[last]`` for the steps so far), which is
    all the bots' pruners read; ``moves_key``: see :attr:`PlanBuilder.moves_key`.

    Examples
    --------
    >>> from trackkit.rules.testing import position
    >>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
    >>> ends = turn_ends(ctx, max_steps=3)
    >>> ends[("2:1.1L", 3, False, True)], len(ends) == len(
    ...     {(p.end, p.steps[-1].speed) for p in legal_plans(ctx, max_steps=3)})
    (3, True)
    """
    start = ctx.car.space
    ends: dict[TurnEnd, int] = {}
    if start is None or not ctx.car.on_track or ctx.car.finished:
        return ends
    traffic = Traffic.of(ctx)
    special = set(ctx.track.oxygen) | set(ctx.track.clouds)
    layer: dict[object, tuple[Walk, PlanStep | None]] = {
        (): (start_walk(ctx, start, traffic), None)
    }
    for depth in range(max_steps):
        nxt: dict[object, tuple[Walk, PlanStep | None]] = {}
        for walk, last in layer.values():
            here, speed = (start, ctx.car.gear) if last is None else (last.space, last.speed)
            stack = [] if last is None else [last]
            options = level(
                ctx,
                here,
                speed,
                walk,
                stack,
                traffic,
                keep=keep,
                keep_move=keep_move,
                moves_key=moves_key,
            )
            for step, record in options:
                if step.loc is not None:
                    continue  # control lost whatever the roll: the turn does not end there
                gear_used = bool(walk.gears) or any(d.kind is DieKind.GEAR for d in step.dice)
                end = (step.space, step.speed, step.finishes, gear_used)
                moved = 0 if step.free else depth + 1
                if ends.get(end, -1) < moved:
                    ends[end] = moved
                if record is None or step.finishes:
                    continue  # the plan ends here
                grown = Walk(
                    set(walk.gears),
                    walk.brakes,
                    walk.coasts,
                    walk.boosts,
                    set(walk.tiles),
                    walk.oxygen,
                    set(walk.alongside),
                )
                apply_step(grown, *record)
                key = (
                    step.space,
                    step.speed,
                    frozenset(grown.gears),
                    grown.brakes,
                    grown.coasts,
                    grown.boosts,
                    frozenset(grown.tiles & special),
                    grown.oxygen,
                    frozenset(grown.alongside),
                )
                if key not in nxt:
                    nxt[key] = (grown, step)
        layer = nxt
        if not layer:
            break
    return ends


def count_plans(ctx: PlanContext) -> int:
    """Number of legal non-empty plans (the perft count of a position)."""
    return sum(1 for _ in legal_plans(ctx))


def plans_by_first(ctx: PlanContext) -> dict[str, int]:
    """Plan counts under each first step (for perft mismatch reports)."""
    return dict(sorted(Counter(str(p.steps[0]) for p in legal_plans(ctx)).items()))
