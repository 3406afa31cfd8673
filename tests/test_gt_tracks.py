"""One road model for both series, and GT tracks laid out and graphed (issue 10, items 1, 3).

DIRT faces are converted into the per-lane model and cut by the same rules as GT roads; the
stage graph of a GT track closes into a lap, joins skew halves, drives a crossing tile twice
and carries side-by-side pairs and overlaps for the rules engine.
"""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest
from stagekit import GT_EIGHT, GT_OVAL, REPO, make_stage

from trackkit.checks.pipeline import validate
from trackkit.formats import parse_stage
from trackkit.formats.write import dump_stage
from trackkit.models.lanes import LaneRoad
from trackkit.road.lanes import cut_road
from trackkit.road.spaces import BRIDGE_ROWS, drive, face_roads
from trackkit.rules.track import Track
from trackkit.stage.assemble import GT_PX, lay_out
from trackkit.stage.graph import build_graph, has_finished, lap_distance
from trackkit.tiles.library import default_library

LIB = default_library()


def face(face_id: str):  # type: ignore[no-untyped-def]
    f = LIB.get(face_id)
    assert f is not None
    return f


# --- one road model: DIRT faces in the per-lane model ---------------------------------------


def test_dirt_roads_are_two_lanes_of_spaces_with_cross_lines_between_units() -> None:
    # rule: BOARD-2, CORNER-2, CORNER-3
    road = drive(face("217a"), 1)
    lanes = road.cut.road.lanes or {}
    assert sorted(lanes) == [1, 2]
    # the slide rows: two lane spaces each, and the two full-width slide spaces over them
    assert lanes[1][0] == "1.1L" and lanes[2][0] == "1.1R"
    (slide, *_rest) = road.cut.road.overlays
    assert slide.lanes == [1, 2] and slide.spaces[1:4:2] == ["1.1S1", "1.1S2"]
    assert road.cut.spaces["1.1S1"].layer == "overlay"
    assert frozenset(("1.1S1", "1.1L")) in road.cut.overlaps
    (corner,) = road.cut.road.corners
    assert corner.turn == "left" and corner.name == "2"
    # inside a corner each lane has its own lines: no line there crosses both lanes
    bend = drive(face("224a"), 1).cut.road.lanes or {}
    inner = [x for x in bend[1] if x.startswith("c")]
    outer = [x for x in bend[2] if x.startswith("c")]
    assert inner and outer and not set(inner) & set(outer)


def test_a_full_width_row_and_a_chicane_span_both_lanes() -> None:
    # rule: BOARD-2
    full = drive(face("311b"), 2)
    assert full.cut.spaces["3.1F"].lanes == (1, 2)
    chicane = drive(face("231b"), 0)
    assert chicane.cut.spaces["2.C1"].lanes == (1, 2)
    assert chicane.spaces["2.C1"].corner == "2"


def test_shortcut_spaces_ride_on_the_road_linked_to_the_rows_they_touch() -> None:
    # rule: SHORTCUT-1, SHORTCUT-3
    road = drive(face("217b"), 1)
    (shortcut,) = road.cut.road.shortcuts
    assert shortcut.spaces == ["X1.1"] and shortcut.limit == 3
    links = [(s.source, s.target) for s in road.cut.steps if s.kind == "link"]
    assert {("X1.1", t) for t in shortcut.out} <= set(links)
    assert {(s, "X1.1") for s in shortcut.into} <= set(links)
    assert {frozenset(("X1.1", s)) for s in shortcut.into} <= road.cut.beside


def test_dirt_side_by_side_pairs_from_the_cut_are_the_spaces_level_in_a_cross_section() -> None:
    # rule: TRAFFIC-1 (the space beside: the other lane, where their stretches overlap);
    # an independent reading: same unit, other lane, back/front fractions overlapping
    for f in LIB:
        if f.road is None:
            continue
        for entry in (f.road.from_edge, f.road.to_edge):
            road = drive(f, entry)
            lanes = {s: sp for s, sp in road.spaces.items() if sp.kind not in ("slide", "shortcut")}
            want = {
                frozenset((a, b))
                for a, x in lanes.items()
                for b, y in lanes.items()
                if a < b
                and x.unit == y.unit
                and not set(x.lanes) & set(y.lanes)
                and x.f0 < y.f1
                and y.f0 < x.f1
            }
            got = {p for p in road.cut.beside if not any(s.startswith("X") for s in p)}
            assert got == want, (f.id, entry)


