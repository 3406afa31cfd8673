"""Rekee web editor files: ``{"title", "author", "tiles": [{"q", "r", "id", "dir", "tokens"}]}``.

Axial ``q``, ``r`` and ``dir`` follow trackkit's own convention, so hexes and rotations are
read and written as they are, and so are the tokens' places on their tiles (``q``, ``r``:
axial offsets from the tile's centre in tile widths, in the tile's frame; ``dir``: sixths of
a turn on top of the tile's, fractions allowed). The editor draws a token at
``tile.pos + token.pos.rotate(tile.dir)``, turned by ``tile.dir + token.dir``: the native
``at`` and ``dir`` of :class:`~trackkit.models.stage.TileToken`. A token without a place is
written at the tile's centre, unturned (the writer is handed Copilot track tokens already
placed, see :func:`trackkit.formats.write.placements`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import Field, ValidationError

from trackkit.errors import InputError
from trackkit.formats.source import Document, StageSource, validation_message
from trackkit.formats.tokens import (
    MAX_TOKEN_OFFSET,
    MAX_TOKEN_TURN,
    rekee_token_id,
    token_from_id,
)
from trackkit.formats.walk import MAP_RANGE, EditorModel, Placement, check_on_map, editor_stage
from trackkit.models.stage import MAX_STAGE_TILES, Stage, TileToken
from trackkit.tiles.library import TileLibrary

__all__ = ["RekeeFile", "RekeeTile", "RekeeToken", "dump_rekee", "looks_like_rekee", "read_rekee"]

_COORD = MAP_RANGE


class RekeeToken(EditorModel):
    """A token on a Rekee tile, where it lies and how it is turned."""

    id: str = Field(min_length=1, max_length=80, description="Rekee token id, e.g. oxygen-2.")
    q: float = Field(
        default=0.0,
        ge=-MAX_TOKEN_OFFSET,
        le=MAX_TOKEN_OFFSET,
        allow_inf_nan=False,
        description="Axial offset from the tile's centre, tile widths, tile frame.",
    )
    r: float = Field(
        default=0.0,
        ge=-MAX_TOKEN_OFFSET,
        le=MAX_TOKEN_OFFSET,
        allow_inf_nan=False,
        description="Axial offset from the tile's centre, tile widths, tile frame.",
    )
    dir: float = Field(
        default=0.0,
        ge=-MAX_TOKEN_TURN,
        le=MAX_TOKEN_TURN,
        allow_inf_nan=False,
        description="Rotation on top of the tile's, sixths of a turn.",
    )


class RekeeTile(EditorModel):
    """A tile of a Rekee file."""

    q: int = Field(ge=-_COORD, le=_COORD, description="Axial column.")
    r: int = Field(ge=-_COORD, le=_COORD, description="Axial row.")
    id: str = Field(
        min_length=1, max_length=40, pattern=r"\S", description="Face id, e.g. 205b or 103a-2."
    )
    dir: int = Field(default=0, ge=-_COORD, le=_COORD, description="Rotation (taken mod 6).")
    tokens: list[RekeeToken] | None = Field(default=None, description="Tokens on the tile.")


class RekeeFile(EditorModel):
    """A whole Rekee file."""

    title: str | None = Field(default=None, max_length=200, description="Stage name.")
    author: str | None = Field(default=None, max_length=200, description="Designer.")
    tiles: list[RekeeTile] = Field(max_length=MAX_STAGE_TILES, description="Tiles, any order.")


def looks_like_rekee(data: dict[str, Any]) -> bool:
    """Whether a mapping without a ``format`` key is a Rekee file."""
    tiles = data.get("tiles")
    if not isinstance(tiles, list):
        return "title" in data and "tiles" in data
    if not tiles:
        return True
    first = tiles[0]
    return isinstance(first, dict) and "tile" not in first and bool({"q", "r", "id"} & set(first))


def read_rekee(doc: Document, library: TileLibrary | None = None) -> StageSource:
    """A native stage (and its way back to the file's lines) from a parsed Rekee file."""
    try:
        rekee = RekeeFile.model_validate(doc.data)
    except ValidationError as exc:
        raise InputError(
            doc.file, "Rekee file: " + validation_message(exc, doc.line_of, RekeeFile)
        ) from None
    placements = [
        Placement(
            tile=t.id.strip(),
            hex=(t.q, t.r),
            dir=t.dir % 6,
            tokens=[_token(k) for k in t.tokens or ()],
        )
        for t in rekee.tiles
    ]
    return editor_stage(
        doc, "rekee", placements, name=rekee.title, author=rekee.author, library=library
    )


def _token(raw: RekeeToken) -> TileToken:
    """A Rekee token as a native token, where it lies and how it is turned."""
    return token_from_id(raw.id).model_copy(update={"at": (raw.q, raw.r), "dir": raw.dir})


def _written(token: TileToken) -> dict[str, Any]:
    q, r = token.at or (0.0, 0.0)
    return {"id": rekee_token_id(token), "q": q, "r": r, "dir": token.dir or 0.0}


def dump_rekee(stage: Stage, placements: Sequence[Placement]) -> str:
    """Rekee JSON of a stage's placed tiles (see :func:`trackkit.formats.write.placements`).

    Raises
    ------
    InputError
        If a tile lies beyond the map (:func:`~trackkit.formats.walk.check_on_map`).
    """
    check_on_map(stage, placements, "a Rekee file")
    tiles = [
        {
            "q": t.hex[0],
            "r": t.hex[1],
            "id": t.tile,
            "dir": t.dir % 6,
            "tokens": [_written(k) for k in t.tokens],
        }
        for t in placements
    ]
    doc = {"title": stage.name, "author": stage.author, "tiles": tiles}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
