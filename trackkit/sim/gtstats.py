"""Statistics of GT races: places, the grid, laps led, overtakes, losses of control, pits.

:func:`gt_report` is the GT hook of :func:`trackkit.sim.stats.summarize_races`: the
report of a GT track has what both series have (:func:`trackkit.sim.figures.sim_report`:
``settings``, ``finish_rate``, ``loss_of_control`` with ``by_tile`` and ``by_space``,
``blocked_turns``, ``rounds``, ``stage``), and in its GT part
(:class:`~trackkit.models.simreport.GtSimPart`) what a circuit designer asks besides:
``wins_by_grid_slot`` (is pole decisive?), ``overtakes`` per race and per lap, by lap, tile
and space (the map's heat view reads ``overtakes.by_space`` as it reads
``loss_of_control.by_space``), ``laps_led``, ``gaps`` in rounds, ``decided_on_lap_1``,
``pit_stops`` and ``weather_changes``.

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
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from trackkit.models.simreport import (
    Gaps,
    GtDriver,
    GtSettings,
    GtSimPart,
    Overtakes,
    PerRace,
    PitStops,
    SimReport,
    WeatherChanges,
)
from trackkit.sim.figures import (
    RaceSummary,
    distribution,
    driver_figures,
    rate,
    sim_report,
    tile_counts,
)

if TYPE_CHECKING:
    from trackkit.sim.race import Settings

__all__ = ["gt_report"]


def gt_report(
    races: Sequence[RaceSummary],
    settings: Settings,
    *,
    seed: int,
    tiles: Mapping[int, str],
) -> SimReport:
    """The report of GT races (``simulate --format json``); deterministic for a seed.

    ``tiles`` maps each tile's number in driving order to its face id (``stage.tiles``
    names the track, so a reader such as ``render --heat`` can tell another track's).
    """
    n = len(races)
    players = len(settings.drivers)
    gts = [r.gt for r in races if r.gt is not None]
    options = settings.gt
    laps = gts[0].laps if gts else (options.laps if options and options.laps else None)
    laps_driven = sum(g.laps_driven for g in gts)
    # who led lap 1 and won, among the races where that is asked (a winner, two laps, cars)
    asked = [g.decided_on_lap_1 for g in gts if g.decided_on_lap_1 is not None]
    passes = Counter(o[0] for g in gts for o in g.overtakes)
    losses = Counter(lo[0] for r in races for lo in r.losses)
    parts = [
        GtDriver(
            wins=sum(1 for g in gts if g.order and g.order[0] == i),
            place=distribution([float(g.order.index(i) + 1) for g in gts if i in g.order]),
            laps_led_per_race=(
                rate(sum(g.laps_led[i] for g in gts), n) if laps is not None else None
            ),
            overtakes_per_race=rate(passes.get(i, 0), n),
            losses_per_race=rate(losses.get(i, 0), n),
            gear_00_per_race=rate(sum(g.gear_00[i] for g in gts), n),
            pit_stops_per_race=rate(sum(1 for g in gts for p in g.pit_stops if p[0] == i), n),
        )
        for i in range(players)
    ]
    drivers = driver_figures(races, settings, parts)
    # rule: BOARD-3 (the grid slots, pole first): who won from each slot
    slot_wins: Counter[int] = Counter()
    slot_starts: Counter[int] = Counter()
    for g in gts:
        for slot, driver in enumerate(g.grid):
            slot_starts[slot] += 1
            if g.order and g.order[0] == driver:
                slot_wins[slot] += 1
    overtakes = [o for g in gts for o in g.overtakes]
    by_lap = Counter(o[3] for o in overtakes)
    pits = Counter(p[1] for g in gts for p in g.pit_stops)
    winners_round = [
        float(r) for g in gts if g.order and (r := g.finish_round[g.order[0]]) is not None
    ]
    second = [float(g.gaps[g.order[1]] or 0) for g in gts if len(g.order) > 1]
    last = [float(g.gaps[g.order[-1]] or 0) for g in gts if len(g.order) > 1]
    part = GtSimPart(
        drivers=drivers,
        wins_by_grid_slot={str(s + 1): slot_wins.get(s, 0) for s in range(players)},
        win_rate_by_grid_slot={
            str(s + 1): rate(slot_wins.get(s, 0), slot_starts.get(s, 0)) for s in range(players)
        },
        laps_led=(
            {d.name: p.laps_led_per_race for d, p in zip(drivers, parts, strict=True)}
            if laps is not None
            else None
        ),
        decided_on_lap_1=rate(sum(asked), len(asked)) if asked else None,
        overtakes=Overtakes(
            total=len(overtakes),
            per_race=rate(len(overtakes), n),
            # per lap the leader drove (a race stopped at the round cap drove fewer)
            per_lap=rate(len(overtakes), laps_driven) if laps_driven else None,
            laps_driven=laps_driven,
            by_lap={str(k): c for k, c in sorted(by_lap.items())} if laps is not None else {},
            by_tile=tile_counts(Counter(o[1] for o in overtakes), tiles, n),
            by_space=dict(sorted(Counter(o[2] for o in overtakes).items())),
        ),
        pit_stops=PitStops(
            per_race=rate(sum(len(g.pit_stops) for g in gts), n),
            by_space=dict(sorted(pits.items())),
        ),
        weather_changes=WeatherChanges(
            per_race=rate(sum(len(g.weather) for g in gts), n),
            races_with_a_change=sum(1 for g in gts if g.weather),
        ),
        yellow_flags=PerRace(per_race=rate(sum(g.yellow_flags for g in gts), n)),
        winner_rounds=distribution(winners_round),
        gaps=Gaps(to_second=distribution(second), to_last=distribution(last)),
    )
    return sim_report(
        races,
        settings,
        seed=seed,
        tiles=tiles,
        start="grid",
        settings_part=GtSettings(
            laps=laps,
            point_to_point=laps is None,
            weather=options.weather if options and options.weather else None,
            grid=options.grid if options else "drawn",
        ),
        part=part,
        gear_00_per_race=rate(sum(sum(g.gear_00) for g in gts), n),
    )
