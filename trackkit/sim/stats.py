"""Many races: run them (in parallel if asked) and summarise (the ``simulate`` JSON)."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence

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
from trackkit.parallel import executor
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


def _run_races(
    context: tuple[Prepared, Settings, int], races: list[tuple[int, Sequence[bool]]]
) -> list[RaceSummary]:
    """Races ``(index, SISU tokens flipped already)`` of a run: a work function of
    :mod:`trackkit.parallel`."""
    prepared, settings, seed = context
    return [
        race_summary(run_race(prepared, settings, race_seed(seed, i), sisu_spent=spent))
        for i, spent in races
    ]


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
    spent = list(sisu_spent or ())
    items = [(i, spent[i] if i < len(spent) else ()) for i in range(races)]
    with executor((prepared, settings, seed), jobs=jobs, items=races) as ex:
        return ex.map(_run_races, items, most=50, progress=progress)


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
