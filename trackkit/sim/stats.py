"""Many races: run them (in parallel if asked) and summarise (the ``simulate`` JSON)."""

from __future__ import annotations

import contextlib
import gc
import signal
import statistics
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from types import FrameType

from trackkit.models.car import CarFile
from trackkit.models.simreport import (
    DashboardUse,
    DirtDriver,
    DirtSettings,
    DirtSimPart,
    HillclimbFigures,
    PositionGroup,
    SimReport,
    StartPositionTest,
    StuckCount,
    TimeFigures,
)
from trackkit.rules.cars import car_dashboard
from trackkit.rules.dashboard import dashboard
from trackkit.rules.ruleset import Ruleset, load_ruleset
from trackkit.sim.fairness import ALPHA, MIN_RACES, TEST, shared_wins, win_test
from trackkit.sim.figures import (
    RaceSummary,
    distribution,
    driver_figures,
    gt_summary,
    sim_report,
)
from trackkit.sim.garage import unlimited_dashboard
from trackkit.sim.gtstats import gt_report
from trackkit.sim.race import DriverSpec, Prepared, RaceResult, Settings, run_race

__all__ = [
    "race_seed",
    "race_summary",
    "run_many",
    "start_position_test",
    "summarize_races",
    "worker_signals",
    "worker_task",
]


def race_seed(seed: int, index: int) -> int:
    """The seed of race ``index`` of a run: independent of how races are split in jobs."""
    return seed * 1_000_003 + index


def race_summary(result: RaceResult) -> RaceSummary:
    """What the statistics keep of a race (:class:`~trackkit.sim.figures.RaceSummary`)."""
    drivers = result.drivers
    return RaceSummary(
        times=tuple(d.best for d in drivers),
        attempts=tuple(tuple(d.times) for d in drivers),
        finished=tuple(d.finished for d in drivers),
        losses=tuple((i, tile, space) for i, d in enumerate(drivers) for tile, space in d.losses),
        blocked=tuple(space for d in drivers for space in d.blocked),
        stuck=tuple((i, d.stuck_at) for i, d in enumerate(drivers) if not d.finished),
        rounds=result.rounds,
        start_positions=tuple(range(len(drivers))),
        dnf=tuple(None if d.finished or d.out is None else d.out.value for d in drivers),
        spots=tuple(
            (d.stuck.tile, d.stuck.face, d.stuck.space, d.stuck.cause)
            for d in drivers
            if d.stuck is not None
        ),
        boards=tuple(tuple(d.boards) for d in drivers),
        sisu_spent=tuple(d.sisu_spent for d in drivers),
        gt=gt_summary(result.gt) if result.gt is not None else None,
    )


#: Per race index: each driver's SISU token already flipped on an earlier stage (LOC-7).
Carry = Mapping[int, Sequence[bool]]


def _run_chunk(
    args: tuple[Prepared, Settings, int, list[int], Carry | None],
) -> list[RaceSummary]:
    prepared, settings, seed, indices, carry = args
    return [
        race_summary(
            run_race(
                prepared, settings, race_seed(seed, i), sisu_spent=carry.get(i, ()) if carry else ()
            )
        )
        for i in indices
    ]


_WORKER: dict[str, object] = {}

#: Whether this worker process is running a task (see :func:`worker_signals`).
_BUSY: list[bool] = [False]


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


def _init_worker(prepared: Prepared, settings: Settings) -> None:
    """Each worker process receives the stage once, not with every chunk."""
    worker_signals()
    _WORKER["prepared"], _WORKER["settings"] = prepared, settings
    gc.freeze()  # the stage and the modules, for good (see _settled)
    threshold = gc.get_threshold()
    gc.set_threshold(threshold[0], threshold[1], max(threshold[2], FULL_EVERY))


#: Collections of the middle generation between two full ones during a run (Python's
#: default is 10): the heap before the run is set aside, so what a full collection finds
#: is the races' own long-lived objects, which the plan memo keeps anyway.
FULL_EVERY = 100


@contextlib.contextmanager
def _settled() -> Iterator[None]:
    """Races make many objects that live a race or less, and the garbage collector counts
    them: it need not look, again and again, at what was there before (the stage, the
    modules). That is set aside for the run (:func:`gc.freeze`), full collections are
    rarer (:data:`FULL_EVERY`), and both are given back after; the heap is left alone if
    the caller set objects aside itself."""
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


def _run_in_worker(args: tuple[int, list[int], Carry | None]) -> list[RaceSummary]:
    seed, indices, carry = args
    prepared, settings = _WORKER["prepared"], _WORKER["settings"]
    assert isinstance(prepared, Prepared) and isinstance(settings, Settings)
    with worker_task():
        return _run_chunk((prepared, settings, seed, indices, carry))


