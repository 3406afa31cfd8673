"""Outputs change nothing the user did not ask for (issue 15, with issue 14 item 4).

Every command that writes a file follows one set of rules
(:func:`trackkit.formats.files.check_output`): a read-only file is replaced only with
``--force``; a symbolic link named as the output is written through and stays a link;
anything that is not a regular file (a folder, a device, a FIFO, a link that leads
nowhere or loops) is never replaced; a print's pages on disk are one print's set.

"Read-only" is read from the file's mode bits, root counting as the file's owner, so these
tests behave the same when run as root (who could write a 0444 file) as for a user.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from stagekit import REPO
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.errors import InputError
from trackkit.formats import load_stage
from trackkit.formats.files import check_output, folder_lock, is_read_only, write_text_atomic
from trackkit.formats.fileset import read_manifest
from trackkit.formats.roundtrip import yaml_comment_lines
from trackkit.render.output import page_paths, save_pages
from trackkit.render.raster import SvgDoc

EXAMPLES = REPO / "examples"
TURINI = EXAMPLES / "col-de-turini.yaml"
runner = CliRunner()

SHORT = "format: trackkit-stage/1\nname: Short\ntiles: [{tile: 202a}, {tile: 205a}, {tile: 203a}]\n"
OLD = b"old contents\n"


def run(*args: object) -> Any:
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def short(tmp_path: Path) -> Path:
    path = tmp_path / "short.yaml"
    path.write_text(SHORT, encoding="utf-8")
    return path


#: Every command that writes a file: (output name, arguments given the stage and output).
WRITERS: dict[str, tuple[str, Callable[[Path, Path], list[object]]]] = {
    "render svg": ("map.svg", lambda s, o: ["render", s, "-o", o]),
    "render png": ("map.png", lambda s, o: ["render", s, "-o", o, "--px", "200"]),
    "print pdf": ("plan.pdf", lambda s, o: ["print", s, "-o", o]),
    "print svg": ("plan.svg", lambda s, o: ["print", s, "-o", o]),
    "convert": ("stage.rgt", lambda s, o: ["convert", s, "-o", o]),
    "simulate --replay": (
        "race.json",
        lambda s, o: ["simulate", s, "--races", "1", "--players", "1", "--replay", o],
    ),
    "tiles sheet": ("sheet.svg", lambda s, o: ["tiles", "sheet", "--box", "dirt-climb", "-o", o]),
}


def _stat(path: Path) -> os.stat_result:
    return os.lstat(path)


# --- 15.1: a read-only file is not silently replaced ------------------------------------------


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_read_only_output_is_refused_and_force_replaces_it(
    command: str, short: Path, tmp_path: Path
) -> None:
    name, args = WRITERS[command]
    out = tmp_path / name
    out.write_bytes(OLD)
    out.chmod(0o444)
    result = run(*args(short, out))
    assert result.exit_code == 2, result.output
    assert str(out) in result.stderr and "--force" in result.stderr
    assert "Traceback" not in result.output
    assert out.read_bytes() == OLD
    result = run(*args(short, out), "--force")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() != OLD
    assert stat.S_IMODE(_stat(out).st_mode) == 0o444  # replaced, still read-only
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_schema_out_refuses_a_read_only_schema_file(tmp_path: Path) -> None:
    folder = tmp_path / "schemas"
    assert run("schema", "--out", folder).exit_code == 0
    stage_schema = folder / "trackkit-stage.schema.json"
    stage_schema.write_bytes(OLD)
    stage_schema.chmod(0o444)
    result = run("schema", "--out", folder)
    assert result.exit_code == 2 and str(stage_schema) in result.stderr
    assert stage_schema.read_bytes() == OLD
    assert run("schema", "--out", folder, "--force").exit_code == 0
    assert stage_schema.read_text(encoding="utf-8") == (
        REPO / "schemas" / stage_schema.name
    ).read_text(encoding="utf-8")


def test_read_only_is_the_mode_bits_and_root_counts_as_the_owner() -> None:
    def st(mode: int, uid: int, gid: int) -> os.stat_result:
        return os.stat_result((stat.S_IFREG | mode, 0, 0, 1, uid, gid, 0, 0, 0, 0))

    me, group = os.geteuid(), os.getegid()
    assert is_read_only(st(0o444, me, group))
    assert not is_read_only(st(0o644, me, group))
    assert is_read_only(st(0o466, me, group))  # the owner's bit is the one that applies
    other = me + 4242
    if me == 0:
        assert is_read_only(st(0o466, other, other))  # root reads the owner's bits
        assert not is_read_only(st(0o644, other, other))
    else:
        assert is_read_only(st(0o644, other, other + 1))  # another user's file
        assert not is_read_only(st(0o646, other, other + 1))


# --- 15.2 and 14.4: links stay links, special files are never replaced ------------------------


@pytest.mark.parametrize("command", ["render svg", "print pdf", "convert", "simulate --replay"])
def test_a_named_link_is_written_through_and_stays_a_link(
    command: str, short: Path, tmp_path: Path
) -> None:
    name, args = WRITERS[command]
    real = tmp_path / "real" / name
    real.parent.mkdir()
    real.write_bytes(OLD)
    real.chmod(0o640)
    link = tmp_path / name
    link.symlink_to(Path("real") / name)
    result = run(*args(short, link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(Path("real") / name)
    assert real.read_bytes() != OLD  # the file the link leads to holds the new output
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "real", "short.yaml"])
    assert sorted(p.name for p in real.parent.iterdir()) == [name]  # no temporary file


def test_a_link_to_a_read_only_file_needs_force(short: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.svg"
    real.write_bytes(OLD)
    real.chmod(0o444)
    link = tmp_path / "map.svg"
    link.symlink_to(real)
    result = run("render", short, "-o", link)
    assert result.exit_code == 2 and str(link) in result.stderr and "--force" in result.stderr
    assert real.read_bytes() == OLD
    assert run("render", short, "-o", link, "--force").exit_code == 0
    assert link.is_symlink() and real.read_bytes() != OLD


def _special(kind: str, tmp_path: Path) -> Path:
    """An output name that is ``kind`` (made in ``tmp_path``)."""
    path = tmp_path / "out.json"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "character device":
        try:  # a device of our own (the null device's numbers), never the real /dev/null
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except (OSError, AttributeError):
            pytest.skip("cannot make a device node here (needs root)")
    elif kind == "dangling link":
        path.symlink_to(tmp_path / "nowhere.json")
    elif kind == "looping link":
        path.symlink_to(tmp_path / "loop.json")
        (tmp_path / "loop.json").symlink_to(path)
    elif kind == "link to a folder":
        (tmp_path / "sub").mkdir()
        path.symlink_to(tmp_path / "sub")
    elif kind == "link to a fifo":
        os.mkfifo(tmp_path / "pipe")
        path.symlink_to(tmp_path / "pipe")
    elif kind == "link to the null device":
        path.symlink_to("/dev/null")
    return path


SPECIAL = [
    "folder",
    "fifo",
    "character device",
    "dangling link",
    "looping link",
    "link to a folder",
    "link to a fifo",
    "link to the null device",
]


@pytest.mark.skipif(os.name != "posix", reason="FIFOs, devices and links")
@pytest.mark.parametrize("kind", SPECIAL)
@pytest.mark.parametrize("force", [False, True])
def test_a_target_that_is_not_a_regular_file_is_never_replaced(
    kind: str, force: bool, short: Path, tmp_path: Path
) -> None:
    out = _special(kind, tmp_path)
    before = _stat(out)
    link = os.readlink(out) if out.is_symlink() else None
    args = ["simulate", short, "--races", "1", "--players", "1", "--replay", out]
    result = run(*args, *(["--force"] if force else []))
    assert result.exit_code == 2, result.output
    assert str(out) in result.stderr and "Traceback" not in result.output
    after = _stat(out)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode)
    assert (after.st_ino, after.st_dev) == (before.st_ino, before.st_dev)
    assert (os.readlink(out) if out.is_symlink() else None) == link
    assert not (tmp_path / "nowhere.json").exists()  # a dangling link is not followed


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and links")
@pytest.mark.parametrize("kind", ["fifo", "dangling link", "link to a folder"])
def test_the_check_comes_before_the_work(kind: str, short: Path, tmp_path: Path) -> None:
    out = _special(kind, tmp_path).rename(tmp_path / "map.svg")
    result = run("render", short, "-o", out)
    assert result.exit_code == 2 and str(out) in result.stderr
    assert "wrote" not in result.stdout


def test_check_output_says_which_file_a_named_link_replaces(tmp_path: Path) -> None:
    real = tmp_path / "a" / "map.svg"
    real.parent.mkdir()
    real.write_text("x", encoding="utf-8")
    link = tmp_path / "map.svg"
    link.symlink_to(real)
    assert check_output(link) == real.resolve()
    assert check_output(tmp_path / "new.svg") == tmp_path / "new.svg"
    with pytest.raises(InputError, match="symbolic link") as err:
        check_output(link, named=False)  # a name trackkit made up: never followed
    assert str(link) in str(err.value)
    write_text_atomic(link, "new")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"


# --- 15.3: no stale pages --------------------------------------------------------------------


def test_a_shorter_print_removes_the_earlier_prints_surplus_pages(
    short: Path, tmp_path: Path
) -> None:
    out = tmp_path / "plan.svg"
    assert run("print", TURINI, "-o", out).exit_code == 0
    long_pages = sorted(tmp_path.glob("plan-page-*.svg"))
    # not pages of this output: other names, other patterns, other suffixes, and a name
    # of the pattern that no print to plan.svg wrote (issue 19: never removed)
    keep = ["plan-notes.svg", "plan-page-5.svg", "other-page-05.svg", "plan-page-05.svg.bak"]
    keep.append("plan-page-01.svg")
    for name in keep:
        (tmp_path / name).write_text("mine", encoding="utf-8")
    result = run("print", short, "-o", out)
    assert result.exit_code == 0, result.output
    pages = sorted(p.name for p in tmp_path.glob("plan-page-*.svg") if p.name not in keep)
    total = len(pages) + 1
    assert len(long_pages) + 1 > total
    assert pages == [p.name for p in page_paths(out, range(2, total + 1))]
    for page in pages:
        assert f"of {total}" in (tmp_path / page).read_text(encoding="utf-8")
    for name in keep:
        assert (tmp_path / name).read_text(encoding="utf-8") == "mine"
    assert "removed" in result.stderr


def test_surplus_pages_that_may_not_be_removed_stop_the_print_before_it_writes(
    short: Path, tmp_path: Path
) -> None:
    out = tmp_path / "plan.svg"
    assert run("print", TURINI, "-o", out).exit_code == 0
    before = {p.name: p.read_bytes() for p in tmp_path.glob("plan*.svg")}
    last = tmp_path / max(before)
    last.chmod(0o444)
    result = run("print", short, "-o", out)
    assert result.exit_code == 2 and str(last) in result.stderr and "--force" in result.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.glob("plan*.svg")} == before
    last.unlink()
    last.symlink_to(tmp_path / "elsewhere.svg")
    result = run("print", short, "-o", out, "--force")
    assert result.exit_code == 2 and str(last) in result.stderr
    assert last.is_symlink()
    last.unlink()
    assert run("print", short, "-o", out, "--force").exit_code == 0


def test_a_page_file_that_is_a_link_is_refused(short: Path, tmp_path: Path) -> None:
    out = tmp_path / "plan.svg"
    target = tmp_path / "precious.svg"
    target.write_bytes(OLD)
    page = tmp_path / "plan-page-02.svg"
    page.symlink_to(target)
    result = run("print", short, "-o", out)
    assert result.exit_code == 2 and str(page) in result.stderr
    assert page.is_symlink() and target.read_bytes() == OLD
    assert not out.exists()


# --- 15.6: two runs writing the same output --------------------------------------------------


def _doc(label: str) -> SvgDoc:
    return SvgDoc(f"<svg><title>{label}</title></svg>", 10.0, 10.0)


def test_two_runs_writing_the_same_pages_leave_one_runs_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trackkit.render.output as output

    real_write = output.write_text_atomic

    def slow_write(*args: Any, **kwargs: Any) -> None:
        real_write(*args, **kwargs)
        time.sleep(0.01)  # page by page, so that two unlocked runs interleave

    monkeypatch.setattr(output, "write_text_atomic", slow_write)
    out = tmp_path / "plan.svg"
    runs = {"long": 8, "short": 3}
    expected = {
        label: {
            p.name: _doc(f"{label} {i}").text
            for i, p in enumerate([out, *page_paths(out, range(2, n + 2))])
        }
        for label, n in runs.items()
    }

    def write(label: str, start: threading.Barrier) -> None:
        start.wait()
        n = runs[label]
        save_pages(out, _doc(f"{label} 0"), [_doc(f"{label} {i}") for i in range(1, n + 1)])

    for _ in range(3):
        start = threading.Barrier(2)
        threads = [threading.Thread(target=write, args=(label, start)) for label in runs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        on_disk = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()}
        listed = read_manifest(tmp_path, "plan-pages.json", "written")
        assert set(listed.files) == set(on_disk)  # the list is the set's, and up to date
        assert all(listed.wrote(tmp_path / name) for name in on_disk)
        del on_disk["plan-pages.json"]
        assert on_disk in expected.values(), sorted(on_disk)


@pytest.mark.skipif(os.name != "posix", reason="folder locks are POSIX")
def test_a_run_that_waits_too_long_for_the_folder_says_so(tmp_path: Path) -> None:
    with folder_lock(tmp_path):
        began = time.monotonic()
        with (
            pytest.raises(InputError, match="another run") as err,
            folder_lock(tmp_path, timeout=0.2),
        ):
            pass
        assert 0.2 <= time.monotonic() - began < 5
        assert str(tmp_path) in str(err.value)
    with folder_lock(tmp_path, timeout=0.2):
        pass  # released


@pytest.mark.skipif(os.name != "posix", reason="folder locks are POSIX")
def test_two_print_processes_started_together_leave_one_print(tmp_path: Path) -> None:
    short_stage = tmp_path / "short.yaml"
    short_stage.write_text(SHORT, encoding="utf-8")
    stages = {"long": TURINI, "short": short_stage}
    trackkit = [sys.executable, "-m", "trackkit", "print"]

    def pages(folder: Path) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in folder.iterdir()}

    solo, took = {}, {}
    for name, stage in stages.items():
        folder = tmp_path / f"solo-{name}"
        folder.mkdir()
        began = time.monotonic()
        subprocess.run([*trackkit, str(stage), "-o", str(folder / "plan.svg")], check=True)
        took[name] = time.monotonic() - began
        solo[name] = pages(folder)
    shared = tmp_path / "shared"
    shared.mkdir()
    # Started together, and with the short print held back by up to the time the long one
    # takes more, so that the two runs' writes meet.
    lag = max(0.0, took["long"] - took["short"])
    for delay in (0.0, lag / 2, lag, lag * 1.2):
        procs = []
        for name, stage in stages.items():
            if name == "short":
                time.sleep(delay)
            procs.append(
                subprocess.Popen(
                    [*trackkit, str(stage), "-o", str(shared / "plan.svg")],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
            )
        for proc in procs:
            _, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
        assert pages(shared) in solo.values(), (delay, sorted(pages(shared)))


# --- 15.4: converting never changes what a stage means ---------------------------------------

BAD = """\
format: trackkit-stage/1
name: Bad tokens   # a comment
boxes: [dirt-core, dirt-climb]
tiles:
  - tile: 202a
  # the tile with the tokens
  - tile: 205a
    tokens: [{token: oxygen, value: -5}, {token: cloud, value: 9}, {token: banana}]
  - tile: 203a
