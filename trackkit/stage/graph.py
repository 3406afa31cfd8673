"""The stage graph: one node per space, one edge per legal forward step, for both series.

This networkx DiGraph is the single source of movement truth: validation, the rules
engine, simulation and rendering read it; nothing re-derives movement on its own. It is
built from the roads as driven (:mod:`trackkit.road.spaces`, the one road model): their spaces,
the steps of their cut, and the steps across the tile edges where the roads meet (section
5.7 of the GT format: slots, and skew halves made one space).

Node ids are ``"<tile>:<space>"`` with the tile's number in driving order and the space id
of :mod:`trackkit.road.spaces` (``"3:2.O1"``: tile 3, section 2, outer lane, first space;
``"5:A2b"`` on a GT face). The two halves of a space cut by a skew edge are one node, named
by the half met first. Node attributes: ``tile``, ``face``, ``hex``, ``space``, ``road``
(the road's id on the face), ``kind`` (lane, full, slide, corner, chicane, shortcut),
``lanes`` (the lanes it lies in, counted from the left in the driving direction), ``limit``
(corner/chicane/shortcut limit after mud tokens, else None), ``printed_limit``,
``triangle`` (GT: the limit is in a warning triangle), ``corner`` (corner id),
``corner_lane``, ``surface``, ``danger``, ``jump``, ``ford``, ``token`` (the Copilot track
token that made the space a ford, a jump or a chicane, see :mod:`trackkit.stage.track_tokens`;
else None), ``progress`` (front edge along the centre line from the start line, mm,
BOARD-5; on a circuit, along the lap, ``0 <= progress < lap_length``), ``back`` (back
edge), ``start_grid``, ``finished``, ``unit`` (DIRT cross-section; -1 off the rows and on GT
roads), ``beside`` (the nodes side by side with it, TRAFFIC-1), ``overlaps`` (the nodes
covering common ground with it: slide spaces and the lanes under them, GT crossings),
``parts`` (the ``(tile, space)`` halves of a joined skew space, else the one), ``hidden``
(the road under a GT bridge) and ``pit`` (the position in the stage file of the pit tile
the space gives access to, GT-2, else None).
Edge attributes: ``tags`` (frozenset: straight/diagonal, corner_entry, corner, slide,
shortcut, into_shortcut, out_of_shortcut, jump, ford, tile_edge, climb_up, climb_down,
dotted, lap_line), ``climb`` ("up", "down" or None), ``limit`` and ``hazard`` (a straight
step across a GT dotted line, CORNER-4) and ``length`` (progress gained, mm).

Graph data: ``start`` (start spaces, in order), ``finish`` (first spaces past the finish
line), ``series`` (dirt or gt), ``circuit`` (a closed lap), ``laps`` and ``lap_length`` (mm)
on a circuit, ``pits`` (each pit tile's position and the nodes that give access to it).

Examples
--------
>>> from trackkit.models import Stage
>>> from trackkit.stage.assemble import lay_out
>>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "205a"}, {"tile": "203a"}]})
>>> g = build_graph(lay_out(stage))
>>> g.number_of_nodes(), sorted(g.successors("2:1.1L"))
(18, ['2:1.2L', '2:1.2R'])
>>> has_path_to_finish(g)
True
"""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx

from trackkit.models.stage import TokenKind
from trackkit.models.tile import FaceKind
from trackkit.road import hexgrid
from trackkit.road.spaces import DrivenRoad, Step, crosses_line, join
from trackkit.stage.assemble import Layout, PlacedTile

__all__ = [
    "build_graph",
    "has_finished",
    "has_path_to_finish",
    "lap_distance",
    "meets",
    "pit_access",
    "reachable_from",
]


def meets(a: PlacedTile, b: PlacedTile) -> bool:
    """Whether ``a``'s road end faces ``b``'s road start across a shared edge (BOARD-1)."""
    if a.road is None or b.road is None:
        return False
    d = hexgrid.direction_between(a.hex, b.hex)
    return d is not None and d == a.exit_world and b.entry_world == hexgrid.opposite(d)


def edge_fits(a: PlacedTile, b: PlacedTile) -> bool:
    """Whether the roads of two meeting tiles fit at their edge: equal lanes, skew hands."""
    if a.road is None or b.road is None or a.face is None or b.face is None:
        return False
    if a.face.lanes.get(a.road.exit) != b.face.lanes.get(b.road.entry):
        return False
    return a.face.skews.get(a.road.exit) == b.face.skews.get(b.road.entry)


