"""``trackkit car suggest``: Unlimited dashboards for a hillclimb, searched by simulation."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.models.car import REGION_SIZES
from trackkit.rules.cars import load_car, unlimited_board
from trackkit.rules.dashboard import unlimited_problems
from trackkit.rules.track import Track
from trackkit.sim.garage import BUILDS, build_unlimited, stage_profile
from trackkit.sim.race import DriverSpec, Settings, prepare, run_race
from trackkit.sim.stats import race_seed
from trackkit.sim.suggest import _car, _play_key, schedule, search_space, space_size, suggest

REPO = Path(__file__).resolve().parents[1]
SMALL = """format: trackkit-stage/1
name: Small climb
kind: {kind}
tiles:
  - tile: 301a
  - tile: 418a
    climb: up
  - tile: 316a
    turn: right
  - tile: 302a
"""


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small-climb.yaml"
    path.write_text(SMALL.format(kind="hillclimb"), encoding="utf-8")
    return path


def _prepared(path: Path) -> tuple[object, object]:
    report = validate(load_stage(path))
    track = Track.from_graph(report.graph, report.layout)
    return prepare(track), stage_profile(track)


def test_the_search_space_is_every_board_the_help_describes_each_way_of_playing_once():
    # rule: DASH-3, DASH-4 (legal boards: tokens from the right, room per region)
    _stage, profile = _prepared(REPO / "examples/hillclimb-pikes.yaml")
    assert profile.surfaces == ("asphalt", "snow") and profile.shortcuts  # type: ignore[attr-defined]
    boards = search_space(profile)  # type: ignore[arg-type]
    assert space_size(profile) == 2 * 3 * 3 * 3 * 3 * 2 * 2  # type: ignore[arg-type]
    assert len({_play_key(b) for b in boards}) == len(boards) < space_size(profile)  # type: ignore[arg-type]
    for board in boards:
        assert unlimited_problems(board, profile.surfaces) == []  # type: ignore[attr-defined]
        tokens = [t for _r, _i, t in board.tokens()]
        gears = sorted(int(t[5:]) for t in tokens if t.startswith("gear-"))
        assert gears == list(range(1, gears[-1] + 1)) and gears[-1] >= 4
        assert 1 <= tokens.count("coast") <= 3 and tokens.count("brake") <= 2
        assert tokens.count("boost") <= 2
        # tokens work where they work on the most surfaces: the right column (the best
        # surface only) holds tokens only once the shared spaces are full
        shared = REGION_SIZES["left"] + REGION_SIZES["middle"] + 1
        assert not board.right or len(tokens) > shared
    # the bots' own builds are boards of the space (so they are in the race)
    for bot in ("cautious", "planner", "aggressive"):
        own = _play_key(build_unlimited(profile, bot))  # type: ignore[arg-type]
        assert own in {_play_key(b) for b in boards}, bot
    assert set(BUILDS) == {"cautious", "planner", "aggressive"}


def test_schedule_halves_the_boards_and_doubles_the_races_up_to_races():
    assert schedule(331, 3, 16) == [(331, 1), (166, 2), (83, 4), (42, 8), (21, 16)]
    assert schedule(20, 3, 64) == [(20, 1), (10, 2), (5, 4), (3, 64)]
    assert schedule(2, 3, 5) == [(2, 5)]
    for boards, top, races in ((162, 1, 1), (1944, 5, 32), (7, 7, 3)):
        rounds = schedule(boards, top, races)
        assert rounds[0][0] == boards and rounds[-1][1] == races
        assert all(n2 <= n1 and r2 > r1 for (n1, r1), (n2, r2) in pairwise(rounds))


def test_every_board_meets_the_same_seeded_races_and_ranks_by_finish_then_time(small: Path):
    stage, _profile = _prepared(small)
    counted: list[int] = []
    found = suggest(
        stage,  # type: ignore[arg-type]
        players=2,
        races=4,
        seed=9,
        top=3,
        bots=("planner", "cautious"),
        progress=counted.append,
    )
    assert sum(counted) == sum(
        n * (r - before)
        for (n, r), before in zip(
            found.rounds, [0, *[r for _n, r in found.rounds][:-1]], strict=True
        )
    )
    keys = [b.rank_key() for b in found.boards]
    assert keys == sorted(keys) and len(found.boards) == 3
    # the winner's figures are those of its own races, raced alone with the same seeds
    best = found.boards[0]
    car = _car(best.board)
    settings = Settings(
        (DriverSpec("a", car, "planner"), DriverSpec("b", car, "cautious")), hillclimb=True
    )
    times: list[int | None] = []
    losses = 0
    for i in range(4):
        result = run_race(stage, settings, race_seed(9, i))  # type: ignore[arg-type]
        times += [d.best for d in result.drivers]
        losses += sum(len(d.losses) for d in result.drivers)
    assert best.best == times and best.losses == losses and best.races == 4
    assert best.mean_best == pytest.approx(sum(t for t in times if t) / len(times))


def test_car_suggest_is_the_same_byte_for_byte_with_any_jobs(small: Path):
    runner = CliRunner()
    args = ["car", "suggest", str(small), "--players", "2", "--races", "2", "--seed", "3"]
    one = runner.invoke(app, args)
    again = runner.invoke(app, args)
    two = runner.invoke(app, [*args, "--jobs", "2"])
    assert one.exit_code == 0, one.output
    assert one.stdout == again.stdout == two.stdout
    lines = one.stdout.splitlines()
    assert lines[0] == f"{small}: Small climb, a hillclimb on asphalt"
    assert "162 Unlimited boards searched" in lines[1]
    ranked = [line for line in lines if line[:4].strip() in ("1", "2", "3")]
    assert len(ranked) == 3 and all("asphalt: gears" in line for line in ranked)
    other = runner.invoke(app, [*args[:-1], "4"])
    assert other.exit_code == 0 and other.stdout != one.stdout  # another seed, other races


def test_car_suggest_writes_the_boards_as_car_files_that_read_back(small: Path, tmp_path: Path):
    runner = CliRunner()
    out = tmp_path / "cars"
    done = runner.invoke(
        app, ["car", "suggest", str(small), "--players", "1", "--races", "2", "--top", "2",
              "-o", str(out)],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    files = sorted(out.iterdir())
    assert [f.name for f in files] == ["small-climb-board-1.yaml", "small-climb-board-2.yaml"]
    lines = done.stdout.splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith("   1  "))
    car = load_car(files[0])
    assert car.name == "Small climb board 1" and car.description is not None
    board = unlimited_board(car)
    assert lines[first].endswith(board.short())  # the file holds the board printed first
    left = "left: [" + ", ".join(s or "-" for s in board.layout()["left"]) + "]"
    assert lines[first + 2].strip() == left
    assert f"wrote {files[0]}" in done.stdout


def test_car_suggest_checks_its_outputs_before_it_searches(small: Path, tmp_path: Path):
    runner = CliRunner()
    base = ["car", "suggest", str(small), "--races", "1", "--players", "1"]
    not_dir = tmp_path / "cars.yaml"
    not_dir.write_text("x", encoding="utf-8")
    done = runner.invoke(app, [*base, "-o", str(not_dir)])
    assert done.exit_code == 2 and "not a folder" in done.stderr and done.stdout == ""
    missing = tmp_path / "no" / "such" / "cars"
    done = runner.invoke(app, [*base, "-o", str(missing)])
    assert done.exit_code == 2 and "does not exist" in done.stderr and done.stdout == ""
    out = tmp_path / "cars"
    out.mkdir()
    locked = out / "small-climb-board-2.yaml"
    locked.write_text("old", encoding="utf-8")
    locked.chmod(0o444)
    done = runner.invoke(app, [*base, "-o", str(out)])
    assert done.exit_code == 2 and "read-only" in done.stderr and done.stdout == ""
    assert locked.read_text(encoding="utf-8") == "old"
    done = runner.invoke(app, [*base, "-o", str(out), "--force"])
    assert done.exit_code == 0 and locked.read_text(encoding="utf-8").startswith("format:")
    assert oct(locked.stat().st_mode & 0o777) == "0o444"  # a replaced file keeps its mode
    if os.name == "posix":
        (out / "small-climb-board-1.yaml").unlink()
        (out / "small-climb-board-1.yaml").symlink_to(tmp_path / "elsewhere.yaml")
        done = runner.invoke(app, [*base, "-o", str(out)])
        assert done.exit_code == 2 and "symbolic link" in done.stderr


def test_car_suggest_refuses_a_stage_that_is_not_a_hillclimb_or_cannot_be_raced(
    small: Path, tmp_path: Path
):
    runner = CliRunner()
    rally = tmp_path / "rally.yaml"
    rally.write_text(SMALL.format(kind="rally"), encoding="utf-8")
    done = runner.invoke(app, ["car", "suggest", str(rally)])
    assert done.exit_code == 2 and done.stdout == ""
    assert f"{rally}: a rally, not a hillclimb" in done.stderr and "--kind hillclimb" in done.stderr
    done = runner.invoke(
        app, ["car", "suggest", str(rally), "--kind", "hillclimb", "--races", "1", "--players", "1"]
    )
    assert done.exit_code == 0 and "a hillclimb on asphalt" in done.stdout
    broken = tmp_path / "broken.yaml"
    broken.write_text(SMALL.format(kind="hillclimb").replace("316a", "999x"), encoding="utf-8")
    done = runner.invoke(app, ["car", "suggest", str(broken)])
    assert done.exit_code == 1 and "S101" in done.stderr and done.stdout == ""
    done = runner.invoke(app, ["car", "suggest", str(tmp_path / "missing.yaml")])
    assert done.exit_code == 2 and "missing.yaml" in done.stderr
    done = runner.invoke(app, ["car", "suggest", str(small), "--bot", "reckless"])
    assert done.exit_code == 2 and "unknown bot 'reckless'" in done.stderr
    done = runner.invoke(app, ["car", "suggest", "--help"])
    assert done.exit_code == 0
    words = " ".join(done.stdout.split())  # help text is reflowed to the terminal's width
    assert "162 on one" in words and "k! x 3 x 3 x 3 x 3 x 2" in words


def test_a_rekee_hillclimb_is_searched_once_its_kind_is_inferred(tmp_path: Path):
    """An editor file has no kind: its climb tiles make it a hillclimb (H404 said on stderr)."""
    runner = CliRunner()
    rgt = REPO / "examples/hillclimb-pikes.rgt"
    done = runner.invoke(
        app, ["car", "suggest", str(rgt), "--races", "1", "--players", "1", "--top", "1"]
    )
    assert done.exit_code == 0, done.output
    assert "note:" in done.stderr and "hillclimb" in done.stderr
    assert "asphalt and snow" in done.stdout.splitlines()[0]


POSIX = pytest.mark.skipif(os.name != "posix", reason="terminals and signals are POSIX")
TRACKKIT = [sys.executable, "-m", "trackkit"]


def _read_all(fd: int, proc: subprocess.Popen[bytes], timeout: float) -> bytes:
    """Everything written to the terminal ``fd`` until ``proc`` ends."""
    import select

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


@POSIX
def test_car_suggest_shows_progress_on_a_terminal_and_keeps_stdout_the_report(small: Path):
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [*TRACKKIT, "car", "suggest", str(small), "--players", "1", "--races", "4"],
            stdout=subprocess.PIPE,
            stderr=slave,
        )
        os.close(slave)
        shown = _read_all(master, proc, timeout=120).decode("utf-8", "replace")
        out, _ = proc.communicate(timeout=60)
    finally:
        os.close(master)
    assert proc.returncode == 0, shown
    assert "searching" in shown and "100%" in shown
    assert out.decode().splitlines()[0].endswith("Small climb, a hillclimb on asphalt")
    quiet = subprocess.run(
        [*TRACKKIT, "car", "suggest", str(small), "--players", "1", "--races", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert quiet.returncode == 0 and quiet.stderr == ""  # no bar when stderr is no terminal


@POSIX
@pytest.mark.skipif(shutil.which("pgrep") is None, reason="needs pgrep to find the workers")
def test_ctrl_c_stops_a_search_and_its_workers_and_writes_nothing(tmp_path: Path):
    out = tmp_path / "cars"
    pikes = str(REPO / "examples/hillclimb-pikes.yaml")
    proc = subprocess.Popen(
        [*TRACKKIT, "car", "suggest", pikes, "--jobs", "2", "--races", "64", "-o", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while len(workers) < 2 and time.monotonic() < deadline:  # the pool is at work
        time.sleep(0.2)
        found = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
        workers = [int(p) for p in found.stdout.split()]
    assert len(workers) >= 2, "no workers started"
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal does on Ctrl-C
    started = time.monotonic()
    stdout, stderr = proc.communicate(timeout=60)
    assert time.monotonic() - started < 10
    assert proc.returncode == 130 and stderr.strip() == "trackkit: interrupted" and stdout == ""
    time.sleep(0.5)
    assert [w for w in workers if Path(f"/proc/{w}").exists()] == []
    assert not out.exists()  # the folder is made only when the boards are written
