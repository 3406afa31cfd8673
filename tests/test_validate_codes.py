"""Every finding code of the catalogue, triggered by a small stage (codes, not wording)."""

from __future__ import annotations

from pathlib import Path

import pytest
from stagekit import GT_EIGHT, GT_OVAL, make_stage, sim_report

from trackkit.checks.catalogue import CATALOGUE
from trackkit.checks.pipeline import validate
from trackkit.formats import load_stage
from trackkit.models import CornerSection, Kind, Severity, TileFace, TileSet
from trackkit.models.stage import MAX_TILE_TOKENS
from trackkit.tiles.library import TileLibrary, default_library

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def codes(stage, **kw) -> list[str]:  # type: ignore[no-untyped-def]
    return validate(stage, **kw).codes


GOOD = ("202a", "205a", {"tile": "217a", "turn": "left"}, "206a", "203a")


def test_a_good_stage_has_no_findings():
    report = validate(make_stage(*GOOD))
    assert report.valid and report.findings == []
    assert report.summary.tiles == 5


def test_s100_empty_stage():
    assert codes(make_stage()) == ["S100"]


def test_s101_unknown_tile_and_the_rest_still_checked():
    found = codes(make_stage("202a", "999q", "205a", "205a", "203a", boxes=["dirt-core"]))
    assert "S101" in found and "I302" in found  # one pass: later problems still found


def test_s102_tiles_do_not_meet_and_s114_no_path():
    stage = make_stage("202a", "205a", {"tile": "206a", "at": [5, 5], "dir": 0}, "203a")
    found = codes(stage)
    assert "S102" in found and "S114" in found


def test_s102_explicit_tile_turned_away():
    # placed next to the previous tile, but its road does not face it
    stage = make_stage("202a", {"tile": "205a", "at": [1, 0], "dir": 1}, "203a")
    assert "S102" in codes(stage)


def test_explicit_placement_that_meets_is_fine():
    stage = make_stage("202a", {"tile": "205a", "at": [1, 0], "dir": 0}, "203a")
    assert codes(stage) == []


def test_s103_impossible_turn_climb_or_enter():
    assert "S103" in codes(make_stage("202a", {"tile": "205a", "turn": "left"}, "203a"))
    assert "S103" in codes(make_stage("202a", {"tile": "205a", "climb": "up"}, "203a"))
    assert "S103" in codes(make_stage("202a", {"tile": "205a", "enter": 2}, "203a"))


def test_turn_left_and_right_pick_the_matching_end():
    left = validate(make_stage("202a", {"tile": "217a", "turn": "left"}, "203a"))
    right = validate(make_stage("202a", {"tile": "217a", "turn": "right"}, "203a"))
    assert left.layout.chain[1].road.units[1].turn == "left"  # type: ignore[union-attr]
    assert right.layout.chain[1].road.units[1].turn == "right"  # type: ignore[union-attr]
    assert left.layout.chain[2].hex != right.layout.chain[2].hex


def _three_lane_library() -> TileLibrary:
    base = default_library()
    wide = base.get("205a").model_copy(
        update={
            "id": "999a",
            "number": 999,  # type: ignore[union-attr]
            "box": "custom",
            "lanes": {0: 3, 3: 3},
        }
    )
    return TileLibrary(
        [
            *base.tilesets.values(),
            TileSet(format="trackkit-tiles/1", box="custom", title="Custom", faces=[wide]),
        ]
    )


def test_s104_lane_count_mismatch():
    # rule: BOARD-1 (roads meet with the same number of lanes)
    stage = make_stage("202a", "999a", "203a")
    assert "S104" in codes(stage, library=_three_lane_library())


def test_s105_overlapping_tiles():
    # rule: BOARD-1 (tiles may not overlap)
    stage = make_stage("202a", "205a", "203a", {"tile": "902a", "at": [1, 0], "dir": 0})
    assert "S105" in codes(stage)


