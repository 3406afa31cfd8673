"""How a face's road is cut into spaces and the steps between them (rules cited by id)."""

from __future__ import annotations

import networkx as nx
import pytest

from trackkit.models.tile import TileFace
from trackkit.road.spaces import DrivenRoad, drive
from trackkit.tiles.library import default_library

LIB = default_library()


def face(face_id: str) -> TileFace:
    f = LIB.get(face_id)
    assert f is not None
    return f


def steps_graph(road: DrivenRoad) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(road.spaces)
    g.add_edges_from((s.source, s.target, {"tags": s.tags}) for s in road.steps)
    return g


def both_ways(face_id: str) -> list[DrivenRoad]:
    f = face(face_id)
    assert f.road is not None
    return [drive(f, f.road.from_edge), drive(f, f.road.to_edge)]


def test_straight_rows_are_two_lane_spaces_with_straight_and_diagonal_steps():
    # rule: BOARD-2, MOVE-1
    road = drive(face("205a"), 0)
    assert [u.kind for u in road.units] == ["row", "row", "row"]
    g = steps_graph(road)
    assert sorted(g.successors("1.1L")) == ["1.2L", "1.2R"]
    assert "straight" in g.edges["1.1L", "1.2L"]["tags"]
    assert "diagonal" in g.edges["1.1L", "1.2R"]["tags"]
    assert not g.has_edge("1.1L", "1.1R")  # never sideways within a row


def test_every_step_moves_forward_along_the_centre_line():
    # rule: MOVE-1 (a car always moves forward), BOARD-5 (front edges along the road)
    for f in LIB:
        if f.road is None:
            continue
        for road in both_ways(f.id):
            for step in road.steps:
                a, b = road.spaces[step.source], road.spaces[step.target]
                assert b.f1 > a.f1, (f.id, road.entry, step)


def test_no_lane_change_inside_a_corner():
    # rule: CORNER-2
    road = drive(face("224a"), 1)
    g = steps_graph(road)
    assert list(g.successors("2.I1")) == ["2.I2"]
    assert list(g.successors("2.O1")) == ["2.O2"]
    assert not g.has_edge("2.I1", "2.O2")
    # the lane is chosen on entering: the row before leads into both lanes' first spaces
    assert {"2.I1", "2.O1"} <= set(g.successors("1.1L"))
    assert "corner_entry" in g.edges["1.1L", "2.O1"]["tags"]


def test_inner_lane_is_on_the_side_the_corner_turns_to():
    # rule: CORNER-2 (inner lane: fewer spaces, lower limit)
    left = drive(face("217a"), 1)
    right = drive(face("217a"), 3)
    assert left.units[1].turn == "left" and right.units[1].turn == "right"
    assert left.spaces["2.I1"].lanes == (1,)  # lane 1: the left one, driving
    assert right.spaces["2.I1"].lanes == (2,)
    assert left.spaces["2.I1"].limit == 2 and left.spaces["2.O1"].limit == 3


def test_slide_rows_add_two_full_width_spaces():
    # rule: CORNER-3 (the slide area counts as two spaces spanning the road)
    road = drive(face("217a"), 1)
    g = steps_graph(road)
    s1, s2 = road.spaces["1.1S1"], road.spaces["1.1S2"]
    assert s1.lanes == s2.lanes == (1, 2)
    assert list(g.successors("1.1S1")) == ["1.1S2"]
    assert {"2.I1", "2.O1"} == set(g.successors("1.1S2"))
    # entered after the corner at its first slide space only
    assert "3.1S1" in set(g.successors("2.O3")) and "3.1S2" not in set(g.successors("2.O3"))


def test_full_width_rows_are_entered_from_either_lane():
    # rule: BOARD-2 DEFAULT (a full-width space is entered from either lane)
    road = drive(face("311b"), 2)
    kinds = [u.kind for u in road.units]
    assert kinds == ["row", "corner", "full", "full"]
    g = steps_graph(road)
    assert set(g.predecessors("3.1F")) == {"2.I1", "2.O3"}
    assert list(g.successors("3.1F")) == ["3.2F"] and not list(g.successors("3.2F"))


def test_chicane_is_one_corner_space_across_both_lanes():
    # rule: BOARD-2 (a one-space chicane spans both lanes with its own limit)
    road = drive(face("231b"), 0)
    chicane = road.spaces["2.C1"]
    assert chicane.kind == "chicane" and chicane.limit == 4
    assert chicane.lanes == (1, 2)
    g = steps_graph(road)
    assert set(g.predecessors("2.C1")) == {"1.1L", "1.1R"}


def test_shortcut_links_only_non_corner_spaces():
    # rule: SHORTCUT-1, SHORTCUT-3; CORNER-3 (slide spaces connected to the shortcut)
    road = drive(face("217b"), 1)
    g = steps_graph(road)
    into = set(g.predecessors("X1.1"))
    out = set(g.successors("X1.1"))
    assert into == {"1.1L", "1.1S1", "1.1S2"}  # the inner (left) lane and the slide spaces
    assert out == {"3.1L", "3.1S1"}
    assert all(road.spaces[s].kind != "corner" for s in into | out)
    assert road.spaces["X1.1"].limit == 3


def test_shortcut_follows_the_inner_side_when_driven_the_other_way():
    road = drive(face("217b"), 3)
    assert road.units[1].turn == "right"
    assert set(steps_graph(road).predecessors("X1.1")) == {"1.1R", "1.1S1", "1.1S2"}


def test_two_space_shortcut_is_a_chain():
    road = drive(face("224b"), 1)
    g = steps_graph(road)
    assert list(g.successors("X1.1")) == ["X1.2"]
    assert road.spaces["X1.1"].limit == road.spaces["X1.2"].limit == 5


def test_double_hairpin_has_two_shortcuts_and_two_corners():
    road = drive(face("215b"), 0)
    assert road.corner_turns == ["right", "left"]
    assert set(road.shortcut_limits) == {"X1.1", "X2.1"}


def test_jump_and_ford_rows_are_marked_in_both_directions():
    # rule: JUMP-1, FORD-1
    fwd, back = both_ways("207b")
    assert fwd.spaces["1.3L"].jump == 4 and fwd.spaces["1.2R"].ford
    # driven 3 -> 0 the rows are counted from the other end
    assert back.spaces["1.2L"].jump == 4 and back.spaces["1.3R"].ford


def test_climb_face_direction_flips_with_the_driving_direction():
    # rule: CLIMB-1 (crossing in the direction of the -1 arrow is ascending)
    down, up = both_ways("418a")
    assert (down.climb, up.climb) == ("down", "up")
    g = steps_graph(up)
    assert "climb_up" in g.edges["1.1L", "1.2R"]["tags"]
    assert all("climb_up" in s.tags for s in up.steps)
    uphill_419 = drive(face("419a"), 1)
    assert uphill_419.climb == "up"


@pytest.mark.parametrize("face_id", ["202a", "202b", "301a", "301b"])
def test_start_line_default_direction_puts_more_rows_behind_the_line(face_id: str):
    # rule: BOARD-3 (cars begin behind the start line)
    from trackkit.stage.assemble import start_entry

    f = face(face_id)
    road = drive(f, start_entry(f) or 0)
    assert road.start_after is not None
    assert road.start_after + 1 >= len(road.units) - road.start_after - 1


def test_unknown_entry_edge_is_refused():
    with pytest.raises(ValueError, match="not a road end"):
        drive(face("205a"), 1)
