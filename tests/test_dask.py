"""Sweeps on a Dask cluster (issue 22, "Beyond one machine"): ``--scheduler ADDRESS`` or
``TRACKKIT_SCHEDULER`` runs the races of simulate, car suggest, generate and validate
--simulate on a cluster's workers, with the results of ``--jobs 1`` byte for byte.

The cluster is a ``distributed.LocalCluster`` of one worker process (two threads): its
own process, imports and hash seed, as a worker on another machine has.
"""

from __future__ import annotations

import logging
import os
import site
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trackkit.cli import app
from trackkit.parallel import (
    CONNECT_TIMEOUT,
    Cluster,
    OnCluster,
    SchedulerError,
    add_context,
    chunk_size,
    cluster,
    executor,
)

distributed = pytest.importorskip("distributed", reason="the [dask] extra is not installed")

# one xdist worker starts the cluster and runs every test of it (make test: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("dask")

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SMALL_CLIMB = """format: trackkit-stage/1
name: Small climb
kind: hillclimb
tiles:
  - tile: 301a
  - tile: 418a
    climb: up
  - tile: 316a
    turn: right
  - tile: 302a
"""


@pytest.fixture(scope="module")
def address() -> Iterator[str]:
    """The scheduler address of a local cluster: one worker process with two threads."""
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as local:
        with distributed.Client(local, set_as_default=False) as setup:
            # the worker imports the work functions of these tests, as it does trackkit's
            setup.run(site.addsitedir, str(REPO))
        yield local.scheduler_address


@pytest.fixture
def client(address: str) -> Iterator[distributed.Client]:
    """A client of the test's own, to watch what the cluster runs."""
    with distributed.Client(address, set_as_default=False) as watcher:
        yield watcher


def _where(context: str, items: list[int]) -> list[tuple[str, int, int]]:
    """Each item with the context and the process that ran it."""
    return [(context, i, os.getpid()) for i in items]


def _fail_on_three(context: None, items: list[int]) -> list[int]:
    if 3 in items:
        raise ValueError("three")
    return items


def _free_port() -> int:
    """A local port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _ran_on(stream: list[dict[str, object]]) -> int:
    """How many chunks the cluster ran (tasks of trackkit.parallel._on_cluster)."""
    return sum(1 for task in stream if "on_cluster" in str(task["key"]))


# ---- the executor -----------------------------------------------------------------------


def test_the_cluster_runs_the_chunks_in_its_workers_and_gives_results_in_item_order(
    address: str,
) -> None:
    items = list(range(23))
    told: list[int] = []
    with cluster(address) as on:
        assert isinstance(on, Cluster) and int(on) == 2  # one worker, two threads
        with executor("ctx", jobs=on, items=1) as ex:  # any number of items: the cluster
            assert isinstance(ex, OnCluster)
            out = ex.map(_where, items, most=3, progress=told.append)
            assert ex.map(add_context, []) == []  # the context given once serves every map
    assert [(c, i) for c, i, _pid in out] == [("ctx", i) for i in items]
    assert os.getpid() not in {pid for _c, _i, pid in out}  # run by the worker process
    assert sum(told) == len(items) and max(told) <= chunk_size(len(items), 2, 3)


def test_an_error_in_the_work_reaches_the_caller_as_it_is(address: str) -> None:
    with cluster(address) as on, executor(None, jobs=on) as ex:
        with pytest.raises(ValueError, match="three"):
            ex.map(_fail_on_three, list(range(6)), most=2)
        assert ex.map(_fail_on_three, [1, 2]) == [1, 2]  # and the cluster still runs


def test_a_worker_with_another_trackkit_is_refused(
    address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another version may race otherwise: the results would not be those of --jobs 1."""
    monkeypatch.setattr("trackkit.parallel.__version__", "0.0.0+other")
    refused = pytest.raises(SchedulerError, match=r"runs trackkit \S+, this is trackkit 0\.0\.0")
    with refused, cluster(address):
        pass


def test_a_scheduler_without_workers_is_refused_within_the_timeout() -> None:
    with distributed.LocalCluster(
        n_workers=0, processes=False, dashboard_address=":0", silence_logs=logging.ERROR
    ) as empty:
        start = time.monotonic()
        with (
            pytest.raises(SchedulerError, match="has no worker"),
            cluster(empty.scheduler_address, timeout=1),
        ):
            pass
        assert time.monotonic() - start < 20


# ---- the commands: byte for byte the results of --jobs 1 --------------------------------

runner = CliRunner()
#: Mixed bots, as JSON.
SIMULATE = ["simulate", "--format", "json", "--bot", "cautious", "--bot", "aggressive"]
SIMULATE += ["--bot", "planner"]


@pytest.mark.parametrize(
    "args",
    [
        # DIRT, mixed bots
        [*SIMULATE, str(EXAMPLES / "col-de-turini.yaml"), "--races", "30", "--seed", "7"],
        # GT, six cars
        [*SIMULATE, str(EXAMPLES / "gt-figure-eight.rekee.json"), "--races", "6", "--players", "6"],
        # validate --simulate races through the same path
        ["validate", str(EXAMPLES / "col-de-turini.yaml"), "--simulate", "12", "--format", "json"],
    ],
    ids=["simulate-dirt", "simulate-gt", "validate-simulate"],
)
def test_a_sweep_on_the_cluster_gives_the_json_of_one_job_byte_for_byte(
    args: list[str], address: str, client: distributed.Client
) -> None:
    one = runner.invoke(app, [*args, "--jobs", "1"] if args[0] == "simulate" else args)
    assert one.exit_code == 0, one.output
    with distributed.get_task_stream(client=client) as stream:
        there = runner.invoke(app, [*args, "--scheduler", address])
    assert there.exit_code == 0, there.output
    assert there.stdout == one.stdout
    assert _ran_on(stream.data) >= 2  # the races were shared out between the threads


