"""The stage summary: what ``trackkit validate`` says a stage or track is made of.

One :class:`StageSummary` serves both series: what both have (tiles, spaces, length,
surfaces, danger, tokens, boxes, pieces) in its own fields, what only a DIRT stage has
(corners with inner and outer limits, climb tiles, shortcuts, jumps, fords, its par time)
in :attr:`StageSummary.dirt`, what only a GT track has (the lap, lanes, corners with their
limits per lane, sharp corners, the grid, the pit, crossings, bridges, skew edges) in
:attr:`StageSummary.gt`. ``validate --simulate`` adds :attr:`StageSummary.simulation`.

Its JSON (:meth:`~trackkit.models.base.SeriesModel.to_json`, the ``summary`` of
``validate --format json``) is one flat object, as DESIGN.md has it, in the key order
the documents have always had.

Examples
--------
>>> summary = StageSummary.model_validate({
...     "name": "oval", "author": "", "series": "gt", "kind": "circuit", "tiles": 12,
...     "tiles_beside_road": 0, "tiles_not_driven": 0, "driven_twice": [], "spaces": 90,
...     "laps": 3, "closed": True, "lap_length_spaces": 30, "lap_length_mm": 2800.0,
...     "length_spaces": None, "length_mm": None, "lanes": {"3": 12},
...     "surfaces": {"asphalt": 12}, "danger": {"low": 12}, "corners": [],
...     "sharp_corners": [], "crossings": 0, "bridges": 0, "skew_edges": 0,
...     "start_finish": [1], "grid_slots": 6, "pit": [], "tokens": [], "boxes": {},
...     "pieces": {}})
>>> summary.gt.laps, summary.dirt is None, summary.corners
(3, True, [])
>>> list(summary.to_json())[6:9]
['tiles_not_driven', 'driven_twice', 'spaces']
"""

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from trackkit.models.base import SeriesModel, StrictModel

__all__ = [
    "ClimbCount",
    "Corner",
    "DirtSimulated",
    "DirtStage",
    "GtCorner",
    "GtCornerSpace",
    "GtSimulated",
    "GtTrack",
    "LossCorner",
    "PitAccess",
    "SharpCorner",
    "Simulated",
    "StageSummary",
    "TileRate",
    "TokenCount",
]


class Corner(StrictModel):
    """A DIRT corner (or chicane) of the stage, as driven."""

    tile_index: int | None = Field(description="Tile number in driving order, from 1.")
    tile: str = Field(description="Face id of the tile.")
    turn: str | None = Field(description="left, right or chicane.")
    inner: int | None = Field(description="Limit of the inner lane (CORNER-1).")
    outer: int | None = Field(description="Limit of the outer lane (CORNER-1).")


class GtCornerSpace(StrictModel):
    """A space of a GT corner that has a limit."""

    space: str = Field(description="Space id in the stage graph.")
    lanes: list[int] = Field(description="The lanes the space spans, lane 1 first.")
    limit: int = Field(description="Its limit (CORNER-1).")
    triangle: bool = Field(description="The limit is in a warning triangle (CORNER-5).")


class GtCorner(StrictModel):
    """A GT corner of the track, as driven, each limit with its lanes."""

    tile_index: int | None = Field(description="Tile number in driving order, from 1.")
    tile: str = Field(description="Face id of the tile.")
    turn: str | None = Field(description="left or right (None: not known).")
    limits: str = Field(description="The limits in words, lane 1 first: '4/4!' (! a triangle).")
    spaces: list[GtCornerSpace] = Field(description="Its spaces with a limit.")


class SharpCorner(StrictModel):
    """A GT sharp-corner dotted line (CORNER-4)."""

    tile_index: int | None = Field(description="Tile number in driving order, from 1.")
    tile: str = Field(description="Face id of the tile.")
    line: str = Field(description="The line's name on the face.")
    edge: bool = Field(description="The line is on the tile's edge.")
    marks: dict[str, int | str] = Field(
        description="Per lane as driven: the highest safe gear, or 'hazard' for a warning sign."
    )


class ClimbCount(StrictModel):
    """Climb tiles by the way they are driven (The Climb)."""

    up: int = Field(description="Climb tiles driven up.")
    down: int = Field(description="Climb tiles driven down.")


class TokenCount(StrictModel):
    """Tokens of one kind on the map."""

    token: str = Field(description="The kind of token (and its surface).")
    count: int = Field(description="How many.")
    box: str | None = Field(description="The box it comes from (None: not a piece of a box).")