def test_s106_s107_no_start_no_finish():
    found = codes(make_stage("205a", "206a"))
    assert "S106" in found and "S107" in found and "S113" in found


def test_s108_s109_duplicate_start_and_finish():
    found = codes(make_stage("202a", "301a", "205a", "302a", "203a"))
    assert "S108" in found and "S109" in found


def test_s110_s111_misplaced_start_and_finish():
    found = codes(make_stage("205a", "202a", "203a", "206a"))
    assert "S110" in found and "S111" in found


def test_s113_road_leads_nowhere():
    assert "S113" in codes(make_stage("202a", "205a"))


def test_s115_road_runs_into_the_side_of_a_tile():
    stage = make_stage("202a", "205a", {"tile": "902a", "at": [2, 0], "dir": 0})
    assert "S115" in codes(stage)


def test_s116_scenery_needs_a_position_and_service_area_snaps_to_finish():
    assert "S116" in codes(make_stage("202a", "902a", "203a"))
    report = validate(make_stage("202a", "203a", "201a"))
    assert report.codes == []
    service = report.layout.scenery[0]
    finish = report.layout.chain[-1]
    from trackkit.road import hexgrid

    assert service.hex == hexgrid.neighbour(finish.hex, finish.exit_world or 0)


def test_s117_s118_road_breaks_and_the_tiles_not_driven_are_listed_once():
    # the road stops at 205a; 206a and the finish lie on the map, placed but not driven
    stage = make_stage(
        "202a",
        "205a",
        {"tile": "206a", "at": [3, 0], "dir": 0, "driven": False},
        {"tile": "203a", "at": [4, 0], "dir": 0, "driven": False},
    )
    report = validate(stage)
    assert report.codes == ["S117", "S118"]  # no S107: the finish is among the listed
    brk, listed = report.findings
    assert brk.severity is Severity.ERROR and listed.severity is Severity.WARNING
    assert (brk.location.tile_index, brk.location.hex, brk.location.edge) == (2, (1, 0), 0)
    assert "[2, 0]" in brk.fix  # the hex where the next tile goes
    assert [(t.face_id, t.hex, t.index) for t in report.layout.undriven] == [
        ("206a", (3, 0), None),
        ("203a", (4, 0), None),
    ]
    assert "206a at [3, 0]" in listed.message and "203a at [4, 0]" in listed.message
    # not driven: no spaces in the graph, but their pieces still count
    assert {d["tile"] for _, d in report.graph.nodes(data=True)} == {1, 2}
    assert report.summary.boxes == {"dirt-core": 1}


def test_s117_at_an_unknown_tile_suggests_the_ids_that_fit():
    stage = make_stage(
        "202a",
        "205a",
        {"tile": "2O6a", "at": [2, 0], "dir": 0, "driven": False},
        {"tile": "203a", "at": [3, 0], "dir": 0, "driven": False},
    )
    report = validate(stage)
    assert sorted(report.codes) == ["S101", "S117", "S118"]
    (brk,) = [f for f in report.findings if f.code == "S117"]
    assert "206a" in brk.fix


def test_s117_s118_a_finished_road_with_a_spare_tile_is_only_listed():
    stage = make_stage(*GOOD, {"tile": "207a", "at": [5, 5], "dir": 0, "driven": False})
    assert codes(stage) == ["S118"]
    assert validate(stage).valid


def test_s102_explicit_tile_turned_away_gets_the_turn_that_fixes_it():
    stage = make_stage("202a", {"tile": "205a", "at": [1, 0], "dir": 1}, "203a")
    report = validate(stage)
    (miss,) = [f for f in report.findings if f.code == "S102"]
    assert "(dir 1 -> 0)" in miss.fix
    fixed = make_stage("202a", {"tile": "205a", "at": [1, 0], "dir": 0}, "203a")
    assert validate(fixed).valid


