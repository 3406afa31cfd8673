"""Stage files (native ``trackkit-stage/1``) and the tokens placed on tiles."""

import re
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, StrictBool, StrictInt, field_validator, model_validator

from trackkit import limits
from trackkit.models.base import StrictModel, empty_list

#: Stages longer than this are refused as unusable input (a real stage has a few dozen tiles).
MAX_STAGE_TILES = 1000


#: A tile holds at most this many tokens; more is a finding (R210), and only this many are
#: played and drawn. One climb, one oxygen and one cloud token (R202 allows no more), the
#: twelve mud faces of the damage bag (DAMAGE-1) and a Copilot track token on each of the
#: eight cross-sections of the longest DIRT road (314b) make 23.
MAX_TILE_TOKENS = 24

#: Surfaces printed on the Copilot track tokens (the pack has a set for each).
Surface = Literal["gravel", "asphalt", "snow"]

#: Farthest a token may lie from its tile's centre, in tile widths: beyond, the file is
#: broken (unusable input); a token off its tile but nearer is a finding (R207).
MAX_TOKEN_OFFSET = 100.0
#: Largest turn a file may give a token, in sixths of a turn.
MAX_TOKEN_TURN = 1000.0

_Offset = Annotated[
    float, Field(strict=True, ge=-MAX_TOKEN_OFFSET, le=MAX_TOKEN_OFFSET, allow_inf_nan=False)
]
_Turn = Annotated[
    float, Field(strict=True, ge=-MAX_TOKEN_TURN, le=MAX_TOKEN_TURN, allow_inf_nan=False)
]


class TokenKind(StrEnum):
    """Tokens a designer puts on a tile.

    Climb (CLIMB-6), oxygen (CLIMB-7), cloud (CLIMB-8) and mud (SHORTCUT-2) tokens act on
    their whole tile. The Copilot track tokens act on the space they lie on: water a ford
    (FORD-1), jump a jump (JUMP-1), chicane-limit a chicane space with its limit (CORNER-1,
    BOARD-2), chicane the bend into or out of it (see ``docs/rules.md``).
    """

    CLIMB = "climb"
    OXYGEN = "oxygen"
    CLOUD = "cloud"
    MUD = "mud"
    WATER = "water"
    JUMP = "jump"
    CHICANE = "chicane"
    CHICANE_LIMIT = "chicane-limit"

    @property
    def on_track(self) -> bool:
        """Whether this is a Copilot track token (it acts on the space it lies on)."""
        return self in TRACK_TOKENS


#: The Copilot track tokens: they act on the space they lie on, not on the whole tile.
TRACK_TOKENS = frozenset(
    {TokenKind.WATER, TokenKind.JUMP, TokenKind.CHICANE, TokenKind.CHICANE_LIMIT}
)
_KINDS = {k.value: k for k in TokenKind}

#: The official editor's (``.rgt``) names of the Copilot tokens: surface, then a number.
RGT_SURFACES: dict[str, Surface] = {"dirt": "gravel", "asphalt": "asphalt", "ice": "snow"}
RGT_TRACK_NUMBERS: dict[int, TokenKind] = {
    1: TokenKind.CHICANE_LIMIT,
    2: TokenKind.CHICANE,
    3: TokenKind.WATER,
    4: TokenKind.JUMP,
}
_SURFACES: dict[str, Surface] = {"gravel": "gravel", "asphalt": "asphalt", "snow": "snow"}
_COPILOT_NAME = re.compile(r"^(water|jump|chicane-limit|chicane)(?:-(gravel|asphalt|snow))?$")
_RGT_NAME = re.compile(r"^(dirt|asphalt|ice)([1-4])$")