def _token_climb(tile: PlacedTile) -> str | None:
    for tok in tile.tokens:
        if tok.kind is TokenKind.CLIMB and tok.value in (-1, 1):
            return "up" if tok.value == -1 else "down"  # rule: CLIMB-6
    return None


_NONE: frozenset[str] = frozenset()

#: The attributes of each space of a driven road that do not depend on where it lies.
_STATIC: dict[int, tuple[DrivenRoad, dict[str, dict[str, object]]]] = {}


def _static(road: DrivenRoad) -> dict[str, dict[str, object]]:
    """Per space of ``road``: its node attributes that its tile's place does not change."""
    hit = _STATIC.get(id(road))
    if hit is not None and hit[0] is road:
        return hit[1]
    out: dict[str, dict[str, object]] = {
        sid: {
            "space": sid,
            "road": road.road_id,
            "kind": sp.kind,
            "lanes": sp.lanes,
            "printed_limit": sp.limit,
            "triangle": sp.triangle,
            "corner_lane": sp.corner_lane,
            "jump": sp.jump,
            "ford": sp.ford,
            "token": sp.token,
            "start_grid": False,
            "finished": False,
            "past_line": False,
            "unit": sp.unit,
            "beside": _NONE,
            "overlaps": _NONE,
            "hidden": road.hidden,
            "pit": None,
        }
        for sid, sp in road.spaces.items()
    }
    if len(_STATIC) >= 4096:  # the roads of the last stages laid out are enough
        _STATIC.clear()
    _STATIC[id(road)] = (road, out)
    return out


class _Builder:
    """The nodes and edges of one stage, and which node each tile's space became."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.g = nx.DiGraph(name=layout.stage.name)
        self.node: dict[tuple[int, str], str] = {}
        """(tile index, space id) -> node id."""
        self.shared: dict[int, dict[str, str]] = {}
        """A tile driven twice: first visit's index -> space id -> node (junction spaces)."""
        self.closed: set[str] = set()
        """Corner spaces mud has closed: no step enters them (CORNER-1)."""

    def node_of(self, tile: PlacedTile, sid: str) -> str:
        return self.node[(tile.index or 0, sid)]

    def add_spaces(self, tile: PlacedTile, road: DrivenRoad, offset: float, length: float) -> None:
        assert tile.face is not None and tile.index is not None
        face = tile.face
        index = tile.index
        prefix = f"{index}:"
        mud = sum(1 for t in tile.tokens if t.kind is TokenKind.MUD)
        first = tile.visit_of.index if tile.visit_of is not None else index
        shared = self.shared.setdefault(first or 0, {})
        static = _static(road)
        surface, danger = face.surface.value, face.danger.value
        nodes = []
        for sid, sp in road.spaces.items():
            if sid in shared:  # a junction space met again on another road of the tile
                self.node[(index, sid)] = shared[sid]
                continue
            node = prefix + sid
            self.node[(index, sid)] = shared[sid] = node
            limit = sp.limit
            if limit is not None and sp.kind in ("corner", "chicane"):
                limit -= mud  # rule: SHORTCUT-2 (mud lowers corner limits, not shortcuts)
                if limit <= 0:
                    self.closed.add(node)
            attrs = dict(static[sid])
            attrs.update(
                tile=index,
                face=face.id,
                hex=tile.hex,
                limit=limit,
                corner=None if sp.corner is None else prefix + sp.corner,
                surface=surface,
                danger=danger,
                progress=offset + sp.f1 * length,
                back=offset + sp.f0 * length,
                parts=((index, sid),),
            )
            nodes.append((node, attrs))
        self.g.add_nodes_from(nodes)

    def add_steps(self, tile: PlacedTile, road: DrivenRoad) -> None:
        token_climb = _token_climb(tile) if road.climb is None else None
        index = tile.index or 0
        node = self.node
        edges = []
        for step in road.steps:
            tags = step.tags
            if token_climb and crosses_line(road.spaces[step.source], road.spaces[step.target]):
                tags = tags | {f"climb_{token_climb}"}
            edge = self._edge(node[(index, step.source)], node[(index, step.target)], tags, step)
            if edge is not None:
                edges.append(edge)
        self.g.add_edges_from(edges)

    def _edge(
        self, u: str, v: str, tags: frozenset[str], step: Step
    ) -> tuple[str, str, dict[str, object]] | None:
        if v in self.closed:
            return None  # rule: CORNER-1 (a corner space at limit 0 or less cannot be entered)
        climb = "up" if "climb_up" in tags else "down" if "climb_down" in tags else None
        return (u, v, {"tags": tags, "climb": climb, "limit": step.limit, "hazard": step.hazard})

    def join(self, a: PlacedTile, b: PlacedTile) -> list[tuple[str, str]]:
        """Steps from ``a`` into ``b`` across their edge; skew halves to make one node."""
        assert a.road is not None and b.road is not None
        steps, halves = join(a.road, b.road)
        edges = []
        for step in steps:
            edge = self._edge(
                self.node_of(a, step.source), self.node_of(b, step.target), step.tags, step
            )
            if edge is not None:
                edges.append(edge)
        self.g.add_edges_from(edges)
        return [(self.node_of(a, x), self.node_of(b, y)) for x, y in halves]


