"""Never delete or replace a user's file (issue 19 item 1).

``generate -o DIR`` into a folder holding the user's own ``stage-05.yaml``,
``stage-01.yaml`` and ``index.md`` deleted the first and overwrote the others: files
were judged by their names alone. Now a command that writes a set of files (``generate``,
``print -o OUT.svg``) lists what it wrote with the SHA-256 of each file
(:mod:`trackkit.formats.fileset`), and a later run replaces or removes only those, while
they are unchanged. Anything else in the way stops the run (exit 2, naming the files) or,
with ``--force``, is replaced; a file trackkit did not write is never removed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from stagekit import REPO
from typer.testing import CliRunner

import trackkit.generator
from trackkit.cli.app import app
from trackkit.formats.fileset import (
    FilesInTheWay,
    Owned,
    manifest_bytes,
    plan_file_set,
    read_manifest,
    write_file_set,
)

runner = CliRunner()
TURINI = REPO / "examples" / "col-de-turini.yaml"
SHORT = "format: trackkit-stage/1\nname: Short\ntiles: [{tile: 202a}, {tile: 205a}, {tile: 203a}]\n"
FAST = ["--boxes", "dirt-core", "--tiles", "4", "--races", "0", "--candidates", "2"]
MINE = {"stage-05.yaml": b"my own stage 5\n", "stage-01.yaml": b"my stage 1\n"}
MINE["index.md"] = b"# my notes\n"


def generate(*args: object) -> Any:
    return runner.invoke(app, ["generate", *FAST, *(str(a) for a in args)])


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def users(tmp_path: Path) -> Path:
    """A folder holding the user's own files, named as generate names its files."""
    folder = tmp_path / "tonight"
    folder.mkdir()
    for name, data in MINE.items():
        (folder / name).write_bytes(data)
    return folder


# --- generate ------------------------------------------------------------------------------


