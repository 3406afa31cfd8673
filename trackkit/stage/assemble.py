"""Lay a stage out on the hex grid: auto-snap in driving order, or explicit placement.

Laying out never raises for a bad stage: what cannot be placed is reported as findings
(unknown tile, wrong turn, tiles that do not meet, lane counts), and the rest is still
laid out so that one pass reports every problem. Tiles marked ``driven: false`` lie where
their ``at``/``dir`` put them and are never chained (:attr:`Layout.undriven`). Each tile
chained is checked against the one before (BOARD-1, :mod:`trackkit.road.meeting`). Findings
about a tile id or a rotation carry a fix made for them (:mod:`trackkit.checks.layout_fixes`):
the ids probably meant (:func:`trackkit.formats.suggest.close_tile_ids`, narrowed to the
faces whose road would meet the neighbours) and the turn that makes two roads meet
(:func:`turn_to_meet`).

A DIRT face (sections) and a GT face (lanes) are driven the way the same road choice
says (:func:`_choose_road`): the road named (GT faces name their roads), ``enter``,
``turn``, ``climb``, the start/finish line, else the first road end.

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

from trackkit.checks.catalogue import finding
from trackkit.checks.layout_fixes import (
    add_fixes,
    faces_back,
    fitting_faces,
    road_ends,
    tile_id_edits,
    turn_fix,
    turn_to_meet,
    turn_words,
)
from trackkit.errors import TileLibraryError
from trackkit.models.findings import Finding, FixEdit, Location
from trackkit.models.stage import (
    DEFAULT_LAPS,
    MAX_TILE_TOKENS,
    Kind,
    Stage,
    StageTile,
    TileToken,
)
from trackkit.models.tile import FaceKind, TileFace
from trackkit.road import hexgrid
from trackkit.road.geometry import DEFAULT_TILE_SIZE_MM, centre_line, road_turn
from trackkit.road.meeting import check_meeting
from trackkit.road.spaces import DrivenRoad, drive, face_roads, start_entry
from trackkit.stage.track_tokens import place_tokens
from trackkit.tiles.library import TileLibrary, default_library, ruleset_data

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


def _turn_of(face: TileFace, entry: int, exit_: int) -> str | None:
    """The way a road of ``face`` driven from ``entry`` to ``exit_`` turns, as ``turn``
    names it: by its ends, but a DIRT road that is no bend or hairpin (an S-bend, a kink)
    by its first corner."""
    road = face.road
    if road is not None and road.shape.value not in ("bend", "hairpin"):
        turns = drive(face, entry).corner_turns
        return turns[0] if turns else None
    return road_turn(entry, exit_)


def _named(face: TileFace, spec: StageTile) -> str | None:
    """The road ``spec`` names: read on a face described per lane (GT), whose roads have
    ids; a DIRT face has one road, and its ``road`` is not read."""
    return spec.road if face.layout is not None else None


def _line_decides(face: TileFace, spec: StageTile, first: bool) -> bool:
    """Whether the face's start/finish line decides the way it is driven: it has one, and
    the tile starts the road or names no road (a later visit of a GT start/finish piece
    drives the road it names)."""
    return start_entry(face) is not None and (first or _named(face, spec) is None)


def _free_choice(face: TileFace, spec: StageTile, first: bool) -> bool:
    """Whether nothing says which way ``face`` is driven: no ``enter``, ``turn`` or
    ``climb``, and no start line whose direction decides it."""
    if spec.enter is not None or spec.turn is not None or spec.climb is not None:
        return False
    if face.road is None and face.layout is None:
        return False
    return not _line_decides(face, spec, first)


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


@dataclass(frozen=True, slots=True)
class _Choice:
    """The way a tile is driven: its entry edge and road, and what was wrong."""

    entry: int
    road: str
    problem: str | None = None
    code: str = "S103"
    """The code of ``problem``: S103 (a spec that cannot be met), S130 (no road named so)."""
    ambiguous: bool = False
    """A junction leaves the road open (S129)."""


def _choose_road(
    face: TileFace, spec: StageTile, first: bool, used: frozenset[str] = frozenset()
) -> _Choice:
    """The entry edge and road of ``face`` that ``spec`` asks for, when nothing else (the
    tile before) decides: the road named (GT), then ``enter``, ``turn`` or ``climb``, then
    the start/finish line, else the first road from its first end. The roads of the piece
    not driven yet (``used``) come first.
    """
    every = face_roads(face)
    roads = [r for r in every if r[0] not in used] or every
    rid, e0, e1 = roads[0]
    lanes = face.layout is not None  # ids and ends said as each face format says them
    named = _named(face, spec)
    if named is not None:
        roads = [r for r in roads if r[0] == named]
        if not roads:
            have = ", ".join(r[0] for r in every)
            return _Choice(e0, rid, f"{face.id} has no road {named} (roads: {have})", "S130")
        rid, e0, e1 = roads[0]
    if spec.enter is not None:
        at = [r for r in roads if spec.enter in r[1:]]
        if at:
            return _Choice(spec.enter, at[0][0], ambiguous=named is None and len(at) > 1)
        ends = sorted({e for r in roads for e in r[1:]}) if lanes else (e0, e1)
        return _Choice(e0, rid, f"edge {spec.enter} is not a road end of {face.id} (ends: {ends})")
    if spec.turn is not None:
        for r, a, b in roads:
            for entry, exit_ in ((a, b), (b, a)):
                if _turn_of(face, entry, exit_) == spec.turn:
                    return _Choice(entry, r)
        bends = lanes or _turn_of(face, e0, e1) is not None
        what = "cannot turn that way" if bends else "does not bend"
        return _Choice(e0, rid, f"{face.id} {what}: 'turn: {spec.turn}' cannot be met")
    if spec.climb is not None:
        if face.road is None or face.road.climb is None:
            return _Choice(e0, rid, f"{face.id} is not a climb face: 'climb: {spec.climb}' ignored")
        for entry in (e0, e1):
            if drive(face, entry).climb == spec.climb:
                return _Choice(entry, rid)
    if _line_decides(face, spec, first):
        for r, _a, _b in roads:
            lined = start_entry(face, r)
            if lined is not None:
                return _Choice(lined, r)
    shared = named is None and sum(1 for r in every if e0 in r[1:]) > 1
    return _Choice(e0, rid, ambiguous=shared)


def _road_at(
    face: TileFace, spec: StageTile, edge: int, used: frozenset[str]
) -> tuple[str | None, str | None, bool]:
    """The road of a face (placed, or met again) whose end is local ``edge``.

    Returns ``(road, problem, ambiguous)``: the roads not driven yet on this piece first;
    ``road: X`` decides between several (a GT junction); without it, the first (S129).
    """
    roads = [r for r in face_roads(face) if edge in r[1:]]
    free = [r for r in roads if r[0] not in used] or roads
    named = _named(face, spec)
    if named is not None:
        if any(r[0] == named for r in roads):
            return named, None, False
        have = ", ".join(r[0] for r in roads) or "none"
        return (
            (free[0][0] if free else None),
            (
                f"road {named} of {face.id} has no end at the edge facing the previous tile "
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

    Each tile is placed in one of four ways, by what its line says
    (:meth:`_Walk.lay`): not driven (:meth:`_Walk.undriven_tile`), beside the road
    (:func:`_place_beside`), on the road where ``at``/``dir`` put it
    (:meth:`_Walk.explicit`) or snapped onto the previous tile's exit
    (:meth:`_Walk.snapped`); a tile on the road is then driven and chained
    (:meth:`_Walk.chain_tile`).
    """
    walk = _Walk(library or default_library())
    for pos, spec in enumerate(stage.tiles, start=1):
        walk.lay(pos, spec)
    chain = walk.chain
    series: Series = stage.ruleset or _series(chain, walk.scenery, walk.undriven, walk.found)
    layout = Layout(
        stage,
        chain,
        walk.scenery,
        walk.findings,
        size,
        walk.undriven,
        series,
        frozenset(walk.found),
    )
    if layout.circuit and layout.closes:
        check_meeting(chain[-1], chain[0], walk.findings, closing=True)
    add_fixes(layout, walk.lib, walk.unknown, walk.misses)
    _place_tokens(layout)
    _one_line_per_piece(chain)
    return layout


