"""The command line: exit codes, JSON document, tiles, schema and convert (DESIGN.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from trackkit.cli import app

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
    assert unusable == {"file": str(missing), "valid": False, "error": unusable["error"]}


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
    assert len(json.loads(out)["faces"]) == 130
    code, _, err = run("tiles", "--box", "nope")
    assert code == 2 and "unknown box" in err


def test_tiles_show_describes_a_face_in_words():
    code, out, _ = run("tiles", "show", "224B")
    assert code == 0
    assert "inner lane 2 space(s) limit 3, outer lane 3 space(s) limit 4" in out
    assert "shortcut: 2 space(s), limit 5" in out
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
