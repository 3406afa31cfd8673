"""The stage as the rules engine sees it: per-space facts and steps, read from the graph.

Everything here is derived from :func:`trackkit.graph.build_graph` (the single source of
movement truth) once per stage, in plain tuples so that plan enumeration is fast.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import networkx as nx

from trackkit.assemble import Layout
from trackkit.models.stage import TokenKind

__all__ = ["SpaceInfo", "Track"]


@dataclass(frozen=True, slots=True)
class SpaceInfo:
    """What a car needs to know about one space."""

    node: str
    tile: int
    kind: str
    surface: str
    danger: str
    limit: int | None
    corner: str | None
    corner_lane: str | None
    jump: int | None
    ford: bool
    finished: bool
    progress: float
    sides: str = "LR"


@dataclass(slots=True)
class Track:
    """Per-space facts, successors with their climb direction, adjacency and overlaps."""

    graph: nx.DiGraph
    spaces: dict[str, SpaceInfo]
    successors: dict[str, tuple[tuple[str, str | None], ...]]
    beside: dict[str, frozenset[str]]
    overlaps: dict[str, frozenset[str]]
    oxygen: dict[int, int] = field(default_factory=dict)
    clouds: frozenset[int] = frozenset()
    start: tuple[str, ...] = ()

    @classmethod
    def from_graph(cls, graph: nx.DiGraph, layout: Layout | None = None) -> Track:
        """Read a stage graph (and the tokens of its layout)."""
        spaces = {
            n: SpaceInfo(
                n,
                d["tile"],
                d["kind"],
                d["surface"],
                d["danger"],
                d["limit"],
                d["corner"],
                d["corner_lane"],
                d["jump"],
                bool(d["ford"]),
                bool(d["finished"]),
                float(d["progress"]),
                d["sides"],
            )
            for n, d in graph.nodes(data=True)
        }
        successors = {
            n: tuple((v, graph.edges[n, v]["climb"]) for v in graph.successors(n))
            for n in graph.nodes
        }
        by_unit: dict[tuple[int, int], list[str]] = defaultdict(list)
        for n, d in graph.nodes(data=True):
            if d["unit"] >= 0:
                by_unit[(d["tile"], d["unit"])].append(n)
        beside: dict[str, set[str]] = defaultdict(set)
        overlaps: dict[str, set[str]] = defaultdict(set)
        for nodes in by_unit.values():
            for a in nodes:
                da = graph.nodes[a]
                for b in nodes:
                    if a == b:
                        continue
                    db = graph.nodes[b]
                    if da["kind"] == "slide" or db["kind"] == "slide":
                        if da["kind"] != db["kind"]:
                            overlaps[a].add(b)  # a slide space lies over the row's lanes
                        continue
                    same_side = set(da["sides"]) & set(db["sides"])
                    ranges_meet = da["back"] < db["progress"] and db["back"] < da["progress"]
                    if not same_side and ranges_meet:
                        beside[a].add(b)  # rule: TRAFFIC-1 (the space beside, same row)
        for n, d in graph.nodes(data=True):
            if d["kind"] == "shortcut":  # rule: SHORTCUT-3
                linked = [
                    m
                    for m in (*graph.predecessors(n), *graph.successors(n))
                    if graph.nodes[m]["kind"] not in ("corner", "chicane", "shortcut")
                ]
                for m in linked:
                    beside[n].add(m)
                    beside[m].add(n)
        oxygen: dict[int, int] = {}
        clouds: set[int] = set()
        if layout is not None:
            for t in layout.chain:
                if t.index is None:
                    continue
                for tok in t.tokens:
                    if tok.kind is TokenKind.OXYGEN and tok.value:
                        oxygen[t.index] = oxygen.get(t.index, 0) + tok.value
                    elif tok.kind is TokenKind.CLOUD:
                        clouds.add(t.index)
        return cls(
            graph,
            spaces,
            successors,
            {k: frozenset(v) for k, v in beside.items()},
            {k: frozenset(v) for k, v in overlaps.items()},
            oxygen,
            frozenset(clouds),
            tuple(graph.graph.get("start", ())),
        )
