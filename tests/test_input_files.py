"""Every file trackkit is given goes through one reader: regular files only, a size limit.

A FIFO, a device or a folder given as a stage, replay, simulation (``--heat``) or theme file
is refused before anything is read from it (exit 2, naming it); files over the documented
limit of their kind are refused with the limit in the message; JSON nested deeper than
:data:`~trackkit.formats.source.MAX_DEPTH` is refused with a clear message, never a
``RecursionError``. The cases that hung or filled the memory before run in a child process
with a time limit and a memory cap, so that a regression fails instead of taking the
machine down.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from stagekit import REPO
from typer.testing import CliRunner

from trackkit.cli.app import app
from trackkit.errors import InputError
from trackkit.formats import load_stage
from trackkit.formats.reading import (
    MAX_FILE_BYTES,
    MAX_REPLAY_BYTES,
    MAX_SIMULATION_BYTES,
    MAX_THEME_BYTES,
    read_input,
)
from trackkit.formats.source import MAX_DEPTH
from trackkit.render.heat import load_simulation
from trackkit.render.theme import load_theme
from trackkit.sim.replay import load_replay

EXAMPLE = REPO / "examples" / "col-de-turini.yaml"
POSIX = pytest.mark.skipif(os.name != "posix", reason="FIFOs and /dev are POSIX")
runner = CliRunner()


def _cli(kind: str, path: Path | str, out: Path) -> list[str]:
    """The command line that reads ``path`` as a file of ``kind``."""
    if kind == "stage":
        return ["validate", str(path)]
    if kind == "replay":
        return ["replay", str(path)]
    if kind == "heat":
        return ["render", str(EXAMPLE), "-o", str(out), "--heat", str(path)]
    return ["render", str(EXAMPLE), "-o", str(out), "--theme", str(path)]


LOADERS: dict[str, Callable[[Path], Any]] = {
    "stage": load_stage,
    "replay": load_replay,
    "heat": load_simulation,
    "theme": load_theme,
}
WHAT = {
    "stage": "stage file",
    "replay": "replay file",
    "heat": "simulation file",
    "theme": "theme file",
}
LIMITS = {
    "stage": MAX_FILE_BYTES,
    "replay": MAX_REPLAY_BYTES,
    "heat": MAX_SIMULATION_BYTES,
    "theme": MAX_THEME_BYTES,
}
KINDS = sorted(LOADERS)


def _cap_memory() -> None:  # pragma: no cover - runs in the child
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))


def run_child(args: list[str], timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """``trackkit ARGS`` in a child process with a time limit and a 3 GB memory cap."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "trackkit", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=_cap_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"trackkit {' '.join(args)} hung for {timeout} s")


def one_error(stderr: str, path: Path | str) -> str:
    """The single error line of a run, which names ``path``; no traceback."""
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"trackkit: error: {path}: "), stderr
    return lines[0]


# --- not a regular file -----------------------------------------------------------------


@POSIX
@pytest.mark.parametrize("kind", KINDS)
def test_a_fifo_is_refused_at_once_not_waited_on(kind: str, tmp_path: Path) -> None:
    fifo = tmp_path / f"{kind}.json"
    os.mkfifo(fifo)
    done = run_child(_cli(kind, fifo, tmp_path / "map.svg"))
    assert done.returncode == 2
    line = one_error(done.stderr, fifo)
    assert f"named pipe (FIFO), not a {WHAT[kind]}" in line
    assert not (tmp_path / "map.svg").exists()


@POSIX
@pytest.mark.parametrize("kind", KINDS)
def test_dev_zero_is_refused_before_reading(kind: str, tmp_path: Path) -> None:
    done = run_child(_cli(kind, "/dev/zero", tmp_path / "map.svg"))
    assert done.returncode == 2
    assert f"character device, not a {WHAT[kind]}" in one_error(done.stderr, "/dev/zero")


@POSIX
@pytest.mark.parametrize("kind", KINDS)
def test_every_reader_refuses_a_device_and_a_folder(kind: str, tmp_path: Path) -> None:
    folder = tmp_path / "a-folder.json"
    folder.mkdir()
    for path, words in ((Path("/dev/urandom"), "character device"), (folder, "folder")):
        with pytest.raises(InputError) as err:
            LOADERS[kind](path)
        assert err.value.file == str(path)
        assert f"{words}, not a {WHAT[kind]}" in err.value.message


@POSIX
def test_a_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    link = tmp_path / "stage.yaml"
    link.symlink_to(EXAMPLE)
    assert load_stage(link).name == "Col de Turini"


def test_a_path_through_a_file_is_no_such_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="a part of the path is a file"):
        read_input(EXAMPLE / "stage.yaml")


# --- size limits ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_files_over_the_limit_of_their_kind_are_refused_with_the_limit(
    kind: str, tmp_path: Path
) -> None:
    big = tmp_path / f"big-{kind}.json"
    with big.open("wb") as fh:  # sparse: nothing is written, nothing should be read
        fh.truncate(LIMITS[kind] + 1)
    code, _, err = _invoke(_cli(kind, big, tmp_path / "map.svg"))
    assert code == 2
    limit = f"{LIMITS[kind] / 1024 / 1024:.1f} MB"
    assert f"{WHAT[kind]}s are at most {limit}" in one_error(err, big)


