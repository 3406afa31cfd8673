"""Placement: one road choice for both series, and the ways a tile is placed (issue 20).

A tile of the road is snapped onto the previous tile's exit, or placed where its
``at``/``dir`` say; a tile with ``driven: false`` stays where it is put, off the road. The
way it is driven (its entry and road) is chosen the same way on a DIRT and a GT face:
``enter``, ``turn``, ``climb``, the start/finish line, else its first road end.
"""

from __future__ import annotations

from typing import Any

import pytest

from trackkit.models import Stage
from trackkit.road.spaces import start_entry
from trackkit.stage.assemble import Layout, lay_out

#: Per series: a start tile, a bend (turned left: in by edge 1, out by 3; right: in by 3),
#: and a straight.
SERIES = {
    "dirt": {"start": "202a", "bend": "217a", "straight": "205a", "ruleset": None},
    "gt": {"start": "102a", "bend": "105a", "straight": "103a", "ruleset": "gt"},
}


def _stage(series: str, *tiles: dict[str, Any], **fields: Any) -> Stage:
    ruleset = SERIES[series]["ruleset"]
    extra = {"ruleset": ruleset, "kind": "point-to-point"} if ruleset else {}
    return Stage.model_validate(
        {"format": "trackkit-stage/1", "tiles": list(tiles), **extra, **fields}
    )


def _codes(layout: Layout) -> list[str]:
    return [f.code for f in layout.findings]


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_turn_picks_the_end_to_enter_by_on_both_series(series: str) -> None:
    s = SERIES[series]
    for turn, entry in (("left", 1), ("right", 3)):
        layout = lay_out(_stage(series, {"tile": s["start"]}, {"tile": s["bend"], "turn": turn}))
        road = layout.chain[1].road
        assert road is not None and (road.entry, road.exit) == (entry, 4 - entry), turn
        assert "S103" not in _codes(layout) and "S140" not in _codes(layout)


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_a_bend_without_turn_is_laid_one_way_and_said_so(series: str) -> None:
    # S140: the bend is laid from its first end, and the note says which way it went
    s = SERIES[series]
    layout = lay_out(_stage(series, {"tile": s["start"]}, {"tile": s["bend"]}))
    assert _codes(layout).count("S140") == 1
    assert layout.chain[1].road is not None and layout.chain[1].road.entry == 1


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_a_spec_that_cannot_be_met_is_s103_on_both_series(series: str) -> None:
    s = SERIES[series]
    cases = [
        {"tile": s["straight"], "enter": 2},  # no road end there
        {"tile": s["straight"], "turn": "left"},  # a straight does not turn
        {"tile": s["straight"], "climb": "up"},  # no climb face
    ]
    for spec in cases:
        layout = lay_out(_stage(series, {"tile": s["start"]}, spec))
        assert _codes(layout).count("S103") == 1, spec
        assert layout.chain[1].road is not None  # laid all the same, from its first end
        where = layout.findings[_codes(layout).index("S103")].location
        assert where.tile_index == 2 and where.path == "tiles[1]" and where.hex == (1, 0)


def test_a_road_named_is_read_on_gt_faces_only() -> None:
    # a DIRT face has one road: 'road' changes nothing; a GT face has no road Z (S130)
    dirt = lay_out(_stage("dirt", {"tile": "202a"}, {"tile": "205a", "road": "Z"}))
    assert _codes(dirt) == []
    gt = lay_out(_stage("gt", {"tile": "102a"}, {"tile": "103a", "road": "Z"}))
    assert "S130" in _codes(gt)


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_the_start_line_decides_the_first_tiles_entry(series: str) -> None:
    # BOARD-3: the first tile is entered from behind its start line, whichever way the
    # face is listed; 'enter' from the other end is obeyed (and runs the race backwards)
    s = SERIES[series]
    layout = lay_out(_stage(series, {"tile": s["start"]}, {"tile": s["straight"]}))
    first = layout.chain[0].road
    assert first is not None and first.entry == start_entry(first.face)
    backwards = lay_out(_stage(series, {"tile": s["start"], "enter": first.exit}))
    assert backwards.chain[0].road is not None
    assert backwards.chain[0].road.entry == first.exit != first.entry


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_explicit_placement_gives_the_snapped_layout(series: str) -> None:
    # the same road, each tile placed by hand where snapping put it: the same tiles,
    # turns and roads, and nothing found; one turned wrong misses its neighbour (S102)
    s = SERIES[series]
    tiles = [
        {"tile": s["start"]},
        {"tile": s["straight"]},
        {"tile": s["bend"], "turn": "left"},
        {"tile": s["straight"]},
    ]
    snapped = lay_out(_stage(series, *tiles))
    assert _codes(snapped) == []
    placed = [
        {**spec, "at": list(t.hex), "dir": t.rotation}
        for spec, t in zip(tiles, snapped.chain, strict=True)
    ]
    by_hand = lay_out(_stage(series, *placed))
    assert _codes(by_hand) == []

    def drawn(layout: Layout) -> list[tuple[object, ...]]:
        return [
            (t.hex, t.rotation, t.road.entry if t.road else None, t.road_id) for t in layout.chain
        ]

    assert drawn(by_hand) == drawn(snapped)
    placed[3]["dir"] = (placed[3]["dir"] + 1) % 6
    assert "S102" in _codes(lay_out(_stage(series, *placed)))


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_a_tile_not_driven_stays_where_it_is_put_off_the_road(series: str) -> None:
    s = SERIES[series]
    spare = {"tile": s["bend"], "turn": "right", "at": [5, -5], "dir": 2, "driven": False}
    layout = lay_out(_stage(series, {"tile": s["start"]}, spare, {"tile": s["straight"]}))
    assert [t.position for t in layout.chain] == [1, 3]  # the road goes on past it
    (off,) = layout.undriven
    assert (off.hex, off.rotation, off.index) == ((5, -5), 2, None)
    assert off.road is not None and off.road.entry == 3  # driven its 'turn' way, for tokens


def test_a_gt_piece_met_again_is_driven_on_its_other_road() -> None:
    # a crossing: 153a's road B is driven when the track comes back over the piece
    tiles = [
        {"tile": "102a"},
        {"tile": "153a", "road": "A", "at": [1, 0], "dir": 0},
        {"tile": "153a", "road": "B", "at": [1, 0], "dir": 0},
    ]
    layout = lay_out(_stage("gt", *tiles))
    again = layout.chain[2]
    assert again.visit_of is layout.chain[1] and again.road_id == "B"
    assert len(layout.tiles) == 2  # one piece on the table
