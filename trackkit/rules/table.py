"""What the stage holds between turns, shared by all cars: decks, damage bag, mud tokens."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from trackkit.rules.ruleset import Ruleset

__all__ = ["Table", "new_table"]


@dataclass(frozen=True, slots=True)
class Table:
    """Loss-of-control decks per gear, the damage bag and the mud laid on tiles.

    ``mud`` lists (tile, car id of the drawer): a mud token lowers corner limits on its
    tile for every car but the one that drew it (SHORTCUT-2).
    """

    decks: tuple[tuple[str, ...], ...]
    bag: tuple[tuple[str, str], ...]
    mud: tuple[tuple[int, int], ...] = ()

    def mud_for(self, car_id: int) -> dict[int, int]:
        """Mud tokens per tile that count for ``car_id``."""
        out: dict[int, int] = {}
        for tile, drawer in self.mud:
            if drawer != car_id:
                out[tile] = out.get(tile, 0) + 1
        return out

    def draw_card(self, gear: int, rng: random.Random, ruleset: Ruleset) -> tuple[str, Table]:
        """Top card of a gear's deck, turned to its loss-of-control side (LOC-1)."""
        index = max(1, min(gear, 6)) - 1
        deck = self.decks[index] or _shuffled_deck(ruleset, rng)
        card, rest = deck[0], deck[1:]
        decks = (*self.decks[:index], rest, *self.decks[index + 1 :])
        return card, replace(self, decks=decks)

    def draw_token(self, rng: random.Random, ruleset: Ruleset) -> tuple[tuple[str, str], Table]:
        """A random damage token from the bag (refilled when empty)."""
        bag = self.bag or _full_bag(ruleset)
        i = rng.randrange(len(bag))
        return bag[i], replace(self, bag=bag[:i] + bag[i + 1 :])

    def put_back(self, token: tuple[str, str]) -> Table:
        """A token returns to the bag (DAMAGE-3, HILLCLIMB-3)."""
        return replace(self, bag=(*self.bag, token))


def _shuffled_deck(ruleset: Ruleset, rng: random.Random) -> tuple[str, ...]:
    spec = ruleset.loc_deck  # rule: LOC-5
    cards = ["sisu"] * spec.sisu + ["spin"] * spec.spin + ["crash"] * spec.crash
    rng.shuffle(cards)
    return tuple(cards)


def _full_bag(ruleset: Ruleset) -> tuple[tuple[str, str], ...]:
    return tuple((t.crash, t.shortcut) for t in ruleset.damage_bag for _ in range(t.count))


def new_table(ruleset: Ruleset, rng: random.Random) -> Table:
    """Fresh decks (one per gear, shuffled) and a full damage bag."""
    return Table(tuple(_shuffled_deck(ruleset, rng) for _ in range(6)), _full_bag(ruleset))
