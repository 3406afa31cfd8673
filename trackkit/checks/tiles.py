"""Self-checks of one tile face, in both driving directions (shipped and user tiles), and
the faces a stage drives whose data is uncertain."""

from __future__ import annotations

import networkx as nx

from trackkit.checks.catalogue import finding
from trackkit.models.findings import Finding, Location
from trackkit.models.tile import ChicaneSection, Confidence, CornerSection, TileFace
from trackkit.road.spaces import drive
from trackkit.stage.assemble import Layout, PlacedTile
from trackkit.stage.graph import reachable_from

__all__ = ["check_face", "uncertain_faces"]


def uncertain_faces(layout: Layout) -> list[Finding]:
    """T505: a note for each face of low confidence that the road drives (the GT
    junctions 151 and 152 today), naming the tiles and the roads driven on it."""
    driven: dict[str, list[str]] = {}
    first: dict[str, PlacedTile] = {}
    for tile in layout.chain:
        face = tile.face
        if face is None or face.confidence is not Confidence.LOW or tile.road is None:
            continue
        first.setdefault(face.id, tile)
        road = f", road {tile.road_id}" if face.layout is not None else ""
        driven.setdefault(face.id, []).append(f"tile {tile.index}{road}")
    return [
        finding(
            "T505",
            f"the track drives {face_id} ({'; '.join(tiles)}), a face whose roads were read "
            "from its picture with low confidence: how they are cut into spaces may differ "
            "from the printed tile",
            first[face_id].location(),
        )
        for face_id, tiles in driven.items()
    ]


def check_face(face: TileFace) -> list[Finding]:
    """Problems of a face's own data: reachability, limits, climb lines.

    Examples
    --------
    >>> from trackkit.tiles.library import default_library
    >>> check_face(default_library().get("224b"))
    []
    """
    out: list[Finding] = []
    road = face.road
    if road is None:
        return out
    loc = Location(tile=face.id)
    for sec_no, sec in enumerate(road.sections, start=1):
        limits: list[int] = []
        if isinstance(sec, CornerSection):
            limits = [sec.inner.limit, sec.outer.limit]
            if sec.inner.limit >= sec.outer.limit:  # rule: CORNER-2 (inner lane is slower)
                out.append(
                    finding(
                        "T503",
                        f"{face.id} section {sec_no}: inner limit "
                        f"{sec.inner.limit} is not below outer {sec.outer.limit}",
                        loc,
                    )
                )
        elif isinstance(sec, ChicaneSection):
            limits = [sec.limit]
        limits += [s.limit for s in road.shortcuts]
        for lim in limits:
            if not 1 <= lim <= 6:
                out.append(finding("T502", f"{face.id}: limit {lim} is not a gear 1..6", loc))
    for entry in (road.from_edge, road.to_edge):
        driven = drive(face, entry)
        g = nx.DiGraph()
        g.add_nodes_from(driven.spaces)
        g.add_edges_from((s.source, s.target, {"tags": s.tags}) for s in driven.steps)
        reach = reachable_from(g, driven.units[0].entries)
        back = reachable_from(g.reverse(copy=False), driven.units[-1].exits)
        for sid in driven.spaces:
            if sid not in reach or sid not in back:
                out.append(
                    finding(
                        "T501",
                        f"{face.id} entered at edge {entry}: space {sid} is "
                        "not on a path from entry to exit",
                        loc.model_copy(update={"space": sid}),
                    )
                )
        if driven.climb is not None:  # rule: CLIMB-1 (arrows on every line between rows)
            for a, b in zip(driven.units, driven.units[1:], strict=False):
                crossing = [
                    d
                    for x in a.exits
                    for y in b.entries
                    if (d := g.get_edge_data(x, y)) is not None
                ]
                if not crossing or not all(f"climb_{driven.climb}" in d["tags"] for d in crossing):
                    out.append(
                        finding(
                            "T504",
                            f"{face.id}: no climb arrows on the line after "
                            f"section {a.section} row {a.row}",
                            loc,
                        )
                    )
    return out
