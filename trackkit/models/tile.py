"""Tile faces: roads cut into sections of spaces, and the features printed on them.

A face is pure data (see ``tile_library/``). Roads are described driving from edge
``from`` to edge ``to`` (local edges of the face, numbered like Rekee's world
directions: edge ``k`` faces axial direction ``k`` when the tile has ``dir`` 0).

A Rallyman: DIRT face describes its road by sections (``roads``); a Rallyman: GT face
describes its roads lane by lane (``layout``, :class:`~trackkit.models.lanes.LaneLayout`,
with the pixel points of the stored picture) and its slanted edges (``skews``).
"""

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, model_validator

from trackkit.models.base import StrictModel, empty_dict, empty_list
from trackkit.models.lanes import LaneLayout

Edge = Annotated[int, Field(ge=0, le=5, description="A tile edge, 0..5.")]
Limit = Annotated[int, Field(ge=1, le=6, description="A printed speed limit (gear), 1..6.")]


class Surface(StrEnum):
    """Track type of a face (BOARD-4)."""

    GRAVEL = "gravel"
    ASPHALT = "asphalt"
    SNOW = "snow"
    NONE = "none"


class Danger(StrEnum):
    """Danger level of a face: yellow, orange or red markers at the road ends (BOARD-4)."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    NONE = "none"


class Turn(StrEnum):
    """Which way a corner turns, seen in the driving direction."""

    LEFT = "left"
    RIGHT = "right"

    def flipped(self) -> "Turn":
        """The same corner driven the other way."""
        return Turn.RIGHT if self is Turn.LEFT else Turn.LEFT


class RoadShape(StrEnum):
    """Shape builder that draws a road's centre line between its two edges."""

    STRAIGHT = "straight"
    BEND = "bend"
    HAIRPIN = "hairpin"
    KINK = "kink"
    DOUBLE_HAIRPIN = "double-hairpin"
    CHICANE = "chicane"
    DEAD_END = "dead-end"


class FaceKind(StrEnum):
    """What a face is for."""

    ROAD = "road"
    SERVICE = "service"
    SCENERY = "scenery"
    PIT = "pit"


class Skew(StrEnum):
    """Which way a slanted (skew) road end cuts its spaces (GT; ``tile-facts.csv``).

    The end spaces of every lane at a skew edge are cut by the edge at 60° and completed
    by the neighbouring tile; a ``skewL`` edge meets only a ``skewL`` edge, ``skewR`` only
    ``skewR`` (the Rekee editor's rule).
    """

    LEFT = "skewL"
    RIGHT = "skewR"


class Confidence(StrEnum):
    """How sure the reading of the tile picture is."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class StraightSection(StrictModel):
    """Rows of lane spaces with solid lines across (BOARD-2)."""

    kind: Literal["straight"] = Field(description="Section kind.")
    rows: int = Field(ge=1, le=12, description="Number of rows, in driving order.")
    lanes: Literal[1, 2] = Field(
        default=2,
        description="Spaces per row: 2 lane spaces side by side, or 1 full-width space "
        "(snow faces, BOARD-2).",
    )


class SlideSection(StrictModel):
    """Rows cut across by a dotted line: drive them normally or slide (CORNER-3)."""

    kind: Literal["slide"] = Field(description="Section kind.")
    rows: int = Field(ge=1, le=4, description="Number of slide rows, in driving order.")


class CornerLane(StrictModel):
    """One lane of a corner: its spaces and the circled limit on each (CORNER-1)."""

    spaces: int = Field(ge=1, le=8, description="Spaces of this lane inside the corner.")
    limit: Limit = Field(description="Speed limit printed on every space of this lane.")


class CornerSection(StrictModel):
    """A corner: inner lane (fewer spaces, lower limit) and outer lane (CORNER-2)."""

    kind: Literal["corner"] = Field(description="Section kind.")
    turn: Turn = Field(description="Which way the corner turns, driving from -> to.")
    inner: CornerLane = Field(description="The inner lane (the side the corner turns to).")
    outer: CornerLane = Field(description="The outer lane.")


class ChicaneSection(StrictModel):
    """One corner space spanning both lanes with its own limit (BOARD-2, face 231)."""

    kind: Literal["chicane"] = Field(description="Section kind.")
    spaces: int = Field(default=1, ge=1, le=4, description="Full-width corner spaces.")
    limit: Limit = Field(description="Speed limit printed on the chicane space(s).")


Section = Annotated[
    StraightSection | SlideSection | CornerSection | ChicaneSection,
    Field(discriminator="kind"),
]


class RowRef(StrictModel):
    """A row of a road: section and row, both counted from 1 in the from -> to direction."""

    section: int = Field(ge=1, description="Section number, from 1.")
    row: int = Field(default=1, ge=1, description="Row inside the section, from 1.")


class Shortcut(StrictModel):
    """Shortcut space(s) with a speed limit, linked to the rows they touch (SHORTCUT-1)."""

    limit: Limit = Field(description="Limit printed in the shortcut symbol.")
    spaces: int = Field(default=1, ge=1, le=3, description="Shortcut spaces in a row.")
    entry: list[RowRef] = Field(
        min_length=1, description="Non-corner rows before the corner that touch the shortcut."
    )
    exit: list[RowRef] = Field(
        min_length=1, description="Non-corner rows after the corner that touch the shortcut."
    )


class Jump(RowRef):
    """A jump: chevron over a number on a row's lane line (JUMP-1); section/row: its row."""

    value: Limit = Field(description="The number under the chevron.")
    chevron: Literal["sideways", "sideways-left", "sideways-right", "forward", "backward"] = Field(
        default="sideways",
        description="Where the chevron points; the published ones point across the road, so "
        "the jump works in both driving directions.",
    )


