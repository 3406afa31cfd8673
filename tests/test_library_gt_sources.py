"""Every Rallyman: GT face of the library against both fact sources, with parsing of its own.

``tile-facts.csv`` and ``gt-space-layouts/*.yaml`` are read fresh here with plain ``csv``
and ``yaml`` (no model, no generator code), so a wrong value in ``tile_library/gt-*.yaml``
fails even if ``scripts/build_tile_library.py`` had the same bug. The cross-checks are
section 8 of ``gt-space-layouts/README.md``: road edge pairs, lanes per edge and skews
against ``joins``, printed limits against ``corner_limits`` / ``hazard_limits``, the hazard
sign, the danger colour and corner turns. The last tests feed the generator's own checks
a changed csv row and expect it to notice.
"""

from __future__ import annotations

import csv
import dataclasses
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from shapely.geometry import LineString, Point
from stagekit import read_yaml

from trackkit.models.tile import TileFace
from trackkit.tiles.library import TileLibrary

REPO = Path(__file__).resolve().parents[1]
LIBRARY_DIR = REPO / "tile_library"
SOURCES = LIBRARY_DIR / "sources"
SCRIPT = REPO / "scripts" / "build_tile_library.py"

GT_BOXES = {
    "gt-core": range(101, 121),
    "gt-championship": range(121, 131),
    "gt-world-tour": range(131, 139),
    "gt-team-challenge": range(139, 151),
    "gt-adrenaline": range(151, 155),
}
#: Faces with a chequered line (the csv has no column for it; its README lists them).
START_FINISH_IDS = {"102a", "102b", "131a", "131b", "139a", "139b", "140b", "143b", "144b"}
#: The csv README's erratum: one copy in Championship (-1), one in World Tour (-2).
COPY_ERRATA = {122, 124, 125}


def _read_csv() -> dict[str, dict[str, str]]:
    with (SOURCES / "tile-facts.csv").open(encoding="utf-8", newline="") as fh:
        return {row["tile"].lower(): row for row in csv.DictReader(fh) if row["series"] == "gt"}


def _read_layouts() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((SOURCES / "gt-space-layouts").glob("*.yaml")):
        for entry in read_yaml(path):
            assert str(entry["face"]) not in out, f"{entry['face']} is described twice"
            out[str(entry["face"])] = entry
    return out


CSV = _read_csv()
LAYOUTS = _read_layouts()
LIBRARY = TileLibrary.load(LIBRARY_DIR, cache=False)
GT_IDS = sorted(LAYOUTS)


def _face(face_id: str) -> TileFace:
    face = LIBRARY.get(face_id)
    assert face is not None, f"{face_id} is missing from the library"
    return face


def _csv_lanes(face_id: str) -> tuple[dict[int, int], dict[int, str]]:
    lanes: dict[int, int] = {}
    skews: dict[int, str] = {}
    for token in CSV[face_id]["lanes"].split():
        edge, _, rest = token.partition(":")
        count = int(rest[0])
        lanes[int(edge)] = count
        if rest[1:]:
            skews[int(edge)] = rest[1:]
    return lanes, skews


def _csv_pairs(face_id: str) -> set[frozenset[int]]:
    pairs = set()
    for token in CSV[face_id]["roads"].split():
        edges = token.split(":")[0]
        start, _, ends = edges.partition(">")
        for end in ends.split("|"):
            pairs.add(frozenset((int(start), int(end))))
    return pairs


def _csv_numbers(face_id: str, column: str) -> set[int]:
    text = CSV[face_id][column].strip()
    return {int(v) for v in text.split("/")} if text else set()


def _roads(face_id: str) -> list[dict[str, Any]]:
    return list(LAYOUTS[face_id]["roads"])


def _line_names(road: dict[str, Any]) -> set[str]:
    return {f"E{road['from']}", f"E{road['to']}", *road.get("lines", {})}


def _end_items(road: dict[str, Any], edge: int) -> list[str]:
    """The space each lane has at one end of the road (lanes beginning on a line: none)."""
    names = _line_names(road)
    out = []
    for _lane, items in sorted(road["lanes"].items()):
        item = items[0] if edge == road["from"] else items[-1]
        if item not in names:
            out.append(item)
    return out


