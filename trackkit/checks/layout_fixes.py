"""Fixes made for placement findings: the tile ids probably meant, the turn that meets.

:func:`trackkit.stage.assemble.lay_out` reports what cannot be placed as findings; those about
a tile id or a rotation carry a fix made here (:func:`add_fixes`): the ids probably meant
(:func:`trackkit.formats.suggest.close_tile_ids`, narrowed to the faces whose road would
meet the neighbours: :func:`fitting_faces`) and the turn that makes two roads meet
(:func:`turn_to_meet`, said by :func:`turn_fix`). :mod:`trackkit.checks.structure`
makes the same kinds of fix for its own findings with these functions.

Examples
--------
>>> from trackkit.stage.assemble import lay_out
>>> from trackkit.models import Stage
>>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "205a", "at": [1, 0], "dir": 1}]})
>>> lay_out(stage).findings[0].fix
'Turn tile 2 (205a) at [1, 0] by one step anticlockwise (dir 1 -> 0): its road then \
meets tile 1 (202a).'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trackkit.formats.suggest import close_tile_ids, unknown_tile_fix
from trackkit.models.findings import Fix, FixEdit
from trackkit.models.tile import TileFace
from trackkit.road import hexgrid
from trackkit.road.spaces import face_roads
from trackkit.tiles.library import TileLibrary

if TYPE_CHECKING:
    from trackkit.stage.assemble import Layout, PlacedTile

__all__ = [
    "MAX_ID_EDITS",
    "add_fixes",
    "faces_back",
    "fitting_faces",
    "road_ends",
    "tile_id_edits",
    "turn_fix",
    "turn_to_meet",
    "turn_words",
]


def add_fixes(
    layout: Layout,
    lib: TileLibrary,
    unknown: list[tuple[int, PlacedTile]],
    misses: list[tuple[int, PlacedTile, PlacedTile]],
) -> None:
    """Fixes made for one finding each: the ids meant for unknown tiles (``unknown``: the
    index of each S101 finding and its tile), a turn for a miss (``misses``: each S102
    finding's index and the two tiles that miss).

    Both look at the tiles around, so :func:`trackkit.stage.assemble.lay_out` makes them once
    every tile is placed.
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
