"""Stage file formats: detection, the editors' files, token ids, writers and round trips."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackkit.errors import InputError
from trackkit.formats import (
    StageFormat,
    detect_format,
    format_for_path,
    load_source,
    load_stage,
    parse_stage,
    write_text_atomic,
)
from trackkit.formats.tokens import rekee_token_id, rgt_token_id, token_from_id
from trackkit.formats.write import dump_stage, save_stage
from trackkit.models.stage import Stage, TileToken
from trackkit.road import hexgrid
from trackkit.stage.assemble import lay_out

DATA = Path(__file__).parent / "data" / "formats"
SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "data" / "samples"
ROUND_TRIP = DATA / "round-trip.yaml"

# Driving order of round-trip.yaml as laid out by trackkit.stage.assemble.
ROUND_TRIP_CHAIN = ["202a", "205a", "217a", "210a", "418b", "208a", "203a"]


def needs_sample(name: str) -> Path:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"shared sample {name} is not available")
    return path


def laid_out(stage: Stage) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """What a stage is on the table: chain in driving order, then the tiles beside it.

    Hexes are relative to the first tile: editor files may move the whole map.
    """
    layout = lay_out(stage)
    q0, r0 = layout.tiles[0].hex if layout.tiles else (0, 0)

    def rel(h: tuple[int, int]) -> tuple[int, int]:
        return (h[0] - q0, h[1] - r0)

    chain = [
        (
            t.face_id,
            rel(t.hex),
            t.rotation,
            t.road.entry if t.road else None,
            [(k.token, k.value) for k in t.tokens],
        )
        for t in layout.chain
    ]
    beside = [(t.face_id, rel(t.hex), t.rotation) for t in layout.scenery]
    return chain, beside


def ids(stage: Stage) -> list[str]:
    return [t.tile for t in stage.tiles]


# --- detection --------------------------------------------------------------------------


def test_native_yaml_is_read_in_file_order() -> None:
    stage = load_stage(ROUND_TRIP)
    assert stage.name == "Round trip"
    assert stage.author == "Test Author"
    assert ids(stage) == [*ROUND_TRIP_CHAIN, "201a", "902a"]
    assert stage.tiles[2].turn == "left"
    assert stage.tiles[4].tokens[0] == TileToken(token="oxygen", value=2)
    assert stage.tiles[8].at == (4, -4) and stage.tiles[8].dir == 2


def test_native_json_is_detected_and_equals_the_yaml(tmp_path: Path) -> None:
    stage = load_stage(ROUND_TRIP)
    path = tmp_path / "stage.json"
    path.write_text(dump_stage(stage, "native-json"), encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8"))["format"] == "trackkit-stage/1"
    assert load_stage(path) == stage


def test_native_yaml_written_then_read_is_the_same_stage() -> None:
    stage = load_stage(ROUND_TRIP)
    text = dump_stage(stage, "native-yaml")
    assert parse_stage(text, file="again.yaml") == stage
    data = yaml.safe_load(text)
    assert next(iter(data)) == "format"
    # None and empty fields are left out
    assert data["tiles"][0] == {"tile": "202a"}
    assert data["tiles"][3] == {"tile": "210a", "turn": "right"}
    assert data["tiles"][8] == {"tile": "902a", "at": [4, -4], "dir": 2}
    assert "author" in data and "boxes" not in data
    assert "  at: [4, -4]\n" in text  # short lists on one line


def test_native_yaml_flow_style_is_still_yaml() -> None:
    text = "{format: trackkit-stage/1, tiles: [{tile: 202a}, {tile: 205a}]}"
    assert ids(parse_stage(text, file="flow.yaml")) == ["202a", "205a"]


def test_rekee_file_is_detected(tmp_path: Path) -> None:
    path = tmp_path / "stage.json"
    path.write_text(
        json.dumps(
            {
                "title": "Tiny",
                "author": "Me",
                "tiles": [
                    {"q": -1, "r": 0, "id": "205a", "dir": 0, "tokens": []},
                    {"q": 0, "r": 0, "id": "202a", "dir": 0, "tokens": []},
                ],
            }
        ),
        encoding="utf-8",
    )
    stage = load_stage(path)
    assert (stage.name, stage.author) == ("Tiny", "Me")
    assert ids(stage) == ["202a", "205a"]


def test_rgt_file_is_detected() -> None:
    text = json.dumps(
        {
            "Path": "C:\\Tracks",
            "Name": "Tiny rgt",
            "Author": "Me",
            "Tuiles": [
                {"X": 1, "Y": 0, "Orientation": 0, "TuileId": "205A"},
                {"X": 0, "Y": 0, "Orientation": 0, "TuileId": "202A"},
            ],
            "lowResWidth": 2480,
        }
    )
    stage = parse_stage(text, file="tiny.rgt")
    assert stage.name == "Tiny rgt"
    assert ids(stage) == ["202a", "205a"]
    assert stage.tiles[0].at == hexgrid.offset_to_axial(0, 0)
    assert stage.tiles[1].at == hexgrid.offset_to_axial(1, 0)


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        ({"format": "trackkit-stage/1", "tiles": []}, "native"),
        ({"title": "x", "tiles": [{"q": 0, "r": 0, "id": "202a", "dir": 0}]}, "rekee"),
        ({"title": "x", "tiles": []}, "rekee"),
        ({"Name": "x", "Tuiles": []}, "rgt"),
    ],
)
def test_detect_format(data: dict[str, Any], kind: str) -> None:
    assert detect_format(data) == kind


def test_defaults_for_editor_files_without_a_name() -> None:
    stage = parse_stage('{"tiles": [{"q": 0, "r": 0, "id": "202a", "dir": 0}]}', file="r.json")
    assert stage.name == "Untitled stage"
    assert stage.author == ""


# --- the shared samples of the official editor -----------------------------------------


@pytest.mark.parametrize("name", ["chicane-example1.rgt", "chicane-example2.rgt"])
def test_chicane_samples_load_start_first(name: str) -> None:
    stage = load_stage(needs_sample(name))
    assert stage.name.startswith("Chicane Example")
    assert stage.author == "Holy Grail Games"
    assert ids(stage) == ["202a", "205a"]
    assert stage.tiles[0].enter is not None
    # the Copilot chicane tokens: the official editor's gravel chicane-limit and chicane
    assert [(k.token, k.surface) for k in stage.tiles[1].tokens] == [
        ("chicane-limit", "gravel"),
        ("chicane", "gravel"),
    ]
    chain, _ = laid_out(stage)
    assert [c[0] for c in chain] == ["202a", "205a"]
    assert not [f for f in lay_out(stage).findings if f.code == "S102"]  # the tiles meet


def test_chicane_sample_positions_are_the_editor_offsets() -> None:
    source = load_source(needs_sample("chicane-example1.rgt"))
    stage = source.stage
    # places relative to the first tile; the file's own offsets are the source's origin
    first, second = hexgrid.offset_to_axial(54, 52), hexgrid.offset_to_axial(55, 52)
    assert stage.tiles[0].at == (0, 0) and source.origin == first
    assert stage.tiles[1].at == (second[0] - first[0], second[1] - first[1])
    written = json.loads(dump_stage(stage, "rgt", origin=source.origin))
    assert [(t["X"], t["Y"], t["TuileId"]) for t in written["Tuiles"]] == [
        (54, 52, "202A"),
        (55, 52, "205A"),
    ]


def test_rx_finland_sample_keeps_unknown_tiles() -> None:
    stage = load_stage(needs_sample("rx-finland.rgt"))
    assert stage.name == "RX Finland"
    assert len(stage.tiles) == 16
    assert {"podium", "401a", "119b", "414b"} <= set(ids(stage))
    assert {"206a", "209b", "208a", "209a", "204a"} <= set(ids(stage))
    assert all(t.at is not None and t.dir is not None for t in stage.tiles)


# --- Rekee: finding the driving order --------------------------------------------------


def test_rekee_walk_finds_driving_order_in_a_shuffled_file() -> None:
    stage = load_stage(DATA / "shuffled.rekee.json")
    assert stage.name == "Shuffled Rekee stage"
    # driven tiles first (205a drawn in its second art: 205a-2, kept); then the others in
    # file order
    chain = [("205a-2" if t == "205a" else t) for t in ROUND_TRIP_CHAIN]
    assert ids(stage) == [*chain, "902a", "201a", "PODIUM"]
    first = stage.tiles[0]
    assert first.enter is not None
    assert all(t.enter is None for t in stage.tiles[1:])
    assert all(t.at is not None and t.dir is not None for t in stage.tiles)
    # tokens keep their place and turn on the tile
    assert stage.tiles[1].tokens == [TileToken(token="climb", value=-1, at=(0.25, -0.1), dir=1.5)]
    assert [(k.token, k.at) for k in stage.tiles[-1].tokens] == [("finish", (0.0, 0.0))]
    # the unknown PODIUM is not reached: placed where it is, not driven
    assert [t.tile for t in stage.tiles if not t.driven] == ["PODIUM"]
    assert stage.tiles[-1].at == (6, -6) and stage.tiles[-1].dir == 1
    # the driven tiles lay out exactly as the native stage the file was made from
    chain, beside = laid_out(stage)
    want_chain, want_beside = laid_out(load_stage(ROUND_TRIP))
    assert chain == want_chain
    assert sorted(beside) == sorted(want_beside)
    assert [(t.raw_id, t.hex, t.index) for t in lay_out(stage).undriven] == [
        ("PODIUM", (6, -6), None)
    ]


@pytest.mark.parametrize("seed", range(5))
def test_rekee_walk_does_not_depend_on_file_order(seed: int) -> None:
    original = load_stage(ROUND_TRIP)
    data = json.loads(dump_stage(original, "rekee"))
    random.Random(seed).shuffle(data["tiles"])
    stage = parse_stage(json.dumps(data), file="shuffled.json")
    assert ids(stage)[:7] == ROUND_TRIP_CHAIN
    chain, beside = laid_out(stage)
    want_chain, want_beside = laid_out(original)
    assert chain == want_chain
    assert sorted(beside) == sorted(want_beside)  # tiles beside the road keep file order


def _rekee(*tiles: tuple[int, int, str, int]) -> str:
    return json.dumps(
        {"title": "t", "tiles": [{"q": q, "r": r, "id": i, "dir": d} for q, r, i, d in tiles]}
    )


@pytest.mark.parametrize(
    ("neighbour", "entry"),
    [
        ((-1, 0), 0),  # the road goes on beyond local edge 3 (world 3): enter by edge 0
        ((1, 0), 3),  # the road goes on beyond local edge 0 (world 0): enter by edge 3
    ],
)
def test_rekee_start_direction_follows_the_connected_end(
    neighbour: tuple[int, int], entry: int
) -> None:
    stage = parse_stage(_rekee((0, 0, "202a", 0), (*neighbour, "205a", 0)), file="r.json")
    assert ids(stage) == ["202a", "205a"]
    assert stage.tiles[0].enter == entry


def test_rekee_lone_start_tile_uses_the_faces_start_direction() -> None:
    from trackkit.stage.assemble import start_entry
    from trackkit.tiles.library import default_library

    stage = parse_stage(_rekee((3, 3, "202b", 4)), file="r.json")
    face = default_library().get("202b")
    assert face is not None
    assert stage.tiles[0].enter == start_entry(face)
    assert stage.tiles[0].at == (3, 3) and stage.tiles[0].dir == 4


def test_rekee_walk_stops_where_the_road_does_not_meet() -> None:
    # 205a at (-2, 0) turned by 1 has its road ends on world sides 1 and 4: it does not meet
    stage = parse_stage(
        _rekee((-2, 0, "205a", 1), (0, 0, "202a", 0), (-1, 0, "204a", 0)), file="r.json"
    )
    assert ids(stage) == ["202a", "204a", "205a"]
    assert stage.tiles[2].enter is None and stage.tiles[2].at == (-2, 0)
    assert [t.driven for t in stage.tiles] == [True, True, False]
    layout = lay_out(stage)
    assert [t.face_id for t in layout.chain] == ["202a", "204a"]  # 205a is not chained
    assert [(t.face_id, t.hex, t.rotation) for t in layout.undriven] == [("205a", (-2, 0), 1)]


def test_rekee_tiles_beside_the_road_are_not_undriven() -> None:
    # scenery and the service area have no road: they stand beside it, reached or not
    stage = parse_stage(
        _rekee((0, 0, "202a", 0), (1, 0, "203a", 3), (5, 5, "902a", 2), (2, 0, "201a", 0)),
        file="r.json",
    )
    assert [(t.tile, t.driven) for t in stage.tiles] == [
        ("202a", True),
        ("203a", True),
        ("902a", True),
        ("201a", True),
    ]
    assert not lay_out(stage).undriven


def test_rekee_without_start_tile_walks_from_an_end_of_the_road() -> None:
    # the start tile's id is wrong: the walk starts at the open end next to it
    stage = parse_stage(
        _rekee((2, 0, "203a", 3), (0, 0, "202x", 0), (1, 0, "205a", 0)), file="r.json"
    )
    assert ids(stage) == ["205a", "203a", "202x"]
    assert stage.tiles[0].enter is not None
    assert [t.driven for t in stage.tiles] == [True, True, False]
    # a finish is the last choice of where to start: 204a here, though 203a is listed first
    stage = parse_stage(_rekee((1, 0, "203a", 3), (-1, 0, "204a", 0), (0, 0, "205a", 0)), file="r")
    assert ids(stage) == ["204a", "205a", "203a"]


def test_rekee_without_a_place_to_start_keeps_file_order() -> None:
    stage = parse_stage(_rekee((1, 0, "PODIUM", 0), (0, 0, "999a", 0)), file="r.json")
    assert ids(stage) == ["PODIUM", "999a"]
    assert all(t.enter is None and t.driven for t in stage.tiles)
    assert [t.at for t in stage.tiles] == [(1, 0), (0, 0)]


def test_rekee_unknown_ids_are_kept_as_written_and_art_variants_read_as_their_face() -> None:
    stage = parse_stage(
        _rekee((0, 0, "202a", 0), (-1, 0, "103a-2", 0), (5, 5, "PODIUM", 0)), file="r.json"
    )
    assert ids(stage) == ["202a", "103a-2", "PODIUM"]  # the art variant is kept (convert)
    assert [t.face_id for t in lay_out(stage).tiles] == ["202a", "103a", "PODIUM"]  # its face


# --- tokens ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "token", "value"),
    [
        ("climb-ascent", "climb", -1),
        ("climb-descent", "climb", 1),
        ("cloud", "cloud", None),
        ("oxygen-1", "oxygen", 1),
        ("oxygen-3", "oxygen", 3),
        ("mud-spray", "mud", -1),
        ("joker-entrance", "joker-entrance", None),
        ("finish", "finish", None),
        # official editor
        ("climbm1", "climb", -1),
        ("climbp1", "climb", 1),
        ("climbw", "cloud", None),
        ("climbr2", "oxygen", 2),
        ("greendoor", "greendoor", None),
    ],
)
def test_token_ids_read(raw: str, token: str, value: int | None) -> None:
    assert token_from_id(raw) == TileToken(token=token, value=value)


@pytest.mark.parametrize(
    ("raw", "token", "surface"),
    [
        ("water-gravel", "water", "gravel"),
        ("jump", "jump", None),
        ("chicane-limit-snow", "chicane-limit", "snow"),
        ("chicane-asphalt", "chicane", "asphalt"),
        # official editor: surface, then 1 chicane-limit, 2 chicane, 3 water, 4 jump
        ("dirt1", "chicane-limit", "gravel"),
        ("asphalt2", "chicane", "asphalt"),
        ("ice3", "water", "snow"),
        ("ice4", "jump", "snow"),
    ],
)
def test_copilot_token_ids_read(raw: str, token: str, surface: str | None) -> None:
    assert token_from_id(raw) == TileToken.model_validate({"token": token, "surface": surface})


@pytest.mark.parametrize(
    ("token", "rekee", "rgt"),
    [
        (TileToken(token="climb", value=-1), "climb-ascent", "climbm1"),
        (TileToken(token="climb", value=1), "climb-descent", "climbp1"),
        (TileToken(token="cloud"), "cloud", "climbw"),
        (TileToken(token="oxygen", value=1), "oxygen-1", "climbr1"),
        (TileToken(token="oxygen", value=3), "oxygen-3", "climbr3"),
        (TileToken(token="mud", value=-1), "mud-spray", "mud-spray"),
        (TileToken(token="joker-exit"), "joker-exit", "joker-exit"),
        (TileToken(token="reddoor"), "reddoor", "reddoor"),
        (TileToken(token="water", surface="gravel"), "water-gravel", "dirt3"),
        (TileToken(token="jump", surface="snow"), "jump-snow", "ice4"),
        (TileToken(token="chicane-limit", surface="asphalt"), "chicane-limit-asphalt", "asphalt1"),
    ],
)
def test_token_ids_written(token: TileToken, rekee: str, rgt: str) -> None:
    assert rekee_token_id(token) == rekee
    assert rgt_token_id(token) == rgt
    assert token_from_id(rekee) == token
    assert token_from_id(rgt) == token


def test_tokens_in_written_editor_files() -> None:
    stage = load_stage(ROUND_TRIP)
    rekee = json.loads(dump_stage(stage, "rekee"))
    climb = next(t for t in rekee["tiles"] if t["id"] == "418b")
    assert climb["tokens"] == [
        {"id": "oxygen-2", "q": 0.0, "r": 0.0, "dir": 0.0},
        {"id": "cloud", "q": 0.0, "r": 0.0, "dir": 0.0},
    ]
    by_id = {t["id"]: [k["id"] for k in t["tokens"]] for t in rekee["tiles"]}
    assert by_id["205a"] == ["climb-ascent"]
    assert by_id["217a"] == ["mud-spray"]
    assert by_id["202a"] == []
    rgt = json.loads(dump_stage(stage, "rgt"))
    climb = next(t for t in rgt["Tuiles"] if t["TuileId"] == "418B")
    assert [k["TokenId"] for k in climb["Tokens"]] == ["climbr2", "climbw"]
    assert climb["Tokens"][0] == {"X": 0.0, "Y": 0.0, "Orientation": 0.0, "TokenId": "climbr2"}
    by_id = {t["TuileId"]: [k["TokenId"] for k in t.get("Tokens", [])] for t in rgt["Tuiles"]}
    assert by_id["205A"] == ["climbm1"]
    assert by_id["217A"] == ["mud-spray"]
    assert "Tokens" not in rgt["Tuiles"][0]


# --- writers and round trips -----------------------------------------------------------


def test_rekee_writer_shape() -> None:
    data = json.loads(dump_stage(load_stage(ROUND_TRIP), "rekee"))
    assert (data["title"], data["author"]) == ("Round trip", "Test Author")
    assert [t["id"] for t in data["tiles"]] == [*ROUND_TRIP_CHAIN, "201a", "902a"]
    assert set(data["tiles"][0]) == {"q", "r", "id", "dir", "tokens"}
    assert data["tiles"][-1] == {"q": 4, "r": -4, "id": "902a", "dir": 2, "tokens": []}


def test_rgt_writer_shape() -> None:
    data = json.loads(dump_stage(load_stage(ROUND_TRIP), "rgt"))
    assert (data["Path"], data["Name"], data["Author"]) == ("", "Round trip", "Test Author")
    assert [t["TuileId"] for t in data["Tuiles"]] == [
        *(i.upper() for i in ROUND_TRIP_CHAIN),
        "201A",
        "902A",
    ]
    first, last = data["Tuiles"][0], data["Tuiles"][-1]
    # the map is moved whole so that its first tile sits at the editor's origin
    assert (first["X"], first["Y"]) == (54, 52)
    origin = hexgrid.offset_to_axial(54, 52)
    assert (last["X"], last["Y"]) == hexgrid.axial_to_offset((origin[0] + 4, origin[1] - 4))
    assert last["Orientation"] == 2


@pytest.mark.parametrize("fmt", ["rekee", "rgt"])
def test_round_trip_through_editor_formats(fmt: Any) -> None:
    original = load_stage(ROUND_TRIP)
    again = parse_stage(dump_stage(original, fmt), file=f"stage.{fmt}")
    assert (again.name, again.author) == (original.name, original.author)
    assert ids(again) == [*ROUND_TRIP_CHAIN, "201a", "902a"]
    chain, beside = laid_out(again)
    want_chain, want_beside = laid_out(original)
    assert chain == want_chain  # face ids, hexes, rotations, entries, tokens in driving order
    assert beside == want_beside
    # and once more through native YAML
    native = parse_stage(dump_stage(again, "native-yaml"), file="again.yaml")
    assert laid_out(native) == (want_chain, want_beside)


def test_round_trip_through_every_format_in_a_row() -> None:
    stage = load_stage(ROUND_TRIP)
    want = laid_out(stage)
    formats: list[StageFormat] = ["native-json", "rekee", "rgt", "native-yaml", "rgt", "rekee"]
    for fmt in formats:
        stage = parse_stage(dump_stage(stage, fmt), file=f"s.{fmt}")
        assert laid_out(stage) == want, fmt


def test_dump_stage_refuses_an_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown stage format"):
        dump_stage(load_stage(ROUND_TRIP), "svg")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("a.yaml", "native-yaml"),
        ("b.YML", "native-yaml"),
        ("c.json", "native-json"),
        ("d.rekee.json", "rekee"),
        ("e.Rekee.JSON", "rekee"),
        ("f.rgt", "rgt"),
        ("folder.yaml/g.rgt", "rgt"),
    ],
)
def test_format_for_path(name: str, fmt: str) -> None:
    assert format_for_path(name) == fmt


def test_format_for_path_refuses_other_names() -> None:
    with pytest.raises(InputError, match=r"out\.txt.*\.yaml"):
        format_for_path("out.txt")


# --- atomic writes ---------------------------------------------------------------------


def test_write_text_atomic_writes_and_replaces(tmp_path: Path) -> None:
    path = tmp_path / "out.yaml"
    write_text_atomic(path, "first\n")
    write_text_atomic(path, "second: é\r\n")
    assert path.read_bytes() == "second: é\r\n".encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]


def test_write_text_atomic_failure_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "out.yaml"
    path.write_text("old\n", encoding="utf-8")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(InputError, match="no space left") as err:
        write_text_atomic(path, "new\n" * 1000)
    assert str(path) in str(err.value)
    assert path.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]  # no temp file left


def test_write_text_atomic_missing_folder(tmp_path: Path) -> None:
    path = tmp_path / "nope" / "out.yaml"
    with pytest.raises(InputError, match="does not exist") as err:
        write_text_atomic(path, "x")
    assert str(path) in str(err.value)


def test_write_text_atomic_onto_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="folder") as err:
        write_text_atomic(tmp_path, "x")
    assert str(tmp_path) in str(err.value)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs POSIX permissions")
def test_write_text_atomic_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(InputError, match="permission denied") as err:
            write_text_atomic(folder / "out.yaml", "x")
        assert "out.yaml" in str(err.value)
    finally:
        folder.chmod(0o700)


@pytest.mark.parametrize("name", ["s.yaml", "s.json", "s.rekee.json", "s.rgt"])
def test_save_stage_picks_the_format_from_the_name(tmp_path: Path, name: str) -> None:
    stage = load_stage(ROUND_TRIP)
    save_stage(stage, tmp_path / name)
    assert laid_out(load_stage(tmp_path / name)) == laid_out(stage)


# --- a break in an editor file: one finding where it breaks, one list of the rest -----------

TURINI_REKEE = Path(__file__).resolve().parents[1] / "examples" / "col-de-turini.rekee.json"


def _turini(tmp_path: Path, change: dict[int, dict[str, Any]], *, seed: int = 3) -> Path:
    """Col de Turini as a Rekee file, tiles changed by file index, then shuffled."""
    data = json.loads(TURINI_REKEE.read_text(encoding="utf-8"))
    for i, update in change.items():
        data["tiles"][i].update(update)
    random.Random(seed).shuffle(data["tiles"])
    path = tmp_path / "turini.rekee.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _report(path: Path) -> Any:
    from trackkit.checks.pipeline import validate
    from trackkit.formats import load_source

    source = load_source(path)
    return validate(source.stage, source=source)


def test_rekee_wrong_tile_id_is_one_break_and_one_list(tmp_path: Path) -> None:
    # 227a, the sixth tile driven, mistyped: the road breaks after 206a
    report = _report(_turini(tmp_path, {5: {"id": "224x"}}))
    assert sorted(report.codes) == ["S101", "S117", "S118"]  # no S102 cascade, no S107
    (brk,) = [f for f in report.findings if f.code == "S117"]
    loc = brk.location
    assert (loc.tile_index, loc.tile, loc.hex, loc.edge) == (5, "206a", (4, -1), 0)
    assert "224x" in brk.message and "[5, -1]" in brk.message
    assert "224a" in brk.fix
    # the tiles after the break keep their hexes and are not driven
    layout = report.layout
    assert [t.face_id for t in layout.chain] == ["202a", "205b", "217b", "208a", "206a"]
    assert sorted((t.face_id, t.hex) for t in layout.undriven) == [
        ("203a", (3, 5)),
        ("204a", (3, 4)),
        ("207b", (5, 0)),
        ("222a", (5, 1)),
        ("224b", (3, 3)),
        ("224x", (5, -1)),
        ("231a", (4, 2)),
    ]
    assert all(t.index is None for t in layout.undriven)
    assert report.graph.number_of_nodes() == sum(len(t.road.spaces) for t in layout.chain if t.road)
    (listed,) = [f for f in report.findings if f.code == "S118"]
    for t in layout.undriven:
        assert f"{t.face_id} at [{t.hex[0]}, {t.hex[1]}]" in listed.message
    # scenery and the service area are beside the road, not "not driven"
    assert "902a" not in listed.message and "201a" not in listed.message
    (unknown,) = [f for f in report.findings if f.code == "S101"]
    assert "224a" in unknown.fix


def _new_dir(fix: str) -> tuple[int, int]:
    import re

    match = re.search(r"\(dir (\d) -> (\d)\)", fix)
    assert match, fix
    return int(match.group(1)), int(match.group(2))


def test_rekee_tile_turned_wrong_gets_the_turn_that_mends_it(tmp_path: Path) -> None:
    # 222a (file index 7, dir 1) turned one step clockwise: 207b's exit faces it, but its
    # road does not face back
    path = _turini(tmp_path, {7: {"dir": 2}})
    report = _report(path)
    assert sorted(report.codes) == ["S117", "S118"]  # nor the R203 of 207b's jump
    (brk,) = [f for f in report.findings if f.code == "S117"]
    assert (brk.location.tile_index, brk.location.tile) == (7, "207b")
    assert "222a" in brk.fix and "anticlockwise" in brk.fix
    assert _new_dir(brk.fix) == (2, 1)
    # doing what the fix says gives back the valid stage
    data = json.loads(path.read_text(encoding="utf-8"))
    (tile,) = [t for t in data["tiles"] if t["id"] == "222a"]
    tile["dir"] = _new_dir(brk.fix)[1]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert _report(path).valid


def test_rgt_tile_turned_wrong_is_one_break_and_its_own_turn(tmp_path: Path) -> None:
    # 222a turned two steps: its entry still meets 207b, its exit faces an empty hex
    text = dump_stage(load_stage(TURINI_REKEE), "rgt")
    data = json.loads(text)
    (tile,) = [t for t in data["Tuiles"] if t["TuileId"] == "222A"]
    tile["Orientation"] = (tile["Orientation"] + 2) % 6
    random.Random(1).shuffle(data["Tuiles"])
    path = tmp_path / "turini.rgt"
    path.write_text(json.dumps(data, indent=3), encoding="utf-8")
    report = _report(path)
    assert sorted(report.codes) == ["S117", "S118"]
    (brk,) = [f for f in report.findings if f.code == "S117"]
    assert (brk.location.tile_index, brk.location.tile) == (8, "222a")
    assert brk.location.path == f"Tuiles[{data['Tuiles'].index(tile)}]"
    old, new = _new_dir(brk.fix)
    assert old == tile["Orientation"] and "231a" in brk.fix
    tile["Orientation"] = new
    path.write_text(json.dumps(data, indent=3), encoding="utf-8")
    assert _report(path).valid


def test_rgt_wrong_tile_id_is_one_break_and_one_list(tmp_path: Path) -> None:
    data = json.loads(dump_stage(load_stage(TURINI_REKEE), "rgt"))
    data["Tuiles"][9]["TuileId"] = "208"  # 224B, the tenth tile driven
    data["Tuiles"].reverse()
    path = tmp_path / "turini.rgt"
    path.write_text(json.dumps(data), encoding="utf-8")
    report = _report(path)
    assert sorted(report.codes) == ["S101", "S117", "S118"]
    (brk,) = [f for f in report.findings if f.code == "S117"]
    assert (brk.location.tile_index, brk.location.tile) == (9, "231a")
    assert "208a or 208b" in brk.fix
    assert [t.face_id for t in report.layout.undriven] == ["203a", "204a", "208"]


def test_a_break_written_out_and_read_again_is_the_same_break(tmp_path: Path) -> None:
    path = _turini(tmp_path, {5: {"id": "224x"}})
    stage = load_stage(path)
    for fmt in ("native-yaml", "native-json", "rekee", "rgt"):
        again = parse_stage(dump_stage(stage, fmt), file=f"again.{fmt}")  # type: ignore[arg-type]
        layout = lay_out(again)
        assert [t.face_id for t in layout.chain] == ["202a", "205b", "217b", "208a", "206a"], fmt
        assert len(layout.undriven) == 7, fmt
    assert "driven: false" in dump_stage(stage, "native-yaml")


_FACES = ["202a", "203a", "205a", "206a", "217a", "210a", "224b", "902a", "201a", "224x"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.integers(-2, 2), st.integers(-2, 2), st.sampled_from(_FACES), st.integers(0, 5)
        ),
        max_size=12,
    )
)
def test_editor_files_never_chain_tiles_that_do_not_meet(
    tiles: list[tuple[int, int, str, int]],
) -> None:
    from trackkit.checks.pipeline import validate

    stage = parse_stage(_rekee(*tiles), file="fuzz.json")
    report = validate(stage)
    if any(t.tile in ("202a", "205a", "206a", "217a", "210a", "224b", "203a") for t in stage.tiles):
        # a road to walk: what is driven meets, what is not is listed once
        assert "S102" not in report.codes
        # at most a break at each end of the driven road, and one list
        assert report.codes.count("S117") <= 2 and report.codes.count("S118") <= 1
        assert ("S118" in report.codes) == bool(report.layout.undriven)


# --- findings name the file's lines -------------------------------------------------------

BROKEN = Path(__file__).resolve().parents[1] / "examples" / "broken-stage.yaml"


def _line_of(text: str, needle: str, start: int = 0) -> int:
    """Line (from 1) of the first line at or after line ``start`` that contains ``needle``."""
    lines = text.splitlines()
    return next(n for n in range(start, len(lines)) if needle in lines[n]) + 1


def test_native_yaml_findings_carry_the_line_of_their_tile() -> None:
    text = BROKEN.read_text(encoding="utf-8")
    report = _report(BROKEN)
    by_code = {f.code: f.location for f in report.findings}
    assert by_code["S101"].line == _line_of(text, "- tile: 999x")
    assert by_code["S101"].path == "tiles[2]"
    assert by_code["S110"].line == _line_of(text, "- tile: 301a")
    assert by_code["R201"].line == _line_of(text, "tokens: [{token: oxygen")
    assert by_code["H401"].line == _line_of(text, "tiles:")
    # every finding about a tile has the line of that tile's item
    for f in report.findings:
        if f.location.path and f.location.path.startswith("tiles["):
            assert f.location.line is not None, f.code
            assert "- tile:" in text.splitlines()[f.location.line - 1] or "tokens" in (
                f.location.path
            )


def test_native_json_findings_carry_lines_too(tmp_path: Path) -> None:
    stage = load_stage(BROKEN)
    path = tmp_path / "broken.json"
    text = dump_stage(stage, "native-json")
    path.write_text(text, encoding="utf-8")
    report = _report(path)
    (unknown,) = [f for f in report.findings if f.code == "S101"]
    # the item's line is the line of its opening brace; the id is on the next one
    assert '"tile": "999x"' in text.splitlines()[unknown.location.line]  # type: ignore[index]


def test_editor_findings_name_the_files_own_item_and_line(tmp_path: Path) -> None:
    path = _turini(tmp_path, {5: {"id": "224x"}})
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    report = _report(path)
    (unknown,) = [f for f in report.findings if f.code == "S101"]
    item = next(i for i, t in enumerate(data["tiles"]) if t["id"] == "224x")
    assert unknown.location.path == f"tiles[{item}]"
    # the item's opening brace; its id two lines further down ("q", "r" come first)
    assert text.splitlines()[unknown.location.line + 2].strip() == '"id": "224x",'  # type: ignore[operator]
    (brk,) = [f for f in report.findings if f.code == "S117"]
    item = next(i for i, t in enumerate(data["tiles"]) if t["id"] == "206a")
    assert brk.location.path == f"tiles[{item}]"


def test_locate_maps_tokens_and_leaves_other_places_alone(tmp_path: Path) -> None:
    from trackkit.formats import load_source

    data = json.loads(dump_stage(load_stage(ROUND_TRIP), "rgt"))
    data["Tuiles"].reverse()
    path = tmp_path / "r.rgt"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    source = load_source(path)
    n = next(i for i, t in enumerate(source.stage.tiles) if t.tile == "418b")
    item = next(i for i, t in enumerate(data["Tuiles"]) if t["TuileId"] == "418B")
    where, line = source.locate(f"tiles[{n}].tokens[1]")
    assert where == f"Tuiles[{item}].Tokens[1]"
    assert line is not None and '"TokenId": "climbw"' in path.read_text().splitlines()[line + 3]
    assert source.locate("tiles")[0] == "Tuiles"
    assert source.locate("simulation") == ("simulation", None)
    assert source.locate("tiles[999]") == ("tiles[999]", None)