def build_graph(layout: Layout) -> nx.DiGraph:
    """Build the space graph of a laid-out stage or track.

    Parameters
    ----------
    layout : Layout
        The stage as placed by :func:`trackkit.stage.assemble.lay_out`.

    Returns
    -------
    networkx.DiGraph
        With ``graph["start"]`` (spaces behind the start line, or the first tile's entry
        spaces when there is no start tile; a GT track's grid slots in order) and
        ``graph["finish"]`` (first spaces past the finish line; empty without a finish).
        A circuit closes into a cycle: the last tile's exit meets the first tile's entry.
    """
    b = _Builder(layout)
    g = b.g
    offset = 0.0
    origin: float | None = None
    start_nodes: list[str] = []
    finish_nodes: list[str] = []
    at_line: list[str] = []
    halves: list[tuple[str, str]] = []
    prev: PlacedTile | None = None
    gt_p2p = layout.series == "gt" and not layout.circuit
    for tile in layout.chain:
        road = tile.road
        if road is None or tile.face is None or tile.index is None:
            prev = None
            offset += layout.size
            continue
        length = layout.road_length(tile)
        b.add_spaces(tile, road, offset, length)
        b.add_steps(tile, road)
        if prev is not None and meets(prev, tile) and edge_fits(prev, tile):
            halves += b.join(prev, tile)
        at = road.start_at
        if at is not None and origin is None:
            origin = offset + at * length
            start_nodes = [b.node_of(tile, s) for s in road.start_spaces]
            if road.series == "gt" and not gt_p2p:  # a circuit starts and finishes here
                finish_nodes = [b.node_of(tile, s) for s in road.finish_spaces]
                at_line = [b.node_of(tile, s) for s in road.line_ends]
        elif gt_p2p and at is not None:
            finish_nodes = [b.node_of(tile, s) for s in road.finish_spaces]
        elif road.series == "dirt" and road.finish_after is not None and not finish_nodes:
            if road.finish_spaces:
                finish_nodes = [b.node_of(tile, s) for s in road.finish_spaces]
            elif layout.chain[-1] is tile:
                finish_nodes = [b.node_of(tile, s) for s in road.exits]
        offset += length
        prev = tile

    if layout.circuit and layout.chain:
        last, first = layout.chain[-1], layout.chain[0]
        if meets(last, first) and edge_fits(last, first):
            halves += b.join(last, first)
    if not start_nodes:
        first_road = next((t for t in layout.chain if t.road is not None), None)
        if first_road is not None and first_road.road is not None:
            start_nodes = [b.node_of(first_road, s) for s in first_road.road.entries]
    alias = _merge_halves(g, halves)
    start_nodes = [alias.get(n, n) for n in start_nodes]
    finish_nodes = [alias.get(n, n) for n in finish_nodes]
    at_line = [alias.get(n, n) for n in at_line]
    _pairs(b, layout, alias)

    lap = offset if layout.circuit else None
    shift = origin or 0.0
    for _, data in g.nodes(data=True):
        data["progress"] -= shift
        data["back"] -= shift
        if lap:  # along the lap: fronts in (0, lap], backs in [0, lap)
            data["progress"] %= lap
            data["back"] %= lap
    if lap:
        for n in at_line:  # the line is the end of the lap for the spaces behind it
            g.nodes[n]["progress"] = lap
        for n in finish_nodes:  # and its beginning for those past it
            g.nodes[n]["back"] = 0.0
    for n in start_nodes:
        g.nodes[n]["start_grid"] = True
    for n in finish_nodes:
        if layout.circuit:
            g.nodes[n]["past_line"] = True
        else:
            g.nodes[n]["finished"] = True
    past = set(finish_nodes) if layout.circuit else set()
    for u, v, data in g.edges(data=True):
        gain = g.nodes[v]["progress"] - g.nodes[u]["progress"]
        if lap:
            gain %= lap
        data["length"] = gain
        if v in past and u not in past:
            data["tags"] = data["tags"] | {"lap_line"}
    g.graph["start"] = start_nodes
    g.graph["finish"] = finish_nodes
    g.graph["series"] = layout.series
    g.graph["circuit"] = layout.circuit
    if layout.circuit:
        g.graph["laps"] = layout.laps
        g.graph["lap_length"] = lap
    g.graph["pits"] = pit_access(g, layout, b.node)
    return g


