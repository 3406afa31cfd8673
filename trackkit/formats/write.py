"""Writing stages in any format, editor formats included (they need tiles placed).

This module sits above the placement layer: it lays the stage out and hands the placed
tiles to the editor writers of :mod:`trackkit.formats`, which never place tiles themselves.

Examples
--------
>>> from trackkit.formats import parse_stage
>>> stage = parse_stage('{"format": "trackkit-stage/1", "tiles": [{"tile": "202a"}]}')
>>> '"TuileId": "202A"' in dump_stage(stage, "rgt")
True
"""

from __future__ import annotations

from pathlib import Path
from typing import get_args

from trackkit.formats.files import StageFormat, format_for_path, write_text_atomic
from trackkit.formats.native import dump_native
from trackkit.formats.rekee import dump_rekee
from trackkit.formats.rgt import dump_rgt
from trackkit.formats.walk import Placement
from trackkit.models.stage import Stage, TileToken
from trackkit.stage.assemble import PlacedTile, lay_out
from trackkit.tiles.library import TileLibrary, art_variant

__all__ = ["dump_stage", "placements", "save_stage"]


def placements(stage: Stage, library: TileLibrary | None = None) -> list[Placement]:
    """Every tile of ``stage`` as laid out (driving order, then beside the road).

    A Copilot track token without ``at`` gets the place trackkit plays it at (the row
    :mod:`trackkit.stage.track_tokens` chose), so that an editor shows it there. A face id keeps
    its art variant (``103a-2``).
    """
    layout = lay_out(stage, library)
    return [Placement(_written_id(t), t.hex, t.rotation, _placed_tokens(t)) for t in layout.tiles]


def _written_id(tile: PlacedTile) -> str:
    """The face id to write: the library's spelling, with the art variant read (``103a-2``)."""
    return tile.face.id + art_variant(tile.raw_id) if tile.face else tile.raw_id


def _placed_tokens(tile: PlacedTile) -> list[TileToken]:
    tokens = list(tile.tokens)
    for spot in tile.road.tokens if tile.road is not None else ():
        tok = tokens[spot.index]
        if tok.at is None and spot.at is not None:
            tokens[spot.index] = tok.model_copy(update={"at": spot.at, "dir": spot.dir})
    return tokens


def dump_stage(
    stage: Stage,
    fmt: StageFormat,
    *,
    library: TileLibrary | None = None,
    origin: tuple[int, int] | None = None,
) -> str:
    """The text of ``stage`` in format ``fmt``.

    Editor formats (``rekee``, ``rgt``) need positions: the stage is laid out and every
    placed tile is written with its hex and rotation. They do not keep ``kind``,
    ``ruleset`` or ``boxes``, nor tiles that cannot be placed at all. ``origin``: for
    ``rgt``, where the stage's ``[0, 0]`` goes on the editor's map (the ``origin`` of the
    :class:`~trackkit.formats.source.StageSource` of a stage read from an ``.rgt`` file,
    so that its tiles go back where they were; see :func:`~trackkit.formats.rgt.dump_rgt`).
    """
    if fmt == "native-yaml":
        return dump_native(stage, "yaml")
    if fmt == "native-json":
        return dump_native(stage, "json")
    if fmt == "rekee":
        return dump_rekee(stage, placements(stage, library))
    if fmt == "rgt":
        return dump_rgt(stage, placements(stage, library), origin=origin)
    raise ValueError(f"unknown stage format {fmt!r} (one of {', '.join(get_args(StageFormat))})")


def save_stage(
    stage: Stage,
    path: str | Path,
    fmt: StageFormat | None = None,
    *,
    library: TileLibrary | None = None,
) -> None:
    """Write ``stage`` to ``path`` atomically, in ``fmt`` or the format its name asks for."""
    write_text_atomic(path, dump_stage(stage, fmt or format_for_path(path), library=library))