def test_two_lines_at_the_same_place_are_one_place_for_side_by_side_pairs() -> None:
    # lane 1 has a line halfway, lane 2 lines at a quarter, halfway and three quarters
    road = LaneRoad.model_validate(
        {
            "id": "A",
            "from": 0,
            "to": 3,
            "lanes": {1: ["I1", "a", "I2"], 2: ["O1", "b", "O2", "c", "O3", "d", "O4"]},
            "lines": {"b": {"at": 0.25}, "a": {"at": 0.5}, "c": {"at": 0.5}, "d": {"at": 0.75}},
        }
    )
    cut = cut_road(road)
    pairs = {"|".join(sorted(p)) for p in cut.beside}
    assert pairs == {"I1|O1", "I1|O2", "I2|O3", "I2|O4"}  # I1 only meets O3 at a point
    assert not [s for s in cut.steps if s.kind == "diagonal"]  # no line crosses both lanes


def test_an_overlay_steps_like_a_space_of_every_lane_it_spans() -> None:
    road = LaneRoad.model_validate(
        {
            "id": "A",
            "from": 0,
            "to": 3,
            "lanes": {1: ["L1", "r", "L2", "s", "L3"], 2: ["R1", "r", "R2", "s", "R3"]},
            "lines": {"r": {"at": 0.33}, "m": {"at": 0.5}, "s": {"at": 0.66}},
            "overlays": [{"lanes": [1, 2], "spaces": ["r", "S1", "m", "S2", "s"]}],
        }
    )
    cut = cut_road(road)
    straight = {(s.source, s.target) for s in cut.steps if s.kind == "straight"}
    assert {("L1", "S1"), ("R1", "S1"), ("S1", "S2"), ("S2", "L3"), ("S2", "R3")} <= straight
    assert ("S1", "L2") not in straight and ("S2", "R2") not in straight
    assert {"|".join(sorted(p)) for p in cut.overlaps} == {"L2|S1", "L2|S2", "R2|S1", "R2|S2"}


def test_every_gt_road_drives_both_ways_with_lanes_counted_from_the_left() -> None:
    for f in LIB:
        for rid, e0, e1 in face_roads(f) if f.layout else ():
            for entry in (e0, e1):
                road = drive(f, entry, rid)
                assert road.series == "gt" and road.road_id == rid
                assert road.entries and road.exits
                for step in road.steps:  # every step goes forward along the road
                    a, b = road.spaces[step.source], road.spaces[step.target]
                    assert b.f1 > a.f1, (f.id, rid, entry, step)
    # 103a driven 3 -> 0: its lane 3 is the driver's left
    back = drive(face("103a"), 3)
    assert back.spaces["A3a"].lanes == (1,) and back.spaces["A1a"].lanes == (3,)


# --- GT tracks: circuits -------------------------------------------------------------------


def test_a_circuit_closes_into_a_cycle_through_the_start_finish_line() -> None:
    # rule: BOARD-3, BOARD-5 (DEFAULT: progress along the lap)
    report = validate(make_stage(*GT_OVAL))
    g = report.graph
    assert g.graph["circuit"] and g.graph["laps"] == 3
    lap = g.graph["lap_length"]
    lengths = sum(t.road.length_px for t in report.layout.chain if t.road) * 240.0 / GT_PX
    assert lap == pytest.approx(lengths)
    assert nx.find_cycle(g)
    # progress along the lap: fronts in (0, lap], backs in [0, lap)
    assert all(0 < d["progress"] <= lap and 0 <= d["back"] < lap for _, d in g.nodes(data=True))
    # the grid: 102a's six slots, nearest the line first, behind it (their fronts: the lap end)
    assert g.graph["start"] == ["1:A3b", "1:A1b", "1:A3c", "1:A1c", "1:A3d", "1:A1d"]
    assert g.nodes["1:A3b"]["progress"] == lap
    past = g.graph["finish"]
    assert sorted(past) == ["1:A1a", "1:A2a", "1:A3a"] and not any(
        d["finished"] for _, d in g.nodes(data=True)
    )
    line = [(u, v) for u, v, d in g.edges(data=True) if "lap_line" in d["tags"]]
    assert line and all(v in past and u not in past for u, v in line)
    assert all(d["length"] > 0 for _u, _v, d in g.edges(data=True))


