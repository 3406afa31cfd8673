"""Lay a stage out on the hex grid: auto-snap in driving order, or explicit placement.

Laying out never raises for a bad stage: what cannot be placed is reported as findings
(unknown tile, wrong turn, tiles that do not meet, lane counts), and the rest is still
laid out so that one pass reports every problem. Tiles marked ``driven: false`` lie where
their ``at``/``dir`` put them and are never chained (:attr:`Layout.undriven`). Findings
about a tile id or a rotation carry a fix made for them: the ids probably meant
(:func:`trackkit.formats.suggest.close_tile_ids`, narrowed to the faces whose road would meet
the neighbours) and the turn that makes two roads meet (:func:`turn_to_meet`).

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

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from trackkit import hexgrid
from trackkit.catalogue import finding
from trackkit.errors import TileLibraryError
from trackkit.formats.suggest import close_tile_ids, unknown_tile_fix
from trackkit.geometry import DEFAULT_TILE_SIZE_MM, centre_line, road_turn
from trackkit.library import TileLibrary, default_library, ruleset_data
from trackkit.models.findings import Finding, Fix, FixEdit, Location
from trackkit.models.stage import (
    DEFAULT_LAPS,
    MAX_TILE_TOKENS,
    Kind,
    Stage,
    StageTile,
    TileToken,
)
from trackkit.models.tile import FaceKind, TileFace
from trackkit.spaces import DrivenRoad, drive, face_roads, start_entry
from trackkit.track_tokens import place_tokens

if TYPE_CHECKING:
    from shapely.geometry import Polygon

#: A GT tile picture's size flat to flat, in pixels (its road lengths are in these).
GT_PX = 450.0

Series = Literal["dirt", "gt"]


@lru_cache(maxsize=4)
def default_laps(ruleset: str = "gt") -> int:
    """Laps of a circuit whose file gives none: ``laps`` of ``ruleset-<id>.yaml`` if that
    file has it, else :data:`~trackkit.models.stage.DEFAULT_LAPS` (3)."""
    try:
        data = ruleset_data(ruleset)
    except TileLibraryError:  # no GT ruleset file yet: the model's default
        return DEFAULT_LAPS
    laps = data.get("laps")
    return (
        laps
        if isinstance(laps, int) and not isinstance(laps, bool) and laps > 0
        else (DEFAULT_LAPS)
    )


__all__ = [
    "GT_PX",
    "Layout",
    "PlacedTile",
    "default_laps",
    "faces_back",
    "fitting_faces",
    "lay_out",
    "road_ends",
    "start_entry",
    "tile_id_edits",
    "turn_fix",
    "turn_to_meet",
    "turn_words",
]


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
    """Number in driving order, from 1 (None: beside the road, or not driven)."""
    road: DrivenRoad | None = None
    """The road as driven; for a tile that is not driven, its road one way (for tokens)."""
    visit_of: PlacedTile | None = None
    """A GT tile driven a second time (a crossing, parallel roads): the tile as first
    driven. This entry of the chain drives another road of the same piece."""
    guessed: bool = False
    """Snapped on after an unknown tile (or after such a tile): its place is a guess, made
    as if the unknown tile's road ran straight across. Findings that depend on where it
    lies (overlaps, a lap that does not close, a pit beside no road) are left out: the
    unknown tile (S101) is the one mistake."""

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

    @property
    def road_id(self) -> str | None:
        """The id of the road driven on the face (``A`` on DIRT faces), if any."""
        return None if self.road is None else self.road.road_id


@dataclass(slots=True)
class Layout:
    """A stage laid out: the driven chain, tiles beside the road, and layout findings."""

    stage: Stage
    chain: list[PlacedTile]
    scenery: list[PlacedTile]
    findings: list[Finding]
    size: float = DEFAULT_TILE_SIZE_MM
    undriven: list[PlacedTile] = field(default_factory=list)
    """Tiles with a road (or an unknown id) placed with ``driven: false``: on the map, at
    their own hex, but not on the driven road (no spaces in the stage graph)."""
    series: Series = "dirt"
    """The game series: the file's ``ruleset``, else the series of its tiles."""
    series_found: frozenset[str] = frozenset()
    """The series of the known faces the file uses."""

    @property
    def tiles(self) -> list[PlacedTile]:
        """Every placed tile once: the chain (a tile driven twice, at its first visit), then
        beside the road, then not driven."""
        return [t for t in self.chain if t.visit_of is None] + self.scenery + self.undriven

    @property
    def kind(self) -> Kind | None:
        """The file's kind, or None."""
        return self.stage.kind

    @property
    def circuit(self) -> bool:
        """Whether this is a GT circuit (a closed lap): a GT track without ``kind``, or
        with ``kind: circuit``."""
        return self.series == "gt" and self.stage.kind in (None, Kind.CIRCUIT)

    @property
    def laps(self) -> int:
        """Laps of a circuit: the file's ``laps``, else :func:`default_laps`."""
        return self.stage.laps if self.stage.laps is not None else default_laps()

    @property
    def closes(self) -> bool:
        """Whether the last tile's exit meets the first tile's entry (a closed circuit)."""
        if len(self.chain) < 2:
            return False
        a, b = self.chain[-1], self.chain[0]
        if a.road is None or b.road is None:
            return False
        d = hexgrid.direction_between(a.hex, b.hex)
        return d is not None and d == a.exit_world and b.entry_world == hexgrid.opposite(d)

    @property
    def guessed(self) -> bool:
        """Whether tiles were placed by guess, after an unknown tile
        (:attr:`PlacedTile.guessed`)."""
        return any(t.guessed for t in self.chain)

    @property
    def unknown(self) -> bool:
        """Whether a tile of the road has an unknown id (S101): the road has a gap there."""
        return any(t.face is None for t in self.chain)

    @property
    def road_breaks(self) -> bool:
        """Whether the driven road stops short of its finish with road tiles left undriven."""
        if not self.undriven or not self.chain:
            return False
        if self.series == "gt" or (self.chain[-1].face and self.chain[-1].face.is_gt_road):
            if self.circuit:
                return not self.closes
            # point to point: the road is whole when it ends on another start/finish tile,
            # driven the way its grid faces (its finish)
            last = self.chain[-1]
            finish = last.road is not None and last.road.start_at is not None
            return not (finish and (last.visit_of or last) is not self.chain[0])
        road = self.chain[-1].face.road if self.chain[-1].face else None
        return not (road and road.start_finish and road.start_finish.kind == "finish")

    def by_hex(self) -> dict[hexgrid.Hex, list[PlacedTile]]:
        """Every placed tile by its hex (several on one hex overlap)."""
        out: dict[hexgrid.Hex, list[PlacedTile]] = {}
        for t in self.tiles:
            out.setdefault(t.hex, []).append(t)
        return out

    def road_length(self, tile: PlacedTile) -> float:
        """Length of a chain tile's road along its centre line, in millimetres."""
        if tile.road is None:
            return 0.0
        if tile.road.series == "gt":
            return tile.road.length_px * self.size / GT_PX
        return centre_line(tile.road, self.size).length