def test_s102_turn_of_the_tile_before_when_the_next_one_faces_it():
    # 205a is turned away from both: turning it mends both meetings (both S102 say so)
    stage = make_stage(
        "202a",
        {"tile": "205a", "at": [1, 0], "dir": 1},
        {"tile": "203a", "at": [2, 0], "dir": 0},
    )
    fixes = [f.fix for f in validate(stage).findings if f.code == "S102"]
    assert len(fixes) == 2 and all("205a" in f and "(dir 1 -> 0)" in f for f in fixes)


def test_s102_no_turn_is_offered_when_no_turn_helps():
    stage = make_stage("202a", "205a", {"tile": "206a", "at": [5, 5], "dir": 0}, "203a")
    (miss,) = [f for f in validate(stage).findings if f.code == "S102"]
    assert miss.fix == CATALOGUE["S102"].fix


def test_s101_suggests_the_faces_of_the_number_or_close_ids():
    report = validate(make_stage("202a", "208", "224x", "2l7a", "503a", "203a"))
    fixes = {f.location.tile: f.fix for f in report.findings if f.code == "S101"}
    assert "208a or 208b" in fixes["208"]
    assert "224a or 224b" in fixes["224x"]
    assert "217a" in fixes["2l7a"]
    assert "did you mean" not in fixes["503a"]  # a series the library has none of


def test_s120_tiles_of_both_series_and_s121_when_the_ruleset_allows_them():
    # a DIRT stage (its first tiles) with GT faces on the road and the GT pit beside it
    stage = make_stage("202a", "117a-2", "205a", {"tile": "101", "at": [4, 4], "dir": 0}, "203a")
    report = validate(stage)
    (mixed,) = [f for f in report.findings if f.code == "S120"]
    assert (mixed.location.tile, mixed.location.path) == ("117a", "tiles[1]")
    assert "117a" in mixed.message and "101" in mixed.message
    assert mixed.severity is Severity.ERROR
    assert not {"S101", "S116"} & set(report.codes)  # neither unknown nor scenery
    assert report.layout.series == "dirt"
    # the file says which rules apply: allowed, one note
    allowed = validate(make_stage("202a", "117a-2", "205a", "203a", ruleset="dirt"))
    assert "S121" in allowed.codes and "S120" not in allowed.codes
    # scenery belongs to no rules: the GT scenery filler 901 beside a DIRT road mixes nothing
    scenery = make_stage(*GOOD, {"tile": "901a", "at": [6, 6], "dir": 0})
    assert not {"S120", "S121"} & set(codes(scenery))


def test_a_good_gt_circuit_has_no_findings():
    report = validate(make_stage(*GT_OVAL, boxes=["gt-core"]))
    assert report.valid and report.findings == []
    assert report.kind is Kind.CIRCUIT and report.layout.series == "gt"
    # crossing itself on 141b: one piece, driven twice
    eight = validate(make_stage(*GT_EIGHT, boxes=["gt-core", "gt-team-challenge"]))
    assert eight.valid and eight.findings == []


def test_s122_kind_of_the_other_series():
    assert "S122" in codes(make_stage(*GT_OVAL, kind="rally"))
    assert "S122" in codes(make_stage(*GOOD, kind="circuit"))
    assert "S122" in codes(make_stage(*GT_OVAL), kind=Kind.HILLCLIMB)  # --kind hillclimb
    assert "S122" not in codes(make_stage(*GT_OVAL, kind="circuit"))


def test_s123_circuit_does_not_close():
    report = validate(make_stage(*GT_OVAL[:-1]))
    (f,) = [f for f in report.findings if f.code == "S123"]
    assert f.location.tile_index == 9 and f.location.edge is not None
    # the same tiles driven once, start to finish, are a point-to-point track (no S123)
    assert "S123" not in codes(make_stage(*GT_OVAL[:-1], kind="point-to-point"))


def test_s124_no_start_finish_line():
    no_line = ({"tile": "103a"}, *GT_OVAL[1:])
    assert "S124" in codes(make_stage(*no_line))
    # a point-to-point track needs a second line for its finish
    assert "S124" in codes(make_stage(*GT_OVAL[:3], kind="point-to-point"))
    # a second start/finish tile at the end is the finish (and a second piece 102)
    assert "S124" not in codes(make_stage("102a", "103a", "102a", kind="point-to-point"))


