"""GT tracks as users draw them (issue 19, section 3): two-road start tiles, road the lap
misses, open road ends of roads not driven, point-to-point tracks from editor files,
junctions in editor files, and findings in the order they refer to each other.

Each track is a small Rekee file written here (the editor's own JSON: tiles in any order,
``q``/``r`` axial hexes, ``dir`` the rotation), read as a user's file is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from stagekit import REPO, make_stage
from typer.testing import CliRunner

from trackkit.checks.catalogue import CATALOGUE
from trackkit.checks.pipeline import Report, validate
from trackkit.cli.app import app
from trackkit.formats import parse_source
from trackkit.models.findings import Severity
from trackkit.models.stage import Kind
from trackkit.road import hexgrid

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


def core_circuit(*extra: Tile, swap: dict[tuple[int, int], str] | None = None) -> str:
    """The example core circuit drawn in Rekee (tiles in driving order, the pit last), with
    tiles added and some faces swapped (by hex)."""
    text = (REPO / "examples" / "gt-core-circuit.yaml").read_text(encoding="utf-8")
    report = check(text, "gt-core-circuit.yaml")
    tiles = [
        (t.hex[0], t.hex[1], (swap or {}).get(t.hex, t.face_id), t.rotation)
        for t in report.layout.tiles
    ]
    return rekee(*tiles, *extra, title="Core circuit")


def refers_only_to_findings_there(report: Report) -> bool:
    """Whether every finding code a fix names ("... (S117)") is in the report."""
    named = {c for f in report.findings for c in re.findall(r"\b[SRIHTP]\d{3}\b", f.fix)}
    return named <= set(report.codes)


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
    assert report.summary.gt.grid_slots == 6 and report.layout.closes
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


# --- road tiles the lap misses, and open road ends ------------------------------------------


def _ring(centre: tuple[int, int]) -> tuple[Tile, ...]:
    """Six 60-degree bends round ``centre``: a closed ring of road of its own."""
    out = []
    for k in range(6):
        q, r = hexgrid.neighbour(centre, k)
        out.append((q, r, "105a", (k + 1) % 6))
    return tuple(out)


def test_road_tiles_a_gt_circuit_never_drives_are_an_error(tmp_path: Path) -> None:
    ring = check(core_circuit(*_ring((10, 0))))
    (off,) = [f for f in ring.findings if f.code == "S135"]
    assert off.severity is Severity.ERROR and "105a at [11, 0]" in off.message
    assert not ring.valid and "S118" not in ring.codes and "S117" not in ring.codes
    assert refers_only_to_findings_there(ring)
    out = runner.invoke(app, ["validate", write(tmp_path, core_circuit(*_ring((10, 0))))])
    assert out.exit_code == 1 and "S135" in out.stdout
    # where the road breaks (S117), the tiles beyond it are listed (S118), mend the break
    broken = check(core_circuit(swap={(1, -2): "103a"}))
    assert "S117" in broken.codes and "S118" in broken.codes and "S135" not in broken.codes
    assert refers_only_to_findings_there(broken)


def test_a_fix_never_names_a_finding_that_is_not_in_the_report() -> None:
    # a DIRT stage driven start to finish with a tile lying beside it: S118, and its fix
    # does not send the user to a break (S117) that is not there
    stage = make_stage(
        "202a", "205a", "203a", {"tile": "206a", "at": [5, 5], "dir": 0, "driven": False}
    )
    report = validate(stage)
    assert report.codes == ["S118"] and refers_only_to_findings_there(report)
    assert "S117" in CATALOGUE["S118"].fix  # the general fix is for the break


def test_each_open_end_of_a_road_the_track_does_not_drive_is_reported() -> None:
    # 141b in place of a straight of the core circuit: the lap drives road A; road B's two
    # ends face empty hexes
    report = check(core_circuit(swap={(3, -3): "141b"}))
    ends = [f for f in report.findings if f.code == "S136"]
    assert sorted((f.location.tile, f.location.edge) for f in ends) == [("141b", 1), ("141b", 4)]
    assert all("road B" in f.message and "empty hex" in f.message for f in ends)
    assert report.valid and all(f.severity is Severity.INFO for f in ends)  # raced as it is
    # a crossing driven on both roads has no open end
    eight = (REPO / "examples" / "gt-figure-eight.rekee.json").read_text(encoding="utf-8")
    assert "S136" not in check(eight).codes


# --- point-to-point tracks from editor files -----------------------------------------------

#: A point-to-point sprint: start 144b (road A, grid facing edge 5), a skew straight 121b,
#: finish 143b (road B, grid facing edge 2): the finish's grid faces out of the road.
SPRINT: tuple[Tile, ...] = ((0, 0, "144b", 0), (1, -1, "121b", 0), (1, -2, "143b", 3))


def test_a_gt_editor_track_with_a_start_and_a_finish_is_point_to_point_in_any_order(
    tmp_path: Path,
) -> None:
    # rule: BOARD-3 (a point-to-point track: its start and its finish line)
    for tiles in (SPRINT, SPRINT[::-1], (SPRINT[1], SPRINT[2], SPRINT[0])):
        report = check(rekee(*tiles))
        assert report.valid and report.kind is Kind.POINT_TO_POINT, report.codes
        # the note saying so, and the ends of the roads the sprint does not drive on its
        # two-road start and finish tiles (two each): nothing else
        assert sorted(report.codes) == ["S134", "S136", "S136", "S136", "S136"]
        assert [t.face_id for t in report.layout.chain] == ["144b", "121b", "143b"]
        (note,) = [f for f in report.findings if f.code == "S134"]
        assert "--kind" in note.fix and "kind:" not in note.fix
    doc = race(write(tmp_path, rekee(*SPRINT[::-1])))
    assert doc["settings"]["point_to_point"] is True and doc["finish_rate"] == 1.0
    drawn = runner.invoke(
        app, ["render", write(tmp_path, rekee(*SPRINT)), "-o", str(tmp_path / "s.svg")]
    )
    assert drawn.exit_code == 0 and "point-to-point track" in drawn.stderr  # the note
    # a native file without kind is inferred the same way; its fix may name 'kind:'
    native = check(
        "format: trackkit-stage/1\ntiles:\n  - {tile: 144b, road: A, enter: 1}\n"
        "  - tile: 121b\n  - {tile: 143b, road: B, enter: 4}\n",
        "sprint.yaml",
    )
    assert native.kind is Kind.POINT_TO_POINT and native.codes.count("S134") == 1
    assert "'kind: point-to-point'" in next(f for f in native.findings if f.code == "S134").fix
    # --kind circuit checks it as a circuit: it does not close
    assert "S123" in check(rekee(*SPRINT), kind=Kind.CIRCUIT).codes


def test_a_fix_for_an_editor_file_names_kind_options_never_a_kind_key() -> None:
    # a drawn circuit that does not close: S123, whose fix for a Rekee file is --kind
    report = check(rekee(*SPRINT[:2]))
    (open_lap,) = [f for f in report.findings if f.code == "S123"]
    assert "--kind point-to-point" in open_lap.fix and "kind:" not in open_lap.fix
    native = validate(make_stage("102b", "103b", "103b"))
    (f,) = [f for f in native.findings if f.code == "S123"]
    assert "'kind: point-to-point'" in f.fix
    for entry in CATALOGUE.values():  # S123, S134, H404: --kind; S129: a native file's road
        assert entry.editor_fix is None or "kind:" not in entry.editor_fix
        if "kind:" in entry.fix and entry.code not in ("S122", "S132"):  # never on editor files
            assert entry.editor_fix is not None and "--kind" in entry.editor_fix, entry.code


#: A circuit that splits at 151a and rejoins at 152a, the start/finish straight right
#: after the rejoin: both ways round close the lap (straight through on road A of both
#: junctions, or the bends through road B); the rejoin's hairpin C joins the two branches.
DIAMOND: tuple[Tile, ...] = (
    (1, 2, "102a", 1),
    (1, 3, "107a", 1),
    (0, 3, "103a", 0),
    (-1, 3, "105a", 3),
    (-1, 2, "103a", 1),
    (-1, 1, "103a", 1),
    (-1, 0, "107a", 4),
    (0, 0, "151a", 0),
    (1, 0, "105a", 0),
    (0, 1, "105a", 3),
    (1, 1, "152a", 4),
)


def test_a_rekee_circuit_that_splits_and_rejoins_at_junctions_closes(tmp_path: Path) -> None:
    # rule: BOARD-2 (at a junction the walk takes the road that closes the lap)
    report = check(rekee(*DIAMOND))
    assert report.valid and report.layout.closes, report.codes
    assert "S123" not in report.codes
    roads = {t.face_id: t.road_id for t in report.layout.chain if t.face_id in ("151a", "152a")}
    assert roads == {"151a": "A", "152a": "A"}  # not 152a's one-lane hairpin C
    # both roads of the split close the lap: which one is taken, and how to take the other
    (which,) = [f for f in report.findings if f.code == "S129"]
    assert which.location.tile == "151a" and "road A is taken" in which.message
    assert "'road: B'" in which.fix and "convert" in which.fix
    # the other way round the split is not driven: a warning that names its tile, no error
    (other,) = [f for f in report.findings if f.code == "S118"]
    assert "105a at [0, 1]" in other.message and refers_only_to_findings_there(report)
    # the junctions' data is of low confidence: one note for each face driven
    notes = [f for f in report.findings if f.code == "T505"]
    assert sorted(f.location.tile for f in notes) == ["151a", "152a"]
    assert all(f.severity is Severity.INFO for f in notes)
    doc = race(write(tmp_path, rekee(*DIAMOND)))
    assert doc["finish_rate"] == 1.0


def test_at_a_junction_only_one_road_of_which_closes_the_lap_that_road_is_written() -> None:
    # converted to a native file, the rejoin (only road A closes) says 'road: A'; the split
    # (both close) says nothing, so that laying it out warns which road it takes (S129)
    stage = parse_source(rekee(*DIAMOND), file="d.rekee.json").stage
    roads = {t.tile: t.road for t in stage.tiles if t.tile in ("151a", "152a")}
    assert roads == {"151a": None, "152a": "A"}


# --- findings in order -----------------------------------------------------------------


def test_s114_comes_after_the_lane_findings_it_refers_to() -> None:
    text = (REPO / "examples" / "gt-core-circuit.yaml").read_text(encoding="utf-8")
    narrow = text.replace("  - tile: 103a\n", "  - tile: 103b\n", 1)  # 2 lanes in 3
    report = check(narrow, "narrow.yaml")
    assert report.codes[:3] == ["S104", "S104", "S114"]
    assert CATALOGUE["S114"].follows and "above" in CATALOGUE["S114"].fix


def test_one_mistyped_id_in_a_native_file_is_one_finding() -> None:
    text = (REPO / "examples" / "gt-core-circuit.yaml").read_text(encoding="utf-8")
    # snapped: the tiles after the typo lie where a straight road would put them
    typo = text.replace("  - tile: 111a            # hairpin 2", "  - tile: 111x")
    report = check(typo, "typo.yaml")
    assert report.codes == ["S101"] and report.layout.guessed
    # placed by hand (as a converted editor file is): no S114 for the gap the typo leaves
    body = "format: trackkit-stage/1\ntiles:\n" + "".join(
        f"  - {{tile: '{'111x' if i == '111a' else i}', at: [{q}, {r}], dir: {d}}}\n"
        for q, r, i, d in _tiles_of(text)
    )
    placed = check(body, "placed.yaml")
    assert placed.codes == ["S101"] and not placed.layout.guessed
    # a DIRT stage: the same
    assert validate(make_stage("202a", "205a", "999x", "206a", "203a")).codes == ["S101"]


def _tiles_of(native: str) -> list[Tile]:
    layout = check(native, "n.yaml").layout
    return [(t.hex[0], t.hex[1], t.face_id, t.rotation) for t in layout.tiles]
