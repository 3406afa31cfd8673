"""The stage summary: length, tiles, surfaces, danger, corners, tokens, boxes.

A GT track's summary also gives its lap (length in spaces and mm, laps), lanes, corners
with their limits (circled, or in a triangle: ``4!``), sharp corners (the dotted lines and
their numbers or warning signs), the grid, the pit, crossings, bridges and skew edges.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

import networkx as nx

from trackkit.checks.hillclimb import climb_tiles
from trackkit.checks.inventory import boxes_needed, pieces_used, tokens_used
from trackkit.models.stage import Kind
from trackkit.models.summary import (
    ClimbCount,
    Corner,
    DirtStage,
    GtCorner,
    GtCornerSpace,
    GtTrack,
    PitAccess,
    SharpCorner,
    StageSummary,
)
from trackkit.models.tile import ChicaneSection, CornerSection
from trackkit.stage.assemble import Layout, PlacedTile
from trackkit.tiles.library import TileLibrary

__all__ = ["dirt_stage", "gt_track", "lap_moves", "shortest_moves", "skew_edges", "summarize"]


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


def lap_moves(g: nx.DiGraph) -> int | None:
    """Fewest spaces a car moves through to drive one lap of a circuit: from the first
    spaces past the start/finish line round to them again."""
    past = set(g.graph.get("finish", ()))
    if not past or not g.graph.get("circuit"):
        return None
    dist = {n: 0 for n in past}
    queue = deque(past)
    while queue:
        n = queue.popleft()
        for m in g.successors(n):
            if m in past:
                return dist[n] + 1
            if m not in dist:
                dist[m] = dist[n] + 1
                queue.append(m)
    return None


def skew_edges(g: nx.DiGraph) -> int:
    """GT: the tile edges of the track that cut spaces at an angle (``skewL``/``skewR``).

    At such an edge each lane's space lies half on either tile, and the two halves are one
    space (one node whose ``parts`` name both tiles): an edge is counted once, whatever its
    lanes.
    """
    joints = {
        frozenset(tile for tile, _space in parts)
        for _n, parts in g.nodes(data="parts")
        if parts is not None and len({tile for tile, _space in parts}) > 1
    }
    return len(joints)


def summarize(layout: Layout, graph: nx.DiGraph, library: TileLibrary, kind: Kind) -> StageSummary:
    """The summary of the stage, checked as event ``kind`` (JSON: its ``to_json()``).

    What both series have is counted here, once; what only one has is its part
    (:func:`dirt_stage`, :func:`gt_track`). A GT track counts each piece once (a tile
    driven twice is one piece) and has no length to the finish if it is a circuit.
    """
    part: dict[str, DirtStage | GtTrack]
    if layout.series == "gt":
        pieces = [t for t in layout.chain if t.face and t.road and t.visit_of is None]
        tiles, part = len(pieces), {"gt": gt_track(layout, graph)}
    else:
        pieces = [t for t in layout.chain if t.face is not None]
        tiles, part = len(layout.chain), {"dirt": dirt_stage(layout, graph)}
    surfaces = Counter(t.face.surface.value for t in pieces if t.face)
    danger = Counter(t.face.danger.value for t in pieces if t.face)
    circuit = bool(graph.graph.get("circuit"))
    finish_progress = [graph.nodes[n]["back"] for n in graph.graph.get("finish", ())]
    return StageSummary.model_validate(
        {
            "name": layout.stage.name,
            "author": layout.stage.author,
            "series": layout.series,
            "kind": kind.value,
            "tiles": tiles,
            "tiles_beside_road": len(layout.scenery),
            "tiles_not_driven": len(layout.undriven),
            "spaces": graph.number_of_nodes(),
            "length_spaces": None if circuit else shortest_moves(graph),
            "length_mm": None if circuit or not finish_progress else round(max(finish_progress), 1),
            "surfaces": dict(sorted(surfaces.items())),
            "danger": {k: danger[k] for k in ("low", "medium", "high") if danger[k]},
            "tokens": tokens_used(layout),
            "boxes": boxes_needed(layout, library),
            "pieces": {
                f"{number}": count for (_box, number), count in sorted(pieces_used(layout).items())
            },
            **part,
        }
    )


def dirt_stage(layout: Layout, graph: nx.DiGraph) -> DirtStage:
    """What only a DIRT stage's summary has: corners and chicanes with their limits, climb
    tiles, shortcuts, jumps and fords."""
    corners: list[Corner] = []
    for t in layout.chain:
        road = t.road
        if t.face is None or road is None:
            continue
        for unit in road.units:
            sec = road.road.sections[_forward_section(road, unit.section) - 1]
            inner: int | None
            outer: int | None
            if isinstance(sec, CornerSection):
                inner, outer, turn = sec.inner.limit, sec.outer.limit, unit.turn
            elif isinstance(sec, ChicaneSection):
                inner = outer = sec.limit
                turn = "chicane"
            elif unit.kind == "chicane":
                inner = outer = road.spaces[unit.spaces[0]].limit  # a chicane-limit token's row
                turn = "chicane"
            else:
                continue
            corners.append(
                Corner(tile_index=t.index, tile=t.face_id, turn=turn, inner=inner, outer=outer)
            )
    climbs = climb_tiles(graph)
    nodes = graph.nodes(data=True)
    return DirtStage(
        corners=corners,
        climb=ClimbCount(
            up=sum(1 for v in climbs.values() if v == "up"),
            down=sum(1 for v in climbs.values() if v == "down"),
        ),
        shortcuts=sum(1 for _, d in nodes if d["kind"] == "shortcut"),
        jumps=len({(d["tile"], d["unit"]) for _, d in nodes if d["jump"]}),
        fords=len({(d["tile"], d["unit"]) for _, d in nodes if d["ford"]}),
    )


def _forward_section(road: Any, driven_section: int) -> int:
    n = len(road.road.sections)
    return n + 1 - driven_section if road.reversed else driven_section


def gt_track(layout: Layout, graph: nx.DiGraph) -> GtTrack:
    """What only a GT track's summary has (see the module notes)."""
    chain = [t for t in layout.chain if t.face is not None and t.road is not None]
    circuit = bool(graph.graph.get("circuit"))
    corners: list[GtCorner] = []
    sharp: list[SharpCorner] = []
    lanes: Counter[str] = Counter()
    for t in chain:
        corners += _gt_corners(t)
        sharp += _gt_dotted(t)
        if t.visit_of is None:
            lanes[_lanes_text(t)] += 1
    piece = {t.index: (t.visit_of or t).index for t in chain}
    crossed = {
        piece.get(d["tile"])
        for _n, d in graph.nodes(data=True)
        for m in d["overlaps"]
        if graph.nodes[m]["tile"] != d["tile"]
    }
    lap = graph.graph.get("lap_length")
    lines = [t for t in chain if t.road is not None and t.road.line is not None]
    grid = [t for t in lines if t.road is not None and not t.road.grid_backwards]
    return GtTrack(
        driven_twice=sorted(t.visit_of.index for t in chain if t.visit_of and t.visit_of.index),
        laps=layout.laps if circuit else None,
        closed=layout.closes if circuit else None,
        lap_length_spaces=lap_moves(graph) if circuit else None,
        lap_length_mm=round(lap, 1) if circuit and lap else None,
        lanes=dict(sorted(lanes.items())),
        corners=corners,
        sharp_corners=sharp,
        crossings=len(crossed),
        bridges=sum(1 for t in chain if t.road is not None and t.road.hidden),
        skew_edges=skew_edges(graph),
        start_finish=[t.index for t in lines if t.index is not None],
        grid_slots=len(graph.graph.get("start", ())) if grid else 0,
        pit=[
            PitAccess(position=p["position"], hex=p["hex"], access=len(p["access"]))
            for p in graph.graph.get("pits", [])
        ],
    )


