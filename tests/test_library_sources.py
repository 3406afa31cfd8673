"""The shipped tile library, face by face, against both fact sources in ``tile_library/sources``.

The sources are read fresh here (``tile-facts.csv`` and ``space-layouts/*.yaml``), with
parsing of their own, so a wrong value in ``tile_library/`` fails even if the generator
``scripts/build_tile_library.py`` had the same bug. A last test rebuilds the library into a
temporary folder and compares it byte for byte with the committed files. The GT faces'
lane layouts are checked against ``gt-space-layouts/`` in ``test_library_gt_sources.py``.
"""

from __future__ import annotations

import csv
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from stagekit import read_yaml

from trackkit.models.tile import (
    ChicaneSection,
    CornerSection,
    Road,
    SlideSection,
    StraightSection,
    TileFace,
)
from trackkit.tiles.library import TileLibrary

REPO = Path(__file__).resolve().parents[1]
LIBRARY_DIR = REPO / "tile_library"
SOURCES = LIBRARY_DIR / "sources"
SCRIPT = REPO / "scripts" / "build_tile_library.py"


def _ids(numbers: Iterable[int]) -> set[str]:
    return {f"{n}{side}" for n in numbers for side in "ab"}


EXPECTED_BOXES: dict[str, set[str]] = {
    "dirt-core": _ids(range(201, 233)),
    "dirt-monte-carlo": _ids(range(301, 325)),
    "dirt-climb": _ids((325, 326, 418, 419)),
    "dirt-copilot": _ids(range(902, 906)),
    "gt-core": {"101"} | _ids(range(102, 121)),
    "gt-championship": _ids(range(121, 131)),
    "gt-world-tour": _ids(range(131, 139)),
    "gt-team-challenge": _ids(range(139, 151)),
    "gt-adrenaline": _ids((*range(151, 155), 901)),
}
EXPECTED_IDS: set[str] = set().union(*EXPECTED_BOXES.values())
CSV_BOX_IDS = {"dirt-monte-carlo/110%": "dirt-monte-carlo"}
SERVICE_IDS = _ids((201,))
SCENERY_IDS = _ids(range(901, 906))
PIT_IDS = {"101"}
GT_ROAD_IDS = _ids(range(102, 155))
#: DIRT faces whose road is described by sections (the GT faces' roads are in ``layout``).
ROAD_IDS = sorted(EXPECTED_IDS - SERVICE_IDS - SCENERY_IDS - PIT_IDS - GT_ROAD_IDS)
ALL_IDS = sorted(EXPECTED_IDS)
# 64 core + 48 Monte-Carlo + 8 Climb + 8 Copilot + 2 GT Adrenaline fillers + 107 GT faces
EXPECTED_FACE_COUNT = 237
#: tile-facts.csv's README erratum: one copy in Championship, one in World Tour.
COPY_ERRATA = {122, 124, 125}

# The one documented exception to "sections follow the layout" (see 215b's sources).
DECIDED_SECTIONS = {("215b", 3): {"kind": "straight", "rows": 1, "lanes": 1}}


# ------------------------------------------------------------------ the sources


def _read_csv() -> dict[str, dict[str, str]]:
    with (SOURCES / "tile-facts.csv").open(encoding="utf-8", newline="") as fh:
        return {row["tile"].lower(): row for row in csv.DictReader(fh)}


def _read_layouts() -> dict[str, dict[str, Any]]:
    layouts: dict[str, dict[str, Any]] = {}
    for path in sorted((SOURCES / "space-layouts").glob("*.yaml")):
        for entry in read_yaml(path):
            layouts[str(entry["face"]).lower()] = entry
    return layouts


CSV = _read_csv()
LAYOUTS = _read_layouts()
LIBRARY = TileLibrary.load(LIBRARY_DIR)


def _face(face_id: str) -> TileFace:
    face = LIBRARY.get(face_id)
    assert face is not None, f"{face_id} is missing from the library"
    return face


def _road(face_id: str) -> Road:
    road = _face(face_id).road
    assert road is not None, f"{face_id} has no through road"
    return road


