"""The stage graph: one node per space, one edge per legal forward step.

This networkx DiGraph is the single source of movement truth: validation, the rules
engine, simulation and rendering read it; nothing re-derives movement on its own.

Node ids are ``"<tile>:<space>"`` with the tile's number in driving order and the space id
of :mod:`trackkit.spaces` (``"3:2.O1"``: tile 3, section 2, outer lane, first space). Node
attributes: ``tile``, ``face``, ``hex``, ``space``, ``kind`` (lane, full, slide, corner,
chicane, shortcut), ``sides`` ("L", "R" or "LR"), ``limit`` (corner/chicane/shortcut limit
after mud tokens, else None), ``printed_limit``, ``corner`` (corner id), ``corner_lane``,
``surface``, ``danger``, ``jump``, ``ford``, ``token`` (the Copilot track token that made
the space a ford, a jump or a chicane, see :mod:`trackkit.track_tokens`; else None),
``progress`` (front edge along the centre line from the start line, mm, BOARD-5), ``back``
(back edge), ``start_grid``, ``finished``.
Edge attributes: ``tags`` (frozenset: straight/diagonal, corner_entry, corner, slide,
shortcut, into_shortcut, out_of_shortcut, jump, ford, tile_edge, climb_up, climb_down),
``climb``
("up", "down" or None) and ``length`` (progress gained, mm).

Examples
--------
>>> from trackkit.models import Stage
>>> from trackkit.assemble import lay_out
>>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "205a"}, {"tile": "203a"}]})
>>> g = build_graph(lay_out(stage))
>>> g.number_of_nodes(), sorted(g.successors("2:1.1L"))
(18, ['2:1.2L', '2:1.2R'])
>>> has_path_to_finish(g)
True
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import networkx as nx

from trackkit import hexgrid
from trackkit.assemble import Layout, PlacedTile
from trackkit.models.stage import TokenKind
from trackkit.spaces import Step, connect, crosses_line

__all__ = ["build_graph", "has_path_to_finish", "meets", "reachable_from"]


def meets(a: PlacedTile, b: PlacedTile) -> bool:
    """Whether ``a``'s road end faces ``b``'s road start across a shared edge (BOARD-1)."""
    if a.road is None or b.road is None:
        return False
    d = hexgrid.direction_between(a.hex, b.hex)
    return d is not None and d == a.exit_world and b.entry_world == hexgrid.opposite(d)


def _token_climb(tile: PlacedTile) -> str | None:
    for tok in tile.tokens:
        if tok.kind is TokenKind.CLIMB and tok.value in (-1, 1):
            return "up" if tok.value == -1 else "down"  # rule: CLIMB-6
    return None


def build_graph(layout: Layout) -> nx.DiGraph:
    """Build the space graph of a laid-out stage.

    Parameters
    ----------
    layout : Layout
        The stage as placed by :func:`trackkit.assemble.lay_out`.

    Returns
    -------
    networkx.DiGraph
        With ``graph["start"]`` (spaces behind the start line, or the first tile's entry
        spaces when there is no start tile) and ``graph["finish"]`` (first spaces past the
        finish line; empty without a finish).
    """
    g = nx.DiGraph(name=layout.stage.name)
    offset = 0.0
    origin: float | None = None
    start_nodes: list[str] = []
    finish_nodes: list[str] = []
    prev: PlacedTile | None = None
    for tile in layout.chain:
        road = tile.road
        if road is None or tile.face is None or tile.index is None:
            prev = None
            offset += layout.size
            continue
        length = layout.road_length(tile)
        prefix = f"{tile.index}:"
        mud = sum(1 for t in tile.tokens if t.kind is TokenKind.MUD)
        face = tile.face
        for sid, sp in road.spaces.items():
            unit = road.units[sp.unit] if sp.unit >= 0 else None
            corner = None
            if unit is not None and unit.kind in ("corner", "chicane"):
                corner = f"{tile.index}:{unit.section}"
                if sp.token:  # a chicane token's row: a corner of its own in its section
                    corner += f".{unit.row}"
            limit = sp.limit
            if limit is not None and sp.kind in ("corner", "chicane"):
                limit -= mud  # rule: SHORTCUT-2 (mud lowers corner limits, not shortcuts)
            g.add_node(
                prefix + sid,
                tile=tile.index,
                face=face.id,
                hex=tile.hex,
                space=sid,
                kind=sp.kind,
                sides="".join(sorted(sp.sides)),
                limit=limit,
                printed_limit=sp.limit,
                corner=corner,
                corner_lane=sp.corner_lane,
                surface=face.surface.value,
                danger=face.danger.value,
                jump=sp.jump,
                ford=sp.ford,
                token=sp.token,
                progress=offset + sp.f1 * length,
                back=offset + sp.f0 * length,
                start_grid=False,
                finished=False,
                unit=sp.unit,
            )
        token_climb = _token_climb(tile) if road.climb is None else None
        for step in road.steps:
            tags = step.tags
            if token_climb and crosses_line(road.spaces[step.source], road.spaces[step.target]):
                tags = tags | {f"climb_{token_climb}"}
            _add_step(g, Step(prefix + step.source, prefix + step.target, tags))
        if prev is not None and prev.road is not None and meets(prev, tile):
            for step in connect(
                prev.road.units[-1],
                road.units[0],
                prev.road.spaces,
                road.spaces,
                internal=False,
                a_prefix=f"{prev.index}:",
                b_prefix=prefix,
            ):
                _add_step(g, step)
        if road.start_after is not None and origin is None:
            origin = offset + road.units[road.start_after].f1 * length
            start_nodes = [prefix + s for u in road.units[: road.start_after + 1] for s in u.spaces]
        if road.finish_after is not None and not finish_nodes:
            if road.finish_after + 1 < len(road.units):
                finish_nodes = [prefix + s for s in road.units[road.finish_after + 1].entries]
            elif layout.chain[-1] is tile:
                finish_nodes = [prefix + s for s in road.units[-1].exits]
        offset += length
        prev = tile

    if not start_nodes:
        first = next((t for t in layout.chain if t.road is not None), None)
        if first is not None:
            start_nodes = [f"{first.index}:{s}" for s in first.road.units[0].entries]  # type: ignore[union-attr]
    shift = origin or 0.0
    for _, data in g.nodes(data=True):
        data["progress"] -= shift
        data["back"] -= shift
    for n in start_nodes:
        g.nodes[n]["start_grid"] = True
    for n in finish_nodes:
        g.nodes[n]["finished"] = True
    for u, v, data in g.edges(data=True):
        data["length"] = g.nodes[v]["progress"] - g.nodes[u]["progress"]
    g.graph["start"] = start_nodes
    g.graph["finish"] = finish_nodes
    return g


def _add_step(g: nx.DiGraph, step: Step) -> None:
    target = g.nodes[step.target]
    if (
        target["kind"] in ("corner", "chicane")
        and target["limit"] is not None
        and target["limit"] <= 0
    ):
        return  # rule: CORNER-1 (a corner space at limit 0 or less cannot be entered)
    climb = "up" if "climb_up" in step.tags else "down" if "climb_down" in step.tags else None
    g.add_edge(step.source, step.target, tags=step.tags, climb=climb)


def reachable_from(g: nx.DiGraph, sources: Iterable[str]) -> set[str]:
    """Every node reachable from any of ``sources`` (the sources included)."""
    seen = set(sources)
    queue = deque(seen)
    while queue:
        for nxt in g.successors(queue.popleft()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def has_path_to_finish(g: nx.DiGraph) -> bool:
    """Whether some chain of legal steps leads from the start to past the finish line."""
    finish = set(g.graph.get("finish", ()))
    if not finish:
        return False
    return bool(reachable_from(g, g.graph.get("start", ())) & finish)