# --------------------------------------------------------------- the set of faces


def test_every_gt_face_of_the_csv_has_a_layout_and_is_in_the_library() -> None:
    assert set(CSV) - {"901a", "901b"} == set(LAYOUTS)
    assert len(LAYOUTS) == 107
    assert {f.id for f in LIBRARY if f.series == "gt" and f.layout is not None} == set(LAYOUTS)


@pytest.mark.parametrize("box", sorted(GT_BOXES))
def test_each_gt_box_holds_the_csv_faces_of_its_numbers(box: str) -> None:
    ids = {f.id for f in LIBRARY.tilesets[box].faces if f.layout is not None}
    assert ids == {t for t, row in CSV.items() if int(row["number"]) in GT_BOXES[box]} - {
        "901a",
        "901b",
    }
    assert all(CSV[i]["box"] == box for i in ids)


def test_the_scenery_filler_901_stays_in_gt_adrenaline() -> None:
    assert {f.id for f in LIBRARY.in_box("gt-adrenaline") if f.kind.value == "scenery"} == {
        "901a",
        "901b",
    }


# --------------------------------------------------------------------- the csv


@pytest.mark.parametrize("face_id", GT_IDS)
def test_face_facts_match_csv(face_id: str) -> None:
    face, row = _face(face_id), CSV[face_id]
    assert (face.number, face.face, face.series, face.box) == (
        int(row["number"]),
        row["face"],
        "gt",
        row["box"],
    )
    if face.number in COPY_ERRATA:
        assert (face.copies, face.also_in) == (1, {"gt-world-tour": 1})
    else:
        assert (face.copies, face.also_in) == (int(row["copies"]), {})
    assert face.surface.value == row["terrain"]
    assert face.danger.value == row["danger"]


@pytest.mark.parametrize("face_id", GT_IDS)
def test_lanes_and_skew_hands_match_csv(face_id: str) -> None:
    lanes, skews = _csv_lanes(face_id)
    face = _face(face_id)
    assert face.lanes == lanes
    assert {e: s.value for e, s in face.skews.items()} == skews


@pytest.mark.parametrize("face_id", GT_IDS)
def test_road_edge_pairs_match_csv(face_id: str) -> None:
    assert {frozenset((r["from"], r["to"])) for r in _roads(face_id)} == _csv_pairs(face_id)
    layout = _face(face_id).layout
    assert layout is not None
    assert {frozenset((r.from_edge, r.to_edge)) for r in layout.roads} == _csv_pairs(face_id)


@pytest.mark.parametrize("face_id", GT_IDS)
def test_lanes_at_every_road_end_match_csv(face_id: str) -> None:
    lanes, _ = _csv_lanes(face_id)
    at_edge: dict[int, list[int]] = {}
    for road in _roads(face_id):
        for edge in (road["from"], road["to"]):
            counts = at_edge.setdefault(edge, [])
            if not road.get("hidden"):
                counts.append(len(_end_items(road, edge)))
    assert set(at_edge) == set(lanes)
    for edge, counts in at_edge.items():
        if len(counts) == 1:
            assert counts == [lanes[edge]], edge
        elif counts:  # an edge shared by several roads: the widest, or all of them
            assert lanes[edge] in (max(counts), sum(counts)), edge


@pytest.mark.parametrize("face_id", GT_IDS)
def test_skew_edges_are_exactly_the_joined_road_ends(face_id: str) -> None:
    _, skews = _csv_lanes(face_id)
    spaces = LAYOUTS[face_id]["spaces"]
    joined = {sid: s["joins"] for sid, s in spaces.items() if s.get("joins") is not None}
    ends: dict[str, set[int]] = {}
    for road in _roads(face_id):
        if road.get("hidden"):
            continue
        for edge in (road["from"], road["to"]):
            for sid in _end_items(road, edge):
                ends.setdefault(sid, set()).add(edge)
                assert (joined.get(sid) == edge) == (edge in skews), (road["id"], edge, sid)
            if edge in skews:
                at = road["lines"][f"E{edge}"]["at"]
                assert isinstance(at, list), f"skew edge line E{edge} needs per-lane 'at'"
                # skewL: lane 1 meets the slanted edge further along the road (the two
                # halves of a space across the edge then fit: skewL meets skewL)
                assert (at[0] > at[-1]) == (skews[edge] == "skewL"), (road["id"], edge, at)
    for sid, edge in joined.items():
        assert edge in ends.get(sid, set()), f"{sid} joins edge {edge} but is no road end there"