class Ford(RowRef):
    """A ford: two wavy marks on a row (FORD-1); section/row: its row."""


class Climb(StrictModel):
    """+1 / -1 arrows on every line between spaces of the road (CLIMB-1)."""

    forward: Literal["uphill", "downhill"] = Field(
        description="Which way driving from -> to goes: crossing a line in the direction of "
        "the -1 arrow is uphill."
    )


class StartFinish(StrictModel):
    """The start or finish line, lying across the road after a row (BOARD-3)."""

    kind: Literal["start", "finish"] = Field(description="Start line or finish line.")
    after: RowRef = Field(description="The line lies after this row (from -> to).")


class HazardMark(StrictModel):
    """A GT hazard mark on the line after a row (CORNER-4, CORNER-5)."""

    after: RowRef = Field(description="The marked line lies after this row (from -> to).")
    limit: Limit | None = Field(
        default=None, description="Highest gear allowed across the line; none = warning sign."
    )
    triangle: bool = Field(
        default=False, description="A warning triangle round a corner limit (CORNER-5)."
    )


class Road(StrictModel):
    """A road across a face, from one edge to another, cut into sections of spaces."""

    from_edge: Edge = Field(alias="from", description="Edge where the description starts.")
    to_edge: Edge = Field(alias="to", description="Edge where it ends (equal: a dead end).")
    shape: RoadShape = Field(description="Which shape builder draws the centre line.")
    sections: list[Section] = Field(description="The road's sections in from -> to order.")
    shortcuts: list[Shortcut] = Field(default_factory=empty_list, description="Shortcut areas.")
    jumps: list[Jump] = Field(default_factory=empty_list, description="Jumps on rows.")
    fords: list[Ford] = Field(default_factory=empty_list, description="Fords on rows.")
    climb: Climb | None = Field(default=None, description="Climb arrows, if a climb face.")
    start_finish: StartFinish | None = Field(default=None, description="Start or finish line.")
    hazards: list[HazardMark] = Field(default_factory=empty_list, description="GT hazard marks.")

    @model_validator(mode="after")
    def _refs_exist(self) -> "Road":
        rows = [_rows_of(s) for s in self.sections]
        refs: list[RowRef] = [*self.jumps, *self.fords]
        refs += [r for sc in self.shortcuts for r in (*sc.entry, *sc.exit)]
        if self.start_finish:
            refs.append(self.start_finish.after)
        refs += [h.after for h in self.hazards]
        for ref in refs:
            if ref.section > len(rows) or ref.row > rows[ref.section - 1]:
                raise ValueError(f"section {ref.section} row {ref.row} does not exist on this road")
        for ref in (*(j for j in self.jumps), *(f for f in self.fords)):
            if isinstance(self.sections[ref.section - 1], CornerSection | ChicaneSection):
                raise ValueError(f"section {ref.section} is a corner: jumps and fords sit on rows")
        if self.shape is RoadShape.DEAD_END and self.sections:
            raise ValueError("a dead-end road has no spaces")
        return self


