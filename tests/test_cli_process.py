"""The command line as a process: exit statuses when output fails or the user presses Ctrl-C."""

from __future__ import annotations

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
