"""Every Rallyman: GT face of the library checked on its own, in both driving directions.

The steps come from :func:`trackkit.road.lanes.cut_road` (section 5 of the lane-layout format);
reachability is networkx's. The sibling ``test_tile_faces.py`` does the same for DIRT faces.
"""

from __future__ import annotations

import networkx as nx
import pytest

from trackkit.models.lanes import LaneLayout, LaneRoad
from trackkit.models.tile import TileFace
from trackkit.road.lanes import RoadCut, cut_road
from trackkit.tiles.library import default_library

LIB = default_library()
GT = [f for f in LIB if f.layout is not None]
ROAD_FACES = [f for f in GT if f.layout is not None and f.layout.roads]


def _layout(face: TileFace) -> LaneLayout:
    assert face.layout is not None
    return face.layout


def _visible(face: TileFace) -> list[LaneRoad]:
    return [r for r in _layout(face).roads if not r.hidden]


def _graph(cut: RoadCut) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(cut.spaces)
    graph.add_edges_from((s.source, s.target) for s in cut.steps)
    return graph


def _end_spaces(road: LaneRoad, edge: int) -> list[str]:
    lines = set(road.line_order())
    out = []
    for _lane, items in sorted((road.lanes or {}).items()):
        item = items[0] if edge == road.from_edge else items[-1]
        if item not in lines:
            out.append(item)
    return out


def _slots(face: TileFace, road: LaneRoad, edge: int) -> list[int]:
    """The edge slot (1.. clockwise) of each lane reaching ``edge`` (section 5.7)."""
    if road.slots and edge in road.slots:
        return road.slots[edge]
    count = face.lanes[edge]
    lanes = range(1, len(_end_spaces(road, edge)) + 1)
    return [k if edge == road.to_edge else count + 1 - k for k in lanes]


def test_every_gt_face_is_here() -> None:
    assert len(GT) == 107 and len(ROAD_FACES) == 106
    assert {f.id for f in GT} - {f.id for f in ROAD_FACES} == {"101"}


@pytest.mark.parametrize("face", ROAD_FACES, ids=lambda f: f.id)
def test_every_space_is_reachable_and_reaches_an_exit_both_ways(face: TileFace) -> None:
    for road in _visible(face):
        forward = cut_road(road)
        for cut in (forward, forward.reversed()):
            graph = _graph(cut)
            entries, exits = cut.entries(), cut.exits()
            assert entries and exits, (road.id, cut.entry_edge)
            reached = set(entries).union(*(nx.descendants(graph, s) for s in entries))
            assert reached == set(cut.spaces), (road.id, cut.entry_edge)
            leaving = set(exits).union(*(nx.ancestors(graph, s) for s in exits))
            assert leaving == set(cut.spaces), (road.id, cut.entry_edge)


@pytest.mark.parametrize("face", ROAD_FACES, ids=lambda f: f.id)
def test_limits_are_gears_1_to_6(face: TileFace) -> None:
    layout = _layout(face)
    for sid, space in layout.spaces.items():
        assert space.limit is None or 1 <= space.limit <= 6, sid
        assert not space.triangle or space.limit is not None, sid
    for road in _visible(face):
        for name, line in road.lines.items():
            for lane, mark in line.dotted.items():
                assert mark == "hazard" or 1 <= mark <= 6, (road.id, name)
                assert lane in (road.lanes or {}), (road.id, name, lane)
        for corner in road.corners:
            assert any(layout.spaces[s].limit is not None for s in corner.spaces), road.id


@pytest.mark.parametrize("face", ROAD_FACES, ids=lambda f: f.id)
def test_skew_edges_have_joined_spaces_in_every_lane(face: TileFace) -> None:
    layout = _layout(face)
    joined_at: dict[str, int] = {}
    for road in _visible(face):
        for edge in (road.from_edge, road.to_edge):
            ends = _end_spaces(road, edge)
            if edge in face.skews:
                # every lane reaching the slanted edge ends in a half joined across it
                assert all(layout.spaces[s].joins == edge for s in ends), (road.id, edge)
                assert len(ends) == face.lanes[edge] or road.slots, (road.id, edge)
            joined_at.update({s: edge for s in ends if layout.spaces[s].joins == edge})
    for sid, space in layout.spaces.items():
        if space.joins is not None:
            assert space.joins in face.skews, f"{sid} joins edge {space.joins}, not a skew edge"
            assert joined_at.get(sid) == space.joins, f"{sid} is no road end at {space.joins}"


