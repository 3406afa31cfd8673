"""Dice: kinds, faces and what a placed set of dice does to the speed (MOVE, DICE-1)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

__all__ = ["Die", "DieKind"]


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
