"""Roads as lanes of spaces separated by cross lines: the per-lane description of a face.

This is the road model of both series (DESIGN.md, "the space model"): a road is a list of
spaces per lane, in driving order, with the cross lines between them; a space named in
several lanes spans them (a merged corner space, a full-width row); a face may have several
roads (crossings, junctions, parallel roads), and a space named in several roads is one
space they share. Rallyman: GT faces are stored this way (read from the tile pictures,
``tile_library/sources/gt-space-layouts/``); DIRT faces are stored by sections, which
:func:`trackkit.road.spaces.drive` turns into the same model, one road per driving direction.
What only DIRT has rides on a road as data, the way the GT format carries links and dotted
marks: the full-width slide spaces lying over a row (``overlays``, CORNER-3) and the
shortcut spaces linked to the rows they touch (``shortcuts``, SHORTCUT-1). Which steps
exist, which spaces lie side by side or over each other and how far along the road each
space lies follow from the lists (:mod:`trackkit.road.lanes`).

Edges are the face's own, numbered clockwise from the top of the stored picture; pixel
points are those of the stored picture (520 x 450 px, flat-to-flat 450 px).

Examples
--------
>>> road = LaneRoad.model_validate({"id": "A", "from": 0, "to": 3,
...     "centre": [[260, 0], [260, 450]], "length": 450,
...     "lanes": {1: ["A1a", "l1", "A1b"], 2: ["A2a", "l1", "A2b"]},
...     "lines": {"l1": {"at": 0.5}}})
>>> road.line_order()
['E0', 'l1', 'E3']
"""

from typing import Literal

from pydantic import Field, model_validator

from trackkit.models.base import StrictModel, empty_dict, empty_list

__all__ = [
    "DottedMark",
    "LaneCorner",
    "LaneLayout",
    "LaneLine",
    "LaneOverlay",
    "LaneRoad",
    "LaneShortcut",
    "LaneSpace",
    "PitBoard",
    "PitSpot",
    "StartLine",
]

Edge = Literal[0, 1, 2, 3, 4, 5]
Point = tuple[float, float]
DottedMark = int | Literal["hazard"]


class LaneLine(StrictModel):
    """A cross line of a road: where it lies along the road and what is printed on it."""

    at: float | list[float] | None = Field(
        default=None,
        description="Progress along the road's centre line (0 at the 'from' edge, 1 at the "
        "'to' edge): one number, or one per lane it crosses in ascending lane order (skew "
        "edges). End edges default to 0 and 1.",
    )
    dotted: dict[int, DottedMark] = Field(
        default_factory=empty_dict,
        description="Sharp-corner dotted line per lane (CORNER-4): the highest safe gear for "
        "a straight move across it, or 'hazard' for a warning sign (one danger result).",
    )
    links: list[tuple[str, str, Literal["straight", "diagonal"]]] | None = Field(
        default=None,
        description="A lane-count transition line: every step across it, (back space, front "
        "space, straight|diagonal); replaces the derived steps for this line.",
    )
    px: Point | list[Point] | None = Field(
        default=None, description="Picture points where the line crosses the lane middles."
    )


class LaneCorner(StrictModel):
    """A corner: the spaces that carry its limits and which way it turns (from -> to)."""

    turn: Literal["left", "right"] | None = Field(
        description="Turn seen driving from -> to; null for a corner that does not turn (a "
        "DIRT chicane space across the road)."
    )
    spaces: list[str] = Field(min_length=1, description="Spaces that carry this corner's limits.")
    name: str | None = Field(
        default=None,
        description="The corner's name on its road (DIRT: its section in driving order); "
        "left out, the corner is named by its road and place in 'corners' (A1, A2, ...).",
    )


class LaneOverlay(StrictModel):
    """Spaces lying over a stretch of a road, across the lanes it names (DIRT slides).

    A DIRT slide row (CORNER-3) is driven as its two lane spaces, or slid as two spaces
    the full width of the road, one either side of the dotted line: those two are an
    overlay over the row, ``[back line, S1, dotted line, S2, front line]``. The dotted line
    is a line of the road (it is named in ``lines``) that no lane crosses.
    """

    lanes: list[int] = Field(min_length=1, description="The lanes the spaces span.")
    spaces: list[str] = Field(
        min_length=3,
        description="Lines and spaces alternating, beginning and ending with a line of the "
        "road: the stretch the overlay lies over.",
    )