def _merge_halves(g: nx.DiGraph, halves: list[tuple[str, str]]) -> dict[str, str]:
    """Make each pair of skew halves one node (the half met first keeps its id).

    Returns the ids that went and the node they became.
    """
    alias: dict[str, str] = {}
    for x, y in halves:
        x, y = alias.get(x, x), alias.get(y, y)
        if x == y or x not in g or y not in g:
            continue
        front, parts = g.nodes[y]["progress"], g.nodes[x]["parts"] + g.nodes[y]["parts"]
        nx.contracted_nodes(g, x, y, self_loops=False, copy=False)
        data = g.nodes[x]
        data.pop("contraction", None)
        data["progress"], data["parts"] = front, parts
        alias[y] = x
        for k, v in list(alias.items()):
            if v == y:
                alias[k] = x
    return alias


def _pairs(b: _Builder, layout: Layout, alias: dict[str, str]) -> None:
    """Side-by-side pairs and overlapping spaces, from the cut of each road (and the
    crossings of a GT face driven twice)."""
    g = b.g
    beside: dict[str, set[str]] = {}
    overlaps: dict[str, set[str]] = {}

    def pair(store: dict[str, set[str]], x: str, y: str) -> None:
        x, y = alias.get(x, x), alias.get(y, y)
        if x != y and x in g and y in g:
            store.setdefault(x, set()).add(y)
            store.setdefault(y, set()).add(x)

    on_tile: dict[int, list[PlacedTile]] = {}
    for tile in layout.chain:
        road = tile.road
        if road is None or tile.index is None:
            continue
        first = tile.visit_of if tile.visit_of is not None else tile
        on_tile.setdefault(first.index or 0, []).append(tile)
    nodes = g.nodes
    for tile in layout.chain:
        road = tile.road
        if road is None or tile.index is None:
            continue
        near, over = _neighbours(road)
        plain = not alias and len(on_tile[(tile.visit_of or tile).index or 0]) == 1
        if plain:  # every space of the tile is its own node: the cut's pairs as they are
            prefix = f"{tile.index}:"
            for sid, ids in near.items():  # rule: TRAFFIC-1
                nodes[prefix + sid]["beside"] = frozenset(prefix + s for s in ids)
            for sid, ids in over.items():
                nodes[prefix + sid]["overlaps"] = frozenset(prefix + s for s in ids)
            continue
        for sid, ids in near.items():
            for s in ids:
                pair(beside, b.node_of(tile, sid), b.node_of(tile, s))
        for sid, ids in over.items():
            for s in ids:
                pair(overlaps, b.node_of(tile, sid), b.node_of(tile, s))
    for visits in on_tile.values():  # rule: TRAFFIC-3 (a crossing: spaces block each other)
        face = visits[0].face
        if face is None or face.layout is None or not face.layout.overlaps:
            continue
        where = {
            sid: b.node_of(t, sid) for t in visits for sid in (t.road.spaces if t.road else ())
        }
        for x, y in face.layout.overlaps:
            if x in where and y in where:
                pair(overlaps, where[x], where[y])
    for n, close in beside.items():
        g.nodes[n]["beside"] = frozenset(close)
    for n, covered in overlaps.items():
        g.nodes[n]["overlaps"] = frozenset(covered)


_NEIGHBOURS: dict[
    int, tuple[DrivenRoad, dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]
] = {}


