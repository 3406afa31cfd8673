"""Editor files place tiles on hexes in any order: find the driving order by walking the road.

The walk starts at the start tile (a face whose road carries the start line). Its driving
direction is the road end that meets a neighbouring road (if both or neither end does, the
face's default start direction); a Rallyman: GT start/finish face is driven the way its
grid faces (the race direction), and of several GT start/finish faces the start is the
first whose grid faces into the road, whatever the file order (a point-to-point track's
finish faces out of it). Without a start tile it starts at an end of the road: a
tile with one road end that meets nothing, the first in file order (a finish only if no
other), entered by that end; failing that, at the first road tile. From there it steps to
the hex beyond each exit for as long as the tile there has a road end facing back, on a
road of that tile not driven yet: a GT tile whose roads cross is met twice (once on each
road), and a GT circuit ends where it comes back to its start. Where several roads of a
GT tile begin at the edge met (a junction), the walk takes the one that closes the lap
(or reaches the finish of a point-to-point track) on roads not driven yet, and writes it
as ``road``; when both do, it takes the first in the face's order and leaves ``road``
out, so that laying the track out says which was taken (S129); when neither does, the
first that leads on to a tile facing back.

The resulting :class:`Stage` lists the driven tiles first, in order, each with explicit
``at``/``dir`` (the first also with ``enter``), then every other tile in file order, also with
``at``/``dir``. Of these, the ones with a road (or an unknown id) are the tiles the walk could
not reach: they get ``driven: false``, so that the assembler leaves them where they are
instead of chaining them after the driven ones (one break is one finding, not a gap between
every pair of them). Tiles without a road (scenery, service area) stand beside the road as
usual. A file without a single road tile the library knows keeps its file order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import networkx as nx
from pydantic import BaseModel, ConfigDict, ValidationError

from trackkit.errors import InputError
from trackkit.formats.source import Document, StageSource, validation_message
from trackkit.models.stage import Stage, StageTile, TileToken
from trackkit.models.tile import TileFace
from trackkit.road import hexgrid
from trackkit.road.spaces import face_roads, start_entry
from trackkit.tiles.library import TileLibrary, art_variant, default_library

__all__ = [
    "MAP_RANGE",
    "EditorModel",
    "Placement",
    "check_on_map",
    "driving_order",
    "placed_stage",
    "stage_from_placements",
    "walk_roads",
]

#: Hexes of a map lie within +-MAP_RANGE on both axial axes: the range of a native tile's
#: ``at`` (``trackkit.models.stage``) and of the editor files' coordinates, so that a stage
#: converted to an editor file reads back.
MAP_RANGE = 100_000


class EditorModel(BaseModel):
    """Base of the editor file models (Rekee, ``.rgt``): unknown keys are ignored.

    The editors write more than a stage needs (``lowResWidth``, ...).
    """

    model_config = ConfigDict(extra="ignore", frozen=True)


@dataclass(slots=True)
class Placement:
    """One tile of an editor file: its id as written, hex and rotation."""

    tile: str
    hex: hexgrid.Hex
    dir: int
    tokens: list[TileToken] = field(default_factory=list)


def check_on_map(stage: Stage, placements: Sequence[Placement], label: str) -> None:
    """Refuse to write an editor file (``label``) with a hex beyond :data:`MAP_RANGE`.

    A native stage may place a tile at the edge of the map and chain tiles beyond it; an
    editor file of that could not be read back.

    Raises
    ------
    InputError
        Naming the stage, the tile and its hex.
    """
    for n, t in enumerate(placements):
        if max(abs(t.hex[0]), abs(t.hex[1])) > MAP_RANGE:
            raise InputError(
                stage.name,
                f"cannot be written as {label}: tile {n + 1} ({t.tile}) lies at hex "
                f"[{t.hex[0]}, {t.hex[1]}], beyond the map's {MAP_RANGE:,} hexes from "
                "[0, 0] (place the stage nearer to [0, 0])",
            )


def _ends(face: TileFace | None) -> tuple[int, int] | None:
    road = face.road if face is not None else None
    if road is not None:
        return (road.from_edge, road.to_edge)
    roads = face_roads(face) if face is not None else []
    return None if not roads else (roads[0][1], roads[0][2])


def _roads(face: TileFace | None) -> list[tuple[str, int, int]]:
    return face_roads(face) if face is not None else []


def _is_start(face: TileFace | None) -> bool:
    if face is not None and face.layout is not None:
        return bool(face.layout.start_finish)
    road = face.road if face is not None else None
    return bool(road and road.start_finish and road.start_finish.kind == "start")


#: One step of the walk: (index in the file, local entry edge, road id on the face).
WalkStep = tuple[int, int, str]


def driving_order(
    tiles: Sequence[Placement], faces: Sequence[TileFace | None]
) -> list[tuple[int, int]]:
    """``(index, local entry edge)`` of the tiles driven, in order, from where the walk starts.

    Empty when the walk has nowhere to start (see the module notes). A GT tile whose
    roads cross is listed once per road driven (:func:`walk_roads` gives the roads).
    """
    return [(i, entry) for i, entry, _road in walk_roads(tiles, faces)]


def walk_roads(tiles: Sequence[Placement], faces: Sequence[TileFace | None]) -> list[WalkStep]:
    """``(index, local entry edge, road)`` of the tiles driven, in order (see the notes)."""
    return _walk(tiles, faces)[0]


#: A state of the walk: a tile (its index in the file) driven on one road from one end.
_State = tuple[int, str, int]
#: Where every state that ends the walk well leads (see :func:`_closing`).
_DONE: _State = (-1, "", -1)


def _walk(
    tiles: Sequence[Placement], faces: Sequence[TileFace | None]
) -> tuple[list[WalkStep], set[int]]:
    """The walk (:func:`walk_roads`), and the steps at a junction left open: both of its
    roads that begin at the edge met close the lap (or reach the finish), and the walk
    takes the first, as laying the tile out without ``road`` does (S129)."""
    by_hex: dict[hexgrid.Hex, int] = {}
    for i, t in enumerate(tiles):
        by_hex.setdefault(t.hex, i)

    def beyond(i: int, world: int) -> tuple[int, int] | None:
        """The tile beyond tile ``i``'s side ``world``, and its local edge facing back."""
        j = by_hex.get(hexgrid.neighbour(tiles[i].hex, world))
        if j is None or j == i:
            return None
        return j, hexgrid.local_edge(hexgrid.opposite(world), tiles[j].dir)

    def meets(i: int, world: int) -> tuple[int, int] | None:
        """The tile beyond tile ``i``'s side ``world`` whose road end faces back, and that end."""
        hit = beyond(i, world)
        if hit is None:
            return None
        j, back = hit
        return hit if any(back in r[1:] for r in _roads(faces[j])) else None

    origin = _origin(tiles, faces, meets)
    if origin is None:
        return [], set()
    start, entry, road = origin
    used: dict[int, set[str]] = {start: {road}}
    order: list[WalkStep] = [(start, entry, road)]
    left_open: set[int] = set()
    closing: Callable[[_State], bool] | None = None
    cur, exit_edge = start, _other_end(faces[start], road, entry)
    while True:
        hit = meets(cur, hexgrid.world_edge(exit_edge, tiles[cur].dir))
        if hit is None:
            break
        j, back = hit
        if (j, back) == (start, entry):
            break  # a circuit: back at the start
        free = [r for r in _roads(faces[j]) if back in r[1:] and r[0] not in used.get(j, set())]
        if not free:
            break
        pick = free[0][0]
        if len(free) > 1:  # a junction: the road that closes the lap
            if closing is None:
                closing = _closing(tiles, faces, meets, origin, used)
            closes = [rid for rid, _e0, _e1 in free if closing((j, rid, back))]
            if len(closes) > 1 and closes[0] == pick:
                left_open.add(len(order))
            pick = closes[0] if closes else _lead_on(free, j, back, tiles, faces, meets, used)
        used.setdefault(j, set()).add(pick)
        order.append((j, back, pick))
        cur, exit_edge = j, _other_end(faces[j], pick, back)
    return order, left_open


