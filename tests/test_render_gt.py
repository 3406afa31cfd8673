"""Rallyman: GT tracks drawn (issue 10, item 5): structure checked against the graph and
the face data, geometry against the pictures' readings.

Every count is the graph's or the tile data's: one element per graph node with its id, the
limits, dotted marks and grid slots printed on the faces, one outline for the two halves
of a space cut by a skew edge; the space outlines hold the points read off the pictures
and run as far along the road as the graph's progress says.
"""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

import pytest
from stagekit import GT_EIGHT, REPO, make_stage

from trackkit.formats import load_stage
from trackkit.models.tile import TileFace
from trackkit.render.draw import local_hexagon, svg_id
from trackkit.render.sheet import tile_sheet
from trackkit.render.svg import render_map
from trackkit.road import hexgrid
from trackkit.road.geometry import GT_PICTURE_PX, GT_ROAD_PX, centre_line, gt_shape, picture_point
from trackkit.road.spaces import BRIDGE_ROWS, lane_roads
from trackkit.tiles.library import default_library

NS = "{http://www.w3.org/2000/svg}"
EXAMPLES = REPO / "examples"
LIB = default_library()
GT_EXAMPLES = ["gt-core-circuit.yaml", "gt-figure-eight.rekee.json", "gt-broken.yaml"]
GT_FACES_ = [f for f in LIB if f.layout is not None]

#: Skew straights zigzagging down the map (World Tour, Championship): each skew end meets
#: one of its own hand, so the halves of its spaces are joined into one space.
GT_SKEW = (
    {"tile": "131a"},
    {"tile": "121a", "enter": 2},
    {"tile": "132a", "enter": 4},
    {"tile": "121a", "enter": 2},
    {"tile": "131a", "enter": 4},
)
#: The figure of eight of the test kit with 2-lane faces and the bridge 153b in the middle:
#: driven over it, then under it.
GT_BRIDGE = tuple(
    {**t, "tile": "153b" if t["tile"] == "141b" else t["tile"][:3] + "b"} for t in GT_EIGHT
)
#: A four-lane oval (Team Challenge): the start/finish straight and its 12 grid slots.
GT_FOUR = (
    "139a",
    "145a",
    {"tile": "146a", "turn": "left"},
    {"tile": "147a", "turn": "left"},
    {"tile": "148a", "turn": "left"},
    "145a",
    "145a",
    {"tile": "149a", "turn": "left"},
    {"tile": "146a", "turn": "left"},
    {"tile": "147a", "turn": "left"},
)
#: 2 lanes into 3 and back (119a, 120a driven from its 3-lane end).
GT_LANES = ("102b", "119a", "103a", {"tile": "120a", "enter": 3}, "103b")


def _stage(name: str) -> Any:
    made = {
        "skew": (GT_SKEW, "point-to-point"),
        "bridge": (GT_BRIDGE, None),
        "four": (GT_FOUR, None),
        "lanes": (GT_LANES, "point-to-point"),
    }
    if name in made:
        tiles, kind = made[name]
        fields = {"kind": kind} if kind else {}
        return make_stage(*tiles, name=name, ruleset="gt", **fields)
    return load_stage(EXAMPLES / name)


@pytest.fixture(scope="module", params=[*GT_EXAMPLES, "skew", "bridge", "four", "lanes"])
def drawn(request: pytest.FixtureRequest) -> Any:
    return render_map(_stage(request.param))


# --- helpers -------------------------------------------------------------------------------


def classes(el: ET.Element) -> set[str]:
    return set(el.get("class", "").split())


def the_map(svg: str) -> ET.Element:
    found = ET.fromstring(svg).find(f".//{NS}g[@id='map']")
    assert found is not None
    return found


def features(root: ET.Element, kind: str) -> list[ET.Element]:
    return [el for el in root.iter() if {"feature", kind} <= classes(el)]


def pieces(drawn: Any) -> list[TileFace]:
    """The GT faces on the map, each piece once."""
    return [t.face for t in drawn.layout.tiles if t.face is not None and t.face.layout]


def visible_spaces(face: TileFace) -> set[str]:
    assert face.layout is not None
    return {s for r in face.layout.roads if not r.hidden for s in r.named_spaces()}