class PitAccess(StrictModel):
    """A GT pit tile beside the road (GT-2)."""

    position: int = Field(description="Its place in the file's tile list, from 1.")
    hex: list[int] = Field(description="Its hex [q, r].")
    access: int = Field(description="Spaces that give access to it.")


class TileRate(StrictModel):
    """A tile and how often something happened on it per race."""

    tile_index: int = Field(description="Tile number in driving order, from 1.")
    tile: str = Field(description="Face id of the tile.")
    per_race: float = Field(description="How often per race.")


class LossCorner(StrictModel):
    """A GT corner where control is lost often."""

    tile_index: int = Field(description="Tile number in driving order, from 1.")
    tile: str = Field(description="Face id of the tile.")
    limits: list[int] = Field(description="The limits of its corner spaces.")
    space: str = Field(description="The space where control was lost most.")
    per_race: float = Field(description="Losses of control on the tile per race.")


class DirtStage(SeriesModel):
    """What only a DIRT stage's summary has."""

    _GIVEN: ClassVar[frozenset[str]] = frozenset({"par_time", "par_time_note"})

    corners: list[Corner] = Field(description="Corners and chicanes, in driving order.")
    climb: ClimbCount = Field(description="Climb tiles driven up and down.")
    shortcuts: int = Field(description="Shortcut spaces.")
    jumps: int = Field(description="Jumps.")
    fords: int = Field(description="Fords.")
    par_time: int | None = Field(
        default=None,
        description="validate --simulate: seconds of the fastest risk-free run (None: no run "
        "reaches the finish); absent without --simulate.",
    )
    par_time_note: str | None = Field(
        default=None, description="validate --simulate: what the par time is, in words."
    )


class GtTrack(StrictModel):
    """What only a GT track's summary has."""

    driven_twice: list[int] = Field(description="Tiles driven twice (crossings), by number.")
    laps: int | None = Field(description="Laps of the race (None: a point-to-point track).")
    closed: bool | None = Field(description="The lap closes (None: a point-to-point track).")
    lap_length_spaces: int | None = Field(description="Fewest moves a lap (a circuit).")
    lap_length_mm: float | None = Field(description="Length of a lap in mm (a circuit).")
    lanes: dict[str, int] = Field(description="Tiles by lanes as driven: '3', '2-3' ...")
    corners: list[GtCorner] = Field(description="Corners, in driving order.")
    sharp_corners: list[SharpCorner] = Field(description="Sharp-corner dotted lines.")
    crossings: int = Field(description="Tiles where the track crosses itself.")
    bridges: int = Field(description="Bridges.")
    skew_edges: int = Field(description="Tile edges that cut spaces at an angle.")
    start_finish: list[int] = Field(description="Tiles with a start/finish line.")
    grid_slots: int = Field(description="Slots of the starting grid (BOARD-3).")
    pit: list[PitAccess] = Field(description="Pit tiles beside the road (GT-2).")


class DirtSimulated(StrictModel):
    """What only a DIRT stage's ``validate --simulate`` figures have."""

    dnf: dict[str, int] = Field(description="Drivers who did not finish, by reason.")
    mean_time: float | None = Field(description="Mean stage time in seconds.")


class GtSimulated(StrictModel):
    """What only a GT track's ``validate --simulate`` figures have."""

    laps: int | None = Field(description="Laps of the races (None: point to point).")
    win_rate_by_grid_slot: dict[str, float] = Field(description="Win rate by grid slot.")
    overtakes_per_lap: float | None = Field(description="Overtakes per lap (None: no laps).")
    overtakes_per_race: float = Field(description="Overtakes per race.")
    overtakes_by_lap: dict[str, int] = Field(description="Overtakes by lap.")
    overtakes_most_on: list[TileRate] = Field(description="The tiles with most overtakes.")
    losses_most_on: list[LossCorner] = Field(description="The corners where control is lost most.")
    decided_on_lap_1: float | None = Field(
        description="Share of the races the car leading after lap 1 won (None: not asked)."
    )