def test_s125_two_start_finish_lines_on_a_circuit():
    two = (*GT_OVAL[:5], {"tile": "102b"}, *GT_OVAL[6:])
    found = codes(make_stage(*two))
    assert "S125" in found and "S104" in found  # 102b is 2 lanes wide, too


def test_s126_start_finish_line_driven_against_its_grid():
    backwards = ({"tile": "102a", "enter": 0}, *GT_OVAL[1:])
    report = validate(make_stage(*backwards))
    assert "S126" in report.codes
    # no grid to start from: the track's first spaces stand in for it
    assert report.graph.graph["start"] == ["1:A1a", "1:A2a", "1:A3a"]
    ok = ({"tile": "102a", "enter": 3}, *GT_OVAL[1:])
    assert "S126" not in codes(make_stage(*ok))


def test_s127_grid_too_small_for_the_players():
    stage = make_stage(*GT_OVAL)
    assert "S127" not in codes(stage)  # 6 slots for the default 4 players
    assert "S127" not in codes(stage, players=6)
    assert "S127" in codes(stage, players=7)


def test_s128_skew_edges_of_different_hands_and_s104_lane_counts():
    # 131a driven to edge 2 (skewL): a 121a entered at its skewR edge 4 does not fit
    bad = make_stage("131a", {"tile": "121a", "enter": 4}, kind="point-to-point")
    assert "S128" in codes(bad)
    good = make_stage("131a", {"tile": "121a", "enter": 2}, kind="point-to-point")
    assert "S128" not in codes(good)
    # a straight end meeting a skew one
    assert "S128" in codes(make_stage("102a", {"tile": "124a", "enter": 2}, kind="point-to-point"))
    # 3 lanes meet 2 lanes
    assert "S104" in codes(make_stage("102a", "103b", kind="point-to-point"))


def test_s129_junction_road_not_chosen_and_s130_a_road_the_face_does_not_have():
    junction = make_stage("102a", "103a", {"tile": "151a", "enter": 3}, kind="point-to-point")
    report = validate(junction)
    (f,) = [f for f in report.findings if f.code == "S129"]
    assert f.severity is Severity.WARNING and f.location.tile_index == 3
    assert report.layout.chain[2].road_id == "A"  # the first road there is taken
    chosen = make_stage(
        "102a", "103a", {"tile": "151a", "enter": 3, "road": "B"}, kind="point-to-point"
    )
    report = validate(chosen)
    assert "S129" not in report.codes and report.layout.chain[2].road_id == "B"
    assert "S130" in codes(make_stage("102a", {"tile": "151a", "road": "D"}, kind="point-to-point"))
    # a road that exists but has no end facing the previous tile (placed by hand)
    placed = make_stage(
        "102a", {"tile": "151a", "at": [1, 0], "dir": 3, "road": "B"}, kind="point-to-point"
    )
    assert "S130" in codes(placed)


def test_s131_laps_at_least_one_and_s132_laps_not_used():
    assert "S131" in codes(make_stage(*GT_OVAL, laps=0))
    assert not {"S131", "S132"} & set(codes(make_stage(*GT_OVAL, laps=5)))
    assert "S132" in codes(make_stage(*GT_OVAL[:3], kind="point-to-point", laps=2))
    assert "S132" in codes(make_stage(*GOOD, laps=2))


def test_s133_pit_tile_beside_no_road():
    beside = make_stage(*GT_OVAL, {"tile": "101", "at": [1, 1], "dir": 0})
    report = validate(beside)
    assert "S133" not in report.codes
    (pit,) = report.graph.graph["pits"]
    assert pit["position"] == 11 and pit["access"]
    far = make_stage(*GT_OVAL, {"tile": "101", "at": [9, 9], "dir": 0})
    assert "S133" in codes(far)
    assert "S116" in codes(make_stage(*GT_OVAL, {"tile": "101"}))  # no place given


