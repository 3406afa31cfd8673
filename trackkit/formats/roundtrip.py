"""What a conversion keeps: a stage written in a format, read back and compared item by item.

``trackkit convert`` must never change what a stage means without saying so. Rather than
list by hand what each format can hold, :func:`conversion_losses` reads the text about to
be written back, lays both stages out and names every difference: a token whose value
the format cannot hold (``oxygen -5`` in an editor file reads back as a plain
``oxygen``), the stage's kind, boxes, ruleset (when its tiles do not say the same) or a
circuit's laps, a tile that moves, turns, loses its art variant (``103a-2``), is driven
otherwise or is left out. It adds what reading the source already dropped: the comments of
a YAML file, the places of tokens on an editor file's tiles and the keys of an editor file
that trackkit does not read.

This module sits above the validator (it asks :func:`~trackkit.checks.hillclimb.stage_kind`
which event a stage is for) and below the command line.

Examples
--------
>>> from trackkit.formats.write import dump_stage
>>> from trackkit.formats import parse_source
>>> source = parse_source('''format: trackkit-stage/1   # made by hand
... tiles:
... - tile: 202a
... - tile: 205a
...   tokens: [{token: cloud, value: 9}]
... - tile: 203a
... ''', file="s.yaml")
>>> for item in conversion_losses(source, source.stage, "rekee", dump_stage(source.stage, "rekee")):
...     print(item)
cannot hold token cloud 9 on tile 2 (205a) at tiles[1].tokens[0], line 5: it reads back as cloud
does not keep the comments of s.yaml (line 1)
"""

from __future__ import annotations

import bisect
import re
from typing import Any

import yaml

from trackkit.checks.hillclimb import stage_kind
from trackkit.errors import InputError
from trackkit.formats.files import StageFormat, parse_source
from trackkit.formats.source import StageSource
from trackkit.models.stage import Kind, Stage, TileToken, TokenKind
from trackkit.stage.assemble import Layout, PlacedTile, lay_out
from trackkit.tiles.library import TileLibrary, art_variant
from trackkit.words import plural

__all__ = ["MAX_TILE_ITEMS", "conversion_losses", "yaml_comment_lines"]

#: Tile-by-tile differences listed one by one; beyond this they are counted.
MAX_TILE_ITEMS = 20

#: Keys each editor format's reader uses: top level, tile, token (any other key is dropped),
#: and the keys of a token's place on its tile (read, and written back as 0).
_EDITOR_KEYS: dict[str, tuple[set[str], set[str], set[str], set[str], str, str]] = {
    "rekee": ({"title", "author", "tiles"}, {"q", "r", "id", "dir", "tokens"}, {"id"},
              {"q", "r", "dir"}, "tiles", "tokens"),
    "rgt": ({"Path", "Name", "Author", "Tuiles"}, {"X", "Y", "Orientation", "TuileId", "Tokens"},
            {"TokenId"}, {"X", "Y", "Orientation"}, "Tuiles", "Tokens"),
}  # fmt: skip

_EDITOR_NAMES = {"rekee": "the Rekee editor", "rgt": "the official editor"}


def conversion_losses(
    source: StageSource,
    stage: Stage,
    fmt: StageFormat,
    text: str,
    *,
    kind: Kind | None = None,
    file: str = "<output>",
    library: TileLibrary | None = None,
) -> list[str]:
    """Everything about ``stage`` that ``text`` (its conversion to ``fmt``) does not keep.

    Parameters
    ----------
    source : StageSource
        The file the stage was read from (for its comments, editor keys, lines).
    stage : Stage
        The stage as converted (``source.stage`` with the kind it is for).
    fmt : StageFormat
        The format of ``text``.
    text : str
        The converted stage, as it would be written.
    kind : Kind, optional
        The event the stage is for (default: :func:`stage_kind` of ``stage``).
    file : str
        The output's name, for an error reading ``text`` back.
    library : TileLibrary, optional
        The faces (default: the shipped library).

    Returns
    -------
    list of str
        One item per thing lost, each saying what and where ("cannot hold ...",
        "does not keep ..."), in the order: stage, tiles, source.

    Raises
    ------
    InputError
        If ``text`` cannot be read back at all (then it must not be written).
    """
    try:
        back = parse_source(text, file=file, library=library).stage
    except InputError as exc:
        raise InputError(
            file, f"cannot write: trackkit could not read the {fmt} file back ({exc.message})"
        ) from None
    before, after = lay_out(stage, library), lay_out(back, library)
    event = kind if kind is not None else stage_kind(before)[0]
    items = _stage_items(stage, back, event, stage_kind(after)[0])
    if after.series != before.series:
        items.append(f"cannot hold ruleset: {stage.ruleset or before.series}")
    if before.circuit and after.laps != before.laps:
        items.append(f"cannot hold laps: {before.laps} (it reads back as {after.laps})")
    items += _tile_items(source, before, after, fmt)
    items += _source_items(source, fmt)
    return items