def _neighbours(
    road: DrivenRoad,
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """The cut's side-by-side and overlapping spaces of ``road``, space by space."""
    hit = _NEIGHBOURS.get(id(road))
    if hit is not None and hit[0] is road:
        return hit[1], hit[2]
    near: dict[str, list[str]] = {}
    over: dict[str, list[str]] = {}
    for store, pairs in ((near, road.cut.beside), (over, road.cut.overlaps)):
        for p in pairs:
            x, y = sorted(p)
            store.setdefault(x, []).append(y)
            store.setdefault(y, []).append(x)
    out = ({k: tuple(v) for k, v in near.items()}, {k: tuple(v) for k, v in over.items()})
    if len(_NEIGHBOURS) >= 4096:  # the roads of the last stages laid out are enough
        _NEIGHBOURS.clear()
    _NEIGHBOURS[id(road)] = (road, *out)
    return out


def pit_access(
    g: nx.DiGraph, layout: Layout, node: dict[tuple[int, str], str] | None = None
) -> list[dict[str, object]]:
    """The pit tiles beside the road and the spaces that give access to them (GT-2).

    DEFAULT (``docs/rules.md``, GT-2): a pit tile (101) gives access from the spaces of the
    lane nearest to it on each road tile it shares an edge with (the lane on that side of
    the road); the node attribute ``pit`` names the pit tile (its position in the file).
    """
    out: list[dict[str, object]] = []
    pits = [t for t in layout.scenery if t.face is not None and t.face.kind is FaceKind.PIT]
    for pit in pits:
        access: list[str] = []
        for tile in layout.chain:
            road = tile.road
            if road is None or tile.index is None or road.hidden:
                continue
            d = hexgrid.direction_between(tile.hex, pit.hex)
            if d is None:
                continue
            lane = _lane_toward(road, hexgrid.local_edge(d, tile.rotation))
            if lane is None:
                continue
            for sid, sp in road.spaces.items():
                if lane in sp.lanes and sp.kind != "shortcut":
                    n = (node or {}).get((tile.index, sid), f"{tile.index}:{sid}")
                    if n in g and n not in access:
                        access.append(n)
                        g.nodes[n]["pit"] = pit.position
        out.append({"position": pit.position, "hex": list(pit.hex), "access": access})
    return out


def _lane_toward(road: DrivenRoad, edge: int) -> int | None:
    """The road's lane nearest local ``edge`` (lanes counted from the left, driving), or
    None when ``edge`` is an end of the road."""
    if edge in (road.entry, road.exit):
        return None
    # edges met turning clockwise from the entry to the exit lie on the driver's left
    left = (edge - road.entry) % 6 < (road.exit - road.entry) % 6
    lanes = [k for sp in road.spaces.values() for k in sp.lanes]
    if not lanes:
        return None
    return 1 if left else max(lanes)


def lap_distance(progress: float, crossings: int, lap_length: float) -> float:
    """How far along a circuit race a car is, comparable across the line (mm).

    Parameters
    ----------
    progress : float
        The node's ``progress`` (along the lap, from the start/finish line).
    crossings : int
        How many times the car has crossed the line (a step tagged ``lap_line``). Cars
        start on the grid behind the line, so the first crossing begins lap 1.
    lap_length : float
        ``graph["lap_length"]``.

    Examples
    --------
    A car on the grid, 30 mm behind the line of a 2000 mm lap, is behind one that has just
    crossed it, which is behind one on its second lap:

    >>> grid, crossed, second = (1970.0, 0), (10.0, 1), (5.0, 2)
    >>> [lap_distance(p, n, 2000.0) for p, n in (grid, crossed, second)]
    [-30.0, 10.0, 2005.0]
    """
    return (crossings - 1) * lap_length + progress


def has_finished(crossings: int, laps: int) -> bool:
    """Whether a car that crossed the line ``crossings`` times has finished ``laps`` laps:
    the finish is crossing the line after the last lap (the start crossing is not a lap).

    >>> has_finished(3, 3), has_finished(4, 3)
    (False, True)
    """
    return crossings > laps


def reachable_from(g: nx.DiGraph, sources: Iterable[str]) -> set[str]:
    """Every node reachable from any of ``sources`` (the sources included)."""
    given = set(sources)
    known = [s for s in given if s in g]
    if not known:
        return given
    return given | {n for layer in nx.bfs_layers(g, known) for n in layer}


def has_path_to_finish(g: nx.DiGraph) -> bool:
    """Whether some chain of legal steps leads from the start to past the finish line."""
    finish = set(g.graph.get("finish", ()))
    if not finish:
        return False
    return bool(reachable_from(g, g.graph.get("start", ())) & finish)
