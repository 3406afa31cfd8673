"""Tokens on the tiles: kept through conversion, modelled on the space they lie on, drawn
there, counted in the summary, and handled in linear time (issue 9 item 6, issue 14 item 2).
"""

from __future__ import annotations

import json
import time
import tracemalloc
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from stagekit import REPO, make_stage

from trackkit.checks.pipeline import validate
from trackkit.formats import load_stage, parse_stage
from trackkit.formats.tokens import RGT_UNIT, axial_offset, rgt_offset
from trackkit.formats.write import dump_stage
from trackkit.models.stage import MAX_TILE_TOKENS, TileToken
from trackkit.render.draw import free_corners
from trackkit.render.pages import print_pages
from trackkit.render.svg import render_map
from trackkit.render.tokens import TOKENS_AT
from trackkit.road.geometry import (
    DEFAULT_TILE_SIZE_MM,
    centre_line,
    local_axial,
    local_point,
    space_polygon,
)
from trackkit.rules import load_ruleset
from trackkit.rules.plans import Plan, PlanContext, legal_plans
from trackkit.rules.testing import position
from trackkit.rules.track import Track
from trackkit.sim.race import Settings, prepare, run_race
from trackkit.stage.assemble import lay_out

EXAMPLE = REPO / "examples" / "copilot-rekee.json"
SAMPLES = REPO.parent / "shared" / "data" / "samples"
NS = "{http://www.w3.org/2000/svg}"
RULES = load_ruleset("dirt").track_tokens


def needs_sample(name: str) -> Path:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"shared sample {name} is not available")
    return path


def straight(*tokens: dict[str, Any], tile: str = "205a") -> list[Any]:
    """Start, ``tile`` with ``tokens`` (driven from its edge 0), a straight, finish."""
    return ["202a", {"tile": tile, "tokens": list(tokens)}, "206a", "203a"]


def plans(ctx: PlanContext, depth: int = 2) -> list[Plan]:
    return list(legal_plans(ctx, max_steps=depth))


def firsts(ctx: PlanContext) -> set[tuple[str, str]]:
    return {(p.steps[0].space, "+".join(map(str, p.steps[0].dice))) for p in plans(ctx, 1)}


def nodes(stage_tiles: list[Any]) -> dict[str, dict[str, Any]]:
    report = validate(make_stage(*stage_tiles))
    return {n: d for n, d in report.graph.nodes(data=True) if d["tile"] == 2}


# --- the native token ------------------------------------------------------------------


def test_the_old_token_form_and_editor_names_still_read() -> None:
    old = TileToken.model_validate({"token": "oxygen", "value": 2})
    assert (old.token, old.value, old.at, old.dir, old.surface) == ("oxygen", 2, None, None, None)
    # what older trackkit wrote for Copilot tokens reads as the kind and its surface
    assert TileToken(token="water-gravel") == TileToken(token="water", surface="gravel")
    assert TileToken(token="dirt1") == TileToken(token="chicane-limit", surface="gravel")
    placed = TileToken.model_validate({"token": "jump", "value": 3, "at": [0, 0.25], "dir": 1.5})
    assert placed.at == (0.0, 0.25) and placed.dir == 1.5


