"""Structure checks: start and finish, overlaps, road ends, a path from start to finish.

A road that stops before its finish while road tiles lie on the map undriven (an editor
file whose walk broke off, or tiles marked ``driven: false``) is one break (S117) and one
list of the tiles not driven (S118), not a finding per tile.
"""

from __future__ import annotations

import networkx as nx

from trackkit.checks.catalogue import finding
from trackkit.formats.suggest import close_tile_ids, unknown_tile_fix
from trackkit.models.findings import Finding, Location
from trackkit.models.tile import FaceKind
from trackkit.road import hexgrid
from trackkit.road.spaces import face_roads
from trackkit.stage.assemble import (
    Layout,
    PlacedTile,
    faces_back,
    fitting_faces,
    road_ends,
    turn_fix,
    turn_to_meet,
)
from trackkit.stage.graph import has_path_to_finish
from trackkit.tiles.library import TileLibrary, default_library
from trackkit.words import plural

__all__ = ["check_series", "check_structure"]

#: At most this many tiles are named in the list of tiles not driven (S118).
MAX_LISTED = 20


def _line_kind(tile: PlacedTile) -> str | None:
    if tile.face is None or tile.face.road is None or tile.face.road.start_finish is None:
        return None
    return tile.face.road.start_finish.kind


def check_structure(
    layout: Layout, graph: nx.DiGraph, library: TileLibrary | None = None
) -> list[Finding]:
    """Every structural problem of a laid-out stage (BOARD-1, BOARD-3)."""
    lib = library or default_library()
    out: list[Finding] = []
    chain = layout.chain
    if not chain:
        out.append(finding("S100", "the stage has no tiles to drive", Location(path="tiles")))
        return out

    # rule: BOARD-1 (tiles may not overlap)
    by_hex = layout.by_hex()
    for h, tiles in by_hex.items():
        if len(tiles) > 1 and not any(t.guessed for t in tiles):  # a guess (S101) is no overlap
            names = ", ".join(f"tile {_name(t)}" for t in tiles)
            out.append(
                finding("S105", f"{names} overlap on hex [{h[0]}, {h[1]}]", tiles[-1].location())
            )

    gt = layout.series == "gt"  # GT tracks: trackkit.checks.gt_track
    starts = [t for t in chain if _line_kind(t) == "start"]
    finishes = [t for t in chain if _line_kind(t) == "finish"]
    if not gt:
        # rule: BOARD-3 (one start first, one finish last)
        # a start or finish the road does not reach is named in the S118 list instead
        if not starts and not any(_line_kind(t) == "start" for t in layout.undriven):
            out.append(finding("S106", "the stage has no start tile", chain[0].location()))
        if not finishes and not any(_line_kind(t) == "finish" for t in layout.undriven):
            out.append(finding("S107", "the stage has no finish tile", chain[-1].location()))
        for extra in starts[1:]:
            out.append(
                finding("S108", f"a second start tile: tile {_name(extra)}", extra.location())
            )
        for extra in finishes[1:]:
            out.append(
                finding("S109", f"a second finish tile: tile {_name(extra)}", extra.location())
            )
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
    # (unless a finish); gaps inside the chain are S102, reported while laying out.
    # With road tiles left undriven, the exit (or an entry facing one of them) is the break.
    ends: list[tuple[str, PlacedTile]] = []
    undriven = {id(t) for t in layout.undriven}
    if not (gt and layout.circuit and layout.closes):
        # a GT circuit is read from its start/finish line on: where it breaks, its exit is
        if _line_kind(chain[0]) != "start" and not (gt and layout.circuit):
            ends.append(("entry", chain[0]))
        if _line_kind(chain[-1]) != "finish":
            ends.append(("exit", chain[-1]))
    open_ends = [
        (which, t, d, by_hex.get(hexgrid.neighbour(t.hex, d), []))
        for which, t in ends
        if (d := t.entry_world if which == "entry" else t.exit_world) is not None
    ]
    # the break is where a road end faces an undriven tile; failing that, the exit
    facing = {which for which, _, _, other in open_ends if any(id(o) in undriven for o in other)}
    if not facing and layout.road_breaks:
        facing = {"exit"}
    for which, t, d, other in open_ends:
        if which in facing:
            out.append(_road_break(layout, by_hex, lib, which, t, d))
            continue
        if gt:
            continue  # a GT track's ends: the circuit closes (S123), or it is point to point
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

    meeting = _road_ends_meeting(layout, by_hex)
    if layout.undriven:
        broke = any(f.code == "S117" for f in out)
        out += _not_driven(layout, meeting, broke)
    out += _open_ends(layout, by_hex, meeting)

    # rule: BOARD-3 (a stage runs from start to finish)
    if not gt and starts and finishes and not layout.unknown and not has_path_to_finish(graph):
        out.append(
            finding(
                "S114",
                "no chain of legal steps leads from the start line to the finish line",
                finishes[-1].location(),
            )
        )
    return out