def test_furthest_along_is_compared_across_the_line_with_a_lap_count() -> None:
    # rule: BOARD-5 (DEFAULT: a car's distance is its laps and its progress)
    g = validate(make_stage(*GT_OVAL)).graph
    lap = g.graph["lap_length"]
    grid = lap_distance(g.nodes["1:A1d"]["progress"], 0, lap)  # on the grid, last row
    first = lap_distance(g.nodes["1:A3b"]["progress"], 0, lap)  # front row, at the line
    over = lap_distance(g.nodes["1:A1a"]["progress"], 1, lap)  # just over it
    later = lap_distance(g.nodes["10:A1c"]["progress"], 1, lap)  # the end of lap 1
    again = lap_distance(g.nodes["1:A1a"]["progress"], 2, lap)  # over it again
    assert grid < first == 0.0 < over < later < again
    assert not has_finished(3, 3) and has_finished(4, 3)


def test_the_summary_gives_the_lap_in_spaces_and_mm() -> None:
    summary = validate(make_stage(*GT_OVAL, laps=5)).summary
    assert summary.series == "gt" and summary.kind == "circuit"
    assert summary.gt.laps == 5 and summary.gt.lap_length_spaces >= len(GT_OVAL) * 2
    assert summary.gt.lap_length_mm > 2000 and summary.gt.lanes == {"3": 10}
    corners = {c.tile: c.limits for c in summary.corners}
    assert corners["117a"] == "4/4!"  # a circled 4 and a 4 in a triangle (CORNER-5)
    assert {d.tile for d in summary.gt.sharp_corners} >= {"112a", "117a"}  # CORNER-4
    assert summary.gt.grid_slots == 6 and summary.gt.start_finish == [1]
    assert summary.boxes == {"gt-core": 1}


def test_corners_are_listed_in_driving_order_with_the_turn_as_driven() -> None:
    # 134a: an S-bend, right then left driving 2 -> 5
    def corners(entry: int) -> list[tuple[str, list[str]]]:
        stage = make_stage({"tile": "134a", "enter": entry}, kind="point-to-point")
        return [(c.turn, [s.space for s in c.spaces]) for c in validate(stage).summary.corners]

    assert corners(2) == [("right", ["1:A1b", "1:A23b"]), ("left", ["1:A12c", "1:A3c"])]
    # driven 5 -> 2: the second corner comes first, and a left turn is a right one
    assert corners(5) == [("right", ["1:A3c", "1:A12c"]), ("left", ["1:A23b", "1:A1b"])]


def test_a_track_crossing_itself_drives_the_crossing_tile_twice() -> None:
    # rule: TRAFFIC-3 (DEFAULT: spaces that overlap block each other)
    report = validate(make_stage(*GT_EIGHT))
    layout, g = report.layout, report.graph
    first, again = layout.chain[1], layout.chain[8]
    assert again.visit_of is first and (first.road_id, again.road_id) == ("A", "B")
    assert len(layout.tiles) == len(layout.chain) - 1  # one piece on the map
    assert report.summary.pieces["141"] == 1 and report.summary.gt.crossings == 1
    assert "S105" not in report.codes
    over = g.nodes["2:A2b"]["overlaps"]
    assert over == {"9:B1b", "9:B2b", "9:B3b"}
    track = Track.from_graph(g, layout)
    assert track.overlaps["9:B2b"] == {"2:A1b", "2:A2b", "2:A3b"}
    assert not track.beside["2:A2b"] & over  # overlapping spaces are not side by side


def test_the_halves_of_a_space_cut_by_a_skew_edge_are_one_node() -> None:
    # skewL meets skewL, skewR meets skewR: the skew straights alternate their way round
    stage = make_stage(
        "131a", {"tile": "121a", "enter": 2}, {"tile": "121a", "enter": 4}, kind="point-to-point"
    )
    report = validate(stage)
    assert "S128" not in report.codes
    g = report.graph
    joined = {n: d["parts"] for n, d in g.nodes(data=True) if len(d["parts"]) == 2}
    assert len(joined) == 6  # one per lane of each skew edge: tiles 1|2 and 2|3
    for n, parts in joined.items():
        (t1, s1), (t2, s2) = parts
        assert n == f"{t1}:{s1}" and f"{t2}:{s2}" not in g
        assert g.nodes[n]["back"] < g.nodes[n]["progress"]
        # entered from the first tile, left from the second: never an end of a move between
        assert {g.nodes[p]["tile"] for p in g.predecessors(n)} == {t1}
        assert {g.nodes[p]["tile"] for p in g.successors(n)} == {t2}