def _turn_of(face: TileFace, entry: int) -> str | None:
    road = face.road
    if road is None:
        return None
    turns = drive(face, entry).corner_turns
    if road.shape.value in ("bend", "hairpin"):
        return road_turn(entry, road.to_edge if entry == road.from_edge else road.from_edge)
    return turns[0] if turns else None


def _free_choice(face: TileFace, spec: StageTile, first: bool) -> bool:
    """Whether nothing says which way ``face`` is driven: no ``enter``, ``turn`` or
    ``climb``, and no start line whose direction decides it."""
    if spec.enter is not None or spec.turn is not None or spec.climb is not None:
        return False
    if face.layout is not None:  # a GT face: its start/finish line faces the race
        return not (face.layout.start_finish and (first or spec.road is None))
    road = face.road
    if road is None:
        return False
    return not ((first or road.start_finish is not None) and start_entry(face) is not None)


def _turn_note(tile: PlacedTile) -> Finding | None:
    """S140: a bend laid one way because its spec does not say which (the way it went);
    None for a road that does not bend (a straight, or a kink that keeps straight on)."""
    road = tile.road
    assert road is not None
    way = road_turn(road.entry, road.exit)
    what = "turning"
    if way is None:  # ends opposite: a DIRT S-bend or kink's 'turn' is its first corner's
        turns = road.corner_turns if road.series == "dirt" else []
        if not turns:
            return None
        way, what = turns[0], "its first corner turning"
    other = "right" if way == "left" else "left"
    return finding(
        "S140",
        f"tile {tile.index} ({tile.face_id}) has no 'turn': laid {what} {way} (entered by its "
        f"edge {road.entry}); write 'turn: {way}' to keep it so, or 'turn: {other}'",
        tile.location(),
    )


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


