"""What a turn plan is made of: its steps (:class:`PlanStep`), the plan (:class:`Plan`), and
the position it is planned in (:class:`PlanContext`, with :class:`GtTurn` for a Rallyman: GT
turn).

:mod:`trackkit.rules.steps` says which steps are legal, :mod:`trackkit.rules.plans` walks
them into plans; both series share these types (a DIRT step simply has no GT marks).

Examples
--------
>>> from trackkit.rules.dice import GEARS
>>> step = PlanStep("1:1.2L", (GEARS[1],), 1, "1:1.2L", 3)
>>> str(Plan((step,))), step.dice_label
('1:1.2L G1', 'G1')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from trackkit.rules.dashboard import Dashboard
from trackkit.rules.dice import Die
from trackkit.rules.ruleset import Ruleset
from trackkit.rules.state import CarState, OtherCar
from trackkit.rules.track import SpaceInfo, Track

__all__ = ["GtTurn", "Plan", "PlanContext", "PlanStep"]


class PlanStep(NamedTuple):
    """One move: the car ends on ``space``; ``dice`` were placed on ``placed_on``.

    ``loc`` names a loss of control that happens whatever the roll ("corner": over the
    limit, CORNER-1; "jump": two or more over the jump's number, JUMP-1); ``jump_risk``
    marks a jump one over its number (control is lost if the speed die shows danger).
    ``free`` is The Climb's move without a die (CLIMB-5). GT: ``hazards`` counts the
    danger results the step adds whatever the dice (a warning sign on a dotted line,
    CORNER-4; the gear of a warning triangle, CORNER-5), ``flying`` marks a flying start
    (GT-1) and ``lap`` a step over the start/finish line (BOARD-3).

    (A named tuple: immutable and hashable, and the plan search makes tens of thousands
    of them a race, which a frozen dataclass is several times slower to build.)
    """

    space: str
    dice: tuple[Die, ...]
    speed: int
    placed_on: str
    limit: int
    passed: tuple[str, ...] = ()
    loc: str | None = None
    jump_risk: bool = False
    cloud: bool = False
    free: bool = False
    finishes: bool = False
    hazards: int = 0
    flying: bool = False
    lap: bool = False

    def __str__(self) -> str:
        return f"{self.space} {self.dice_label}" + (f" !{self.loc}" if self.loc else "")

    @property
    def dice_label(self) -> str:
        """The step's dice as logs write them: ``G3``, ``G2+B``, ``C+Bo``; ``free`` (CLIMB-5)."""
        dice = self.dice
        hit = _LABELS.get(id(dice))  # the plan generator reuses its dice tuples
        if hit is not None and hit[0] is dice:
            return hit[1]
        label = "+".join([d.label for d in dice]) or "free"
        if len(_LABELS) >= 4096:
            _LABELS.clear()
        _LABELS[id(dice)] = (dice, label)  # the tuple is kept with it: its id stays its own
        return label


#: Labels of dice tuples, by the tuple (:attr:`PlanStep.dice_label`).
_LABELS: dict[int, tuple[tuple[Die, ...], str]] = {}


@dataclass(frozen=True, slots=True)
class Plan:
    """A sequence of steps (possibly empty: the car stays put)."""

    steps: tuple[PlanStep, ...]
    _text: str | None = field(default=None, init=False, repr=False, compare=False)

    def __str__(self) -> str:
        if self._text is None:  # every turn's log writes the plan: once per plan
            text = " > ".join([str(s) for s in self.steps]) or "(stay)"
            object.__setattr__(self, "_text", text)
            return text
        return self._text

    @property
    def dice(self) -> list[Die]:
        """Every die of the plan, in placing order."""
        return [d for s in self.steps for d in s.dice]

    @property
    def end(self) -> str | None:
        """The space the plan ends on (None for the empty plan)."""
        return self.steps[-1].space if self.steps else None


@dataclass(frozen=True, slots=True)
class GtTurn:
    """What a Rallyman: GT turn adds to a position.

    ``final_lap``: the car is on its last lap, so the step over the line ends its race
    (BOARD-3). ``yellow``: a yellow flag is out, so no car may overtake or come up next to
    another (TRAFFIC-5, GT-4). ``flying``: a car in gear 0 may shift straight into 2 (GT-1).
    """

    final_lap: bool = False
    yellow: bool = False
    flying: bool = True


@dataclass(slots=True)
class PlanContext:
    """Everything a car's plans depend on: stage, dashboard, car, other cars, order."""

    track: Track
    dashboard: Dashboard
    ruleset: Ruleset
    car: CarState
    others: tuple[OtherCar, ...] = ()
    leader: bool = False
    mud: dict[int, int] = field(default_factory=dict)
    """Extra mud tokens per tile that lower this car's corner limits (SHORTCUT-2)."""
    gt: GtTurn | None = None
    """A Rallyman: GT turn (None: DIRT and The Climb)."""

    def limit_of(self, info: SpaceInfo) -> int | None:
        """A corner or chicane space's limit for this car (printed, less mud)."""
        if info.limit is None or info.kind not in ("corner", "chicane"):
            return info.limit
        return info.limit - self.mud.get(info.tile, 0)
