"""Ruleset data: the DEFAULT numbers of docs/rules.md, from ``tile_library/ruleset-*.yaml``.

Examples
--------
>>> rs = load_ruleset("dirt")
>>> rs.time_cards[6], rs.loc_deck.crash, rs.danger_probability("gear", 1)
(10, 3, 0.16666666666666666)
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property, lru_cache
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from trackkit.errors import TileLibraryError
from trackkit.models.base import StrictModel, empty_dict, empty_list
from trackkit.models.car import Column
from trackkit.stage.track_tokens import TrackTokenRules
from trackkit.tiles.library import library_dir, ruleset_data

__all__ = [
    "Column",
    "DamageToken",
    "GtLoss",
    "GtRules",
    "LocDeck",
    "Ruleset",
    "WrongTyres",
    "load_ruleset",
]

Surface = Literal["gravel", "asphalt", "snow"]


class LocDeck(StrictModel):
    """Loss-of-control sides of one gear's time deck (LOC-5)."""

    sisu: int = Field(ge=0, description="SISU cards.")
    spin: int = Field(ge=0, description="Spin cards.")
    crash: int = Field(ge=0, description="Crash cards.")


class DangerFaces(StrictModel):
    """Danger faces (of 6) per die kind (DICE-1)."""

    coast: int = Field(ge=0, le=6, description="White coast die.")
    leader: int = Field(ge=0, le=6, description="Orange leader die.")
    brake: int = Field(ge=0, le=6, description="Red brake die.")
    boost: int = Field(ge=0, le=6, description="Green boost die.")
    gear: dict[int, int] = Field(description="Black gear dice by value.")


class DamageToken(StrictModel):
    """Kinds of double-sided damage tokens in the bag (DAMAGE-1)."""

    crash: Literal["gear", "brake", "coast", "green"] = Field(description="Crash side.")
    shortcut: Literal["ok", "coast", "mud"] = Field(description="Shortcut side.")
    count: int = Field(ge=0, description="Tokens of this kind in the bag.")


class CrashDamage(StrictModel):
    """Tokens drawn on a crash: max(0, gear + L - base) (DAMAGE-2)."""

    base: int = Field(description="Subtracted from gear + L.")
    danger: dict[str, int] = Field(description="L per tile danger level.")


class CarSpec(StrictModel):
    """A car's dashboard: one column per surface."""

    title: str = Field(description="Name of the car.")
    columns: dict[Surface, Column] = Field(description="Columns by surface.")


class GtLoss(StrictModel):
    """What a loss of control does to a GT car in one gear on one tile danger (LOC-6)."""

    gear: Literal["0", "00"] = Field(
        description='"0": stopped where it is; "00": off the road, out for a turn.'
    )
    damage: int = Field(ge=0, le=10, description="Damage tokens drawn (DAMAGE-4).")


class WrongTyres(StrictModel):
    """What tyres that do not suit the weather cost a GT car each turn (GT-3)."""

    coast: int = Field(ge=0, le=6, description="Coast dice fewer.")
    danger_limit: int = Field(ge=0, le=6, description="Lower danger limit (at least 1 is left).")


class GtRules(StrictModel):
    """The numbers and options of Rallyman: GT the rule texts leave to a default."""

    car: str = Field(description="The car of a driver given none (DASH-2).")
    flying_start: bool = Field(description="Gear 0 may shift straight into 2 (GT-1).")
    pit_stops: bool = Field(description="The optional pit-stop rule is played (GT-2).")
    weather: Literal["dry", "rain"] = Field(description="The weather at the start (GT-3).")
    wrong_tyres: WrongTyres = Field(description="The cost of tyres that do not suit (GT-3).")
    damage_bag: dict[Literal["gear", "brake", "coast", "weather", "yellow", "green"], int] = Field(
        description="Damage tokens in the bag by kind (DAMAGE-4)."
    )
    loss_of_control: dict[int, dict[Literal["low", "medium", "high"], GtLoss]] = Field(
        description="By gear (1-6) and tile danger: gear 0 or 00 and damage tokens (LOC-6)."
    )

    @model_validator(mode="after")
    def _every_gear(self) -> GtRules:
        missing = [g for g in range(1, 7) if set(self.loss_of_control.get(g, {})) != _DANGERS]
        if missing:
            raise ValueError(
                "loss_of_control needs low, medium and high for every gear 1-6 (missing in "
                f"gear {', '.join(map(str, missing))})"
            )
        if sum(self.damage_bag.values()) < 1:
            raise ValueError("damage_bag holds no token")
        return self


_DANGERS = {"low", "medium", "high"}

#: Keys a ruleset without a ``gt`` section (DIRT and The Climb) must give.
_DIRT_KEYS = (
    "time_cards",
    "loss_of_control_seconds",
    "second_token_seconds",
    "loc_deck",
    "damage_bag",
    "crash_damage",
    "sisu_once_per",
    "track_tokens",
)