"""


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.yaml"
    path.write_text(BAD, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["out.rekee.json", "out.rgt", "out.yaml", "out.json"])
def test_convert_refuses_a_stage_with_errors_and_prints_the_findings(
    name: str, bad: Path, tmp_path: Path
) -> None:
    out = tmp_path / name
    result = run("convert", bad, "-o", out)
    assert result.exit_code == 1
    codes = {f.code for f in validate(load_stage(bad)).findings if f.severity.value == "error"}
    assert codes == {"R201", "R202"}
    for code in codes:
        assert code in result.stderr
    assert "--force" in result.stderr
    assert not out.exists()


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("trackkit: warning:")]


@pytest.mark.parametrize("name", ["out.rekee.json", "out.rgt"])
def test_forced_convert_names_every_item_the_editor_file_cannot_hold(
    name: str, bad: Path, tmp_path: Path
) -> None:
    out = tmp_path / name
    result = run("convert", bad, "-o", out, "--force")
    assert result.exit_code == 0, result.output
    warnings = _warnings(result.stderr)

    def one(*words: str) -> str:
        (line,) = [w for w in warnings if all(word in w for word in words)]
        return line

    one("oxygen -5", "tiles[1].tokens[0]")  # reads back as a bare oxygen token
    one("cloud 9", "tiles[1].tokens[1]")  # reads back as a cloud
    one("banana", "tiles[1].tokens[2]")  # the editor has no such token
    one("boxes", "dirt-core")
    assert "2, 6" in one("comments")  # the lines of bad.yaml's comments
    # what the warnings say is lost is lost: the tokens read back otherwise
    back = [(t.token, t.value) for t in load_stage(out).tiles[1].tokens]
    assert back == [("oxygen", None), ("cloud", None), ("banana", None)]


def test_forced_convert_to_native_warns_only_about_comments(bad: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = run("convert", bad, "-o", out, "--force")
    assert result.exit_code == 0, result.output
    (warning,) = _warnings(result.stderr)
    assert "comments" in warning
    assert load_stage(out).tiles == load_stage(bad).tiles  # every token value kept


def test_a_clean_conversion_between_editor_files_warns_about_nothing(tmp_path: Path) -> None:
    rgt = tmp_path / "turini.rgt"
    result = run("convert", EXAMPLES / "col-de-turini.rekee.json", "-o", rgt)
    assert result.exit_code == 0, result.output
    assert _warnings(result.stderr) == []
    result = run("convert", rgt, "-o", tmp_path / "back.rekee.json")
    assert result.exit_code == 0 and _warnings(result.stderr) == []


def test_mud_in_an_rgt_file_is_named(tmp_path: Path) -> None:
    stage = tmp_path / "mud.json"
    doc = {
        "format": "trackkit-stage/1",
        "tiles": [
            {"tile": "202a"},
            {"tile": "224b", "tokens": [{"token": "mud", "value": -1}]},  # a shortcut
            {"tile": "203a"},
        ],
    }
    stage.write_text(json.dumps(doc), encoding="utf-8")
    assert validate(load_stage(stage)).valid
    result = run("convert", stage, "-o", tmp_path / "mud.rgt")
    assert result.exit_code == 0, result.output
    (warning,) = _warnings(result.stderr)
    assert "mud -1" in warning and "tiles[1].tokens[0]" in warning
    result = run("convert", stage, "-o", tmp_path / "mud.rekee.json")
    assert _warnings(result.stderr) == []  # Rekee has a mud token


def test_what_reading_an_editor_file_drops_is_named(tmp_path: Path) -> None:
    data = json.loads((EXAMPLES / "col-de-turini.rekee.json").read_text(encoding="utf-8"))
    data["lowResWidth"] = 800
    data["tiles"][1]["tokens"] = [{"id": "cloud", "q": 0.25, "r": -0.5, "dir": 0}]
    data["tiles"][2]["colour"] = "red"
    path = tmp_path / "turini.rekee.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run("convert", path, "-o", tmp_path / "turini.yaml")
    assert result.exit_code == 0, result.output
    warnings = _warnings(result.stderr)
    assert len(warnings) == 2
    assert any("lowResWidth" in w for w in warnings)
    assert any("tiles[].colour" in w for w in warnings)
    # where a token lies is kept (no warning), and written to the native file
    assert not any("token" in w for w in warnings)
    written = yaml.safe_load((tmp_path / "turini.yaml").read_text(encoding="utf-8"))
    tokens = [tok for t in written["tiles"] for tok in t.get("tokens", [])]
    assert tokens == [{"token": "cloud", "at": [0.25, -0.5], "dir": 0.0}]


def test_converting_an_editor_file_with_placed_tokens_warns_about_nothing(tmp_path: Path) -> None:
    out = tmp_path / "copy.rekee.json"
    result = run("convert", EXAMPLES / "copilot-rekee.json", "-o", out)
    assert result.exit_code == 0 and _warnings(result.stderr) == []
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(
        (EXAMPLES / "copilot-rekee.json").read_text(encoding="utf-8")
    )


def test_a_tile_that_moves_in_the_round_trip_is_named(tmp_path: Path) -> None:
    # the start tile listed last: an editor file walks the road from the start tile,
    # so the tiles read back in another driving order (S110 is an error: --force)
    stage = tmp_path / "late-start.yaml"
    stage.write_text(
        "format: trackkit-stage/1\ntiles: [{tile: 205a}, {tile: 202a}, {tile: 203a}]\n",
        encoding="utf-8",
    )
    assert "S110" in validate(load_stage(stage)).codes
    result = run("convert", stage, "-o", tmp_path / "x.rekee.json", "--force")
    assert result.exit_code == 0, result.output
    driven = [w for w in _warnings(result.stderr) if "driven" in w]
    assert driven and any("tiles[0]" in w and "205a" in w for w in driven)


def test_convert_in_onto_itself_asks_for_force(bad: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text(SHORT.replace("Short", "Short  # mine"), encoding="utf-8")
    before = good.read_bytes()
    result = run("convert", good, "-o", good)
    assert result.exit_code == 2 and str(good) in result.stderr and "--force" in result.stderr
    assert good.read_bytes() == before
    link = tmp_path / "same.yaml"
    link.symlink_to(good)
    assert run("convert", good, "-o", link).exit_code == 2  # the same file by another name
    assert good.read_bytes() == before
    result = run("convert", good, "-o", good, "--force")
    assert result.exit_code == 0, result.output
    assert yaml.safe_load(good.read_text(encoding="utf-8"))["kind"] == "rally"


def test_a_conversion_that_would_not_read_back_is_not_written(
    short: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trackkit.formats.write

    monkeypatch.setattr(trackkit.formats.write, "dump_stage", lambda *_, **__: '{"Tuiles": 5}')
    out = tmp_path / "out.rgt"
    result = run("convert", short, "-o", out)
    assert result.exit_code == 2 and str(out) in result.stderr
    assert not out.exists()


def test_yaml_comment_lines_skip_hashes_inside_values() -> None:
    text = "a: 'x # y'\nb: \"#\"  # real\nc: |\n  # kept, part of the text\n# last\n"
    assert yaml_comment_lines(text) == [2, 5]
