"""Hillclimb checks (HILLCLIMB-1, The Climb), and which event a stage is for."""

from __future__ import annotations

import networkx as nx

from trackkit.checks.catalogue import finding
from trackkit.checks.gt_track import gt_kind
from trackkit.models.findings import Finding, FixEdit, Location
from trackkit.models.stage import Kind, TokenKind
from trackkit.stage.assemble import Layout
from trackkit.words import plural

__all__ = ["check_hillclimb", "climb_tiles", "stage_kind"]


def stage_kind(layout: Layout, override: Kind | None = None) -> tuple[Kind, list[Finding]]:
    """The event a stage is checked and raced as, and a note when it was inferred.

    ``override`` (the command line's ``--kind``) wins, then the file's ``kind``. A file
    without one is a GT circuit when it is a GT track (point to point, with an S134 note,
    when its road does not close and it has two start/finish tiles); a DIRT stage is a
    hillclimb when a driven tile is a climb face or carries a climb token (HILLCLIMB-1),
    with an H404 note saying so; otherwise a rally. Editor files (Rekee,
    ``.rgt``) have no kind, so a hillclimb drawn in an editor is raced as one.

    Examples
    --------
    >>> from trackkit.stage.assemble import lay_out
    >>> from trackkit.models import Stage
    >>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
    ...     {"tile": "202a"}, {"tile": "418a", "climb": "up"}, {"tile": "203a"}]})
    >>> kind, notes = stage_kind(lay_out(stage))
    >>> kind.value, [n.code for n in notes]
    ('hillclimb', ['H404'])
    >>> stage_kind(lay_out(stage), Kind.RALLY)[0].value
    'rally'
    """
    if override is not None:
        return override, []
    if layout.stage.kind is not None:
        return layout.stage.kind, []
    if layout.series == "gt":
        return gt_kind(layout)  # a circuit, or point to point with an S134 note
    for tile in layout.chain:
        face = tile.face
        why = None
        if face is not None and any(road.climb is not None for road in face.roads):
            why = "is a climb tile"
        elif any(tok.kind is TokenKind.CLIMB for tok in tile.tokens):
            why = "carries a climb token"
        if why is not None:
            place = f"tile {tile.index} ({tile.face_id})"
            text = f"the file gives no 'kind': checked and raced as a hillclimb, because {place}"
            edits = [FixEdit(label="write 'kind: hillclimb'", values={"kind": "hillclimb"})]
            note = finding("H404", f"{text} {why}", tile.location(), edits=edits)
            return Kind.HILLCLIMB, [note]
    return Kind.RALLY, []


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
            return [finding("H403", f"{plural(len(climbs), 'tile')} have climb lines", Location())]
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
