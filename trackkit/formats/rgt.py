"""Files of the official Windows track editor (``.rgt``).

``{"Path", "Name", "Author", "Tuiles": [{"X", "Y", "Orientation", "TuileId", "Tokens"}]}`` with
offset coordinates ``X``, ``Y`` (converted with :func:`trackkit.road.hexgrid.offset_to_axial`, and
back exactly, so hexes do not shift) and ``Orientation`` in trackkit's rotation convention.
Face ids are written upper case (``205A``) and read lower case. Tokens keep their place on
the tile (``X``, ``Y``) and their ``Orientation`` (degrees), converted to and from the
native ``at`` and ``dir`` by :func:`trackkit.formats.tokens.axial_offset` (whose notes say
what is assumed about the editor's axes and unit).

Coordinates: a tile's ``X``, ``Y`` are read when its hex lies on the map, within
:data:`~trackkit.formats.walk.MAP_RANGE` of ``[0, 0]`` on both axial axes, the range of a
native stage. The editor lays its tiles out on a canvas far from ``[0, 0]`` (its first
tile at ``X`` 54, ``Y`` 52, i.e. hex ``[-80, 52]``): the stage's tile places are read
relative to its first tile, which stands on ``[0, 0]`` (when the whole map stays on it that
way), and :attr:`~trackkit.formats.source.StageSource.origin` keeps where that was, so that
a stage read from an ``.rgt`` file is written back with every tile where it was read.
Other stages are written with their first tile where the editor puts a new map's first
tile, when the whole map stays on it that way (else the hexes are written as they are). So
every stage that lays out on the map converts to an ``.rgt`` file that reads back.

Examples
--------
>>> from trackkit.formats import parse_source, parse_stage
>>> tiles = '[{"X": 55, "Y": 52, "TuileId": "202A"}, {"X": 56, "Y": 52, "TuileId": "205A"}]'
>>> text = '{"Name": "x", "Tuiles": ' + tiles + '}'
>>> source = parse_source(text, file="two.rgt")
>>> [t.at for t in source.stage.tiles], source.origin
([(0, 0), (-1, 0)], (-81, 52))
>>> text = '{"Name": "x", "Tuiles": [{"X": -150000, "Y": 100000, "TuileId": "902A"}]}'
>>> parse_stage(text, file="edge.rgt").tiles[0].at
(0, 0)
>>> parse_stage(text.replace("-150000", "-150001"), file="far.rgt")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
trackkit.errors.InputError: far.rgt: .rgt file: Tuiles[0]: X -150001, Y 100000 is hex ...
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from pydantic import Field, ValidationError

from trackkit.errors import InputError
from trackkit.formats.source import Document, StageSource, validation_message
from trackkit.formats.tokens import (
    MAX_RGT_DEGREES,
    MAX_RGT_OFFSET,
    axial_offset,
    rgt_degrees,
    rgt_offset,
    rgt_token_id,
    token_from_id,
)
from trackkit.formats.walk import MAP_RANGE, EditorModel, Placement, check_on_map, editor_stage
from trackkit.models.stage import MAX_STAGE_TILES, Stage, Surface, TileToken
from trackkit.road import hexgrid
from trackkit.tiles.library import TileLibrary, default_library

__all__ = ["RgtFile", "RgtTile", "RgtToken", "dump_rgt", "read_rgt"]

#: Offsets of hexes on the map: Y is the axial r; X is -q - r/2 (rounded), so it reaches
#: half a map further. The exact test, the hex on the map, follows the conversion.
_Y_RANGE = MAP_RANGE
_X_RANGE = MAP_RANGE + MAP_RANGE // 2 + 1


class RgtToken(EditorModel):
    """A token on a tile, where it lies and how it is turned (in the tile's frame)."""

    TokenId: str = Field(min_length=1, max_length=80, description="Token id, e.g. climbr2.")
    X: float = Field(
        default=0.0,
        ge=-MAX_RGT_OFFSET,
        le=MAX_RGT_OFFSET,
        allow_inf_nan=False,
        description="Offset from the tile's centre (tile corner radii).",
    )
    Y: float = Field(
        default=0.0,
        ge=-MAX_RGT_OFFSET,
        le=MAX_RGT_OFFSET,
        allow_inf_nan=False,
        description="Offset from the tile's centre (tile corner radii).",
    )
    Orientation: float = Field(
        default=0.0,
        ge=-MAX_RGT_DEGREES,
        le=MAX_RGT_DEGREES,
        allow_inf_nan=False,
        description="Rotation on top of the tile's, degrees.",
    )


class RgtTile(EditorModel):
    """A tile of an ``.rgt`` file."""

    X: int = Field(ge=-_X_RANGE, le=_X_RANGE, description="Offset column.")
    Y: int = Field(ge=-_Y_RANGE, le=_Y_RANGE, description="Offset row.")
    Orientation: int = Field(
        default=0, ge=-MAP_RANGE, le=MAP_RANGE, description="Rotation (mod 6)."
    )
    TuileId: str = Field(
        min_length=1, max_length=40, pattern=r"\S", description="Face id, e.g. 205A."
    )
    Tokens: list[RgtToken] | None = Field(default=None, description="Tokens on the tile.")


class RgtFile(EditorModel):
    """A whole ``.rgt`` file."""

    Name: str | None = Field(default=None, max_length=200, description="Stage name.")
    Author: str | None = Field(default=None, max_length=200, description="Designer.")
    Tuiles: list[RgtTile] = Field(max_length=MAX_STAGE_TILES, description="Tiles, any order.")


def read_rgt(doc: Document, library: TileLibrary | None = None) -> StageSource:
    """A native stage (and its way back to the file's lines) from a parsed ``.rgt`` file."""
    try:
        rgt = RgtFile.model_validate(doc.data)
    except ValidationError as exc:
        raise InputError(
            doc.file, ".rgt file: " + validation_message(exc, doc.line_of, RgtFile)
        ) from None
    placements = [
        Placement(
            tile=t.TuileId.strip().lower(),
            hex=hexgrid.offset_to_axial(t.X, t.Y),
            dir=t.Orientation % 6,
            tokens=[_token(k) for k in t.Tokens or ()],
        )
        for t in rgt.Tuiles
    ]
    for n, (t, p) in enumerate(zip(rgt.Tuiles, placements, strict=True)):
        if not _on_map(p.hex):
            line = doc.line_of(("Tuiles", n))
            raise InputError(
                doc.file,
                f".rgt file: Tuiles[{n}]: X {t.X}, Y {t.Y} is hex [{p.hex[0]}, {p.hex[1]}], "
                f"beyond the map ({MAP_RANGE:,} hexes from [0, 0])"
                + (f" (line {line})" if line else ""),
            )
    source = editor_stage(doc, "rgt", placements, name=rgt.Name, author=rgt.Author, library=library)
    return _from_first_tile(source)


def _from_first_tile(source: StageSource) -> StageSource:
    """The stage with its tile places relative to its first tile (see the module notes)."""
    tiles = source.stage.tiles
    first = tiles[0].at if tiles else None
    if first is None or first == (0, 0):
        return source
    moved = [
        t if t.at is None else t.model_copy(update={"at": (t.at[0] - first[0], t.at[1] - first[1])})
        for t in tiles
    ]
    if not all(t.at is None or _on_map(t.at) for t in moved):
        return source  # a map wider than the range: its places as they are
    stage = source.stage.model_copy(update={"tiles": moved})
    return dataclasses.replace(source, stage=stage, origin=first)


def dump_rgt(
    stage: Stage, placements: Sequence[Placement], *, origin: hexgrid.Hex | None = None
) -> str:
    """``.rgt`` JSON of a stage's placed tiles (see :func:`trackkit.formats.write.placements`).

    ``origin``: the hex the stage's ``[0, 0]`` stands for in the file (the
    :attr:`~trackkit.formats.source.StageSource.origin` of a stage read from an ``.rgt``
    file: its tiles go back where they were read); None: the first tile goes where the
    editor puts a new map's first tile.

    Raises
    ------
    InputError
        If a tile lies beyond the map (:func:`~trackkit.formats.walk.check_on_map`).
    """
    check_on_map(stage, placements, "an .rgt file")
    tiles: list[dict[str, Any]] = []
    if origin is not None:
        shift = origin
    else:
        shift = _editor_shift(placements[0].hex) if placements else (0, 0)
    if not all(_on_map((t.hex[0] + shift[0], t.hex[1] + shift[1])) for t in placements):
        shift = (0, 0)  # moved, the map would leave the range a reader accepts
    for t in placements:
        x, y = hexgrid.axial_to_offset((t.hex[0] + shift[0], t.hex[1] + shift[1]))
        tile: dict[str, Any] = {
            "X": x,
            "Y": y,
            "Orientation": t.dir % 6,
            "TuileId": t.tile.upper(),
        }
        if t.tokens:
            surface = _surface(t.tile)
            tile["Tokens"] = [_written(k, surface) for k in t.tokens]
        tiles.append(tile)
    doc = {"Path": "", "Name": stage.name, "Author": stage.author, "Tuiles": tiles}
    return json.dumps(doc, indent=3, ensure_ascii=False) + "\n"


def _token(raw: RgtToken) -> TileToken:
    """An ``.rgt`` token as a native token, where it lies and how it is turned."""
    at = axial_offset(raw.X, raw.Y)
    return token_from_id(raw.TokenId).model_copy(update={"at": at, "dir": raw.Orientation / 60.0})


def _written(token: TileToken, surface: Surface) -> dict[str, Any]:
    x, y = rgt_offset(token.at) if token.at is not None else (0.0, 0.0)
    turn = rgt_degrees(token.dir or 0.0)
    return {"X": x, "Y": y, "Orientation": turn, "TokenId": rgt_token_id(token, surface)}


def _surface(face_id: str) -> Surface:
    """The surface of a face (for Copilot tokens written without one): gravel if unknown."""
    face = default_library().get(face_id)
    value = face.surface.value if face is not None else "gravel"
    return "asphalt" if value == "asphalt" else "snow" if value == "snow" else "gravel"


#: Where the official editor puts a new map's first tile (its own samples start there).
EDITOR_ORIGIN = (54, 52)


def _on_map(h: hexgrid.Hex) -> bool:
    return abs(h[0]) <= MAP_RANGE and abs(h[1]) <= MAP_RANGE


def _editor_shift(first: hexgrid.Hex) -> hexgrid.Hex:
    """Axial shift that puts the first tile at the editor's origin (the map moves whole)."""
    target = hexgrid.offset_to_axial(*EDITOR_ORIGIN)
    return (target[0] - first[0], target[1] - first[1])
