"""Hex maths: the Rekee edge convention (../shared/data/README.md)."""

from __future__ import annotations

import math

import pytest

from trackkit.road import hexgrid


@pytest.mark.parametrize(
    ("direction", "expected"),
    [
        (0, (1, 0)),
        (1, (0, 1)),
        (2, (-1, 1)),
        (3, (-1, 0)),
        (4, (0, -1)),
        (5, (1, -1)),
    ],
)
def test_direction_k_faces_the_documented_neighbour(direction: int, expected: tuple[int, int]):
    assert hexgrid.neighbour((0, 0), direction) == expected
    assert hexgrid.direction_between((0, 0), expected) == direction


def test_rotation_maps_local_edges_to_world_directions():
    # a tile with dir 2 has its local edge 5 facing world direction 1
    assert hexgrid.world_edge(5, 2) == 1
    assert all(
        hexgrid.local_edge(hexgrid.world_edge(e, r), r) == e for e in range(6) for r in range(6)
    )


def test_neighbouring_centres_are_one_tile_size_apart():
    size = 240.0
    for d in range(6):
        a = hexgrid.centre_mm((0, 0), size)
        b = hexgrid.centre_mm(hexgrid.neighbour((0, 0), d), size)
        assert math.dist(a, b) == pytest.approx(size)
        # and direction k points 60*k degrees clockwise from east (y down)
        angle = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) % 360
        assert angle == pytest.approx(60 * d)


def test_offset_coordinates_convert_as_rekee_does():
    # README: q = -X - ((Y & 1) + Y) / 2, r = Y
    assert hexgrid.offset_to_axial(54, 52) == (-80, 52)
    assert hexgrid.offset_to_axial(55, 53) == (-82, 53)
    for x in range(-4, 5):
        for y in range(-4, 5):
            assert hexgrid.axial_to_offset(hexgrid.offset_to_axial(x, y)) == (x, y)


def test_distance_and_non_neighbours():
    assert hexgrid.distance((0, 0), (2, -1)) == 2
    assert hexgrid.direction_between((0, 0), (2, 0)) is None
