"""Dice: kinds, faces, and where the rolls come from (MOVE, DICE-1).

A die shows a danger face or not (DICE-1: so many danger faces of six per kind). Every
roll of the rules engine goes through a :class:`Dice` source: a race's seeded generator
(:class:`SeededDice`, the default), or fixed results for a test or a scripted position
(:class:`ScriptedDice`), which says what it was asked for and fails loudly when it runs
out -- no need to guess the call order of a ``random.Random``.

Examples
--------
>>> dice = ScriptedDice(["safe", ("G4", "danger")])
>>> dice.danger(Die("gear", 3), 1), dice.danger(Die("gear", 4), 1)
(False, True)
>>> dice.rolled
[('G3', False), ('G4', True)]
>>> dice.danger(Die("brake"), 1)
Traceback (most recent call last):
...
trackkit.rules.dice.DiceScriptError: the scripted dice ran out: no result left for die B \
(roll 3; the script gave 2)
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

__all__ = ["Dice", "DiceScriptError", "Die", "DieKind", "ScriptedDice", "SeededDice"]


class DieKind(StrEnum):
    """The dice of a dashboard (MOVE-2..5)."""

    GEAR = "gear"
    COAST = "coast"
    LEADER = "leader"
    BRAKE = "brake"
    BOOST = "boost"


@dataclass(frozen=True, slots=True, order=True)
class Die:
    """One die; ``value`` is the gear of a black gear die (0 for the others)."""

    kind: DieKind
    value: int = 0
    label: str = field(init=False, repr=False, compare=False)
    """How logs write the die: G4, C(oast), L(eader), B(rake), Bo(ost)."""

    def __post_init__(self) -> None:
        # repr rebuilds the die: Die('gear', 3)
        kind = DieKind(self.kind)
        object.__setattr__(self, "kind", kind)
        if kind is DieKind.GEAR:
            label = f"G{self.value}"
        else:
            label = "Bo" if kind is DieKind.BOOST else kind.value[0].upper()
        object.__setattr__(self, "label", label)

    def __repr__(self) -> str:
        return (
            f"Die({self.kind.value!r}, {self.value})" if self.value else f"Die({self.kind.value!r})"
        )

    def __str__(self) -> str:
        return self.label

    @property
    def earns_second(self) -> bool:
        """Gear, coast and leader dice earn a second token on a safe flat-out roll (TURN-4)."""
        return self.kind in (DieKind.GEAR, DieKind.COAST, DieKind.LEADER)


GEARS = tuple(Die(DieKind.GEAR, v) for v in range(7))
COAST = Die(DieKind.COAST)
LEADER = Die(DieKind.LEADER)
BRAKE = Die(DieKind.BRAKE)
BOOST = Die(DieKind.BOOST)


class Dice(Protocol):
    """Where the rules engine's rolls come from (the hook a test or a script fixes)."""

    def danger(self, die: Die, faces: int) -> bool:
        """Roll ``die``, which has ``faces`` danger faces of six: whether it shows one."""


class SeededDice:
    """Rolls from a seeded generator: what every race does (the same seed, the same rolls).

    A race's own dice are this on the race's generator, which also shuffles the decks and
    draws damage tokens; each roll takes one ``randrange(6)`` from it.

    Examples
    --------
    >>> a, b = SeededDice(random.Random(3)), SeededDice(random.Random(3))
    >>> [a.danger(Die("gear", 6), 2) for _ in range(8)] == [
    ...     b.danger(Die("gear", 6), 2) for _ in range(8)]
    True
    """

    __slots__ = ("rng",)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __repr__(self) -> str:
        return f"SeededDice({self.rng!r})"

    def danger(self, die: Die, faces: int) -> bool:
        """Whether ``die`` shows a danger face: a face of six, the first ``faces`` of them."""
        return self.rng.randrange(6) < faces  # rule: DICE-1 (danger faces of six)


class DiceScriptError(ValueError):
    """Scripted dice asked for a roll they have no result for, or for another die."""


#: What a scripted roll may be written as: danger or not, in words or as a bool.
_RESULTS = {"danger": True, "safe": False, True: True, False: False}


class ScriptedDice:
    """Dice that show given results, in order, and fail loudly when they run out.

    Parameters
    ----------
    results : iterable
        One entry per die rolled, in rolling order: ``"danger"`` or ``"safe"`` (or True /
        False), or a pair ``(label, result)`` that also says which die is expected there
        (``"G4"``, ``"C"``, ``"L"``, ``"B"``, ``"Bo"``, as logs write dice): another die
        raises :class:`DiceScriptError`. Secured dice are not rolled (TURN-5): give no
        result for them.

    A result is taken as it is, whatever the die's danger faces: a scripted danger on a
    die with none (``G1`` has one of six, a coast die one) is still a danger.
    """

    def __init__(self, results: Iterable[bool | str | tuple[str, bool | str]]) -> None:
        self._script: list[tuple[str | None, bool]] = []
        for n, entry in enumerate(results, 1):
            label, result = entry if isinstance(entry, tuple) else (None, entry)
            if result not in _RESULTS:
                raise DiceScriptError(
                    f"scripted roll {n}: {result!r} is no result (give 'danger' or 'safe')"
                )
            self._script.append((label, _RESULTS[result]))
        self.rolled: list[tuple[str, bool]] = []
        """Every roll so far: (the die's label, whether it showed danger)."""

    def __repr__(self) -> str:
        return f"<ScriptedDice {len(self.rolled)} rolled, {self.remaining} left>"

    @property
    def remaining(self) -> int:
        """Results not used yet (a test can check the script was used up)."""
        return len(self._script) - len(self.rolled)

    def danger(self, die: Die, faces: int) -> bool:
        """The next scripted result (``faces`` is not read: the script decides)."""
        n = len(self.rolled)
        if n >= len(self._script):
            raise DiceScriptError(
                f"the scripted dice ran out: no result left for die {die.label} "
                f"(roll {n + 1}; the script gave {len(self._script)})"
            )
        label, result = self._script[n]
        if label is not None and label != die.label:
            raise DiceScriptError(
                f"scripted roll {n + 1} is for die {label}, but die {die.label} is rolled"
            )
        self.rolled.append((die.label, result))
        return result