# --- every node, once, with its id --------------------------------------------------------


def test_every_graph_node_is_drawn_once_with_its_id(drawn: Any) -> None:
    g = drawn.report.graph
    els = [el for el in the_map(drawn.svg).iter() if el.get("data-node")]
    counts = Counter(el.get("data-node") for el in els)
    assert set(counts) == set(g.nodes) and set(counts.values()) == {1}
    for el in els:
        node = el.get("data-node", "")
        tile, sid = node.split(":", 1)
        assert el.get("id") == svg_id("space", tile, sid)
        assert {"space", f"kind-{g.nodes[node]['kind']}"} <= classes(el)
        assert el.tag == f"{NS}path"


def test_ids_are_unique_and_every_feature_has_one(drawn: Any) -> None:
    root = ET.fromstring(drawn.svg)
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", i or "") for i in ids)
    feats = [el for el in the_map(drawn.svg).iter() if "feature" in classes(el)]
    assert feats and all(el.get("id") for el in feats)


def test_every_space_of_every_piece_is_drawn(drawn: Any) -> None:
    """The roads a track does not drive are printed on the piece too (dimmed)."""
    gt_tiles = [g for g in the_map(drawn.svg) if {"tile", "gt"} <= classes(g)]
    spaces = [el for g in gt_tiles for el in g.iter() if "space" in classes(el)]
    joined = sum(
        len({t for t, _ in d["parts"]}) - 1 for _n, d in drawn.report.graph.nodes(data=True)
    )
    expected = sum(len({s for r in lane_roads(f) for s in r.named_spaces()}) for f in pieces(drawn))
    assert len(spaces) == expected - joined


def test_a_space_cut_by_a_skew_edge_is_one_outline_over_both_tiles(drawn: Any) -> None:
    g = drawn.report.graph
    root = the_map(drawn.svg)
    by_node = {el.get("data-node"): el for el in root.iter() if el.get("data-node")}
    ids = {el.get("id") for el in root.iter()}
    joined = [(n, d["parts"]) for n, d in g.nodes(data=True) if len(d["parts"]) > 1]
    if drawn.report.summary.name == "skew":
        assert len(joined) == 4 * 3  # four skew edges, three lanes each
    for node, parts in joined:
        el = by_node[node]
        assert "joined" in classes(el)
        assert el.get("d", "").count("M") == 1, node  # the halves meet: one outline
        for tile, sid in parts[1:]:
            assert svg_id("space", tile, sid) not in ids  # no element for the other half


def test_the_halves_of_a_skew_space_make_one_shape_of_both_areas() -> None:
    from shapely import affinity
    from shapely.geometry import Polygon
    from shapely.ops import unary_union

    from trackkit.road.geometry import space_polygon

    drawn = render_map(_stage("skew"))
    layout, g = drawn.layout, drawn.report.graph
    tiles = {t.index: t for t in layout.chain}
    checked = 0
    for _node, data in g.nodes(data=True):
        if len(data["parts"]) < 2:
            continue
        halves = []
        for t, sid in data["parts"]:
            tile = tiles[t]
            assert tile.road is not None
            poly = space_polygon(tile.road, tile.road.spaces[sid], layout.size)
            cx, cy = hexgrid.centre_mm(tile.hex, layout.size)
            a = math.radians(60 * tile.rotation)
            c, s = math.cos(a), math.sin(a)
            halves.append(affinity.affine_transform(poly, [c, -s, s, c, cx, cy]))
        whole = unary_union([h.buffer(0.02, join_style="mitre") for h in halves]).buffer(
            -0.02, join_style="mitre"
        )
        assert isinstance(whole, Polygon)  # they meet along the edge ...
        assert math.isclose(whole.area, sum(h.area for h in halves), rel_tol=0.01)
        assert halves[0].intersection(halves[1]).area < 0.5  # ... and do not overlap
        checked += 1
    assert checked == 12


# --- limits, dotted marks, grid, line, direction ------------------------------------------