def test_a_junction_takes_the_road_asked_for_and_its_shared_spaces() -> None:
    # 151a: branch B joins road A's lanes 1-2 (spaces A1c, A2c belong to both)
    stage = make_stage("102a", "103a", {"tile": "151a", "road": "B", "enter": 3})
    tile = lay_out(stage).chain[2]
    assert tile.road is not None and tile.road.road_id == "B"
    assert {"A1c", "A2c"} <= set(tile.road.spaces)
    g = build_graph(lay_out(stage))
    entered = {v for u in ("2:A1b", "2:A2b", "2:A3b") for v in g.successors(u)}
    assert entered == {"3:A1c", "3:A2c"}  # B uses two of the edge's three slots


def test_the_road_under_a_bridge_is_driven_with_its_rows_of_spaces() -> None:
    # BOARD-2 DEFAULT: the hidden road holds BRIDGE_ROWS rows of its lanes
    stage = make_stage("102b", {"tile": "153b", "road": "B"}, "103b", kind="point-to-point")
    report = validate(stage)
    nodes = [d for _n, d in report.graph.nodes(data=True) if d["tile"] == 2]
    assert len(nodes) == BRIDGE_ROWS * 2 and all(d["hidden"] for d in nodes)
    assert report.summary.gt.bridges == 1 and "S104" not in report.codes


def test_a_lane_count_transition_meets_each_neighbour_with_its_own_lanes() -> None:
    # rule: BOARD-1 (119a: 3 lanes at edge 3, 2 at edge 0)
    ok = make_stage("102a", {"tile": "119a", "enter": 3}, "103b", kind="point-to-point")
    report = validate(ok)
    assert "S104" not in report.codes
    assert report.summary.gt.lanes["3-2"] == 1
    wrong = make_stage("102a", {"tile": "119a", "enter": 0}, "103b", kind="point-to-point")
    assert validate(wrong).codes.count("S104") == 2


def test_dotted_marks_on_a_tile_edge_limit_the_steps_across_it() -> None:
    # rule: CORNER-4 (107a: both road ends dotted over lane 1 with a warning sign)
    stage = make_stage("102a", {"tile": "107a", "enter": 3}, "103a", kind="point-to-point")
    g = build_graph(lay_out(stage))
    marked = [(u, v, d) for u, v, d in g.edges(data=True) if d["hazard"]]
    assert marked and all("dotted" in d["tags"] and "straight" in d["tags"] for *_, d in marked)
    assert all("diagonal" not in d["tags"] for *_, d in marked)


def test_the_pit_is_reached_from_the_lane_beside_it() -> None:
    # rule: GT-2 (DEFAULT: the lane nearest the pit tile, on the road tiles it touches)
    stage = make_stage(*GT_OVAL, {"tile": "101", "at": [1, 1], "dir": 0})
    g = validate(stage).graph
    (pit,) = g.graph["pits"]
    tiles = {g.nodes[n]["tile"] for n in pit["access"]}
    assert tiles == {2, 3}  # the tiles at [1, 0] and [2, 0] touch the pit at [1, 1]
    assert {g.nodes[n]["lanes"] for n in pit["access"]} == {(3,)}  # the right lane, driving
    assert all(g.nodes[n]["pit"] == 11 for n in pit["access"])


# --- editor files --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_rekee_gt_track_is_read_in_any_order(seed: int) -> None:
    doc = json.loads(dump_stage(make_stage(*GT_EIGHT), "rekee"))
    assert len(doc["tiles"]) == len(GT_EIGHT) - 1  # the crossing piece once
    random.Random(seed).shuffle(doc["tiles"])
    for t in doc["tiles"]:
        if t["id"] == "103a":
            t["id"] = "103a-2"  # an art variant reads as its face
    stage = parse_stage(json.dumps(doc))
    assert stage.tiles[0].tile == "102a"  # the walk starts from the start/finish face
    assert [t.road for t in stage.tiles if t.tile == "141b"] == ["A", "B"]  # met twice
    report = validate(stage)
    assert report.valid and report.kind.value == "circuit"
    assert (
        report.summary.gt.lap_length_spaces
        == validate(make_stage(*GT_EIGHT)).summary.gt.lap_length_spaces
    )


