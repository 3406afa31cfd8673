"""Inventory: which boxes and how many pieces a stage needs, against what is owned.

Tokens count too: the Copilot track tokens come from the Copilot pack (``dirt-copilot``),
climb, oxygen and cloud tokens from The Climb (``dirt-climb``); mud is the shortcut face of
a damage token, in every box's bag. How many of each token a box holds is not known here,
so tokens are counted, and the box they need is checked, but not their copies.

A few GT pieces come in two boxes (122, 124 and 125: one in Championship, one in World
Tour, ``TileFace.also_in``): either box supplies them, and the copies of every box owned
add up.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from trackkit.checks.catalogue import finding
from trackkit.formats.suggest import unknown_box
from trackkit.models.findings import Finding, Location
from trackkit.models.stage import TokenKind
from trackkit.stage.assemble import Layout, PlacedTile
from trackkit.tiles.library import TileLibrary

__all__ = ["TOKEN_BOXES", "boxes_needed", "check_inventory", "pieces_used", "tokens_used"]

#: The box each kind of token comes from (mud: a damage token's face, in every box).
TOKEN_BOXES: dict[TokenKind, str] = {
    TokenKind.WATER: "dirt-copilot",
    TokenKind.JUMP: "dirt-copilot",
    TokenKind.CHICANE: "dirt-copilot",
    TokenKind.CHICANE_LIMIT: "dirt-copilot",
    TokenKind.CLIMB: "dirt-climb",
    TokenKind.OXYGEN: "dirt-climb",
    TokenKind.CLOUD: "dirt-climb",
}


def _token_name(kind: TokenKind, surface: str | None) -> str:
    return f"{kind.value}-{surface}" if surface else kind.value


def tokens_used(layout: Layout) -> list[dict[str, Any]]:
    """Tokens on the map by kind (and surface), with the box they come from.

    Every placed tile counts (beside the road and not driven too, as their pieces do), with
    the tokens it plays (at most ``MAX_TILE_TOKENS``); unknown tokens are not pieces.
    """
    count: Counter[tuple[TokenKind, str | None]] = Counter()
    for tile in layout.tiles:
        for tok in tile.tokens:
            kind = tok.kind
            if kind is not None:
                count[(kind, tok.surface if kind.on_track else None)] += 1
    rows = [
        {
            "token": _token_name(kind, surface),
            "count": n,
            "box": TOKEN_BOXES.get(kind),
        }
        for (kind, surface), n in count.items()
    ]
    return sorted(rows, key=lambda r: (r["box"] or "~", r["token"]))


def _token_boxes(layout: Layout) -> dict[str, tuple[PlacedTile, set[str]]]:
    """Boxes the tokens need: the first tile holding one of its tokens, and their kinds."""
    out: dict[str, tuple[PlacedTile, set[str]]] = {}
    for tile in layout.tiles:
        for tok in tile.tokens:
            box = TOKEN_BOXES.get(tok.kind) if tok.kind is not None else None
            if box is not None:
                out.setdefault(box, (tile, set()))[1].add(tok.token)
    return out


def pieces_used(layout: Layout) -> Counter[tuple[str, int]]:
    """Pieces used per (box, number): both faces of a piece are one piece (I302)."""
    return Counter((t.face.box, t.face.number) for t in layout.tiles if t.face is not None)


def boxes_needed(layout: Layout, library: TileLibrary) -> dict[str, int]:
    """Copies of each box needed to build the stage (one for the boxes of its tokens).

    A piece that two boxes hold is taken first from the boxes needed anyway, then from
    more copies of its own box.
    """
    need: dict[str, int] = {}
    shared: list[tuple[str, int, int]] = []
    for (box, number), count in pieces_used(layout).items():
        if _holders(library, box, number).keys() - {box}:
            shared.append((box, number, count))
            continue
        per_box = _copies(library, box, number)
        need[box] = max(need.get(box, 0), -(-count // per_box))
    for box in _token_boxes(layout):
        need[box] = max(need.get(box, 0), 1)
    for box, number, count in shared:
        holders = _holders(library, box, number)
        short = count - sum(copies * need.get(b, 0) for b, copies in holders.items())
        if short > 0:
            need[box] = need.get(box, 0) + -(-short // holders[box])
    return dict(sorted(need.items()))


def _copies(library: TileLibrary, box: str, number: int) -> int:
    return max((f.copies for f in library.in_box(box) if f.number == number), default=1)


def _holders(library: TileLibrary, box: str, number: int) -> dict[str, int]:
    """Every box that holds piece ``number`` (of ``box``), with its copies."""
    out = {box: _copies(library, box, number)}
    for face in library.in_box(box):
        if face.number == number:
            for other, copies in face.also_in.items():
                out[other] = max(out.get(other, 0), copies)
    return out


def check_inventory(layout: Layout, library: TileLibrary) -> list[Finding]:
    """Box names the library does not know, tiles from boxes not owned and pieces used
    more often than owned."""
    out: list[Finding] = []
    owned = layout.stage.boxes
    used = pieces_used(layout)
    for i, box in enumerate(owned or ()):
        unknown = unknown_box(box, library)
        if unknown is not None:
            out.append(finding("I305", unknown, Location(path=f"boxes[{i}]")))
    if owned is None:
        for box, n in boxes_needed(layout, library).items():
            if n > 1:
                out.append(
                    finding(
                        "I303", f"this stage needs {n} copies of box {box}", Location(path="boxes")
                    )
                )
        return out
    owned_count = Counter(owned)
    for box, (tile, kinds) in sorted(_token_boxes(layout).items()):
        if box not in owned_count:
            out.append(
                finding(
                    "I304",
                    f"{', '.join(sorted(kinds))} tokens come from box {box}, which is not in "
                    "'boxes'",
                    tile.location(),
                )
            )
    for (box, number), count in sorted(used.items()):
        faces = sorted({t.face_id for t in layout.tiles if t.face and t.face.number == number})
        first = next(t for t in layout.tiles if t.face and t.face.number == number)
        holders = _holders(library, box, number)
        if not holders.keys() & owned_count.keys():
            boxes = " or ".join(holders)
            out.append(
                finding(
                    "I301",
                    f"piece {number} ({', '.join(faces)}) comes from box "
                    f"{boxes}, which is not in 'boxes'",
                    first.location(),
                )
            )
            continue
        have = sum(copies * owned_count[b] for b, copies in holders.items())
        if count > have:
            out.append(
                finding(
                    "I302",
                    f"piece {number} ({', '.join(faces)}) is used {count} "
                    f"times but the boxes hold {have}",
                    first.location(),
                )
            )
    return out
