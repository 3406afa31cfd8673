"""Car state between turns: cheap to copy (frozen dataclasses, ``dataclasses.replace``)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CarState", "Damage", "OtherCar"]


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