def _lanes_text(tile: PlacedTile) -> str:
    """The lanes of a GT tile's road as driven: ``3``, or ``2-3`` where the count changes."""
    assert tile.face is not None and tile.road is not None
    a, b = tile.face.lanes.get(tile.road.entry), tile.face.lanes.get(tile.road.exit)
    return f"{a}" if a == b else f"{a}-{b}"


def _gt_corners(tile: PlacedTile) -> list[GtCorner]:
    """The corners of a GT tile's road as driven, each limit with its lanes (CORNER-1,
    CORNER-5: ``triangle``), and their limits in words (``4/4!``, lane 1 first)."""
    road = tile.road
    assert road is not None
    bends = list(road.cut.road.corners)
    if road.reversed:
        bends.reverse()
    turns = road.corner_turns
    out = []
    for n, bend in enumerate(bends):
        spaces = sorted(
            (road.spaces[s] for s in bend.spaces if s in road.spaces and road.spaces[s].limit),
            key=lambda sp: sp.lanes,
        )
        if not spaces:
            continue
        texts = [f"{sp.limit}!" if sp.triangle else f"{sp.limit}" for sp in spaces]
        out.append(
            GtCorner(
                tile_index=tile.index,
                tile=tile.face_id,
                turn=turns[n] if n < len(turns) else None,
                limits="/".join(dict.fromkeys(texts)),
                spaces=[
                    GtCornerSpace(
                        space=f"{tile.index}:{sp.id}",
                        lanes=list(sp.lanes),
                        limit=sp.limit,
                        triangle=sp.triangle,
                    )
                    for sp in spaces
                    if sp.limit is not None
                ],
            )
        )
    return out


def _gt_dotted(tile: PlacedTile) -> list[SharpCorner]:
    """The sharp-corner dotted lines of a GT tile's road (CORNER-4): their lanes (as
    driven) and numbers, ``hazard`` for a warning sign."""
    road = tile.road
    assert road is not None
    lane_road = road.cut.road
    width = max((k for k in (lane_road.lanes or {})), default=0)
    out = []
    for name, line in lane_road.lines.items():
        if not line.dotted:
            continue
        marks = {
            str(width + 1 - lane if road.reversed else lane): mark
            for lane, mark in sorted(line.dotted.items())
        }
        out.append(
            SharpCorner(
                tile_index=tile.index,
                tile=tile.face_id,
                line=name,
                edge=name.startswith("E"),
                marks=dict(sorted(marks.items())),
            )
        )
    return out
