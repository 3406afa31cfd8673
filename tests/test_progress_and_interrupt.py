"""Long runs the user asked for show progress and stop cleanly on Ctrl-C.

``simulate`` draws a progress bar on stderr when stderr is a terminal (whatever the output
format: stdout keeps its document); Ctrl-C ends the run with exit 130, the workers of
``--jobs`` die with it, quietly, and no file is left behind.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from stagekit import REPO

EXAMPLE = str(REPO / "examples" / "col-de-turini.yaml")
TRACKKIT = [sys.executable, "-m", "trackkit"]
POSIX = pytest.mark.skipif(os.name != "posix", reason="terminals and signals are POSIX")


def _read_all(fd: int, proc: subprocess.Popen[bytes], timeout: float) -> bytes:
    """Everything written to the terminal ``fd`` until ``proc`` ends."""
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the other end closed
                break
            out += chunk
        elif proc.poll() is not None:
            break
    return out


@pytest.mark.slow
@POSIX
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_long_simulation_shows_progress_on_a_terminal(fmt: str) -> None:
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [*TRACKKIT, "simulate", EXAMPLE, "--races", "60", "--players", "2", "--format", fmt],
            stdout=subprocess.PIPE,
            stderr=slave,
        )
        os.close(slave)
        shown = _read_all(master, proc, timeout=120).decode("utf-8", "replace")
        out, _ = proc.communicate(timeout=60)
    finally:
        os.close(master)
    assert proc.returncode == 0, shown
    assert "racing" in shown and "100%" in shown
    if fmt == "json":
        assert json.loads(out)["settings"]["races"] == 60  # stdout is still the document


@pytest.mark.slow
@POSIX
def test_no_progress_bar_when_stderr_is_not_a_terminal() -> None:
    done = subprocess.run(
        [*TRACKKIT, "simulate", EXAMPLE, "--races", "20", "--players", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr == ""


def _children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(p) for p in found.stdout.split()]


@pytest.mark.slow
@POSIX
@pytest.mark.skipif(shutil.which("pgrep") is None, reason="needs pgrep to find the workers")
@pytest.mark.parametrize("whom", ["group", "main"])
def test_ctrl_c_stops_every_worker_quietly_and_leaves_no_file(whom: str, tmp_path: Path) -> None:
    replay = tmp_path / "race.json"
    args = ["simulate", EXAMPLE, "--races", "100000", "--jobs", "2", "--replay", str(replay)]
    proc = subprocess.Popen(
        [*TRACKKIT, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while len(workers) < 2 and time.monotonic() < deadline:  # the pool is at work
        time.sleep(0.2)
        workers = _children(proc.pid)
    assert len(workers) >= 2, "no workers started"
    time.sleep(0.5)
    if whom == "group":  # what a terminal does on Ctrl-C
        os.killpg(proc.pid, signal.SIGINT)
    else:  # only trackkit itself (kill -INT PID)
        os.kill(proc.pid, signal.SIGINT)
    started = time.monotonic()
    out, err = proc.communicate(timeout=60)
    assert time.monotonic() - started < 10  # it stops, it does not finish the races
    assert proc.returncode == 130
    assert err.strip() == "trackkit: interrupted" and out == ""
    time.sleep(0.5)
    assert [w for w in workers if Path(f"/proc/{w}").exists()] == []
    assert list(tmp_path.iterdir()) == []  # no replay, no temporary file
