"""Scripted drivers: a bot that plays given plans, turn after turn.

A :class:`Script` lists a driver's plans, one per turn, written as the turn log writes
them (``"1:1.2L G1 > 1:1.3L G2"``: the space each move ends on and its dice), each rolled
flat out or one by one. A move over a jump ends beyond it (JUMP-1): where two jump spaces
land on the same space, ``via`` names the one the die goes on (``"2:1.3L G4 via 2:1.2R"``).
The :class:`Scripted` bot finds each plan among the legal ones of the turn's position and
refuses one that is not, naming the step (:class:`ScriptError`); once the script is played
out, the bot named by ``then`` drives on, or the race stops with a :class:`ScriptError`.

Examples
--------
>>> from trackkit.rules.positions import position
>>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
>>> turn = ScriptedTurn.parse("1:1.2L G1 > 1:1.3L G2")
>>> turn.steps, str(turn.plan_in(ctx))
((('1:1.2L', 'G1'), ('1:1.3L', 'G2')), '1:1.2L G1 > 1:1.3L G2')
>>> ScriptedTurn.parse("1:1.2L G1 > 1:1.3L G4").plan_in(ctx)
Traceback (most recent call last):
...
trackkit.sim.script.ScriptError: step 2 '1:1.3L G4' is not a legal move after '1:1.2L G1' \
(in gear 1 on 1:1.2L); legal next steps: 1:1.3L G2, 1:1.3L C, 1:1.3R G2, 1:1.3R C
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from trackkit.errors import TrackkitError
from trackkit.rules.plans import Plan, PlanBuilder, PlanContext, PlanStep
from trackkit.rules.resolve import DefaultPolicy, Mode
from trackkit.rules.state import PitChoice
from trackkit.sim.bots import Bot, Choice, make_bot
from trackkit.sim.memo import PlanMemo
from trackkit.sim.roads import DirtRoad, Road

__all__ = ["Script", "ScriptError", "Scripted", "ScriptedTurn"]

#: The empty plan as the turn log writes it: the car stays where it is.
STAY = "(stay)"
#: What a scripted GT driver may do at a pit space (:attr:`ScriptedTurn.pit`, GT-2).
PIT_CHOICES: tuple[PitChoice, ...] = ("no", "tyres", "repair")


class ScriptError(TrackkitError, ValueError):
    """A scripted plan that is not legal in the turn's position, or a script played out."""


def _same_dice(label: str, wanted: str) -> bool:
    # a coast die is a leader die where the rules make it one (MOVE-3, MOVE-8): either name
    return label == wanted or label.replace("L", "C") == wanted.replace("L", "C")


def _step_text(step: PlanStep) -> str:
    """A legal step as a script writes it (``via`` the jump space the die goes on)."""
    via = f" via {step.placed_on}" if step.placed_on != step.space else ""
    return f"{step.space} {step.dice_label}{via}" + (f" !{step.loc}" if step.loc else "")