def _closing(
    tiles: Sequence[Placement],
    faces: Sequence[TileFace | None],
    meets: Callable[[int, int], tuple[int, int] | None],
    origin: tuple[int, int, str],
    used: dict[int, set[str]],
) -> Callable[[_State], bool]:
    """Whether the walk, from a state on, can end well on roads not driven yet (``used``,
    read at each call): back at the start's entry (a lap), or on the line of another GT
    start/finish face driven the way its grid faces (a point-to-point track's finish).

    The states and the steps between them are a networkx DiGraph; each question is a
    reachability query on the view of it without the roads driven.
    """
    start, entry, _road = origin
    g: nx.DiGraph = nx.DiGraph()
    for i, face in enumerate(faces):
        finish = (
            set(_gt_lines(face))
            if i != start and face is not None and face.layout is not None and _is_start(face)
            else set()
        )
        for rid, e0, e1 in _roads(face):
            for into, out in ((e0, e1), (e1, e0)):
                state = (i, rid, into)
                g.add_node(state)
                if (i == start and into == entry) or (into, rid) in finish:
                    g.add_edge(state, _DONE)
                hit = meets(i, hexgrid.world_edge(out, tiles[i].dir))
                if hit is not None:
                    j, back = hit
                    for r2, f0, f1 in _roads(faces[j]):
                        if back in (f0, f1):
                            g.add_edge(state, (j, r2, back))

    def free(state: _State) -> bool:
        i, rid, into = state
        return state == _DONE or (i == start and into == entry) or rid not in used.get(i, ())

    view = nx.subgraph_view(g, filter_node=free)
    return lambda state: nx.has_path(view, state, _DONE)