def _choose_gt(
    face: TileFace, spec: StageTile, first: bool, used: frozenset[str] = frozenset()
) -> tuple[int, str, str | None, bool]:
    """The entry edge and road of a GT face asked for by ``spec`` when the tile snaps on.

    Returns ``(entry, road, problem, ambiguous)``: ``problem`` when the spec cannot be met,
    ``ambiguous`` when a junction leaves the road open (S129).
    """
    roads = [r for r in face_roads(face) if r[0] not in used] or face_roads(face)
    if spec.road is not None:
        named = [r for r in roads if r[0] == spec.road]
        if not named:
            have = ", ".join(r[0] for r in face_roads(face))
            rid, e0, _e1 = roads[0]
            return e0, rid, f"{face.id} has no road {spec.road} (roads: {have})", False
        roads = named
    if spec.enter is not None:
        at = [r for r in roads if spec.enter in (r[1], r[2])]
        if not at:
            rid, e0, _e1 = roads[0]
            ends = sorted({e for r in roads for e in r[1:]})
            return (
                e0,
                rid,
                f"edge {spec.enter} is not a road end of {face.id} (ends: {ends})",
                False,
            )
        return spec.enter, at[0][0], None, spec.road is None and len(at) > 1
    if spec.turn is not None:
        for rid, e0, e1 in roads:
            for entry, exit_ in ((e0, e1), (e1, e0)):
                if road_turn(entry, exit_) == spec.turn:
                    return entry, rid, None, False
        rid, e0, _e1 = roads[0]
        return e0, rid, f"{face.id} cannot turn that way: 'turn: {spec.turn}' cannot be met", False
    if spec.climb is not None:
        rid, e0, _e1 = roads[0]
        return e0, rid, f"{face.id} is not a climb face: 'climb: {spec.climb}' ignored", False
    layout = face.layout
    if layout is not None and layout.start_finish and (first or spec.road is None):
        lines = {sf.road: sf for sf in layout.start_finish}
        for rid, e0, e1 in roads:
            if rid in lines:
                return (e0 if lines[rid].race_toward == e1 else e1), rid, None, False
    rid, e0, _e1 = roads[0]
    shared = spec.road is None and sum(1 for r in face_roads(face) if e0 in r[1:]) > 1
    return e0, rid, None, shared


def _gt_road_at(
    face: TileFace, spec: StageTile, edge: int, used: frozenset[str]
) -> tuple[str | None, str | None, bool]:
    """The road of a GT face (placed, or met again) whose end is local ``edge``.

    Returns ``(road, problem, ambiguous)``: the roads not driven yet on this piece first;
    ``road: X`` decides between several (a junction); without it, the first (S129).
    """
    roads = [r for r in face_roads(face) if edge in r[1:]]
    free = [r for r in roads if r[0] not in used] or roads
    if spec.road is not None:
        named = [r for r in roads if r[0] == spec.road]
        if named:
            return spec.road, None, False
        have = ", ".join(r[0] for r in roads) or "none"
        return (
            (free[0][0] if free else None),
            (
                f"road {spec.road} of {face.id} has no end at the edge facing the previous tile "
                f"(roads there: {have})"
            ),
            False,
        )
    if not free:
        return None, None, False
    return free[0][0], None, len(free) > 1


