"""What users hit on real tracks (issue 19): boxes for editor files, art variants kept by
convert, .rgt places kept as read, the GT summary and par time, and the small words of
the command line."""

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


# --- validate --boxes: the inventory check for every file format, both series ---------


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


# --- art variants (103a-2) survive convert in every direction --------------------------


def _ids_in(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8")) if path.suffix != ".yaml" else None
    if data is None:
        import yaml

        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return [t["tile"] for t in data["tiles"]]
    if "Tuiles" in data:
        return [t["TuileId"] for t in data["Tuiles"]]
    return [t["id"] for t in data["tiles"]]


def test_convert_keeps_art_variants_native_rekee_rgt_and_back(tmp_path: Path) -> None:
    source = EXAMPLES / "gt-figure-eight.rekee.json"
    assert _ids_in(source).count("103a-2") == 1  # the example draws one 103a in its 2nd art
    native, rgt, rekee = tmp_path / "a.yaml", tmp_path / "b.rgt", tmp_path / "c.rekee.json"
    for src, out in ((source, native), (native, rgt), (rgt, rekee), (rekee, tmp_path / "d.yaml")):
        code, _, err = run("convert", str(src), "-o", str(out))
        assert code == 0, err
        assert "warning" not in err  # nothing lost, so nothing to say
    assert _ids_in(native).count("103a-2") == 1 and "103a" in _ids_in(native)
    assert _ids_in(rgt).count("103A-2") == 1  # the official editor's upper-case face letter
    assert _ids_in(rekee).count("103a-2") == 1
    assert sorted(_ids_in(tmp_path / "d.yaml")) == sorted(_ids_in(native))


def test_a_conversion_that_would_lose_an_art_variant_says_so() -> None:
    from trackkit.formats import load_source
    from trackkit.formats.roundtrip import conversion_losses
    from trackkit.formats.write import dump_stage

    source = load_source(EXAMPLES / "gt-figure-eight.rekee.json")
    text = dump_stage(source.stage, "rekee")
    assert conversion_losses(source, source.stage, "rekee", text) == []
    lost = conversion_losses(source, source.stage, "rekee", text.replace("103a-2", "103a"))
    assert len(lost) == 1 and "103a-2" in lost[0]


# --- GT summary: skew edges; validate --simulate says what a GT track gets ---------------


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


# --- .rgt: places kept as read, relative to the first tile in native files; tokens tidy -


def _shared_sample(name: str) -> Path | None:
    """A sample of ../shared/data/samples (beside the checkout, or beside its worktrees)."""
    for base in (REPO.parent, REPO.parent.parent):
        path = base / "shared" / "data" / "samples" / name
        if path.is_file():
            return path
    return None


#: An .rgt stage as the official editor writes it, its start not on the editor's first hex
#: (as chicane-example2.rgt: X 55), tokens with the editor's single-precision offsets.
EDITOR_RGT = {
    "Path": "",
    "Name": "Chicane",
    "Author": "me",
    "Tuiles": [
        {"X": 56, "Y": 54, "Orientation": 5, "TuileId": "203A"},
        {"X": 55, "Y": 52, "Orientation": 5, "TuileId": "202A"},
        {
            "X": 55,
            "Y": 53,
            "Orientation": 5,
            "TuileId": "205A",
            "Tokens": [
                {"X": 0.0, "Y": 0.0, "Orientation": 180.0, "TokenId": "dirt1"},
                {"X": -0.5715768, "Y": 0.0, "Orientation": 0.0, "TokenId": "dirt2"},
            ],
        },
    ],
}


def _places(doc: dict[str, Any]) -> list[tuple[str, int, int, int]]:
    return sorted((t["TuileId"].upper(), t["X"], t["Y"], t["Orientation"]) for t in doc["Tuiles"])


def test_convert_rgt_to_rgt_keeps_every_tile_where_it_was(tmp_path: Path) -> None:
    files = [tmp_path / "editor.rgt"]
    files[0].write_text(json.dumps(EDITOR_RGT), encoding="utf-8")
    files += [p for p in map(_shared_sample, ("chicane-example2.rgt", "rx-finland.rgt")) if p]
    for n, path in enumerate(files):
        out = tmp_path / f"out-{n}.rgt"
        code, _, err = run("convert", str(path), "-o", str(out), "--force")
        assert code == 0, err
        read = json.loads(path.read_text(encoding="utf-8"))
        assert _places(json.loads(out.read_text(encoding="utf-8"))) == _places(read), path.name


def test_rgt_to_native_places_tiles_from_the_start_tile_and_tidies_tokens(tmp_path: Path) -> None:
    import yaml

    rgt, native = tmp_path / "editor.rgt", tmp_path / "editor.yaml"
    rgt.write_text(json.dumps(EDITOR_RGT), encoding="utf-8")
    code, _, err = run("convert", str(rgt), "-o", str(native))
    assert code == 0, err
    text = native.read_text(encoding="utf-8")
    tiles = yaml.safe_load(text)["tiles"]
    assert [t["tile"] for t in tiles] == ["202a", "205a", "203a"]
    assert tiles[0]["at"] == [0, 0]  # the start tile, not the editor's canvas hex [-81, 52]
    assert all(max(abs(q), abs(r)) <= 2 for q, r in (t["at"] for t in tiles))
    limit, chicane = tiles[1]["tokens"]
    assert (limit["at"], limit["dir"]) == ([0, 0], 3)  # 180 degrees: a whole half turn
    assert (chicane["at"], chicane["dir"]) == ([0.33, 0], 0)  # -0.5715768 = 0.33 tile widths
    assert "0.3300000" not in text and "3.0" not in text
    # and back: the editor's own numbers, the tiles where they were
    back = tmp_path / "back.rgt"
    code, _, err = run("convert", str(native), "-o", str(back))
    assert code == 0, err
    written = json.loads(back.read_text(encoding="utf-8"))
    (tile,) = [t for t in written["Tuiles"] if t["TuileId"] == "205A"]
    assert [(k["X"], k["Y"], k["Orientation"]) for k in tile["Tokens"]] == [
        (0.0, 0.0, 180.0),
        (-0.5715768, 0.0, 0.0),
    ]


def test_validate_names_rgt_hexes_from_the_start_tile(tmp_path: Path) -> None:
    from trackkit.road import hexgrid

    rgt = tmp_path / "no-finish.rgt"
    rgt.write_text(json.dumps({**EDITOR_RGT, "Tuiles": EDITOR_RGT["Tuiles"][1:]}), "utf-8")
    code, (entry,) = validate_json(str(rgt))
    assert code == 1
    (s113,) = [f for f in entry["findings"] if f["code"] == "S113"]  # the road leads nowhere
    start, tile = hexgrid.offset_to_axial(55, 52), hexgrid.offset_to_axial(55, 53)
    assert s113["location"]["tile"] == "205a"
    assert s113["location"]["hex"] == [tile[0] - start[0], tile[1] - start[1]]
    assert s113["location"]["path"] == "Tuiles[1]"  # and where it is in the file


# --- the small words of the command line -------------------------------------------------


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
