"""The stage summary: length, tiles, surfaces, danger, corners, tokens, boxes."""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

import networkx as nx

from trackkit.assemble import Layout
from trackkit.library import TileLibrary
from trackkit.models.stage import Kind
from trackkit.models.tile import ChicaneSection, CornerSection
from trackkit.validate.hillclimb import climb_tiles
from trackkit.validate.inventory import boxes_needed, pieces_used, tokens_used

__all__ = ["shortest_moves", "summarize"]


def shortest_moves(g: nx.DiGraph) -> int | None:
    """Fewest spaces a car moves through from the start grid to past the finish line."""
    finish = set(g.graph.get("finish", ()))
    start = [n for n in g.graph.get("start", ()) if g.in_degree(n) == 0 or True]
    if not finish or not start:
        return None
    dist = {n: 0 for n in start}
    queue = deque(start)
    while queue:
        n = queue.popleft()
        if n in finish:
            return dist[n]
        for m in g.successors(n):
            if m not in dist:
                dist[m] = dist[n] + 1
                queue.append(m)
    return None


def summarize(
    layout: Layout, graph: nx.DiGraph, library: TileLibrary, kind: Kind
) -> dict[str, Any]:
    """A JSON-ready summary of the stage, checked as event ``kind``."""
    chain = [t for t in layout.chain if t.face is not None]
    corners = []
    for t in chain:
        road = t.road
        if road is None:
            continue
        for unit in road.units:
            sec = road.road.sections[_forward_section(road, unit.section) - 1]
            if isinstance(sec, CornerSection):
                corners.append(
                    {
                        "tile_index": t.index,
                        "tile": t.face_id,
                        "turn": unit.turn,
                        "inner": sec.inner.limit,
                        "outer": sec.outer.limit,
                    }
                )
            elif unit.kind == "chicane" and not isinstance(sec, ChicaneSection):
                limit = road.spaces[unit.spaces[0]].limit  # a chicane-limit token's row
                corners.append(
                    {
                        "tile_index": t.index,
                        "tile": t.face_id,
                        "turn": "chicane",
                        "inner": limit,
                        "outer": limit,
                    }
                )
            elif isinstance(sec, ChicaneSection):
                corners.append(
                    {
                        "tile_index": t.index,
                        "tile": t.face_id,
                        "turn": "chicane",
                        "inner": sec.limit,
                        "outer": sec.limit,
                    }
                )
    surfaces = Counter(t.face.surface.value for t in chain if t.face)
    danger = Counter(t.face.danger.value for t in chain if t.face)
    finish_progress = [graph.nodes[n]["back"] for n in graph.graph.get("finish", ())]
    climbs = climb_tiles(graph)
    return {
        "name": layout.stage.name,
        "author": layout.stage.author,
        "kind": kind.value,
        "tiles": len(layout.chain),
        "tiles_beside_road": len(layout.scenery),
        "tiles_not_driven": len(layout.undriven),
        "spaces": graph.number_of_nodes(),
        "length_spaces": shortest_moves(graph),
        "length_mm": round(max(finish_progress), 1) if finish_progress else None,
        "surfaces": dict(sorted(surfaces.items())),
        "danger": {k: danger[k] for k in ("low", "medium", "high") if danger[k]},
        "corners": corners,
        "climb": {
            "up": sum(1 for v in climbs.values() if v == "up"),
            "down": sum(1 for v in climbs.values() if v == "down"),
        },
        "shortcuts": sum(1 for _, d in graph.nodes(data=True) if d["kind"] == "shortcut"),
        "jumps": len({(d["tile"], d["unit"]) for _, d in graph.nodes(data=True) if d["jump"]}),
        "fords": len({(d["tile"], d["unit"]) for _, d in graph.nodes(data=True) if d["ford"]}),
        "tokens": tokens_used(layout),
        "boxes": boxes_needed(layout, library),
        "pieces": {
            f"{number}": count for (_box, number), count in sorted(pieces_used(layout).items())
        },
    }


def _forward_section(road: Any, driven_section: int) -> int:
    n = len(road.road.sections)
    return n + 1 - driven_section if road.reversed else driven_section