def lay_out(
    stage: Stage,
    library: TileLibrary | None = None,
    *,
    size: float = DEFAULT_TILE_SIZE_MM,
) -> Layout:
    """Place every tile of ``stage`` and cut their roads into spaces.

    Tiles without ``at`` snap onto the previous tile's exit; with ``at``/``dir`` they are
    placed as given and must meet the previous tile. Faces without a through road (service
    area, scenery, the GT pit tile) stand beside the road: they need ``at`` unless a service
    area follows the finish, which is then set against the finish's outer end. Tiles with
    ``driven: false`` are placed as given and left out of the chain.

    A GT face with several roads drives the road whose end faces the previous tile's exit
    (``road: X`` chooses at a junction). A GT tile that snaps (or is placed) onto a tile
    already driven, with the same face and turn, is that piece driven again on another of
    its roads (a track crossing itself): a second entry of the chain, not a second piece.
    """
    lib = library or default_library()
    findings: list[Finding] = []
    chain: list[PlacedTile] = []
    scenery: list[PlacedTile] = []
    undriven: list[PlacedTile] = []
    prev: PlacedTile | None = None
    unknown: list[tuple[int, PlacedTile]] = []  # S101 findings: their fix needs every tile
    misses: list[tuple[int, PlacedTile, PlacedTile]] = []  # S102 findings, likewise
    found: set[str] = set()

    for pos, spec in enumerate(stage.tiles, start=1):
        face = lib.get(spec.tile)
        if face is not None and face.kind is not FaceKind.SCENERY:
            found.add(face.series)  # scenery belongs to no rules: it never mixes series
        here = Location(tile=spec.tile, path=f"tiles[{pos - 1}]")
        s101 = len(findings)
        gt = face is not None and face.layout is not None
        has_road = (
            face is not None
            and face.kind is FaceKind.ROAD
            and (face.road is not None or face.is_gt_road)
        )
        if (
            not spec.driven
            and spec.at is not None
            and spec.dir is not None
            and (face is None or has_road)
        ):
            # placed, not driven: a road tile (or an unknown id) stays where it is put
            placed = PlacedTile(pos, spec.tile, face, spec.at, spec.dir, list(spec.tokens))
            if face is not None:
                if gt:
                    edge, name, _p, _a = _choose_gt(face, spec, first=False)
                    placed.road = drive(face, edge, name)
                else:
                    placed.road = drive(face, _choose_entry(face, spec, first=False)[0])
            else:
                unknown.append((len(findings), placed))
                findings.append(finding("S101", f"unknown tile '{spec.tile}'", placed.location()))
            undriven.append(placed)
            continue
        if face is None:
            findings.append(
                finding(
                    "S101",
                    f"unknown tile '{spec.tile}'",
                    here.model_copy(update={"tile_index": len(chain) + 1}),
                )
            )
        elif not has_road:
            placed_beside = _place_beside(pos, spec, face, prev, findings, here)
            if placed_beside is not None:
                scenery.append(placed_beside)
            continue

        index = len(chain) + 1
        where = here.model_copy(update={"tile_index": index})
        road_id: str | None = None
        again: PlacedTile | None = None
        ambiguous = False
        free = False  # nothing says which way the tile is driven (S140)
        entry: int | None = None
        problem: str | None = None
        if spec.at is not None and spec.dir is not None:
            h, rot = (spec.at[0], spec.at[1]), spec.dir
            if face is not None and gt:
                again = _driven_before(chain, face, h, rot)
            if face is not None and prev is not None:
                d = hexgrid.direction_between(h, prev.hex)
                if d is not None and gt:
                    local = hexgrid.local_edge(d, rot)
                    rid, problem, ambiguous = _gt_road_at(face, spec, local, _used(chain, again))
                    if problem:
                        findings.append(
                            finding("S130", problem, where.model_copy(update={"hex": h}))
                        )
                    if rid is not None:
                        entry, road_id = local, rid
                elif d is not None and face.road is not None:
                    ends = (face.road.from_edge, face.road.to_edge)
                    if hexgrid.local_edge(d, rot) in ends:
                        entry = hexgrid.local_edge(d, rot)
            if face is not None and entry is None:
                free = _free_choice(face, spec, prev is None)
                if gt:
                    entry, road_id, problem, ambiguous = _choose_gt(
                        face, spec, prev is None, _used(chain, again)
                    )
                    code = (
                        "S130" if spec.road is not None and "no road" in (problem or "") else "S103"
                    )
                else:
                    entry, problem = _choose_entry(face, spec, first=prev is None)
                    code = "S103"
                if problem:
                    findings.append(finding(code, problem, where.model_copy(update={"hex": h})))
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
            rot = 0
            if face is not None and gt and d_in is not None:
                again = _driven_before(chain, face, h, None)
            if face is not None and again is not None and d_in is not None:
                rot = again.rotation
                local = hexgrid.local_edge(hexgrid.opposite(d_in), rot)
                rid, problem, ambiguous = _gt_road_at(face, spec, local, _used(chain, again))
                if problem:
                    findings.append(finding("S130", problem, where.model_copy(update={"hex": h})))
                if rid is not None:
                    entry, road_id = local, rid
                else:
                    again = None  # no road of the piece there: the tiles overlap (S105)
            if face is not None and entry is None:
                free = _free_choice(face, spec, prev is None)
                if gt:
                    entry, road_id, problem, ambiguous = _choose_gt(face, spec, prev is None)
                    code = (
                        "S130" if spec.road is not None and "no road" in (problem or "") else "S103"
                    )
                else:
                    entry, problem = _choose_entry(face, spec, first=prev is None)
                    code = "S103"
                if problem:
                    findings.append(finding(code, problem, where.model_copy(update={"hex": h})))
                if d_in is not None:
                    rot = (hexgrid.opposite(d_in) - entry) % 6
            elif face is None and d_in is not None:
                rot = hexgrid.opposite(d_in) % 6  # unknown tile: assume a straight road
        placed = PlacedTile(pos, spec.tile, face, h, rot, list(spec.tokens), index)
        placed.visit_of = again
        snapped = spec.at is None or spec.dir is None
        placed.guessed = snapped and prev is not None and (prev.face is None or prev.guessed)
        if face is not None and entry is not None:
            placed.road = drive(face, entry, road_id)
            if free and index > 1:
                note = _turn_note(placed)
                if note is not None:
                    findings.append(note)
            if ambiguous:
                others = [r[0] for r in face_roads(face) if entry in r[1:] and r[0] != road_id]
                findings.append(
                    finding(
                        "S129",
                        f"{face.id} is a junction: roads {', '.join([road_id or '?', *others])} "
                        f"begin at edge {entry}; road {road_id} is taken",
                        placed.location(),
                        edits=[
                            FixEdit(
                                label=f"take road {r} of {face.id}",
                                path=f"tiles[{pos - 1}]",
                                values={"road": r},
                            )
                            for r in [road_id, *others]
                            if r is not None
                        ],
                    )
                )
        elif face is None:
            placed.road = None
            unknown.append((s101, placed))
        chain.append(placed)
        if prev is not None and not prev.guessed:  # after a guess, a miss may be the guess's
            missed = _check_meeting(prev, placed, findings)
            if missed:
                misses.append((len(findings) - 1, prev, placed))
        prev = placed

    series: Series = stage.ruleset or _series(chain, scenery, undriven, found)
    layout = Layout(stage, chain, scenery, findings, size, undriven, series, frozenset(found))
    if layout.circuit and layout.closes:
        _check_meeting(chain[-1], chain[0], findings, closing=True)
    _add_fixes(layout, lib, unknown, misses)
    _place_tokens(layout)
    _one_line_per_piece(chain)
    return layout