def copilot_token(name: str) -> tuple[TokenKind, Surface | None] | None:
    """The kind and surface of a Copilot track token named as either editor names it.

    Examples
    --------
    >>> copilot_token("chicane-limit-snow"), copilot_token("ICE3"), copilot_token("jump")
    ((<TokenKind.CHICANE_LIMIT: 'chicane-limit'>, 'snow'), (<TokenKind.WATER: 'water'>, \
'snow'), (<TokenKind.JUMP: 'jump'>, None))
    >>> copilot_token("oxygen-2") is None
    True
    """
    key = name.strip().lower()
    m = _COPILOT_NAME.match(key)
    if m:
        return _KINDS[m.group(1)], _SURFACES.get(m.group(2) or "")
    m = _RGT_NAME.match(key)
    if m:
        return RGT_TRACK_NUMBERS[int(m.group(2))], RGT_SURFACES[m.group(1)]
    return None


class TileToken(StrictModel):
    """A token on a tile: climb -1 (ascent) / +1 (descent), oxygen N, cloud, mud -1, or a
    Copilot track token (water, jump N, chicane, chicane-limit N), where it lies and how it
    is turned."""

    token: str = Field(
        description="Token kind: climb, oxygen, cloud, mud, or the Copilot track tokens water, "
        "jump, chicane and chicane-limit. Other names are reported as unknown tokens by the "
        "validator. A Copilot token named as an editor names it (water-gravel, dirt3) reads "
        "as its kind and surface."
    )
    value: int | None = Field(
        default=None,
        description="climb: -1 turns the tile into an ascent, +1 into a descent (CLIMB-6); "
        "oxygen: 1..3 (CLIMB-7); mud: -1 (SHORTCUT-2); jump: the number under its chevron, "
        "1..6 (JUMP-1); chicane-limit: the chicane's limit, 1..6 (CORNER-1); left out for a jump "
        "or a chicane-limit, the ruleset's default (track_tokens in ruleset-dirt.yaml); cloud, "
        "water, chicane: none.",
    )
    surface: Surface | None = Field(
        default=None,
        description="Copilot track tokens: the surface printed on the token (gravel, asphalt "
        "or snow; the pack has a set for each). It changes nothing in the rules: the editors "
        "show it, and the summary counts the tokens by it.",
    )
    at: tuple[_Offset, _Offset] | None = Field(
        default=None,
        description="Where the token's centre lies on its tile: [q, r], axial offsets from the "
        "tile's centre in tile widths (1 is the distance between two tile centres), in the "
        "tile's own frame, so the token turns with its tile (the Rekee editor's convention). "
        "A Copilot track token acts on the row of the road there; left out, it goes on the "
        "row nearest the middle of the road where it can go. Climb, oxygen, cloud and mud "
        "tokens act on the whole tile wherever they lie; left out, they are drawn beside the "
        "road.",
    )
    dir: _Turn | None = Field(
        default=None,
        description="The token's rotation on its tile, in sixths of a turn clockwise "
        "(fractions allowed), on top of the tile's own 'dir' (as Rekee). 0: the token's "
        "forward axis points at the tile's edge 0.",
    )

    @model_validator(mode="before")
    @classmethod
    def _editor_names(cls, data: Any) -> Any:
        """``water-gravel``, ``dirt3`` (editors' names, older trackkit's): kind and surface."""
        if isinstance(data, dict) and isinstance(data.get("token"), str):
            hit = copilot_token(data["token"])
            if hit is not None and data["token"] != hit[0].value:
                kind, surface = hit
                given = data.get("surface")
                if given is None or given == surface:
                    data = {**data, "token": kind.value, "surface": surface}
        return data

    @property
    def kind(self) -> TokenKind | None:
        """The token's kind, or None for a token trackkit does not know."""
        return _KINDS.get(self.token)

    def __repr_args__(self) -> Any:
        # the fields given, as a file would write them: TileToken(token='oxygen', value=2)
        for name, value in super().__repr_args__():
            if name == "token" or value is not None:
                yield name, value


class Kind(StrEnum):
    """What event the stage is for: rally and hillclimb are DIRT's, circuit and
    point-to-point GT's (a GT circuit is raced over laps)."""

    RALLY = "rally"
    HILLCLIMB = "hillclimb"
    CIRCUIT = "circuit"
    POINT_TO_POINT = "point-to-point"

    @property
    def series(self) -> Literal["dirt", "gt"]:
        """The game series the kind belongs to."""
        return "gt" if self in (Kind.CIRCUIT, Kind.POINT_TO_POINT) else "dirt"


