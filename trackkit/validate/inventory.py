"""Inventory: which boxes and how many pieces a stage needs, against what is owned."""

from __future__ import annotations

from collections import Counter

from trackkit.assemble import Layout
from trackkit.catalogue import finding
from trackkit.library import TileLibrary
from trackkit.models.findings import Finding, Location

__all__ = ["boxes_needed", "check_inventory", "pieces_used"]


def pieces_used(layout: Layout) -> Counter[tuple[str, int]]:
    """Pieces used per (box, number): both faces of a piece are one piece (I302)."""
    return Counter((t.face.box, t.face.number) for t in layout.tiles if t.face is not None)


def boxes_needed(layout: Layout, library: TileLibrary) -> dict[str, int]:
    """Copies of each box needed to build the stage."""
    need: dict[str, int] = {}
    for (box, number), count in pieces_used(layout).items():
        per_box = _copies(library, box, number)
        need[box] = max(need.get(box, 0), -(-count // per_box))
    return dict(sorted(need.items()))


def _copies(library: TileLibrary, box: str, number: int) -> int:
    return max((f.copies for f in library.in_box(box) if f.number == number), default=1)


def check_inventory(layout: Layout, library: TileLibrary) -> list[Finding]:
    """Tiles from boxes not owned and pieces used more often than owned."""
    out: list[Finding] = []
    owned = layout.stage.boxes
    used = pieces_used(layout)
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
    for (box, number), count in sorted(used.items()):
        faces = sorted({t.face_id for t in layout.tiles if t.face and t.face.number == number})
        first = next(t for t in layout.tiles if t.face and t.face.number == number)
        if box not in owned_count:
            out.append(
                finding(
                    "I301",
                    f"piece {number} ({', '.join(faces)}) comes from box "
                    f"{box}, which is not in 'boxes'",
                    first.location(),
                )
            )
            continue
        have = _copies(library, box, number) * owned_count[box]
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
