"""Unusable stage files: each gives one clear InputError naming the file and the place.

Never a traceback, never a hang: every test here also checks that the message names the file.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trackkit.checks.pipeline import validate
from trackkit.errors import InputError
from trackkit.formats import (
    MAX_FILE_BYTES,
    load_stage,
    parse_stage,
)
from trackkit.formats.source import MAX_DEPTH
from trackkit.formats.write import dump_stage
from trackkit.models.stage import MAX_STAGE_TILES, Stage

GOOD_HEAD = "format: trackkit-stage/1\nname: Test\n"


def refused(path: Path) -> str:
    """Load ``path``, expect an InputError naming it, and return the message."""
    with pytest.raises(InputError) as err:
        load_stage(path)
    message = str(err.value)
    assert str(path) in message
    assert err.value.file == str(path)
    assert "Traceback" not in message
    return message


def refused_text(tmp_path: Path, text: str, name: str = "stage.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return refused(path)


# --- the file itself --------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in refused(tmp_path / "nowhere.yaml")


def test_directory(tmp_path: Path) -> None:
    folder = tmp_path / "stage.yaml"
    folder.mkdir()
    assert "folder" in refused(folder)


@pytest.mark.parametrize("text", ["", "   \n\n\t\n"])
def test_empty_file(tmp_path: Path, text: str) -> None:
    assert "empty" in refused_text(tmp_path, text)


def test_file_of_only_comments(tmp_path: Path) -> None:
    assert "empty" in refused_text(tmp_path, "# nothing here yet\n")


def test_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "picture.yaml"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
    assert "binary" in refused(path)


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes((GOOD_HEAD + "author: Ren\xe9\ntiles: []\n").encode("latin-1"))
    message = refused(path)
    assert "UTF-8" in message and "line 3" in message


def test_utf16(tmp_path: Path) -> None:
    path = tmp_path / "utf16.yaml"
    path.write_bytes((GOOD_HEAD + "tiles: []\n").encode("utf-16"))
    assert "UTF-16" in refused(path)


def test_utf8_with_bom_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + (GOOD_HEAD + "tiles: [{tile: 202a}]\n").encode())
    assert [t.tile for t in load_stage(path).tiles] == ["202a"]


def test_huge_file_is_refused_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("w", encoding="utf-8") as fh:
        fh.write(GOOD_HEAD + "tiles:\n")
        line = "  - tile: 205a\n"
        fh.write(line * (MAX_FILE_BYTES // len(line) + 10))
    started = time.perf_counter()
    message = refused(path)
    assert time.perf_counter() - started < 1.0
    assert "too large" in message and "5.0 MB" in message


def test_huge_text_is_refused() -> None:
    with pytest.raises(InputError, match=r"big\.yaml: .*too large"):
        parse_stage("#" * (MAX_FILE_BYTES + 1), file="big.yaml")


# --- syntax -----------------------------------------------------------------------------


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles:\n  - tile: 202a\n  - tile: [205a\n  - tile: 206a\n"
    message = refused_text(tmp_path, text)
    assert "not valid YAML" in message
    assert re.search(r"line \d+, column \d+", message)


def test_yaml_tab_indentation(tmp_path: Path) -> None:
    message = refused_text(tmp_path, GOOD_HEAD + "tiles:\n\t- tile: 202a\n")
    assert "not valid YAML" in message and "line 4" in message


def test_json_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    text = '{\n  "format": "trackkit-stage/1",\n  "tiles": [\n    {"tile": "202a"},\n  ]\n}\n'
    message = refused_text(tmp_path, text, "stage.json")
    assert "not valid JSON" in message
    assert "line 5, column 3" in message


def test_truncated_json(tmp_path: Path) -> None:
    good = json.dumps({"format": "trackkit-stage/1", "tiles": [{"tile": "202a"}]})
    message = refused_text(tmp_path, good[: len(good) // 2], "cut.json")
    assert "not valid JSON" in message and "line 1" in message


def test_two_yaml_documents(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles: []\n---\n" + GOOD_HEAD + "tiles: []\n"
    assert "not valid YAML" in refused_text(tmp_path, text)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("- tile: 202a\n- tile: 205a\n", "a list"),
        ('[{"tile": "202a"}]', "a list"),
        ("just some words\n", "a string"),
        ("42\n", "a number"),
    ],
)
def test_top_level_not_a_mapping(tmp_path: Path, text: str, found: str) -> None:
    message = refused_text(tmp_path, text)
    assert "top level must be a mapping" in message and found in message


def test_deeply_nested_input(tmp_path: Path) -> None:
    assert "stage.json" in refused_text(tmp_path, "[" * 100_000, "stage.json")
    assert "not valid YAML" in refused_text(tmp_path, "a: " + "[" * 100_000 + "\n")


@pytest.mark.parametrize("name", ["stage.yaml", "stage.json"])
def test_nesting_beyond_the_depth_limit_is_refused_with_the_limit(
    tmp_path: Path, name: str
) -> None:
    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    if name.endswith(".yaml"):
        text = f"format: trackkit-stage/1\ntiles: []\nname: {deep}\n"
    else:
        text = f'{{"format": "trackkit-stage/1", "tiles": [], "name": {deep}}}'
    message = refused_text(tmp_path, text, name)
    assert f"nested more than {MAX_DEPTH} levels deep" in message
    if name.endswith(".yaml"):
        assert f"(line 3, column {6 + MAX_DEPTH})" in message  # the mapping is level 1


# --- values PyYAML turns into Python objects -------------------------------------------


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("!!int abc", "an integer"),
        ("!!int 0x", "an integer"),
        ("!!int 0b2", "an integer"),
        ("!!int", "an integer"),
        ("9" * 5000, "an integer"),
        ("!!float xyz", "a number"),
        ("!!bool maybe", "true or false"),
    ],
)
def test_values_python_cannot_convert_are_bad_values_at_their_line(
    tmp_path: Path, value: str, what: str
) -> None:
    text = GOOD_HEAD + f"tiles:\n  - tile: 202a\n  - tile: 205a\n    dir: {value}\n"
    message = refused_text(tmp_path, text)
    assert "tiles[1].dir: " in message and f"is not {what}" in message
    assert "(line 6, column 10)" in message
    assert "quote it" in message


@pytest.mark.parametrize(
    ("written", "name"),
    [
        ("2020-01-01 00:00:00 +99:00", "2020-01-01 00:00:00 +99:00"),
        ("2020-02-30", "2020-02-30"),
        ("2020-13-01", "2020-13-01"),
        ("2020-01-01", "2020-01-01"),
        ("!!timestamp soon", "soon"),
    ],
)
def test_dates_and_times_stay_the_text_they_are_written_as(
    tmp_path: Path, written: str, name: str
) -> None:
    path = tmp_path / "dated.yaml"
    path.write_text(f"format: trackkit-stage/1\nname: {written}\ntiles: []\n", encoding="utf-8")
    assert load_stage(path).name == name


def test_a_date_where_a_number_belongs_is_a_wrong_type_at_its_line(tmp_path: Path) -> None:
    message = refused_text(tmp_path, GOOD_HEAD + "tiles:\n  - {tile: 202a, dir: 2020-02-30}\n")
    assert "tiles[0].dir" in message and "(line 4)" in message


# --- format -----------------------------------------------------------------------------


def test_unknown_format_lists_the_accepted_ones(tmp_path: Path) -> None:
    message = refused_text(tmp_path, "title: My stage\npieces: [1, 2]\n")
    assert "unknown format" in message
    for accepted in ("trackkit-stage/1", "Rekee", ".rgt"):
        assert accepted in message


def test_unknown_format_marker(tmp_path: Path) -> None:
    message = refused_text(tmp_path, "format: gpx\ntiles: []\n")
    assert "unknown format 'gpx'" in message


def test_newer_format_version(tmp_path: Path) -> None:
    message = refused_text(tmp_path, "format: trackkit-stage/2\ntiles: []\n")
    assert "trackkit-stage/2" in message and "trackkit-stage/1" in message


def test_native_stage_without_format_key(tmp_path: Path) -> None:
    message = refused_text(tmp_path, "name: x\ntiles:\n  - tile: 202a\n")
    assert "format: trackkit-stage/1" in message


# --- types and keys ---------------------------------------------------------------------


def test_tiles_not_a_list(tmp_path: Path) -> None:
    message = refused_text(tmp_path, GOOD_HEAD + "tiles: 5\n")
    assert "tiles: Input should be a valid list, got 5 (line 3)" in message


def test_wrong_turn_names_path_value_and_line(tmp_path: Path) -> None:
    text = GOOD_HEAD + (
        "tiles:\n"  # 3
        "  - tile: 202a\n"  # 4
        "  - tile: 205a\n"  # 5
        "  - tile: 206a\n"  # 6
        "  - tile: 217a\n"  # 7
        "    turn: sideways\n"  # 8
    )
    message = refused_text(tmp_path, text)
    assert "tiles[3].turn: Input should be 'left' or 'right'" in message
    assert "'sideways'" in message
    assert message.endswith("(line 8)")


def test_wrong_types_in_json_name_the_line(tmp_path: Path) -> None:
    text = '{\n"format": "trackkit-stage/1",\n"tiles": [\n{"tile": "202a", "dir": "north"}\n]}'
    message = refused_text(tmp_path, text, "stage.json")
    assert "tiles[0].dir" in message and "(line 4)" in message


def test_unknown_key_names_the_key_and_its_line(tmp_path: Path) -> None:
    text = GOOD_HEAD + (
        "tiles:\n"  # 3
        "  - tile: 202a\n"  # 4
        "  - tile: 205a\n"  # 5
        "  - tile: 217a\n"  # 6
        "    trun: left\n"  # 7
    )
    message = refused_text(tmp_path, text)
    assert "tiles[2]: unknown key 'trun'" in message
    assert "did you mean 'turn'" in message
    assert "(line 7)" in message


def test_unknown_top_level_key(tmp_path: Path) -> None:
    message = refused_text(tmp_path, "format: trackkit-stage/1\nnmae: X\ntiles: []\n")
    assert "unknown key 'nmae'" in message and "(line 2)" in message


def test_several_problems_are_listed_one_per_line(tmp_path: Path) -> None:
    text = GOOD_HEAD + (
        "kind: sprint\n"  # 3
        "tiles:\n"  # 4
        "  - tile: 202a\n"  # 5
        "    dir: 9\n"  # 6
        "  - tle: 205a\n"  # 7
    )
    lines = refused_text(tmp_path, text).splitlines()
    assert "problems" in lines[0]
    body = "\n".join(lines[1:])
    assert (
        "kind: Input should be 'rally', 'hillclimb', 'circuit' or 'point-to-point', "
        "got 'sprint' (line 3)"
    ) in body
    assert "tiles[0].dir: Input should be less than or equal to 5, got 9 (line 6)" in body
    assert "tiles[1]: missing key 'tile' (line 7)" in body
    assert "tiles[1]: unknown key 'tle'" in body


def test_model_rule_errors_name_the_tile(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles:\n  - tile: 202a\n    turn: left\n    enter: 0\n"
    message = refused_text(tmp_path, text)
    assert "tiles[0]: give only one of turn, climb, enter" in message
    assert "(line 4)" in message


def test_driven_false_without_a_position_names_the_tile_and_line(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles:\n  - tile: 202a\n  - tile: 205a\n    driven: false\n"
    message = refused_text(tmp_path, text)
    assert "tiles[1]" in message and "'driven: false' needs 'at' and 'dir'" in message
    assert "(line 5)" in message


def test_driven_is_true_or_false_only(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles:\n  - {tile: 205a, at: [0, 0], dir: 0, driven: 'no'}\n"
    message = refused_text(tmp_path, text)
    assert "tiles[0].driven" in message and "(line 4)" in message


def test_key_given_twice(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles:\n  - tile: 202a\n  - tile: 205a\n    tile: 206a\n"
    message = refused_text(tmp_path, text)
    assert "tiles[1]: key 'tile' is given twice (lines 5 and 6)" in message
    json_text = '{"format": "trackkit-stage/1", "tiles": [], "tiles": []}'
    assert "given twice" in refused_text(tmp_path, json_text, "twice.json")


def test_bad_rekee_tile(tmp_path: Path) -> None:
    text = '{"title": "x",\n "tiles": [\n  {"q": 0, "r": "a", "id": "202a", "dir": 0}]}'
    message = refused_text(tmp_path, text, "stage.json")
    assert "Rekee file" in message and "tiles[0].r" in message and "(line 3)" in message


def test_bad_rgt_tile(tmp_path: Path) -> None:
    text = '{"Name": "x", "Tuiles": [{"X": 1, "Y": 2, "Orientation": 0, "TuileId": "  "}]}'
    message = refused_text(tmp_path, text, "stage.rgt")
    assert ".rgt file" in message and "Tuiles[0].TuileId" in message


# --- size and hostile content -----------------------------------------------------------


def _timed_refusal(tmp_path: Path, text: str, name: str) -> str:
    started = time.perf_counter()
    message = refused_text(tmp_path, text, name)
    assert time.perf_counter() - started < 5.0
    return message


def test_ten_thousand_tiles_native(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles:\n" + "  - tile: 205a\n" * 10_000
    message = _timed_refusal(tmp_path, text, "long.yaml")
    assert f"at most {MAX_STAGE_TILES}" in message and "10000" in message


def test_the_largest_allowed_stage_still_loads(tmp_path: Path) -> None:
    tile = (
        "  - tile: 418b\n    climb: up\n    at: [{i}, 0]\n    dir: 0\n    tokens: [{{token: "
        "oxygen, value: 2}}, {{token: cloud}}, {{token: climb, value: -1}}]\n"
    )
    path = tmp_path / "max.yaml"
    text = GOOD_HEAD + "tiles:\n" + "".join(tile.format(i=i) for i in range(MAX_STAGE_TILES))
    path.write_text(text, encoding="utf-8")
    stage = load_stage(path)
    assert len(stage.tiles) == MAX_STAGE_TILES
    assert stage.tiles[-1].at == (MAX_STAGE_TILES - 1, 0)


def test_far_too_many_yaml_values_are_refused_before_building(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles:\n" + "  - {tile: 205a, dir: 0}\n" * 100_000
    message = _timed_refusal(tmp_path, text, "longer.yaml")
    assert "too many values" in message


def test_ten_thousand_tiles_rekee(tmp_path: Path) -> None:
    tiles = [{"q": i, "r": 0, "id": "205a", "dir": 0} for i in range(10_000)]
    message = _timed_refusal(tmp_path, json.dumps({"title": "x", "tiles": tiles}), "l.json")
    assert f"at most {MAX_STAGE_TILES}" in message


def test_ten_thousand_tiles_rgt(tmp_path: Path) -> None:
    tiles = [{"X": i, "Y": 0, "Orientation": 0, "TuileId": "205A"} for i in range(10_000)]
    message = _timed_refusal(tmp_path, json.dumps({"Name": "x", "Tuiles": tiles}), "l.rgt")
    assert f"at most {MAX_STAGE_TILES}" in message


def test_absurd_coordinates(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles:\n  - {tile: 202a, at: [10000000000000, 0], dir: 0}\n"
    assert "out of range" in refused_text(tmp_path, text)
    rekee = '{"tiles": [{"q": 99999999999999999999, "r": 0, "id": "202a", "dir": 0}]}'
    assert "tiles[0].q" in refused_text(tmp_path, rekee, "far.json")


def test_yaml_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    text = "format: trackkit-stage/1\ntiles: *a9\n" + "\n".join(lines) + "\n"
    message = _timed_refusal(tmp_path, text, "bomb.yaml")
    assert "alias" in message


def test_recursive_yaml_alias(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles: &loop [*loop]\n"
    assert "alias" in refused_text(tmp_path, text)


def test_a_few_aliases_are_fine(tmp_path: Path) -> None:
    text = GOOD_HEAD + (
        "tiles:\n"
        "  - tile: 202a\n"
        "  - {tile: 418b, climb: up, tokens: &oxy [{token: oxygen, value: 2}]}\n"
        "  - {tile: 418a, climb: up, tokens: *oxy}\n"
    )
    path = tmp_path / "ok.yaml"
    path.write_text(text, encoding="utf-8")
    stage = load_stage(path)
    assert stage.tiles[1].tokens == stage.tiles[2].tokens


def test_unsafe_yaml_tags_are_refused(tmp_path: Path) -> None:
    text = GOOD_HEAD + "tiles: !!python/object/apply:os.system ['echo hacked']\n"
    assert "not valid YAML" in refused_text(tmp_path, text)


HOSTILE = "<script>alert(\"x\")</script> & 'quotes' \u202e ${HOME} {{x}} %s \\n"


@pytest.mark.parametrize("fmt", ["native-yaml", "native-json", "rekee", "rgt"])
def test_names_full_of_markup_are_kept_verbatim(tmp_path: Path, fmt: str) -> None:
    stage = Stage.model_validate(
        {
            "format": "trackkit-stage/1",
            "name": HOSTILE,
            "author": "O'Brien & <b>Sons</b>",
            "tiles": [{"tile": "202a"}, {"tile": "205a"}],
        }
    )
    text = dump_stage(stage, fmt)  # type: ignore[arg-type]
    path = tmp_path / f"hostile.{fmt}"
    path.write_text(text, encoding="utf-8")
    again = load_stage(path)
    assert again.name == HOSTILE
    assert again.author == "O'Brien & <b>Sons</b>"


def test_markup_in_a_hand_written_yaml_name(tmp_path: Path) -> None:
    path = tmp_path / "hand.yaml"
    text = "format: trackkit-stage/1\nname: '<script>&\"''</script>'\ntiles: []\n"
    path.write_text(text, encoding="utf-8")
    assert load_stage(path).name == "<script>&\"'</script>"


# --- nothing but InputError, whatever the text ------------------------------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    *("format", "tiles", "tile", "turn", "at", "dir", "q", "r", "id", "Tuiles"),
                    *("X", "Y", "TuileId", "tokens", "token", "value", "title", "name", "enter"),
                    "driven",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_any_text_gives_a_stage_or_an_input_error(text: str) -> None:
    try:
        parse_stage(text, file="fuzz.yaml")
    except InputError as exc:
        assert str(exc).startswith("fuzz.yaml: ")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json_values, st.sampled_from([None, "trackkit-stage/1"]))
def test_any_json_gives_a_stage_or_an_input_error(value: object, fmt: str | None) -> None:
    if isinstance(value, dict) and fmt is not None:
        value = {"format": fmt, **value}
    try:
        stage = parse_stage(json.dumps(value), file="fuzz.json")
    except InputError as exc:
        assert str(exc).startswith("fuzz.json: ")
    else:
        validate(stage)  # a stage that reads is checked without raising
