"""Each library face checked on its own, in both driving directions, and its geometry."""

from __future__ import annotations

import pytest
from shapely.geometry import Polygon

from trackkit.checks.tiles import check_face
from trackkit.models.tile import CornerSection
from trackkit.road.geometry import DEFAULT_TILE_SIZE_MM, centre_line, space_polygon
from trackkit.road.spaces import drive
from trackkit.tiles.library import default_library

LIB = default_library()
ROADS = [f for f in LIB if f.road is not None and f.road.shape.value != "dead-end"]


@pytest.mark.parametrize("face", ROADS, ids=lambda f: f.id)
def test_face_passes_its_own_checks(face):  # type: ignore[no-untyped-def]
    # reachability from entry and to exit both ways, limits in range, inner below outer,
    # climb arrows on every line (CORNER-2, CLIMB-1)
    assert check_face(face) == []


@pytest.mark.parametrize("face", ROADS, ids=lambda f: f.id)
def test_space_polygons_are_valid_and_inside_the_tile(face):  # type: ignore[no-untyped-def]
    hexagon = Polygon(
        [
            (x, y)
            for x, y in __import__("trackkit.road.hexgrid", fromlist=["x"]).corners_mm(
                (0, 0), DEFAULT_TILE_SIZE_MM
            )
        ]
    )
    road = drive(face, face.road.from_edge)
    for space in road.spaces.values():
        poly = space_polygon(road, space)
        assert poly.is_valid and poly.area > 0, space.id
        assert hexagon.buffer(1.0).contains(poly), space.id


def test_lane_spaces_of_a_row_do_not_overlap():
    road = drive(LIB.get("205a"), 0)  # type: ignore[arg-type]
    left = space_polygon(road, road.spaces["1.1L"])
    right = space_polygon(road, road.spaces["1.1R"])
    assert left.intersection(right).area == pytest.approx(0.0, abs=1e-6)
    assert left.area == pytest.approx(right.area, rel=1e-6)


def test_road_lengths_follow_the_shape():
    straight = centre_line(drive(LIB.get("205a"), 0)).length  # type: ignore[arg-type]
    bend = centre_line(drive(LIB.get("208a"), 1)).length  # type: ignore[arg-type]
    assert straight == pytest.approx(DEFAULT_TILE_SIZE_MM)
    # a 60-degree arc of radius 1.5 R (R = size / sqrt 3) is shorter than the straight
    assert bend == pytest.approx(3.1416 / 2 * DEFAULT_TILE_SIZE_MM / 3**0.5, rel=0.01)


def test_the_library_holds_every_asked_face():
    ids = {f.id for f in LIB}
    for n in range(201, 233):
        assert {f"{n}a", f"{n}b"} <= ids
    for n in [*range(301, 327), 418, 419, *range(901, 906)]:
        assert {f"{n}a", f"{n}b"} <= ids


def test_corner_inner_limit_is_below_outer_on_every_face():
    # rule: CORNER-2
    for face in ROADS:
        for sec in face.road.sections:  # type: ignore[union-attr]
            if isinstance(sec, CornerSection):
                assert sec.inner.limit < sec.outer.limit, face.id


def test_every_space_of_a_stage_carries_its_tiles_surface_and_danger():
    # rule: BOARD-4 (one surface and one danger level per face, for every space on it);
    # the danger level then decides crash damage (DAMAGE-2)
    from stagekit import make_stage

    from trackkit.rules.ruleset import load_ruleset
    from trackkit.stage.assemble import lay_out
    from trackkit.stage.graph import build_graph

    stage = make_stage("202a", "205a", "301a", {"tile": "222a", "turn": "left"}, "203a")
    layout = lay_out(stage)
    graph = build_graph(layout)
    faces = {t.index: t.face for t in layout.chain}
    for _, data in graph.nodes(data=True):
        face = faces[data["tile"]]
        assert face is not None
        assert data["surface"] == face.surface.value and data["danger"] == face.danger.value
    assert {d["surface"] for _, d in graph.nodes(data=True)} == {"gravel", "asphalt"}
    rules = load_ruleset("dirt")
    assert rules.crash_tokens(5, "low") < rules.crash_tokens(5, "high")
