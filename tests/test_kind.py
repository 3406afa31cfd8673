"""Which event a stage is for: the file's ``kind``, ``--kind``, or inferred (H404).

A stage file without a ``kind`` (every Rekee and ``.rgt`` file) is a hillclimb when it holds
a climb tile or a climb token (HILLCLIMB-1), with a note saying so; every command that reads
a stage takes ``--kind`` to say otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from stagekit import REPO, make_stage
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.models import Kind

EXAMPLES = REPO / "examples"
runner = CliRunner()

CLIMB_TILE = ("202a", {"tile": "418a", "climb": "up"}, "203a")
CLIMB_TOKEN = ("202a", {"tile": "205a", "tokens": [{"token": "climb", "value": -1}]}, "203a")


def test_h404_a_stage_without_kind_with_a_climb_tile_is_a_hillclimb() -> None:
    # rule: HILLCLIMB-1 (a climb tile makes the stage a hillclimb when the file is silent)
    report = validate(make_stage(*CLIMB_TILE))
    assert report.kind is Kind.HILLCLIMB
    assert report.summary.kind == "hillclimb"
    (note,) = [f for f in report.findings if f.code == "H404"]
    assert note.location.tile_index == 2 and note.location.tile == "418a"
    assert report.valid


def test_a_climb_token_makes_a_hillclimb_too() -> None:
    report = validate(make_stage(*CLIMB_TOKEN))
    assert report.kind is Kind.HILLCLIMB and "H404" in report.codes


def test_without_climb_the_default_is_a_rally_with_no_note() -> None:
    report = validate(make_stage("202a", "205a", "203a"))
    assert report.kind is Kind.RALLY and report.codes == []


def test_the_files_kind_and_the_option_win() -> None:
    as_rally = validate(make_stage(*CLIMB_TILE, kind="rally"))
    assert as_rally.kind is Kind.RALLY and "H404" not in as_rally.codes
    assert "H403" in as_rally.codes  # climb lines in a rally still apply
    forced = validate(make_stage(*CLIMB_TILE), kind=Kind.RALLY)
    assert forced.kind is Kind.RALLY and "H404" not in forced.codes
    forced_up = validate(make_stage("202a", "205a", "203a"), kind=Kind.HILLCLIMB)
    assert forced_up.kind is Kind.HILLCLIMB and "H401" in forced_up.codes


def test_an_rgt_hillclimb_is_simulated_as_a_hillclimb_with_a_note() -> None:
    rgt = EXAMPLES / "hillclimb-pikes.rgt"
    assert load_stage(rgt).kind is None  # editor files hold no kind
    result = runner.invoke(app, ["simulate", str(rgt), "--races", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["settings"]["hillclimb"] is True
    assert "note" in result.stderr and "hillclimb" in result.stderr
    result = runner.invoke(
        app, ["simulate", str(rgt), "--races", "1", "--format", "json", "--kind", "rally"]
    )
    assert json.loads(result.stdout)["settings"]["hillclimb"] is False
    assert "note" not in result.stderr


def test_convert_writes_the_kind_it_infers(tmp_path: Path) -> None:
    out = tmp_path / "pikes.yaml"
    result = runner.invoke(app, ["convert", str(EXAMPLES / "hillclimb-pikes.rgt"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(out.read_text(encoding="utf-8"))["kind"] == "hillclimb"
    assert "hillclimb" in result.stderr
    result = runner.invoke(
        app,
        ["convert", str(EXAMPLES / "hillclimb-pikes.rgt"), "-o", str(out), "--kind", "rally"],
    )
    assert yaml.safe_load(out.read_text(encoding="utf-8"))["kind"] == "rally"


def test_convert_to_an_editor_file_warns_only_when_the_kind_would_change(tmp_path: Path) -> None:
    native = EXAMPLES / "hillclimb-pikes.yaml"
    result = runner.invoke(app, ["convert", str(native), "-o", str(tmp_path / "p.rgt")])
    assert "cannot hold kind" not in result.stderr  # read back, it is a hillclimb again
    assert validate(load_stage(tmp_path / "p.rgt")).kind is Kind.HILLCLIMB
    result = runner.invoke(
        app, ["convert", str(native), "-o", str(tmp_path / "q.rgt"), "--kind", "rally"]
    )
    assert "cannot hold kind: rally" in result.stderr and "--kind rally" in result.stderr


def test_validate_kind_option_and_json_summary() -> None:
    rgt = str(EXAMPLES / "hillclimb-pikes.rgt")
    result = runner.invoke(app, ["validate", rgt, "--format", "json"])
    entry = json.loads(result.stdout)["files"][0]
    assert entry["summary"]["kind"] == "hillclimb"
    assert "H404" in [f["code"] for f in entry["findings"]]
    result = runner.invoke(app, ["validate", rgt, "--format", "json", "--kind", "rally"])
    assert json.loads(result.stdout)["files"][0]["summary"]["kind"] == "rally"


def test_render_and_print_take_the_kind_too(tmp_path: Path) -> None:
    rgt = str(EXAMPLES / "hillclimb-pikes.rgt")
    for command, suffix in (("render", "svg"), ("print", "svg")):
        inferred = tmp_path / f"inferred-{command}.{suffix}"
        result = runner.invoke(app, [command, rgt, "-o", str(inferred)])
        assert result.exit_code == 0, result.output
        assert "note" in result.stderr and "hillclimb" in result.stderr
        assert "Hillclimb ·" in inferred.read_text(encoding="utf-8")
        forced = tmp_path / f"forced-{command}.{suffix}"
        result = runner.invoke(app, [command, rgt, "-o", str(forced), "--kind", "rally"])
        assert result.exit_code == 0 and "note" not in result.stderr
        text = forced.read_text(encoding="utf-8")
        assert "Rally ·" in text and "Hillclimb ·" not in text


P2P = """\
format: trackkit-stage/1
name: Short sprint
{kind}tiles:
  - tile: 144b
    road: A
    enter: 1
  - tile: 121b
  - tile: 143b
    road: B
    enter: 4
"""


def test_kind_point_to_point_lays_out_a_gt_track_as_the_files_kind_would(tmp_path: Path) -> None:
    """--kind point-to-point on a GT file without kind (every editor file) ends the road at
    its finish line, as 'kind: point-to-point' in the file does: not a lap left open."""
    said = tmp_path / "said.yaml"
    said.write_text(P2P.format(kind="kind: point-to-point\n"), encoding="utf-8")
    silent = tmp_path / "silent.yaml"
    silent.write_text(P2P.format(kind=""), encoding="utf-8")
    by_file = validate(load_stage(said))
    by_option = validate(load_stage(silent), kind=Kind.POINT_TO_POINT)
    assert by_option.kind is by_file.kind is Kind.POINT_TO_POINT
    assert by_option.summary == by_file.summary
    assert by_option.layout.circuit is False
    done = runner.invoke(
        app,
        ["simulate", str(silent), "--kind", "point-to-point", "--races", "3", "--format", "json"],
    )
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["finish_rate"] == 1.0


def test_a_kind_option_of_the_other_series_is_not_blamed_on_a_line_of_the_file() -> None:
    report = validate(load_stage(EXAMPLES / "col-de-turini.yaml"), kind=Kind.CIRCUIT)
    (wrong,) = [f for f in report.findings if f.code == "S122"]
    assert wrong.location.path is None and wrong.location.line is None
    assert "--kind" in wrong.message and "--kind rally" in (wrong.fix or "")