@pytest.mark.parametrize(
    "bad",
    [
        {"token": "water", "where": [0, 0]},  # unknown key
        {"token": "water", "at": ["0.1", 0]},  # a string is not a number
        {"token": "water", "at": [True, 0]},
        {"token": "water", "at": [500, 0]},  # beyond any tile: a broken file
        {"token": "water", "at": [0.1]},
        {"token": "water", "dir": float("nan")},
        {"token": "water", "surface": "mud"},
    ],
)
def test_bad_token_fields_are_unusable_input(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        TileToken.model_validate(bad)


def test_a_bad_token_field_in_a_file_is_an_input_error_naming_the_place() -> None:
    text = (
        "format: trackkit-stage/1\ntiles:\n  - tile: 202a\n  - tile: 205a\n"
        "    tokens: [{token: water, at: [0.1, 0], turn: 2}]\n"
    )
    with pytest.raises(ValueError, match=r"tiles\[1\]\.tokens\[0\]"):
        parse_stage(text, file="s.yaml")


# --- conversion keeps every token's id, place and turn ---------------------------------


def _rekee_tokens(data: dict[str, Any]) -> list[tuple[str, list[tuple[str, float, float, float]]]]:
    return [
        (t["id"], [(k["id"], k["q"], k["r"], k["dir"]) for k in t.get("tokens", [])])
        for t in data["tiles"]
    ]


def test_rekee_to_native_to_rekee_keeps_every_token() -> None:
    original = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    # a tile-wide token off-centre and turned by a fraction, and an RX arch, ride along
    original["tiles"][2]["tokens"] = [
        {"id": "oxygen-2", "q": -0.2, "r": 0.35, "dir": 0.5},
        {"id": "joker-exit", "q": 0.1, "r": -0.4, "dir": 5.25},
    ]
    stage = parse_stage(json.dumps(original), file="in.json")
    native = parse_stage(dump_stage(stage, "native-yaml"), file="again.yaml")
    back = json.loads(dump_stage(native, "rekee"))
    assert _rekee_tokens(back) == _rekee_tokens(original)


def _rgt_tokens(data: dict[str, Any]) -> list[tuple[str, list[tuple[str, float, float, float]]]]:
    return [
        (
            t["TuileId"],
            [(k["TokenId"], k["X"], k["Y"], k["Orientation"]) for k in t.get("Tokens", [])],
        )
        for t in data["Tuiles"]
    ]


RGT = {
    "Name": "Tokens",
    "Tuiles": [
        {"X": 54, "Y": 52, "Orientation": 0, "TuileId": "202A"},
        {
            "X": 55,
            "Y": 52,
            "Orientation": 0,
            "TuileId": "205A",
            "Tokens": [
                {"X": 0.0, "Y": 0.0, "Orientation": 180.0, "TokenId": "dirt1"},
                {"X": -0.5715768, "Y": 0.0, "Orientation": 0.0, "TokenId": "dirt2"},
                {"X": 0.5715768, "Y": 0.1234567, "Orientation": 90.0, "TokenId": "dirt2"},
            ],
        },
        {
            "X": 56,
            "Y": 52,
            "Orientation": 0,
            "TuileId": "206A",
            "Tokens": [
                {"X": 0.25, "Y": -0.3, "Orientation": 45.5, "TokenId": "climbr3"},
                {"X": -0.1, "Y": 0.05, "Orientation": 300.0, "TokenId": "ice3"},
            ],
        },
        {"X": 57, "Y": 52, "Orientation": 0, "TuileId": "203A"},
    ],
}


def test_rgt_to_native_to_rgt_keeps_every_token() -> None:
    stage = parse_stage(json.dumps(RGT), file="in.rgt")
    native = parse_stage(dump_stage(stage, "native-json"), file="again.json")
    assert _rgt_tokens(json.loads(dump_stage(native, "rgt"))) == _rgt_tokens(RGT)


@pytest.mark.parametrize("name", ["chicane-example1.rgt", "chicane-example2.rgt"])
def test_the_official_samples_survive_native_and_back(name: str) -> None:
    path = needs_sample(name)
    original = json.loads(path.read_text(encoding="utf-8"))
    native = parse_stage(dump_stage(load_stage(path), "native-yaml"), file="s.yaml")
    assert _rgt_tokens(json.loads(dump_stage(native, "rgt"))) == _rgt_tokens(original)


def test_rgt_offsets_are_corner_radii_with_x_toward_edge_3() -> None:
    # the samples' chicane, 0.5715768 from the middle: 0.33 tile widths (one row of 205a)
    q, r = axial_offset(-0.5715768, 0.0)
    assert q == pytest.approx(0.33, abs=1e-6) and r == 0.0
    assert pytest.approx(1 / 3**0.5) == RGT_UNIT
    # +Y runs straight across +X: the same distance, a quarter turn away
    x, y = local_point(axial_offset(0.0, 0.5), 1.0)
    assert x == pytest.approx(0.0, abs=1e-12) and y == pytest.approx(0.5 * RGT_UNIT)
    assert rgt_offset(axial_offset(0.3, -0.7)) == (0.3, -0.7)


def _spots(stage: Any) -> list[tuple[str | None, int | None, tuple[float, float] | None]]:
    tile = lay_out(stage).chain[1]
    assert tile.road is not None
    return [(s.kind, s.unit, s.at) for s in tile.road.tokens]


def test_both_samples_put_the_chicane_where_rekees_example_does() -> None:
    # the two samples have the same token values on a 205a turned differently: the places
    # are in the tile's frame, and they land on the same rows
    one = _spots(load_stage(needs_sample("chicane-example1.rgt")))
    two = _spots(load_stage(needs_sample("chicane-example2.rgt")))
    assert one == two
    (limit_kind, limit_row, _), (chicane_kind, chicane_row, _) = one
    assert (limit_kind, limit_row) == ("chicane-limit", 1)  # the middle row
    # Rekee's own example puts chicanes at q = +-0.32: the sample's lies on the +0.32 one's row
    rekee = load_stage(EXAMPLE)
    rows = {at: unit for kind, unit, at in _spots(rekee) if kind == "chicane"}
    assert (chicane_kind, chicane_row) == ("chicane", rows[(0.32, 0.0)])
    assert rows[(-0.32, 0.0)] == 2  # and the other one on the far row


# --- FORD-1, JUMP-1, CORNER-1 / BOARD-2: the rules see the tokens ----------------------


def test_ford_1_water_token_makes_its_whole_row_a_ford() -> None:
    # rule: FORD-1 (DEFAULT: a water token covers its row, both lanes)
    tiles = straight({"token": "water", "at": [0.0, 0.0]})
    row = {n: d for n, d in nodes(tiles).items() if n.startswith("2:1.2")}
    assert set(row) == {"2:1.2L", "2:1.2R"}
    assert all(d["ford"] and d["token"] == "water" for d in row.values())
    assert not any(d["ford"] for n, d in nodes(tiles).items() if n not in row)
    ctx = position(tiles, space="2:1.1L", gear=2)
    assert {d for s, d in firsts(ctx) if s.startswith("2:1.2")} == {"G1", "C"}
    without = position(straight(), space="2:1.1L", gear=2)
    assert {d for s, d in firsts(without) if s.startswith("2:1.2")} == {"G1", "G3", "C"}


def test_jump_1_default_jump_token_value_and_a_given_one() -> None:
    # rule: JUMP-1 (DEFAULT: a jump token without a number is track_tokens.jump)
    default = nodes(straight({"token": "jump", "at": [0.0, 0.0]}))
    assert {default[n]["jump"] for n in ("2:1.2L", "2:1.2R")} == {RULES.jump}
    given = straight({"token": "jump", "value": 3, "at": [0.0, 0.0]})
    assert nodes(given)["2:1.2L"]["jump"] == 3
    # at the jump's number the die carries the car one more space (JUMP-1)
    ctx = position(given, space="2:1.1L", gear=2)
    landings = {s.space for p in plans(ctx, 1) for s in p.steps if s.placed_on.startswith("2:1.2")}
    assert {"2:1.3L", "2:1.3R"} <= landings


def test_corner_1_chicane_limit_token_is_one_chicane_space_with_its_limit() -> None:
    # rule: CORNER-1, BOARD-2 (DEFAULT: the row becomes one chicane space across the road)
    tiles = straight({"token": "chicane-limit", "value": 3, "at": [0.0, 0.0]})
    row = {n: d for n, d in nodes(tiles).items() if n.startswith("2:1.2")}
    assert list(row) == ["2:1.2C"]
    space = row["2:1.2C"]
    assert (space["kind"], space["lanes"], space["limit"], space["token"]) == (
        "chicane",
        (1, 2),
        3,
        "chicane-limit",
    )
    report = validate(make_stage(*tiles))
    g = report.graph
    assert set(g.predecessors("2:1.2C")) == {"2:1.1L", "2:1.1R"}  # from either lane
    assert set(g.successors("2:1.2C")) == {"2:1.3L", "2:1.3R"}
    assert all("corner_entry" in g.edges[u, "2:1.2C"]["tags"] for u in g.predecessors("2:1.2C"))
    # over its limit is a loss of control, at it is safe
    ctx = position(tiles, space="2:1.1L", gear=4)
    into = {s.speed: s.loc for p in plans(ctx, 1) for s in p.steps if s.space == "2:1.2C"}
    assert into[4] == "corner" and into[3] is None
    # the summary lists it with the corners
    assert {"tile_index": 2, "tile": "205a", "turn": "chicane", "inner": 3, "outer": 3} in (
        c.model_dump() for c in report.summary.corners
    )


def test_corner_1_default_chicane_limit_and_chicane_tokens_beside_it() -> None:
    # rule: CORNER-1 (DEFAULT: track_tokens.chicane_limit; a chicane token is the bend into
    # or out of the chicane: its row keeps two lanes and no limit)
    tiles = straight(
        {"token": "chicane", "at": [0.32, 0.0]},
        {"token": "chicane-limit", "at": [0.0, 0.0]},
        {"token": "chicane", "at": [-0.32, 0.0]},
    )
    found = nodes(tiles)
    assert found["2:1.2C"]["limit"] == RULES.chicane_limit
    for row in ("2:1.1", "2:1.3"):
        lanes = {n: d for n, d in found.items() if n.startswith(row)}
        assert set(lanes) == {f"{row}L", f"{row}R"}
        assert all(d["kind"] == "lane" and d["limit"] is None for d in lanes.values())
    assert validate(make_stage(*tiles)).codes == []


def test_shortcut_2_mud_lowers_a_chicane_tokens_limit() -> None:
    # rule: SHORTCUT-2, CORNER-1 (a chicane space is a corner space: mud lowers it)
    tiles = straight({"token": "chicane-limit", "value": 3, "at": [0.0, 0.0]}, {"token": "mud"})
    assert nodes(tiles)["2:1.2C"]["limit"] == 2


def test_races_go_through_the_chicane_and_lose_control_over_its_limit() -> None:
    # rule: CORNER-1 (the simulator reads the stage the token made: no special case)
    tiles = straight({"token": "chicane-limit", "value": 2, "at": [0.0, 0.0]})
    report = validate(make_stage(*tiles))
    prepared = prepare(Track.from_graph(report.graph, report.layout))
    settings = Settings.default(3, bots=("aggressive", "planner", "cautious"))
    through = 0
    for seed in range(6):
        race = run_race(prepared, settings, seed)
        for turn in race.log:
            for e in turn.events:
                if e.kind == "move" and e.space == "2:1.2C":
                    through += 1
                    if (e.value or 0) > 2:
                        assert (2, "2:1.2C") in race.drivers[turn.driver].losses
                assert e.space not in ("2:1.2L", "2:1.2R")  # the lanes are gone
    assert through >= 6 * 3  # every car crosses the row on the chicane space


# --- which space: a token's place decides, findings where it cannot act ----------------


def test_board_2_default_track_token_without_at_goes_on_the_middle_row() -> None:
    # rule: BOARD-2 (DEFAULT: a track token without 'at' goes on the row nearest the middle
    # of the road where it can go, whichever way the tile is driven)
    forward = lay_out(make_stage(*straight({"token": "water"}))).chain[1]
    back = lay_out(
        make_stage("202a", {"tile": "205a", "enter": 3, "tokens": [{"token": "water"}]}, "203a")
    ).chain[1]
    for tile in (forward, back):
        assert tile.road is not None
        (spot,) = tile.road.tokens
        assert not spot.placed and spot.at == (0.0, 0.0)
        assert tile.road.units[spot.unit or 0].row == 2  # the middle one of 205a's three
    # on 217a (slide, corner, slide) the corner cannot take it: a slide row, the same one
    places = []
    for turn in ("left", "right"):
        bend = lay_out(
            make_stage("202a", {"tile": "217a", "turn": turn, "tokens": [{"token": "jump"}]})
        ).chain[1]
        assert bend.road is not None
        (spot,) = bend.road.tokens
        assert bend.road.units[spot.unit or 0].kind == "slide"
        places.append(spot.at)
    assert places[0] == places[1]


def test_a_chicane_without_at_goes_beside_its_limit_and_editors_get_the_place() -> None:
    stage = make_stage(*straight({"token": "chicane"}, {"token": "chicane-limit"}))
    tile = lay_out(stage).chain[1]
    assert tile.road is not None
    chicane, limit = tile.road.tokens
    assert abs((chicane.unit or 0) - (limit.unit or 0)) == 1
    rekee = json.loads(dump_stage(stage, "rekee"))
    written = rekee["tiles"][1]["tokens"]
    assert [(k["q"], k["r"]) for k in written] == [chicane.at, limit.at]


def _point_in(tiles: list[Any], space: str, tile: int = 2) -> tuple[float, float]:
    """A place (tile frame, tile widths) inside ``space`` of the stage's tile ``tile``."""
    placed = lay_out(make_stage(*tiles)).chain[tile - 1]
    assert placed.road is not None
    p = space_polygon(placed.road, placed.road.spaces[space], 1.0).representative_point()
    q, r = local_axial((p.x, p.y), 1.0)
    return (round(q, 4), round(r, 4))


def test_r207_track_token_on_no_space_of_the_road() -> None:
    report = validate(make_stage(*straight({"token": "water", "at": [0.0, 0.3]})))
    assert report.codes == ["R207"]
    (f,) = report.findings
    assert f.location.tile_index == 2 and f.location.path == "tiles[1].tokens[0]"
    assert "[0.00, 0.30]" in f.message and "water" in f.message
    assert "at [" in f.fix  # the nearest row where it can go
    off = nodes(straight({"token": "water", "at": [0.0, 0.3]}))
    assert not any(d["ford"] for d in off.values())


BEND = {"tile": "217b", "turn": "left"}


@pytest.mark.parametrize(
    ("tiles", "token", "space"),
    [
        # a chicane token in a corner
        (["202a", BEND, "203a"], "chicane-limit", "2.I1"),
        # a chicane on a slide row (the dotted line)
        (["202a", BEND, "203a"], "chicane-limit", "1.1L"),
        # on the shortcut island
        (["202a", BEND, "203a"], "water", "X1.1"),
        # a water token on a jump (206b's printed jump is on its row 3)
        (["202a", "206b", "203a"], "water", "1.3L"),
        # a jump on a ford (207b's printed ford is on its row 2)
        (["202a", "207b", "203a"], "jump", "1.2R"),
    ],
)
def test_r208_track_token_where_it_cannot_go(tiles: list[Any], token: str, space: str) -> None:
    at = _point_in(tiles, space)
    with_token = [tiles[0], {**_spec(tiles[1]), "tokens": [{"token": token, "at": list(at)}]}]
    report = validate(make_stage(*with_token, *tiles[2:]))
    assert report.codes == ["R208"], report.findings
    assert report.findings[0].location.space is not None
    # it changes nothing: the graph is the one without the token
    plain = validate(make_stage(*tiles)).graph
    assert sorted(report.graph.nodes) == sorted(plain.nodes)
    assert all(report.graph.nodes[n]["token"] is None for n in report.graph)


def _spec(tile: Any) -> dict[str, Any]:
    return dict(tile) if isinstance(tile, dict) else {"tile": tile}


def test_r208_two_track_tokens_on_one_row_and_a_tile_with_no_room() -> None:
    tokens = [{"token": "water", "at": [0.0, 0.0]}, {"token": "jump", "at": [0.02, 0.05]}]
    report = validate(make_stage(*straight(*tokens)))
    assert report.codes == ["R208"] and "water" in report.findings[0].message
    assert report.findings[0].location.path == "tiles[1].tokens[1]"
    full = [{"token": "water"}, {"token": "water"}, {"token": "water"}, {"token": "jump"}]
    assert validate(make_stage(*straight(*full))).codes == ["R208"]  # three rows, four tokens


def test_r208_a_chicane_on_a_row_a_shortcut_joins() -> None:
    # 217b's first slide row is joined to its shortcut
    tiles = ["202a", BEND, "203a"]
    at = _point_in(tiles, "1.1S1")
    report = validate(make_stage("202a", {**BEND, "tokens": [{"token": "water", "at": at}]}))
    assert "R208" not in report.codes  # water may go there
    hit = validate(
        make_stage("202a", {**BEND, "tokens": [{"token": "chicane-limit", "at": at}]}, "203a")
    )
    assert "R208" in hit.codes


def test_r209_chicane_token_with_no_chicane_limit_beside_it() -> None:
    report = validate(make_stage(*straight({"token": "chicane", "at": [0.32, 0.0]})))
    assert report.codes == ["R209"] and report.valid  # a warning: alone it changes nothing
    assert (report.findings[0].location.space or "").startswith("2:1.1")  # the row it is on
    # beside a chicane-limit token it is fine; two rows away it is alone again
    beside = [{"token": "chicane", "at": [0.32, 0.0]}, {"token": "chicane-limit", "at": [0, 0]}]
    assert validate(make_stage(*straight(*beside))).codes == []
    apart = [{"token": "chicane", "at": [0.32, 0.0]}, {"token": "chicane-limit", "at": [-0.32, 0]}]
    assert validate(make_stage(*straight(*apart))).codes == ["R209"]


def test_r202_track_token_numbers() -> None:
    for token in (
        {"token": "jump", "value": 9},
        {"token": "chicane-limit", "value": 0},
        {"token": "water", "value": 2},
        {"token": "chicane", "value": 1},
    ):
        assert "R202" in validate(make_stage(*straight({**token, "at": [0.0, 0.0]}))).codes


def test_r202_track_token_on_a_scenery_tile() -> None:
    stage = make_stage(
        "202a", "203a", {"tile": "902a", "at": [5, 5], "dir": 0, "tokens": [{"token": "water"}]}
    )
    assert "R202" in validate(stage).codes


def test_r210_too_many_tokens_on_a_tile_only_the_first_count() -> None:
    mud = [{"token": "mud"}] * (MAX_TILE_TOKENS + 1)
    report = validate(make_stage("202a", {"tile": "217a", "turn": "left", "tokens": mud}, "203a"))
    (too_many,) = [f for f in report.findings if f.code == "R210"]
    assert len(report.layout.chain[1].tokens) == MAX_TILE_TOKENS
    assert too_many.location.path == "tiles[1].tokens" and str(MAX_TILE_TOKENS + 1) in (
        too_many.message
    )


# --- drawn where they lie ----------------------------------------------------------------


def _matrix(use: ET.Element) -> tuple[float, ...]:
    text = use.get("transform", "")
    assert text.startswith("matrix(")
    return tuple(float(v) for v in text[7:-1].split(","))


def _group(root: ET.Element, ident: str) -> ET.Element:
    found = root.find(f".//*[@id='{ident}']")
    assert found is not None, ident
    return found


def test_track_tokens_are_drawn_where_they_lie_turned_as_placed() -> None:
    root = ET.fromstring(render_map(load_stage(EXAMPLE)).svg)
    size = DEFAULT_TILE_SIZE_MM
    tile = _group(root, "tile-2")
    classes = {t.get("id"): t.get("class", "") for t in tile.iter() if t.get("id")}
    assert "track-token token-chicane danger" in classes["token-2-1"]
    assert "track-token token-chicane-limit limit" in classes["token-2-2"]
    # the limit circle at the chicane-limit token's place, with its limit
    limit = _group(root, "token-2-2")
    disc = next(limit.iter(f"{NS}use"))
    assert _matrix(disc)[4:] == pytest.approx((0.0, 0.0), abs=0.01)
    assert [t.text for t in limit.iter(f"{NS}text")] == [str(RULES.chicane_limit)]
    # the two kerbs: at +-0.32 tile widths, on opposite sides (turned half a turn apart)
    kerbs = [next(_group(root, f"token-2-{i}").iter(f"{NS}use")) for i in (1, 3)]
    (x1, y1), (x3, y3) = (_matrix(k)[4:] for k in kerbs)
    assert (x1, x3) == pytest.approx((0.32 * size, -0.32 * size), abs=0.01)
    assert y1 * y3 < 0
    # the row under the chicane-limit token is one chicane space, no lane spaces
    ids = {el.get("id") for el in tile.iter() if "space" in el.get("class", "").split()}
    assert "space-2-1.2C" in ids and "space-2-1.2L" not in ids
    # a ford drawn once: by its token, at the token's place
    fords = [el for el in root.iter() if {"feature", "ford"} <= set(el.get("class", "").split())]
    assert len(fords) == 1 and "track-token" in (fords[0].get("class") or "")
    waves = next(fords[0].iter(f"{NS}use"))
    assert _matrix(waves)[4:] == pytest.approx(local_point((0.125, 0.0), size), abs=0.01)


def test_tile_wide_tokens_are_drawn_where_they_lie_when_placed() -> None:
    stage = make_stage(
        "202a",
        {"tile": "205a", "tokens": [{"token": "oxygen", "value": 2, "at": [0.1, -0.3]}]},
        {"tile": "206a", "tokens": [{"token": "oxygen", "value": 2}]},
        "203a",
    )
    root = ET.fromstring(render_map(stage).svg)
    placed = next(_group(root, "token-2-1").iter(f"{NS}use"))
    assert _matrix(placed)[4:] == pytest.approx(local_point((0.1, -0.3)), abs=0.01)
    # without a place: beside the road, as before (toward a hex corner clear of the road)
    beside = next(_group(root, "token-3-1").iter(f"{NS}use"))
    road = lay_out(stage).chain[2].road
    corner = free_corners([centre_line(road).points], DEFAULT_TILE_SIZE_MM)[1]
    want = (TOKENS_AT * corner[0], TOKENS_AT * corner[1])
    assert _matrix(beside)[4:] == pytest.approx(want, abs=0.01)


# --- counted in the summary --------------------------------------------------------------


def test_summary_lists_the_tokens_and_their_box_and_i304_checks_it() -> None:
    report = validate(load_stage(EXAMPLE))
    assert report.valid and report.codes == []
    tokens = {t.token: (t.count, t.box) for t in report.summary.tokens}
    assert tokens == {
        "chicane-gravel": (2, "dirt-copilot"),
        "chicane-limit-gravel": (1, "dirt-copilot"),
        "water-gravel": (1, "dirt-copilot"),
        "jump-gravel": (1, "dirt-copilot"),
    }
    assert report.summary.boxes["dirt-copilot"] == 1
    assert (report.summary.dirt.jumps, report.summary.dirt.fords) == (1, 1)
    owned = make_stage(*straight({"token": "water"}), boxes=["dirt-core"])
    found = validate(owned)
    assert found.codes == ["I304"] and "dirt-copilot" in found.findings[0].message
    with_box = make_stage(*straight({"token": "water"}), boxes=["dirt-core", "dirt-copilot"])
    assert validate(with_box).codes == []


# --- linear in the number of tokens, memory in proportion --------------------------------


def test_a_tile_with_100000_tokens_is_checked_drawn_and_raced_in_proportion() -> None:
    kinds = [{"token": "cloud"}, {"token": "oxygen", "value": 1}, {"token": "mud"}]
    tokens = [kinds[i % 3] for i in range(100_000)]
    stage = make_stage("202a", {"tile": "217a", "turn": "left", "tokens": tokens}, "203a")
    began = time.perf_counter()
    report = validate(stage)
    svg = render_map(stage).svg
    printed = print_pages(report, report.layout).svg_pages()
    prepared = prepare(Track.from_graph(report.graph, report.layout))
    run_race(prepared, Settings.default(2), 1)
    # generous: the quadratic checks took minutes for a tenth of these tokens
    assert time.perf_counter() - began < 60
    assert report.codes.count("R210") == 1
    assert len(report.findings) <= 2 * MAX_TILE_TOKENS
    assert svg.count('class="feature token') == MAX_TILE_TOKENS
    assert printed and all(
        page.text.count('class="feature token') <= MAX_TILE_TOKENS for page in printed
    )


def _peak_kb(stage: Any) -> float:
    tracemalloc.start()
    try:
        render_map(stage)
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def test_drawing_memory_follows_the_tokens_drawn_not_the_tokens_given() -> None:
    def stage(n: int) -> Any:
        tiles = [{"tile": "205a", "tokens": [{"token": "mud"}] * n} for _ in range(8)]
        return make_stage("202a", *tiles, "203a")

    few, many = stage(MAX_TILE_TOKENS), stage(250 * MAX_TILE_TOKENS)
    _peak_kb(few)  # caches warm
    assert _peak_kb(many) < 1.5 * _peak_kb(few)
