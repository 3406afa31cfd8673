"""Car files (``format: trackkit-car/1``): reading, the board checks of DASH-3/DASH-4 with
the place of each problem, dashboards made from them, the schema and the shipped examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trackkit.checks.pipeline import validate
from trackkit.errors import InputError
from trackkit.formats import load_stage
from trackkit.models.car import CarFile
from trackkit.rules.cars import (
    car_dashboard,
    car_file,
    car_problems,
    dump_car,
    load_car,
    parse_car,
    stage_problems,
    unlimited_board,
)
from trackkit.rules.dashboard import UnlimitedDashboard, check_unlimited
from trackkit.rules.track import Track
from trackkit.schema import schemas

REPO = Path(__file__).resolve().parents[1]
CARS = REPO / "examples" / "cars"
GEARS = "gear-1, gear-2, gear-3, gear-4, gear-5, gear-6"


def car_text(top: str, *, right: str = "[]", middle: str = "[]", left: str = f"[{GEARS}]") -> str:
    return (
        "format: trackkit-car/1\n"
        "name: Test car\n"
        "unlimited:\n"
        f"  top: {top}\n"
        f"  right: {right}\n"
        f"  middle: {middle}\n"
        f"  left: {left}\n"
    )


def problem_of(text: str) -> str:
    with pytest.raises(InputError) as info:
        parse_car(text, file="car.yaml")
    assert info.value.file == "car.yaml"
    return info.value.message


def pikes_surfaces() -> set[str]:
    report = validate(load_stage(REPO / "examples" / "hillclimb-pikes.yaml"))
    return {i.surface for i in Track.from_graph(report.graph, report.layout).spaces.values()}


# --- the shipped examples ------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(CARS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_car_reads_and_fits_the_shipped_hillclimb(path: Path) -> None:
    car = load_car(path)
    assert car_problems(car, pikes_surfaces()) == []
    assert stage_problems(car, pikes_surfaces()) is None
    board = car_dashboard(car)
    assert board.name == car.name and board.column("asphalt").gears


def test_the_asphalt_car_columns_follow_its_top_row():
    # rule: DASH-3 (right column: the right token's surface only), DASH-4 (2 empty: limit 3)
    car = load_car(CARS / "pikes-asphalt-attack.yaml")
    board = unlimited_board(car)
    assert board.surfaces == ("snow", "asphalt") and board.empty_spaces() == 2
    asphalt, snow = board.column("asphalt"), board.column("snow")
    assert (asphalt.boost, asphalt.coast, asphalt.danger_limit) == (2, 3, 3)
    assert (snow.boost, snow.coast, snow.danger_limit) == (1, 2, 3)
    dash = car_dashboard(car)
    assert dash.sisu == {"asphalt", "snow"} and dash.leader_surfaces == {"gravel"}


def test_a_fixed_car_file_is_its_columns():
    # rule: DASH-1
    car = load_car(CARS / "gravel-r5-plus.yaml")
    board = car_dashboard(car)
    assert board.column("gravel").coast == 3 and board.column("snow").danger_limit == 2
    assert board.unlimited is None and not board.sisu
    assert stage_problems(car, {"snow"}) is None  # a fixed car fits every stage


# --- impossible layouts: exit 2 with the file, the space and the line ----------------------


def test_track_type_tokens_fill_the_top_row_from_the_right():
    # rule: DASH-3
    message = problem_of(car_text("[snow, null, asphalt]"))
    assert message.startswith("unlimited.top[0] (top row, left space), line 4:")
    assert "DASH-3" in message
    assert problem_of(car_text("[gravel, null, null]")).startswith("unlimited.top[0]")
    ok = parse_car(car_text("[coast, snow, asphalt]"), file="car.yaml")
    assert unlimited_board(ok).top == ("coast",)  # a free top space holds equipment


def test_each_problem_names_its_space_and_line():
    # rule: DASH-4 (one die per gear value; DEFAULT: one SISU token, one pair of tyres)
    text = car_text(
        "[null, snow, asphalt]",
        right="[gear-2, boost]",
        left="[gear-1, gear-2, sisu, coast, sisu, tyres, tyres]",
    )
    lines = problem_of(text).splitlines()
    assert lines[0] == "3 problems:"
    assert lines[1].strip().startswith("unlimited.left[1] (left region, space 2 of 10), line 7")
    assert "gear-2" in lines[1]
    assert lines[2].strip().startswith("unlimited.left[4] (left region, space 5 of 10), line 7")
    assert lines[3].strip().startswith("unlimited.left[6] (left region, space 7 of 10), line 7")


def test_gaps_are_empty_spaces_and_the_nth_token_is_found_past_them():
    text = car_text("[null, null, snow]", left="[gear-1, null, gear-2, null, gear-2]")
    assert problem_of(text).startswith("unlimited.left[4] (left region, space 5 of 10)")
    board = unlimited_board(
        parse_car(car_text("[null, null, snow]", left="[gear-1, null]"), file="c")
    )
    assert board.left == ("gear-1",) and board.danger_limit() == 1 + 17 - 2


def test_a_surface_without_a_gear_die_is_refused_at_its_token():
    # rule: DASH-3 (the left token's surface reaches neither column: no gear there)
    text = car_text("[null, snow, asphalt]", right="[gear-1, gear-2]", left="[coast]")
    assert problem_of(text).startswith("unlimited.top[1] (top row, middle space), line 4:")


def test_types_sizes_and_keys_are_checked_with_lines():
    too_many = problem_of(car_text("[null, null, snow]", right="[gear-1, coast, brake]"))
    assert "unlimited.right: too many items: 3, at most 2 allowed (line 5)" in too_many
    unknown = problem_of(car_text("[null, null, snow]", left="[gear-1, gearr-2]"))
    assert "unlimited.left[1]" in unknown and "'gearr-2'" in unknown and "(line 7)" in unknown
    stray = problem_of(car_text("[null, null, snow]", left="[snow, gear-1]"))
    assert stray.startswith("unlimited.left[0]")  # a track-type token is not equipment
    both = problem_of(
        "format: trackkit-car/1\nname: x\nfixed: {gravel: {gears: [1], brake: 0, coast: 0, "
        "boost: 0, danger_limit: 1}, asphalt: {gears: [1], brake: 0, coast: 0, boost: 0, "
        "danger_limit: 1}, snow: {gears: [1, 1], brake: 0, coast: 0, boost: 0, danger_limit: 1}}\n"
    )
    assert "fixed.snow.gears" in both and "twice" in both
    assert "exactly one dashboard" in problem_of("format: trackkit-car/1\nname: x\n")
    assert "not a car file" in problem_of("format: trackkit-stage/1\ntiles: []\n")
    assert "needs 'format: trackkit-car/1'" in problem_of("name: x\n")


def test_unusable_files_are_input_errors(tmp_path: Path):
    with pytest.raises(InputError, match="no such file"):
        load_car(tmp_path / "missing.yaml")
    folder = tmp_path / "d.yaml"
    folder.mkdir()
    with pytest.raises(InputError):
        load_car(folder)
    binary = tmp_path / "b.yaml"
    binary.write_bytes(b"\x00\x01")
    with pytest.raises(InputError, match="binary"):
        load_car(binary)


def test_a_board_for_other_surfaces_does_not_fit_the_stage():
    # rule: DASH-3 (one track-type token per surface the stage has)
    car = parse_car(car_text("[null, null, snow]"), file="c")
    problem = stage_problems(car, pikes_surfaces())
    assert problem is not None and problem.startswith("unlimited.top (top row): ")
    assert "asphalt, snow" in problem
    board = unlimited_board(car)
    assert check_unlimited(board, {"snow"}) == []


# --- writing, schema ---------------------------------------------------------------------


def test_a_board_written_as_a_car_file_reads_back_the_same():
    board = UnlimitedDashboard(
        ("asphalt", "snow"),
        top=("sisu",),
        right=("boost",),
        middle=("coast", "brake"),
        left=tuple(GEARS.split(", ")),
    )
    car = car_file(board, "Written", "for a test")
    text = dump_car(car)
    again = parse_car(text, file="w.yaml")
    assert again == car and unlimited_board(again) == board
    fixed = load_car(CARS / "gravel-r5-plus.yaml")
    assert parse_car(dump_car(fixed), file="f.yaml") == fixed


@pytest.mark.parametrize("odd", ["\x85", "a\u2028b", "é\u2029", "'quoted' and: colon"])
def test_names_holding_what_yaml_reads_as_line_breaks_read_back_the_same(odd: str):
    """YAML reads U+0085, U+2028 and U+2029 as line breaks: the writers quote them."""
    from trackkit.formats import parse_stage
    from trackkit.formats.write import dump_stage
    from trackkit.models.stage import Stage

    board = UnlimitedDashboard(("snow",), left=tuple(GEARS.split(", ")))
    car = car_file(board, f"car {odd}", f"about {odd}")
    assert parse_car(dump_car(car), file="w.yaml") == car
    stage = Stage.model_validate(
        {"format": "trackkit-stage/1", "name": odd, "tiles": [{"tile": "202a"}]}
    )
    assert parse_stage(dump_stage(stage, "native-yaml"), file="s.yaml") == stage


def test_car_schema_forbids_unknown_keys_and_documents_every_field():
    schema = json.loads(schemas()["trackkit-car.schema.json"])
    assert schema["additionalProperties"] is False
    assert schema["properties"]["format"]["const"] == "trackkit-car/1"
    for name, model in [("CarFile", schema), *schema["$defs"].items()]:
        assert model.get("additionalProperties") is False, name
        assert all("description" in p for p in model["properties"].values()), name
    tokens = schema["$defs"]["UnlimitedLayout"]["properties"]["left"]["items"]["anyOf"][0]
    assert "gear-6" in tokens["enum"] and "sisu" in tokens["enum"]


def test_car_file_model_round_trips_through_json():
    car = load_car(CARS / "pikes-snow-safe.yaml")
    assert CarFile.model_validate_json(car.model_dump_json()) == car