def test_gt_tiles_take_no_tokens_and_inventory_knows_the_gt_boxes():
    tokens = [{"token": "water"}]
    stage = make_stage(GT_OVAL[0], {"tile": "103a", "tokens": tokens}, *GT_OVAL[2:])
    report = validate(stage)
    assert "R202" in report.codes
    # the core box holds three 103 pieces: four 103a are too many
    four = make_stage("102a", *["103a"] * 4, kind="point-to-point", boxes=["gt-core"])
    assert "I302" in codes(four)
    assert "I301" in codes(make_stage(*GT_OVAL, boxes=["dirt-core"]))


def test_i301_i302_the_gt_pieces_of_two_boxes():
    # 124 (a bend with a skew end) comes in Championship and in World Tour
    one = validate(make_stage("124a", kind="point-to-point", boxes=["gt-world-tour"]))
    assert not {"I301", "I302"} & set(one.codes)
    two = make_stage("102a", "124a", {"tile": "124a", "enter": 2}, kind="point-to-point")
    assert "I302" in codes(two.model_copy(update={"boxes": ["gt-world-tour"]}))
    both = two.model_copy(update={"boxes": ["gt-world-tour", "gt-championship", "gt-core"]})
    assert "I302" not in codes(both)
    report = validate(two)
    assert report.summary.boxes == {"gt-championship": 2, "gt-core": 1}


def test_driven_false_needs_a_position():
    with pytest.raises(ValueError, match="driven"):
        make_stage("202a", {"tile": "205a", "driven": False})


def test_r201_unknown_token_and_r204_unsupported_editor_token():
    stage = make_stage(
        "202a", {"tile": "205a", "tokens": [{"token": "banana"}, {"token": "joker-exit"}]}, "203a"
    )
    found = codes(stage)
    assert "R201" in found and "R204" in found


@pytest.mark.parametrize(
    "tokens",
    [
        [{"token": "oxygen", "value": 5}],
        [{"token": "climb", "value": 2}],
        [{"token": "climb", "value": -1}, {"token": "climb", "value": 1}],
        [{"token": "cloud", "value": 1}],
        [{"token": "mud", "value": -1}],  # 205a has no corner
        [{"token": "oxygen", "value": 1}, {"token": "oxygen", "value": 2}],
    ],
)
def test_r202_token_cannot_go_there(tokens):  # type: ignore[no-untyped-def]
    stage = make_stage("202a", {"tile": "205a", "tokens": tokens}, "203a")
    assert "R202" in codes(stage)


def test_r202_climb_token_on_a_climb_face_and_token_on_scenery():
    # rule: CLIMB-6 (climb tokens turn a tile *without* arrows into a climb)
    assert "R202" in codes(
        make_stage("202a", {"tile": "418a", "tokens": [{"token": "climb", "value": -1}]}, "203a")
    )
    assert "R202" in codes(
        make_stage(
            "202a", "203a", {"tile": "902a", "at": [5, 5], "dir": 0, "tokens": [{"token": "cloud"}]}
        )
    )


def test_valid_tokens_are_accepted():
    stage = make_stage(
        "202a",
        {
            "tile": "205a",
            "tokens": [
                {"token": "climb", "value": -1},
                {"token": "oxygen", "value": 2},
                {"token": "cloud"},
            ],
        },
        {"tile": "217a", "turn": "left", "tokens": [{"token": "mud", "value": -1}]},
        "203a",
    )
    assert set(codes(stage)) <= {"H404"}  # a climb token: a hillclimb, noted
    assert set(codes(stage, kind=Kind.RALLY)) <= {"H403"}


def test_r203_jump_without_landing():
    # rule: JUMP-1 (the jump carries the car up to two more spaces)
    assert "R203" in codes(make_stage("202a", {"tile": "204b", "enter": 3}))