def _one_line_per_piece(chain: list[PlacedTile]) -> None:
    """A GT piece driven on two of its roads (139b, 140b, 143b, 144b) is one start/finish
    tile: its line is the one on the road driven the way its grid faces (the first such),
    else the first driven; the other road's band is no line of the track (BOARD-3, GT-1).
    """
    lined: dict[int, list[PlacedTile]] = {}
    for tile in chain:
        if tile.road is not None and tile.road.line is not None:
            lined.setdefault(id(tile.visit_of or tile), []).append(tile)
    for visits in lined.values():
        keep = next((t for t in visits if t.road and not t.road.grid_backwards), visits[0])
        for tile in visits:
            if tile is not keep and tile.road is not None:
                tile.road = replace(tile.road, line=None)  # drive() caches the road: a copy


def _series(
    chain: list[PlacedTile],
    scenery: list[PlacedTile],
    undriven: list[PlacedTile],
    found: set[str],
) -> Series:
    """The series of a file that does not say: that of its tiles (scenery aside); when
    both are there, that of its first road tile."""
    if len(found) <= 1:
        return "gt" if found == {"gt"} else "dirt"
    for tile in [*chain, *undriven, *scenery]:
        if tile.face is not None and tile.face.kind is not FaceKind.SCENERY:
            return tile.face.series
    return "dirt"


def _driven_before(
    chain: list[PlacedTile], face: TileFace, h: hexgrid.Hex, rot: int | None
) -> PlacedTile | None:
    """The tile of the chain on hex ``h`` with the same face (and turn): driven again."""
    for tile in chain:
        if (
            tile.visit_of is None
            and tile.hex == h
            and tile.face is face
            and (rot is None or tile.rotation == rot)
        ):
            return tile
    return None


def _used(chain: list[PlacedTile], first: PlacedTile | None) -> frozenset[str]:
    """The roads of a piece already driven (at its first visit and since)."""
    if first is None:
        return frozenset()
    return frozenset(
        t.road_id for t in chain if (t is first or t.visit_of is first) and t.road_id is not None
    )


def _place_tokens(layout: Layout) -> None:
    """Each tile's tokens, at most :data:`MAX_TILE_TOKENS` (R210), on its road.

    The road becomes the one the tokens make (Copilot track tokens change rows, see
    :mod:`trackkit.track_tokens`), so the graph, the rules and the drawing all see them.
    """
    for tile in layout.tiles:
        if len(tile.tokens) > MAX_TILE_TOKENS:
            del tile.tokens[MAX_TILE_TOKENS:]
        if tile.road is not None and tile.tokens:
            tile.road = place_tokens(tile.road, tile.tokens)


