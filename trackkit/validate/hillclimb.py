"""Hillclimb checks (HILLCLIMB-1, The Climb)."""

from __future__ import annotations

import networkx as nx

from trackkit.assemble import Layout
from trackkit.catalogue import finding
from trackkit.models.findings import Finding, Location
from trackkit.models.stage import Kind

__all__ = ["check_hillclimb", "climb_tiles"]


def climb_tiles(graph: nx.DiGraph) -> dict[int, str]:
    """Tiles with climb lines and their direction ('up', 'down' or 'mixed')."""
    seen: dict[int, str] = {}
    for u, _v, data in graph.edges(data=True):
        if data["climb"]:
            tile = graph.nodes[u]["tile"]
            prev = seen.get(tile)
            seen[tile] = data["climb"] if prev in (None, data["climb"]) else "mixed"
    return seen


def check_hillclimb(layout: Layout, graph: nx.DiGraph, kind: Kind) -> list[Finding]:
    """A hillclimb needs a climb tile or climb token; it should go uphill somewhere."""
    climbs = climb_tiles(graph)
    if kind is not Kind.HILLCLIMB:
        if climbs:
            return [finding("H403", f"{len(climbs)} tile(s) have climb lines", Location())]
        return []
    if not climbs:
        return [
            finding(
                "H401",
                "a hillclimb needs at least one climb tile or climb token",
                Location(path="tiles"),
            )
        ]
    if "up" not in climbs.values() and "mixed" not in climbs.values():
        first = next(t for t in layout.chain if t.index in climbs)
        return [
            finding(
                "H402", "every climb line of this hillclimb is driven downhill", first.location()
            )
        ]
    return []