class Ruleset(StrictModel):
    """Every number the rules engine uses that the rule texts leave to a default.

    A DIRT ruleset gives the time cards, decks, damage bag and crash table; a GT ruleset
    (``gt``) gives its own section instead, and the DIRT keys it leaves out play no part.
    """

    format: Literal["trackkit-ruleset/1"] = Field(description="File format marker.")
    id: str = Field(description="Ruleset id: dirt or gt.")
    title: str = Field(description="Human name.")
    laps: int | None = Field(
        default=None, ge=1, description="Laps of a circuit whose file gives none (BOARD-3)."
    )
    time_cards: dict[int, int] = Field(
        default_factory=empty_dict, description="Seconds per gear time card (TIME-1)."
    )
    loss_of_control_seconds: int = Field(
        default=0, description="Seconds of a spin or crash (TIME-1)."
    )
    second_token_seconds: int = Field(
        default=1, description="Seconds a second token saves (TIME-2)."
    )
    loc_deck: LocDeck = Field(
        default_factory=lambda: LocDeck(sisu=0, spin=0, crash=0),
        description="Loss-of-control cards per gear deck (LOC-5).",
    )
    restart_gear: int = Field(description="Gear after a loss of control (LOC-2).")
    danger_limit_rule: Literal["reach", "exceed"] = Field(
        description="Reaching (DIRT) or exceeding (GT) the danger limit loses control."
    )
    corner_lanes: bool = Field(
        default=True,
        description="A car in a corner holds its lane: another car enters that corner by the "
        "same lane only (TRAFFIC-3, DIRT); false: corners are wide (GT).",
    )
    play_order: Literal["distance", "speed"] = Field(
        default="distance",
        description="Who plays first in a round: the car furthest ahead, then the higher gear "
        "(distance, DIRT), or the higher gear, then the car further ahead (speed, GT) (TURN-2).",
    )
    danger_faces: DangerFaces = Field(description="Danger faces per die (DICE-1).")
    damage_bag: list[DamageToken] = Field(
        default_factory=empty_list, description="The damage bag (DAMAGE-1)."
    )
    crash_damage: CrashDamage = Field(
        default_factory=lambda: CrashDamage(base=0, danger={}),
        description="Tokens drawn on a crash (DAMAGE-2).",
    )
    sisu_once_per: Literal["rally", "stage"] = Field(
        default="rally", description="SISU token reset (LOC-7)."
    )
    track_tokens: TrackTokenRules = Field(
        default_factory=lambda: TrackTokenRules(jump=4, chicane_limit=4),
        description="Copilot track tokens' numbers (JUMP-1, CORNER-1); the stage's layout "
        "reads them (trackkit.stage.track_tokens).",
    )
    cars: dict[str, CarSpec] = Field(description="Dashboards by car id (DASH-1, DASH-2).")
    gt: GtRules | None = Field(default=None, description="Rallyman: GT's own rules.")

    @model_validator(mode="after")
    def _dirt_keys(self) -> Ruleset:
        if self.gt is None:
            missing = [k for k in _DIRT_KEYS if k not in self.model_fields_set]
            if missing:
                raise ValueError(
                    f"a ruleset without a 'gt' section gives {', '.join(missing)} as well"
                )
        return self

    def most_dangers(self, limit: int) -> int:
        """The most danger results a car keeps control with, at danger limit ``limit``.

        rule: TURN-6 (DIRT: reaching the limit loses control; GT: exceeding it).

        >>> load_ruleset("dirt").most_dangers(3), load_ruleset("gt").most_dangers(3)
        (2, 3)
        """
        return limit - 1 if self.danger_limit_rule == "reach" else limit

    def loses_control(self, dangers: int, limit: int) -> bool:
        """Whether ``dangers`` danger results lose control at danger limit ``limit`` (TURN-6).

        >>> load_ruleset("dirt").loses_control(3, 3), load_ruleset("gt").loses_control(3, 3)
        (True, False)
        """
        return dangers >= limit if self.danger_limit_rule == "reach" else dangers > limit

    def danger_probability(self, kind: str, value: int | None = None) -> float:
        """Chance that one die of ``kind`` shows a danger face (DICE-1)."""
        return self.danger_odds[(kind, (value or 0) if kind == "gear" else 0)]

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Ruleset:
        """A copy (with ``update``); the tables worked out from the old fields are dropped."""
        copy = super().model_copy(update=update, deep=deep)
        for name in _DERIVED:
            copy.__dict__.pop(name, None)
        return copy

    @cached_property
    def danger_counts(self) -> dict[tuple[str, int], int]:
        """Danger faces (of 6) per die: (kind, gear value; 0 for other kinds) (DICE-1).

        Read for every die of every simulated turn, so worked out once.
        """
        faces = self.danger_faces
        counts = {(k, 0): getattr(faces, k) for k in ("coast", "leader", "brake", "boost")}
        counts.update({("gear", v): n for v, n in faces.gear.items()})
        return counts

    @cached_property
    def danger_odds(self) -> dict[tuple[str, int], float]:
        """Chance of a danger face per die, keyed as :attr:`danger_counts` (DICE-1)."""
        return {die: n / 6.0 for die, n in self.danger_counts.items()}

    def crash_tokens(self, gear: int, danger: str) -> int:
        """Damage tokens drawn for a crash in ``gear`` on a tile of ``danger`` (DAMAGE-2)."""
        level = self.crash_damage.danger.get(danger, 0)
        return max(0, gear + level - self.crash_damage.base)


#: Tables a ruleset works out once from its fields (cached properties).
_DERIVED = ("danger_counts", "danger_odds")


@lru_cache(maxsize=8)
def load_ruleset(ruleset_id: str = "dirt") -> Ruleset:
    """The ruleset file ``tile_library/ruleset-<id>.yaml``."""
    try:
        return Ruleset.model_validate(ruleset_data(ruleset_id))
    except ValidationError as exc:
        path = library_dir() / f"ruleset-{ruleset_id}.yaml"
        raise TileLibraryError(f"{path}: invalid ruleset: {exc}") from exc
