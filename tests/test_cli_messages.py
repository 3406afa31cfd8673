"""The small words of the command line: what a command says when nothing matches, a file
lacks its format, an option does not apply; the GT summary and ``validate --simulate``
giving what their help says; help text; a bend noted as laid (S140)."""

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


def test_the_gt_summary_counts_skew_edges(tmp_path: Path) -> None:
    # 131a | 121a | 121a: the skew straights meet skewL to skewL and skewR to skewR
    stage = tmp_path / "skew.yaml"
    stage.write_text(
        "format: trackkit-stage/1\nkind: point-to-point\ntiles:\n  - tile: 131a\n"
        "  - tile: 121a\n    enter: 2\n  - tile: 121a\n    enter: 4\n",
        encoding="utf-8",
    )
    _, (entry,) = validate_json(str(stage))
    assert entry["summary"]["skew_edges"] == 2  # tiles 1|2 and 2|3, three lanes each
    code, out, _ = run("validate", str(stage))
    assert code == 1 and "2 skew edges" in out  # S124: no finish line (the summary all the same)
    _, (core,) = validate_json(str(EXAMPLES / "gt-core-circuit.yaml"))
    assert core["summary"]["skew_edges"] == 0  # core-box tiles have no skew ends
    code, out, _ = run("validate", str(EXAMPLES / "gt-core-circuit.yaml"))
    assert code == 0 and "skew" not in out


def test_validate_simulate_gives_what_its_help_says_for_dirt_and_gt() -> None:
    code, out, _ = run("validate", "--help")
    assert code == 0
    text = " ".join(out.replace("│", " ").split())
    assert "par time" in text and "GT track gets no par time" in text
    _, (dirt,) = validate_json("--simulate", "4", str(EXAMPLES / "col-de-turini.yaml"))
    assert isinstance(dirt["summary"]["par_time"], int) and dirt["summary"]["par_time"] > 0
    _, (gt,) = validate_json("--simulate", "4", str(EXAMPLES / "gt-core-circuit.yaml"))
    sim = gt["summary"]["simulation"]
    assert "par_time" not in gt["summary"]
    assert {"win_rate_by_grid_slot", "overtakes_per_lap", "decided_on_lap_1"} <= set(sim)


def test_tiles_says_when_no_face_matches_the_filters() -> None:
    code, out, err = run("tiles", "--series", "gt", "--surface", "gravel")
    assert code == 0 and out == ""
    assert "no faces match" in err and "--series gt" in err and "--surface gravel" in err
    code, out, err = run("tiles", "--series", "gt", "--surface", "asphalt")
    assert code == 0 and out and "no faces match" not in err


def test_replay_of_a_file_without_format_says_so(tmp_path: Path) -> None:
    sim = tmp_path / "sim.json"
    code, out, _ = run(
        "simulate", str(EXAMPLES / "col-de-turini.yaml"), "--races", "2", "--format", "json"
    )
    assert code == 0
    sim.write_text(out, encoding="utf-8")
    code, _, err = run("replay", str(sim))
    assert code == 2 and "sim.json" in err
    assert "no 'format'" in err and "None" not in err and "--replay" in err


