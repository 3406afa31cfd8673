"""Lay a stage out on the hex grid: auto-snap in driving order, or explicit placement.

Laying out never raises for a bad stage: what cannot be placed is reported as findings
(unknown tile, wrong turn, tiles that do not meet, lane counts), and the rest is still
laid out so that one pass reports every problem.

Examples
--------
>>> from trackkit.models import Stage
>>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "205a"}, {"tile": "217a", "turn": "left"},
...     {"tile": "203a"}]})
>>> layout = lay_out(stage)
>>> [t.hex for t in layout.chain]
[(0, 0), (1, 0), (2, 0), (3, -1)]
>>> layout.findings
[]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from trackkit import hexgrid
from trackkit.catalogue import finding
from trackkit.geometry import DEFAULT_TILE_SIZE_MM, centre_line, road_turn
from trackkit.library import TileLibrary, default_library
from trackkit.models.findings import Finding, Location
from trackkit.models.stage import Stage, StageTile, TileToken
from trackkit.models.tile import FaceKind, TileFace
from trackkit.spaces import DrivenRoad, drive, start_entry

if TYPE_CHECKING:
    from shapely.geometry import Polygon

__all__ = ["Layout", "PlacedTile", "lay_out", "start_entry"]


@dataclass(slots=True)
class PlacedTile:
    """A tile of the stage as placed on the grid."""

    position: int
    """Place in the stage file's tile list, from 1."""
    raw_id: str
    face: TileFace | None
    hex: hexgrid.Hex
    rotation: int
    tokens: list[TileToken] = field(default_factory=list)
    index: int | None = None
    """Number in driving order, from 1 (None: beside the road)."""
    road: DrivenRoad | None = None

    @property
    def entry_world(self) -> int | None:
        """World direction of the edge the road enters by."""
        return None if self.road is None else hexgrid.world_edge(self.road.entry, self.rotation)

    @property
    def exit_world(self) -> int | None:
        """World direction of the edge the road leaves by."""
        return None if self.road is None else hexgrid.world_edge(self.road.exit, self.rotation)

    @property
    def face_id(self) -> str:
        """The face id, or the id as written for an unknown tile."""
        return self.face.id if self.face else self.raw_id

    def location(self, **extra: object) -> Location:
        """A finding location naming this tile."""
        fields: dict[str, object] = {
            "tile_index": self.index,
            "tile": self.face_id,
            "hex": self.hex,
            "path": f"tiles[{self.position - 1}]",
        }
        fields.update(extra)
        return Location.model_validate(fields)

    def footprint(self, size: float = DEFAULT_TILE_SIZE_MM) -> Polygon:
        """The tile's hexagon in millimetres."""
        from shapely.geometry import Polygon

        return Polygon(hexgrid.corners_mm(self.hex, size))

    def __repr__(self) -> str:
        return (
            f"PlacedTile(position={self.position}, raw_id={self.raw_id!r}, "
            f"hex={self.hex!r}, rotation={self.rotation}, index={self.index!r})"
        )


@dataclass(slots=True)
class Layout:
    """A stage laid out: the driven chain, tiles beside the road, and layout findings."""

    stage: Stage
    chain: list[PlacedTile]
    scenery: list[PlacedTile]
    findings: list[Finding]
    size: float = DEFAULT_TILE_SIZE_MM

    @property
    def tiles(self) -> list[PlacedTile]:
        """Every placed tile, chain first."""
        return self.chain + self.scenery

    def road_length(self, tile: PlacedTile) -> float:
        """Length of a chain tile's road along its centre line, in millimetres."""
        return centre_line(tile.road, self.size).length if tile.road else 0.0


def _turn_of(face: TileFace, entry: int) -> str | None:
    road = face.road
    if road is None:
        return None
    turns = drive(face, entry).corner_turns
    if road.shape.value in ("bend", "hairpin"):
        return road_turn(entry, road.to_edge if entry == road.from_edge else road.from_edge)
    return turns[0] if turns else None


def _choose_entry(face: TileFace, spec: StageTile, first: bool) -> tuple[int, str | None]:
    """The local entry edge asked for by ``spec``, and a problem if it cannot be met."""
    road = face.road
    assert road is not None
    ends = (road.from_edge, road.to_edge)
    if spec.enter is not None:
        if spec.enter in ends:
            return spec.enter, None
        return road.from_edge, f"edge {spec.enter} is not a road end of {face.id} (ends: {ends})"
    if spec.turn is not None:
        for e in ends:
            if _turn_of(face, e) == spec.turn:
                return e, None
        what = "does not bend" if _turn_of(face, road.from_edge) is None else "cannot turn that way"
        return road.from_edge, f"{face.id} {what}: 'turn: {spec.turn}' cannot be met"
    if spec.climb is not None:
        if road.climb is None:
            return road.from_edge, f"{face.id} is not a climb face: 'climb: {spec.climb}' ignored"
        for e in ends:
            if drive(face, e).climb == spec.climb:
                return e, None
    if first or (road.start_finish is not None):
        default = start_entry(face)
        if default is not None:
            return default, None
    return road.from_edge, None