def _stage_items(stage: Stage, back: Stage, event: Kind, back_event: Kind) -> list[str]:
    items = []
    if back_event != event:
        items.append(
            f"cannot hold kind: {event.value} (give --kind {event.value} to validate and "
            "simulate it as such)"
        )
    if back.boxes != stage.boxes:
        items.append(f"cannot hold boxes: {stage.boxes}")
    for key in ("name", "author"):
        was, now = getattr(stage, key), getattr(back, key)
        if was != now:
            items.append(f"cannot hold the {key} {was!r} as it is: it reads back as {now!r}")
    return items


def _where(source: StageSource, tile: PlacedTile, rest: str = "") -> str:
    name = f"tile {tile.index} ({tile.face_id})" if tile.index else f"tile {tile.face_id}"
    if not tile.index:
        name += f" at hex [{tile.hex[0]}, {tile.hex[1]}]"
    path, line = source.locate(f"tiles[{tile.position - 1}]{rest}")
    return f"{name} at {path}" + (f", line {line}" if line else "")


def _token_text(token: TileToken) -> str:
    return token.token if token.value is None else f"{token.token} {token.value}"


def _offset(before: Layout, after: Layout) -> tuple[int, int]:
    """The shift of the whole map between the two layouts (editor files may move it)."""
    if not before.tiles or not after.tiles:
        return (0, 0)
    anchor = before.tiles[0]
    shifts = [
        (b.hex[0] - anchor.hex[0], b.hex[1] - anchor.hex[1])
        for b in after.tiles
        if b.face_id == anchor.face_id
    ]
    cands = [(0, 0), *shifts[:64]]
    where = {(b.hex, b.face_id) for b in after.tiles}

    def hits(off: tuple[int, int]) -> int:
        return sum(
            ((a.hex[0] + off[0], a.hex[1] + off[1]), a.face_id) in where for a in before.tiles
        )

    return max(cands, key=hits)


def _tile_items(source: StageSource, before: Layout, after: Layout, fmt: StageFormat) -> list[str]:
    dq, dr = _offset(before, after)
    free: dict[tuple[int, int], list[PlacedTile]] = {}
    for b in after.tiles:
        free.setdefault((b.hex[0] - dq, b.hex[1] - dr), []).append(b)
    items: list[str] = []
    for a in before.tiles:
        here = free.get(a.hex, [])
        match = next(
            (b for b in here if (b.face_id, b.rotation) == (a.face_id, a.rotation)),
            next((b for b in here if b.face_id == a.face_id), here[0] if here else None),
        )
        if match is None:
            items.append(f"cannot hold {_where(source, a)}: it is not written")
            continue
        here.remove(match)
        items += _same_tile(source, a, match, fmt)
    for rest in free.values():
        for b in rest:
            items.append(
                f"adds tile {b.face_id} at hex [{b.hex[0] - dq}, {b.hex[1] - dr}] when read back"
            )
    if len(items) > MAX_TILE_ITEMS:
        more = len(items) - MAX_TILE_ITEMS
        items = [*items[:MAX_TILE_ITEMS], f"... and {plural(more, 'more difference')} in the tiles"]
    return items


