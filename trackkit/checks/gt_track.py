"""Rallyman: GT tracks: the circuit closes, one start/finish line, the grid, laps, the pit.

The checks that only a GT track needs, in the same one-pass, coded-finding style as the
rest (lane counts and skew hands at every edge are checked while laying the track out,
S104 and S128, the boxes and copies by :mod:`trackkit.checks.inventory`):

- S122 the kind is one of the other series (a GT track is a circuit or point-to-point);
- S123 a circuit does not close: the last tile's exit does not meet the first tile's entry;
- S134 a GT file without a kind is point to point: its road does not close and it has two
  start/finish tiles (:func:`gt_kind`);
- S124 no start/finish line (a point-to-point track needs two: its start and its finish);
- S125 more than one start/finish line on a circuit (more than two point to point);
- S126 a start/finish line driven against its grid;
- S127 fewer grid slots than players (``--players``, else :data:`DEFAULT_PLAYERS`);
- S131 fewer than one lap; S132 laps given where nobody laps;
- S133 a pit tile beside no road of the track;
- S114 no chain of legal steps round the lap (or from start to finish).
"""

from __future__ import annotations

import networkx as nx

from trackkit import limits
from trackkit.checks.catalogue import finding
from trackkit.models.findings import Finding, Location
from trackkit.models.stage import Kind
from trackkit.models.tile import FaceKind
from trackkit.road import hexgrid
from trackkit.stage.assemble import Layout, PlacedTile
from trackkit.stage.graph import has_path_to_finish, reachable_from

__all__ = [
    "DEFAULT_PLAYERS",
    "check_kind",
    "check_track",
    "grid_slots",
    "gt_kind",
    "line_tiles",
]

#: Players the grid must hold when ``validate`` is given no ``--players``: as many as
#: ``validate --simulate`` races with (a DEFAULT of ``docs/rules.md``, GT-1).
DEFAULT_PLAYERS = limits.DEFAULT_PLAYERS


def _name(t: PlacedTile) -> str:
    return f"{t.index} ({t.face_id})" if t.index is not None else f"{t.face_id} at {list(t.hex)}"


def line_tiles(layout: Layout) -> list[PlacedTile]:
    """The tiles of the chain whose road (as driven) carries a start/finish line."""
    return [t for t in layout.chain if t.road is not None and t.road.line is not None]


def gt_kind(layout: Layout) -> tuple[Kind, list[Finding]]:
    """The kind of a GT track whose file gives none: a circuit, unless its road does not
    close and it has two start/finish tiles (its start and its finish): then point to
    point, with an S134 note saying so (BOARD-3).

    Examples
    --------
    >>> from trackkit.stage.assemble import lay_out
    >>> from trackkit.models import Stage
    >>> sprint = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
    ...     {"tile": "144b", "road": "A", "enter": 1}, {"tile": "121b"},
    ...     {"tile": "143b", "road": "B", "enter": 4}]})
    >>> kind, notes = gt_kind(lay_out(sprint))
    >>> kind.value, [n.code for n in notes]
    ('point-to-point', ['S134'])
    """
    pieces = list({id(t.visit_of or t): t for t in line_tiles(layout)}.values())
    if layout.closes or len(pieces) < 2:
        return Kind.CIRCUIT, []  # DESIGN.md: without a kind, a GT track is a circuit
    start, finish = pieces[0], pieces[-1]
    note = finding(
        "S134",
        "the file gives no 'kind': checked and raced as a point-to-point track, because its "
        f"road does not close and runs from the start/finish tile {_name(start)} to the "
        f"start/finish tile {_name(finish)}",
        start.location(),
    )
    return Kind.POINT_TO_POINT, [note]


def grid_slots(graph: nx.DiGraph) -> int:
    """How many cars the grid holds (the start spaces of a GT track)."""
    return len(graph.graph.get("start", ()))


def check_kind(layout: Layout, kind: Kind) -> list[Finding]:
    """S122: rally and hillclimb are DIRT's, circuit and point-to-point GT's."""
    if kind.series == layout.series:
        return []
    them = {"dirt": "rally | hillclimb", "gt": "circuit | point-to-point"}[layout.series]
    series = {"dirt": "Rallyman: DIRT stage", "gt": "Rallyman: GT track"}[layout.series]
    if layout.stage.kind is kind:  # the file's own kind: point at its line
        return [
            finding(
                "S122",
                f"'{kind.value}' is not a kind of {series} (kinds: {them})",
                Location(path="kind"),
            )
        ]
    return [  # --kind: no line of the file to point at
        finding(
            "S122",
            f"--kind {kind.value}: not a kind of {series} (kinds: {them})",
            Location(),
            fix=f"Give --kind {them.replace(' | ', ' or ')}, or leave --kind out.",
        )
    ]