def lay_out(
    stage: Stage,
    library: TileLibrary | None = None,
    *,
    size: float = DEFAULT_TILE_SIZE_MM,
) -> Layout:
    """Place every tile of ``stage`` and cut their roads into spaces.

    Tiles without ``at`` snap onto the previous tile's exit; with ``at``/``dir`` they are
    placed as given and must meet the previous tile. Faces without a through road (service
    area, scenery) stand beside the road: they need ``at`` unless a service area follows
    the finish, which is then set against the finish's outer end.
    """
    lib = library or default_library()
    findings: list[Finding] = []
    chain: list[PlacedTile] = []
    scenery: list[PlacedTile] = []
    prev: PlacedTile | None = None

    for pos, spec in enumerate(stage.tiles, start=1):
        face = lib.get(spec.tile)
        here = Location(tile=spec.tile, path=f"tiles[{pos - 1}]")
        if face is None:
            findings.append(
                finding(
                    "S101",
                    f"unknown tile '{spec.tile}'",
                    here.model_copy(update={"tile_index": len(chain) + 1}),
                )
            )
        elif face.kind is not FaceKind.ROAD or face.road is None:
            placed = _place_beside(pos, spec, face, prev, findings, here)
            if placed is not None:
                scenery.append(placed)
            continue

        index = len(chain) + 1
        if spec.at is not None and spec.dir is not None:
            h, rot = (spec.at[0], spec.at[1]), spec.dir
            entry = None
            if face is not None and face.road is not None and prev is not None:
                d = hexgrid.direction_between(h, prev.hex)
                ends = (face.road.from_edge, face.road.to_edge)
                if d is not None and hexgrid.local_edge(d, rot) in ends:
                    entry = hexgrid.local_edge(d, rot)
            if face is not None and face.road is not None and entry is None:
                entry, problem = _choose_entry(face, spec, first=prev is None)
                if problem:
                    findings.append(
                        finding(
                            "S103", problem, here.model_copy(update={"tile_index": index, "hex": h})
                        )
                    )
        else:
            if prev is None or prev.exit_world is None:
                # after an unknown tile, assume its road runs straight across
                h = (
                    (0, 0)
                    if prev is None
                    else hexgrid.neighbour(prev.hex, hexgrid.opposite(prev.rotation))
                )
                d_in = None
            else:
                d_in = prev.exit_world
                h = hexgrid.neighbour(prev.hex, d_in)
            entry = None
            rot = 0
            if face is not None and face.road is not None:
                entry, problem = _choose_entry(face, spec, first=prev is None)
                if problem:
                    findings.append(
                        finding(
                            "S103", problem, here.model_copy(update={"tile_index": index, "hex": h})
                        )
                    )
                if d_in is not None:
                    rot = (hexgrid.opposite(d_in) - entry) % 6
            elif d_in is not None:
                rot = hexgrid.opposite(d_in) % 6  # unknown tile: assume a straight road
        placed = PlacedTile(pos, spec.tile, face, h, rot, list(spec.tokens), index)
        if face is not None and entry is not None:
            placed.road = drive(face, entry)
        elif face is None:
            placed.road = None
        chain.append(placed)
        if prev is not None:
            _check_meeting(prev, placed, findings)
        prev = placed

    return Layout(stage, chain, scenery, findings, size)


def _place_beside(
    pos: int,
    spec: StageTile,
    face: TileFace,
    prev: PlacedTile | None,
    findings: list[Finding],
    here: Location,
) -> PlacedTile | None:
    if spec.at is not None and spec.dir is not None:
        return PlacedTile(
            pos, spec.tile, face, (spec.at[0], spec.at[1]), spec.dir, list(spec.tokens)
        )
    service_end = face.roads[0].from_edge if face.roads else None
    if (
        face.kind is FaceKind.SERVICE
        and service_end is not None
        and prev is not None
        and prev.exit_world is not None
    ):
        d = prev.exit_world
        rot = (hexgrid.opposite(d) - service_end) % 6
        return PlacedTile(
            pos, spec.tile, face, hexgrid.neighbour(prev.hex, d), rot, list(spec.tokens)
        )
    findings.append(
        finding(
            "S116",
            f"{face.id} has no road to drive: it stands beside the road and needs 'at' and 'dir'",
            here,
        )
    )
    return None


def _check_meeting(prev: PlacedTile, tile: PlacedTile, findings: list[Finding]) -> None:
    """BOARD-1: the previous exit must face this tile's entry, with equal lanes."""
    d = hexgrid.direction_between(prev.hex, tile.hex)
    loc = tile.location()
    if prev.road is None or tile.road is None or prev.face is None or tile.face is None:
        return
    if d is None or d != prev.exit_world:
        where = "is not next to" if d is None else "does not sit on the road end of"
        findings.append(
            finding(
                "S102",
                f"tile {tile.index} ({tile.face_id}) {where} tile {prev.index} "
                f"({prev.face_id}): the road has a gap",
                loc,
            )
        )
        return
    if tile.entry_world != hexgrid.opposite(d):
        findings.append(
            finding(
                "S102",
                f"tile {tile.index} ({tile.face_id}) is turned so that its road does not "
                f"meet tile {prev.index} ({prev.face_id})",
                loc,
            )
        )
        return
    lanes_out = prev.face.lanes.get(prev.road.exit)
    lanes_in = tile.face.lanes.get(tile.road.entry)
    if lanes_out != lanes_in:
        findings.append(
            finding(
                "S104",
                f"{lanes_out} lanes of tile {prev.index} ({prev.face_id}) meet {lanes_in} "
                f"lanes of tile {tile.index} ({tile.face_id})",
                loc,
            )
        )
