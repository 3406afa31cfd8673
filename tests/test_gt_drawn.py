"""GT tracks as users draw them (issue 19, section 3): two-road start tiles, road the lap
misses, open road ends of roads not driven, point-to-point tracks from editor files,
junctions in editor files, and findings in the order they refer to each other.

Each track is a small Rekee file written here (the editor's own JSON: tiles in any order,
``q``/``r`` axial hexes, ``dir`` the rotation), read as a user's file is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from trackkit.cli import app
from trackkit.formats import parse_source
from trackkit.validate import Report, validate

runner = CliRunner()

Tile = tuple[int, int, str, int]


def rekee(*tiles: Tile, title: str = "Drawn") -> str:
    """A Rekee file of ``(q, r, id, dir)`` tiles, in the order given."""
    return json.dumps(
        {
            "title": title,
            "author": "tests",
            "tiles": [{"q": q, "r": r, "id": i, "dir": d, "tokens": []} for q, r, i, d in tiles],
        }
    )


def check(text: str, name: str = "drawn.rekee.json", **options: Any) -> Report:
    source = parse_source(text, file=name)
    return validate(source.stage, source=source, **options)


def write(tmp_path: Path, text: str, name: str = "drawn.rekee.json") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def race(path: str, *args: str) -> dict[str, Any]:
    out = runner.invoke(app, ["simulate", path, "--races", "4", "--format", "json", *args])
    assert out.exit_code == 0, out.output
    doc: dict[str, Any] = json.loads(out.stdout)
    return doc


# --- two-road start tiles ------------------------------------------------------------------

#: A small circuit through both roads of the Team Challenge start tile 140b: out on road A
#: (its grid faces edge 5), round two hairpins, back on road B (its grid faces edge 2) and
#: round two more hairpins onto road A again.
TWO_ROAD: tuple[Tile, ...] = (
    (0, 0, "140b", 0),
    (1, -1, "127a", 0),
    (0, -1, "126a", 3),
    (-1, 1, "127a", 3),
    (0, 1, "126a", 0),
)


def test_a_circuit_through_both_roads_of_a_two_road_start_tile_has_one_line(
    tmp_path: Path,
) -> None:
    # rule: BOARD-3, GT-1 (one start/finish line: the road whose grid faces the race)
    report = check(rekee(*TWO_ROAD))
    assert report.valid, report.codes
    assert "S125" not in report.codes and "S126" not in report.codes
    first, again = (t for t in report.layout.chain if t.face_id == "140b")
    assert again.visit_of is first and {first.road_id, again.road_id} == {"A", "B"}
    assert first.road is not None and first.road.line is not None
    assert again.road is not None and again.road.line is None  # its band is not a line
    assert report.summary["grid_slots"] == 6 and report.layout.closes
    doc = race(write(tmp_path, rekee(*TWO_ROAD)))
    assert doc["finish_rate"] == 1.0 and doc["settings"]["laps"] == 3


def test_the_line_of_a_two_road_tile_is_the_road_driven_the_way_its_grid_faces() -> None:
    # rule: GT-1 -- driven the other way round, road A is against its grid: the first road
    # driven with its grid (B) holds the line; the tile is no second line, nor backwards
    text = (
        "format: trackkit-stage/1\nkind: circuit\ntiles:\n"
        "  - {tile: 140b, at: [0, 0], dir: 0, road: A, enter: 5}\n"
        "  - {tile: 126a, at: [0, 1], dir: 0}\n"
        "  - {tile: 127a, at: [-1, 1], dir: 3}\n"
        "  - {tile: 140b, at: [0, 0], dir: 0, road: B}\n"
        "  - {tile: 126a, at: [0, -1], dir: 3}\n"
        "  - {tile: 127a, at: [1, -1], dir: 0}\n"
    )
    report = check(text, "backwards.yaml")
    lined = [t for t in report.layout.chain if t.road is not None and t.road.line is not None]
    # both roads are driven against their grids: one S126 for the one tile, no S125
    assert [t.road_id for t in lined] == ["A"]
    assert report.codes.count("S126") == 1 and "S125" not in report.codes
    # one road with its grid, one against it: the line is the one driven with the grid
    mixed = (
        "format: trackkit-stage/1\nkind: circuit\ntiles:\n"
        "  - {tile: 140b, at: [0, 0], dir: 0, road: A, enter: 5}\n"
        "  - {tile: 140b, at: [0, 0], dir: 0, road: B, enter: 4}\n"
    )
    report = check(mixed, "mixed.yaml")
    lined = [t for t in report.layout.chain if t.road is not None and t.road.line is not None]
    assert [t.road_id for t in lined] == ["B"] and "S126" not in report.codes


# --- junctions -----------------------------------------------------------------------------


def _through(junction: str, road: str, enter: int, plain: str, start: str) -> Report:
    text = (
        "format: trackkit-stage/1\nkind: point-to-point\ntiles:\n"
        f"  - tile: {start}\n  - tile: {plain}\n"
        f"  - {{tile: {junction}, road: {road}, enter: {enter}}}\n"
        f"  - tile: {plain}\n  - tile: {start}\n"
    )
    return check(text, "through.yaml")


def test_a_one_lane_branch_of_a_junction_between_two_lane_edges_is_a_lane_finding() -> None:
    # rule: BOARD-1 (the lanes that meet are those of the roads driven): 152b's hairpin C
    # takes one of the two lanes of edges 0 and 5, the other lane leads into road A / B
    branch = _through("152b", "C", 0, "103b", "102b")
    lanes = [f for f in branch.findings if f.code == "S104"]
    assert [f.location.tile_index for f in lanes] == [3, 4]
    assert "road C of 152b" in lanes[0].message and "road A of tile 3 (152b)" in lanes[0].fix
    # 151a's road B takes two of the three lanes of its edges: its third lane is road C's
    assert _through("151a", "B", 3, "103a", "102a").codes.count("S104") == 2
    # the roads that take the whole edge meet as any road does
    assert "S104" not in _through("152b", "A", 0, "103b", "102b").codes
    assert "S104" not in _through("151a", "A", 3, "103a", "102a").codes