def _rows_of(section: StraightSection | SlideSection | CornerSection | ChicaneSection) -> int:
    if isinstance(section, StraightSection | SlideSection):
        return section.rows
    return 1


class TileFace(StrictModel):
    """One printed face of a tile: its surface, danger level and roads (BOARD-1..4)."""

    id: str = Field(pattern=r"^[0-9]{3}[a-z]?$", description="Face id as players write it: 217a.")
    number: int = Field(ge=100, le=999, description="Catalogue number of the cardboard piece.")
    face: Literal["a", "b", ""] = Field(description="Side of the piece ('' for one-faced pieces).")
    series: Literal["dirt", "gt"] = Field(description="Game series the tile belongs to.")
    box: str = Field(description="Product that contains the piece, e.g. dirt-core.")
    copies: int = Field(ge=1, le=20, description="Pieces of this number in that box.")
    also_in: dict[str, int] = Field(
        default_factory=empty_dict,
        description="Other boxes that hold pieces of this number: box -> copies (GT 122, "
        "124, 125: one in Championship, one in World Tour).",
    )
    kind: FaceKind = Field(default=FaceKind.ROAD, description="Road, service area or scenery.")
    surface: Surface = Field(description="Track type (BOARD-4).")
    danger: Danger = Field(description="Danger level (BOARD-4).")
    lanes: dict[int, int] = Field(
        default_factory=empty_dict, description="Lanes of the road at each road edge (BOARD-1)."
    )
    skews: dict[int, Skew] = Field(
        default_factory=empty_dict,
        description="GT road edges that are slanted (skew), with their hand: the end spaces "
        "there are completed by the neighbouring tile. Edges not listed are straight.",
    )
    roads: list[Road] = Field(
        default_factory=empty_list, description="Roads across the face, by sections (DIRT)."
    )
    layout: LaneLayout | None = Field(
        default=None,
        description="Rallyman: GT faces: every road lane by lane, its spaces and cross lines "
        "with their limits, dotted lines and skew halves, crossings, the start/finish line "
        "and grid, the pit board, and the picture's pixel points for drawing "
        "(tile_library/sources/gt-space-layouts/README.md). None for DIRT faces.",
    )
    confidence: Confidence = Field(
        default=Confidence.HIGH, description="How sure the reading of the picture is."
    )
    notes: str = Field(default="", description="What the picture shows and what was odd.")
    sources: str = Field(
        default="",
        description="Where the fact sources disagree, which one this face follows and why.",
    )

    @property
    def road(self) -> Road | None:
        """The face's through road by sections (published DIRT faces have at most one).

        None for faces without one, GT faces included: their roads are in ``layout``.
        """
        for road in self.roads:
            if road.shape is not RoadShape.DEAD_END:
                return road
        return None

    @property
    def is_drivable(self) -> bool:
        """Whether cars drive across this face along a sections road (DIRT)."""
        return self.road is not None

    @property
    def is_gt_road(self) -> bool:
        """Whether this is a Rallyman: GT face with a road (its roads are in ``layout``)."""
        return self.layout is not None and bool(self.layout.roads)

    @model_validator(mode="after")
    def _edges_have_lanes(self) -> "TileFace":
        for road in self.roads:
            for edge in (road.from_edge, road.to_edge):
                if edge not in self.lanes:
                    raise ValueError(f"road edge {edge} has no lane count in 'lanes'")
        for edge in self.skews:
            if edge not in self.lanes:
                raise ValueError(f"skew edge {edge} has no lane count in 'lanes'")
        if self.layout is not None:
            if self.series != "gt":
                raise ValueError("only Rallyman: GT faces have a lane layout")
            if self.roads:
                raise ValueError("a face has its roads by sections or in 'layout', not both")
            for lane_road in self.layout.roads:
                for edge in (lane_road.from_edge, lane_road.to_edge):
                    if edge not in self.lanes:
                        raise ValueError(
                            f"road {lane_road.id} edge {edge} has no lane count in 'lanes'"
                        )
        return self


class TileSet(StrictModel):
    """A tile library file: the faces of one box."""

    format: Literal["trackkit-tiles/1"] = Field(description="File format marker.")
    box: str = Field(description="Box id, e.g. dirt-core.")
    title: str = Field(description="Product name.")
    faces: list[TileFace] = Field(description="The faces of the box's pieces in this file.")
