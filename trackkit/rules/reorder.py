"""The thrown dice in another order: a route that keeps control, or one that loses it (TURN-4).

GT, flat out, the dice thrown can be placed again in another order on the board.
:func:`reroute` looks for a route that keeps control; :func:`loss_orders` for the orders
that lose it, step by step. Both walk the one step rule through
:class:`~trackkit.rules.plans.PlanBuilder`, with a move pruner that keeps only the dice in
hand. (Split from :mod:`trackkit.rules.resolve`, which calls them and re-exports them.)

Examples
--------
>>> from trackkit.rules.positions import position, track_of, GT_RING
>>> from trackkit.rules.plans import legal_plans
>>> from trackkit.rules.ruleset import load_ruleset
>>> ctx = position(track_of(GT_RING), space="1:A2d", gear=1, car="gt6",
...                ruleset=load_ruleset("gt"))
>>> plan = next(p for p in legal_plans(ctx) if str(p) == "1:A1c G2 > 1:A1b G3")
>>> str(reroute(ctx, plan, 0))
'1:A1c G2 > 1:A1b G3'
"""

from __future__ import annotations

from trackkit.rules.dice import Die
from trackkit.rules.plans import Plan, PlanBuilder, PlanContext, PlanStep

__all__ = ["loss_orders", "reroute"]


def reroute(ctx: PlanContext, plan: Plan, dangers: int) -> Plan | None:
    """GT, flat out: another route for the thrown dice that keeps control, or None (TURN-4).

    The same dice, each placed once (a route that crosses the finish line may leave the
    rest), on any legal route from where the car stands: its danger results (``dangers``,
    thrown) and those of the route itself (CORNER-4, CORNER-5) must not go over the limit
    (TURN-6), and no step may lose control whatever the dice (CORNER-1, CORNER-4). The
    furthest such route; between routes as far, the first in plan order (DEFAULT).
    """
    here = ctx.car.space
    if here is None or not plan.steps:
        return None
    track = ctx.track
    wanted: list[dict[str, int]] = [{}]  # the dice left where the builder is asked

    def keep_move(stack: list[PlanStep], target: str, speed: int, v: int) -> bool:
        # the move's lead die must be left: a coast (or leader) die keeps the speed, a gear
        # die is the speed after (MOVE-2..5, GT-1); the walk checks the rest of its dice
        left = wanted[0]
        if v == speed:
            return "C" in left or "L" in left
        return _GEAR_LABELS[v] in left

    builder = PlanBuilder(ctx, keep_move=keep_move)
    best: list[tuple[float, Plan]] = []
    over = ctx.ruleset.loses_control  # rule: TURN-6
    seen: set[object] = set()  # partial routes with the same state go on alike

    def walk(left: dict[str, int], extra: int, low: int) -> None:
        wanted[0] = left  # before the builder works out this level's steps
        for step in builder.options():
            if step.loc is not None:
                continue
            rest = _take(left, step.dice)
            if rest is None:
                continue
            grown, lowest = extra + step.hazards, min(low, step.limit)
            if over(dangers + grown, lowest):
                continue  # the route's own dangers only grow
            if not rest or step.finishes:
                gain = 1e9 if step.finishes else track.gain(here, step.space)
                if not best or gain > best[0][0]:
                    best[:] = [(gain, builder.plan(step))]
                continue
            builder.push(step)
            key = (builder.state(), grown, lowest)
            if key not in seen:
                seen.add(key)
                walk(rest, grown, lowest)
            builder.pop()

    thrown: dict[str, int] = {}
    for die in plan.dice:
        thrown[die.label] = thrown.get(die.label, 0) + 1
    walk(thrown, 0, 99)
    return best[0][1] if best else None


_GEAR_LABELS = tuple(f"G{v}" for v in range(7))

#: A die thrown flat out as :func:`loss_orders` moves it about: its label and its face
#: (True: danger).
_Thrown = tuple[str, bool]