@pytest.mark.parametrize("face_id", GT_IDS)
def test_printed_limits_match_csv(face_id: str) -> None:
    spaces = LAYOUTS[face_id]["spaces"].values()
    circles = {s["limit"] for s in spaces if "limit" in s and not s.get("triangle")}
    triangles = {s["limit"] for s in spaces if "limit" in s and s.get("triangle")}
    marks = [
        mark
        for road in _roads(face_id)
        for line in (road.get("lines") or {}).values()
        for mark in (line.get("dotted") or {}).values()
    ]
    dotted = {m for m in marks if isinstance(m, int)}
    corner, hazard = _csv_numbers(face_id, "corner_limits"), _csv_numbers(face_id, "hazard_limits")
    assert circles | triangles | dotted == corner | hazard
    assert triangles == hazard
    assert ("hazard" in marks) == (CSV[face_id]["hazard"] == "yes")
    unlisted = (circles | dotted) - corner
    sources = _face(face_id).sources
    if unlisted:  # Rekee's pacenotes leave out a circle also printed in a triangle (136a)
        assert unlisted <= triangles
        assert "leave out the circled" in sources
    else:
        assert "Limits:" not in sources


@pytest.mark.parametrize("face_id", GT_IDS)
def test_corner_turns_match_csv_bends(face_id: str) -> None:
    kinds = {}
    for token in CSV[face_id]["roads"].split():
        edges, _, kind = token.partition(":")
        start, _, end = edges.partition(">")
        kinds[(int(start), int(end.split("|")[0]))] = kind
    for road in _roads(face_id):
        kind = kinds.get((road["from"], road["to"]), "")
        if kind in ("left1", "left2", "right1", "right2"):
            for corner in road.get("corners") or []:
                assert kind.startswith(corner["turn"]), (road["id"], kind, corner)


@pytest.mark.parametrize("face_id", GT_IDS)
def test_danger_colour_of_the_layout_is_the_csv_danger(face_id: str) -> None:
    assert LAYOUTS[face_id]["danger"] == CSV[face_id]["danger"]


def test_start_finish_faces_are_those_the_csv_readme_lists() -> None:
    assert {f for f in GT_IDS if LAYOUTS[f]["start_finish"]} == START_FINISH_IDS
    assert {f for f in GT_IDS if _face(f).layout.start_finish} == START_FINISH_IDS  # type: ignore[union-attr]


# --------------------------------------------------------------------- the layouts


