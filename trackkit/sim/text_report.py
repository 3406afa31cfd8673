"""The simulation report as the readable table ``trackkit simulate`` prints.

One writer for both series (:func:`sim_text`): a line on the races run, a line of the
main figures, a table with a row per driver, and what follows it. What a series puts in
them (DIRT: stage times and wins by start position; GT: places, the grid and overtakes)
comes from its part of the report, in one :class:`_Pieces` per series.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from trackkit.models.simreport import (
    DirtSimPart,
    Distribution,
    DriverFigures,
    GtSimPart,
    SimReport,
    TileCount,
)
from trackkit.words import plural

__all__ = ["sim_text"]


@dataclass(frozen=True, slots=True)
class _Pieces:
    """What one series puts in the report's text."""

    course: str
    """After the races: how far they went (GT: ``of 3 laps``)."""
    conditions: str
    """After the seed: how they were run."""
    figures: list[str]
    """The main figures, on the second line."""
    car_width: int
    """The car column is cut to this width."""
    columns: list[tuple[str, int]]
    """The columns after the driver, car and bot: title and width (right-aligned)."""
    cells: Callable[[DriverFigures], list[str]]
    """A driver's cells of those columns."""
    total: list[str] | None
    """The cells of a last row for all the drivers (None: no such row)."""
    after: list[str]
    """The lines under the table."""


def sim_text(report: SimReport) -> str:
    """The report as a readable table.

    A GT point-to-point track has no laps: its figures are per race, with no laps led and
    no "decided on lap 1" (nor where nobody won, in races of one lap or for one car).
    """
    s = report.settings
    if report.gt is not None:
        p = _gt_pieces(report, report.gt)
    else:
        assert report.dirt is not None  # one series or the other
        p = _dirt_pieces(report, report.dirt)
    drivers = report.drivers
    width = max([6, *(min(len(d.car), p.car_width) for d in drivers)])

    def row(name: str, car: str, bot: str, cells: Sequence[str]) -> str:
        lead = [name.ljust(10), car.ljust(width), bot.ljust(11)]
        return " ".join(lead + [c.rjust(w) for c, (_t, w) in zip(cells, p.columns, strict=True)])

    lines = [
        f"{plural(s.races, 'race')}{p.course}, {plural(s.players, 'driver')}, seed {s.seed}"
        + p.conditions,
        ", ".join(p.figures),
        "",
        row("driver", "car", "bot", [t for t, _w in p.columns]),
        *(row(d.name, d.car[: p.car_width], d.bot, p.cells(d)) for d in drivers),
    ]
    if p.total is not None:
        lines.append(row("all", "", "", p.total))
    return "\n".join(lines + p.after)


def _pct(share: float) -> str:
    return f"{share:.0%}"


def _most(by_tile: Mapping[str, TileCount]) -> str:
    """The three tiles with the most, most first: ``tile 4 (217a) 0.50/race, ...``."""
    ranked = sorted(by_tile.items(), key=lambda kv: (-kv[1].count, int(kv[0])))[:3]
    return ", ".join(f"tile {k} ({v.tile}) {v.per_race:.2f}/race" for k, v in ranked)


def _dnf(drivers: Sequence[DriverFigures]) -> tuple[int, int]:
    """Drivers stuck for good and drivers stopped by the round cap, all races together."""
    return (
        sum(d.dnf.get("stuck", 0) for d in drivers),
        sum(d.dnf.get("round cap", 0) for d in drivers),
    )


def _dirt_pieces(report: SimReport, dirt: DirtSimPart) -> _Pieces:
    """DIRT: stage times per driver, wins by start position, dashboards, where cars
    lost control and stalled."""
    s = report.settings

    def secs(v: float | None) -> str:
        return "-" if v is None else f"{v:.0f}s"

    def times(finish_rate: float, t: Distribution) -> list[str]:
        return [_pct(finish_rate), *(secs(v) for v in (t.mean, t.p10, t.p50, t.p90))]

    def cells(d: DriverFigures) -> list[str]:
        assert d.dirt is not None
        return times(d.finish_rate, d.dirt.time)

    after = _wins_lines(report, dirt) + _dashboard_lines(report.drivers)
    if dirt.stages is not None:
        after.append(f"a rally of {len(dirt.stages)} stages: times add up (TIME-2)")
    if report.loss_of_control.by_tile:
        after += ["", "most dangerous tiles: " + _most(report.loss_of_control.by_tile)]
    after += _dnf_lines(report, dirt)
    return _Pieces(
        course="",
        conditions=" (hillclimb: best of the attempts)" if s.dirt and s.dirt.hillclimb else "",
        figures=[
            f"finish rate {_pct(report.finish_rate)}",
            f"losses of control per race {report.loss_of_control.per_race:.2f}",
            f"blocked turns {report.blocked_turns.total}",
        ],
        car_width=24,
        columns=[(t, 7) for t in ("finish", "mean", "p10", "p50", "p90")],
        cells=cells,
        total=times(report.finish_rate, dirt.time.overall),
        after=after,
    )