def test_car_suggest_on_the_cluster_gives_the_report_and_files_of_one_job(
    tmp_path: Path, address: str, client: distributed.Client
) -> None:
    stage = tmp_path / "small-climb.yaml"
    stage.write_text(SMALL_CLIMB, encoding="utf-8")
    args = ["car", "suggest", str(stage), "--players", "2", "--races", "2", "--seed", "3"]
    one = runner.invoke(app, [*args, "--jobs", "1", "-o", str(tmp_path / "one")])
    assert one.exit_code == 0, one.output
    with distributed.get_task_stream(client=client) as stream:
        there = runner.invoke(app, [*args, "--scheduler", address, "-o", str(tmp_path / "there")])
    assert there.exit_code == 0, there.output
    assert there.stdout.replace(str(tmp_path / "there"), str(tmp_path / "one")) == one.stdout
    boards = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert len(boards) == 3
    for name in boards:
        assert (tmp_path / "there" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
    assert _ran_on(stream.data) >= 2


def test_generate_on_the_cluster_writes_the_files_of_one_job(
    tmp_path: Path, address: str, client: distributed.Client
) -> None:
    args = ["generate", "--boxes", "dirt-core", "--tiles", "5", "--count", "2"]
    args += ["--candidates", "3", "--finalists", "2", "--races", "3", "--seed", "3"]
    one = runner.invoke(app, [*args, "-o", str(tmp_path / "one")])
    assert one.exit_code == 0, one.output
    with distributed.get_task_stream(client=client) as stream:
        there = runner.invoke(app, [*args, "--scheduler", address, "-o", str(tmp_path / "there")])
    assert there.exit_code == 0, there.output
    files = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "there").iterdir())
    for name in files:
        assert (tmp_path / "there" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
    assert _ran_on(stream.data) >= 1  # the finalists raced there


def test_trackkit_scheduler_is_the_default_and_an_empty_one_races_here(
    address: str, client: distributed.Client
) -> None:
    args = ["simulate", str(EXAMPLES / "col-de-turini.yaml"), "--races", "8", "--format", "json"]
    one = runner.invoke(app, args)
    assert one.exit_code == 0, one.output
    with distributed.get_task_stream(client=client) as stream:
        there = runner.invoke(app, args, env={"TRACKKIT_SCHEDULER": address})
    assert there.exit_code == 0, there.output
    assert there.stdout == one.stdout and _ran_on(stream.data) >= 1
    with distributed.get_task_stream(client=client) as stream:
        here = runner.invoke(app, [*args, "--scheduler", ""], env={"TRACKKIT_SCHEDULER": address})
    assert here.exit_code == 0 and here.stdout == one.stdout
    assert _ran_on(stream.data) == 0  # the option wins over the variable: raced here
    bad = runner.invoke(app, args, env={"TRACKKIT_SCHEDULER": "nonsense"})
    assert bad.exit_code == 2 and "--scheduler" in bad.stderr  # the variable was read


# ---- what cannot be used: exit 2, a message that says what to do, no traceback ----------


def test_without_distributed_the_scheduler_option_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    args = ["simulate", str(EXAMPLES / "col-de-turini.yaml"), "--races", "2"]
    done = runner.invoke(app, [*args, "--scheduler", "tcp://127.0.0.1:8786"])
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit)
    assert "pip install 'trackkit[dask]'" in done.stderr and "Traceback" not in done.output
    assert done.stdout == ""
    as_json = runner.invoke(app, [*args, "--format", "json", "--scheduler", "tcp://h:8786"])
    assert as_json.exit_code == 2 and '"exit_status": 2' in as_json.stdout
    # without --scheduler nothing needs it
    assert runner.invoke(app, args).exit_code == 0


@pytest.mark.parametrize(
    "command",
    [
        ["simulate", str(EXAMPLES / "col-de-turini.yaml"), "--races", "2"],
        ["car", "suggest", str(EXAMPLES / "hillclimb-pikes.yaml"), "--races", "1"],
        ["validate", str(EXAMPLES / "col-de-turini.yaml"), "--simulate", "2"],
    ],
    ids=["simulate", "car-suggest", "validate-simulate"],
)
def test_an_address_that_is_not_one_is_refused_at_once(command: list[str]) -> None:
    done = runner.invoke(app, [*command, "--scheduler", "no-port-here"])
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    assert "tcp://HOST:PORT" in done.stderr and "Traceback" not in done.output


def test_an_address_where_nothing_answers_is_refused_within_a_short_timeout() -> None:
    silent = f"tcp://127.0.0.1:{_free_port()}"
    args = ["simulate", str(EXAMPLES / "col-de-turini.yaml"), "--races", "2"]
    start = time.monotonic()
    done = runner.invoke(app, [*args, "--scheduler", silent])
    took = time.monotonic() - start
    assert done.exit_code == 2 and isinstance(done.exception, SystemExit), done.output
    assert silent in done.stderr and "Traceback" not in done.output
    assert CONNECT_TIMEOUT <= took < CONNECT_TIMEOUT + 20  # the timeout, then the message