def test_limits_are_the_graph_s_and_the_faces(drawn: Any) -> None:
    g = drawn.report.graph
    root = the_map(drawn.svg)
    limits = features(root, "limit")
    printed = sum(
        1
        for f in pieces(drawn)
        for s in visible_spaces(f)
        if f.layout is not None and f.layout.spaces[s].limit is not None
    )
    assert len(limits) == printed
    ids = {el.get("id") for el in limits}
    limited = [n for n, d in g.nodes(data=True) if d["printed_limit"] is not None]
    assert {svg_id("limit", *n.split(":", 1)) for n in limited} <= ids
    triangles = [el for el in limits if "triangle" in classes(el)]
    assert len(triangles) == sum(1 for _n, d in g.nodes(data=True) if d["triangle"])
    for el in limits:  # the number shown is the graph's limit
        node = el.get("id", "")[len("limit-") :].replace("-", ":", 1)
        if node in g:
            text = "".join(t.text or "" for t in el.iter(f"{NS}text"))
            assert text == str(g.nodes[node]["limit"])


def test_dotted_marks_are_the_faces_and_the_summary_s(drawn: Any) -> None:
    root = the_map(drawn.svg)
    marks = features(root, "dotted")
    data = [
        (line.dotted[lane], lane)
        for f in pieces(drawn)
        if f.layout is not None
        for r in f.layout.roads
        if not r.hidden
        for line in r.lines.values()
        for lane in line.dotted
    ]
    assert len(marks) == len(data)
    hazards = [el for el in marks if "dotted-hazard" in classes(el)]
    assert len(hazards) == sum(1 for mark, _ in data if mark == "hazard")
    summary = drawn.report.summary.gt.sharp_corners
    driven = sum(len(s.marks) for s in summary)
    assert driven <= len(marks)
    if not any(len(lane_roads(f)) > 1 for f in pieces(drawn)):
        assert driven == len(marks)
    numbers = sorted(
        "".join(t.text or "" for t in el.iter(f"{NS}text"))
        for el in marks
        if "dotted-number" in classes(el)
    )
    assert numbers == sorted(str(mark) for mark, _ in data if mark != "hazard")


def test_the_grid_is_numbered_as_the_race_starts(drawn: Any) -> None:
    g = drawn.report.graph
    root = the_map(drawn.svg)
    grid = {el.get("id"): el for el in features(root, "grid")}
    slots = sum(
        len(row)
        for f in pieces(drawn)
        if f.layout
        for sf in f.layout.start_finish
        for row in sf.grid
    )
    assert len(grid) == slots
    if drawn.report.summary.gt.grid_slots:
        for n, node in enumerate(g.graph["start"], start=1):
            el = grid[svg_id("grid", *node.split(":", 1))]
            assert "".join(t.text or "" for t in el.iter(f"{NS}text")) == str(n)
    lines = sum(len(f.layout.start_finish) for f in pieces(drawn) if f.layout)
    assert len(features(root, "start-finish")) == lines


def test_one_arrow_shows_the_race_direction(drawn: Any) -> None:
    holders = [g for g in the_map(drawn.svg).iter(f"{NS}g") if g.get("id", "").startswith("marks-")]
    found = [(g, a) for g in holders for a in features(g, "direction")]
    assert len(found) == 1
    holder, arrow = found[0]
    tile = next(t for t in drawn.layout.chain if holder.get("id") == f"marks-{t.index}")
    assert tile.road is not None
    use = arrow.find(f"{NS}use")
    assert use is not None
    m = [float(v) for v in re.findall(r"-?[\d.]+", use.get("transform", ""))]
    ahead = math.degrees(math.atan2(m[3], m[2])) + 60 * tile.rotation  # the symbol's +y
    # the race runs along the road there: from its entry edge toward its exit edge
    line = centre_line(tile.road, drawn.layout.size)
    heading = line.heading(0.5) + 60 * tile.rotation
    if tile.road.start_at is not None:
        heading = line.heading(tile.road.start_at) + 60 * tile.rotation
    assert math.cos(math.radians(ahead - heading)) > 0.95


