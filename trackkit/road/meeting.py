"""BOARD-1 as tiles are placed: the road leaving one tile must enter the next.

:func:`check_meeting` is the check :func:`trackkit.stage.assemble.lay_out` makes of each tile
it chains (and of a circuit's last tile against its first): the previous tile's exit
faces this tile's entry, with as many lanes (those of the roads driven: a branch of a GT
junction takes some of its edge's lanes only, :func:`slots_taken`) and skew edges of the
same hand (section 5.7).

Examples
--------
>>> from trackkit.stage.assemble import lay_out
>>> from trackkit.models import Stage
>>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "205a", "at": [2, 0], "dir": 0}]})
>>> [f.code for f in lay_out(stage).findings]  # a hex between them: the road has a gap
['S102']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trackkit.checks.catalogue import finding
from trackkit.models.findings import Finding
from trackkit.road import hexgrid

if TYPE_CHECKING:
    from trackkit.stage.assemble import PlacedTile

__all__ = ["check_meeting", "slots_taken"]


def slots_taken(tile: PlacedTile, edge: int, lanes: int | None) -> set[int]:
    """The slots (lanes, clockwise round the tile) of edge ``edge`` that the road driven on
    ``tile`` takes: every lane of the edge, but some only on a branch of a GT junction."""
    road = tile.road
    if lanes is None or road is None:
        return set()
    if road.series == "gt" and edge in (road.cut.road.slots or {}):
        return set(road.cut.edge_slots(edge, lanes))
    return set(range(1, lanes + 1))


def _branch_fix(narrow: list[tuple[PlacedTile, int]]) -> str:
    """S104 at a branch of a junction: the roads of the junction that take its whole edge
    (``narrow``: each junction tile with the local edge its branch takes part of)."""
    whole = [
        f"road {road.id} of tile {t.index} ({t.face_id})"
        for t, edge in narrow
        if t.face is not None and t.face.layout is not None
        for road in t.face.layout.roads
        if edge in (road.from_edge, road.to_edge) and edge not in (road.slots or {})
    ]
    take = f"drive {' or '.join(whole)}, which takes" if whole else "use a road that takes"
    return (
        "A branch of a junction takes only some of the lanes of its edge; the others lead "
        f"into another road of the junction: {take} every lane of the edge, or another tile."
    )


def check_meeting(
    prev: PlacedTile, tile: PlacedTile, findings: list[Finding], *, closing: bool = False
) -> bool:
    """BOARD-1: the previous exit must face this tile's entry, with equal lanes and (GT)
    skew edges of the same hand (section 5.7). ``closing``: the last tile of a circuit
    meeting the first (it does face it).

    Returns whether the roads miss each other (an S102 finding was added).
    """
    d = hexgrid.direction_between(prev.hex, tile.hex)
    loc = tile.location()
    if prev.road is None or tile.road is None or prev.face is None or tile.face is None:
        return False
    if not closing and (d is None or d != prev.exit_world):
        where = "is not next to" if d is None else "does not sit on the road end of"
        findings.append(
            finding(
                "S102",
                f"tile {tile.index} ({tile.face_id}) {where} tile {prev.index} "
                f"({prev.face_id}): the road has a gap",
                loc,
            )
        )
        return True
    if not closing and tile.entry_world != hexgrid.opposite(d or 0):
        findings.append(
            finding(
                "S102",
                f"tile {tile.index} ({tile.face_id}) is turned so that its road does not "
                f"meet tile {prev.index} ({prev.face_id})",
                loc,
            )
        )
        return True
    lanes_out = prev.face.lanes.get(prev.road.exit)
    lanes_in = tile.face.lanes.get(tile.road.entry)
    slots_out = slots_taken(prev, prev.road.exit, lanes_out)
    slots_in = slots_taken(tile, tile.road.entry, lanes_in)
    width = lanes_out or 0
    if lanes_out != lanes_in or {width + 1 - s for s in slots_in} != slots_out:
        # rule: BOARD-1 (the lanes that meet are those of the roads driven: a branch of a
        # junction takes some of its edge's lanes, the others lead into another road)
        sides = (
            (prev, prev.road.exit, slots_out, lanes_out),
            (tile, tile.road.entry, slots_in, lanes_in),
        )
        narrow = [(t, e) for t, e, taken, n in sides if n is not None and len(taken) < n]
        branch = [
            f"road {t.road_id} of {t.face_id} takes {len(taken)} of the {n} lanes of its edge"
            for t, _e, taken, n in sides
            if n is not None and len(taken) < n
        ]
        n_out = len(slots_out) if lanes_out is not None else lanes_out
        n_in = len(slots_in) if lanes_in is not None else lanes_in
        findings.append(
            finding(
                "S104",
                f"{n_out} {'lane' if n_out == 1 else 'lanes'} of tile {prev.index} "
                f"({prev.face_id}) {'meets' if n_out == 1 else 'meet'} {n_in} "
                f"{'lane' if n_in == 1 else 'lanes'} of tile {tile.index} ({tile.face_id})"
                + (f" ({'; '.join(branch)})" if branch else ""),
                loc,
                fix=_branch_fix(narrow) if narrow else None,
            )
        )
    skew_out = prev.face.skews.get(prev.road.exit)
    skew_in = tile.face.skews.get(tile.road.entry)
    if skew_out != skew_in:  # rule: BOARD-1 (skewL meets skewL, skewR skewR: section 5.7)

        def hand(skew: object, t: PlacedTile, edge: int) -> str:
            what = getattr(skew, "value", None) or "straight"
            return f"the {what} edge {edge} of tile {t.index} ({t.face_id})"

        findings.append(
            finding(
                "S128",
                f"{hand(skew_out, prev, prev.road.exit)} meets "
                f"{hand(skew_in, tile, tile.road.entry)}",
                loc,
            )
        )
    return False