def _same_tile(source: StageSource, a: PlacedTile, b: PlacedTile, fmt: StageFormat) -> list[str]:
    """What changes of one tile (``a``, read back as ``b`` on the same hex)."""
    items: list[str] = []
    where = _where(source, a)
    if b.face_id != a.face_id:
        items.append(f"cannot hold {where}: it reads back as tile {b.face_id}")
    elif b.rotation != a.rotation:
        items.append(f"cannot hold {where}: it reads back turned to dir {b.rotation}")
    elif art_variant(b.raw_id) != art_variant(a.raw_id):
        items.append(f"cannot hold the art of {where} ({a.raw_id}): it reads back as {b.raw_id}")
    if a.index != b.index:
        now = f"tile {b.index} in driving order" if b.index else "not driven"
        items.append(f"cannot hold how {where} is driven: it reads back as {now}")
    elif a.road and b.road and a.road.entry != b.road.entry:
        items.append(f"cannot hold how {where} is driven: it reads back driven the other way")
    for j in range(max(len(a.tokens), len(b.tokens))):
        old = a.tokens[j] if j < len(a.tokens) else None
        new = b.tokens[j] if j < len(b.tokens) else None
        if old is None:
            assert new is not None
            items.append(f"adds token {_token_text(new)} to {where} when read back")
            continue
        at = _where(source, a, f".tokens[{j}]")
        if new is None:
            items.append(f"cannot hold token {_token_text(old)} on {at}: it is not written")
        elif (new.token, new.value) != (old.token, old.value):
            items.append(
                f"cannot hold token {_token_text(old)} on {at}: it reads back as {_token_text(new)}"
            )
        elif fmt in _EDITOR_NAMES and not _editor_knows(fmt, old):
            items.append(
                f"cannot hold token {_token_text(old)} on {at} in a form "
                f"{_EDITOR_NAMES[fmt]} knows: it is written as {old.token!r}, which only "
                "trackkit reads"
                if old.kind is None
                else f"cannot hold token {_token_text(old)} on {at} in a form "
                f"{_EDITOR_NAMES[fmt]} knows (it has no such token): only trackkit reads it"
            )
    return items


def _editor_knows(fmt: StageFormat, token: TileToken) -> bool:
    """Whether an editor has the token (trackkit reads back every token it writes)."""
    kind = token.kind
    if kind is None:
        return False
    if kind is TokenKind.MUD:
        return fmt == "rekee"  # the official editor has no mud token
    return True


def _source_items(source: StageSource, fmt: StageFormat) -> list[str]:
    """What reading the source already left out: comments, token places, other keys."""
    doc = source.document
    items = []
    if doc.syntax == "yaml":
        lines = yaml_comment_lines(doc.text)
        if lines:
            shown = ", ".join(str(n) for n in lines[:10]) + (" ..." if len(lines) > 10 else "")
            label = "line" if len(lines) == 1 else "lines"
            items.append(f"does not keep the comments of {doc.file} ({label} {shown})")
    if source.format in _EDITOR_KEYS:
        items += _editor_items(source)
    return items


def _editor_items(source: StageSource) -> list[str]:
    """Keys of an editor file that trackkit does not read, and token places on tiles."""
    top, tile_keys, token_keys, place, tiles_key, tokens_key = _EDITOR_KEYS[source.format]
    data: Any = source.document.data
    items = []
    extra = sorted(str(k) for k in data if k not in top)
    if isinstance(data.get("Path"), str) and data["Path"] and source.format == "rgt":
        extra.insert(0, "Path")  # written back empty
    unread: dict[str, int] = {}
    for tile in data.get(tiles_key) or []:
        if not isinstance(tile, dict):
            continue
        for k in tile:
            if k not in tile_keys:
                unread[f"{tiles_key}[].{k}"] = unread.get(f"{tiles_key}[].{k}", 0) + 1
        tokens = tile.get(tokens_key) or []
        for token in tokens if isinstance(tokens, list) else []:
            if not isinstance(token, dict):
                continue
            for k in token:  # where a token lies and how it is turned are kept
                if k not in token_keys | place:
                    key = f"{tiles_key}[].{tokens_key}[].{k}"
                    unread[key] = unread.get(key, 0) + 1
    if extra:
        items.append("does not keep the keys trackkit does not read: " + ", ".join(extra))
    if unread:
        items.append(
            "does not keep the keys trackkit does not read: "
            + ", ".join(f"{k} (x{n})" for k, n in sorted(unread.items()))
        )
    return items


def yaml_comment_lines(text: str) -> list[int]:
    """Lines (from 1) of a YAML text that hold a comment.

    A ``#`` is a comment when it lies outside every token the YAML scanner finds (so
    not inside a scalar, quoted or not).

    Examples
    --------
    >>> yaml_comment_lines("a: 1  # one\\nb: '#2'\\n# three\\nc: x#y\\n")
    [1, 3]
    """
    spans: list[tuple[int, int]] = []
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if token.end_mark.index > token.start_mark.index:
                spans.append((token.start_mark.index, token.end_mark.index))
    except yaml.YAMLError:
        return []
    spans.sort()
    starts = [a for a, _ in spans]
    newlines = [m.start() for m in re.finditer("\n", text)]
    lines: set[int] = set()
    for m in re.finditer("#", text):
        pos = m.start()
        k = bisect.bisect_right(starts, pos) - 1
        if k >= 0 and pos < spans[k][1]:
            continue  # inside a scalar
        lines.add(bisect.bisect_left(newlines, pos) + 1)
    return sorted(lines)