def loss_orders(
    ctx: PlanContext, plan: Plan, rolled: list[list[bool]]
) -> dict[int, tuple[tuple[PlanStep, ...], bool]]:
    """GT, flat out: where the thrown dice, re-ordered, can make the car lose control (TURN-4).

    ``rolled`` holds, step by step, whether each die of ``plan`` showed danger. Every
    order of those dice that is a legal plan on the plan's own spaces, each die placed
    once with the face it showed, is tried (DEFAULT): control is lost on each step where
    the dangers so far (the dice's and the steps' own, CORNER-4, CORNER-5) are over the
    lowest limit so far (TURN-6), and on a last step that loses control whatever the
    dice (CORNER-1, CORNER-4). A flying start whose 2 shows danger loses no control
    (GT-1): that order does not count.

    Returns, by the index of each step where control can be lost, the order that loses
    it there -- the plan's own where it does, else the first in the order of
    :func:`~trackkit.rules.plans.legal_plans` -- and whether the dice's dangers do it
    (False: the step's limit, whatever the dice).

    Examples
    --------
    A GT-6 car in gear 1 on the start/finish straight of the GT ring plans G2, a coast
    die, G3, a coast die, G4, and throws four dangers: all but the first coast die. In
    the planned order the count goes over the limit of 3 on the last step only; with the
    coast dice swapped about, G2 > G3 > G4 > C (danger) > C (safe), already on the fourth.

    >>> from trackkit.rules.positions import position, track_of, GT_RING
    >>> from trackkit.rules.plans import legal_plans
    >>> from trackkit.rules.ruleset import load_ruleset
    >>> ctx = position(track_of(GT_RING), space="1:A2d", gear=1, car="gt6",
    ...                ruleset=load_ruleset("gt"))
    >>> plan = next(p for p in legal_plans(ctx) if str(p) ==
    ...             "1:A1c G2 > 1:A1b C > 1:A1a G3 > 2:A2a C > 2:A2b G4")
    >>> orders = loss_orders(ctx, plan, [[True], [False], [True], [True], [True]])
    >>> for j, (steps, by_dice) in sorted(orders.items()):
    ...     print(j, Plan(steps), by_dice)
    3 1:A1c G2 > 1:A1b G3 > 1:A1a G4 > 2:A2a C > 2:A2b C True
    4 1:A1c G2 > 1:A1b C > 1:A1a G3 > 2:A2a C > 2:A2b G4 True
    """
    here = ctx.car.space
    n = len(plan.steps)
    if here is None or not n:
        return {}
    thrown: dict[_Thrown, int] = {}
    for step, faces in zip(plan.steps, rolled, strict=True):
        for die, hit in zip(step.dice, faces, strict=True):
            thrown[die.label, hit] = thrown.get((die.label, hit), 0) + 1
    spaces = [s.space for s in plan.steps]
    left: list[dict[_Thrown, int]] = [thrown]

    def keep_move(stack: list[PlanStep], target: str, speed: int, v: int) -> bool:
        # on the plan's own space, with a lead die still in hand (MOVE-2..5, GT-1)
        if len(stack) >= n or target != spaces[len(stack)]:
            return False
        lead = ("C",) if v == speed else (_GEAR_LABELS[v],)
        return any(key[0] in lead for key in left[0])

    loses_control = ctx.ruleset.loses_control  # rule: TURN-6
    builder = PlanBuilder(ctx, keep_move=keep_move)
    found: dict[int, tuple[tuple[PlanStep, ...], bool]] = {}
    planned = tuple(plan.steps)

    def walk(rest: dict[_Thrown, int], dangers: int, low: int, over: list[int]) -> None:
        left[0] = rest
        k = len(builder.steps)
        for step in builder.options():
            for after, hits in _faces(rest, step.dice):
                if k == 0 and step.flying and hits[0]:
                    continue  # rule: GT-1 (a 2 that shows danger: the turn ends, in control)
                count = dangers + sum(hits) + step.hazards
                lowest = min(low, step.limit)
                now = [*over, k] if loses_control(count, lowest) else over
                last = k == n - 1 or step.finishes or step.loc is not None
                if not last:
                    builder.push(step)
                    walk(after, count, lowest, now)
                    builder.pop()
                    left[0] = rest
                    continue
                if after or k != n - 1:
                    continue  # every die placed, on every space of the plan
                steps = (*builder.steps, step)
                losses = [(j, True) for j in now]
                if step.loc is not None and k not in now:
                    losses.append((k, False))
                for j, by_dice in losses:
                    if j not in found or (steps == planned and found[j][0] != planned):
                        found[j] = (steps, by_dice)

    walk(thrown, 0, 99, [])
    return found


def _faces(
    rest: dict[_Thrown, int], dice: tuple[Die, ...]
) -> list[tuple[dict[_Thrown, int], tuple[bool, ...]]]:
    """Ways to give ``dice`` faces from the thrown dice ``rest``: what is left, the faces."""
    out: list[tuple[dict[_Thrown, int], tuple[bool, ...]]] = [(rest, ())]
    for die in dice:
        grown = []
        for have, hits in out:
            for hit in (False, True):
                n = have.get((die.label, hit), 0)
                if not n:
                    continue
                after = dict(have)
                if n == 1:
                    del after[die.label, hit]
                else:
                    after[die.label, hit] = n - 1
                grown.append((after, (*hits, hit)))
        out = grown
    return out


def _take(left: dict[str, int], dice: tuple[Die, ...]) -> dict[str, int] | None:
    """The dice ``left`` without ``dice`` (counts by label), or None if some are missing."""
    rest = dict(left)
    for die in dice:
        n = rest.get(die.label, 0)
        if not n:
            return None
        if n == 1:
            del rest[die.label]
        else:
            rest[die.label] = n - 1
    return rest
