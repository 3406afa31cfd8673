"""The command line as a process: exit statuses when output fails or the user presses Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from stagekit import REPO

EXAMPLE = str(REPO / "examples" / "col-de-turini.yaml")
TRACKKIT = [sys.executable, "-m", "trackkit"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_that_cannot_be_written_exits_2_with_one_message() -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*TRACKKIT, "validate", EXAMPLE], stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert done.returncode == 2
    assert done.stderr.strip() == "trackkit: error: cannot write output: No space left on device"


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    proc = subprocess.Popen(
        [*TRACKKIT, "tiles"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # like `trackkit tiles | head -1`
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 2
    assert "Traceback" not in err and err == ""


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_says_interrupted_and_exits_130(jobs: str, tmp_path: Path) -> None:
    replay = tmp_path / "race.json"
    replay.write_text("old replay", encoding="utf-8")
    proc = subprocess.Popen(
        [
            *TRACKKIT,
            "simulate",
            EXAMPLE,
            "--races",
            "100000",
            "--jobs",
            jobs,
            "--replay",
            str(replay),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    time.sleep(3.0)
    os.killpg(proc.pid, signal.SIGINT)  # the terminal sends Ctrl-C to the whole group
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "trackkit: interrupted"
    assert "Traceback" not in err
    assert replay.read_text(encoding="utf-8") == "old replay"  # nothing half-written


@pytest.fixture(scope="module")
def long_stage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import yaml

    folder = tmp_path_factory.mktemp("long")
    # a 42-tile zig-zag: long enough to render for a few seconds at 12,000 px
    middle = [{"tile": "205a"}, {"tile": "217a", "turn": "left"}, {"tile": "217a", "turn": "right"}]
    tiles = [{"tile": "202a"}, *(middle * 13), {"tile": "205a"}, {"tile": "203a"}]
    assert len(tiles) == 42
    path = folder / "long.yaml"
    path.write_text(yaml.safe_dump({"format": "trackkit-stage/1", "tiles": tiles}), "utf-8")
    return path


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
@pytest.mark.parametrize(
    ("command", "suffix", "extra", "delay"),
    [
        ("render", "png", ["--px", "12000"], 0.8),
        ("render", "png", ["--px", "12000"], 1.6),
        ("print", "pdf", [], 0.8),
        ("print", "pdf", [], 1.4),
    ],
)
def test_ctrl_c_while_drawing_says_interrupted_and_keeps_the_old_file(
    command: str, suffix: str, extra: list[str], delay: float, long_stage: Path, tmp_path: Path
) -> None:
    # Cairo writes through a Python callback: a Ctrl-C landing inside it used to be lost
    # there (a traceback from cffi, cairo's write error, exit 1, or the run going on).
    out = tmp_path / f"map.{suffix}"
    out.write_text("old map", encoding="utf-8")
    proc = subprocess.Popen(
        [*TRACKKIT, command, str(long_stage), "-o", str(out), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    time.sleep(delay)
    if proc.poll() is not None:
        pytest.skip("the drawing finished before the Ctrl-C (a fast machine)")
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip() == "trackkit: interrupted"
    assert out.read_text(encoding="utf-8") == "old map"
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left


def test_simulate_will_not_write_its_replay_over_the_stage_file(tmp_path: Path) -> None:
    stage = tmp_path / "stage.yaml"
    stage.write_bytes((REPO / "examples" / "col-de-turini.yaml").read_bytes())
    before = stage.read_bytes()
    done = subprocess.run(
        [*TRACKKIT, "simulate", str(stage), "--races", "1", "--replay", str(stage)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "is the stage file" in done.stderr
    assert stage.read_bytes() == before


def test_simulate_names_the_lines_of_the_findings_it_refuses(tmp_path: Path) -> None:
    done = subprocess.run(
        [*TRACKKIT, "simulate", str(REPO / "examples" / "broken-stage.yaml"), "--races", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "error S101 at tile 3 (999x), tiles[2], line 10" in done.stderr


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
@pytest.mark.parametrize("delay", [0.4, 0.7])
def test_ctrl_c_while_the_command_line_loads_says_interrupted(delay: float) -> None:
    # loading typer, pydantic, networkx... takes a good part of a second: a Ctrl-C then
    # used to be a KeyboardInterrupt traceback from inside an import. (A long command, so
    # that the Ctrl-C cannot land while Python shuts down, where SIGINT kills at once.)
    proc = subprocess.Popen(
        [*TRACKKIT, "simulate", EXAMPLE, "--races", "20000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    time.sleep(delay)
    if proc.poll() is not None:
        pytest.skip("the command finished before the Ctrl-C")
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip() == "trackkit: interrupted"


def test_a_ctrl_c_that_native_code_turns_into_an_import_error_still_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """numpy's C import catches the Ctrl-C, prints it through sys.excepthook and raises an
    ImportError of its own (seen when Ctrl-C landed while print first imported shapely)."""
    from trackkit import interrupt
    from trackkit.cli import app as cli

    def app() -> None:
        try:
            interrupt.request()  # what the SIGINT handler does
        except interrupt.Interrupted as swallowed:
            sys.excepthook(type(swallowed), swallowed, swallowed.__traceback__)  # PyErr_Print
        raise ImportError("numpy._core.multiarray failed to import")

    monkeypatch.setattr(cli, "app", app)
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 130
    err = capsys.readouterr().err
    assert err == "trackkit: interrupted\n"
    interrupt.reset()


def test_the_same_inside_a_real_command_where_typer_has_its_own_excepthook(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import trackkit.formats
    from trackkit import interrupt
    from trackkit.cli import app as cli

    def load_source(*args: object, **kwargs: object) -> None:
        try:
            interrupt.request()
        except interrupt.Interrupted as swallowed:
            sys.excepthook(type(swallowed), swallowed, swallowed.__traceback__)
        raise ImportError("numpy._core.multiarray failed to import")

    monkeypatch.setattr(trackkit.formats, "load_source", load_source)
    monkeypatch.setattr(sys, "argv", ["trackkit", "validate", EXAMPLE])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 130
    assert capsys.readouterr().err == "trackkit: interrupted\n"
    interrupt.reset()


def test_a_ctrl_c_that_pydantic_turns_into_a_validation_error_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """pydantic-core catches an exception raised inside its own validation (seen when the
    Ctrl-C landed while a tile file's face ids were matched against their pattern) and
    reports a validation error: the run was interrupted, the tile file is not broken."""
    from trackkit import interrupt
    from trackkit.cli import app as cli
    from trackkit.errors import TrackkitError

    def app() -> None:
        with contextlib.suppress(interrupt.Interrupted):  # what pydantic-core does with it
            interrupt.request()
        raise TrackkitError("dirt-climb.yaml: invalid tile file: String should match pattern")

    monkeypatch.setattr(cli, "app", app)
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 130
    assert capsys.readouterr().err == "trackkit: interrupted\n"
    interrupt.reset()


def test_an_import_error_without_a_ctrl_c_is_not_called_an_interruption(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from trackkit.cli import app as cli

    def app() -> None:
        raise ImportError("a broken installation")

    monkeypatch.setattr(cli, "app", app)
    with pytest.raises(ImportError, match="a broken installation"):
        cli.main()


def test_a_ctrl_c_that_native_code_could_not_raise_prints_no_traceback() -> None:
    """A SIGINT landing inside a check C code runs and cannot raise out of (numpy asking a
    float for its array interface) reaches sys.unraisablehook: trackkit's hook drops the
    interruption (the run still stops, exit 130) and passes anything else on."""
    from types import SimpleNamespace

    from trackkit import interrupt
    from trackkit.cli.app import _quiet_unraisable

    seen: list[object] = []
    hook = _quiet_unraisable(seen.append)
    hook(SimpleNamespace(exc_value=interrupt.Interrupted(), object=260.0))
    assert seen == []
    other = SimpleNamespace(exc_value=ValueError("a real problem"), object=None)
    hook(other)
    assert seen == [other]