def _csv_links(face_id: str) -> dict[tuple[int, int], str]:
    links: dict[tuple[int, int], str] = {}
    for token in CSV[face_id]["roads"].split():
        edges, _, kind = token.partition(":")
        start, _, end = edges.partition(">")
        links[(int(start), int(end))] = kind
    return links


def _csv_lanes(face_id: str) -> dict[int, int]:
    pairs = (token.split(":") for token in CSV[face_id]["lanes"].split())
    # GT edges may carry a skew hand after the count: `2:3skewL`
    return {int(edge): int(count.rstrip("skewLR")) for edge, count in pairs}


def _csv_int(face_id: str, column: str) -> int | None:
    text = CSV[face_id][column].strip()
    return int(text) if text else None


def _layout_list(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _touches(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    before, after = text.split("..")
    ref = re.compile(r"section (\d+) row (\d+)")
    return (
        [(int(s), int(r)) for s, r in ref.findall(before)],
        [(int(s), int(r)) for s, r in ref.findall(after)],
    )


def _layout_sections(face_id: str) -> list[dict[str, Any]]:
    return list(LAYOUTS[face_id]["sections"])


def _library_limits(road: Road) -> list[int]:
    limits: list[int] = []
    for section in road.sections:
        if isinstance(section, CornerSection):
            limits += [section.inner.limit, section.outer.limit]
        elif isinstance(section, ChicaneSection):
            limits.append(section.limit)
    return limits


# ------------------------------------------------------------ the set of faces


def test_library_holds_exactly_the_expected_faces() -> None:
    assert set(LIBRARY.faces) == EXPECTED_IDS
    assert len(LIBRARY) == EXPECTED_FACE_COUNT


def test_each_box_file_holds_exactly_its_faces() -> None:
    assert set(LIBRARY.boxes()) == set(EXPECTED_BOXES)
    for box, ids in EXPECTED_BOXES.items():
        assert (LIBRARY_DIR / f"{box}.yaml").is_file(), f"tile_library/{box}.yaml is missing"
        assert {f.id for f in LIBRARY.tilesets[box].faces} == ids, box


def test_box_titles() -> None:
    titles = {box: ts.title for box, ts in LIBRARY.tilesets.items()}
    assert titles == {
        "dirt-core": "Rallyman: DIRT (core box)",
        "dirt-monte-carlo": "Rallyman: DIRT – Monte-Carlo / 110% expansion",
        "dirt-climb": "Rallyman: DIRT – The Climb",
        "dirt-copilot": "Rallyman: DIRT – Copilot (scenery fillers)",
        "gt-core": "Rallyman: GT (core box)",
        "gt-championship": "Rallyman: GT – Championship",
        "gt-world-tour": "Rallyman: GT – World Tour",
        "gt-team-challenge": "Rallyman: GT – Team Challenge",
        "gt-adrenaline": "Rallyman: GT – Adrenaline",
    }


def test_space_layouts_cover_exactly_the_road_and_service_faces() -> None:
    assert set(LAYOUTS) == set(ROAD_IDS) | SERVICE_IDS


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_dirt_faces_have_no_lane_layout_or_skews(face_id: str) -> None:
    face = _face(face_id)
    assert face.layout is None and face.skews == {} and face.series == "dirt"


# ------------------------------------------------------------- against the csv


@pytest.mark.parametrize("face_id", ALL_IDS)
def test_face_number_side_series_box_copies_match_csv(face_id: str) -> None:
    face, row = _face(face_id), CSV[face_id]
    assert face.number == int(row["number"])
    assert face.face == row["face"]
    assert face.series == row["series"]
    assert face.box == CSV_BOX_IDS.get(row["box"], row["box"])
    if face.number in COPY_ERRATA:
        assert (row["box"], row["copies"]) == ("gt-championship", "2"), "the csv changed"
        assert (face.copies, face.also_in) == (1, {"gt-world-tour": 1})
        assert "erratum" in face.sources
    else:
        assert face.copies == int(row["copies"])
        assert face.also_in == {}


@pytest.mark.parametrize("face_id", ALL_IDS)
def test_face_surface_and_danger_match_csv(face_id: str) -> None:
    face, row = _face(face_id), CSV[face_id]
    assert face.surface.value == row["terrain"]
    assert face.danger.value == row["danger"]


@pytest.mark.parametrize("face_id", ALL_IDS)
def test_face_kind_service_scenery_or_road(face_id: str) -> None:
    expected = (
        "service"
        if face_id in SERVICE_IDS
        else "scenery"
        if face_id in SCENERY_IDS
        else "pit"
        if face_id in PIT_IDS
        else "road"
    )
    assert _face(face_id).kind.value == expected


@pytest.mark.parametrize("face_id", ALL_IDS)
def test_face_lanes_match_csv(face_id: str) -> None:
    assert _face(face_id).lanes == _csv_lanes(face_id)


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_road_edges_are_the_csv_links(face_id: str) -> None:
    road = _road(face_id)
    assert set(_csv_links(face_id)) == {
        (road.from_edge, road.to_edge),
        (road.to_edge, road.from_edge),
    }


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_csv_road_kinds_fit_the_library_road_edges(face_id: str) -> None:
    # Entering at edge E the car heads towards edge E+3; edges run clockwise, so each step
    # clockwise from there to the exit edge is a 60° right turn.
    fitting = {
        0: {"straight", "left0", "right0"},
        1: {"right1"},
        2: {"right2"},
        4: {"left2"},
        5: {"left1"},
    }
    for (start, end), kind in _csv_links(face_id).items():
        assert kind in fitting[(end - start - 3) % 6], f"{start}>{end}:{kind}"


def test_service_area_is_a_dead_end_at_the_csv_edge() -> None:
    for face_id in sorted(SERVICE_IDS):
        face = _face(face_id)
        assert set(_csv_links(face_id)) == {(3, 3)}
        assert [(r.from_edge, r.to_edge, r.shape.value, r.sections) for r in face.roads] == [
            (3, 3, "dead-end", [])
        ]
        assert face.road is None


def test_scenery_fillers_have_no_road() -> None:
    for face_id in sorted(SCENERY_IDS):
        assert _face(face_id).roads == []
        assert CSV[face_id]["roads"] == ""


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_road_shape_matches_csv_kind_and_layout_corners(face_id: str) -> None:
    road = _road(face_id)
    kind = _csv_links(face_id)[(road.from_edge, road.to_edge)]
    corners = [s for s in road.sections if isinstance(s, CornerSection | ChicaneSection)]
    if kind == "straight":
        expected = "straight"
    elif kind in ("left1", "right1"):
        expected = "bend"
    elif kind in ("left2", "right2"):
        expected = "hairpin"
    elif any(isinstance(s, ChicaneSection) for s in corners):
        expected = "chicane"
    else:
        expected = "double-hairpin" if len(corners) == 2 else "kink"
    assert road.shape.value == expected


BEND_IDS = [  # left0/right0 and straight labels say nothing reliable about turns
    f
    for f in ROAD_IDS
    if CSV[f]["roads"].split()[0].split(":")[1] in ("left1", "right1", "left2", "right2")
]


@pytest.mark.parametrize("face_id", BEND_IDS)
def test_corner_turns_match_csv_bend_direction(face_id: str) -> None:
    road = _road(face_id)
    kind = _csv_links(face_id)[(road.from_edge, road.to_edge)]
    for section in road.sections:
        assert isinstance(section, CornerSection | StraightSection | SlideSection)
        if isinstance(section, CornerSection):
            assert kind.startswith(section.turn.value)


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_corner_limits_match_csv(face_id: str) -> None:
    text = CSV[face_id]["corner_limits"].strip()
    expected = [int(v) for v in text.split("/")] if text else []
    road = _road(face_id)
    assert sorted(set(_library_limits(road))) == expected
    corners = [s for s in road.sections if isinstance(s, CornerSection)]
    if len(corners) == 1 and len(expected) == 2:  # `1/2` = inner 1, outer 2
        assert [corners[0].inner.limit, corners[0].outer.limit] == expected


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_shortcut_limit_matches_csv(face_id: str) -> None:
    expected = _csv_int(face_id, "shortcut_limit")
    limits = [s.limit for s in _road(face_id).shortcuts]
    if expected is None:
        assert limits == []
    else:
        assert limits, "the csv has a shortcut"
        assert set(limits) == {expected}


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_jump_value_matches_csv(face_id: str) -> None:
    expected = _csv_int(face_id, "jump")
    assert [j.value for j in _road(face_id).jumps] == ([] if expected is None else [expected])


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_ford_presence_matches_csv(face_id: str) -> None:
    assert bool(_road(face_id).fords) == (CSV[face_id]["water"] == "yes")


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_climb_presence_matches_csv(face_id: str) -> None:
    assert (_road(face_id).climb is not None) == (CSV[face_id]["climb"] == "yes")


# ---------------------------------------------------------- against the layouts


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_road_from_to_match_layout(face_id: str) -> None:
    road = _road(face_id)
    assert (road.from_edge, road.to_edge) == (LAYOUTS[face_id]["from"], LAYOUTS[face_id]["to"])


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_sections_match_layout_kinds_rows_lanes(face_id: str) -> None:
    road = _road(face_id)
    layout = _layout_sections(face_id)
    assert len(road.sections) == len(layout)
    for index, (ours, theirs) in enumerate(zip(road.sections, layout, strict=True), start=1):
        decided = DECIDED_SECTIONS.get((face_id, index))
        if decided is not None:
            assert theirs == {"kind": "straight", "rows": 1}, "the layout changed: revisit"
            theirs = decided
        if theirs["kind"] == "straight":
            assert isinstance(ours, StraightSection), index
            assert (ours.rows, ours.lanes) == (theirs["rows"], theirs.get("lanes", 2)), index
        elif theirs["kind"] == "slide":
            assert isinstance(ours, SlideSection), index
            assert ours.rows == theirs["rows"], index
        else:
            assert theirs["kind"] == "corner"
            assert isinstance(ours, CornerSection | ChicaneSection), index


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_corners_match_layout_turn_spaces_limits(face_id: str) -> None:
    road = _road(face_id)
    for index, (ours, theirs) in enumerate(
        zip(road.sections, _layout_sections(face_id), strict=True), start=1
    ):
        if theirs["kind"] != "corner":
            continue
        if theirs["turn"] == "chicane":
            assert isinstance(ours, ChicaneSection), index
            assert theirs["inner"] is None and theirs["outer"] is None
            both = theirs["both_lanes"]
            assert (ours.spaces, ours.limit) == (both["spaces"], both["limit"]), index
        else:
            assert isinstance(ours, CornerSection), index
            assert ours.turn.value == theirs["turn"], index
            for lane in ("inner", "outer"):
                got = getattr(ours, lane)
                want = theirs[lane]
                assert (got.spaces, got.limit) == (want["spaces"], want["limit"]), (index, lane)


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_shortcuts_match_layout_count_limits_rows(face_id: str) -> None:
    ours = _road(face_id).shortcuts
    theirs = _layout_list(LAYOUTS[face_id]["shortcut"])
    assert len(ours) == len(theirs)
    for got, want in zip(ours, theirs, strict=True):
        assert got.limit == want["limit"]
        assert got.spaces == want.get("spaces", 1)
        entry, exit_ = _touches(want["touches"])
        assert [(r.section, r.row) for r in got.entry] == entry
        assert [(r.section, r.row) for r in got.exit] == exit_


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_jumps_match_layout_row_value_chevron(face_id: str) -> None:
    ours = [(j.section, j.row, j.value, j.chevron) for j in _road(face_id).jumps]
    theirs = [
        (j["section"], j["row"], j["value"], j["chevron"])
        for j in _layout_list(LAYOUTS[face_id]["jump"])
    ]
    assert ours == theirs


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_fords_match_layout_row(face_id: str) -> None:
    ours = [(f.section, f.row) for f in _road(face_id).fords]
    theirs = [(f["section"], f["row"]) for f in _layout_list(LAYOUTS[face_id]["ford"])]
    assert ours == theirs


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_climb_forward_matches_layout(face_id: str) -> None:
    climb = _road(face_id).climb
    theirs = LAYOUTS[face_id]["climb"]
    assert (climb.forward if climb else None) == (theirs["forward"] if theirs else None)


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_start_finish_matches_layout_row(face_id: str) -> None:
    ours = _road(face_id).start_finish
    theirs = LAYOUTS[face_id]["start_finish"]
    if theirs is None:
        assert ours is None
        return
    match = re.fullmatch(r"between section (\d+) row (\d+) and row (\d+)", theirs["line"])
    assert match is not None, theirs["line"]
    section, row, next_row = (int(g) for g in match.groups())
    assert next_row == row + 1
    assert ours is not None
    assert (ours.kind, ours.after.section, ours.after.row) == (theirs["kind"], section, row)


@pytest.mark.parametrize("face_id", sorted(LAYOUTS))
def test_confidence_and_notes_match_layout(face_id: str) -> None:
    face = _face(face_id)
    assert face.confidence.value == LAYOUTS[face_id]["confidence"]
    assert face.notes == LAYOUTS[face_id]["notes"]


# ----------------------------------------------------- disagreements, explained


def test_215b_middle_section_is_one_full_width_row_and_explained() -> None:
    face = _face("215b")
    assert face.road is not None
    middle = face.road.sections[2]
    assert isinstance(middle, StraightSection)
    assert (middle.rows, middle.lanes) == (1, 1)
    assert "{kind: straight, rows: 1, lanes: 1}" in face.sources
    assert "314a" in face.sources


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_full_width_rows_at_a_two_lane_csv_edge_are_explained(face_id: str) -> None:
    road, lanes = _road(face_id), _csv_lanes(face_id)
    ends = ((road.from_edge, road.sections[0]), (road.to_edge, road.sections[-1]))
    odd = [
        edge
        for edge, section in ends
        if isinstance(section, StraightSection) and section.lanes == 1 and lanes[edge] == 2
    ]
    sources = _face(face_id).sources
    if odd:
        assert "`lanes: 1`" in sources and "follows the csv" in sources
        sentence = sources[sources.index("Lanes:") :].split("(`")[0].split(" road at ")[1]
        assert {int(d) for d in re.findall(r"\d", sentence)} == set(odd)
    else:
        assert "Lanes:" not in sources


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_extra_shortcuts_beyond_the_csv_are_explained(face_id: str) -> None:
    count = len(_layout_list(LAYOUTS[face_id]["shortcut"]))
    sources = _face(face_id).sources
    if count > 1:
        assert f"the layout {count}" in sources and "follows the layout" in sources
    else:
        assert "Shortcuts:" not in sources


def test_faces_with_two_shortcuts_are_215b_and_314a() -> None:
    assert [f for f in ROAD_IDS if len(_road(f).shortcuts) > 1] == ["215b", "314a"]


@pytest.mark.parametrize("face_id", ROAD_IDS)
def test_unreliable_left0_right0_labels_are_explained(face_id: str) -> None:
    road = _road(face_id)
    kind = _csv_links(face_id)[(road.from_edge, road.to_edge)]
    corners = [s for s in road.sections if isinstance(s, CornerSection | ChicaneSection)]
    sources = _face(face_id).sources
    first = corners[0] if corners else None
    if kind in ("left0", "right0") and (
        not isinstance(first, CornerSection) or not kind.startswith(first.turn.value)
    ):
        assert f"`{road.from_edge}>{road.to_edge}:{kind}`" in sources
        assert "follow the layout" in sources
    else:
        assert "Road label:" not in sources


@pytest.mark.parametrize("face_id", ALL_IDS)
def test_every_face_says_where_its_facts_come_from(face_id: str) -> None:
    sources = _face(face_id).sources
    assert sources
    if face_id in SCENERY_IDS:
        assert sources.startswith("csv only")


# ----------------------------------------------------------------- generator


@pytest.mark.slow
def test_rebuilding_gives_the_committed_files(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--sources", str(SOURCES), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr
    built = sorted(p.name for p in tmp_path.glob("*.yaml"))
    assert built == sorted(f"{box}.yaml" for box in EXPECTED_BOXES)
    for name in built:
        committed = (LIBRARY_DIR / name).read_bytes()
        assert (tmp_path / name).read_bytes() == committed, f"{name} is not what the script builds"


def test_committed_files_carry_the_generated_header() -> None:
    for box in EXPECTED_BOXES:
        head = (LIBRARY_DIR / f"{box}.yaml").read_text(encoding="utf-8").splitlines()[0]
        assert head.startswith("# Generated by `make library`"), box