def _plain(value: Any) -> Any:
    """Source or library data compared as plain values: numbers as floats, lists, no Nones."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        out = {str(k): _plain(v) for k, v in value.items() if v not in (None, [], {}, False)}
        return out
    return value


@pytest.mark.parametrize("face_id", GT_IDS)
def test_lane_layout_is_the_source_entry(face_id: str) -> None:
    entry = LAYOUTS[face_id]
    layout = _face(face_id).layout
    assert layout is not None
    ours = _plain(layout.model_dump(mode="json", by_alias=True))
    keys = ("roads", "spaces", "overlaps", "start_finish", "pit")
    theirs = _plain({k: entry[k] for k in keys})
    assert ours == theirs


@pytest.mark.parametrize("face_id", GT_IDS)
def test_pixel_data_for_drawing_is_kept(face_id: str) -> None:
    layout = _face(face_id).layout
    assert layout is not None
    for road in layout.roads:
        if road.hidden:
            continue
        assert len(road.centre) >= 2 and road.length > 0, road.id
        line = LineString(road.centre)
        assert line.length == pytest.approx(road.length, rel=0.03), road.id
        # the centre line runs from edge to edge (a junction branch: off the midpoint)
        assert _edge(road.from_edge).distance(Point(road.centre[0])) < 10, road.id
        assert _edge(road.to_edge).distance(Point(road.centre[-1])) < 10, road.id
    assert all(space.px is not None for space in layout.spaces.values())


def _edge(edge: int) -> LineString:
    """A tile edge of the stored picture (520 x 450 px, flat top)."""
    corners = [(130, 0), (390, 0), (520, 225), (390, 450), (130, 450), (0, 225)]
    return LineString([corners[edge], corners[(edge + 1) % 6]])


@pytest.mark.parametrize("face_id", GT_IDS)
def test_confidence_notes_and_kind_match_layout(face_id: str) -> None:
    face, entry = _face(face_id), LAYOUTS[face_id]
    assert face.confidence.value == entry["confidence"]
    assert face.notes == entry["notes"]
    assert face.kind.value == ("pit" if entry["pit"] else "road")
    assert face.roads == [] and face.road is None  # DIRT sections: none


@pytest.mark.parametrize("face_id", GT_IDS)
def test_sources_say_agree_unless_an_erratum_or_a_note_applies(face_id: str) -> None:
    face = _face(face_id)
    if face.number in COPY_ERRATA:
        assert face.sources.startswith("Copies: the csv says 2 in gt-championship")
    elif face_id == "136a":
        assert face.sources.startswith("Limits:")
    else:
        assert face.sources == "csv and layout agree."


# ------------------------------------------------------ the generator's own checks


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_tile_library", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


BUILD = _script()
CSV_FACES = BUILD.read_csv(SOURCES / "tile-facts.csv", range(101, 155))


@pytest.mark.parametrize(
    ("face_id", "change", "expected"),
    [
        ("117a", {"hazard_limits": ()}, "Triangles:"),
        ("117a", {"corner_limits": (2, 4)}, "Limits:"),
        ("107a", {"hazard": False}, "Hazard sign:"),
        ("117a", {"danger": "high"}, "Danger:"),
        ("117a", {"lanes": {1: 3, 3: 2}}, "Lanes:"),
        ("121a", {"skews": {2: "skewR", 4: "skewR"}}, "slants the other way"),
        ("121a", {"skews": {4: "skewR"}}, "which the csv gives as a straight edge"),
        ("103a", {"skews": {0: "skewL"}}, "have no `joins: 0`"),
        ("117a", {"edge_pairs": frozenset({frozenset((1, 4))})}, "Road edges:"),
        ("117a", {"links": {(1, 3): "right1", (3, 1): "left1"}}, "Corner turn:"),
    ],
)
def test_the_generator_reports_every_disagreement(
    face_id: str, change: dict[str, Any], expected: str
) -> None:
    row = dataclasses.replace(CSV_FACES[face_id], **change)
    face, report = BUILD.build_gt_face(row, row.box, LAYOUTS[face_id])
    assert any(expected in w for w in report.warnings), report.warnings
    assert expected in face.sources
    _, clean = BUILD.build_gt_face(CSV_FACES[face_id], row.box, LAYOUTS[face_id])
    assert clean.warnings == []


def test_the_generator_refuses_a_layout_that_contradicts_itself() -> None:
    entry = yaml.safe_load(yaml.safe_dump(LAYOUTS["117a"]))
    entry["roads"][0]["lanes"][2] = ["A2a", "l1", "A23b", "l2", "A1c"]  # A1c in lanes 1 and 2
    with pytest.raises(BUILD.BuildError, match="117a"):
        BUILD.build_gt_face(CSV_FACES["117a"], "gt-core", entry)
    entry = yaml.safe_load(yaml.safe_dump(LAYOUTS["117a"]))
    entry["colour"] = "red"
    with pytest.raises(BUILD.BuildError, match="unexpected keys"):
        BUILD.build_gt_face(CSV_FACES["117a"], "gt-core", entry)