def test_the_documented_limits() -> None:
    # docs/usage.md#input-files: stage files 5 MB, replay and simulation files 16 MB, themes 1 MB
    assert (MAX_FILE_BYTES, MAX_REPLAY_BYTES, MAX_SIMULATION_BYTES, MAX_THEME_BYTES) == (
        5 * 2**20,
        16 * 2**20,
        16 * 2**20,
        2**20,
    )


# --- JSON nested too deeply -------------------------------------------------------------


def _invoke(args: list[str]) -> tuple[int, str, str]:
    result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("depth", [100_000, MAX_DEPTH + 1])
def test_deep_json_is_refused_with_the_depth_limit(kind: str, depth: int, tmp_path: Path) -> None:
    deep = tmp_path / f"deep-{kind}.json"
    deep.write_text("[" * depth + "]" * depth, encoding="utf-8")
    code, out, err = _invoke(_cli(kind, deep, tmp_path / "map.svg"))
    assert code == 2
    assert f"nested more than {MAX_DEPTH} levels deep" in one_error(err, deep)
    assert "wrote" not in out


def test_json_just_within_the_depth_limit_is_not_refused_for_its_depth(tmp_path: Path) -> None:
    nested: Any = "#123456"
    for _ in range(MAX_DEPTH - 1):
        nested = [nested]
    theme = tmp_path / "theme.json"
    theme.write_text(json.dumps({"text": nested}), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_theme(theme)
    assert "nested" not in err.value.message and "expected a string" in err.value.message


def test_brackets_inside_strings_do_not_count_as_depth(tmp_path: Path) -> None:
    stage = json.loads(json.dumps({"format": "trackkit-stage/1", "tiles": [{"tile": "202a"}]}))
    stage["name"] = "[" * 100 + '\\"{' * 20
    path = tmp_path / "brackets.json"
    path.write_text(json.dumps(stage), encoding="utf-8")
    assert load_stage(path).name == stage["name"]


# --- one place reads files --------------------------------------------------------------

#: Modules that may open files themselves: the one reader, and the package's own data.
OWN_READERS = {
    "trackkit/formats/reading.py",  # read_input: every file a user names
    "trackkit/tiles/library.py",  # the shipped tile files (its cache goes through read_input)
    "trackkit/studio/app.py",  # the studio's own page (package data, trackkit/studio/static)
    # (the shipped ruleset files are read by library.ruleset_data)
}
#: Calls that read a file (``os.open`` is left out: the atomic writers use it to write).
_READS = re.compile(r"\.read_text\(|\.read_bytes\(|(?<![\w.])open\(|json\.load\(|(?<!os)\.open\(")


def test_input_files_are_read_in_one_place_only() -> None:
    readers = {
        str(path.relative_to(REPO))
        for path in (REPO / "trackkit").rglob("*.py")
        if _READS.search(path.read_text(encoding="utf-8"))
    }
    assert readers <= OWN_READERS, readers - OWN_READERS


# --- replay files: the limit on both sides ----------------------------------------------


def test_simulate_never_writes_a_replay_that_replay_would_refuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trackkit.sim.replay as replay

    made = tmp_path / "race.json"
    first = runner.invoke(app, ["simulate", str(EXAMPLE), "--races", "1", "--replay", str(made)])
    assert first.exit_code == 0
    size = made.stat().st_size
    monkeypatch.setattr(replay, "MAX_REPLAY_BYTES", size - 1)  # this race no longer fits
    code, _, err = _invoke(["replay", str(made)])
    assert code == 2 and "replay files are at most" in one_error(err, made)
    longer = tmp_path / "longer.json"
    code, out, err = _invoke(["simulate", str(EXAMPLE), "--races", "1", "--replay", str(longer)])
    assert code == 2 and out == ""
    assert "replay files may hold: not written" in one_error(err, longer)
    assert not longer.exists()


@pytest.mark.slow
def test_the_largest_stage_reads_in_yaml_as_in_json() -> None:
    # A stage within every limit (600 tiles, 24 placed tokens each) read as JSON but not as
    # YAML, whose value cap was lower than what such a stage holds.
    import json as json_module

    import yaml as yaml_module

    from trackkit.formats import parse_stage
    from trackkit.models.stage import MAX_TILE_TOKENS

    token = {"token": "mud", "value": -1, "surface": "gravel", "at": [0.1, 0.2], "dir": 1.5}
    tiles = [{"tile": "205a", "tokens": [dict(token) for _ in range(MAX_TILE_TOKENS)]}]
    data = {"format": "trackkit-stage/1", "tiles": [{"tile": "202a"}, *tiles * 600]}
    as_json = parse_stage(json_module.dumps(data), file="big.json")

    # libyaml's dumper where PyYAML has it: the pure-Python one took seconds to write these
    dumper = getattr(yaml_module, "CSafeDumper", yaml_module.SafeDumper)

    class NoAliases(dumper):  # type: ignore[valid-type,misc]
        def ignore_aliases(self, data: object) -> bool:
            return True

    as_yaml = parse_stage(yaml_module.dump(data, Dumper=NoAliases), file="big.yaml")
    assert as_yaml == as_json and len(as_yaml.tiles) == 601
    with_anchors = yaml_module.dump(data, Dumper=dumper)
    assert "&id001" in with_anchors and "*id001" in with_anchors
    anchored = parse_stage(with_anchors, file="anchors.yaml")
    assert anchored == as_json
