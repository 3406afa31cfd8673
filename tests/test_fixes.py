"""Mechanical fixes: the edits findings carry, applying them, and ``validate --fix``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from stagekit import REPO, make_stage
from typer.testing import CliRunner

from trackkit.checks.fixes import EditError, apply_edit, fix_stage, rewalk, set_values
from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_source, parse_source, parse_stage
from trackkit.formats.rewrite import rewrite_text
from trackkit.models.findings import FixEdit

runner = CliRunner()


def _only(stage_findings: list, code: str):  # type: ignore[no-untyped-def,type-arg]
    (f,) = [f for f in stage_findings if f.code == code]
    return f


# --- the edits findings carry --------------------------------------------------------


def test_s102_turn_fix_carries_the_edit_that_mends_it() -> None:
    # rule: BOARD-1 (roads meet edge to edge)
    stage = make_stage("202a", {"tile": "205a", "at": [1, 0], "dir": 1}, "203a")
    miss = _only(validate(stage).findings, "S102")
    (edit,) = miss.edits
    assert edit.path == "tiles[1]" and edit.values == {"at": [1, 0], "dir": 0}
    assert validate(apply_edit(stage, edit)).valid


def test_s117_turn_of_a_crossing_carries_its_edit() -> None:
    # rule: BOARD-1 (a GT track meeting a crossing again drives its other road)
    doc = json.loads((REPO / "examples" / "gt-figure-eight.rekee.json").read_text("utf-8"))
    crossing = next(t for t in doc["tiles"] if t["id"] == "141b")
    crossing["dir"] = (crossing["dir"] + 1) % 6
    stage = parse_stage(json.dumps(doc))
    brk = _only(validate(stage).findings, "S117")
    (edit,) = brk.edits
    assert edit.values["dir"] == (crossing["dir"] - 1) % 6
    # an editor file's road is walked again once the crossing is turned back
    assert validate(rewalk(apply_edit(stage, edit))).valid
    assert fix_stage(stage, placed=True).stage == parse_stage(
        (REPO / "examples" / "gt-figure-eight.rekee.json").read_text("utf-8")
    )


def test_s101_one_likely_id_is_one_edit_several_are_choices() -> None:
    one = _only(validate(make_stage("202a", "205a", "203aa")).findings, "S101")
    assert [e.values for e in one.edits] == [{"tile": "203a"}]
    two = _only(validate(make_stage("202a", "205a", "203x")).findings, "S101")
    assert [e.values["tile"] for e in two.edits] == ["203a", "203b"]
    assert {e.path for e in two.edits} == {"tiles[2]"}


def test_h404_the_inferred_kind_is_the_edit() -> None:
    # rule: HILLCLIMB-1 (a stage with a climb tile is a hillclimb)
    stage = make_stage("202a", {"tile": "418a", "climb": "up"}, "203a")
    note = _only(validate(stage).findings, "H404")
    (edit,) = note.edits
    assert edit.path == "" and edit.values == {"kind": "hillclimb"}
    fixed = apply_edit(stage, edit)
    assert fixed.kind is not None and fixed.kind.value == "hillclimb"
    assert "H404" not in validate(fixed).codes


def test_s129_offers_each_road_of_the_junction() -> None:
    # rule: BOARD-2 (at a GT junction the stage tile says which road the track takes)
    from trackkit.tiles.library import default_library

    junction = next(f for f in default_library() if f.id.startswith("151"))
    stage = make_stage("102a", junction.id)
    found = [f for f in validate(stage).findings if f.code == "S129"]
    assert found, validate(stage).codes
    roads = [e.values["road"] for e in found[0].edits]
    assert len(roads) >= 2 and len(set(roads)) == len(roads)
    assert "S129" not in validate(apply_edit(stage, found[0].edits[0])).codes


def test_json_output_lists_the_edits() -> None:
    report = validate(make_stage("202a", {"tile": "205a", "at": [1, 0], "dir": 1}, "203a"))
    entry = report.to_json()
    (miss,) = [f for f in entry["findings"] if f["code"] == "S102"]
    assert miss["edits"] == [
        {
            "label": "turn tile 2 (205a) to dir 0",
            "path": "tiles[1]",
            "values": {"at": [1, 0], "dir": 0},
        }
    ]


# --- applying edits ------------------------------------------------------------------


def test_an_edit_that_does_not_fit_is_an_error_not_a_crash() -> None:
    stage = make_stage("202a", "203a")
    with pytest.raises(EditError, match="no such tile"):
        apply_edit(stage, FixEdit(label="x", path="tiles[7]", values={"dir": 1}))
    with pytest.raises(EditError, match="dir"):
        set_values(stage, "tiles[1]", {"dir": 9, "at": [1, 0]})


def test_set_values_keeps_the_keys_the_file_gave() -> None:
    stage = make_stage("202a", "203a")
    changed = set_values(stage, "tiles[1]", {"tile": "203b"})
    assert changed.model_dump(exclude_unset=True) == {
        "format": "trackkit-stage/1",
        "tiles": [{"tile": "202a"}, {"tile": "203b"}],
    }


def test_fix_stage_applies_single_edits_and_leaves_choices() -> None:
    stage = make_stage(
        "202a", {"tile": "205a", "at": [1, 0], "dir": 1}, {"tile": "203x", "at": [2, 0], "dir": 0}
    )
    outcome = fix_stage(stage)
    assert [code for code, _ in outcome.applied] == ["S102"]
    assert [f.code for f in outcome.choices] == ["S101"]
    assert outcome.stage.tiles[1].dir == 0 and outcome.stage.tiles[2].tile == "203x"


# --- writing the file back -----------------------------------------------------------

STAGE_YAML = """\
# A stage with a tile turned by hand.
format: trackkit-stage/1
name: "Turned"          # quoted on purpose
kind: rally
tiles:
  - tile: 202a            # start
  - tile: 205a
    at: [1, 0]
    dir: 1                # wrong way
  - tile: 203a            # finish