def test_r205_the_ruleset_of_none_of_the_tiles():
    assert "R205" in codes(make_stage(*GOOD, ruleset="gt"))


def test_r206_and_s114_mud_closes_a_corner():
    # rule: CORNER-1, SHORTCUT-2 (two mud tokens bring 210a's limits 1/2 to -1/0)
    mud = [{"token": "mud", "value": -1}] * 2
    report = validate(make_stage("202a", {"tile": "210a", "tokens": mud}, "203a"))
    assert "R206" in report.codes and "S114" in report.codes
    limits = {d["limit"] for _, d in report.graph.nodes(data=True) if d["kind"] == "corner"}
    assert limits == {-1, 0}


def _copilot(*tokens: dict[str, object], **fields: object):  # type: ignore[no-untyped-def]
    """A stage whose 205a (driven from its edge 0, three rows) carries ``tokens``."""
    return make_stage("202a", {"tile": "205a", "tokens": list(tokens)}, "203a", **fields)


def test_r207_copilot_token_on_no_space_of_the_road():
    report = validate(_copilot({"token": "jump", "at": [0.0, -0.3]}))
    assert report.codes == ["R207"]
    f = report.findings[0]
    assert (f.location.tile_index, f.location.path) == (2, "tiles[1].tokens[0]")
    assert "at [" in f.fix  # the nearest row where it could go instead


def test_r208_copilot_token_where_it_cannot_go():
    # rule: CORNER-1 (a chicane-limit token in a corner: 217a's corner is its middle)
    corner = make_stage(
        "202a",
        {"tile": "217a", "turn": "left", "tokens": [{"token": "chicane-limit", "at": [0.0, 0.2]}]},
        "203a",
    )
    found = validate(corner).findings
    assert [f.code for f in found] == ["R208"] and "corner" in found[0].message
    # rule: FORD-1, JUMP-1 (a water token on a jump)
    on_jump = _copilot({"token": "jump", "at": [0, 0]}, {"token": "water", "at": [0.01, 0.02]})
    assert codes(on_jump) == ["R208"]


def test_r209_lone_chicane_token():
    assert codes(_copilot({"token": "chicane", "at": [0.32, 0.0]})) == ["R209"]
    pair = _copilot({"token": "chicane", "at": [0.32, 0.0]}, {"token": "chicane-limit"})
    assert codes(pair) == []


def test_r210_too_many_tokens_on_one_tile():
    report = validate(_copilot(*[{"token": "cloud"}] * (MAX_TILE_TOKENS + 5)))
    assert report.codes.count("R210") == 1  # once for the tile, not once a token
    assert len(report.layout.chain[1].tokens) == MAX_TILE_TOKENS


def test_i304_token_box_not_owned():
    found = codes(_copilot({"token": "water"}, boxes=["dirt-core"]))
    assert found == ["I304"]
    assert codes(_copilot({"token": "water"}, boxes=["dirt-core", "dirt-copilot"])) == []
    climb = _copilot({"token": "oxygen", "value": 1}, boxes=["dirt-core"])
    assert codes(climb, kind=Kind.RALLY) == ["I304"]  # The Climb's tokens too


def test_i301_i302_boxes_and_copies():
    # both faces of one piece are one piece
    found = codes(make_stage("202a", "205a", "205b", "301a", "203a", boxes=["dirt-core"]))
    assert found.count("I302") == 1 and "I301" in found
    two_boxes = codes(make_stage("202a", "205a", "205b", "203a", boxes=["dirt-core", "dirt-core"]))
    assert "I302" not in two_boxes


def test_i303_boxes_needed_without_boxes():
    report = validate(make_stage("202a", "205a", "205b", "203a"))
    assert report.codes == ["I303"] and report.valid
    assert report.summary.boxes == {"dirt-core": 2}