def _other_end(face: TileFace | None, road: str, entry: int) -> int:
    for rid, e0, e1 in _roads(face):
        if rid == road:
            return e1 if entry == e0 else e0
    raise ValueError(f"no road {road}")  # pragma: no cover - roads come from the face


def _lead_on(
    free: list[tuple[str, int, int]],
    j: int,
    back: int,
    tiles: Sequence[Placement],
    faces: Sequence[TileFace | None],
    meets: Callable[[int, int], tuple[int, int] | None],
    used: dict[int, set[str]],
) -> str:
    """Of the roads of tile ``j`` that begin at ``back``, the first that leads on to a tile
    facing back with a road not driven yet (a junction's choice), else the first."""
    for rid, e0, e1 in free:
        far = e1 if back == e0 else e0
        hit = meets(j, hexgrid.world_edge(far, tiles[j].dir))
        if hit is None:
            continue
        k, edge = hit
        if any(edge in r[1:] and r[0] not in used.get(k, set()) for r in _roads(faces[k])):
            return rid
    return free[0][0]


def _origin(
    tiles: Sequence[Placement],
    faces: Sequence[TileFace | None],
    meets: Callable[[int, int], tuple[int, int] | None],
) -> tuple[int, int, str] | None:
    """Where the walk starts: ``(index, local entry edge, road)``, or None if nowhere."""
    starts = [i for i, f in enumerate(faces) if _is_start(f)]
    for i in starts:  # a GT start is a face whose grid faces into the road (file order aside)
        face = faces[i]
        found = _gt_origin(i, face, tiles, meets) if face and face.layout else None
        if found is not None:
            return found
    start = starts[0] if starts else None
    if start is not None:
        face = faces[start]
        assert face is not None
        if face.layout is not None:
            entry, rid = _gt_lines(face)[0]  # no grid faces a road: its first line
            return start, entry, rid
        ends = _ends(face)
        assert ends is not None
        met = [meets(start, hexgrid.world_edge(e, tiles[start].dir)) is not None for e in ends]
        if met[0] != met[1]:
            return start, ends[1] if met[0] else ends[0], "A"
        default = start_entry(face)
        return start, default if default in ends else ends[0], "A"
    # no start tile (a wrong id, or none drawn): start at an end of the road, else at the
    # first road tile (a lone tile, or a closed loop)
    choices: list[tuple[bool, bool, int, int, str]] = []
    for i, face in enumerate(faces):
        roads = _roads(face)
        if not roads:
            continue
        rid, e0, e1 = roads[0]
        met = [meets(i, hexgrid.world_edge(e, tiles[i].dir)) is not None for e in (e0, e1)]
        finish = bool(face and face.road and face.road.start_finish)
        if met[0] != met[1]:
            choices.append((False, finish, i, e1 if met[0] else e0, rid))
        else:
            choices.append((True, finish, i, e0, rid))
    if not choices:
        return None
    *_, i, entry, rid = min(choices)
    return i, entry, rid


