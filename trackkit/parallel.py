"""Seeded work shared out between processes: one executor interface, two executors.

Whatever runs many races (``simulate --jobs``, ``car suggest``, the generator's
finalists) hands an :class:`Executor` three things:

- a *work function*, defined at module level (it is sent to a worker by name): it takes
  the context and a chunk of items and returns one result per item;
- a *context*, what every item needs and no item changes (the stage, the settings, the
  run's seed): given once, when the executor is opened, and sent to each worker once;
- the *items*: each carries, or names, its own seed (race ``i`` has the seed
  ``race_seed(seed, i)``), so that a result does not depend on which process ran it.

:meth:`Executor.map` gives one result per item, in the items' order, however they were
cut into chunks and shared out: the same run gives the same results with any number of
jobs. :func:`executor` opens one: :class:`InProcess` for one job (the items one at a
time), :class:`ProcessPool` for more (a local pool of worker processes), and
:class:`OnCluster` when ``jobs`` is a :class:`Cluster`.

A :class:`Cluster` is the jobs of a Dask cluster (``--scheduler ADDRESS``, the optional
``distributed`` package: ``pip install 'trackkit[dask]'``), opened with :func:`cluster`: an
``int``, how many of the cluster's worker threads run at once, that also holds the
connection. It goes wherever a number of jobs goes, through every caller unchanged, to
:func:`executor`; there the context is scattered to every worker once and the chunks
run as tasks. The seeds are in the items, so the results are those of one job.

The local executors run the work with the garbage collector settled (:func:`settled`),
and a worker process stops its task on Ctrl-C but never dies of it between tasks
(:func:`worker_signals`); a cluster's tasks run settled too.

Examples
--------
>>> with executor(10, jobs=1) as ex:
...     ex.map(add_context, [1, 2, 3])
[11, 12, 13]
>>> with executor(10, jobs=2) as ex:  # two worker processes, chunks of two items
...     ex.map(add_context, [1, 2, 3, 4, 5], most=2)
[11, 12, 13, 14, 15]
"""

from __future__ import annotations

import contextlib
import gc
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import CancelledError, ProcessPoolExecutor
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from trackkit import __version__
from trackkit.errors import TrackkitError

if TYPE_CHECKING:
    from distributed import Client, Future

__all__ = [
    "CONNECT_TIMEOUT",
    "FULL_EVERY",
    "Cluster",
    "Executor",
    "InProcess",
    "OnCluster",
    "ProcessPool",
    "SchedulerError",
    "Work",
    "chunk_size",
    "cluster",
    "executor",
    "settled",
    "worker_signals",
    "worker_task",
]

C = TypeVar("C")
C_co = TypeVar("C_co", covariant=True)
T = TypeVar("T")
R = TypeVar("R")

#: A work function: the context and a chunk of items -> one result per item, in order.
Work = Callable[[C, list[T]], list[R]]
#: Told how many more items are done.
Progress = Callable[[int], None]

#: Collections of the middle generation between two full ones during a run (Python's
#: default is 10): the heap before the run is set aside, so what a full collection finds
#: is the races' own long-lived objects, which the plan memo keeps anyway.
FULL_EVERY = 100


class Executor(Protocol[C_co]):
    """Runs work over items with a context given once (module docstring)."""

    def map(
        self,
        work: Callable[[C_co, list[T]], list[R]],
        items: Sequence[T],
        *,
        most: int = 1,
        progress: Progress | None = None,
    ) -> list[R]:
        """``work`` over every item: one result per item, in the items' order.

        ``most`` is the most items a chunk holds (a small one for long items: Ctrl-C
        then stops the run soon); ``progress`` is told how many more items are done.
        """
        ...