@dataclass(slots=True)
class _Placed:
    """Where a tile of the road goes and how it is driven (:meth:`_Walk.explicit`,
    :meth:`_Walk.snapped`)."""

    hex: hexgrid.Hex
    rotation: int
    entry: int | None = None
    road: str | None = None
    again: PlacedTile | None = None
    """The tile of the chain this one drives again (a GT piece, on another of its roads)."""
    ambiguous: bool = False
    """A junction left the road open (S129)."""
    free: bool = False
    """Nothing said which way it is driven (S140)."""

    def take(self, choice: _Choice) -> None:
        """Drive it as ``choice`` says."""
        self.entry, self.road, self.ambiguous = choice.entry, choice.road, choice.ambiguous


@dataclass(slots=True)
class _Walk:
    """The tiles laid so far, in file order, and what was found on the way."""

    lib: TileLibrary
    findings: list[Finding] = field(default_factory=list)
    chain: list[PlacedTile] = field(default_factory=list)
    scenery: list[PlacedTile] = field(default_factory=list)
    undriven: list[PlacedTile] = field(default_factory=list)
    unknown: list[tuple[int, PlacedTile]] = field(default_factory=list)
    """S101 findings (their index) and their tiles: their fix needs every tile."""
    misses: list[tuple[int, PlacedTile, PlacedTile]] = field(default_factory=list)
    """S102 findings and the two tiles that miss, likewise."""
    found: set[str] = field(default_factory=set)
    """The series of the known faces (scenery aside)."""

    @property
    def prev(self) -> PlacedTile | None:
        """The tile driven last."""
        return self.chain[-1] if self.chain else None

    def lay(self, pos: int, spec: StageTile) -> None:
        """Place the tile of line ``pos`` the way its line asks (:func:`lay_out`)."""
        face = self.lib.get(spec.tile)
        if face is not None and face.kind is not FaceKind.SCENERY:
            self.found.add(face.series)  # scenery belongs to no rules: it never mixes series
        here = Location(tile=spec.tile, path=f"tiles[{pos - 1}]")
        has_road = (
            face is not None
            and face.kind is FaceKind.ROAD
            and (face.road is not None or face.is_gt_road)
        )
        placed = spec.at is not None and spec.dir is not None
        if not spec.driven and placed and (face is None or has_road):
            self.undriven.append(self.undriven_tile(pos, spec, face))
            return
        s101 = len(self.findings)
        where = here.model_copy(update={"tile_index": len(self.chain) + 1})
        if face is None:
            self.findings.append(finding("S101", f"unknown tile '{spec.tile}'", where))
        elif not has_road:
            beside = _place_beside(pos, spec, face, self.prev, self.findings, here)
            if beside is not None:
                self.scenery.append(beside)
            return
        way = self.explicit(spec, face, where) if placed else self.snapped(spec, face, where)
        self.chain_tile(pos, spec, face, way, s101)

    def undriven_tile(self, pos: int, spec: StageTile, face: TileFace | None) -> PlacedTile:
        """A road tile (or an unknown id) with ``driven: false``: it stays where it is
        put, its road driven the way its spec says (for its tokens)."""
        assert spec.at is not None and spec.dir is not None
        placed = PlacedTile(pos, spec.tile, face, spec.at, spec.dir, list(spec.tokens))
        if face is not None:
            choice = _choose_road(face, spec, first=False)
            placed.road = drive(face, choice.entry, choice.road)
        else:
            self.unknown.append((len(self.findings), placed))
            self.findings.append(finding("S101", f"unknown tile '{spec.tile}'", placed.location()))
        return placed

    def explicit(self, spec: StageTile, face: TileFace | None, where: Location) -> _Placed:
        """A tile of the road on the hex and turn its ``at``/``dir`` give: driven on the
        road whose end faces the tile before, else as its spec says."""
        assert spec.at is not None and spec.dir is not None
        h, rot = (spec.at[0], spec.at[1]), spec.dir
        way = _Placed(h, rot)
        if face is None:
            return way
        prev = self.prev
        if face.layout is not None:
            way.again = _driven_before(self.chain, face, h, rot)
        used = _used(self.chain, way.again)
        d = None if prev is None else hexgrid.direction_between(h, prev.hex)
        if d is not None:
            local = hexgrid.local_edge(d, rot)
            road, problem, way.ambiguous = _road_at(face, spec, local, used)
            if problem:
                self.findings.append(finding("S130", problem, where.model_copy(update={"hex": h})))
            if road is not None:
                way.entry, way.road = local, road
        if way.entry is None:
            way.free = _free_choice(face, spec, prev is None)
            way.take(self.choose(face, spec, where.model_copy(update={"hex": h}), used))
        return way

    def snapped(self, spec: StageTile, face: TileFace | None, where: Location) -> _Placed:
        """A tile of the road snapped onto the previous tile's exit (after an unknown tile,
        as if its road ran straight across), turned so that its road meets it: a GT piece
        already driven there is driven again, on another of its roads."""
        prev = self.prev
        d_in = None if prev is None else prev.exit_world
        if prev is None:
            h = (0, 0)
        elif d_in is None:
            h = hexgrid.neighbour(prev.hex, hexgrid.opposite(prev.rotation))
        else:
            h = hexgrid.neighbour(prev.hex, d_in)
        way = _Placed(h, 0)
        if face is None or d_in is None:
            if face is None and d_in is not None:
                way.rotation = hexgrid.opposite(d_in) % 6  # unknown tile: a straight road
            elif face is not None:
                way.free = _free_choice(face, spec, prev is None)
                way.take(self.choose(face, spec, where.model_copy(update={"hex": h})))
            return way
        if face.layout is not None:
            way.again = _driven_before(self.chain, face, h, None)
        if way.again is not None:
            way.rotation = way.again.rotation
            local = hexgrid.local_edge(hexgrid.opposite(d_in), way.rotation)
            road, problem, way.ambiguous = _road_at(face, spec, local, _used(self.chain, way.again))
            if problem:
                self.findings.append(finding("S130", problem, where.model_copy(update={"hex": h})))
            if road is not None:
                way.entry, way.road = local, road
            else:
                way.again = None  # no road of the piece there: the tiles overlap (S105)
        if way.entry is None:
            way.free = _free_choice(face, spec, prev is None)
            way.take(self.choose(face, spec, where.model_copy(update={"hex": h})))
            assert way.entry is not None
            way.rotation = (hexgrid.opposite(d_in) - way.entry) % 6
        return way

    def choose(
        self,
        face: TileFace,
        spec: StageTile,
        where: Location,
        used: frozenset[str] = frozenset(),
    ) -> _Choice:
        """:func:`_choose_road` for the tile being placed, its problem found ``where``."""
        choice = _choose_road(face, spec, self.prev is None, used)
        if choice.problem:
            self.findings.append(finding(choice.code, choice.problem, where))
        return choice

    def chain_tile(
        self, pos: int, spec: StageTile, face: TileFace | None, way: _Placed, s101: int
    ) -> None:
        """Drive the tile placed ``way`` and add it to the chain; check that it meets the
        tile before (BOARD-1), say when nothing chose its turn (S140) or its road (S129).
        ``s101``: the index its S101 finding has, for an unknown tile."""
        index = len(self.chain) + 1
        prev = self.prev
        placed = PlacedTile(pos, spec.tile, face, way.hex, way.rotation, list(spec.tokens), index)
        placed.visit_of = way.again
        snapped = spec.at is None or spec.dir is None
        placed.guessed = snapped and prev is not None and (prev.face is None or prev.guessed)
        if face is not None and way.entry is not None:
            placed.road = drive(face, way.entry, way.road)
            if way.free and index > 1:
                note = _turn_note(placed)
                if note is not None:
                    self.findings.append(note)
            if way.ambiguous:
                self.findings.append(_junction_note(placed, face, way.entry, way.road, pos))
        elif face is None:
            self.unknown.append((s101, placed))
        self.chain.append(placed)
        # after a guess, a miss may be the guess's
        if prev is not None and not prev.guessed and check_meeting(prev, placed, self.findings):
            self.misses.append((len(self.findings) - 1, prev, placed))


def _junction_note(
    placed: PlacedTile, face: TileFace, entry: int, road: str | None, pos: int
) -> Finding:
    """S129: a junction's roads begin at the edge entered by, and one was taken."""
    others = [r[0] for r in face_roads(face) if entry in r[1:] and r[0] != road]
    return finding(
        "S129",
        f"{face.id} is a junction: roads {', '.join([road or '?', *others])} "
        f"begin at edge {entry}; road {road} is taken",
        placed.location(),
        edits=[
            FixEdit(
                label=f"take road {r} of {face.id}",
                path=f"tiles[{pos - 1}]",
                values={"road": r},
            )
            for r in [road, *others]
            if r is not None
        ],
    )


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
    :mod:`trackkit.stage.track_tokens`), so the graph, the rules and the drawing all see them.
    """
    for tile in layout.tiles:
        if len(tile.tokens) > MAX_TILE_TOKENS:
            del tile.tokens[MAX_TILE_TOKENS:]
        if tile.road is not None and tile.tokens:
            tile.road = place_tokens(tile.road, tile.tokens)


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
