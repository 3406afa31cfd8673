"""Many races: run them (in parallel if asked) and summarise (the ``simulate`` JSON)."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from trackkit.models.car import CarFile
from trackkit.parallel import executor
from trackkit.rules.cars import car_dashboard
from trackkit.rules.dashboard import UnlimitedDashboard, dashboard
from trackkit.rules.ruleset import Ruleset, load_ruleset
from trackkit.sim.fairness import ALPHA, MIN_RACES, TEST, shared_wins, win_test
from trackkit.sim.garage import unlimited_dashboard
from trackkit.sim.gtstats import GtSummary, gt_summary, summarize_gt
from trackkit.sim.race import Dnf, DriverSpec, Prepared, RaceResult, Settings, run_race

__all__ = [
    "RaceSummary",
    "race_seed",
    "run_many",
    "start_position_test",
    "summarize_races",
]


def race_seed(seed: int, index: int) -> int:
    """The seed of race ``index`` of a run: independent of how races are split in jobs."""
    return seed * 1_000_003 + index


@dataclass(frozen=True, slots=True)
class RaceSummary:
    """What the statistics need of one race (small: 10,000 of them fit easily)."""

    times: tuple[int | None, ...]
    attempts: tuple[tuple[int, ...], ...]
    finished: tuple[bool, ...]
    losses: tuple[tuple[int, int, str], ...]
    blocked: tuple[str, ...]
    stuck: tuple[tuple[int, str | None], ...]
    rounds: int
    start_positions: tuple[int, ...]
    dnf: tuple[str | None, ...] = ()
    """Per driver: why it did not finish (a :class:`~trackkit.sim.race.Dnf`), or None."""
    spots: tuple[tuple[int, str, str, str], ...] = ()
    """Where cars got stuck: (tile index, tile id, space, cause)."""
    boards: tuple[tuple[UnlimitedDashboard | None, ...], ...] = ()
    """Per driver, the Unlimited board of each attempt (None: its printed or fixed car)."""
    sisu_spent: tuple[bool, ...] = ()
    """Per driver: its SISU token was flipped by the end of the race (LOC-7)."""
    gt: GtSummary | None = None
    """A GT race's places, grid, laps led, overtakes, pit stops and weather."""


def _summary(result: RaceResult) -> RaceSummary:
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
        _summary(run_race(prepared, settings, race_seed(seed, i), sisu_spent=spent))
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


def _dist(values: Sequence[float]) -> dict[str, float | int | None]:
    if not values:
        return {"n": 0, "mean": None, "p10": None, "p50": None, "p90": None}
    ordered = sorted(values)

    def pct(p: float) -> float:
        k = (len(ordered) - 1) * p
        lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
        return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)

    return {
        "n": len(values),
        "mean": round(statistics.fmean(values), 2),
        "p10": round(pct(0.1), 2),
        "p50": round(pct(0.5), 2),
        "p90": round(pct(0.9), 2),
    }


def _dashboards(
    races: Sequence[RaceSummary], i: int, car: str | CarFile, ruleset: Ruleset
) -> list[dict[str, Any]]:
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
        out.append({"dashboard": dash.short(), "attempts": n, "layout": dash.layout()})
    return sorted(out, key=lambda e: (-e["attempts"], e["dashboard"]))


