"""Stage files (native ``trackkit-stage/1``) and the tokens placed on tiles."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field, StrictBool, StrictInt, model_validator

from trackkit.models.base import StrictModel

#: Stages longer than this are refused as unusable input (a real stage has a few dozen tiles).
MAX_STAGE_TILES = 1000


class TokenKind(StrEnum):
    """Tokens a designer puts on a tile (CLIMB-6..8, SHORTCUT-2)."""

    CLIMB = "climb"
    OXYGEN = "oxygen"
    CLOUD = "cloud"
    MUD = "mud"


class TileToken(StrictModel):
    """A token on a tile: climb -1 (ascent) / +1 (descent), oxygen N, cloud, mud -1."""

    token: str = Field(
        description="Token kind: climb, oxygen, cloud or mud. Other names are reported as "
        "unknown tokens by the validator."
    )
    value: int | None = Field(
        default=None,
        description="climb: -1 turns the tile into an ascent, +1 into a descent (CLIMB-6); "
        "oxygen: 1..3 (CLIMB-7); mud: -1 (SHORTCUT-2); cloud: none.",
    )

    @property
    def kind(self) -> TokenKind | None:
        """The token's kind, or None for a token trackkit does not know."""
        try:
            return TokenKind(self.token)
        except ValueError:
            return None


class Kind(StrEnum):
    """What event the stage is for."""

    RALLY = "rally"
    HILLCLIMB = "hillclimb"


class StageTile(StrictModel):
    """One tile of a stage, in driving order (or beside the road, with ``at``)."""

    tile: str = Field(min_length=1, max_length=40, description="Face id, e.g. 217a.")
    turn: Literal["left", "right"] | None = Field(
        default=None, description="For a bend: which way it turns in the driving direction."
    )
    climb: Literal["up", "down"] | None = Field(
        default=None, description="For a climb face: driven uphill or downhill."
    )
    enter: StrictInt | None = Field(
        default=None, ge=0, le=5, description="Local edge of the face the road enters by."
    )
    at: tuple[StrictInt, StrictInt] | None = Field(
        default=None, description="Explicit hex position [q, r] (axial, as Rekee)."
    )
    dir: StrictInt | None = Field(
        default=None, ge=0, le=5, description="Explicit rotation 0..5 (as Rekee)."
    )
    tokens: list[TileToken] = Field(default_factory=list, description="Tokens on this tile.")
    driven: StrictBool = Field(
        default=True,
        description="false: the tile lies on the map at 'at'/'dir' but is not part of the "
        "driven road, so it is neither chained to the tile before nor driven (its copies and "
        "tokens still count). Reading an editor file marks so the road tiles that the walk "
        "from the start tile cannot reach. Needs 'at' and 'dir'.",
    )

    @model_validator(mode="after")
    def _one_way_to_orient(self) -> StageTile:
        given = [k for k in ("turn", "climb", "enter") if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError(f"give only one of turn, climb, enter (got {', '.join(given)})")
        if (self.at is None) != (self.dir is None):
            raise ValueError("explicit placement needs both 'at' and 'dir'")
        if not self.driven and self.at is None:
            raise ValueError("a tile with 'driven: false' needs 'at' and 'dir'")
        for q in self.at or ():
            if abs(q) > 100_000:
                raise ValueError(f"hex coordinate {q} is out of range")
        return self


class Stage(StrictModel):
    """A stage file: tiles in driving order, start tile first."""

    format: Literal["trackkit-stage/1"] = Field(description="File format marker.")
    name: str = Field(default="Untitled stage", max_length=200, description="Stage name.")
    author: str = Field(default="", max_length=200, description="Who designed it.")
    kind: Kind | None = Field(
        default=None,
        description="rally or hillclimb. Left out, a stage that holds a climb tile or a climb "
        "token is a hillclimb and any other a rally (the validator notes it, H404).",
    )
    ruleset: Literal["dirt", "gt"] = Field(default="dirt", description="Ruleset: dirt or gt.")
    boxes: list[str] | None = Field(
        default=None,
        description="Boxes the designer owns (a box named twice counts twice); when given, "
        "tile copies are checked against them.",
    )
    tiles: list[StageTile] = Field(
        max_length=MAX_STAGE_TILES, description="Tiles in driving order, start first."
    )