def check_track(
    layout: Layout, graph: nx.DiGraph, kind: Kind, players: int | None = None
) -> list[Finding]:
    """Every GT-only problem of a laid-out track (a DIRT stage: only S132)."""
    if layout.series != "gt" or not layout.chain:
        if layout.stage.laps is not None:
            return [_laps_unused(layout.stage.laps, kind)]
        return []
    out: list[Finding] = []
    chain = layout.chain
    circuit = layout.circuit and kind is not Kind.POINT_TO_POINT
    if circuit and not layout.closes and not layout.undriven and not layout.guessed:
        # with tiles left undriven, S117 says where it breaks; after an unknown tile
        # (S101), where the road goes is a guess
        out.append(_not_closed(layout))

    lines = line_tiles(layout)
    wanted = 1 if circuit else 2
    what = "a start/finish line" if circuit else "a start line and a finish line"
    if len(lines) < wanted:
        have = "none" if not lines else f"only the one on tile {_name(lines[0])}"
        out.append(
            finding(
                "S124",
                f"a {'circuit' if circuit else 'point-to-point track'} needs {what}: {have}",
                (lines[0] if lines else chain[0]).location(),
            )
        )
    for extra in lines[wanted:]:
        out.append(
            finding(
                "S125",
                f"a second start/finish line{'' if circuit else ' after the finish'}: tile "
                f"{_name(extra)} (the {'first' if circuit else 'finish'} is on tile "
                f"{_name(lines[wanted - 1])})",
                extra.location(),
            )
        )
    for tile in lines:  # rule: GT-1 (the grid faces the way the race runs)
        road = tile.road
        if road is not None and road.grid_backwards and road.line is not None:
            out.append(
                finding(
                    "S126",
                    f"the start/finish line of tile {_name(tile)} is driven against its grid: "
                    f"the grid faces local edge {road.line.race_toward}, the road runs to "
                    f"edge {road.exit}",
                    tile.location(),
                )
            )
    need = players if players is not None else DEFAULT_PLAYERS
    slots = grid_slots(graph)
    start = next((t for t in lines if t.road is not None and not t.road.grid_backwards), None)
    if start is not None and slots < need:
        given = "" if players is not None else f" (the default, {DEFAULT_PLAYERS})"
        out.append(
            finding(
                "S127",
                f"the grid of tile {_name(start)} holds {slots} cars, fewer than the "
                f"{need} players{given}",
                start.location(),
            )
        )

    laps = layout.stage.laps
    if laps is not None and circuit and laps < 1:
        out.append(finding("S131", f"a race is at least 1 lap, not {laps}", Location(path="laps")))
    if laps is not None and not circuit:
        out.append(
            finding(
                "S132",
                f"'laps: {laps}' is not used: a {kind.value} track is driven once, start to finish",
                Location(path="laps"),
            )
        )
    out += _pits(layout, graph)
    if not out or all(f.code in ("S127", "S132", "S133") for f in out):
        out += _path(layout, graph, circuit)
    return out


def _laps_unused(laps: int, kind: Kind) -> Finding:
    return finding(
        "S132",
        f"'laps: {laps}' is not used: a {kind.value} is driven once, start to finish",
        Location(path="laps"),
    )


def _not_closed(layout: Layout) -> Finding:
    """S123: where the lap stops, and what the last tile's exit faces."""
    last, first = layout.chain[-1], layout.chain[0]
    d = last.exit_world
    if d is None:
        return finding("S123", "the circuit does not close", last.location())
    h = hexgrid.neighbour(last.hex, d)
    if h == first.hex:
        what = f"meets tile {_name(first)}, but not at its entry"
    else:
        what = f"faces hex [{h[0]}, {h[1]}], not tile {_name(first)} at [{first.hex[0]}, " + (
            f"{first.hex[1]}]"
        )
    return finding(
        "S123",
        f"the circuit does not close: the exit of tile {_name(last)}, edge {d}, {what}",
        last.location(edge=d),
    )


def _pits(layout: Layout, graph: nx.DiGraph) -> list[Finding]:
    """S133: a pit tile must stand beside the road, next to a tile of the track (GT-2)."""
    out: list[Finding] = []
    by_position = {p["position"]: p for p in graph.graph.get("pits", ())}
    if layout.guessed:
        return out  # the road lies where a guess put it (after an unknown tile, S101)
    beside_undriven = {
        hexgrid.neighbour(t.hex, d) for t in layout.undriven if t.face is not None for d in range(6)
    }
    for tile in layout.scenery:
        if tile.face is None or tile.face.kind is not FaceKind.PIT:
            continue
        if tile.hex in beside_undriven and layout.road_breaks:
            continue  # beside road the break (S117) leaves undriven
        access = by_position.get(tile.position, {}).get("access") or []
        if not access:
            out.append(
                finding(
                    "S133",
                    f"the pit tile {tile.face_id} at [{tile.hex[0]}, {tile.hex[1]}] is beside no "
                    "road of the track: no space gives access to it",
                    tile.location(),
                )
            )
    return out


def _path(layout: Layout, graph: nx.DiGraph, circuit: bool) -> list[Finding]:
    """S114: the lap can be driven round (a circuit), or start to finish (not asked where
    an unknown tile, S101, is the gap)."""
    if layout.unknown:
        return []
    if circuit:
        past = list(graph.graph.get("finish", ()))
        if not past or not layout.closes:
            return []
        reach = reachable_from(graph, past)
        round_ = any("lap_line" in d["tags"] for u, _v, d in graph.edges(data=True) if u in reach)
        if round_:
            return []
        return [
            finding(
                "S114",
                "no chain of legal steps leads round the lap from the start/finish line back to it",
                layout.chain[0].location(),
            )
        ]
    if not graph.graph.get("finish") or has_path_to_finish(graph):
        return []
    return [
        finding(
            "S114",
            "no chain of legal steps leads from the start line to the finish line",
            layout.chain[-1].location(),
        )
    ]