@pytest.mark.parametrize("face", GT_FACES_, ids=lambda f: f.id)
def test_danger_markers_stand_beside_the_road_ends(face: TileFace) -> None:
    from shapely.geometry import Point

    from trackkit.render.gt_road import kerb_spots, piece_outline

    assert face.layout is not None
    spots = kerb_spots(face, 240.0)
    road = piece_outline(face, 240.0)
    points = [(rid, at) for (rid, _e), marks in spots.items() for at, _d in marks]
    assert not any(road.contains(Point(at)) for _r, at in points)  # beside, never on, a road
    for (r1, a), (r2, b) in itertools.combinations(points, 2):
        assert r1 == r2 or math.dist(a, b) >= 0.04 * 240.0  # two roads' markers: not one place
    ends = Counter(e for r in face.layout.roads if not r.hidden for e in (r.from_edge, r.to_edge))
    for r in face.layout.roads:
        for edge in (r.from_edge, r.to_edge):
            if not r.hidden and ends[edge] == 1:  # a road end of its own: a marker each side
                assert len(spots[(r.id, edge)]) == 2, (r.id, edge)


def test_danger_markers_at_both_ends_of_every_visible_road(drawn: Any) -> None:
    expected = sum(
        2 * sum(1 for r in f.layout.roads if not r.hidden)
        for f in pieces(drawn)
        if f.layout and f.danger.value != "none"
    )
    marks = [g for g in the_map(drawn.svg) if "tile-marks" in classes(g)]
    assert sum(len(features(g, "danger")) for g in marks) == expected


# --- crossings, bridges, the pit ------------------------------------------------------------


def test_a_crossing_piece_is_drawn_once_with_both_roads_and_their_overlap() -> None:
    drawn = render_map(load_stage(EXAMPLES / "gt-figure-eight.rekee.json"))
    root = the_map(drawn.svg)
    first, again = [t for t in drawn.layout.chain if t.face_id == "141b"]
    tile = root.find(f".//{NS}g[@id='tile-{first.index}']")
    assert tile is not None and root.find(f".//{NS}g[@id='tile-{again.index}']") is None
    nodes = [el.get("data-node", "") for el in tile.iter() if el.get("data-node")]
    assert {n.split(":")[0] for n in nodes} == {str(first.index), str(again.index)}
    over = [el for el in tile.iter() if "overlap" in classes(el)]
    face = LIB.get("141b")
    assert face is not None and face.layout is not None
    # the road drawn second lies over the first where they cross, half see-through
    crossing = {b for _a, b in face.layout.overlaps} | {a for a, _b in face.layout.overlaps}
    assert over and all(el.get("id", "").rsplit("-", 1)[-1] in crossing for el in over)
    marks = root.find(f".//{NS}g[@id='marks-{first.index}']")
    assert marks is not None
    # the label names both visits (on one line, or the numbers over the id where one
    # line finds no room clear of the roads)
    label = [t.text for t in marks.iter(f"{NS}text") if t.get("class") == "tile-label"]
    assert " · ".join(label) == f"{first.index}, {again.index} · 141b"


def test_the_road_under_a_bridge_is_drawn_dashed_beneath_it() -> None:
    drawn = render_map(_stage("bridge"))
    root = the_map(drawn.svg)
    hidden = [el for el in root.iter() if "hidden" in classes(el)]
    g = drawn.report.graph
    assert len(hidden) == BRIDGE_ROWS * 2 == sum(1 for _n, d in g.nodes(data=True) if d["hidden"])
    assert all(g.nodes[el.get("data-node")]["hidden"] for el in hidden)
    (tile,) = [g for g in root if any("hidden" in classes(el) for el in g.iter())]
    spaces = [el for el in tile.iter() if "space" in classes(el)]
    # beneath the bridge: drawn first, the bridge's road over them
    assert [("hidden" in classes(el)) for el in spaces] == [True] * len(hidden) + [False] * (
        len(spaces) - len(hidden)
    )
    assert drawn.report.summary.gt.bridges == 1


