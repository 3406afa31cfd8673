"""The one process-pool helper (issue 20): results in order for any jobs and chunks."""

from __future__ import annotations

import os

import pytest

from trackkit.parallel import (
    Executor,
    InProcess,
    ProcessPool,
    add_context,
    chunk_size,
    executor,
)


def _where(context: str, items: list[int]) -> list[tuple[str, int, int]]:
    """Each item with the context and the process that ran it."""
    return [(context, i, os.getpid()) for i in items]


def _fail_on_three(context: None, items: list[int]) -> list[int]:
    if 3 in items:
        raise ValueError("three")
    return items


@pytest.mark.parametrize(("jobs", "most"), [(1, 1), (2, 1), (2, 3), (3, 50)])
def test_map_gives_one_result_per_item_in_order_with_any_jobs_and_chunks(
    jobs: int, most: int
) -> None:
    items = list(range(23))
    told: list[int] = []
    with executor("ctx", jobs=jobs) as ex:
        out = ex.map(_where, items, most=most, progress=told.append)
    assert [(c, i) for c, i, _pid in out] == [("ctx", i) for i in items]
    assert sum(told) == len(items)
    pids = {pid for _c, _i, pid in out}
    if jobs == 1:
        assert pids == {os.getpid()} and told == [1] * len(items)
    else:
        assert os.getpid() not in pids  # run by the workers
        assert max(told) <= min(most, chunk_size(len(items), jobs, most))


def test_a_pool_is_used_for_several_maps_and_the_context_given_once() -> None:
    with executor(5, jobs=2) as ex:
        assert isinstance(ex, ProcessPool)
        assert ex.map(add_context, [1, 2, 3]) == [6, 7, 8]
        assert ex.map(add_context, []) == []
        assert ex.map(add_context, [10], most=4) == [15]


def test_no_more_workers_than_items_and_one_item_runs_here() -> None:
    with executor("x", jobs=4, items=1) as ex:
        assert isinstance(ex, InProcess)
    with executor("x", jobs=4, items=2) as ex:
        assert isinstance(ex, ProcessPool) and ex.jobs == 2
    with executor("x", jobs=0) as ex:
        assert isinstance(ex, InProcess)


def test_an_error_in_a_worker_reaches_the_caller() -> None:
    for jobs in (1, 2):
        with pytest.raises(ValueError, match="three"), executor(None, jobs=jobs) as ex:
            ex.map(_fail_on_three, [1, 2, 3, 4])


def test_chunks_are_about_four_a_worker_and_never_empty() -> None:
    assert chunk_size(1000, 2, 50) == 50  # capped
    assert chunk_size(80, 2, 50) == 10  # 8 chunks for 2 workers
    assert chunk_size(3, 2, 50) == 1
    assert chunk_size(0, 2, 50) == 1


def test_both_executors_are_executors() -> None:
    # the interface a Dask executor (issue 22) implements beside them
    def run(ex: Executor[int]) -> list[int]:
        return ex.map(add_context, [1, 2], most=1)

    assert run(InProcess(1)) == [2, 3]
    with ProcessPool(1, 2) as pool:
        assert run(pool) == [2, 3]