def _add_fixes(
    layout: Layout,
    lib: TileLibrary,
    unknown: list[tuple[int, PlacedTile]],
    misses: list[tuple[int, PlacedTile, PlacedTile]],
) -> None:
    """Fixes made for one finding: the ids meant for unknown tiles, a turn for a miss.

    Both look at the tiles around, so they wait until every tile is placed.
    """
    by_hex = layout.by_hex()
    explicit = {t.position for t in layout.tiles if layout.stage.tiles[t.position - 1].at}
    for n, tile in unknown:
        ids = close_tile_ids(tile.raw_id, lib)
        if tile.position in explicit and len(ids) > 1:
            pred, succ = _chain_neighbours(layout, tile)
            ids = fitting_faces(ids, lib, tile, by_hex, pred, succ)
        fix = unknown_tile_fix(tile.raw_id, ids)
        edits = tile_id_edits(tile, ids)
        layout.findings[n] = layout.findings[n].model_copy(update={"fix": fix, "edits": edits})
    for n, prev, tile in misses:
        turn = _miss_fix(layout, by_hex, explicit, prev, tile)
        if turn:
            update = {"fix": str(turn), "edits": list(turn.edits)}
            layout.findings[n] = layout.findings[n].model_copy(update=update)


def _chain_neighbours(
    layout: Layout, tile: PlacedTile
) -> tuple[PlacedTile | None, PlacedTile | None]:
    """The tiles driven just before and after ``tile`` (the last driven one if not driven)."""
    chain = layout.chain
    if tile.index is None:
        return (chain[-1] if chain else None), None
    before = chain[tile.index - 2] if tile.index >= 2 else None
    after = chain[tile.index] if tile.index < len(chain) else None
    return before, after


def fitting_faces(
    ids: list[str],
    lib: TileLibrary,
    tile: PlacedTile,
    by_hex: dict[hexgrid.Hex, list[PlacedTile]],
    pred: PlacedTile | None,
    succ: PlacedTile | None,
) -> list[str]:
    """Of ``ids``, the faces whose road, put where ``tile`` is, meets the most neighbours."""
    met: dict[str, int] = {}
    for face_id in ids:
        face = lib.get(face_id)
        if face is not None and road_ends(face):
            met[face_id] = _roads_met(face, tile, tile.rotation, by_hex, pred, succ)
    best = max(met.values(), default=0)
    return [f for f in ids if met.get(f) == best] if best else ids


def road_ends(face: TileFace, road: str | None = None) -> tuple[int, ...]:
    """The two end edges of a face's road (GT: of road ``road``, else of its first road);
    none for a face without a road."""
    roads = face_roads(face)
    if not roads:
        return ()
    _rid, e0, e1 = next((r for r in roads if r[0] == road), roads[0])
    return (e0, e1)


def faces_back(
    other: PlacedTile, toward: int, pred: PlacedTile | None, succ: PlacedTile | None
) -> bool:
    """Whether ``other``'s road has an end at its side ``toward`` that a road may meet there.

    The tile driven before (``pred``) must have its exit there, the one driven after
    (``succ``) its entry; a tile that is not driven may have either road end there; other
    driven tiles never count (a road meeting them would meet them out of driving order).
    """
    if other is pred:
        return other.exit_world == toward
    if other is succ:
        return other.entry_world == toward
    if other.index is not None or other.face is None:
        return False
    local = hexgrid.local_edge(toward, other.rotation)
    return any(local in r[1:] for r in face_roads(other.face))


def _roads_met(
    face: TileFace,
    tile: PlacedTile,
    rotation: int,
    by_hex: dict[hexgrid.Hex, list[PlacedTile]],
    pred: PlacedTile | None,
    succ: PlacedTile | None,
) -> int:
    """How many road ends of ``face``, put on ``tile``'s hex with ``rotation``, meet a road."""
    met = 0
    for end in road_ends(face, tile.road_id):
        w = hexgrid.world_edge(end, rotation)
        others = by_hex.get(hexgrid.neighbour(tile.hex, w), [])
        met += any(o is not tile and faces_back(o, hexgrid.opposite(w), pred, succ) for o in others)
    return met