def summarize_races(
    races: Sequence[RaceSummary],
    settings: Settings,
    *,
    seed: int,
    tiles: dict[int, str],
    ruleset: Ruleset | None = None,
) -> dict[str, Any]:
    """The JSON document of ``trackkit simulate`` (DESIGN.md); deterministic for a seed.

    ``tiles`` maps each tile's number in driving order to its face id; the document
    names the stage by them (``"stage": {"tiles": [...]}``), so that a reader such as
    ``trackkit render --heat`` can tell a simulation of another stage. Each driver's
    ``dashboards`` say which dashboards it drove (``dashboard``: in a few words,
    ``layout``: as a car file writes it) and in how many attempts.
    """
    if settings.gt is not None:  # a GT race: places, not times
        return summarize_gt(races, settings, seed=seed, tiles=tiles)
    rules = ruleset or load_ruleset("dirt")
    n = len(races)
    drivers = settings.drivers
    per_driver = []
    for i, d in enumerate(drivers):
        times = [r.times[i] for r in races if r.times[i] is not None]
        entry: dict[str, Any] = {
            "name": d.name,
            "car": d.car_label,
            "bot": d.bot_label,
            "finish_rate": round(sum(r.finished[i] for r in races) / n, 4) if n else 0.0,
            "time": _dist([float(t) for t in times if t is not None]),
            # did not finish, by reason: stuck for good, or still racing at the round cap
            "dnf": {
                reason.value: sum(1 for r in races if r.dnf and r.dnf[i] == reason.value)
                for reason in Dnf
            },
        }
        entry["dashboards"] = _dashboards(races, i, d.car, rules)
        if settings.hillclimb:
            entry["attempts_finished"] = (
                round(statistics.fmean(len(r.attempts[i]) for r in races), 3) if n else 0
            )
        per_driver.append(entry)
    all_times = [float(t) for r in races for t in r.times if t is not None]
    loss_by_tile = Counter(tile for r in races for _, tile, _space in r.losses)
    loss_by_space = Counter(space for r in races for _, _tile, space in r.losses)
    blocked = Counter(space for r in races for space in r.blocked)
    stuck = Counter(space or "start" for r in races for _, space in r.stuck)
    spots = Counter(spot for r in races for spot in r.spots)
    # rule: HILLCLIMB-2, TIME-2 (the best time wins; a best time shared is a tie)
    shared, alone, tied = shared_wins([r.times for r in races])
    doc: dict[str, Any] = {
        "settings": {
            "players": len(drivers),
            "races": n,
            "seed": seed,
            "cars": [d.car_label for d in drivers],
            "bots": [d.bot_label for d in drivers],
            "hillclimb": settings.hillclimb,
            "max_rounds": settings.max_rounds,
        },
        "finish_rate": round(sum(sum(r.finished) for r in races) / (n * len(drivers)), 4)
        if n
        else 0.0,
        "time": {"overall": _dist(all_times), "drivers": per_driver},
        "loss_of_control": {
            "per_race": round(sum(len(r.losses) for r in races) / n, 4) if n else 0.0,
            "by_tile": {
                str(t): {"tile": tiles.get(t, "?"), "count": c, "per_race": round(c / n, 4)}
                for t, c in sorted(loss_by_tile.items())
            },
            "by_space": dict(sorted(loss_by_space.items())),
        },
        "blocked_turns": {
            "total": sum(blocked.values()),
            "by_space": dict(sorted(blocked.items())),
        },
        "stuck": dict(sorted(stuck.items())),
        "stuck_spots": [
            {"tile_index": t, "tile": face, "space": space, "cause": cause, "count": c}
            for (t, face, space, cause), c in sorted(spots.items())
        ],
        "wins_by_start_position": {
            str(i + 1): round(shared[i], 4) if i < len(shared) else 0.0 for i in range(len(drivers))
        },
        "outright_wins_by_start_position": {
            str(i + 1): alone[i] if i < len(alone) else 0 for i in range(len(drivers))
        },
        "tied_races": tied,
        "start_position_test": start_position_test(races, drivers),
        "rounds": _dist([float(r.rounds) for r in races]),
    }
    if tiles:
        doc["stage"] = {"tiles": [tiles[i] for i in sorted(tiles)]}
    if settings.hillclimb:
        doc["hillclimb"] = {"best_of_attempts": _dist(all_times)}
    return doc


def start_position_test(
    races: Sequence[RaceSummary], drivers: Sequence[DriverSpec]
) -> dict[str, Any]:
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
            {
                "car": car,
                "bot": bot,
                "start_positions": [i + 1 for i in members],
                "won_alone": wins,
                "tied": tied,
                **test.to_json(),
            }
        )
    return {"test": TEST, "alpha": ALPHA, "min_races": MIN_RACES, "groups": groups}