_SERIES = {"dirt": "Rallyman: DIRT", "gt": "Rallyman: GT"}


def check_series(layout: Layout) -> list[Finding]:
    """Tiles of both series in one file (S120), or allowed by its ``ruleset`` (S121).

    A file without ``ruleset`` is of the series of its tiles; tiles of the other series
    are then an error, listed in one finding. A file that says ``ruleset: dirt`` or
    ``ruleset: gt`` allows them (a note): they are driven by that ruleset's rules.
    """
    if len(layout.series_found) < 2:
        return []
    other = [
        t
        for t in layout.tiles
        if t.face is not None
        and t.face.series != layout.series
        and t.face.kind is not FaceKind.SCENERY
    ]
    if not other:
        return []
    names = [f"tile {_name(t)}" for t in other[:MAX_LISTED]]
    if len(other) > MAX_LISTED:
        names.append(f"and {len(other) - MAX_LISTED} more")
    them = _SERIES["gt" if layout.series == "dirt" else "dirt"]
    if layout.stage.ruleset is None:
        code = "S120"
        what = "stage" if layout.series == "dirt" else "track"
        text = (
            f"a {_SERIES[layout.series]} {what} (its first tiles) holds {them} tiles: "
            f"{', '.join(names)}"
        )
    else:
        code = "S121"
        text = (
            f"'ruleset: {layout.series}' drives {plural(len(other), them + ' tile')} by the "
            f"{_SERIES[layout.series]} rules: {', '.join(names)}"
        )
    return [finding(code, text, other[0].location())]


def _road_break(
    layout: Layout,
    by_hex: dict[hexgrid.Hex, list[PlacedTile]],
    lib: TileLibrary,
    which: str,
    tile: PlacedTile,
    d: int,
) -> Finding:
    """S117: where the road stops, what its end faces, and a fix made for it."""
    chain = layout.chain
    h = hexgrid.neighbour(tile.hex, d)
    at = f"[{h[0]}, {h[1]}]"
    other = by_hex.get(h, [])
    # of tiles overlapping there, the one not driven is the one the road should have met
    undriven = {id(t) for t in layout.undriven}
    nxt = next((o for o in other if id(o) in undriven), other[0] if other else None)
    # the neighbour meets this road end as the tile driven after (exit) or before (entry)
    pred, succ = (tile, None) if which == "exit" else (None, tile)
    fix: str | None = None
    if nxt is None:
        what = f"faces the empty hex {at}"
        fix = _fill_the_gap(by_hex, h, d, tile)
    elif nxt.face is None:
        what = f"faces tile '{nxt.raw_id}' at {at}, an unknown tile id"
        ids = fitting_faces(close_tile_ids(nxt.raw_id, lib), lib, nxt, by_hex, pred, succ)
        fix = unknown_tile_fix(nxt.raw_id, ids)
    elif not road_ends(nxt.face):
        what = f"faces {nxt.face_id} at {at}, which has no road"
    elif nxt.index is not None:
        what = f"meets tile {_name(nxt)} out of driving order"
        fix = _turn_crossing(nxt, tile, hexgrid.opposite(d))
    else:
        what = f"faces {nxt.face_id} at {at}, whose road does not face back"
        rot = turn_to_meet(nxt, by_hex, pred=pred, succ=succ, toward=hexgrid.opposite(d))
        if rot is not None:
            fix = turn_fix(nxt, rot, f"its road then meets tile {_name(tile)}")
    if fix is None:
        fix = _turn_this(chain, by_hex, which, tile)
    if fix is None:
        fix = (
            f"Put the next tile of the road on hex {at} (beyond edge {d} of tile "
            f"{_name(tile)}) with its road facing back, or turn tile {_name(tile)}."
        )
    return finding(
        "S117",
        f"the road breaks at tile {_name(tile)}: its {which}, edge {d}, {what}",
        tile.location(edge=d),
        fix=fix,
    )


def _fill_the_gap(
    by_hex: dict[hexgrid.Hex, list[PlacedTile]], h: hexgrid.Hex, d: int, tile: PlacedTile
) -> str | None:
    """A tile missing from the road: another road end, not driven, faces the same empty hex."""
    waiting = [
        o
        for e in range(6)
        if e != hexgrid.opposite(d)
        for o in by_hex.get(hexgrid.neighbour(h, e), [])
        if o.index is None and o.face is not None and faces_back(o, hexgrid.opposite(e), None, None)
    ]
    if not waiting:
        return None
    o = waiting[0]
    return (
        f"A tile is missing on the empty hex [{h[0]}, {h[1]}]: put one there whose road joins "
        f"edge {d} of tile {_name(tile)} to {o.face_id} at [{o.hex[0]}, {o.hex[1]}], whose road "
        "ends there too."
    )