@dataclass(frozen=True, slots=True)
class ScriptedTurn:
    """One turn of a script: the plan's steps as (space, dice, via) and the rolling mode.

    ``space`` is the space the move ends on, ``dice`` its dice as logs write them
    (``G3``, ``G2+B``, ``C+Bo``, ``L``; ``free`` for CLIMB-5's move without a die),
    ``via`` the jump space the dice go on for a move over a jump (None: any, the first
    in graph order). No steps: the car stays (TURN-7).

    ``pit`` (GT): what the driver does if the turn ends in first gear on a pit space
    (GT-2): ``no``, drive on; ``tyres``, fit tyres only (gear 0: it drives off next turn,
    its damage kept); ``repair``, mend the damage (gear 00, then 0; its tyres then suit
    the weather). None: as the bots do, a stop when the car is damaged or on the wrong
    tyres, not on the last lap. A turn with ``tyres`` or ``repair`` must plan to end so.

    >>> ScriptedTurn.parse("5:A1a C > 5:A1b G1", pit="tyres").pit
    'tyres'
    """

    steps: tuple[tuple[str, str] | tuple[str, str, str], ...] = ()
    mode: Mode = Mode.FLAT_OUT
    pit: PitChoice | None = None

    @classmethod
    def parse(
        cls, text: str, mode: Mode | str = Mode.FLAT_OUT, pit: PitChoice | None = None
    ) -> ScriptedTurn:
        """A turn from a plan as the turn log writes it (``str(plan)``; ``(stay)``: none).

        Each step is ``SPACE DICE`` or ``SPACE DICE via JUMP``; a loss-of-control mark
        (``!corner``) may stay: it is read, not needed. ``pit``: see :class:`ScriptedTurn`.

        Raises
        ------
        ScriptError
            If a step is written otherwise, ``mode`` is no rolling mode, or ``pit`` no
            pit choice.
        """
        try:
            rolling = Mode(mode)
        except ValueError:
            raise ScriptError(f"{mode!r} is no rolling mode (flat-out, one-by-one)") from None
        if pit not in (None, *PIT_CHOICES):
            raise ScriptError(f"pit {pit!r}: a pit choice is {', '.join(PIT_CHOICES)}")
        text = text.strip()
        steps: list[tuple[str, str] | tuple[str, str, str]] = []
        if text and text != STAY:
            for k, part in enumerate(text.split(">"), 1):
                words = [w for w in part.split() if not w.startswith("!")]
                if len(words) == 2:
                    steps.append((words[0], words[1]))
                elif len(words) == 4 and words[2] == "via":
                    steps.append((words[0], words[1], words[3]))
                else:
                    raise ScriptError(
                        f"step {k} {part.strip()!r}: write a step as SPACE DICE "
                        "('2:1.3L G4', '3:2.O1 G3+B'), or SPACE DICE via JUMP"
                    )
        return cls(tuple(steps), rolling, pit)

    @classmethod
    def of_plan(cls, plan: Plan, mode: Mode | str = Mode.FLAT_OUT) -> ScriptedTurn:
        """The turn that plays ``plan`` (one of :func:`~trackkit.rules.plans.legal_plans`)."""
        steps: list[tuple[str, str] | tuple[str, str, str]] = [
            (s.space, s.dice_label, s.placed_on)
            if s.placed_on != s.space
            else (s.space, s.dice_label)
            for s in plan.steps
        ]
        return cls(tuple(steps), Mode(mode))

    def __str__(self) -> str:
        parts = [
            " ".join((*step[:2], *(("via", step[2]) if len(step) == 3 else ())))
            for step in self.steps
        ]
        return " > ".join(parts) or STAY

    def plan_in(self, ctx: PlanContext) -> Plan:
        """This turn's plan among the legal plans of ``ctx`` (TURN-3).

        Raises
        ------
        ScriptError
            Naming the first step that is not a legal move there, and the legal ones.
        """
        builder = PlanBuilder(ctx)
        for k, step in enumerate(self.steps, 1):
            space, dice = step[0], step[1]
            via = step[2] if len(step) == 3 else None
            options = builder.options()
            match = next(
                (
                    s
                    for s in options
                    if s.space == space
                    and _same_dice(s.dice_label, dice)
                    and (via is None or s.placed_on == via)
                ),
                None,
            )
            if match is None:
                written = " ".join((space, dice, *(("via", via) if via else ())))
                raise ScriptError(_illegal(ctx, builder.steps, k, written, options))
            builder.push(match)
        plan = builder.plan()
        if self.pit in ("tyres", "repair"):
            end = plan.steps[-1] if plan.steps else None
            if end is None or end.speed != 1 or ctx.track.spaces[end.space].pit is None:
                where = f"in gear {end.speed} on {end.space}" if end else "where it stands"
                raise ScriptError(
                    f"a pit stop ({self.pit}) takes a plan that ends in first gear on a pit "
                    f"space (GT-2); this one ends {where}"
                )
        return plan