#: Laps of a GT circuit whose file gives none (and the GT ruleset file has no ``laps``).
DEFAULT_LAPS = 3
#: Highest ``laps`` a stage file may give (:data:`trackkit.limits.MAX_LAPS`, the limit of
#: every command's ``--laps`` too); beyond, the file is unusable input.
MAX_LAPS = limits.MAX_LAPS


class StageTile(StrictModel):
    """One tile of a stage, in driving order (or beside the road, with ``at``)."""

    tile: str = Field(
        min_length=1,
        max_length=40,
        description="Face id, e.g. 217a (a bare piece number such as 208 is read as text, "
        "and the validator suggests its faces).",
    )
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
    tokens: list[TileToken] = Field(default_factory=empty_list, description="Tokens on this tile.")
    road: str | None = Field(
        default=None,
        pattern=r"^[A-Z]$",
        description="GT faces with several roads (crossings, junctions, parallel roads): "
        "the road driven, A, B, ... ('trackkit tiles show ID' lists them). Left out, the "
        "road whose end faces the previous tile's exit (the first such road at a junction).",
    )
    driven: StrictBool = Field(
        default=True,
        description="false: the tile lies on the map at 'at'/'dir' but is not part of the "
        "driven road, so it is neither chained to the tile before nor driven (its copies and "
        "tokens still count). Reading an editor file marks so the road tiles that the walk "
        "from the start tile cannot reach. Needs 'at' and 'dir'.",
    )

    @model_validator(mode="after")
    def _one_way_to_orient(self) -> "StageTile":
        given = [k for k in ("turn", "climb", "enter") if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError(f"give only one of turn, climb, enter (got {', '.join(given)})")
        if (self.at is None) != (self.dir is None):
            raise ValueError("explicit placement needs both 'at' and 'dir'")
        if not self.driven and self.at is None:
            raise ValueError("a tile with 'driven: false' needs 'at' and 'dir'")
        for q in self.at or ():
            if abs(q) > 100_000:
                text = str(q) if len(str(q)) <= 12 else f"{str(q)[:6]}...({len(str(q))} digits)"
                raise ValueError(f"hex coordinate {text} is out of range (at most 100000 from 0)")
        return self

    @field_validator("tile", mode="before")
    @classmethod
    def _number_as_text(cls, value: object) -> object:
        # YAML reads `tile: 208` as a number: a piece number, to be told its faces (S101)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**6:
            return str(value)
        return value


class Stage(StrictModel):
    """A stage file: tiles in driving order, start tile first."""

    format: Literal["trackkit-stage/1"] = Field(description="File format marker.")
    name: str = Field(default="Untitled stage", max_length=200, description="Stage name.")
    author: str = Field(default="", max_length=200, description="Who designed it.")
    kind: Kind | None = Field(
        default=None,
        description="rally or hillclimb (Rallyman: DIRT), circuit or point-to-point "
        "(Rallyman: GT). Left out, a GT track is a circuit; a DIRT stage that holds a climb "
        "tile or a climb token is a hillclimb and any other a rally (the validator notes it, "
        "H404).",
    )
    ruleset: Literal["dirt", "gt"] | None = Field(
        default=None,
        description="Ruleset: dirt or gt. Left out, the series of the stage's tiles (tiles of "
        "both series are then an error, S120); given, tiles of the other series are allowed "
        "and driven by this ruleset's rules (a note, S121).",
    )
    laps: StrictInt | None = Field(
        default=None,
        ge=-MAX_LAPS,
        le=MAX_LAPS,
        description=f"GT circuits: laps of the race ({limits.laps_words()}). Left out, the GT "
        f"ruleset's default, {DEFAULT_LAPS}.",
    )
    boxes: list[str] | None = Field(
        default=None,
        description="Boxes the designer owns (a box named twice counts twice); when given, "
        "tile copies are checked against them.",
    )
    tiles: list[StageTile] = Field(
        max_length=MAX_STAGE_TILES, description="Tiles in driving order, start first."
    )
