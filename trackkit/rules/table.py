"""What the stage holds between turns, shared by all cars: decks, damage bag, mud tokens."""

from __future__ import annotations

import random
from collections.abc import Sequence
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

    def stack(self, gear: int, cards: Sequence[str]) -> Table:
        """The table with ``cards`` on top of gear ``gear``'s deck, first drawn first (LOC-1).

        A script or a test fixes what a loss of control draws: ``sisu``, ``spin`` or
        ``crash`` (LOC-2..4). The cards are added to the deck, whose own cards follow.

        >>> import random
        >>> from trackkit.rules.ruleset import load_ruleset
        >>> rules = load_ruleset("dirt")
        >>> table = new_table(rules, random.Random(1)).stack(5, ["crash", "sisu"])
        >>> first, table = table.draw_card(5, random.Random(2), rules)
        >>> second, table = table.draw_card(5, random.Random(2), rules)
        >>> first, second
        ('crash', 'sisu')

        Raises
        ------
        ValueError
            For a gear outside 1..6 or a card that is none of the three.
        """
        if not 1 <= gear <= len(self.decks):
            raise ValueError(f"gear {gear}: the decks are for gears 1 to {len(self.decks)}")
        for card in cards:
            if card not in _CARDS:
                raise ValueError(f"unknown card {card!r}: the cards are sisu, spin and crash")
        index = gear - 1
        deck = (*cards, *self.decks[index])
        return replace(self, decks=(*self.decks[:index], deck, *self.decks[index + 1 :]))

    def with_bag(self, tokens: Sequence[tuple[str, str]]) -> Table:
        """The table with exactly ``tokens`` in the damage bag (crash side, shortcut side).

        A bag of one kind of token fixes what a crash or a shortcut draws (DAMAGE-1):
        ``with_bag([("gear", "ok")] * 3)``. The bag refills as usual once empty.
        """
        return replace(self, bag=tuple((str(a), str(b)) for a, b in tokens))


#: The loss-of-control sides of the time cards (LOC-2..4).
_CARDS = ("sisu", "spin", "crash")


def _shuffled_deck(ruleset: Ruleset, rng: random.Random) -> tuple[str, ...]:
    spec = ruleset.loc_deck  # rule: LOC-5
    cards = ["sisu"] * spec.sisu + ["spin"] * spec.spin + ["crash"] * spec.crash
    rng.shuffle(cards)
    return tuple(cards)


def _full_bag(ruleset: Ruleset) -> tuple[tuple[str, str], ...]:
    if ruleset.gt is not None:  # rule: DAMAGE-4 (GT tokens have one side)
        return tuple((kind, "") for kind, n in ruleset.gt.damage_bag.items() for _ in range(n))
    return tuple((t.crash, t.shortcut) for t in ruleset.damage_bag for _ in range(t.count))


def new_table(ruleset: Ruleset, rng: random.Random) -> Table:
    """Fresh decks (one per gear, shuffled) and a full damage bag.

    A GT ruleset has no loss-of-control decks (LOC-6: its player board says what
    happens): they are empty, and the bag holds the GT damage tokens (DAMAGE-4).
    """
    return Table(tuple(_shuffled_deck(ruleset, rng) for _ in range(6)), _full_bag(ruleset))