def test_an_rgt_gt_track_is_read_as_it_is() -> None:
    text = dump_stage(make_stage(*GT_OVAL), "rgt")
    report = validate(parse_stage(text))
    assert report.valid and report.layout.series == "gt" and report.layout.closes


def test_the_walk_chooses_the_junction_road_that_leads_on() -> None:
    # a Rekee file with 151a entered at edge 3 and the track going on beyond edge 1 (road B)
    layout = lay_out(make_stage("102a", "103a", {"tile": "151a", "road": "B", "enter": 3}, "103a"))
    doc = json.loads(dump_stage(layout.stage, "rekee"))
    stage = parse_stage(json.dumps(doc))
    assert [t.road for t in stage.tiles if t.tile == "151a"] == ["B"]


# --- the examples --------------------------------------------------------------------------


def test_the_gt_examples_validate_as_they_say() -> None:
    from trackkit.formats import load_stage

    examples = REPO / "examples"
    core = validate(load_stage(examples / "gt-core-circuit.yaml"))
    assert core.valid and core.findings == [] and core.layout.closes
    assert core.summary.boxes == {"gt-core": 1} and core.summary.gt.pit[0].access
    eight = validate(load_stage(examples / "gt-figure-eight.rekee.json"))
    assert eight.valid and eight.summary.gt.crossings == 1
    broken = validate(load_stage(examples / "gt-broken.yaml"))
    assert sorted(broken.codes) == sorted(
        ["S131", "S133", "S126", "S104", "S120", "R202", "S123", "S128"]
    )


def test_converting_a_gt_track_names_what_an_editor_file_cannot_hold() -> None:
    from trackkit.formats import parse_source
    from trackkit.formats.roundtrip import conversion_losses

    text = "format: trackkit-stage/1\nlaps: 5\ntiles:\n" + "".join(
        f"  - {json.dumps(t)}\n" for t in GT_OVAL
    )
    source = parse_source(text, file="oval.yaml")
    out = dump_stage(source.stage, "rekee")
    losses = conversion_losses(source, source.stage, "rekee", out)
    assert any("laps: 5" in item for item in losses)
    assert not any("ruleset" in item for item in losses)  # the tiles say it is a GT track


def test_a_gt_rekee_file_with_a_typo_is_one_break_and_one_list() -> None:
    text = (REPO / "examples" / "gt-figure-eight.rekee.json").read_text(encoding="utf-8")
    report = validate(parse_stage(text.replace('"117a"', '"117x"')))
    assert sorted(report.codes) == ["S101", "S117", "S118"]
    (brk,) = [f for f in report.findings if f.code == "S117"]
    assert "117x" in brk.message and brk.fix and "117a" in brk.fix


def _eight_with(change: str) -> dict:  # type: ignore[type-arg]
    doc = json.loads((REPO / "examples" / "gt-figure-eight.rekee.json").read_text("utf-8"))
    tiles = doc["tiles"]
    crossing = next(t for t in tiles if t["id"] == "141b")
    if change == "turned":
        crossing["dir"] = (crossing["dir"] + 1) % 6
    else:
        tiles.remove(crossing)
    return doc  # type: ignore[no-any-return]


def test_a_crossing_turned_wrong_gets_the_turn_that_mends_the_figure_of_eight() -> None:
    """The road meets the crossing a second time out of order: the fix turns the crossing
    (which the road drove already) back, not the tile where the road breaks."""
    report = validate(parse_stage(json.dumps(_eight_with("turned"))))
    (brk,) = [f for f in report.findings if f.code == "S117"]
    assert "141b" in brk.message and "out of driving order" in brk.message
    assert brk.fix.startswith("Turn tile 2 (141b)") and "by one step anticlockwise" in brk.fix
    doc = _eight_with("turned")
    tiles = doc["tiles"]
    crossing = next(t for t in tiles if t["id"] == "141b")
    old, new = crossing["dir"], int(brk.fix.split(" -> ")[1].split(")")[0])
    assert f"(dir {old} -> {new})" in brk.fix
    crossing["dir"] = new  # do what the fix says: the figure of eight is whole again
    assert validate(parse_stage(json.dumps(doc))).valid


def test_a_missing_crossing_is_a_tile_to_put_on_the_empty_hex() -> None:
    report = validate(parse_stage(json.dumps(_eight_with("removed"))))
    (brk,) = [f for f in report.findings if f.code == "S117"]
    assert "faces the empty hex [1, 0]" in brk.message
    assert brk.fix.startswith("A tile is missing on the empty hex [1, 0]")
