"""Statistics of GT races: places, the grid, laps led, overtakes, losses of control, pits.

What :func:`summarize_gt` writes is the ``simulate --format json`` document of a GT track:
the DIRT document's shape where it applies (``settings``, ``finish_rate``,
``loss_of_control`` with ``by_tile`` and ``by_space``, ``blocked_turns``, ``rounds``,
``stage``), and what a circuit designer asks besides: ``wins_by_grid_slot`` (is pole
decisive?), ``overtakes`` per race and per lap, by lap, tile and space (the map's heat view
reads ``overtakes.by_space`` as it reads ``loss_of_control.by_space``), ``laps_led``,
``gaps`` in rounds, ``decided_on_lap_1``, ``pit_stops`` and ``weather_changes``.

Overtakes per lap divide by the laps the leaders drove (``overtakes.laps_driven``: fewer
than the laps of the race where the round cap stopped it). ``decided_on_lap_1`` is the
share of the races with a winner where the car leading after lap 1 won; it is None where
nobody won, for races of one lap and for one car. A point-to-point track has no laps:
``settings.laps``, ``overtakes.per_lap``, ``laps_led`` (and each driver's
``laps_led_per_race``) and ``decided_on_lap_1`` are None, ``overtakes.by_lap`` is empty and
``settings.point_to_point`` is true; its figures are per race.

A loss of control is charged (``loss_of_control.by_tile``, ``by_space``) to the step that
broke the danger limit, not to the end of a flat-out move whose dice were placed again
(:func:`~trackkit.rules.blame.loss_space`, the one rule of both series).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trackkit.sim.gt import GtRace

if TYPE_CHECKING:
    from trackkit.sim.race import Settings
    from trackkit.sim.stats import RaceSummary

__all__ = ["GtSummary", "gt_summary", "summarize_gt"]


@dataclass(frozen=True, slots=True)
class GtSummary:
    """What the GT statistics need of one race (small, picklable)."""

    laps: int | None
    """None: a point-to-point track (no laps)."""
    grid: tuple[int, ...]
    order: tuple[int, ...]
    finish_round: tuple[int | None, ...]
    laps_led: tuple[int, ...]
    lap_leaders: tuple[int, ...]
    overtakes: tuple[tuple[int, int, str, int], ...]
    """(driver, tile, space, lap) of every overtake."""
    pit_stops: tuple[tuple[int, str, bool, bool], ...]
    """(driver, space, repaired, new tyres) of every pit stop."""
    weather: tuple[tuple[int, str], ...]
    """(round, the new weather) of every change."""
    yellow_flags: int
    gear_00: tuple[int, ...]
    decided_on_lap_1: bool | None
    """None: not asked (no winner, a race of one lap or none, one car)."""
    gaps: tuple[int | None, ...]
    laps_driven: int = 0
    """The laps the leader began (:attr:`~trackkit.sim.gt.GtRace.laps_driven`)."""


def gt_summary(race: GtRace) -> GtSummary:
    """The :class:`GtSummary` of a race's :class:`~trackkit.sim.gt.GtRace`."""
    return GtSummary(
        laps=race.laps,
        grid=tuple(race.grid),
        order=tuple(race.order),
        finish_round=tuple(race.finish_round),
        laps_led=tuple(race.laps_led),
        lap_leaders=tuple(race.lap_leaders),
        overtakes=tuple((o.driver, o.tile, o.space, o.lap) for o in race.overtakes),
        pit_stops=tuple((p.driver, p.space, p.repair, p.tyres) for p in race.pit_stops),
        weather=tuple((r, w) for r, _driver, w in race.weather),
        yellow_flags=race.yellow_flags,
        gear_00=tuple(race.gear_00),
        decided_on_lap_1=race.decided_on_lap_1,
        gaps=tuple(race.gaps()),
        laps_driven=race.laps_driven,
    )


def _dist(values: Sequence[float]) -> dict[str, float | int | None]:
    from trackkit.sim.stats import _dist as dist

    return dist(values)


def _rate(count: float, n: int) -> float:
    return round(count / n, 4) if n else 0.0