def test_the_pit_board_and_the_spaces_it_is_reached_from() -> None:
    drawn = render_map(load_stage(EXAMPLES / "gt-core-circuit.yaml"))
    root = the_map(drawn.svg)
    (pit,) = features(root, "pit")
    spots = [el for el in pit.iter() if "pit-spot" in classes(el)]
    assert [el.get("id", "").rsplit("-", 1)[-1] for el in spots] == ["P1", "P2", "P3"]
    texts = " ".join(t.text or "" for t in pit.iter(f"{NS}text"))
    assert "00 · tyres + repair" in texts and "0 · tyres" in texts
    access = {el.get("data-node") for el in root.iter() if "pit-access" in classes(el)}
    (pits,) = drawn.report.graph.graph["pits"]
    assert access == set(pits["access"]) and access


# --- the title block and legend ----------------------------------------------------------


def test_the_title_block_gives_the_lap_lanes_corners_and_boxes() -> None:
    drawn = render_map(load_stage(EXAMPLES / "gt-core-circuit.yaml"))
    summary = drawn.report.summary
    card = ET.fromstring(drawn.svg).find(f".//{NS}g[@id='title-block']")
    assert card is not None
    text = " ".join(t.text or "" for t in card.iter(f"{NS}text"))
    assert f"lap {summary.gt.lap_length_mm / 1000:.2f} m" in text
    assert f"{summary.gt.lap_length_spaces} moves a lap" in text and "3 laps" in text
    assert "Lanes: 3 on 18 tiles" in text
    assert f"Corners: {len(summary.corners)}, limits 1, 2" in text
    assert "4/4!" in text and "Boxes needed: gt-core" in text
    assert "race direction" in text and "dotted line" in text  # the GT legend
    assert "come later" not in drawn.svg and "sketch" not in drawn.svg


# --- geometry: outlines against the pictures' readings and the graph ----------------------


GT_FACES = GT_FACES_


@pytest.mark.parametrize("face", GT_FACES, ids=lambda f: f.id)
def test_space_outlines_hold_their_picture_points_and_lie_on_their_tile(face: TileFace) -> None:
    from shapely.geometry import Point, Polygon

    assert face.layout is not None
    hexagon = Polygon(local_hexagon(240.0)).buffer(0.01)
    for road in lane_roads(face):
        shape = gt_shape(road, 240.0)
        polys = shape.polygons
        assert set(polys) == set(road.named_spaces())
        for sid, poly in polys.items():
            assert isinstance(poly, Polygon) and poly.is_valid and poly.area > 50, sid
            assert hexagon.contains(poly), sid
            printed = face.layout.spaces.get(sid)
            if printed is not None and printed.px is not None and not road.hidden:
                # the point read inside the space on the picture is inside its outline
                assert poly.contains(Point(picture_point(printed.px, 240.0))), sid
        for (a, pa), (b, pb) in itertools.combinations(polys.items(), 2):
            # spaces of one road do not overlap (a hairpin's inner edge folds a hair)
            assert pa.intersection(pb).area < 2.0, (a, b)


@pytest.mark.parametrize("face", GT_FACES, ids=lambda f: f.id)
def test_outlines_run_as_far_along_the_road_as_the_graph_s_progress(face: TileFace) -> None:
    from shapely.geometry import Point

    for road in lane_roads(face):
        shape = gt_shape(road, 240.0)
        # the drawn centre line is the road's length the graph measures progress by
        assert math.isclose(shape.line.length, road.length * 240.0 / GT_PICTURE_PX, rel_tol=0.02)
        for sid, sp in shape.cut.spaces.items():
            right, left = shape.band(sp.lanes, sid)
            mid = (right + left) / 2
            for f in (0.25, 0.5, 0.75):
                p = sp.back_progress + f * (sp.progress - sp.back_progress)
                if 0.0 < p < 1.0:
                    at = Point(shape.point(p, mid))
                    assert shape.polygons[sid].buffer(0.3).contains(at), (sid, f)


@pytest.mark.parametrize(("face_id", "lanes"), [("103b", 2), ("103a", 3), ("145a", 4)])
def test_roads_are_as_wide_as_their_lanes(face_id: str, lanes: int) -> None:
    from shapely.ops import unary_union

    face = LIB.get(face_id)
    assert face is not None and face.layout is not None
    (road,) = face.layout.roads
    shape = gt_shape(road, 240.0)
    road_area = unary_union([p.buffer(0.01) for p in shape.polygons.values()]).area
    width = GT_ROAD_PX[lanes] * 240.0 / GT_PICTURE_PX
    assert math.isclose(road_area, width * 240.0, rel_tol=0.01)
    assert shape.lanes_at(0.5) == lanes