class LaneShortcut(StrictModel):
    """Shortcut spaces beside a road, linked to the spaces they touch (DIRT, SHORTCUT-1)."""

    spaces: list[str] = Field(min_length=1, description="The shortcut's spaces, in order.")
    limit: int = Field(ge=1, le=6, description="The limit printed in the shortcut symbol.")
    side: int = Field(ge=1, description="The lane the shortcut lies beside (inside the bend).")
    into: list[str] = Field(
        min_length=1, description="Spaces of the road a car enters the shortcut from."
    )
    out: list[str] = Field(min_length=1, description="Spaces of the road the shortcut leads to.")
    at: tuple[float, float] = Field(
        description="Where the shortcut begins and ends along the road (0..1, from -> to)."
    )


class LaneRoad(StrictModel):
    """One road across a face, from edge ``from`` to edge ``to``, lane by lane."""

    id: str = Field(pattern=r"^[A-Z]$", description="Road id on the face: A, B, ...")
    from_edge: Edge = Field(alias="from", description="Edge where the description starts.")
    to_edge: Edge = Field(alias="to", description="Edge where it ends (from < to).")
    centre: list[Point] = Field(
        default_factory=empty_list,
        description="Centre line, picture pixels, from the 'from' edge midpoint to the 'to' one.",
    )
    length: float = Field(default=0.0, ge=0, description="Length of 'centre' in picture px.")
    lanes: dict[int, list[str]] | None = Field(
        default=None,
        description="Lane number (1 = leftmost driving from -> to) -> its spaces in driving "
        "order alternating with the cross lines between them; the end edges are implied. "
        "None for a hidden road.",
    )
    lines: dict[str, LaneLine] = Field(
        default_factory=empty_dict,
        description="Cross lines named by the lanes, in driving order; E<edge> for the end "
        "edges when they carry 'at' (skew) or 'dotted'.",
    )
    corners: list[LaneCorner] = Field(default_factory=empty_list, description="Numbered corners.")
    slots: dict[int, list[int]] | None = Field(
        default=None,
        description="Where roads share an edge (junctions): edge -> slot of each lane, slots "
        "counted 1.. clockwise around the tile.",
    )
    hidden: bool = Field(
        default=False, description="A road that exists but is not drawn (under a bridge)."
    )
    overlays: list[LaneOverlay] = Field(
        default_factory=empty_list,
        description="DIRT: spaces lying over a stretch of the road (the slide spaces, CORNER-3).",
    )
    shortcuts: list[LaneShortcut] = Field(
        default_factory=empty_list,
        description="DIRT: shortcut spaces beside the road, linked to the spaces they touch.",
    )

    def named_spaces(self) -> list[str]:
        """Every space the road names (lanes, overlays, shortcuts), in first-named order."""
        lines = set(self.line_order())
        out: dict[str, None] = {}
        for items in (self.lanes or {}).values():
            out.update((x, None) for x in items if x not in lines)
        for overlay in self.overlays:
            out.update((x, None) for x in overlay.spaces if x not in lines)
        for shortcut in self.shortcuts:
            out.update((x, None) for x in shortcut.spaces)
        return list(out)

    def line_order(self) -> list[str]:
        """The road's cross lines in driving order, end edges included."""
        inner = [k for k in self.lines if not k.startswith("E")]
        return [f"E{self.from_edge}", *inner, f"E{self.to_edge}"]

    @model_validator(mode="after")
    def _lanes_alternate(self) -> "LaneRoad":
        if self.hidden:
            if self.lanes:
                raise ValueError(f"road {self.id}: a hidden road lists no lanes")
            return self
        if not self.lanes:
            raise ValueError(f"road {self.id}: no lanes")
        order = set(self.line_order())
        for key in self.lines:
            if key.startswith("E") and key not in (f"E{self.from_edge}", f"E{self.to_edge}"):
                raise ValueError(f"road {self.id}: edge line {key} is not an end of this road")
        for lane, items in self.lanes.items():
            full = list(items)
            if not full:
                raise ValueError(f"road {self.id} lane {lane}: empty")
            if full[0] not in order:
                full.insert(0, f"E{self.from_edge}")
            if full[-1] not in order:
                full.append(f"E{self.to_edge}")
            if len(full) % 2 == 0:
                raise ValueError(f"road {self.id} lane {lane}: spaces and lines do not alternate")
            for k, item in enumerate(full):
                if (k % 2 == 0) != (item in order):
                    what = "a line" if k % 2 == 0 else "a space"
                    raise ValueError(f"road {self.id} lane {lane}: {item!r} should be {what}")
        for overlay in self.overlays:
            items = overlay.spaces
            if len(items) % 2 == 0 or any(
                (k % 2 == 0) != (item in order) for k, item in enumerate(items)
            ):
                raise ValueError(f"road {self.id}: an overlay must alternate lines and spaces")
        return self