def test_h401_h402_hillclimb_checks():
    # rule: HILLCLIMB-1 (a climb tile or climb token)
    assert "H401" in codes(make_stage(*GOOD, kind="hillclimb"))
    assert "H401" in codes(make_stage(*GOOD), kind=Kind.HILLCLIMB)
    down = make_stage("202a", {"tile": "418a", "climb": "down"}, "203a", kind="hillclimb")
    assert codes(down) == ["H402"]
    up = make_stage("202a", {"tile": "418a", "climb": "up"}, "203a", kind="hillclimb")
    assert codes(up) == []
    token = make_stage(
        "202a",
        {"tile": "205a", "tokens": [{"token": "climb", "value": -1}]},
        "203a",
        kind="hillclimb",
    )
    assert codes(token) == []


def test_h403_climb_lines_in_a_rally_are_noted():
    report = validate(make_stage("202a", "418a", "203a", kind="rally"))
    assert report.codes == ["H403"] and report.valid


def test_t_codes_for_a_broken_user_tile():
    base = default_library()
    f217 = base.get("217a")
    assert f217 is not None and f217.road is not None
    old = f217.road.sections[1]
    assert isinstance(old, CornerSection)
    corner = old.model_copy(update={"inner": old.inner.model_copy(update={"limit": 4})})
    road = f217.road.model_copy(
        update={"sections": [f217.road.sections[0], corner, f217.road.sections[2]]}
    )
    bad = f217.model_copy(update={"id": "998a", "number": 998, "box": "custom", "roads": [road]})
    lib = TileLibrary(
        [
            *base.tilesets.values(),
            TileSet(format="trackkit-tiles/1", box="custom", title="c", faces=[bad]),
        ]
    )
    assert "T503" in codes(make_stage("202a", "998a", "203a"), library=lib)


def test_p605_cars_stuck_names_the_tile_the_spot_and_the_cause():
    # rule: CORNER-1, SHORTCUT-2 (two mud tokens close both lanes of the 210a hairpin; the
    # stage is invalid, R206, but its races show what validate --simulate reports)
    from trackkit.sim.playability import playability

    mud = {"token": "mud", "value": -1}
    report = validate(make_stage("202a", "205a", {"tile": "210a", "tokens": [mud, mud]}, "203a"))
    found, extras = playability(report, races=2, players=2)
    stuck = [f for f in found if f.code == "P605"]
    assert [(f.location.tile_index, f.location.tile, f.severity) for f in stuck] == [
        (3, "210a", Severity.WARNING)
    ]
    assert stuck[0].fix and "mud" in stuck[0].fix
    assert extras.simulation.dirt.dnf == {"stuck": 4, "round cap": 0}
    assert "P601" in [f.code for f in found]  # nobody finished, either


def _gt_doc(**over: object) -> object:
    """A GT simulation report with the figures the findings read (the rest: no races)."""
    doc: dict[str, object] = {
        "settings": {"races": 20},
        "wins_by_grid_slot": {"1": 5, "2": 5, "3": 5, "4": 5},
        "win_rate_by_grid_slot": {"1": 0.25, "2": 0.25, "3": 0.25, "4": 0.25},
        "overtakes": {"per_lap": 2.0, "per_race": 6.0},
        "decided_on_lap_1": 0.5,
    }
    return sim_report(gt=True, players=4, **{**doc, **over})


