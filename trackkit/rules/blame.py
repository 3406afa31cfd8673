"""Where a loss of control is charged: the space where the danger limit was broken.

One rule for both series (the heat map, "most dangerous tiles", P603 and P609 read it).
Flat out, the thrown dice are placed again (TURN-4): in DIRT control is lost on the
furthest step they allow (the DEFAULT of docs/rules.md), in GT where the player chooses,
so the car stops at the end of its move, often a straight past the corner that did it, or
over the finish line. A designer can ease what broke the limit, not where the car rolled
to: the loss is charged to the first step of the plan, as planned, where the danger
results so far (the dice thrown on the steps so far, SISU-cancelled ones left out, and the
steps' own dangers: clouds, CLIMB-8; warning signs and triangles, CORNER-4, CORNER-5)
reached the limit (DIRT, The Climb) or went over it (GT), TURN-6, the lowest limit of the
surfaces so far counting. A track element (a corner, a jump, a dotted line taken too
fast) and a loss rolled one by one are charged where they happen.

Examples
--------
>>> import random
>>> from trackkit.rules import Mode, ScriptedDice, legal_plans, new_table, position, resolve
>>> ctx = position(["202a", "205a", "206a", "204a", "203a"], space="2:1.1L", gear=3)
>>> plan = next(p for p in legal_plans(ctx)
...             if str(p) == "2:1.2L G4 > 2:1.3L G5 > 3:1.1L G6 > 3:1.2L C")
>>> rng = random.Random(1)
>>> out = resolve(ctx, plan, Mode.FLAT_OUT, rng, table=new_table(ctx.ruleset, rng),
...               dice=ScriptedDice(["danger", "danger", "danger", "safe"]))

The third danger, on 3:1.1L, reached the DIRT limit of 3; the dice placed again lose
control as late as they can, one space on:

>>> out.lost_control, out.car.space
(True, '3:1.2L')
>>> loss_space(ctx.ruleset, plan, Mode.FLAT_OUT, out.events)
'3:1.1L'
"""

from __future__ import annotations

from collections.abc import Sequence

from trackkit.rules.plans import Plan
from trackkit.rules.resolve import Event, Mode
from trackkit.rules.ruleset import Ruleset

__all__ = ["loss_space"]


def loss_space(ruleset: Ruleset, plan: Plan, mode: Mode, events: Sequence[Event]) -> str | None:
    """The space a turn's loss of control is charged to (see the module); None: no loss.

    Parameters
    ----------
    ruleset : Ruleset
        The ruleset the turn was played by (``danger_limit_rule``: reach or exceed).
    plan : Plan
        The plan the car set out on.
    mode : Mode
        Flat out or one by one.
    events : sequence of Event
        The turn's events (:attr:`~trackkit.rules.resolve.Outcome.events`).

    Returns
    -------
    str or None
        The space charged; the loss event's own space when the throw cannot be told
        from the events; None when the turn kept control.
    """
    loss = next((e for e in events if e.kind == "loss-of-control"), None)
    if loss is None or loss.note != "dangers" or mode is not Mode.FLAT_OUT:
        return loss.space if loss is not None else None
    hits = [e.value or 0 for e in events if e.kind == "roll"]
    if len(hits) != sum(len(step.dice) for step in plan.steps):
        return loss.space  # not the plan's throw (it cannot be told): where it happened
    if any(e.kind == "sisu" for e in events):
        hits = [0] * len(hits)  # rule: LOC-7 (the SISU token cancels every danger rolled)
    dangers, low, k = 0, 99, 0
    for step in plan.steps:
        dangers += sum(hits[k : k + len(step.dice)]) + step.hazards + (1 if step.cloud else 0)
        k += len(step.dice)
        low = min(low, step.limit)
        if ruleset.loses_control(dangers, low):  # rule: TURN-6
            return step.space
    return loss.space