def summarize_gt(
    races: Sequence[RaceSummary],
    settings: Settings,
    *,
    seed: int,
    tiles: dict[int, str],
) -> dict[str, Any]:
    """The ``simulate`` JSON document of GT races; deterministic for a seed.

    ``tiles`` maps each tile's number in driving order to its face id (``stage.tiles``
    names the track, so a reader such as ``render --heat`` can tell another track's).
    """
    n = len(races)
    drivers = settings.drivers
    players = len(drivers)
    gts = [r.gt for r in races if r.gt is not None]
    options = settings.gt
    laps = gts[0].laps if gts else (options.laps if options and options.laps else None)
    laps_driven = sum(g.laps_driven for g in gts)
    # who led lap 1 and won, among the races where that is asked (a winner, two laps, cars)
    asked = [g.decided_on_lap_1 for g in gts if g.decided_on_lap_1 is not None]
    per_driver = []
    passes = Counter(o[0] for g in gts for o in g.overtakes)
    losses = Counter(lo[0] for r in races for lo in r.losses)
    for i, d in enumerate(drivers):
        places = [g.order.index(i) + 1 for g in gts if i in g.order]
        per_driver.append(
            {
                "name": d.name,
                "car": d.car_label,
                "bot": d.bot_label,
                "finish_rate": _rate(sum(r.finished[i] for r in races), n),
                "wins": sum(1 for g in gts if g.order and g.order[0] == i),
                "place": _dist([float(p) for p in places]),
                "laps_led_per_race": (
                    _rate(sum(g.laps_led[i] for g in gts), n) if laps is not None else None
                ),
                "overtakes_per_race": _rate(passes.get(i, 0), n),
                "losses_per_race": _rate(losses.get(i, 0), n),
                "gear_00_per_race": _rate(sum(g.gear_00[i] for g in gts), n),
                "pit_stops_per_race": _rate(
                    sum(1 for g in gts for p in g.pit_stops if p[0] == i), n
                ),
                "dnf": {
                    reason: sum(1 for r in races if r.dnf and r.dnf[i] == reason)
                    for reason in ("stuck", "round cap")
                },
            }
        )
    # rule: BOARD-3 (the grid slots, pole first): who won from each slot
    slot_wins: Counter[int] = Counter()
    slot_starts: Counter[int] = Counter()
    for g in gts:
        for slot, driver in enumerate(g.grid):
            slot_starts[slot] += 1
            if g.order and g.order[0] == driver:
                slot_wins[slot] += 1
    overtakes = [o for g in gts for o in g.overtakes]
    by_tile = Counter(o[1] for o in overtakes)
    by_space = Counter(o[2] for o in overtakes)
    by_lap = Counter(o[3] for o in overtakes)
    loss_tile = Counter(tile for r in races for _i, tile, _space in r.losses)
    loss_space = Counter(space for r in races for _i, _tile, space in r.losses)
    blocked = Counter(space for r in races for space in r.blocked)
    pits = Counter(p[1] for g in gts for p in g.pit_stops)
    winners_round = [
        float(r) for g in gts if g.order and (r := g.finish_round[g.order[0]]) is not None
    ]
    second = [float(g.gaps[g.order[1]] or 0) for g in gts if len(g.order) > 1]
    last = [float(g.gaps[g.order[-1]] or 0) for g in gts if len(g.order) > 1]
    doc: dict[str, Any] = {
        "settings": {
            "players": players,
            "races": n,
            "seed": seed,
            "cars": [d.car_label for d in drivers],
            "bots": [d.bot_label for d in drivers],
            "laps": laps,
            "point_to_point": laps is None,
            "weather": options.weather if options and options.weather else None,
            "grid": options.grid if options else "drawn",
            "max_rounds": settings.max_rounds,
            "gt": True,
        },
        "finish_rate": _rate(sum(sum(r.finished) for r in races), n * players),
        "drivers": per_driver,
        "wins_by_grid_slot": {str(s + 1): slot_wins.get(s, 0) for s in range(players)},
        "win_rate_by_grid_slot": {
            str(s + 1): _rate(slot_wins.get(s, 0), slot_starts.get(s, 0)) for s in range(players)
        },
        "laps_led": (
            {d.name: per_driver[i]["laps_led_per_race"] for i, d in enumerate(drivers)}
            if laps is not None
            else None
        ),
        "decided_on_lap_1": _rate(sum(asked), len(asked)) if asked else None,
        "overtakes": {
            "total": len(overtakes),
            "per_race": _rate(len(overtakes), n),
            # per lap the leader drove (a race stopped at the round cap drove fewer)
            "per_lap": _rate(len(overtakes), laps_driven) if laps_driven else None,
            "laps_driven": laps_driven,
            "by_lap": {str(k): c for k, c in sorted(by_lap.items())} if laps is not None else {},
            "by_tile": {
                str(t): {"tile": tiles.get(t, "?"), "count": c, "per_race": _rate(c, n)}
                for t, c in sorted(by_tile.items())
            },
            "by_space": dict(sorted(by_space.items())),
        },
        "loss_of_control": {
            "per_race": _rate(sum(len(r.losses) for r in races), n),
            "gear_00_per_race": _rate(sum(sum(g.gear_00) for g in gts), n),
            "by_tile": {
                str(t): {"tile": tiles.get(t, "?"), "count": c, "per_race": _rate(c, n)}
                for t, c in sorted(loss_tile.items())
            },
            "by_space": dict(sorted(loss_space.items())),
        },
        "pit_stops": {
            "per_race": _rate(sum(len(g.pit_stops) for g in gts), n),
            "by_space": dict(sorted(pits.items())),
        },
        "weather_changes": {
            "per_race": _rate(sum(len(g.weather) for g in gts), n),
            "races_with_a_change": sum(1 for g in gts if g.weather),
        },
        "yellow_flags": {"per_race": _rate(sum(g.yellow_flags for g in gts), n)},
        "blocked_turns": {
            "total": sum(blocked.values()),
            "by_space": dict(sorted(blocked.items())),
        },
        "rounds": _dist([float(r.rounds) for r in races]),
        "winner_rounds": _dist(winners_round),
        "gaps": {"to_second": _dist(second), "to_last": _dist(last)},
        "stuck": dict(
            sorted(Counter(space or "grid" for r in races for _i, space in r.stuck).items())
        ),
    }
    if tiles:
        doc["stage"] = {"tiles": [tiles[i] for i in sorted(tiles)]}
    return doc
