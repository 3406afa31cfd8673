"""What each tile of a map or a sheet shows, for both series: :class:`TileArt` s.

:func:`stage_arts` reads a laid-out stage and its graph into one :class:`TileArt` per
tile: the road driven with the graph's limits and climb lines (DIRT), every road of a
GT piece with the graph nodes of the visits that drive it (:func:`piece_art`; a piece
driven twice is drawn once), the tiles beside the road and those the road does not run
through; a space cut by a skew edge is made one outline, drawn by the later of its two
tiles (:func:`join_skew_spaces`); and every label's place is chosen over the whole map
(:func:`trackkit.render.labels.place_labels`). :func:`gt_face_art` is a GT face on its
own (a tile sheet). :func:`trackkit.render.tile.draw_tile` draws them.

Examples
--------
>>> from trackkit.models import Stage
>>> from trackkit.stage.assemble import lay_out
>>> stage = Stage.model_validate({"format": "trackkit-stage/1",
...     "tiles": [{"tile": "202a"}, {"tile": "217b", "turn": "left"}, {"tile": "203a"}]})
>>> [(a.key, a.label) for a in stage_arts(lay_out(stage))]
[('1', '1 · 202a'), ('2', '2 · 217b'), ('3', '3 · 203a')]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import networkx as nx

from trackkit.models.tile import TileFace
from trackkit.render.draw import Climb, GtArt, GtRoadArt, TileArt, clean_text
from trackkit.render.labels import place_labels
from trackkit.road import hexgrid
from trackkit.road.geometry import gt_shape, space_polygon
from trackkit.road.spaces import drive, face_roads
from trackkit.stage.assemble import Layout, PlacedTile

__all__ = ["gt_face_art", "join_skew_spaces", "node_owner", "piece_art", "stage_arts"]

Point = tuple[float, float]


def node_owner(graph: nx.DiGraph | None) -> dict[tuple[int, str], str]:
    """``(tile number, space id) -> graph node`` for every part of every node (a space
    cut by a skew edge is one node of two parts)."""
    out: dict[tuple[int, str], str] = {}
    if graph is None:
        return out
    for node, data in graph.nodes(data=True):
        for tile, sid in data.get("parts", ()):
            out[(tile, sid)] = node
    return out


def _all_roads(face: TileFace) -> list[tuple[str, int]]:
    """``(road id, from edge)`` of every road of a GT face, the road under a bridge first."""
    roads = face_roads(face)
    hidden = {r.id for r in (face.layout.roads if face.layout else []) if r.hidden}
    return [(rid, a) for rid, a, _b in sorted(roads, key=lambda r: r[0] not in hidden)]


def gt_face_art(
    face: TileFace, *, centre: Point = (0.0, 0.0), classes: Sequence[str] = ()
) -> TileArt:
    """A GT face on its own (a tile sheet): every road driven from its ``from`` edge, a
    road with a start/finish line the way the race runs (its grid shows which)."""
    lines = {sf.road: sf.race_toward for sf in (face.layout.start_finish if face.layout else [])}
    roads = []
    for rid, edge in _all_roads(face):
        toward = lines.get(rid)
        if toward is not None:
            _id, a, b = next(r for r in face_roads(face) if r[0] == rid)
            edge = a if toward == b else b
        roads.append(GtRoadArt(drive(face, edge, rid)))
    grid = {}
    if face.layout is not None:
        for sf in face.layout.start_finish:
            slots = [sid for row in sf.grid for sid in row]
            grid.update({sid: n for n, sid in enumerate(slots, start=1)})
    arrows = []
    for sf in face.layout.start_finish if face.layout is not None else []:
        road = next(r for r in roads if r.road.road_id == sf.road)
        arrows.append((sf.road, gt_shape(road.road.cut.road).progress(sf.line)))
    return TileArt(
        key=face.id,
        face=face,
        road=None,
        centre=centre,
        classes=["gt", *classes],
        gt=GtArt(roads=roads, grid=grid, arrows=arrows),
    )


def piece_art(
    tile: PlacedTile,
    visits: Sequence[PlacedTile],
    graph: nx.DiGraph | None,
    owner: Mapping[tuple[int, str], str],
    *,
    key: str,
    label: str,
    centre: Point,
    classes: Sequence[str],
    arrow: bool = False,
) -> TileArt:
    """A GT piece on a map: the roads its ``visits`` drive (with their graph nodes), the
    face's other roads, the grid (numbered as the graph starts the race) and the pit
    access; ``arrow``: the race direction is shown on it."""
    face = tile.face
    assert face is not None and face.layout is not None
    driven = {v.road.road_id: v for v in visits if v.road is not None}
    first = visits[0].index if visits else None
    roads: list[GtRoadArt] = []
    limits: dict[str, int | None] = {}
    for rid, edge in _all_roads(face):
        visit = driven.get(rid)
        if visit is None or visit.road is None or visit.index is None:
            roads.append(GtRoadArt(drive(face, edge, rid), on_track=not visits))
            continue
        nodes = {}
        for sid in visit.road.spaces:
            node = owner.get((visit.index, sid)) or owner.get((first or 0, sid))
            if node is not None:
                nodes[sid] = node
                if graph is not None:
                    limits[node] = graph.nodes[node]["limit"]
        roads.append(GtRoadArt(visit.road, nodes))
    art = TileArt(
        key=key,
        face=face,
        road=None,
        rotation=tile.rotation,
        centre=centre,
        tokens=tile.tokens,
        classes=list(
            dict.fromkeys(
                ["gt", *classes, f"surface-{face.surface.value}", f"danger-{face.danger.value}"]
            )
        ),
        label=label,
        limits=limits,
        node_prefix=f"{tile.index}:" if tile.index is not None else None,
        gt=GtArt(roads=roads),
    )
    gt = art.gt
    assert gt is not None
    if graph is not None:
        mine = {node for r in roads for node in r.nodes.values()}
        gt.pit_access = frozenset(n for n in mine if graph.nodes[n].get("pit") is not None)
        start = list(graph.graph.get("start", ()))
        for r in roads:
            back = {node: sid for sid, node in r.nodes.items()}
            for n, node in enumerate(start, start=1):
                if node in back and r.road.line is not None:
                    gt.grid[back[node]] = n
    spot = _arrow_place(roads) if arrow else None
    gt.arrows = [spot] if spot is not None else []
    return art


def _arrow_place(roads: Sequence[GtRoadArt]) -> tuple[str, float] | None:
    """The race direction goes by the start/finish line driven the right way, else in the
    middle of the first road driven."""
    on = [r for r in roads if r.nodes]
    for r in on:
        line = r.road.line
        if line is not None and not r.road.grid_backwards:
            return (r.road.road_id, gt_shape(r.road.cut.road).progress(line.line))
    return (on[0].road.road_id, 0.5) if on else None


def join_skew_spaces(
    arts: Sequence[TileArt],
    graph: nx.DiGraph | None,
    where: Mapping[int, tuple[int, PlacedTile]],
    size: float,
) -> None:
    """Make each space cut by a skew edge one outline, drawn by the later of its tiles.

    ``where`` gives each tile number in driving order the position of its piece's art in
    ``arts`` (the drawing order) and the placed tile (its road has the space's part).
    """
    from shapely import affinity
    from shapely.geometry import MultiPolygon, Polygon
    from shapely.ops import unary_union

    if graph is None:
        return
    for node, data in graph.nodes(data=True):
        parts = data.get("parts", ())
        pieces = {where[t][0] for t, _sid in parts if t in where}
        if len(parts) < 2 or len(pieces) < 2:
            continue
        at = max(pieces)
        host = arts[at]
        halves = []
        mine = None
        for t, sid in parts:
            pos, tile = where[t]
            road = tile.road
            if road is None or sid not in road.spaces:
                continue
            poly = space_polygon(road, road.spaces[sid], size)
            art = arts[pos]
            turn = math.radians(60 * (art.rotation - host.rotation))
            c, s = math.cos(turn), math.sin(turn)
            dx, dy = art.centre[0] - host.centre[0], art.centre[1] - host.centre[1]
            back = math.radians(-60 * host.rotation)
            cb, sb = math.cos(back), math.sin(back)
            ox, oy = cb * dx - sb * dy, sb * dx + cb * dy
            halves.append(affinity.affine_transform(poly, [c, -s, s, c, ox, oy]))
            if pos == at:
                mine = sid
            elif art.gt is not None:
                art.gt.elsewhere.add(sid)
        if mine is None or host.gt is None:
            continue
        eps = 0.02
        whole = unary_union([h.buffer(eps, join_style="mitre") for h in halves])
        whole = whole.buffer(-eps, join_style="mitre")
        if isinstance(whole, Polygon | MultiPolygon):
            host.gt.joined[mine] = (node, whole)


def stage_arts(layout: Layout, graph: nx.DiGraph | None = None) -> list[TileArt]:
    """What to draw for each placed tile, with the graph's limits and climb lines.

    A Rallyman: GT piece is drawn once with every road it is driven on
    (:func:`trackkit.render.gt_road.piece_art`); a space cut by a skew edge is drawn whole by
    the later of its two tiles (:func:`trackkit.render.gt_road.join_skew_spaces`).
    """
    size = layout.size
    climbs: dict[tuple[int, int], Climb] = {}
    if graph is not None:
        nodes = graph.nodes
        for u, v, data in graph.edges(data=True):
            way = data.get("climb")
            if not way:
                continue
            a, b = nodes[u], nodes[v]
            # Climb lines lie between units of one tile; steps into/out of a shortcut
            # island also climb, but their line is the island's edge, drawn with it.
            if a["tile"] == b["tile"] and "shortcut" not in (a["kind"], b["kind"]):
                climbs[(a["tile"], a["unit"])] = way
    gt = layout.series == "gt" or "gt" in layout.series_found
    owner = node_owner(graph) if gt else {}
    visits: dict[int, list[PlacedTile]] = {}
    for tile in layout.chain:
        if tile.index is not None and tile.road is not None:
            visits.setdefault(id(tile.visit_of or tile), []).append(tile)
    arrow_tile = _arrow_tile(layout)
    where: dict[int, tuple[int, PlacedTile]] = {}
    arts: list[TileArt] = []
    for tile in layout.chain:
        face = tile.face
        index = tile.index or tile.position
        centre = hexgrid.centre_mm(tile.hex, size)
        if tile.visit_of is not None:
            continue  # a GT piece driven twice is drawn once
        if face is not None and face.layout is not None:
            mine = visits.get(id(tile), [])
            numbers = ", ".join(str(v.index) for v in mine) or str(index)
            for v in mine:
                if v.index is not None:
                    where[v.index] = (len(arts), v)
            arts.append(
                piece_art(
                    tile,
                    mine,
                    graph,
                    owner,
                    key=str(index),
                    label=f"{numbers} · {face.id}",
                    centre=centre,
                    classes=[],
                    arrow=tile is arrow_tile,
                )
            )
            continue
        if face is None:
            arts.append(
                TileArt(
                    key=str(index),
                    face=None,
                    road=None,
                    rotation=tile.rotation,
                    centre=centre,
                    tokens=tile.tokens,
                    classes=["unknown"],
                    label=f"{index} · ? {clean_text(tile.raw_id, 40)}",
                )
            )
            continue
        limits: dict[str, int | None] = {}
        if graph is not None and tile.road is not None:
            for sid in tile.road.spaces:
                node = graph.nodes.get(f"{index}:{sid}")
                if node is not None:
                    limits[sid] = node["limit"]
        arts.append(
            TileArt(
                key=str(index),
                face=face,
                road=tile.road,
                rotation=tile.rotation,
                centre=centre,
                tokens=tile.tokens,
                classes=[f"surface-{face.surface.value}", f"danger-{face.danger.value}"],
                label=f"{index} · {face.id}",
                limits=limits,
                climb_lines={u: w for (t, u), w in climbs.items() if t == index},
                node_prefix=f"{index}:",
            )
        )
    join_skew_spaces(arts, graph, where, size)
    for tile in layout.scenery:
        face = tile.face
        assert face is not None  # only known faces stand beside the road
        classes = ["scenery", f"surface-{face.surface.value}", f"kind-{face.kind.value}"]
        if face.layout is not None:  # the GT pit tile: its board
            art = piece_art(
                tile,
                [],
                graph,
                owner,
                key=f"s{tile.position}",
                label=face.id,
                centre=hexgrid.centre_mm(tile.hex, size),
                classes=classes,
            )
            art.sublabel = face.kind.value
            arts.append(art)
            continue
        arts.append(
            TileArt(
                key=f"s{tile.position}",
                face=face,
                road=None,
                rotation=tile.rotation,
                centre=hexgrid.centre_mm(tile.hex, size),
                tokens=tile.tokens,
                classes=classes,
                label=face.id,
                sublabel=face.kind.value,
            )
        )
    # Tiles on the map that the road does not run through (an editor file's road breaks
    # before them): drawn where they lie, with their printed limits, marked not driven.
    for tile in layout.undriven:
        face = tile.face
        if face is not None and face.layout is not None:
            arts.append(
                piece_art(
                    tile,
                    [],
                    None,
                    {},
                    key=f"u{tile.position}",
                    label=f"{face.id} · not driven",
                    centre=hexgrid.centre_mm(tile.hex, size),
                    classes=["undriven"],
                )
            )
            continue
        name = face.id if face is not None else f"? {clean_text(tile.raw_id, 40)}"
        surface = [f"surface-{face.surface.value}", f"danger-{face.danger.value}"] if face else []
        arts.append(
            TileArt(
                key=f"u{tile.position}",
                face=face,
                road=tile.road if face is not None else None,
                rotation=tile.rotation,
                centre=hexgrid.centre_mm(tile.hex, size),
                tokens=tile.tokens,
                classes=["undriven", *surface] if face else ["undriven", "unknown"],
                label=name if tile.road is None else f"{name} · not driven",
                sublabel="not driven" if tile.road is None else None,
            )
        )
    place_labels(arts, size)
    return arts


def _arrow_tile(layout: Layout) -> PlacedTile | None:
    """The GT piece that shows the race direction: the one with the start/finish line
    driven the way its grid faces, else the first one driven."""
    if layout.series != "gt":
        return None
    pieces = [t for t in layout.chain if t.road is not None and t.road.series == "gt"]
    for t in pieces:
        if t.road is not None and t.road.start_at is not None:
            return t.visit_of or t
    return (pieces[0].visit_of or pieces[0]) if pieces else None