def test_a_lane_count_transition_widens_the_road_over_the_row_before_it() -> None:
    face = LIB.get("119a")
    assert face is not None and face.layout is not None
    (road,) = face.layout.roads
    shape = gt_shape(road, 450.0)  # picture pixels
    assert shape.half(0.1) == GT_ROAD_PX[2] / 2 and shape.half(0.9) == GT_ROAD_PX[3] / 2
    # 119a's road flares between its two cross lines (l1 at 0.333, l2 at 0.662)
    assert GT_ROAD_PX[2] / 2 < shape.half(0.5) < GT_ROAD_PX[3] / 2
    assert shape.half(0.3) == GT_ROAD_PX[2] / 2 and shape.half(0.7) == GT_ROAD_PX[3] / 2


# --- tile sheets of every GT box ------------------------------------------------------------


@pytest.mark.parametrize(
    "box", ["gt-core", "gt-championship", "gt-world-tour", "gt-team-challenge", "gt-adrenaline"]
)
def test_tile_sheets_draw_every_gt_face_of_every_box(box: str) -> None:
    faces = LIB.in_box(box)
    root = ET.fromstring(tile_sheet(faces).single.text)
    for face in faces:
        if face.layout is None:
            continue  # a scenery filler
        tile = root.find(f".//{NS}g[@id='{svg_id('tile', face.id)}']")
        marks = root.find(f".//{NS}g[@id='{svg_id('marks', face.id)}']")
        assert tile is not None and marks is not None, face.id
        spaces = [el for el in tile.iter() if "space" in classes(el)]
        assert len(spaces) == len({s for r in lane_roads(face) for s in r.named_spaces()})
        assert not any(el.get("data-node") for el in spaces)  # no stage graph on a sheet
        limits = [s for s in visible_spaces(face) if face.layout.spaces[s].limit is not None]
        assert len(features(marks, "limit")) == len(limits), face.id
        dotted = sum(len(line.dotted) for r in face.layout.roads for line in r.lines.values())
        assert len(features(marks, "dotted")) == dotted, face.id
        assert len(features(marks, "pit")) == (face.layout.pit is not None)
        # each start/finish line with the way its race runs
        lines = len(face.layout.start_finish)
        assert len(features(marks, "direction")) == len(features(marks, "start-finish")) == lines


# --- the commands ---------------------------------------------------------------------------


def test_render_print_and_sheet_commands_draw_gt_tracks(tmp_path: Any) -> None:
    import io

    from PIL import Image
    from typer.testing import CliRunner

    from trackkit.checks.pipeline import validate
    from trackkit.cli.app import app
    from trackkit.render.pages import print_pages

    runner = CliRunner()
    eight = EXAMPLES / "gt-figure-eight.rekee.json"
    for suffix in ("svg", "png", "pdf"):
        out = tmp_path / f"eight.{suffix}"
        result = runner.invoke(app, ["render", str(eight), "-o", str(out), "--px", "900"])
        assert result.exit_code == 0, result.output
        assert "13 tiles of 240 mm" in result.stdout  # the crossing driven twice is one piece
    svg = (tmp_path / "eight.svg").read_text("utf-8")
    assert svg.count("data-node=") == validate(load_stage(eight)).graph.number_of_nodes()
    image = Image.open(io.BytesIO((tmp_path / "eight.png").read_bytes())).convert("RGB")
    assert max(image.size) == 900 and len(image.getcolors(1 << 20) or []) > 50
    assert (tmp_path / "eight.pdf").read_bytes().startswith(b"%PDF-")

    core = EXAMPLES / "gt-core-circuit.yaml"
    out = tmp_path / "core.svg"
    result = runner.invoke(app, ["print", str(core), "-o", str(out), "--paper", "a4"])
    assert result.exit_code == 0, result.output
    report = validate(load_stage(core))
    pages = len(print_pages(report, report.layout).plan.printed)
    assert len(list(tmp_path.glob("core-page-*.svg"))) == pages
    overview = out.read_text("utf-8")
    assert "gt-core: 19 pieces" in overview  # the pull list, by GT box

    sheet = tmp_path / "tour.svg"
    result = runner.invoke(app, ["tiles", "sheet", "-o", str(sheet), "--box", "gt-world-tour"])
    assert result.exit_code == 0, result.output
    root = ET.parse(sheet).getroot()
    tiles = [g for g in root.iter(f"{NS}g") if {"tile", "gt"} <= classes(g)]
    assert len(tiles) == len(LIB.in_box("gt-world-tour"))