def _gt_lines(face: TileFace) -> list[tuple[int, str]]:
    """``(local entry edge, road)`` of each line of a GT start/finish face, driven the way
    its grid faces."""
    assert face.layout is not None
    ends = {rid: (e0, e1) for rid, e0, e1 in face_roads(face)}
    out: list[tuple[int, str]] = []
    for sf in face.layout.start_finish:
        e0, e1 = ends[sf.road]
        out.append((e0 if sf.race_toward == e1 else e1, sf.road))
    return out


def _gt_origin(
    start: int,
    face: TileFace,
    tiles: Sequence[Placement],
    meets: Callable[[int, int], tuple[int, int] | None],
) -> tuple[int, int, str] | None:
    """A GT start/finish face: the road of its line driven the way its grid faces, if
    that leads on to a tile facing back (the first such, if its face has two lines); None
    if none does (a point-to-point track's finish)."""
    ends = {rid: (e0, e1) for rid, e0, e1 in face_roads(face)}
    for entry, rid in _gt_lines(face):
        far = ends[rid][1] if entry == ends[rid][0] else ends[rid][0]
        if meets(start, hexgrid.world_edge(far, tiles[start].dir)) is not None:
            return start, entry, rid
    return None


def placed_stage(
    tiles: Sequence[Placement],
    *,
    name: str,
    author: str,
    library: TileLibrary | None = None,
) -> tuple[Stage, list[int]]:
    """A native stage from an editor's placed tiles, and each stage tile's place in ``tiles``.

    See the module notes for the order and for ``driven: false``.

    Raises
    ------
    pydantic.ValidationError
        If a value the editor file allows is one a stage does not.
    """
    lib = library or default_library()
    faces = [lib.get(t.tile) for t in tiles]
    order, left_open = _walk(tiles, faces)
    driven = {i for i, _e, _r in order}

    def spec(
        i: int, enter: int | None = None, road: str | None = None, again: bool = False
    ) -> StageTile:
        face, t = faces[i], tiles[i]
        # a road the walk did not reach (or a face nobody knows) is placed, not driven
        roads = _roads(face)
        reached = not order or i in driven or (face is not None and not roads)
        return StageTile(
            tile=face.id + art_variant(t.tile) if face is not None else t.tile,
            enter=enter,
            at=t.hex,
            dir=t.dir % 6,
            tokens=[] if again else list(t.tokens),  # a piece met again keeps its tokens once
            road=road if len(roads) > 1 else None,
            driven=reached,
        )

    out: list[StageTile] = []
    items: list[int] = []
    met: set[int] = set()
    for n, (i, entry, road) in enumerate(order):
        # a junction whose roads both close the lap is left open: S129 says which is taken
        out.append(
            spec(i, entry if n == 0 else None, None if n in left_open else road, again=i in met)
        )
        items.append(i)
        met.add(i)
    for i in range(len(tiles)):
        if i not in driven:
            out.append(spec(i))
            items.append(i)
    return Stage(format="trackkit-stage/1", name=name, author=author, tiles=out), items


def stage_from_placements(
    tiles: Sequence[Placement],
    *,
    name: str,
    author: str,
    library: TileLibrary | None = None,
) -> Stage:
    """A native stage from an editor's placed tiles (see :func:`placed_stage`)."""
    return placed_stage(tiles, name=name, author=author, library=library)[0]


def editor_stage(
    doc: Document,
    fmt: Literal["rekee", "rgt"],
    tiles: Sequence[Placement],
    *,
    name: str | None,
    author: str | None,
    library: TileLibrary | None = None,
) -> StageSource:
    """The stage of an editor file (Rekee or ``.rgt``): its tiles in driving order.

    Raises
    ------
    InputError
        If a value the editor file allows is one a stage does not.
    """
    label = "Rekee file" if fmt == "rekee" else ".rgt file"
    try:
        stage, items = placed_stage(
            tiles,
            name=(name or "").strip() or "Untitled stage",
            author=author or "",
            library=library,
        )
    except ValidationError as exc:
        raise InputError(doc.file, f"{label}: " + validation_message(exc)) from None
    keys = ("tiles", "tokens") if fmt == "rekee" else ("Tuiles", "Tokens")
    return StageSource(stage, doc, fmt, tuple(items), *keys)
