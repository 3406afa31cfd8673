"""Checking a stage's copies against the boxes owned (``validate --boxes``, a native file's
``boxes``), for editor files and native files of both series, and unknown box names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from stagekit import REPO
from typer.testing import CliRunner

from trackkit.cli.app import app

EXAMPLES = REPO / "examples"


runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def validate_json(*args: str) -> tuple[int, list[dict[str, Any]]]:
    code, out, _ = run("validate", "--format", "json", *args)
    return code, json.loads(out)["files"]


def codes(entry: dict[str, Any]) -> list[str]:
    return [f["code"] for f in entry["findings"]]


def test_validate_boxes_checks_a_rekee_gt_track_against_the_boxes_given() -> None:
    eight = str(EXAMPLES / "gt-figure-eight.rekee.json")
    code, (entry,) = validate_json(eight)
    assert code == 0 and "I301" not in codes(entry)  # no boxes named: nothing owned to check
    code, (entry,) = validate_json("--boxes", "gt-core", eight)
    assert code == 1 and codes(entry) == ["I301"]  # 141b comes from Team Challenge
    (i301,) = entry["findings"]
    assert i301["location"]["tile"] == "141b"
    code, (entry,) = validate_json("--boxes", "gt-core", "--boxes", "gt-team-challenge", eight)
    assert code == 0 and entry["valid"]


def test_validate_boxes_checks_dirt_rekee_and_rgt_files_copies_and_tokens() -> None:
    rekee, rgt = str(EXAMPLES / "col-de-turini.rekee.json"), str(EXAMPLES / "hillclimb-pikes.rgt")
    code, (turini, pikes) = validate_json("--boxes", "dirt-core", rekee, rgt)
    assert code == 1
    assert set(codes(turini)) == {"I301"}  # 902a: a Copilot filler
    assert {"I301", "I304"} <= set(codes(pikes))  # Monte-Carlo tiles, The Climb's tokens
    owned = ["--boxes", "dirt-core", "--boxes", "dirt-monte-carlo", "--boxes", "dirt-climb"]
    code, (turini, pikes) = validate_json(*owned, "--boxes", "dirt-copilot", rekee, rgt)
    assert not {"I301", "I302", "I304"} & set(codes(turini) + codes(pikes))


def test_validate_boxes_counts_copies_i302(tmp_path: Path) -> None:
    # 205 comes once in the core box: two copies of it need two boxes
    stage = tmp_path / "twice.rekee.json"
    tiles = [
        {"q": 0, "r": 0, "id": "202a", "dir": 0},
        {"q": 1, "r": 0, "id": "205a", "dir": 0},
        {"q": 2, "r": 0, "id": "205b", "dir": 0},
        {"q": 3, "r": 0, "id": "203a", "dir": 0},
    ]
    stage.write_text(json.dumps({"title": "t", "author": "", "tiles": tiles}), encoding="utf-8")
    _, (entry,) = validate_json("--boxes", "dirt-core", str(stage))
    assert "I302" in codes(entry)
    _, (entry,) = validate_json("--boxes", "dirt-core", "--boxes", "dirt-core", str(stage))
    assert "I302" not in codes(entry)


def test_validate_boxes_refuses_an_unknown_box_with_a_suggestion() -> None:
    eight = str(EXAMPLES / "gt-figure-eight.rekee.json")
    code, out, err = run("validate", "--boxes", "gt-core-box", eight)
    assert code == 2 and out == ""
    assert "gt-core-box" in err and "did you mean gt-core?" in err
    code, out, _ = run("validate", "--format", "json", "--boxes", "dirt-cor", eight)
    assert code == 2
    error = json.loads(out)["error"]
    assert "did you mean dirt-core?" in error["message"] and error["exit_status"] == 2


def test_a_native_file_naming_an_unknown_box_gets_i305_with_a_suggestion(tmp_path: Path) -> None:
    text = (EXAMPLES / "gt-core-circuit.yaml").read_text(encoding="utf-8")
    assert "boxes: [gt-core]\n" in text
    stage = tmp_path / "typo.yaml"
    stage.write_text(text.replace("boxes: [gt-core]", "boxes: [gt-core-box]"), encoding="utf-8")
    code, (entry,) = validate_json(str(stage))
    assert code == 1
    (i305,) = [f for f in entry["findings"] if f["code"] == "I305"]
    assert i305["location"]["path"] == "boxes[0]" and i305["location"]["line"] == 11
    assert "did you mean gt-core?" in i305["message"]


def test_generate_refuses_an_unknown_gt_box_with_the_same_check(tmp_path: Path) -> None:
    code, _, err = run(
        "generate", "--ruleset", "gt", "--boxes", "gt-core-box", "-o", str(tmp_path / "out")
    )
    assert code == 2 and "did you mean gt-core?" in err
    assert not (tmp_path / "out").exists()