def test_p606_to_p610_gt_playability_findings():
    # rule: BOARD-3 (the grid), TURN-2 (GT order): what a circuit designer asks of races
    from trackkit.sim.playability import gt_findings

    report = validate(load_stage(EXAMPLES / "gt-core-circuit.yaml"))
    fair = gt_findings(_gt_doc(), report, races=20, players=4)
    assert [f.code for f in fair] == ["P607"]  # overtakes are always said, a note
    assert fair[0].severity is Severity.INFO
    pole = _gt_doc(
        wins_by_grid_slot={"1": 15, "2": 3, "3": 1, "4": 1},
        win_rate_by_grid_slot={"1": 0.75, "2": 0.15, "3": 0.05, "4": 0.05},
    )
    assert "P606" in [f.code for f in gt_findings(pole, report, races=20, players=4)]
    assert "P606" not in [f.code for f in gt_findings(pole, report, races=5, players=4)]
    procession = _gt_doc(overtakes={"per_lap": 0.2, "per_race": 0.6})
    found = gt_findings(procession, report, races=20, players=4)
    assert [(f.code, f.severity) for f in found if f.code == "P608"] == [("P608", Severity.WARNING)]
    where = _gt_doc(
        overtakes={
            "per_lap": 2.0,
            "per_race": 6.0,
            "by_tile": {"9": {"tile": "108a", "count": 40, "per_race": 2.0}},
        },
        loss_of_control={"by_space": {"16:A1a": 7, "16:A12b": 2, "3:A1a": 1}},
    )
    found = {f.code: f for f in gt_findings(where, report, races=20, players=4)}
    assert (found["P607"].location.tile_index, found["P607"].location.tile) == (9, "108a")
    assert (found["P609"].location.tile_index, found["P609"].location.tile) == (16, "113a")
    assert "16:A1a" in found["P609"].message  # the space where it happens most
    early = _gt_doc(decided_on_lap_1=0.9)
    assert "P610" in [f.code for f in gt_findings(early, report, races=20, players=4)]
    assert "P610" not in [f.code for f in gt_findings(early, report, races=20, players=1)]


def test_p607_validate_simulate_races_a_gt_circuit():
    from trackkit.sim.playability import playability

    report = validate(load_stage(EXAMPLES / "gt-core-circuit.yaml"))
    found, extras = playability(report, races=4, players=4)
    assert "P607" in [f.code for f in found]
    sim = extras.simulation
    assert sim.gt.laps == 3 and set(sim.gt.win_rate_by_grid_slot) == {"1", "2", "3", "4"}
    assert sim.finish_rate == 1.0 and sim.gt.overtakes_per_lap > 0


def test_every_error_code_has_a_fix_and_every_code_is_tested():
    from pathlib import Path

    here = Path(__file__).parent
    source = "".join(p.read_text(encoding="utf-8") for p in here.glob("test_*.py"))
    for code, entry in CATALOGUE.items():
        assert entry.fix, code
        if not code.startswith("T"):
            assert code.lower() in source.lower(), f"{code} has no test"


def test_findings_name_the_file_and_the_place():
    report = validate(make_stage("202a", "999q", "203a"), file="my-stage.yaml")
    (f,) = [f for f in report.findings if f.code == "S101"]
    assert f.location.file == "my-stage.yaml"
    assert f.location.tile_index == 2 and f.location.path == "tiles[1]"
    assert f.severity is Severity.ERROR


def test_findings_are_dicts_for_json():
    doc = validate(make_stage("205a"), file="x.yaml").to_json()
    assert set(doc) == {"file", "valid", "errors", "warnings", "findings", "summary"}
    assert doc["valid"] is False and doc["errors"] == len(
        [f for f in doc["findings"] if f["severity"] == "error"]
    )
    assert {"code", "severity", "message", "location"} <= set(doc["findings"][0])


def test_user_faces_are_rejected_if_malformed():
    with pytest.raises(ValueError):
        TileFace.model_validate(
            {
                "id": "990a",
                "number": 990,
                "face": "a",
                "series": "dirt",
                "box": "x",
                "copies": 1,
                "surface": "gravel",
                "danger": "low",
                "lanes": {0: 2},
                "roads": [
                    {
                        "from": 0,
                        "to": 3,
                        "shape": "straight",
                        "sections": [{"kind": "straight", "rows": 2}],
                    }
                ],
            }
        )


def test_s101_a_bare_piece_number_is_read_as_text_and_told_its_faces():
    from trackkit.formats import parse_stage

    stage = parse_stage(
        "format: trackkit-stage/1\ntiles: [{tile: 202a}, {tile: 208}, {tile: 203a}]",
        file="s.yaml",
    )
    (f,) = [f for f in validate(stage).findings if f.code == "S101"]
    assert "208a or 208b" in f.fix