class Simulated(SeriesModel):
    """The figures ``validate --simulate N`` adds to the summary."""

    _PARTS: ClassVar[tuple[str, ...]] = ("dirt", "gt")
    _ORDER: ClassVar[dict[str, tuple[str, ...]]] = {
        "dirt": (
            *("races", "seed", "players", "max_rounds", "finish_rate", "dnf", "mean_time"),
            *("losses_per_race", "most_dangerous_tiles"),
        ),
        "gt": (
            *("races", "seed", "players", "laps", "max_rounds", "finish_rate"),
            *("win_rate_by_grid_slot", "overtakes_per_lap", "overtakes_per_race"),
            *("overtakes_by_lap", "overtakes_most_on", "losses_per_race", "losses_most_on"),
            *("decided_on_lap_1", "most_dangerous_tiles"),
        ),
    }

    races: int = Field(description="Races run.")
    seed: int = Field(description="The seed of the races.")
    players: int = Field(description="Drivers in each race.")
    max_rounds: int = Field(description="The round cap of a race.")
    finish_rate: float = Field(description="Share of the drivers who finished.")
    losses_per_race: float = Field(description="Losses of control per race.")
    most_dangerous_tiles: list[TileRate] = Field(
        description="The tiles with most losses of control."
    )
    dirt: DirtSimulated | None = Field(default=None, description="A DIRT stage's figures.")
    gt: GtSimulated | None = Field(default=None, description="A GT track's figures.")


class StageSummary(SeriesModel):
    """The summary of a validated stage or track (the ``summary`` of ``validate``)."""

    _PARTS: ClassVar[tuple[str, ...]] = ("dirt", "gt")
    _GIVEN: ClassVar[frozenset[str]] = frozenset({"simulation"})
    _HEAD: ClassVar[tuple[str, ...]] = (
        *("name", "author", "series", "kind", "tiles", "tiles_beside_road"),
        "tiles_not_driven",
    )
    _TAIL: ClassVar[tuple[str, ...]] = ("tokens", "boxes", "pieces")
    _ORDER: ClassVar[dict[str, tuple[str, ...]]] = {
        "dirt": (
            *_HEAD,
            *("spaces", "length_spaces", "length_mm", "surfaces", "danger", "corners"),
            *("climb", "shortcuts", "jumps", "fords", *_TAIL, "par_time", "par_time_note"),
            "simulation",
        ),
        "gt": (
            *(*_HEAD, "driven_twice", "spaces", "laps", "closed", "lap_length_spaces"),
            *("lap_length_mm", "length_spaces", "length_mm", "lanes", "surfaces", "danger"),
            *("corners", "sharp_corners", "crossings", "bridges", "skew_edges"),
            *("start_finish", "grid_slots", "pit", *_TAIL, "simulation"),
        ),
    }

    name: str = Field(description="The stage's name.")
    author: str = Field(description="Who designed it.")
    series: Literal["dirt", "gt"] = Field(description="The game series.")
    kind: str = Field(description="The event it was checked as (rally, hillclimb, circuit ...).")
    tiles: int = Field(description="Tiles of the road (GT: pieces, a tile driven twice once).")
    tiles_beside_road: int = Field(description="Tiles placed beside the road (scenery, pit).")
    tiles_not_driven: int = Field(description="Tiles the road does not reach.")
    spaces: int = Field(description="Spaces of the stage graph.")
    length_spaces: int | None = Field(
        description="Fewest moves from the start to past the finish (None: a GT circuit, "
        "or no way through)."
    )
    length_mm: float | None = Field(description="Road length to the finish in mm.")
    surfaces: dict[str, int] = Field(description="Tiles by surface.")
    danger: dict[str, int] = Field(description="Tiles by danger level.")
    tokens: list[TokenCount] = Field(description="Tokens on the map, by kind.")
    boxes: dict[str, int] = Field(description="Boxes needed, and how many of each.")
    pieces: dict[str, int] = Field(description="Tiles used, by number.")
    dirt: DirtStage | None = Field(default=None, description="What only a DIRT stage has.")
    gt: GtTrack | None = Field(default=None, description="What only a GT track has.")
    simulation: Simulated | None = Field(
        default=None, description="validate --simulate: the races' figures (absent without)."
    )

    @model_validator(mode="after")
    def _part_of_its_series(self) -> "StageSummary":
        if (self.dirt is not None, self.gt is not None) != (
            self.series == "dirt",
            self.series == "gt",
        ):
            raise ValueError(
                f"a {self.series} stage's summary has its {self.series} part, "
                "and not the other series' part"
            )
        return self

    @property
    def corners(self) -> list[Corner] | list[GtCorner]:
        """The corners, whichever the series."""
        if self.gt is not None:
            return self.gt.corners
        return self.dirt.corners if self.dirt is not None else []
