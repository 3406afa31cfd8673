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

from pydantic import Field, ValidationError

from trackkit.errors import TileLibraryError
from trackkit.library import library_dir, ruleset_data
from trackkit.models.base import StrictModel
from trackkit.models.car import Column
from trackkit.track_tokens import TrackTokenRules

__all__ = ["Column", "DamageToken", "LocDeck", "Ruleset", "load_ruleset"]

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


class Ruleset(StrictModel):
    """Every number the rules engine uses that the rule texts leave to a default."""

    format: Literal["trackkit-ruleset/1"] = Field(description="File format marker.")
    id: str = Field(description="Ruleset id: dirt or gt.")
    title: str = Field(description="Human name.")
    time_cards: dict[int, int] = Field(description="Seconds per gear time card (TIME-1).")
    loss_of_control_seconds: int = Field(description="Seconds of a spin or crash (TIME-1).")
    second_token_seconds: int = Field(description="Seconds a second token saves (TIME-2).")
    loc_deck: LocDeck = Field(description="Loss-of-control cards per gear deck (LOC-5).")
    restart_gear: int = Field(description="Gear after a loss of control (LOC-2).")
    danger_limit_rule: Literal["reach", "exceed"] = Field(
        description="Reaching (DIRT) or exceeding (GT) the danger limit loses control."
    )
    danger_faces: DangerFaces = Field(description="Danger faces per die (DICE-1).")
    damage_bag: list[DamageToken] = Field(description="The damage bag (DAMAGE-1).")
    crash_damage: CrashDamage = Field(description="Tokens drawn on a crash (DAMAGE-2).")
    sisu_once_per: Literal["rally", "stage"] = Field(description="SISU token reset (LOC-7).")
    track_tokens: TrackTokenRules = Field(
        description="Copilot track tokens' numbers (JUMP-1, CORNER-1); the stage's layout "
        "reads them (trackkit.track_tokens)."
    )
    cars: dict[str, CarSpec] = Field(description="Dashboards by car id (DASH-1).")

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
