"""Structure checks: start and finish, overlaps, road ends, a path from start to finish."""

from __future__ import annotations

from collections import defaultdict

import networkx as nx

from trackkit import hexgrid
from trackkit.assemble import Layout, PlacedTile
from trackkit.catalogue import finding
from trackkit.graph import has_path_to_finish
from trackkit.models.findings import Finding, Location

__all__ = ["check_structure"]


def _line_kind(tile: PlacedTile) -> str | None:
    if tile.face is None or tile.face.road is None or tile.face.road.start_finish is None:
        return None
    return tile.face.road.start_finish.kind


def check_structure(layout: Layout, graph: nx.DiGraph) -> list[Finding]:
    """Every structural problem of a laid-out stage (BOARD-1, BOARD-3)."""
    out: list[Finding] = []
    chain = layout.chain
    if not chain:
        out.append(finding("S100", "the stage has no tiles to drive", Location(path="tiles")))
        return out

    # rule: BOARD-1 (tiles may not overlap)
    by_hex: dict[hexgrid.Hex, list[PlacedTile]] = defaultdict(list)
    for t in layout.tiles:
        by_hex[t.hex].append(t)
    for h, tiles in by_hex.items():
        if len(tiles) > 1:
            names = ", ".join(f"tile {_name(t)}" for t in tiles)
            out.append(
                finding("S105", f"{names} overlap on hex [{h[0]}, {h[1]}]", tiles[-1].location())
            )

    # rule: BOARD-3 (one start first, one finish last)
    starts = [t for t in chain if _line_kind(t) == "start"]
    finishes = [t for t in chain if _line_kind(t) == "finish"]
    if not starts:
        out.append(finding("S106", "the stage has no start tile", chain[0].location()))
    if not finishes:
        out.append(finding("S107", "the stage has no finish tile", chain[-1].location()))
    for extra in starts[1:]:
        out.append(finding("S108", f"a second start tile: tile {_name(extra)}", extra.location()))
    for extra in finishes[1:]:
        out.append(finding("S109", f"a second finish tile: tile {_name(extra)}", extra.location()))
    if starts and starts[0] is not chain[0]:
        out.append(
            finding(
                "S110",
                f"the start tile is tile {_name(starts[0])}, not the first",
                starts[0].location(),
            )
        )
    if finishes and finishes[-1] is not chain[-1]:
        out.append(
            finding(
                "S111",
                f"the finish tile is tile {_name(finishes[-1])}, not the last",
                finishes[-1].location(),
            )
        )

    # open road ends: the first tile's entry (unless a start) and the last tile's exit
    # (unless a finish); gaps inside the chain are S102, reported while laying out
    ends: list[tuple[str, PlacedTile]] = []
    if _line_kind(chain[0]) != "start":
        ends.append(("entry", chain[0]))
    if _line_kind(chain[-1]) != "finish":
        ends.append(("exit", chain[-1]))
    for which, t in ends:
        d = t.entry_world if which == "entry" else t.exit_world
        if d is None:
            continue
        other = by_hex.get(hexgrid.neighbour(t.hex, d), [])
        if not other:
            out.append(
                finding(
                    "S113",
                    f"the road's {which} of tile {_name(t)} leads nowhere",
                    t.location(edge=d),
                )
            )
        elif (
            other[0].face is None
            or other[0].index is None
            or (
                hexgrid.local_edge(hexgrid.opposite(d), other[0].rotation)
                not in other[0].face.lanes
            )
        ):
            out.append(
                finding(
                    "S115",
                    f"the road's {which} of tile {_name(t)} runs into the "
                    f"side of tile {_name(other[0])}",
                    t.location(edge=d),
                )
            )
        else:
            out.append(
                finding(
                    "S113",
                    f"the road's {which} of tile {_name(t)} meets tile "
                    f"{_name(other[0])} out of driving order",
                    t.location(edge=d),
                )
            )

    # rule: BOARD-3 (a stage runs from start to finish)
    if starts and finishes and not has_path_to_finish(graph):
        out.append(
            finding(
                "S114",
                "no chain of legal steps leads from the start line to the finish line",
                finishes[-1].location(),
            )
        )
    return out


def _name(t: PlacedTile) -> str:
    return f"{t.index} ({t.face_id})" if t.index is not None else f"{t.face_id} at {list(t.hex)}"
