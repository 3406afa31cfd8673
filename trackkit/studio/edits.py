"""What the page may ask of the stage: edits, each a small pydantic model, never a file.

Every edit names tiles by their place in the stage's tile list (``tile``, from 0, as a
finding's ``tiles[N]`` path does) and turns the stage into a new one (:func:`apply`);
the session keeps the old one for undo. Unknown keys, wrong types and values the stage
file would refuse are errors with a message, never a crash.

Examples
--------
>>> from trackkit.studio import engine
>>> stage = engine.new_stage("dirt")
>>> for face in ("202a", "205a", "203a"):
...     stage = apply(Place(face=face, end="exit"), engine.check(stage))
>>> [t.tile for t in stage.tiles], engine.check(stage).report.valid
(['202a', '205a', '203a'], True)
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, JsonValue, TypeAdapter

from trackkit.checks.fixes import EditError, apply_edit, set_values, valid_stage
from trackkit.models.base import StrictModel
from trackkit.models.findings import FixEdit
from trackkit.models.stage import MAX_STAGE_TILES, MAX_TILE_TOKENS, Stage, TokenKind
from trackkit.models.tile import FaceKind
from trackkit.road import hexgrid
from trackkit.stage.assemble import PlacedTile
from trackkit.studio import engine

__all__ = [
    "AddToken",
    "ApplyFix",
    "Delete",
    "Edit",
    "EditError",
    "Flip",
    "Move",
    "Place",
    "RemoveToken",
    "Rotate",
    "SetField",
    "apply",
    "parse_edit",
]

_TileIndex = Annotated[int, Field(ge=0, lt=MAX_STAGE_TILES, strict=True)]
_Hex = tuple[
    Annotated[int, Field(ge=-1000, le=1000, strict=True)],
    Annotated[int, Field(ge=-1000, le=1000, strict=True)],
]


class Place(StrictModel):
    """Put a face on the map: at an open road end (snapped and turned to meet the road, as
    ``trackkit``'s layout does), or on an empty hex (beside the road, or not driven)."""

    op: Literal["place"] = Field(default="place", description="The edit.")
    face: str = Field(min_length=1, max_length=40, description="Face id from the library.")
    end: Literal["exit", "entry"] | None = Field(
        default=None,
        description="exit: after the last tile of the road; entry: before the first. Left "
        "out, the face goes on the hex 'at'.",
    )
    at: _Hex | None = Field(default=None, description="An empty hex [q, r] (without 'end').")


class Rotate(StrictModel):
    """Turn a tile: a tile placed by hand turns on its hex; a tile snapped onto the road
    takes the other way through it (the other end first, another road of a GT face)."""

    op: Literal["rotate"] = Field(default="rotate", description="The edit.")
    tile: _TileIndex = Field(description="Place of the tile in the stage's list, from 0.")
    steps: int = Field(ge=-5, le=5, strict=True, description="Sixths of a turn, + clockwise.")


class Flip(StrictModel):
    """Turn the piece over: the other face of the same piece, in the same place."""

    op: Literal["flip"] = Field(default="flip", description="The edit.")
    tile: _TileIndex = Field(description="Place of the tile in the stage's list, from 0.")


class Move(StrictModel):
    """Put a tile on another hex (it is then placed by hand there, turned as it is)."""

    op: Literal["move"] = Field(default="move", description="The edit.")
    tile: _TileIndex = Field(description="Place of the tile in the stage's list, from 0.")
    to: _Hex = Field(description="The hex [q, r].")


class Delete(StrictModel):
    """Take a tile off the stage."""

    op: Literal["delete"] = Field(default="delete", description="The edit.")
    tile: _TileIndex = Field(description="Place of the tile in the stage's list, from 0.")


class AddToken(StrictModel):
    """Put a token on a tile (climb, oxygen, cloud, mud, or a Copilot track token)."""

    op: Literal["add_token"] = Field(default="add_token", description="The edit.")
    tile: _TileIndex = Field(description="Place of the tile in the stage's list, from 0.")
    token: TokenKind = Field(description="The token's kind.")
    value: int | None = Field(default=None, ge=-9, le=9, description="Its value, if it has one.")


class RemoveToken(StrictModel):
    """Take a token off a tile."""

    op: Literal["remove_token"] = Field(default="remove_token", description="The edit.")
    tile: _TileIndex = Field(description="Place of the tile in the stage's list, from 0.")
    index: int = Field(ge=0, lt=MAX_TILE_TOKENS * 4, description="The token's place on it.")


class SetField(StrictModel):
    """Set one of the stage's own keys (null removes it)."""

    op: Literal["set"] = Field(default="set", description="The edit.")
    field: Literal["name", "author", "kind", "laps", "ruleset", "boxes"] = Field(
        description="The stage key."
    )
    value: JsonValue = Field(description="Its new value, as a stage file writes it.")


class ApplyFix(StrictModel):
    """Apply a finding's mechanical fix (its *Apply* button)."""

    op: Literal["fix"] = Field(default="fix", description="The edit.")
    edit: FixEdit = Field(description="One of the finding's edits, as the findings list it.")


Edit = Annotated[
    Place | Rotate | Flip | Move | Delete | AddToken | RemoveToken | SetField | ApplyFix,
    Field(discriminator="op"),
]
_EDIT: TypeAdapter[Edit] = TypeAdapter(Edit)


def parse_edit(data: Any) -> Edit:
    """An edit from the page's JSON.

    Raises
    ------
    pydantic.ValidationError
        For anything that is not one of the edits.
    """
    return _EDIT.validate_python(data)


def _spec(stage: Stage, n: int) -> dict[str, Any]:
    if n >= len(stage.tiles):
        raise EditError(f"the stage has no tile {n + 1} (it has {len(stage.tiles)})")
    return stage.tiles[n].model_dump(mode="json", exclude_unset=True)


def _valid(data: dict[str, Any]) -> Stage:
    return valid_stage(data)


def _placed(checked: engine.Checked, n: int) -> PlacedTile | None:
    for t in checked.layout.tiles:
        if t.position - 1 == n:
            return t
    return None


def _orientations(face_id: str) -> list[dict[str, Any]]:
    """The ways a snapped tile can be driven through: each road end first (and on a GT
    face, each road), as the keys that ask for it."""
    face = engine.library().get(face_id)
    if face is None:
        return []
    roads = engine.face_roads(face)
    out: list[dict[str, Any]] = []
    for rid, e0, e1 in roads:
        for entry in (e0, e1):
            keys: dict[str, Any] = {"enter": entry}
            if len(roads) > 1:
                keys["road"] = rid
            out.append(keys)
    return out


def _errors(stage: Stage) -> int:
    """How many layout problems a stage has (the measure of a new tile's fit)."""
    layout = engine.lay_out(stage)
    overlaps = len(layout.tiles) - len(layout.by_hex())
    return len(layout.findings) + overlaps


def _place(edit: Place, checked: engine.Checked) -> Stage:
    stage = checked.stage
    face = engine.library().get(edit.face)
    if face is None:
        raise EditError(f"unknown tile {edit.face[:40]!r} ('trackkit tiles' lists them)")
    tiles = [t.model_dump(mode="json", exclude_unset=True) for t in stage.tiles]
    layout = checked.layout
    if edit.end is None:
        if edit.at is None:
            raise EditError("place a tile at a road end ('end') or on a hex ('at')")
        spec: dict[str, Any] = {"tile": face.id, "at": list(edit.at), "dir": 0}
        if face.kind is FaceKind.ROAD and layout.chain:
            spec["driven"] = False  # lies on the map; the road runs elsewhere
        return _valid({**_own(stage), "tiles": [*tiles, spec]})
    if face.kind is not FaceKind.ROAD:
        raise EditError(f"{face.id} has no road: put it on a hex beside the road")
    chain = layout.chain
    if edit.end == "exit" or not chain:
        where = chain[-1].position if chain else len(tiles)
        # a bend is written with the way it turns (left first), so that the file says it
        # (S140 notes a bend laid one way without it); a straight needs no key
        options = [{}, {"turn": "left"}, {"turn": "right"}, *_orientations(face.id)]
        best = None
        for extra in options:
            trial = [*tiles[:where], {"tile": face.id, **extra}, *tiles[where:]]
            candidate = _valid({**_own(stage), "tiles": trial})
            score = _errors(candidate)
            if best is None or score < best[0]:
                best = (score, candidate)
        assert best is not None
        return best[1]
    # before the first tile: the new tile is placed by hand on the hex beyond the entry,
    # turned so that one of its road ends faces it; the old first tile stays where it is
    first = chain[0]
    if first.entry_world is None:
        raise EditError(f"tile 1 ({first.face_id}) has no road end to meet")
    h = hexgrid.neighbour(first.hex, first.entry_world)
    toward = hexgrid.opposite(first.entry_world)
    head = dict(tiles[first.position - 1])
    head.update({"at": list(first.hex), "dir": first.rotation})
    rest = [t for i, t in enumerate(tiles) if i != first.position - 1]
    best = None
    for keys in _orientations(face.id):
        roads = {r[0]: (r[1], r[2]) for r in engine.face_roads(face)}
        e0, e1 = roads[keys.get("road", next(iter(roads)))]
        exit_ = e1 if keys["enter"] == e0 else e0
        rot = (toward - exit_) % 6
        spec = {"tile": face.id, "at": list(h), "dir": rot, **keys}
        candidate = _valid({**_own(stage), "tiles": [spec, head, *rest]})
        score = _errors(candidate)
        if best is None or score < best[0]:
            best = (score, candidate)
    if best is None:
        raise EditError(f"{face.id} has no road")
    return best[1]


def _own(stage: Stage) -> dict[str, Any]:
    data = stage.model_dump(mode="json", exclude_unset=True)
    data.pop("tiles", None)
    return data


def _rotate(edit: Rotate, checked: engine.Checked) -> Stage:
    stage = checked.stage
    spec = _spec(stage, edit.tile)
    placed = _placed(checked, edit.tile)
    first = placed is not None and placed.index == 1
    if spec.get("at") is not None or placed is None or placed.index is None or first:
        rot = placed.rotation if placed is not None else int(spec.get("dir") or 0)
        at = list(placed.hex) if placed is not None else spec.get("at")
        return set_values(stage, f"tiles[{edit.tile}]", {"at": at, "dir": (rot + edit.steps) % 6})
    ways = _orientations(spec["tile"])
    if not ways or placed.road is None:
        raise EditError(f"tile {placed.index} ({placed.face_id}) cannot be turned")
    now = next(
        (
            i
            for i, w in enumerate(ways)
            if w["enter"] == placed.road.entry and w.get("road", placed.road_id) == placed.road_id
        ),
        0,
    )
    way = ways[(now + (1 if edit.steps > 0 else -1)) % len(ways)]
    values: dict[str, Any] = {"turn": None, "climb": None, "enter": way["enter"]}
    if "road" in way:
        values["road"] = way["road"]
    return set_values(stage, f"tiles[{edit.tile}]", values)


def _flip(edit: Flip, checked: engine.Checked) -> Stage:
    spec = _spec(checked.stage, edit.tile)
    other = engine.flip_face(spec["tile"])
    if other is None:
        raise EditError(f"{spec['tile']} has no other face in the library")
    values: dict[str, Any] = {"tile": other}
    face = engine.library().get(other)
    roads = engine.face_roads(face) if face is not None else []
    ends = {e for r in roads for e in r[1:]}
    if spec.get("enter") is not None and spec["enter"] not in ends:
        values["enter"] = None
    if spec.get("road") is not None and spec["road"] not in {r[0] for r in roads}:
        values["road"] = None
    if spec.get("climb") is not None and not (face and any(r.climb for r in face.roads)):
        values["climb"] = None
    return set_values(checked.stage, f"tiles[{edit.tile}]", values)


def _move(edit: Move, checked: engine.Checked) -> Stage:
    spec = _spec(checked.stage, edit.tile)
    placed = _placed(checked, edit.tile)
    rot = placed.rotation if placed is not None else int(spec.get("dir") or 0)
    return set_values(checked.stage, f"tiles[{edit.tile}]", {"at": list(edit.to), "dir": rot})


def _delete(edit: Delete, checked: engine.Checked) -> Stage:
    stage = checked.stage
    _spec(stage, edit.tile)
    data = stage.model_dump(mode="json", exclude_unset=True)
    del data["tiles"][edit.tile]
    return _valid(data)


def _add_token(edit: AddToken, checked: engine.Checked) -> Stage:
    spec = _spec(checked.stage, edit.tile)
    token: dict[str, Any] = {"token": edit.token.value}
    if edit.value is not None:
        token["value"] = edit.value
    tokens = [*spec.get("tokens", []), token]
    return set_values(checked.stage, f"tiles[{edit.tile}]", {"tokens": tokens})


def _remove_token(edit: RemoveToken, checked: engine.Checked) -> Stage:
    spec = _spec(checked.stage, edit.tile)
    tokens = list(spec.get("tokens", []))
    if edit.index >= len(tokens):
        raise EditError(f"tile {edit.tile + 1} has no token {edit.index + 1}")
    del tokens[edit.index]
    return set_values(checked.stage, f"tiles[{edit.tile}]", {"tokens": tokens or None})


def apply(edit: Edit, checked: engine.Checked) -> Stage:
    """The stage after ``edit`` (``checked``: the stage now, validated).

    Raises
    ------
    EditError
        For an edit that does not fit the stage (a tile it does not have, a value its
        file would refuse), with a message for the page.
    """
    if isinstance(edit, Place):
        return _place(edit, checked)
    if isinstance(edit, Rotate):
        return _rotate(edit, checked)
    if isinstance(edit, Flip):
        return _flip(edit, checked)
    if isinstance(edit, Move):
        return _move(edit, checked)
    if isinstance(edit, Delete):
        return _delete(edit, checked)
    if isinstance(edit, AddToken):
        return _add_token(edit, checked)
    if isinstance(edit, RemoveToken):
        return _remove_token(edit, checked)
    if isinstance(edit, SetField):
        value = edit.value if edit.value != "" or edit.field in ("name", "author") else None
        return set_values(checked.stage, "", {edit.field: value})
    return apply_edit(checked.stage, edit.edit)