class LaneSpace(StrictModel):
    """A space of a face: where it is drawn and what is printed on it."""

    px: Point | None = Field(default=None, description="A picture point inside the space.")
    limit: int | None = Field(
        default=None, ge=0, le=6, description="Printed corner limit (CORNER-1)."
    )
    triangle: bool = Field(
        default=False, description="The limit is in a warning triangle (CORNER-5)."
    )
    joins: Edge | None = Field(
        default=None,
        description="The space is cut by this skew edge: the neighbouring tile holds its rest.",
    )


class StartLine(StrictModel):
    """A chequered start and/or finish line with its grid (GT)."""

    road: str = Field(description="Road id of the line.")
    line: str = Field(description="The road's cross line that is the chequered band.")
    kind: Literal["start-finish", "start", "finish"] = Field(description="What the line is.")
    race_toward: Edge = Field(description="Edge the race runs toward (the grid faces it).")
    grid: list[list[str]] = Field(
        default_factory=empty_list,
        description="Grid rows, nearest the line first; each row's slots left to right.",
    )


class PitSpot(StrictModel):
    """A column of the pit board (tile 101): its gear and services (GT-2)."""

    id: str = Field(description="Spot id: P1, P2, ...")
    gear: Literal["0", "00"] = Field(description="Gear the car is in while there.")
    services: list[Literal["tyres", "repair"]] = Field(description="What the stop gives.")
    px: Point | None = Field(default=None, description="A picture point inside the column.")


class PitBoard(StrictModel):
    """The pit board of tile 101."""

    kind: Literal["pit-board"] = Field(description="What the pit is.")
    spots: list[PitSpot] = Field(min_length=1, description="The board's columns.")


class LaneLayout(StrictModel):
    """Every road of a face, lane by lane, and the spaces they name."""

    roads: list[LaneRoad] = Field(default_factory=empty_list, description="Roads across the face.")
    spaces: dict[str, LaneSpace] = Field(
        default_factory=empty_dict, description="Every space of every road, once."
    )
    overlaps: list[tuple[str, str]] = Field(
        default_factory=empty_list,
        description="Spaces of different roads that cover common ground (crossings): a car "
        "on one blocks the other.",
    )
    start_finish: list[StartLine] = Field(
        default_factory=empty_list, description="Chequered lines and their grids."
    )
    pit: PitBoard | None = Field(default=None, description="The pit board (tile 101).")

    @model_validator(mode="after")
    def _names_exist(self) -> "LaneLayout":
        named: set[str] = set()
        roads = {r.id: r for r in self.roads}
        if len(roads) != len(self.roads):
            raise ValueError("two roads share an id")
        for road in self.roads:
            named |= set(road.named_spaces())
            for corner in road.corners:
                for sid in corner.spaces:
                    if sid not in self.spaces:
                        raise ValueError(f"road {road.id}: corner space {sid} is not a space")
        missing = sorted(named - set(self.spaces))
        if missing:
            raise ValueError(f"spaces named by lanes but not defined: {', '.join(missing)}")
        unused = sorted(set(self.spaces) - named)
        if unused:
            raise ValueError(f"spaces defined but in no lane: {', '.join(unused)}")
        for a, b in self.overlaps:
            for sid in (a, b):
                if sid not in self.spaces:
                    raise ValueError(f"overlap names {sid}, which is not a space")
        for sf in self.start_finish:
            line_road = roads.get(sf.road)
            if line_road is None or sf.line not in line_road.line_order():
                raise ValueError(f"start/finish line {sf.road}.{sf.line} does not exist")
            for row in sf.grid:
                for sid in row:
                    if sid not in self.spaces:
                        raise ValueError(f"grid slot {sid} is not a space")
        return self