def _turn_crossing(met: PlacedTile, tile: PlacedTile, toward: int) -> str | None:
    """A turn of a crossing the road drove already, so that the road meets its other road.

    The turn must keep the road it was driven by joining the same two neighbours, and
    bring another of its roads to the side ``toward`` that ``tile``'s road end faces.
    """
    first = met.visit_of or met
    if first.face is None or first.entry_world is None or first.exit_world is None:
        return None
    driven = {first.entry_world, first.exit_world}
    now = first.rotation
    for rotation in sorted(range(6), key=lambda r: (min((r - now) % 6, (now - r) % 6), r))[1:]:
        roads = [
            {hexgrid.world_edge(e0, rotation), hexgrid.world_edge(e1, rotation)}
            for _rid, e0, e1 in face_roads(first.face)
        ]
        if driven in roads and any(toward in r for r in roads if r != driven):
            return turn_fix(first, rotation, f"its other road then meets tile {_name(tile)}")
    return None


def _turn_this(
    chain: list[PlacedTile],
    by_hex: dict[hexgrid.Hex, list[PlacedTile]],
    which: str,
    tile: PlacedTile,
) -> str | None:
    """A turn of the tile at the break that keeps its other end and makes the road go on."""
    if which == "exit":
        pred = chain[-2] if len(chain) >= 2 else None
        keep = None if pred is None or pred.exit_world is None else pred.exit_world
        rot = turn_to_meet(
            tile,
            by_hex,
            pred=pred,
            toward=None if keep is None else hexgrid.opposite(keep),
            need=2 if pred else 1,
        )
    else:
        succ = chain[1] if len(chain) >= 2 else None
        keep = None if succ is None or succ.entry_world is None else succ.entry_world
        rot = turn_to_meet(
            tile,
            by_hex,
            succ=succ,
            toward=None if keep is None else hexgrid.opposite(keep),
            need=2 if succ else 1,
        )
    ends = road_ends(tile.face, tile.road_id) if tile.face is not None else ()
    if rot is None or not ends:
        return None
    beyond = [
        o
        for e in ends
        for o in by_hex.get(hexgrid.neighbour(tile.hex, hexgrid.world_edge(e, rot)), [])
        if o.index is None and o.face is not None and road_ends(o.face)
    ]
    then = f"its road then goes on to {_name(beyond[0])}" if beyond else "its road then goes on"
    return turn_fix(tile, rot, then)


#: Road ends that meet: ``(position, local edge) -> (position, local edge)`` of the tile
#: whose road end faces it (positions in the stage file, every placed tile once).
Meeting = dict[tuple[int, int], tuple[int, int]]


def _road_ends_meeting(layout: Layout, by_hex: dict[hexgrid.Hex, list[PlacedTile]]) -> Meeting:
    """Every road end of a placed tile that a road end of a neighbouring tile faces."""
    out: Meeting = {}
    for tile in layout.tiles:
        if tile.face is None:
            continue
        for edge in {e for _rid, e0, e1 in face_roads(tile.face) for e in (e0, e1)}:
            world = hexgrid.world_edge(edge, tile.rotation)
            for other in by_hex.get(hexgrid.neighbour(tile.hex, world), []):
                if other.face is None or other is tile:
                    continue
                back = hexgrid.local_edge(hexgrid.opposite(world), other.rotation)
                if any(back in r[1:] for r in face_roads(other.face)):
                    out[(tile.position, edge)] = (other.position, back)
    return out


def _driven_roads(layout: Layout) -> dict[int, set[str]]:
    """The roads driven on each piece of the chain, by its position in the stage file."""
    out: dict[int, set[str]] = {}
    for tile in layout.chain:
        if tile.road_id is not None:
            out.setdefault((tile.visit_of or tile).position, set()).add(tile.road_id)
    return out


def _not_driven(layout: Layout, meeting: Meeting, broke: bool) -> list[Finding]:
    """The road tiles on the map that the road does not run through.

    Where the road breaks (S117), they are one list (S118) whose fix is to mend the
    break. A GT track whose road is whole (the lap closes, or it reaches its finish) is
    driven where it lies: its road tiles are no scenery, so those it never drives are an
    error (S135), unless they are another way between two junctions of the track (S118, a
    warning: the track takes the other). A DIRT stage driven start to finish lists them
    (S118).
    """
    tiles = layout.undriven
    if broke or layout.road_breaks:
        return [_listed("S118", tiles)]
    if layout.series != "gt":
        return [
            _listed(
                "S118",
                tiles,
                fix="These tiles lie on the map but the road does not run through them: put "
                "them on the road, or remove them.",
            )
        ]
    ways = _other_ways(layout, meeting)
    out = []
    other = [t for t in tiles if t.position in ways]
    if other:
        out.append(
            _listed(
                "S118",
                other,
                fix="These tiles are another way between two junction tiles of the track, "
                "which takes another road there: to drive them, choose the junction's road "
                "('road' on the junction tile of a native stage file), or remove them.",
            )
        )
    off = [t for t in tiles if t.position not in ways]
    if off:
        out.append(_listed("S135", off, what="the track never drives"))
    return out