def test_a_heat_map_tints_the_spaces_of_gt_pieces_by_node() -> None:
    from trackkit.checks.pipeline import validate
    from trackkit.render.svg import map_svg

    report = validate(load_stage(EXAMPLES / "gt-figure-eight.rekee.json"))
    nodes = [n for n in report.graph.nodes if n.startswith("9:")][:3]  # the crossing, again
    drawn = map_svg(report, heat={nodes[0]: 4, nodes[1]: 2, nodes[2]: 1})
    hot = {el.get("data-node") for el in the_map(drawn.svg).iter() if "heat" in classes(el)}
    assert hot == set(nodes)


@pytest.mark.parametrize(
    "face", [f for f in GT_FACES_ if f.layout and f.layout.start_finish], ids=lambda f: f.id
)
def test_a_start_face_on_a_sheet_points_the_way_its_grid_faces(face: TileFace) -> None:
    assert face.layout is not None
    root = ET.fromstring(tile_sheet([face]).single.text)
    marks = root.find(f".//{NS}g[@id='{svg_id('marks', face.id)}']")
    assert marks is not None
    for sf in face.layout.start_finish:
        arrow = marks.find(f".//{NS}g[@id='{svg_id('direction', face.id, sf.road)}']")
        assert arrow is not None
        use = arrow.find(f"{NS}use")
        assert use is not None
        m = [float(v) for v in re.findall(r"-?[\d.]+", use.get("transform", ""))]
        ahead = (m[2], m[3])  # the arrow's +y, in the face's frame (a sheet turns nothing)
        # the race runs toward the edge the grid faces: its outward direction
        edge = (
            math.cos(math.radians(60 * sf.race_toward)),
            math.sin(math.radians(60 * sf.race_toward)),
        )
        cos = (ahead[0] * edge[0] + ahead[1] * edge[1]) / math.hypot(*ahead)
        assert cos > 0.8, (sf.road, cos)  # square to the edge, or 30° off at a skew one


def test_the_title_block_counts_lane_widths_most_common_first_in_one_short_line() -> None:
    from trackkit.checks.text import title_lines
    from trackkit.models import StageSummary

    oval = {
        **{"name": "oval", "author": "", "series": "gt", "kind": "circuit", "tiles": 12},
        **{"tiles_beside_road": 0, "tiles_not_driven": 0, "driven_twice": [], "spaces": 90},
        **{"laps": 3, "closed": True, "lap_length_spaces": 30, "lap_length_mm": 2800.0},
        **{"length_spaces": None, "length_mm": None, "surfaces": {"asphalt": 12}},
        **{"danger": {"low": 12}, "corners": [], "sharp_corners": [], "crossings": 0},
        **{"bridges": 0, "skew_edges": 0, "start_finish": [1], "grid_slots": 6, "pit": []},
        **{"tokens": [], "boxes": {}, "pieces": {}},
    }

    def lanes_line(lanes: dict[str, int]) -> str:
        lines = title_lines(StageSummary.model_validate({**oval, "lanes": lanes}))
        (line,) = [x for x in lines if x.startswith("Lanes: ")]
        return line.removeprefix("Lanes: ").split(" · ")[0]

    # a road that widens (2-3) and one that narrows (3-2) are the same kind of tile here
    assert lanes_line({"2": 3, "2-3": 1, "3": 9, "3-2": 1}) == "3 on 9 tiles, 2 on 3, 2-3 on 2"
    assert lanes_line({"3": 18}) == "3 on 18 tiles" and lanes_line({}) == "none"
