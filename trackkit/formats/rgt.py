"""Files of the official Windows track editor (``.rgt``).

``{"Path", "Name", "Author", "Tuiles": [{"X", "Y", "Orientation", "TuileId", "Tokens"}]}`` with
offset coordinates ``X``, ``Y`` (converted with :func:`trackkit.hexgrid.offset_to_axial`, and
back exactly, so hexes do not shift) and ``Orientation`` in trackkit's rotation convention.
Face ids are written upper case (``205A``) and read lower case.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import Field, ValidationError

from trackkit import hexgrid
from trackkit.errors import InputError
from trackkit.formats.source import Document, StageSource, validation_message
from trackkit.formats.tokens import rgt_token_id, token_from_id
from trackkit.formats.walk import EditorModel, Placement, editor_stage
from trackkit.library import TileLibrary
from trackkit.models.stage import MAX_STAGE_TILES, Stage

__all__ = ["RgtFile", "RgtTile", "RgtToken", "dump_rgt", "read_rgt"]

_COORD = 50_000


class RgtToken(EditorModel):
    """A token on a tile (its position and angle on the tile are not used)."""

    TokenId: str = Field(min_length=1, max_length=80, description="Token id, e.g. climbr2.")


class RgtTile(EditorModel):
    """A tile of an ``.rgt`` file."""

    X: int = Field(ge=-_COORD, le=_COORD, description="Offset column.")
    Y: int = Field(ge=-_COORD, le=_COORD, description="Offset row.")
    Orientation: int = Field(default=0, ge=-_COORD, le=_COORD, description="Rotation (mod 6).")
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
            tokens=[token_from_id(k.TokenId) for k in t.Tokens or ()],
        )
        for t in rgt.Tuiles
    ]
    return editor_stage(doc, "rgt", placements, name=rgt.Name, author=rgt.Author, library=library)


def dump_rgt(stage: Stage, placements: Sequence[Placement]) -> str:
    """``.rgt`` JSON of a stage's placed tiles (see :func:`trackkit.convert.placements`)."""
    tiles: list[dict[str, Any]] = []
    shift = _editor_shift(placements[0].hex) if placements else (0, 0)
    for t in placements:
        x, y = hexgrid.axial_to_offset((t.hex[0] + shift[0], t.hex[1] + shift[1]))
        tile: dict[str, Any] = {
            "X": x,
            "Y": y,
            "Orientation": t.dir % 6,
            "TuileId": t.tile.upper(),
        }
        if t.tokens:
            tile["Tokens"] = [
                {"X": 0.0, "Y": 0.0, "Orientation": 0.0, "TokenId": rgt_token_id(k)}
                for k in t.tokens
            ]
        tiles.append(tile)
    doc = {"Path": "", "Name": stage.name, "Author": stage.author, "Tuiles": tiles}
    return json.dumps(doc, indent=3, ensure_ascii=False) + "\n"


#: Where the official editor puts a new map's first tile (its own samples start there).
EDITOR_ORIGIN = (54, 52)


def _editor_shift(first: hexgrid.Hex) -> hexgrid.Hex:
    """Axial shift that puts the first tile at the editor's origin (the map moves whole)."""
    target = hexgrid.offset_to_axial(*EDITOR_ORIGIN)
    return (target[0] - first[0], target[1] - first[1])