def test_generate_stops_before_the_work_naming_the_users_files_in_the_way(
    users: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_search(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the search ran before the files in the way were named")

    monkeypatch.setattr(trackkit.generator, "generate", no_search)
    result = generate("-o", users)
    assert result.exit_code == 2, result.output
    err = result.stderr
    assert "stage-01.yaml" in err and "index.md" in err and "--force" in err
    assert "stage-05.yaml" not in err  # not in the way: this run writes no stage 5
    assert files_of(users) == MINE  # nothing written, nothing removed
    assert "Traceback" not in result.output


def test_generate_force_replaces_what_is_in_the_way_and_removes_nothing_it_did_not_write(
    users: Path,
) -> None:
    result = generate("--force", "-o", users)
    assert result.exit_code == 0, result.output
    after = files_of(users)
    assert after["stage-05.yaml"] == MINE["stage-05.yaml"]  # never removed
    assert after["stage-01.yaml"] != MINE["stage-01.yaml"]
    assert after["index.md"] != MINE["index.md"]
    assert "replaced" in result.stdout and "stage-01.yaml" in result.stdout
    assert "removed" not in result.stdout
    # index.json lists what the run wrote, with each file's SHA-256
    owned = read_manifest(users, "index.json", "written")
    assert set(owned.files) == set(after) - {"stage-05.yaml"}
    assert all(owned.wrote(users / name) for name in owned.files)


def test_a_later_run_replaces_and_removes_only_the_earlier_runs_unchanged_files(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    assert generate("--count", "3", "-o", out).exit_code == 0
    (out / "notes.txt").write_bytes(b"mine")
    (out / "stage-03.md").write_bytes(b"my notes on stage 3\n")  # changed: the user's now
    result = generate("--count", "1", "--seed", "9", "-o", out)
    assert result.exit_code == 0, result.output
    names = set(files_of(out))
    assert {"stage-02.yaml", "stage-02.md", "stage-02.svg", "stage-03.yaml"}.isdisjoint(names)
    assert (out / "stage-03.md").read_bytes() == b"my notes on stage 3\n"
    assert (out / "notes.txt").read_bytes() == b"mine"
    assert "removed" in result.stdout and "kept" in result.stdout
    kept = [line for line in result.stdout.splitlines() if line.startswith("kept")]
    assert len(kept) == 1 and "stage-03.md" in kept[0], result.stdout


def test_an_earlier_runs_file_changed_since_is_in_the_way(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert generate("-o", out).exit_code == 0
    (out / "stage-01.md").write_bytes(b"my edits\n")
    before = files_of(out)
    result = generate("--seed", "9", "-o", out)
    assert result.exit_code == 2 and "stage-01.md" in result.stderr, result.output
    assert "stage-01.yaml" not in result.stderr  # unchanged: trackkit's, replaceable
    assert files_of(out) == before


def test_an_index_edited_by_hand_is_the_users_and_vouches_for_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert generate("-o", out).exit_code == 0
    index = out / "index.json"
    doc = json.loads(index.read_text(encoding="utf-8"))
    doc["my note"] = "keep this"
    index.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    result = generate("--seed", "9", "-o", out)
    assert result.exit_code == 2, result.output
    for name in ("index.json", "index.md", "stage-01.yaml", "stage-01.md", "stage-01.svg"):
        assert name in result.stderr, name


def test_an_index_without_hashes_vouches_for_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert generate("-o", out).exit_code == 0
    index = out / "index.json"
    doc = json.loads(index.read_text(encoding="utf-8"))
    del doc["written"]  # as an index written before the hashes were listed
    index.write_text(json.dumps(doc), encoding="utf-8")
    result = generate("-o", out)
    assert result.exit_code == 2 and "stage-01.yaml" in result.stderr, result.output


# --- print ---------------------------------------------------------------------------------


def test_print_pages_in_the_way_stop_the_print_and_force_never_removes_them(
    tmp_path: Path,
) -> None:
    short = tmp_path / "short.yaml"
    short.write_text(SHORT, encoding="utf-8")
    out = tmp_path / "plan.svg"
    page = tmp_path / "plan-page-02.svg"
    far = tmp_path / "plan-page-40.svg"  # the pattern of a page, beyond this print's
    for path in (page, far):
        path.write_bytes(b"my drawing\n")
    result = runner.invoke(app, ["print", str(short), "-o", str(out)])
    assert result.exit_code == 2 and page.name in result.stderr, result.output
    assert far.name not in result.stderr and "--force" in result.stderr
    assert not out.exists() and not (tmp_path / "plan-pages.json").exists()
    result = runner.invoke(app, ["print", str(short), "-o", str(out), "--force"])
    assert result.exit_code == 0, result.output
    assert page.read_bytes() != b"my drawing\n" and far.read_bytes() == b"my drawing\n"
    assert "plan-page-02.svg" in result.stderr  # said: replaced with --force
    # a longer print, then this one again: the pages beyond are trackkit's, removed,
    # except the one the user changed since, and the user's own one
    assert runner.invoke(app, ["print", str(TURINI), "-o", str(out)]).exit_code == 0
    listed = read_manifest(tmp_path, "plan-pages.json", "written")
    longer = sorted(n for n in listed.files if n.startswith("plan-page-"))
    assert len(longer) > 4
    changed = tmp_path / longer[-1]
    changed.write_bytes(b"my notes on the last page\n")
    result = runner.invoke(app, ["print", str(short), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert changed.read_bytes() == b"my notes on the last page\n"
    assert far.read_bytes() == b"my drawing\n"
    assert not (tmp_path / longer[-2]).exists()
    assert "removed" in result.stderr and "kept" in result.stderr


# --- the module ----------------------------------------------------------------------------


def test_a_manifest_vouches_for_itself_until_a_byte_of_it_changes(tmp_path: Path) -> None:
    files = {"a.txt": b"one", "b.txt": b"two"}
    files["set.json"] = manifest_bytes({"format": "demo/1"}, "files", "set.json", files)
    done = write_file_set(tmp_path, files, manifest=("set.json", "files"))
    assert done.created == ("a.txt", "b.txt", "set.json")
    owned = read_manifest(tmp_path, "set.json", "files")
    assert owned.manifest == "set.json" and set(owned.files) == set(files)
    assert all(owned.wrote(tmp_path / n) for n in files)
    raw = (tmp_path / "set.json").read_bytes()
    (tmp_path / "set.json").write_bytes(raw.replace(b"demo/1", b"demo/2"))
    assert read_manifest(tmp_path, "set.json", "files") == Owned()
    for junk in (b"not json", b"[1, 2]", b'{"files": {"a.txt": 3}}'):
        (tmp_path / "set.json").write_bytes(junk)
        assert read_manifest(tmp_path, "set.json", "files") == Owned()


def test_the_plan_names_every_file_in_the_way_and_force_keeps_what_it_does_not_write(
    tmp_path: Path,
) -> None:
    first = {"a.txt": b"one", "b.txt": b"two", "c.txt": b"three"}
    first["set.json"] = manifest_bytes({}, "files", "set.json", first)
    write_file_set(tmp_path, first, manifest=("set.json", "files"))
    (tmp_path / "b.txt").write_bytes(b"edited")  # the user's now
    (tmp_path / "d.txt").write_bytes(b"mine")  # never trackkit's
    owned = read_manifest(tmp_path, "set.json", "files")
    second = ["a.txt", "b.txt", "d.txt", "e.txt", "set.json"]
    with pytest.raises(FilesInTheWay) as err:
        plan_file_set(tmp_path, second, owned)
    assert err.value.names == ("b.txt", "d.txt")
    plan = plan_file_set(tmp_path, second, owned, force=True)
    assert plan.created == ("e.txt",) and plan.forced == ("b.txt", "d.txt")
    assert plan.replaced == ("a.txt", "set.json") and plan.removed == ("c.txt",)
    plan = plan_file_set(tmp_path, ["a.txt", "set.json"], owned, force=True)
    assert plan.removed == ("c.txt",) and plan.kept == ("b.txt",)  # d.txt: not ours, untouched


def test_tiles_sheet_writes_the_one_file_named_and_nothing_beside_it(tmp_path: Path) -> None:
    # a catalogue is one file (one long SVG, or one PDF of pages): the file named is the
    # only one it writes, so files named like pages beside it are never touched
    mine = {"sheet-page-02.svg": b"my page\n", "sheet-pages.json": b"{}\n"}
    for name, data in mine.items():
        (tmp_path / name).write_bytes(data)
    for out in ("sheet.svg", "sheet.pdf"):
        result = runner.invoke(
            app, ["tiles", "sheet", "--box", "dirt-climb", "-o", str(tmp_path / out)]
        )
        assert result.exit_code == 0, result.output
    assert files_of(tmp_path).keys() == {*mine, "sheet.svg", "sheet.pdf"}
    assert all((tmp_path / name).read_bytes() == data for name, data in mine.items())
