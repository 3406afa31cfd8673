"""What the statistics keep of each race, and the figures both series report.

:class:`RaceSummary` (with :class:`GtSummary` for a GT race) is what a race leaves for
the statistics: small, so that 10,000 of them fit easily and travel between processes.
:func:`sim_report` writes the :class:`~trackkit.models.simreport.SimReport` of many races
from what both series have (finish rate, losses of control and where, blocked turns, where
cars stalled, rounds, each driver's finish rate and DNFs) and the part one series adds
(:mod:`trackkit.sim.stats` for DIRT, :mod:`trackkit.sim.gtstats` for GT).

Examples
--------
>>> distribution([3.0, 1.0, 2.0]).model_dump()
{'n': 3, 'mean': 2.0, 'p10': 1.2, 'p50': 2.0, 'p90': 2.8}
>>> rate(1, 3), rate(1, 0)
(0.3333, 0.0)
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from trackkit.models.simreport import (
    Blocked,
    DirtDriver,
    DirtSettings,
    DirtSimPart,
    Distribution,
    DriverFigures,
    GtDriver,
    GtSettings,
    GtSimPart,
    LossOfControl,
    SimReport,
    SimSettings,
    StageTiles,
    TileCount,
)

if TYPE_CHECKING:
    from trackkit.rules.dashboard import UnlimitedDashboard
    from trackkit.sim.gt_race import GtRace
    from trackkit.sim.race import Settings

__all__ = [
    "DNF_REASONS",
    "GtSummary",
    "RaceSummary",
    "distribution",
    "driver_figures",
    "gt_summary",
    "rate",
    "sim_report",
    "tile_counts",
]

#: Why a driver did not finish (:class:`~trackkit.sim.race.Dnf`), in the documents' order.
DNF_REASONS = ("stuck", "round cap")


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
    """The laps the leader began (:attr:`~trackkit.sim.gt_race.GtRace.laps_driven`)."""


def gt_summary(race: GtRace) -> GtSummary:
    """The :class:`GtSummary` of a race's :class:`~trackkit.sim.gt_race.GtRace`."""
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


def distribution(values: Sequence[float]) -> Distribution:
    """How many ``values``, their mean and 10th, 50th and 90th percentiles (linear
    interpolation between the closest ranks), rounded to 2 places; None where empty."""
    if not values:
        return Distribution(n=0, mean=None, p10=None, p50=None, p90=None)
    ordered = sorted(values)

    def pct(p: float) -> float:
        k = (len(ordered) - 1) * p
        lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
        return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)

    return Distribution(
        n=len(values),
        mean=round(statistics.fmean(values), 2),
        p10=round(pct(0.1), 2),
        p50=round(pct(0.5), 2),
        p90=round(pct(0.9), 2),
    )


def rate(count: float, n: int) -> float:
    """``count`` per one of ``n``, to 4 places (0.0 for none)."""
    return round(count / n, 4) if n else 0.0


def tile_counts(counts: Counter[int], tiles: Mapping[int, str], n: int) -> dict[str, TileCount]:
    """``counts`` by tile number as the documents write them: the face, count and rate."""
    return {
        str(t): TileCount(tile=tiles.get(t, "?"), count=c, per_race=rate(c, n))
        for t, c in sorted(counts.items())
    }


def driver_figures(
    races: Sequence[RaceSummary],
    settings: Settings,
    parts: Sequence[DirtDriver] | Sequence[GtDriver],
) -> list[DriverFigures]:
    """Each driver's figures: its finish rate and DNFs by reason, and its series' part."""
    n = len(races)
    out = []
    for i, (d, part) in enumerate(zip(settings.drivers, parts, strict=True)):
        series = {"gt": part} if isinstance(part, GtDriver) else {"dirt": part}
        out.append(
            DriverFigures(
                name=d.name,
                car=d.car_label,
                bot=d.bot_label,
                finish_rate=rate(sum(r.finished[i] for r in races), n),
                # did not finish, by reason: stuck for good, or still racing at the round cap
                dnf={
                    reason: sum(1 for r in races if r.dnf and r.dnf[i] == reason)
                    for reason in DNF_REASONS
                },
                **series,
            )
        )
    return out


def sim_report(
    races: Sequence[RaceSummary],
    settings: Settings,
    *,
    seed: int,
    tiles: Mapping[int, str],
    start: Literal["start", "grid"],
    settings_part: DirtSettings | GtSettings,
    part: DirtSimPart | GtSimPart,
    gear_00_per_race: float | None = None,
) -> SimReport:
    """The report of ``races``: the figures of both series, and ``part``, one series'.

    ``start`` names where a car that never moved stood in ``stuck``; ``tiles`` maps each
    tile's number in driving order to its face id (``stage.tiles`` names the stage by them,
    so that a reader such as ``render --heat`` can tell another stage's report; none: no
    ``stage``). ``settings_part`` and ``gear_00_per_race`` (GT) are what one series adds to
    the settings and to the losses of control.
    """
    n = len(races)
    drivers = settings.drivers
    series = "gt" if isinstance(part, GtSimPart) else "dirt"
    losses = LossOfControl(
        per_race=rate(sum(len(r.losses) for r in races), n),
        by_tile=tile_counts(Counter(tile for r in races for _i, tile, _s in r.losses), tiles, n),
        by_space=dict(sorted(Counter(space for r in races for _i, _t, space in r.losses).items())),
    )
    if gear_00_per_race is not None:
        losses = losses.model_copy(update={"gear_00_per_race": gear_00_per_race})
    blocked = Counter(space for r in races for space in r.blocked)
    report = SimReport(
        settings=SimSettings(
            players=len(drivers),
            races=n,
            seed=seed,
            cars=[d.car_label for d in drivers],
            bots=[d.bot_label for d in drivers],
            max_rounds=settings.max_rounds,
            **{series: settings_part},
        ),
        finish_rate=rate(sum(sum(r.finished) for r in races), n * len(drivers)),
        loss_of_control=losses,
        blocked_turns=Blocked(total=sum(blocked.values()), by_space=dict(sorted(blocked.items()))),
        stuck=dict(sorted(Counter(space or start for r in races for _i, space in r.stuck).items())),
        rounds=distribution([float(r.rounds) for r in races]),
        **{series: part},
    )
    if tiles:
        named = StageTiles(tiles=[tiles[i] for i in sorted(tiles)])
        report = report.model_copy(update={"stage": named})
    return report