def _other_ways(layout: Layout, meeting: Meeting) -> set[int]:
    """The undriven road tiles that make another way between junctions of the track: a
    group of them joined road end to road end, which meets the track at two or more ends
    of junction roads not driven (a road of a driven piece that shares its other end with
    a road driven there: the car could fork into it)."""
    undriven = {t.position for t in layout.undriven if t.face is not None}
    pieces = {t.position: t for t in layout.tiles}
    driven = _driven_roads(layout)
    joined: nx.Graph = nx.Graph()
    joined.add_nodes_from(undriven)
    joined.add_edges_from(
        (a, b) for (a, _e), (b, _f) in meeting.items() if a in undriven and b in undriven
    )
    forks: dict[int, int] = {}
    for (a, _e), (b, edge) in meeting.items():
        piece = pieces.get(b)
        if a in undriven and b in driven and piece is not None and piece.face is not None:
            roads = face_roads(piece.face)
            used = {e for rid, e0, e1 in roads if rid in driven[b] for e in (e0, e1)}
            fork = any(
                edge in (e0, e1) and rid not in driven[b] and ({e0, e1} - {edge}) <= used
                for rid, e0, e1 in roads
            )
            forks[a] = forks.get(a, 0) + fork
    out: set[int] = set()
    for group in nx.connected_components(joined):
        if sum(forks.get(n, 0) for n in group) >= 2:
            out |= group
    return out


def _open_ends(
    layout: Layout, by_hex: dict[hexgrid.Hex, list[PlacedTile]], meeting: Meeting
) -> list[Finding]:
    """S136: each end of a road the track does not drive, on a piece it drives (a crossing,
    a junction, a tile of two roads), that meets no road: it faces an empty hex or the
    side of a tile. Ends shared with a road driven there meet the track's neighbours."""
    out: list[Finding] = []
    driven = _driven_roads(layout)
    for tile in layout.tiles:
        roads = face_roads(tile.face) if tile.face is not None else []
        used = driven.get(tile.position)
        if used is None or len(roads) < 2:
            continue
        taken = {e for rid, e0, e1 in roads if rid in used for e in (e0, e1)}
        spare: dict[int, list[str]] = {}
        for rid, e0, e1 in roads:
            if rid not in used:
                for e in (e0, e1):
                    if e not in taken and (tile.position, e) not in meeting:
                        spare.setdefault(e, []).append(rid)
        for edge, rids in sorted(spare.items()):
            world = hexgrid.world_edge(edge, tile.rotation)
            h = hexgrid.neighbour(tile.hex, world)
            other = by_hex.get(h, [])
            faces = (
                f"the side of tile {_name(other[0])}"
                if other
                else f"the empty hex [{h[0]}, {h[1]}]"
            )
            what = f"{'road' if len(rids) == 1 else 'roads'} {' and '.join(rids)}"
            out.append(
                finding(
                    "S136",
                    f"{what} of tile {_name(tile)}, which the track does not drive, "
                    f"{'ends' if len(rids) == 1 else 'end'} at edge {world} facing {faces}",
                    tile.location(edge=world),
                )
            )
    return out


def _listed(
    code: str, tiles: list[PlacedTile], *, fix: str | None = None, what: str = ""
) -> Finding:
    """S118 (S135): the tiles with a road that lie on the map but are not driven, in one
    finding."""
    names = [f"{t.face_id} at [{t.hex[0]}, {t.hex[1]}]" for t in tiles[:MAX_LISTED]]
    if len(tiles) > MAX_LISTED:
        names.append(f"and {len(tiles) - MAX_LISTED} more")
    lines = [k for k in ("start", "finish") if any(_line_kind(t) == k for t in tiles)]
    note = f" (the {' and '.join(lines)} among them)" if lines else ""
    one = len(tiles) == 1
    them = "it" if one else "them"
    how = f"{what} {them}" if what else f"the road does not run through {them}"
    return finding(
        code,
        f"{plural(len(tiles), 'road tile' if what else 'tile')} {'lies' if one else 'lie'} on "
        f"the map but {how}{note}: {', '.join(names)}",
        tiles[0].location(),
        fix=fix,
    )


def _name(t: PlacedTile) -> str:
    return f"{t.index} ({t.face_id})" if t.index is not None else f"{t.face_id} at {list(t.hex)}"