def turn_to_meet(
    tile: PlacedTile,
    by_hex: dict[hexgrid.Hex, list[PlacedTile]],
    *,
    pred: PlacedTile | None = None,
    succ: PlacedTile | None = None,
    toward: int | None = None,
    need: int = 1,
) -> int | None:
    """A new rotation of ``tile`` whose road meets at least ``need`` roads around it.

    Parameters
    ----------
    tile : PlacedTile
        A tile with a known road face.
    by_hex : dict
        Every placed tile by hex (:meth:`Layout.by_hex`).
    pred, succ : PlacedTile, optional
        The tiles to be driven just before and after ``tile`` (see :func:`faces_back`).
    toward : int, optional
        A world direction the road must have an end at.
    need : int
        How many road ends must meet a road (1 or 2).

    Returns
    -------
    int or None
        The rotation (0..5) meeting the most roads, the smallest turn among equals; None
        if no other rotation does.
    """
    face = tile.face
    ends = road_ends(face, tile.road_id) if face is not None else ()
    if face is None or not ends:
        return None
    best: tuple[int, int, int, int] | None = None
    for rot in range(6):
        if rot == tile.rotation:
            continue
        if toward is not None and toward not in {hexgrid.world_edge(e, rot) for e in ends}:
            continue
        met = _roads_met(face, tile, rot, by_hex, pred, succ)
        if met < need:
            continue
        steps = (rot - tile.rotation) % 6
        key = (-met, min(steps, 6 - steps), steps, rot)
        if best is None or key < best:
            best = key
    return None if best is None else best[3]


def turn_words(old: int, new: int) -> str:
    """A turn from rotation ``old`` to ``new`` in words (``dir`` turns clockwise).

    Examples
    --------
    >>> turn_words(2, 3), turn_words(0, 4), turn_words(1, 4)
    ('by one step clockwise', 'by two steps anticlockwise', 'by half a turn (three steps)')
    """
    steps = (new - old) % 6
    if steps == 3:
        return "by half a turn (three steps)"
    n, way = (steps, "clockwise") if steps < 3 else (6 - steps, "anticlockwise")
    return f"by {'one step' if n == 1 else 'two steps'} {way}"


def turn_fix(tile: PlacedTile, new: int, then: str) -> Fix:
    """``Turn 214b at [3, 1] by one step clockwise (dir 2 -> 3): <then>.``

    Its edit places the tile where it lies, turned (``at`` and ``dir``).
    """
    name = f"tile {tile.index} ({tile.face_id})" if tile.index else tile.face_id
    edit = FixEdit(
        label=f"turn {name} to dir {new}",
        path=f"tiles[{tile.position - 1}]",
        values={"at": [tile.hex[0], tile.hex[1]], "dir": new},
    )
    return Fix(
        f"Turn {name} at [{tile.hex[0]}, {tile.hex[1]}] {turn_words(tile.rotation, new)} "
        f"(dir {tile.rotation} -> {new}): {then}.",
        [edit],
    )


#: At most this many tile ids probably meant are offered as edits.
MAX_ID_EDITS = 4


def tile_id_edits(tile: PlacedTile, ids: list[str]) -> list[FixEdit]:
    """The edits that replace an unknown tile id with each id probably meant."""
    return [
        FixEdit(
            label=f"use {face_id} for '{tile.raw_id[:40]}'",
            path=f"tiles[{tile.position - 1}]",
            values={"tile": face_id},
        )
        for face_id in ids[:MAX_ID_EDITS]
    ]


def _miss_fix(
    layout: Layout,
    by_hex: dict[hexgrid.Hex, list[PlacedTile]],
    explicit: set[int],
    prev: PlacedTile,
    tile: PlacedTile,
) -> Fix | None:
    """A turn of ``tile`` or of ``prev`` (placed by hand) that makes their roads meet."""
    d = hexgrid.direction_between(prev.hex, tile.hex)
    if d is None:
        return None  # not neighbours: no turn brings them together
    _, after = _chain_neighbours(layout, tile)
    if d == prev.exit_world and tile.position in explicit:
        rot = turn_to_meet(tile, by_hex, pred=prev, succ=after, toward=hexgrid.opposite(d))
        if rot is not None:
            return turn_fix(tile, rot, f"its road then meets tile {prev.index} ({prev.face_id})")
    if (
        d != prev.exit_world
        and prev.position in explicit
        and tile.entry_world == (hexgrid.opposite(d))
    ):
        pp, _ = _chain_neighbours(layout, prev)
        rot = turn_to_meet(prev, by_hex, pred=pp, succ=tile, toward=d, need=2 if pp else 1)
        if rot is not None:
            return turn_fix(prev, rot, f"its road then goes on to tile {tile.index}")
    return None


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


def _slots_taken(tile: PlacedTile, edge: int, lanes: int | None) -> set[int]:
    """The slots (lanes, clockwise round the tile) of edge ``edge`` that the road driven on
    ``tile`` takes: every lane of the edge, but some only on a branch of a GT junction."""
    road = tile.road
    if lanes is None or road is None:
        return set()
    if road.series == "gt" and edge in (road.cut.road.slots or {}):
        return set(road.cut.edge_slots(edge, lanes))
    return set(range(1, lanes + 1))


