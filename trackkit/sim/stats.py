"""Many races: run them (in parallel if asked) and summarise (the ``simulate`` JSON)."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from trackkit.sim.race import Dnf, Prepared, RaceResult, Settings, run_race

__all__ = ["RaceSummary", "race_seed", "run_many", "summarize_races"]


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
    )


def _run_chunk(args: tuple[Prepared, Settings, int, list[int]]) -> list[RaceSummary]:
    prepared, settings, seed, indices = args
    return [_summary(run_race(prepared, settings, race_seed(seed, i))) for i in indices]


_WORKER: dict[str, object] = {}


def _init_worker(prepared: Prepared, settings: Settings) -> None:
    """Each worker process receives the stage once, not with every chunk."""
    _WORKER["prepared"], _WORKER["settings"] = prepared, settings


def _run_in_worker(args: tuple[int, list[int]]) -> list[RaceSummary]:
    seed, indices = args
    prepared, settings = _WORKER["prepared"], _WORKER["settings"]
    assert isinstance(prepared, Prepared) and isinstance(settings, Settings)
    return _run_chunk((prepared, settings, seed, indices))


def run_many(
    prepared: Prepared,
    settings: Settings,
    *,
    races: int,
    seed: int,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[RaceSummary]:
    """Run ``races`` races; with ``jobs`` > 1 in worker processes, with the same results.

    Race ``i`` always uses the seed ``race_seed(seed, i)``, so how races are shared out
    between processes changes nothing in the result.
    """
    indices = list(range(races))
    if jobs <= 1 or races < 2:
        out = []
        for i in indices:
            out.extend(_run_chunk((prepared, settings, seed, [i])))
            if progress:
                progress(1)
        return out
    chunk = max(1, min(50, races // (jobs * 4) or 1))
    parts = [indices[k : k + chunk] for k in range(0, races, chunk)]
    results: list[RaceSummary] = []
    with ProcessPoolExecutor(
        max_workers=jobs, initializer=_init_worker, initargs=(prepared, settings)
    ) as pool:
        for part in pool.map(_run_in_worker, [(seed, p) for p in parts]):
            results.extend(part)
            if progress:
                progress(len(part))
    return results


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


def summarize_races(
    races: Sequence[RaceSummary],
    settings: Settings,
    *,
    seed: int,
    tiles: dict[int, str],
) -> dict[str, Any]:
    """The JSON document of ``trackkit simulate`` (DESIGN.md); deterministic for a seed.

    ``tiles`` maps each tile's number in driving order to its face id; the document
    names the stage by them (``"stage": {"tiles": [...]}``), so that a reader such as
    ``trackkit render --heat`` can tell a simulation of another stage.
    """
    n = len(races)
    drivers = settings.drivers
    per_driver = []
    for i, d in enumerate(drivers):
        times = [r.times[i] for r in races if r.times[i] is not None]
        entry: dict[str, Any] = {
            "name": d.name,
            "car": d.car,
            "bot": d.bot,
            "finish_rate": round(sum(r.finished[i] for r in races) / n, 4) if n else 0.0,
            "time": _dist([float(t) for t in times if t is not None]),
            # did not finish, by reason: stuck for good, or still racing at the round cap
            "dnf": {
                reason.value: sum(1 for r in races if r.dnf and r.dnf[i] == reason.value)
                for reason in Dnf
            },
        }
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
    wins: Counter[int] = Counter()
    for r in races:
        timed = [(t, i) for i, t in enumerate(r.times) if t is not None]
        if timed:
            wins[min(timed)[1]] += 1
    doc: dict[str, Any] = {
        "settings": {
            "players": len(drivers),
            "races": n,
            "seed": seed,
            "cars": [d.car for d in drivers],
            "bots": [d.bot for d in drivers],
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
        "wins_by_start_position": {str(i + 1): wins.get(i, 0) for i in range(len(drivers))},
        "rounds": _dist([float(r.rounds) for r in races]),
    }
    if tiles:
        doc["stage"] = {"tiles": [tiles[i] for i in sorted(tiles)]}
    if settings.hillclimb:
        doc["hillclimb"] = {"best_of_attempts": _dist(all_times)}
    return doc