def _illegal(
    ctx: PlanContext, done: list[PlanStep], k: int, step: str, options: list[PlanStep]
) -> str:
    """Why step ``k`` of a scripted plan cannot be played, with the legal steps there."""
    after = f" after '{Plan(tuple(done))}'" if done else ""
    if done:
        last = done[-1]
        here, speed = last.space, last.speed
    else:
        here, speed = ctx.car.space or "the start", ctx.car.gear
    where = f" (in gear {speed} on {here})"
    if not options:
        last_step = done[-1] if done else None
        if last_step is not None and (last_step.loc or last_step.finishes or last_step.free):
            why = "the plan ends before it: " + (
                "control is lost there"
                if last_step.loc
                else "the car finishes there"
                if last_step.finishes
                else "a free move ends the turn"
            )
        else:
            why = "no move is legal there"
        return f"step {k} '{step}' is not a legal move{after}{where}: {why}"
    shown = ", ".join(_step_text(s) for s in options[:12])
    more = f" and {len(options) - 12} more" if len(options) > 12 else ""
    return f"step {k} '{step}' is not a legal move{after}{where}; legal next steps: {shown}{more}"


@dataclass(frozen=True, slots=True)
class Script:
    """A scripted driver's plans, one per turn, and who drives once they are played.

    Parameters
    ----------
    turns : tuple of ScriptedTurn
        The plans, in the order of the driver's turns (a turn is one the driver plans:
        not one it waits off the track or before a full start grid).
    then : str, optional
        A bot (``cautious``, ``aggressive``, ``planner``) that drives on after the last
        scripted turn; None: a turn past the script is a :class:`ScriptError`.
    """

    turns: tuple[ScriptedTurn, ...]
    then: str | None = None

    @classmethod
    def of(
        cls,
        turns: Iterable[str | Plan | ScriptedTurn | tuple[str | Plan, Mode | str]],
        then: str | None = None,
    ) -> Script:
        """A script from plans as text or :class:`Plan` s (flat out), ``(plan, mode)`` pairs,
        or turns.

        >>> script = Script.of(["1:1.2L G1", ("1:1.3L G2 > 2:1.1L G3", "one-by-one")])
        >>> [(str(t), t.mode.value) for t in script.turns]
        [('1:1.2L G1', 'flat-out'), ('1:1.3L G2 > 2:1.1L G3', 'one-by-one')]
        """
        out = []
        for turn in turns:
            if isinstance(turn, ScriptedTurn):
                out.append(turn)
            elif isinstance(turn, str):
                out.append(ScriptedTurn.parse(turn))
            elif isinstance(turn, Plan):
                out.append(ScriptedTurn.of_plan(turn))
            else:
                plan, mode = turn
                out.append(
                    ScriptedTurn.parse(plan, mode)
                    if isinstance(plan, str)
                    else ScriptedTurn.of_plan(plan, mode)
                )
        return cls(tuple(out), then)

    def __len__(self) -> int:
        return len(self.turns)


class Scripted:
    """A bot that plays a :class:`Script` (and then, if it says so, another bot).

    Dice are rolled with the default policy: one by one, every die is rolled (none is
    secured), and the SISU token is flipped when it saves the turn (LOC-7).
    """

    name = "scripted"

    def __init__(
        self,
        script: Script,
        memo: PlanMemo | None = None,
        *,
        road: type[Road] = DirtRoad,
    ) -> None:
        self.script = script
        self.turn = 0
        """Turns played so far (the index of the next scripted turn)."""
        # the bot that drives on reads the road as the series' bots do (``road``)
        self._then: Bot | None = make_bot(script.then, memo, road=road) if script.then else None

    def choose(self, ctx: PlanContext, rng: random.Random) -> Choice:
        """The script's next plan, found among the legal plans of ``ctx``.

        Raises
        ------
        ScriptError
            If the plan is not legal here, or the script is played out with no ``then``.
        """
        n = self.turn
        self.turn += 1
        if n < len(self.script.turns):
            turn = self.script.turns[n]
            try:
                plan = turn.plan_in(ctx)
            except ScriptError as exc:
                raise ScriptError(f"turn {n + 1} of the script: {exc}") from None
            return Choice(plan, turn.mode, DefaultPolicy(), turn.pit)
        if self._then is None:
            raise ScriptError(
                f"turn {n + 1}: the script has {_turns(len(self.script.turns))} "
                "and no bot to drive on ('then')"
            )
        return self._then.choose(ctx, rng)


def _turns(n: int) -> str:
    return "1 turn" if n == 1 else f"{n} turns"