"""


def test_yaml_rewrite_keeps_comments_quotes_and_key_order() -> None:
    source = parse_source(STAGE_YAML, file="s.yaml")
    text = rewrite_text(source, set_values(source.stage, "tiles[1]", {"dir": 0}))
    assert text == STAGE_YAML.replace("dir: 1 ", "dir: 0 ")


def test_yaml_rewrite_inserts_and_removes_tiles_where_they_go() -> None:
    source = parse_source(STAGE_YAML, file="s.yaml")
    data = source.stage.model_dump(mode="json", exclude_unset=True)
    data["tiles"].insert(2, {"tile": "206a", "tokens": [{"token": "water"}]})
    data["tiles"].pop(0)
    data["author"] = "me"
    new = type(source.stage).model_validate(data)
    text = rewrite_text(source, new)
    lines = text.splitlines()
    assert "# start" not in text and "# finish" in text and "# wrong way" in text
    assert lines[2:4] == ['name: "Turned"          # quoted on purpose', "author: me"]
    assert "  - tile: 206a\n    tokens: [" in text  # on one line, as dump_native writes them
    assert parse_source(text, file="s.yaml").stage == new


def test_json_rewrite_keeps_key_order_and_indent(tmp_path: Path) -> None:
    doc = {"name": "J", "format": "trackkit-stage/1", "tiles": [{"tile": "202a"}, {"tile": "203a"}]}
    source = parse_source(json.dumps(doc, indent=4), file="s.json")
    text = rewrite_text(source, set_values(source.stage, "", {"kind": "rally"}))
    assert list(json.loads(text)) == ["name", "format", "kind", "tiles"]
    assert text.startswith('{\n    "name": "J"')


def test_editor_files_are_written_whole_in_their_format() -> None:
    source = load_source(REPO / "examples" / "col-de-turini.rekee.json")
    new = set_values(source.stage, "tiles[1]", {"tile": "205a"})
    text = rewrite_text(source, new)
    again = parse_source(text, file="t.rekee.json")
    assert again.format == "rekee" and again.stage.tiles[1].tile == "205a"


# --- validate --fix ------------------------------------------------------------------


def test_validate_fix_mends_the_file_and_reports_what_is_left(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(STAGE_YAML, encoding="utf-8")
    result = runner.invoke(app, ["validate", "--fix", str(path)])
    assert result.exit_code == 0, result.output
    assert "S102: turn tile 2 (205a) to dir 0" in result.output
    assert path.read_text(encoding="utf-8") == STAGE_YAML.replace("dir: 1 ", "dir: 0 ")
    assert not [p for p in tmp_path.iterdir() if p.name != "s.yaml"]  # no temporary file left


def test_validate_fix_json_lists_the_fixes_and_leaves_choices(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(STAGE_YAML.replace("tile: 203a", "tile: 203x"), encoding="utf-8")
    result = runner.invoke(app, ["validate", "--fix", "--format", "json", str(path)])
    assert result.exit_code == 1
    (entry,) = json.loads(result.output)["files"]
    assert [f["code"] for f in entry["fixes"]] == ["S102"]
    assert [f["code"] for f in entry["findings"] if f["severity"] == "error"] == ["S101", "S107"]
    assert yaml.safe_load(path.read_text("utf-8"))["tiles"][2]["tile"] == "203x"


def test_validate_fix_leaves_a_file_without_fixes_untouched(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    text = (REPO / "examples" / "col-de-turini.yaml").read_text("utf-8")
    path.write_text(text, encoding="utf-8")
    before = os.stat(path).st_mtime_ns
    result = runner.invoke(app, ["validate", "--fix", str(path)])
    assert result.exit_code == 0 and "no mechanical fix" in result.output
    assert path.read_text("utf-8") == text and os.stat(path).st_mtime_ns == before


def test_validate_fix_of_a_read_only_file_is_refused_and_it_stays(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(STAGE_YAML, encoding="utf-8")
    path.chmod(0o444)
    result = runner.invoke(app, ["validate", "--fix", str(path)])
    assert result.exit_code == 2 and "read-only" in result.output
    assert path.read_text("utf-8") == STAGE_YAML


def test_validate_fix_of_an_editor_file_leaves_out_what_it_cannot_hold(tmp_path: Path) -> None:
    # rule: HILLCLIMB-1 (an editor file has no kind: its hillclimb is inferred, H404)
    path = tmp_path / "pikes.rgt"
    text = (REPO / "examples" / "hillclimb-pikes.rgt").read_text("utf-8")
    path.write_text(text, encoding="utf-8")
    before = os.stat(path).st_mtime_ns
    result = runner.invoke(app, ["validate", "--fix", str(path)])
    assert result.exit_code == 0 and "no mechanical fix" in result.output
    assert "H404" in result.output  # still noted: the file cannot say 'kind'
    assert path.read_text("utf-8") == text and os.stat(path).st_mtime_ns == before