@pytest.mark.parametrize("face", ROAD_FACES, ids=lambda f: f.id)
def test_edge_lanes_and_junction_slots_are_consistent(face: TileFace) -> None:
    layout = _layout(face)
    overlapping = {frozenset(p) for p in layout.overlaps}
    by_edge: dict[int, dict[int, list[str]]] = {}
    for road in _visible(face):
        for edge in (road.from_edge, road.to_edge):
            slots = _slots(face, road, edge)
            ends = _end_spaces(road, edge)
            assert len(slots) == len(ends), (road.id, edge)
            assert len(set(slots)) == len(slots), (road.id, edge)
            assert all(1 <= s <= face.lanes[edge] for s in slots), (road.id, edge)
            for slot, sid in zip(slots, ends, strict=True):
                by_edge.setdefault(edge, {}).setdefault(slot, []).append(sid)
        for edge in road.slots or {}:
            assert edge in (road.from_edge, road.to_edge), (road.id, edge)
    hidden = {e for r in layout.roads if r.hidden for e in (r.from_edge, r.to_edge)}
    for edge, slots in by_edge.items():
        if edge not in hidden:  # a bridge's edges belong to the road under it alone
            assert set(slots) == set(range(1, face.lanes[edge] + 1)), edge
        for slot, spaces in slots.items():
            # roads meeting in one slot: the same space, or spaces over common ground
            for a in spaces[1:]:
                assert a == spaces[0] or frozenset((a, spaces[0])) in overlapping, (edge, slot)


@pytest.mark.parametrize("face", ROAD_FACES, ids=lambda f: f.id)
def test_overlaps_pair_spaces_of_different_roads(face: TileFace) -> None:
    layout = _layout(face)
    owners: dict[str, set[str]] = {}
    for road in _visible(face):
        for sid in cut_road(road).spaces:
            owners.setdefault(sid, set()).add(road.id)
    for a, b in layout.overlaps:
        assert not owners[a] & owners[b], (a, b)  # never two spaces of one road


GRID_FACES = [f for f in ROAD_FACES if _layout(f).start_finish]


@pytest.mark.parametrize("face", GRID_FACES, ids=lambda f: f.id)
def test_grid_slots_are_spaces_of_the_lines_road_behind_the_line(face: TileFace) -> None:
    layout = _layout(face)
    for sf in layout.start_finish:
        road = next(r for r in layout.roads if r.id == sf.road)
        cut = cut_road(road)
        line = cut.order.index(sf.line)
        assert 0 < line < len(cut.order) - 1, "the chequered band is a line inside the face"
        assert sf.race_toward in (road.from_edge, road.to_edge)
        toward_to = sf.race_toward == road.to_edge
        slots = [sid for row in sf.grid for sid in row]
        assert slots and len(set(slots)) == len(slots)
        for n, row in enumerate(sf.grid):
            assert 1 <= len(row) <= len(road.lanes or {}), n
            for sid in row:
                space = cut.spaces[sid]  # a space of the line's road
                # the grid stands behind the line, seen in the race direction
                assert (space.front <= line) if toward_to else (space.back >= line), sid
        # rows nearest the line first
        fronts = [min(cut.spaces[s].back for s in row) for row in sf.grid]
        assert fronts == (sorted(fronts, reverse=True) if toward_to else sorted(fronts))


def test_the_pit_board_of_101() -> None:
    face = LIB.get("101")
    assert face is not None and face.kind.value == "pit"
    pit = _layout(face).pit
    assert pit is not None
    assert [(s.id, s.gear, s.services) for s in pit.spots] == [
        ("P1", "00", ["tyres", "repair"]),
        ("P2", "00", ["repair"]),
        ("P3", "0", ["tyres"]),
    ]  # rule: GT-2
    assert face.lanes == {} and face.skews == {}


def test_gt_faces_in_words_read_like_the_formats_worked_examples() -> None:
    from trackkit.tiles.describe import describe_face

    def words(face_id: str) -> str:
        face = LIB.get(face_id)
        assert face is not None
        return describe_face(face)

    assert "lane 3: A3c (begins on line l2)" in words("119a")
    assert "its steps are A1b>A1c, A1b>A2c diagonal, A2b>A2c diagonal, A2b>A3c" in words("119a")
    assert "11 steps each way (4 diagonal), 6 side-by-side pairs" in words("110a")
    assert "lane 1: ┆! A12a ┆!" in words("107a")  # warning signs on both tile edges
    assert "skew end at edge 2 (skewL): A1a, A2a, A3a" in words("121a")
    assert "overlapping spaces (a car on one blocks the other): A1b/B1b" in words("141b")
    junction = words("151a")
    assert "junction: A1c is one space of roads A and B" in junction
    assert "edge 1: slots 3, 2" in junction and "reading confidence: low" in junction
    start = words("102a")
    assert "start-finish line: road A line l1; the race runs toward edge 0" in start
    assert "grid row 1: A3b, A1b" in start
    assert "P3: gear 0, tyres" in words("101")
    assert "passes under the other road (a bridge)" in words("153a")