def chunk_size(items: int, jobs: int, most: int) -> int:
    """Items per chunk: about four chunks a worker, at most ``most``, at least one.

    >>> chunk_size(1000, 2, 50), chunk_size(40, 2, 50), chunk_size(3, 4, 16)
    (50, 5, 1)
    """
    return max(1, min(most, items // (jobs * 4) or 1))


@contextlib.contextmanager
def settled() -> Iterator[None]:
    """Races make many objects that live a race or less, and the garbage collector counts
    them: it need not look, again and again, at what was there before (the stage, the
    modules). That is set aside for the run (:func:`gc.freeze`), full collections are
    rarer (:data:`FULL_EVERY`), and both are given back after; the heap is left alone if
    the caller set objects aside itself.

    >>> import gc
    >>> before = gc.get_threshold()
    >>> with settled():
    ...     gc.get_threshold()[2] >= FULL_EVERY
    True
    >>> gc.get_threshold() == before
    True
    """
    if gc.get_freeze_count():
        yield
        return
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(threshold[0], threshold[1], max(threshold[2], FULL_EVERY))
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


#: Whether this worker process is running a task (see :func:`worker_signals`).
_BUSY: list[bool] = [False]
#: The context a worker process was given when it started (:class:`ProcessPool`).
_CONTEXT: list[object] = []


def worker_signals() -> None:
    """In a worker process: Ctrl-C stops the task at work, never the wait between tasks.

    Ctrl-C reaches every process of the terminal's group. Inside a task the interrupt
    the worker inherited ends the task, and the main process, interrupted too, stops the
    run; between two tasks it would end the worker itself, which multiprocessing reports
    with a traceback. There it is ignored: the pool ends the worker when the run stops.
    """
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        if _BUSY[0]:
            previous(signum, frame)

    signal.signal(signal.SIGINT, interrupt)


@contextlib.contextmanager
def worker_task() -> Iterator[None]:
    """Mark a worker process at work (Ctrl-C then stops the task: :func:`worker_signals`)."""
    _BUSY[0] = True
    try:
        yield
    finally:
        _BUSY[0] = False


def _start_worker(context: object) -> None:
    """Each worker process receives the context once, not with every chunk, and keeps
    the heap it starts with set aside for good (see :func:`settled`)."""
    worker_signals()
    _CONTEXT[:] = [context]
    gc.freeze()
    threshold = gc.get_threshold()
    gc.set_threshold(threshold[0], threshold[1], max(threshold[2], FULL_EVERY))


def _in_worker(args: tuple[Callable[[object, list[T]], list[R]], list[T]]) -> list[R]:
    work, chunk = args
    with worker_task():
        return work(_CONTEXT[0], chunk)


class InProcess(Generic[C]):
    """The executor of one job: the items one at a time, in this process."""

    def __init__(self, context: C) -> None:
        self.context = context

    def map(
        self,
        work: Callable[[C, list[T]], list[R]],
        items: Sequence[T],
        *,
        most: int = 1,
        progress: Progress | None = None,
    ) -> list[R]:
        """``work`` over every item, one at a time (``most`` has no say here)."""
        out: list[R] = []
        with settled():
            for item in items:
                out += work(self.context, [item])
                if progress is not None:
                    progress(1)
        return out


class ProcessPool(Generic[C]):
    """The executor of several jobs: a pool of ``jobs`` local worker processes, each
    given the context once; open it as a context manager (:func:`executor` does)."""

    def __init__(self, context: C, jobs: int) -> None:
        self.jobs = jobs
        self._pool = ProcessPoolExecutor(
            max_workers=jobs, initializer=_start_worker, initargs=(context,)
        )

    def __enter__(self) -> ProcessPool[C]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._pool.shutdown(cancel_futures=True)

    def map(
        self,
        work: Callable[[C, list[T]], list[R]],
        items: Sequence[T],
        *,
        most: int = 1,
        progress: Progress | None = None,
    ) -> list[R]:
        """``work`` over every item, in chunks of at most ``most`` (:func:`chunk_size`)
        shared out between the workers; results in the items' order."""
        size = chunk_size(len(items), self.jobs, most)
        chunks = [list(items[k : k + size]) for k in range(0, len(items), size)]
        out: list[R] = []
        for part in self._pool.map(_in_worker, [(work, c) for c in chunks]):
            out += part
            if progress is not None:
                progress(len(part))
        return out


#: Seconds a Dask scheduler has to answer, and to have a worker (:func:`cluster`).
CONNECT_TIMEOUT = 5.0


class SchedulerError(TrackkitError):
    """A Dask scheduler that cannot run the races: ``distributed`` is not installed, the
    address is not one or nothing answers there in time, it has no workers, its workers
    run no or another trackkit, or it was lost during the run. The message says which,
    and what to do."""


class Cluster(int):
    """The jobs of a Dask cluster: as an ``int``, how many of its worker threads run at
    once (the chunks are cut for them); it also holds the connection, ``client``, to the
    scheduler at ``address``. Open one with :func:`cluster` and give it as ``jobs``.
    """

    address: str
    client: Client

    def __new__(cls, address: str, client: Client, threads: int) -> Cluster:
        """The cluster of the scheduler at ``address``, connected by ``client``, whose
        workers run ``threads`` threads in all (at least one)."""
        self = super().__new__(cls, max(1, threads))
        self.address = address
        self.client = client
        return self

    def __repr__(self) -> str:
        return f"Cluster({self.address!r}, threads={int(self)})"


def _install_hint() -> str:
    return "pip install 'trackkit[dask]' (or pip install distributed)"


async def _probe(address: str, timeout: float) -> None:
    """Connect to ``address`` and say hello as Dask does, then hang up."""
    from distributed.comm.core import connect

    comm = await connect(address, timeout=timeout)
    await comm.close()


def _check_workers(client: Client, address: str) -> None:
    """Every worker must run this trackkit: the races are run there."""
    from importlib.metadata import version

    found = client.run(version, "trackkit", on_error="return")
    for worker, have in sorted(found.items()):
        if isinstance(have, BaseException):
            raise SchedulerError(
                f"the worker {worker} of the Dask scheduler at {address} has no trackkit "
                f"installed: install trackkit {__version__} on every worker (it runs the races)"
            )
        if have != __version__:
            raise SchedulerError(
                f"the worker {worker} of the Dask scheduler at {address} runs trackkit "
                f"{have}, this is trackkit {__version__}: install the same trackkit on every "
                "worker (another version may race differently)"
            )


@contextlib.contextmanager
def cluster(address: str, *, timeout: float = CONNECT_TIMEOUT) -> Iterator[Cluster]:
    """Connect to the Dask scheduler at ``address``, for the ``with`` block.

    Parameters
    ----------
    address : str
        The scheduler's address, ``tcp://HOST:PORT`` (``dask scheduler`` listens on 8786).
    timeout : float
        Seconds the scheduler has to answer, and then to have a worker.

    Yields
    ------
    Cluster
        The cluster's jobs, to give as ``jobs`` (:func:`executor`).

    Raises
    ------
    SchedulerError
        When ``distributed`` is not installed, the address is not one, nothing answers
        there in ``timeout`` seconds, the scheduler has no worker, or a worker runs no or
        another trackkit.
    """
    try:
        from distributed import Client
    except ImportError:
        raise SchedulerError(
            f"a Dask scheduler needs the package distributed, which is not installed: "
            f"{_install_hint()}"
        ) from None
    import asyncio

    try:
        # a Client that cannot connect leaves a close that waits and complains on exit:
        # the address is tried first with a plain connection
        asyncio.run(_probe(address, timeout))
    except ValueError as exc:
        raise SchedulerError(
            f"'{address}' is not a Dask scheduler address ({exc}): give tcp://HOST:PORT, "
            "e.g. tcp://192.168.1.20:8786"
        ) from None
    except OSError:  # refused, unknown host, no route: Dask retries them until the timeout
        raise SchedulerError(
            f"no Dask scheduler answers at {address} within {timeout:g} s: check the "
            "address, and that 'dask scheduler' runs there and its port is open"
        ) from None
    except Exception as exc:  # something else answers there
        raise SchedulerError(
            f"what answers at {address} is not a Dask scheduler ({type(exc).__name__}): "
            "check the address and the port (dask scheduler listens on 8786)"
        ) from None
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except (OSError, ValueError) as exc:
        raise SchedulerError(f"the Dask scheduler at {address} was lost ({exc})") from None
    with client:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except TimeoutError:
            raise SchedulerError(
                f"the Dask scheduler at {address} has no worker (none came within "
                f"{timeout:g} s): start some, 'dask worker {address} --nthreads 1 "
                "--nworkers N', on machines with trackkit installed"
            ) from None
        _check_workers(client, address)
        threads = sum(client.nthreads().values())
        yield Cluster(address, client, threads)


def _on_cluster(work: Callable[[C, list[T]], list[R]], context: C, chunk: list[T]) -> list[R]:
    """A task on a Dask worker: ``work`` over a chunk, with the collector settled."""
    with settled():
        return work(context, chunk)


class OnCluster(Generic[C]):
    """The executor of a Dask cluster (a :class:`Cluster`): the context is scattered to
    every worker once, and each chunk of items is a task; open it as a context manager
    (:func:`executor` does): that lets the context go again."""

    def __init__(self, context: C, on: Cluster) -> None:
        self.cluster = on
        self._client = on.client
        try:
            # in a list: a tuple or a dict itself would be scattered item by item
            sent = self._client.scatter([context], broadcast=True, hash=False)
            self._context: Future[C] = sent[0]
        except (OSError, CancelledError) as exc:
            raise self._lost(exc) from None

    def __enter__(self) -> OnCluster[C]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._context.release()

    def _lost(self, exc: BaseException) -> SchedulerError:
        return SchedulerError(
            f"the Dask cluster at {self.cluster.address} stopped the run: the connection, "
            f"its scheduler or a worker was lost ({type(exc).__name__}), and not every race "
            "was run; see the logs of its scheduler and workers, and run again"
        )

    def map(
        self,
        work: Callable[[C, list[T]], list[R]],
        items: Sequence[T],
        *,
        most: int = 1,
        progress: Progress | None = None,
    ) -> list[R]:
        """``work`` over every item, in chunks of at most ``most`` (:func:`chunk_size`,
        for the cluster's threads), each a task; results in the items' order."""
        from distributed import KilledWorker, as_completed

        size = chunk_size(len(items), int(self.cluster), most)
        chunks = [list(items[k : k + size]) for k in range(0, len(items), size)]
        tasks = [
            self._client.submit(_on_cluster, work, self._context, c, pure=False) for c in chunks
        ]
        where = {task.key: n for n, task in enumerate(tasks)}
        parts: list[list[R]] = [[] for _ in tasks]
        try:
            for task in as_completed(tasks, loop=self._client.loop):
                part: list[R] = task.result()
                parts[where[task.key]] = part
                if progress is not None:
                    progress(len(part))
        except (OSError, CancelledError, KilledWorker) as exc:
            raise self._lost(exc) from None
        finally:
            self._client.cancel(tasks)  # what is still to run, after an error or Ctrl-C
        return [result for part in parts for result in part]


@contextlib.contextmanager
def executor(context: C, *, jobs: int, items: int | None = None) -> Iterator[Executor[C]]:
    """The executor for ``jobs``: in this process for one, else a local process pool of
    ``jobs`` workers (no more than ``items``, when known; one item: in this process); on
    a Dask cluster when ``jobs`` is a :class:`Cluster`.

    Parameters
    ----------
    context : object
        What every item's work needs (picklable): given to each worker once.
    jobs : int
        Worker processes asked for (``--jobs``), or a :class:`Cluster`: its workers
        (``--scheduler``), however many items.
    items : int, optional
        How many items there will be, when known: no more workers than that.

    Examples
    --------
    >>> with executor(100, jobs=2, items=1) as ex:  # one item: no worker process
    ...     type(ex).__name__, ex.map(add_context, [5])
    ('InProcess', [105])
    """
    if isinstance(jobs, Cluster):
        with OnCluster(context, jobs) as on:
            yield on
        return
    workers = jobs if items is None else min(jobs, items)
    if workers <= 1:
        yield InProcess(context)
        return
    with ProcessPool(context, workers) as pool:
        yield pool


def add_context(context: int, items: list[int]) -> list[int]:
    """A work function for the examples: each item plus the context.

    >>> add_context(1, [1, 2])
    [2, 3]
    """
    return [context + i for i in items]
