"""The command line: exit codes, JSON document, tiles, schema and convert (DESIGN.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from trackkit.cli.app import app

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_validate_valid_stage_exits_0_and_prints_a_summary():
    code, out, _ = run("validate", str(EXAMPLES / "col-de-turini.yaml"))
    assert code == 0
    assert "valid (0 errors" in out and "12 tiles" in out and "corners (5)" in out


def test_validate_broken_stage_exits_1_with_codes():
    code, out, _ = run("validate", str(EXAMPLES / "broken-stage.yaml"))
    assert code == 1
    for expected in ("S101", "S105", "S110", "I302", "R201", "H401"):
        assert expected in out


def test_validate_unusable_input_exits_2_naming_the_file(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: trackkit-stage/1\ntiles: 5\n", encoding="utf-8")
    code, out, err = run("validate", str(bad))
    assert code == 2
    assert "bad.yaml" in err and "tiles" in err and "Traceback" not in err + out
    code, _, err = run("validate", str(tmp_path / "missing.yaml"))
    assert code == 2 and "missing.yaml" in err


def test_validate_json_document(tmp_path: Path):
    missing = tmp_path / "nope.yaml"
    code, out, _ = run(
        "validate",
        "--format",
        "json",
        str(EXAMPLES / "col-de-turini.yaml"),
        str(EXAMPLES / "broken-stage.yaml"),
        str(missing),
    )
    assert code == 2  # the worst outcome wins
    doc = json.loads(out)
    good, broken, unusable = doc["files"]
    assert good["valid"] is True and good["errors"] == 0
    assert good["summary"]["tiles"] == 12 and good["summary"]["boxes"] == {
        "dirt-copilot": 1,
        "dirt-core": 1,
    }
    assert broken["valid"] is False and broken["errors"] == len(broken["findings"])
    finding = broken["findings"][0]
    assert {"code", "severity", "message", "location", "fix"} <= set(finding)
    assert finding["location"]["file"].endswith("broken-stage.yaml")
    assert unusable == {
        "file": str(missing),
        "valid": False,
        "errors": 0,
        "warnings": 0,
        "findings": [],
        "summary": {},
        "error": unusable["error"],
    }


def test_validate_kind_option_checks_as_hillclimb():
    code, out, _ = run("validate", "--kind", "hillclimb", str(EXAMPLES / "col-de-turini.yaml"))
    assert code == 1 and "H401" in out


def test_validate_reads_editor_files():
    code, out, _ = run(
        "validate",
        str(EXAMPLES / "col-de-turini.rekee.json"),
        str(EXAMPLES / "hillclimb-pikes.rgt"),
    )
    assert code == 0, out


def test_tiles_lists_and_filters_by_box():
    code, out, _ = run("tiles", "--box", "dirt-climb")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "325a",
        "325b",
        "326a",
        "326b",
        "418a",
        "418b",
        "419a",
        "419b",
    ]
    code, out, _ = run("tiles", "--format", "json")
    assert len(json.loads(out)["faces"]) == 237
    code, _, err = run("tiles", "--box", "nope")
    assert code == 2 and "unknown box" in err and "gt-world-tour" in err


def test_tiles_series_and_gt_boxes_filter_the_listing():
    code, out, _ = run("tiles", "--series", "gt", "--format", "json")
    faces = json.loads(out)["faces"]
    assert code == 0 and len(faces) == 109  # 107 GT faces and the GT scenery filler 901
    assert {f["box"] for f in faces} == {
        "gt-core",
        "gt-championship",
        "gt-world-tour",
        "gt-team-challenge",
        "gt-adrenaline",
    }
    code, out, _ = run("tiles", "--series", "dirt", "--format", "json")
    assert len(json.loads(out)["faces"]) == 128 and "gt-" not in out
    code, out, _ = run("tiles", "--box", "gt-adrenaline", "--shape", "junction")
    assert [line.split()[0] for line in out.splitlines()] == ["151a", "151b", "152a", "152b"]
    code, out, _ = run("tiles", "--box", "gt-core", "--shape", "start")
    assert [line.split()[0] for line in out.splitlines()] == ["102a", "102b"]
    code, out, _ = run("tiles", "--series", "gt", "--limit", "5")
    assert {line.split()[0] for line in out.splitlines()} >= {"118a", "136a", "137b"}
    code, _, err = run("tiles", "--series", "rx")
    assert code == 2 and "rx" in err


def test_tiles_show_describes_a_gt_face_in_words_and_json():
    code, out, _ = run("tiles", "show", "117A")
    assert code == 0
    assert "lane 1: A1a ┆3 A1b ┆3 A1c" in out
    assert "A23b (lanes 2-3) 4 in a triangle" in out
    assert "10 steps each way (4 diagonal)" in out
    code, out, _ = run("tiles", "show", "117a-2", "--format", "json")
    face = json.loads(out)["face"]
    assert face["id"] == "117a" and face["series"] == "gt" and face["shape"] == "bend"
    steps = {(s["from"], s["to"]): s for s in face["derived"]["A"]["steps"]}
    assert steps[("A1a", "A1b")]["limit"] == 3 and steps[("A1a", "A23b")]["kind"] == "diagonal"
    assert face["layout"]["spaces"]["A23b"] == {"px": [288.0, 243.0], "limit": 4, "triangle": True}


def test_tiles_show_describes_a_face_in_words():
    code, out, _ = run("tiles", "show", "224B")
    assert code == 0
    assert "inner lane 2 spaces limit 3, outer lane 3 spaces limit 4" in out
    assert "shortcut: 2 spaces, limit 5" in out
    code, _, err = run("tiles", "show", "777z")
    assert code == 2 and "unknown tile" in err


def test_schema_command_writes_the_committed_schemas(tmp_path: Path):
    code, _, _ = run("schema", "--out", str(tmp_path))
    assert code == 0
    for path in (REPO / "schemas").glob("*.json"):
        assert (tmp_path / path.name).read_text() == path.read_text()


def test_convert_round_trip_keeps_the_stage(tmp_path: Path):
    rgt = tmp_path / "stage.rgt"
    back = tmp_path / "stage.yaml"
    assert run("convert", str(EXAMPLES / "col-de-turini.yaml"), "-o", str(rgt))[0] == 0
    assert run("convert", str(rgt), "-o", str(back))[0] == 0
    code, out, _ = run("validate", str(back))
    assert code == 0 and "12 tiles" in out
    code, _, err = run(
        "convert", str(EXAMPLES / "col-de-turini.yaml"), "-o", str(tmp_path / "x.txt")
    )
    assert code == 2 and "x.txt" in err


def test_python_dash_m_trackkit_runs():
    done = subprocess.run(
        [sys.executable, "-m", "trackkit", "validate", str(EXAMPLES / "hillclimb-pikes.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "hillclimb-pikes.yaml: valid" in done.stdout


def test_validate_findings_show_the_line_in_text_and_json():
    broken = str(EXAMPLES / "broken-stage.yaml")
    lines = (EXAMPLES / "broken-stage.yaml").read_text(encoding="utf-8").splitlines()
    want = next(n for n, text in enumerate(lines, start=1) if "- tile: 999x" in text)
    _, out, _ = run("validate", broken)
    (s101,) = [line for line in out.splitlines() if " S101 " in line]
    assert f"tiles[2], line {want}:" in s101
    _, out, _ = run("validate", "--format", "json", broken)
    (entry,) = json.loads(out)["files"]
    (finding,) = [f for f in entry["findings"] if f["code"] == "S101"]
    assert finding["location"] == {
        "file": broken,
        "tile_index": 3,
        "tile": "999x",
        "path": "tiles[2]",
        "line": want,
    }


def test_validate_rekee_file_with_a_wrong_id_reports_the_break_once(tmp_path: Path):
    data = json.loads((EXAMPLES / "col-de-turini.rekee.json").read_text(encoding="utf-8"))
    data["tiles"][5]["id"] = "224x"
    data["tiles"].reverse()
    path = tmp_path / "turini.rekee.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    code, out, _ = run("validate", "--format", "json", str(path))
    assert code == 1
    (entry,) = json.loads(out)["files"]
    assert sorted(f["code"] for f in entry["findings"]) == ["S101", "S117", "S118"]
    assert all(f["location"]["line"] for f in entry["findings"])


def test_tiles_show_json_either_place_of_the_option():
    code, out, _ = run("tiles", "--format", "json", "show", "224b")
    assert code == 0
    face = json.loads(out)["face"]
    assert (face["id"], face["corners"], face["shortcuts"]) == ("224b", ["3/4"], [5])
    assert face["road"]["sections"][1]["kind"] == "corner"
    assert face["lanes"] == {"1": 2, "3": 2}
    code, again, _ = run("tiles", "show", "224b", "--format", "json")
    assert code == 0 and again == out
    code, text, _ = run("tiles", "--format", "json", "show", "224b", "--format", "text")
    assert code == 0 and text.startswith("224b: dirt-core")


def test_tiles_show_unknown_id_suggests_the_ids_meant():
    code, out, err = run("tiles", "show", "224x")
    assert code == 2 and out == ""
    assert "unknown tile '224x'" in err and "224a or 224b" in err
    code, _, err = run("tiles", "--format", "json", "show", "208")
    assert code == 2 and "208a or 208b" in err


def _listed(*args: str) -> list[str]:
    code, out, err = run("tiles", *args)
    assert code == 0, err
    return [line.split()[0] for line in out.splitlines()]


def test_tiles_filters_by_surface_shape_and_limit():
    from trackkit.tiles.library import default_library

    lib = default_library()
    snow = _listed("--surface", "snow")
    assert snow and all(lib.get(i).surface.value == "snow" for i in snow)  # type: ignore[union-attr]
    assert len(snow) == sum(1 for f in lib if f.surface.value == "snow")
    assert _listed("--series", "dirt", "--shape", "start") == ["202a", "202b", "301a", "301b"]
    assert _listed("--series", "dirt", "--shape", "finish") == ["203a", "203b", "302a", "302b"]
    # a GT start/finish line is both
    gt_lines = {"102a", "102b", "131a", "131b", "139a", "139b", "140b", "143b", "144b"}
    assert set(_listed("--series", "gt", "--shape", "start")) == gt_lines
    assert set(_listed("--series", "gt", "--shape", "finish")) == gt_lines
    assert set(_listed("--shape", "scenery")) == {f.id for f in lib if f.kind.value == "scenery"}
    assert _listed("--shape", "s-bend") == _listed("--shape", "kink")
    assert set(_listed("--shape", "chicane")) == {"231a", "231b"}
    # --limit N: a corner with N on either lane
    twos = _listed("--limit", "2")
    assert "217b" in twos and "210a" in twos  # corners 2/3 and 1/2
    assert "224b" not in twos  # 3/4
    assert "231a" in _listed("--limit", "5")  # the chicane's limit


def test_tiles_filters_combine():
    both = _listed("--box", "dirt-core", "--shape", "hairpin", "--limit", "1")
    assert both
    assert set(both) == set(_listed("--box", "dirt-core")) & set(
        _listed("--shape", "hairpin")
    ) & set(_listed("--limit", "1"))
    code, out, _ = run("tiles", "--surface", "asphalt", "--shape", "scenery", "--format", "json")
    assert code == 0 and json.loads(out) == {"faces": []}


def test_tiles_filters_refuse_unknown_values_naming_the_accepted_ones():
    code, _, err = run("tiles", "--shape", "loop")
    assert code == 2 and "hairpin" in err and "s-bend" in err
    code, _, err = run("tiles", "--surface", "mud")
    assert code == 2 and "gravel" in err and "snow" in err
    code, _, err = run("tiles", "--limit", "7")
    assert code == 2 and "--limit" in err


def test_tiles_shape_choices_are_the_ones_describe_knows():
    from trackkit.cli.commands.tiles import Shape, Surface
    from trackkit.tiles.describe import SHAPES, SURFACES

    assert tuple(s.value for s in Shape) == SHAPES
    assert tuple(s.value for s in Surface) == SURFACES
