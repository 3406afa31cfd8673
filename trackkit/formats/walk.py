"""Editor files place tiles on hexes in any order: find the driving order by walking the road.

The walk starts at the start tile (a face whose road carries the start line). Its driving
direction is the road end that meets a neighbouring road (if both or neither end does, the
face's default start direction). Without a start tile it starts at an end of the road: a
tile with one road end that meets nothing, the first in file order (a finish only if no
other), entered by that end; failing that, at the first road tile. From there it steps to
the hex beyond each exit for as long as the tile there has a road end facing back.

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

from pydantic import BaseModel, ConfigDict, ValidationError

from trackkit import hexgrid
from trackkit.errors import InputError
from trackkit.formats.source import Document, StageSource, validation_message
from trackkit.library import TileLibrary, default_library
from trackkit.models.stage import Stage, StageTile, TileToken
from trackkit.models.tile import TileFace
from trackkit.spaces import start_entry

__all__ = [
    "MAP_RANGE",
    "EditorModel",
    "Placement",
    "check_on_map",
    "driving_order",
    "placed_stage",
    "stage_from_placements",
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
    return None if road is None else (road.from_edge, road.to_edge)


def _is_start(face: TileFace | None) -> bool:
    road = face.road if face is not None else None
    return bool(road and road.start_finish and road.start_finish.kind == "start")


def driving_order(
    tiles: Sequence[Placement], faces: Sequence[TileFace | None]
) -> list[tuple[int, int]]:
    """``(index, local entry edge)`` of the tiles driven, in order, from where the walk starts.

    Empty when the walk has nowhere to start (see the module notes).
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

    origin = _origin(tiles, faces, meets)
    if origin is None:
        return []
    start, entry = origin
    ends = _ends(faces[start])
    assert ends is not None
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


def _origin(
    tiles: Sequence[Placement],
    faces: Sequence[TileFace | None],
    meets: Callable[[int, int], tuple[int, int] | None],
) -> tuple[int, int] | None:
    """Where the walk starts: ``(index, local entry edge)``, or None if nowhere."""
    start = next((i for i, f in enumerate(faces) if _is_start(f)), None)
    if start is not None:
        face = faces[start]
        ends = _ends(face)
        assert face is not None and ends is not None
        met = [meets(start, hexgrid.world_edge(e, tiles[start].dir)) is not None for e in ends]
        if met[0] != met[1]:
            return start, ends[1] if met[0] else ends[0]
        default = start_entry(face)
        return start, default if default in ends else ends[0]
    # no start tile (a wrong id, or none drawn): start at an end of the road, else at the
    # first road tile (a lone tile, or a closed loop)
    choices: list[tuple[bool, bool, int, int]] = []
    for i, face in enumerate(faces):
        ends = _ends(face)
        if ends is None:
            continue
        met = [meets(i, hexgrid.world_edge(e, tiles[i].dir)) is not None for e in ends]
        finish = bool(face and face.road and face.road.start_finish)
        if met[0] != met[1]:
            choices.append((False, finish, i, ends[1] if met[0] else ends[0]))
        else:
            choices.append((True, finish, i, ends[0]))
    if not choices:
        return None
    *_, i, entry = min(choices)
    return i, entry


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
    order = driving_order(tiles, faces)
    driven = {i for i, _ in order}

    def spec(i: int, enter: int | None = None) -> StageTile:
        face, t = faces[i], tiles[i]
        # a road the walk did not reach (or a face nobody knows) is placed, not driven
        reached = not order or i in driven or (face is not None and face.road is None)
        return StageTile(
            tile=face.id if face is not None else t.tile,
            enter=enter,
            at=t.hex,
            dir=t.dir % 6,
            tokens=list(t.tokens),
            driven=reached,
        )

    items = [i for i, _ in order] + [i for i in range(len(tiles)) if i not in driven]
    out = [spec(i, order[0][1] if order and i == order[0][0] else None) for i in items]
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
