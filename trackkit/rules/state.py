"""Car state between turns: cheap to copy (frozen dataclasses, ``dataclasses.replace``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["CarState", "Damage", "GtCar", "GtOff", "OtherCar", "PitChoice", "Weather"]

#: The weather of a Rallyman: GT race, and the tyres for it (GT-3).
Weather = Literal["dry", "rain"]
#: Where a GT car off the road is: "" on the road; "00" off it in gear 00 after a loss of
#: control (LOC-6); "pit-00" in the pit after a repair, "pit-0" in the pit in gear 0 (GT-2).
GtOff = Literal["", "00", "pit-0", "pit-00"]
#: A GT driver's answer when its turn ends in first gear on a pit space (GT-2): drive on
#: ("no"), fit tyres only (gear 0) or mend the damage (gear 00; tyres at gear 0 as ever).
PitChoice = Literal["no", "tyres", "repair"]


@dataclass(frozen=True, slots=True)
class Damage:
    """Damage tokens on a dashboard: each removes one die of that kind per turn (DAMAGE-3)."""

    gear: int = 0
    brake: int = 0
    coast: int = 0


@dataclass(frozen=True, slots=True)
class CarState:
    """One car: where it is, its gear, damage, second tokens and time.

    ``space`` is None before the car enters the stage; ``on_track`` is False after a crash
    (the car blocks no one, LOC-4), for a GT car in gear 00 or in the pit (LOC-6, GT-2)
    and once it finished. ``crossings`` counts a GT car's crossings of the start/finish
    line (BOARD-3; the first, from the grid, begins lap 1); GT calls its second tokens
    focus tokens (GT-5).
    """

    car_id: int
    space: str | None
    gear: int = 0
    on_track: bool = True
    finished: bool = False
    damage: Damage = field(default_factory=Damage)
    pending_coast_damage: int = 0
    second_tokens: int = 0
    sisu_token: bool = False
    time_seconds: int = 0
    cards: tuple[int, ...] = ()
    top_card_loc: bool = False
    turns: int = 0
    crossings: int = 0


@dataclass(frozen=True, slots=True)
class OtherCar:
    """Another car as seen by a planning car: where it is, its gear, whether it blocks."""

    space: str
    gear: int
    blocks: bool = True


@dataclass(frozen=True, slots=True)
class GtCar:
    """What a Rallyman: GT race holds of a car besides its :class:`CarState`.

    ``off`` says where a car off the road is (:data:`GtOff`): in gear 00 after a loss of
    control it misses its next turn and comes back in gear 0 (LOC-6); in the pit in gear
    00 its next turn takes it to gear 0, and in gear 0 it fits tyres and drives off that
    very turn (GT-2). Such a car's :class:`CarState` has ``on_track`` False and gear 0.
    ``tyres`` are the tyres it runs on (None: those of the weather at the start, GT-3);
    ``yellow``: its yellow flag is out (GT-4), holding every car to TRAFFIC-5.

    >>> GtCar(off="00", yellow=True)
    GtCar(off='00', tyres=None, yellow=True)
    """

    off: GtOff = ""
    tyres: Weather | None = None
    yellow: bool = False