def test_simulate_json_error_names_the_invalid_stage_file() -> None:
    broken = str(EXAMPLES / "broken-stage.yaml")
    code, out, _ = run("simulate", broken, "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["error"]["file"] == broken and doc["error"]["exit_status"] == 1
    assert not doc["error"]["message"].startswith(broken)  # named once, in "file"
    assert [f["file"] for f in doc["files"]] == [broken]  # the findings, as before


def test_simulate_refuses_grid_on_a_dirt_stage_like_laps() -> None:
    turini = str(EXAMPLES / "col-de-turini.yaml")
    for option, value in (("--grid", "given"), ("--grid", "drawn"), ("--laps", "2")):
        code, _, err = run("simulate", turini, "--races", "1", option, value)
        assert code == 2 and option in err and "GT" in err
    gt = str(EXAMPLES / "gt-core-circuit.yaml")
    code, out, _ = run("simulate", gt, "--races", "1", "--grid", "given", "--format", "json")
    assert code == 0 and json.loads(out)["settings"]["grid"] == "given"
    code, out, _ = run("simulate", gt, "--races", "1", "--format", "json")
    assert code == 0 and json.loads(out)["settings"]["grid"] == "drawn"  # the default


def test_help_shows_no_value_for_flags_and_names_arguments_in_capitals() -> None:
    commands = [
        ["validate"],
        ["simulate"],
        ["replay"],
        ["render"],
        ["print"],
        ["convert"],
        ["generate"],
        ["schema"],
        ["tiles", "sheet"],
        ["car", "suggest"],
        ["studio"],
    ]
    for command in commands:
        code, out, _ = run(*command, "--help")
        assert code == 0
        usage = next(line for line in out.splitlines() if "Usage:" in line)
        assert not any(c.islower() for c in usage.split("[OPTIONS]")[1]), usage
        for line in out.splitlines():
            if "<bool>" in line:  # typer's own --help option keeps its hint (see the report)
                assert "--help" in line, (command, line)
    code, out, _ = run("validate", "--help")
    assert "{FILES}..." in out


def test_a_bend_without_turn_is_noted_with_the_way_it_was_laid_s140(tmp_path: Path) -> None:
    from trackkit.formats import load_stage
    from trackkit.stage.assemble import lay_out

    def stage(bend: dict[str, Any]) -> Path:
        path = tmp_path / "s.yaml"
        tiles = [{"tile": "202a"}, bend, {"tile": "203a"}]
        path.write_text(
            json.dumps({"format": "trackkit-stage/1", "tiles": tiles}), encoding="utf-8"
        )
        return path

    _, (entry,) = validate_json(str(stage({"tile": "217a"})))
    (note,) = [f for f in entry["findings"] if f["code"] == "S140"]
    assert note["severity"] == "info" and note["location"]["tile"] == "217a"
    way = "left" if "turning left" in note["message"] else "right"
    assert f"turning {way}" in note["message"]
    laid = [t.hex for t in lay_out(load_stage(stage({"tile": "217a"}))).tiles]
    # the way the note names is the way it was laid: writing it changes nothing
    said = [t.hex for t in lay_out(load_stage(stage({"tile": "217a", "turn": way}))).tiles]
    assert said == laid
    for spec in ({"tile": "217a", "turn": way}, {"tile": "217a", "enter": 3}, {"tile": "205a"}):
        _, (entry,) = validate_json(str(stage(spec)))
        assert "S140" not in codes(entry), spec  # said, or a straight: nothing to note
    # a GT bend too
    gt = tmp_path / "gt.yaml"
    gt.write_text(
        "format: trackkit-stage/1\nkind: point-to-point\ntiles:\n  - tile: 102a\n"
        "  - tile: 105a\n  - tile: 103a\n",
        encoding="utf-8",
    )
    _, (entry,) = validate_json(str(gt))
    assert [f["location"]["tile"] for f in entry["findings"] if f["code"] == "S140"] == ["105a"]


def test_tiles_show_says_scenery_has_no_road() -> None:
    for face, words in (("901a", "scenery, no road"), ("201a", "service area, no road")):
        code, out, _ = run("tiles", "show", face)
        first = out.splitlines()[0]
        assert code == 0 and words in first and "none" not in first, first
    code, out, _ = run("tiles", "show", "217a")
    assert "gravel, low danger" in out.splitlines()[0]


def test_print_names_letter_paper_as_people_write_it(tmp_path: Path) -> None:
    out_svg = tmp_path / "a.svg"
    turini = str(EXAMPLES / "col-de-turini.yaml")
    code, out, _ = run("print", turini, "-o", str(out_svg), "--paper", "letter")
    assert code == 0 and "of Letter" in out and "LETTER" not in out
    pages = [p.read_text(encoding="utf-8") for p in sorted(tmp_path.glob("a*.svg"))]
    assert "Letter" in pages[0] and not any("LETTER" in p for p in pages)
    code, out, _ = run("print", turini, "-o", str(tmp_path / "b.svg"), "--paper", "a4")
    assert code == 0 and "of A4" in out