def _gt_pieces(report: SimReport, gt: GtSimPart) -> _Pieces:
    """GT: places, wins by grid slot, overtakes and where, losses of control, pit stops."""
    s = report.settings
    laps = s.gt.laps if s.gt is not None else None
    figures = [f"finish rate {_pct(report.finish_rate)}"]
    if gt.overtakes.per_lap is not None:
        figures.append(f"overtakes per lap {gt.overtakes.per_lap:.2f}")
    else:
        figures.append(f"overtakes per race {gt.overtakes.per_race:.2f}")
    figures.append(f"losses of control per race {report.loss_of_control.per_race:.2f}")
    if gt.decided_on_lap_1 is not None:
        figures.append(f"races decided on lap 1 {_pct(gt.decided_on_lap_1)}")
    led = laps is not None

    def cells(d: DriverFigures) -> list[str]:
        g = d.gt
        assert g is not None
        place = g.place.mean
        return [
            str(g.wins),
            "-" if place is None else f"{place:.2f}",
            _pct(d.finish_rate),
            *([f"{g.laps_led_per_race:.2f}"] if led else []),
            f"{g.overtakes_per_race:.2f}",
            f"{g.losses_per_race:.2f}",
            f"{g.pit_stops_per_race:.2f}",
        ]

    slots = ", ".join(f"{k} {_pct(v)}" for k, v in gt.win_rate_by_grid_slot.items())
    after = ["", f"win rate by grid slot: {slots}"]
    if gt.gaps.to_second.mean is not None:
        after.append(f"gap to second: {gt.gaps.to_second.mean:.1f} rounds on average")
    if gt.overtakes.by_tile:
        after.append("overtakes most on: " + _most(gt.overtakes.by_tile))
    if report.loss_of_control.by_tile:
        after.append(
            "control lost most on (the step that broke the limit): "
            + _most(report.loss_of_control.by_tile)
        )
    after.append(
        f"pit stops per race {gt.pit_stops.per_race:.2f}, weather changes per race "
        f"{gt.weather_changes.per_race:.2f}, yellow flags per race "
        f"{gt.yellow_flags.per_race:.2f}"
    )
    stuck, capped = _dnf(gt.drivers)
    if capped or stuck:
        after.append(
            f"did not finish: {stuck} stuck, {capped} at the round cap ({s.max_rounds} rounds)"
        )
    return _Pieces(
        course=" point to point" if laps is None else f" of {plural(laps, 'lap')}",
        conditions=f", {s.gt.weather if s.gt else None} at the start, "
        f"grid {s.gt.grid if s.gt else 'drawn'}",
        figures=figures,
        car_width=6,
        columns=[
            ("wins", 5),
            ("place", 6),
            ("finish", 7),
            *([("led", 5)] if led else []),
            ("passes", 7),
            ("losses", 7),
            ("pits", 5),
        ],
        cells=cells,
        total=None,
        after=after,
    )


def _wins_lines(report: SimReport, dirt: DirtSimPart) -> list[str]:
    """Wins by start position (a driver's number, TURN-1), a tied race's win shared, and
    how many races were tied."""
    wins = dirt.wins_by_start_position
    if len(wins) < 2:
        return []
    races, tied = report.settings.races, dirt.tied_races

    def share(v: float) -> str:
        return f"{v:.2f}".rstrip("0").rstrip(".")

    return [
        "",
        "wins by start position: "
        + ", ".join(f"{k} {share(v)}" for k, v in wins.items())
        + (
            f" ({tied} of {plural(races, 'race')} tied: a tied win is shared)"
            if tied
            else f" (no ties in {plural(races, 'race')})"
        ),
    ]


def _dashboard_lines(drivers: Sequence[DriverFigures]) -> list[str]:
    """Which dashboard each driver drove (top row, equipment, limit), most used first."""
    if not any(d.dirt and d.dirt.dashboards for d in drivers):
        return []
    lines = ["", "dashboards (attempts):"]
    for d in drivers:
        boards = d.dirt.dashboards if d.dirt else []
        shown = [f"{b.dashboard} x{b.attempts}" for b in boards[:2]]
        if len(boards) > 2:
            shown.append(f"{len(boards) - 2} more (--format json)")
        lines.append(f"  {d.name} ({d.car}): " + "; ".join(shown))
    return lines


def _dnf_lines(report: SimReport, dirt: DirtSimPart) -> list[str]:
    """Who did not finish and why: stuck for good (where, by what), or the round cap."""
    stuck, capped = _dnf(report.drivers)
    if not report.stuck and not stuck and not capped:
        return []
    cap = report.settings.max_rounds
    lines = [
        "",
        f"did not finish: {stuck} stuck, {capped} at the round cap"
        + (f" ({cap} rounds)" if cap else "")
        + (
            "; cars stopped at " + ", ".join(f"{k} x{v}" for k, v in report.stuck.items())
            if report.stuck
            else ""
        ),
    ]
    for d in report.drivers:
        if any(d.dnf.values()):
            parts = [f"{n} {reason}" for reason, n in d.dnf.items() if n]
            lines.append(f"  {d.name}: " + ", ".join(parts))
    for spot in dirt.stuck_spots:
        where = "at the start" if spot.space == "start" else f"on {spot.space}"
        lines.append(f"stuck x{spot.count} {where}: {spot.cause}")
    return lines