def _branch_fix(narrow: list[tuple[PlacedTile, int]]) -> str:
    """S104 at a branch of a junction: the roads of the junction that take its whole edge
    (``narrow``: each junction tile with the local edge its branch takes part of)."""
    whole = [
        f"road {road.id} of tile {t.index} ({t.face_id})"
        for t, edge in narrow
        if t.face is not None and t.face.layout is not None
        for road in t.face.layout.roads
        if edge in (road.from_edge, road.to_edge) and edge not in (road.slots or {})
    ]
    take = f"drive {' or '.join(whole)}, which takes" if whole else "use a road that takes"
    return (
        "A branch of a junction takes only some of the lanes of its edge; the others lead "
        f"into another road of the junction: {take} every lane of the edge, or another tile."
    )


def _check_meeting(
    prev: PlacedTile, tile: PlacedTile, findings: list[Finding], *, closing: bool = False
) -> bool:
    """BOARD-1: the previous exit must face this tile's entry, with equal lanes and (GT)
    skew edges of the same hand (section 5.7). ``closing``: the last tile of a circuit
    meeting the first (it does face it).

    Returns whether the roads miss each other (an S102 finding was added).
    """
    d = hexgrid.direction_between(prev.hex, tile.hex)
    loc = tile.location()
    if prev.road is None or tile.road is None or prev.face is None or tile.face is None:
        return False
    if not closing and (d is None or d != prev.exit_world):
        where = "is not next to" if d is None else "does not sit on the road end of"
        findings.append(
            finding(
                "S102",
                f"tile {tile.index} ({tile.face_id}) {where} tile {prev.index} "
                f"({prev.face_id}): the road has a gap",
                loc,
            )
        )
        return True
    if not closing and tile.entry_world != hexgrid.opposite(d or 0):
        findings.append(
            finding(
                "S102",
                f"tile {tile.index} ({tile.face_id}) is turned so that its road does not "
                f"meet tile {prev.index} ({prev.face_id})",
                loc,
            )
        )
        return True
    lanes_out = prev.face.lanes.get(prev.road.exit)
    lanes_in = tile.face.lanes.get(tile.road.entry)
    slots_out = _slots_taken(prev, prev.road.exit, lanes_out)
    slots_in = _slots_taken(tile, tile.road.entry, lanes_in)
    width = lanes_out or 0
    if lanes_out != lanes_in or {width + 1 - s for s in slots_in} != slots_out:
        # rule: BOARD-1 (the lanes that meet are those of the roads driven: a branch of a
        # junction takes some of its edge's lanes, the others lead into another road)
        sides = (
            (prev, prev.road.exit, slots_out, lanes_out),
            (tile, tile.road.entry, slots_in, lanes_in),
        )
        narrow = [(t, e) for t, e, taken, n in sides if n is not None and len(taken) < n]
        branch = [
            f"road {t.road_id} of {t.face_id} takes {len(taken)} of the {n} lanes of its edge"
            for t, _e, taken, n in sides
            if n is not None and len(taken) < n
        ]
        n_out = len(slots_out) if lanes_out is not None else lanes_out
        n_in = len(slots_in) if lanes_in is not None else lanes_in
        findings.append(
            finding(
                "S104",
                f"{n_out} {'lane' if n_out == 1 else 'lanes'} of tile {prev.index} "
                f"({prev.face_id}) {'meets' if n_out == 1 else 'meet'} {n_in} "
                f"{'lane' if n_in == 1 else 'lanes'} of tile {tile.index} ({tile.face_id})"
                + (f" ({'; '.join(branch)})" if branch else ""),
                loc,
                fix=_branch_fix(narrow) if narrow else None,
            )
        )
    skew_out = prev.face.skews.get(prev.road.exit)
    skew_in = tile.face.skews.get(tile.road.entry)
    if skew_out != skew_in:  # rule: BOARD-1 (skewL meets skewL, skewR skewR: section 5.7)

        def hand(skew: object, t: PlacedTile, edge: int) -> str:
            what = getattr(skew, "value", None) or "straight"
            return f"the {what} edge {edge} of tile {t.index} ({t.face_id})"

        findings.append(
            finding(
                "S128",
                f"{hand(skew_out, prev, prev.road.exit)} meets "
                f"{hand(skew_in, tile, tile.road.entry)}",
                loc,
            )
        )
    return False
