"""Converting editor files: art variants (``103a-2``) kept in every direction, ``.rgt`` tiles
kept where they were, places read from the start tile."""

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
