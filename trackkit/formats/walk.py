"""Editor files place tiles on hexes in any order: find the driving order by walking the road.

The walk starts at the start tile (a face whose road carries the start line). Its driving
direction is the road end that meets a neighbouring road (if both or neither end does, the
face's default start direction). From there it steps to the hex beyond each exit for as long as
the tile there has a road end facing back. The resulting :class:`Stage` lists the driven tiles
first, in order, each with explicit ``at``/``dir`` (the first also with ``enter``), then every
other tile (beside the road, or not reached) in file order, also with ``at``/``dir``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, ValidationError

from trackkit import hexgrid
from trackkit.errors import InputError
from trackkit.formats.source import Document, validation_message
from trackkit.library import TileLibrary, default_library
from trackkit.models.stage import Stage, StageTile, TileToken
from trackkit.models.tile import TileFace
from trackkit.spaces import start_entry

__all__ = ["EditorModel", "Placement", "driving_order", "stage_from_placements"]


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


def _ends(face: TileFace | None) -> tuple[int, int] | None:
    road = face.road if face is not None else None
    return None if road is None else (road.from_edge, road.to_edge)


def _is_start(face: TileFace | None) -> bool:
    road = face.road if face is not None else None
    return bool(road and road.start_finish and road.start_finish.kind == "start")


def driving_order(
    tiles: Sequence[Placement], faces: Sequence[TileFace | None]
) -> list[tuple[int, int]]:
    """``(index, local entry edge)`` of the tiles driven from the start tile, in order.

    Empty when no tile is a start tile.
    """
    by_hex: dict[hexgrid.Hex, int] = {}
    for i, t in enumerate(tiles):
        by_hex.setdefault(t.hex, i)

    def meets(i: int, world: int) -> tuple[int, int] | None:
        """The tile beyond tile ``i``'s side ``world`` whose road end faces back, and that end."""
        j = by_hex.get(hexgrid.neighbour(tiles[i].hex, world))
        if j is None or j == i:
            return None
        ends = _ends(faces[j])
        back = hexgrid.local_edge(hexgrid.opposite(world), tiles[j].dir)
        return (j, back) if ends is not None and back in ends else None

    start = next((i for i, f in enumerate(faces) if _is_start(f)), None)
    if start is None:
        return []
    face = faces[start]
    ends = _ends(face)
    assert face is not None and ends is not None
    rot = tiles[start].dir
    met = [meets(start, hexgrid.world_edge(e, rot)) is not None for e in ends]
    if met[0] != met[1]:
        exit_edge = ends[0] if met[0] else ends[1]
        entry = ends[1] if met[0] else ends[0]
    else:
        default = start_entry(face)
        entry = default if default in ends else ends[0]
        exit_edge = ends[1] if entry == ends[0] else ends[0]

    order = [(start, entry)]
    seen = {start}
    cur = start
    while True:
        nxt = meets(cur, hexgrid.world_edge(exit_edge, tiles[cur].dir))
        if nxt is None or nxt[0] in seen:
            break
        cur, entry = nxt
        seen.add(cur)
        order.append((cur, entry))
        ends = _ends(faces[cur])
        assert ends is not None
        exit_edge = ends[1] if entry == ends[0] else ends[0]
    return order


def stage_from_placements(
    tiles: Sequence[Placement],
    *,
    name: str,
    author: str,
    library: TileLibrary | None = None,
) -> Stage:
    """A native stage from an editor's placed tiles (see the module notes)."""
    lib = library or default_library()
    faces = [lib.get(t.tile) for t in tiles]
    order = driving_order(tiles, faces)
    driven = {i for i, _ in order}

    def spec(i: int, enter: int | None = None) -> StageTile:
        face, t = faces[i], tiles[i]
        return StageTile(
            tile=face.id if face is not None else t.tile,
            enter=enter,
            at=t.hex,
            dir=t.dir % 6,
            tokens=list(t.tokens),
        )

    out = [spec(i, entry if n == 0 else None) for n, (i, entry) in enumerate(order)]
    out += [spec(i) for i in range(len(tiles)) if i not in driven]
    return Stage(format="trackkit-stage/1", name=name, author=author, tiles=out)


def editor_stage(
    doc: Document,
    label: str,
    tiles: Sequence[Placement],
    *,
    name: str | None,
    author: str | None,
    library: TileLibrary | None = None,
) -> Stage:
    """The stage of an editor file (Rekee or ``.rgt``): its tiles in driving order.

    Raises
    ------
    InputError
        If a value the editor file allows is one a stage does not (``label`` names the
        format in the message).
    """
    try:
        return stage_from_placements(
            tiles,
            name=(name or "").strip() or "Untitled stage",
            author=author or "",
            library=library,
        )
    except ValidationError as exc:
        raise InputError(doc.file, f"{label}: " + validation_message(exc)) from None