def run_many(
    prepared: Prepared,
    settings: Settings,
    *,
    races: int,
    seed: int,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    sisu_spent: Sequence[Sequence[bool]] | None = None,
) -> list[RaceSummary]:
    """Run ``races`` races; with ``jobs`` > 1 in worker processes, with the same results.

    Race ``i`` always uses the seed ``race_seed(seed, i)``, so how races are shared out
    between processes changes nothing in the result. ``sisu_spent[i]`` (a rally's later
    stage) says whose SISU token race ``i`` starts with already flipped.
    """
    indices = list(range(races))
    carry: Carry | None = dict(enumerate(sisu_spent)) if sisu_spent else None
    if jobs <= 1 or races < 2:
        out = []
        with _settled():
            for i in indices:
                out.extend(_run_chunk((prepared, settings, seed, [i], carry)))
                if progress:
                    progress(1)
        return out
    chunk = max(1, min(50, races // (jobs * 4) or 1))
    parts = [indices[k : k + chunk] for k in range(0, races, chunk)]
    results: list[RaceSummary] = []
    with ProcessPoolExecutor(
        max_workers=jobs, initializer=_init_worker, initargs=(prepared, settings)
    ) as pool:
        args = [(seed, p, {i: carry[i] for i in p if i in carry} if carry else None) for p in parts]
        for part in pool.map(_run_in_worker, args):
            results.extend(part)
            if progress:
                progress(len(part))
    return results


def _dashboards(
    races: Sequence[RaceSummary], i: int, car: str | CarFile, ruleset: Ruleset
) -> list[DashboardUse]:
    """The dashboards driver ``i`` used, with how many attempts each: most used first."""
    used = Counter(b for r in races if r.boards for b in r.boards[i])
    out = []
    for board, n in used.items():
        if board is not None:
            dash = unlimited_dashboard(board)
        elif isinstance(car, CarFile):
            dash = car_dashboard(car)
        else:
            dash = dashboard(car, ruleset)
        out.append(DashboardUse(dashboard=dash.short(), attempts=n, layout=dash.layout()))
    return sorted(out, key=lambda e: (-e.attempts, e.dashboard))


def summarize_races(
    races: Sequence[RaceSummary],
    settings: Settings,
    *,
    seed: int,
    tiles: dict[int, str],
    ruleset: Ruleset | None = None,
) -> SimReport:
    """The report of ``trackkit simulate`` (DESIGN.md); deterministic for a seed.

    ``tiles`` maps each tile's number in driving order to its face id; the report names
    the stage by them (``"stage": {"tiles": [...]}``), so that a reader such as
    ``trackkit render --heat`` can tell a simulation of another stage. Each driver's
    ``dashboards`` say which dashboards it drove (``dashboard``: in a few words,
    ``layout``: as a car file writes it) and in how many attempts.

    What both series report is :func:`~trackkit.sim.figures.sim_report`'s; the GT part
    (places, not times) is :func:`~trackkit.sim.gtstats.gt_report`'s.
    """
    if settings.gt is not None:  # a GT race: places, not times
        return gt_report(races, settings, seed=seed, tiles=tiles)
    rules = ruleset or load_ruleset("dirt")
    n = len(races)
    drivers = settings.drivers
    parts = []
    for i, d in enumerate(drivers):
        times = [float(t) for r in races if (t := r.times[i]) is not None]
        driver = DirtDriver(
            time=distribution(times), dashboards=_dashboards(races, i, d.car, rules)
        )
        if settings.hillclimb:
            finished = statistics.fmean(len(r.attempts[i]) for r in races) if n else 0.0
            driver = driver.model_copy(update={"attempts_finished": round(finished, 3)})
        parts.append(driver)
    all_times = [float(t) for r in races for t in r.times if t is not None]
    spots = Counter(spot for r in races for spot in r.spots)
    # rule: HILLCLIMB-2, TIME-2 (the best time wins; a best time shared is a tie)
    shared, alone, tied = shared_wins([r.times for r in races])
    part = DirtSimPart(
        time=TimeFigures(
            overall=distribution(all_times), drivers=driver_figures(races, settings, parts)
        ),
        stuck_spots=[
            StuckCount(tile_index=t, tile=face, space=space, cause=cause, count=c)
            for (t, face, space, cause), c in sorted(spots.items())
        ],
        wins_by_start_position={
            str(i + 1): round(shared[i], 4) if i < len(shared) else 0.0 for i in range(len(drivers))
        },
        outright_wins_by_start_position={
            str(i + 1): alone[i] if i < len(alone) else 0 for i in range(len(drivers))
        },
        tied_races=tied,
        start_position_test=start_position_test(races, drivers),
    )
    if settings.hillclimb:
        part = part.model_copy(
            update={"hillclimb": HillclimbFigures(best_of_attempts=distribution(all_times))}
        )
    return sim_report(
        races,
        settings,
        seed=seed,
        tiles=tiles,
        start="start",
        settings_part=DirtSettings(hillclimb=settings.hillclimb),
        part=part,
    )


def start_position_test(
    races: Sequence[RaceSummary], drivers: Sequence[DriverSpec]
) -> StartPositionTest:
    """Does a start position win more than chance? (the ``start_position_test`` of the
    ``simulate`` document, which P604 reads).

    A driver's start position is its number (TURN-1), so positions are compared only
    among drivers alike, the same car and bot: a cautious driver beaten by an aggressive
    one says nothing about the stage. Each set of two or more drivers alike is tested on
    the races where one of them did better than the others of the set (a best time
    shared is a tie, left out): :func:`~trackkit.sim.fairness.win_test`, corrected for
    every position compared.
    """
    sets: dict[tuple[str, str], list[int]] = {}
    for i, d in enumerate(drivers):
        sets.setdefault((d.car_label, d.bot_label), []).append(i)
    alike = [(key, members) for key, members in sets.items() if len(members) > 1]
    compared = sum(len(members) for _key, members in alike)
    groups = []
    for (car, bot), members in alike:
        _shared, alone, tied = shared_wins([[r.times[i] for i in members] for r in races])
        wins = {str(i + 1): alone[k] if k < len(alone) else 0 for k, i in enumerate(members)}
        test = win_test(wins, compared=compared)
        assert test is not None  # two drivers or more
        groups.append(
            PositionGroup.model_validate(
                {
                    "car": car,
                    "bot": bot,
                    "start_positions": [i + 1 for i in members],
                    "won_alone": wins,
                    "tied": tied,
                    **test.to_json(),
                }
            )
        )
    return StartPositionTest(test=TEST, alpha=ALPHA, min_races=MIN_RACES, groups=groups)
