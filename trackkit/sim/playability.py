"""Playability findings from simulated races (``trackkit validate --simulate N``)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping

from trackkit.checks.catalogue import finding
from trackkit.checks.pipeline import Report
from trackkit.models.findings import Finding, Location
from trackkit.models.simreport import SimReport, TileCount
from trackkit.models.stage import Kind
from trackkit.models.summary import (
    DirtSimulated,
    GtSimulated,
    LossCorner,
    Simulated,
    StageSummary,
    TileRate,
)
from trackkit.rules.track import Track
from trackkit.sim.fairness import WinTest, win_test
from trackkit.sim.figures import DNF_REASONS
from trackkit.sim.garage import stage_profile, unlimited_bound
from trackkit.sim.par import par_time
from trackkit.sim.race import MAX_ROUNDS, Settings, default_bots, prepare
from trackkit.sim.stats import run_many, summarize_races
from trackkit.words import plural

__all__ = ["PAR_TIME_NOTE", "findings_from", "gt_findings", "gt_playability", "playability"]

#: What the par time is (the summary says it beside the figure).
PAR_TIME_NOTE = "lower bound, fastest legal line with no dice risk"

#: Thresholds of the playability findings.
UNFINISHED_RATE = 0.05
BLOCKED_PER_RACE = 1.0
DANGEROUS_FACTOR = 3.0
DANGEROUS_MIN_PER_RACE = 0.3
#: GT: fewer overtakes than this per lap (all cars together) is a procession (P608).
FEW_OVERTAKES_PER_LAP = 0.5
#: GT: a lap-1 leader who wins more than this share of the races decides them early (P610).
LAP_1_SHARE = 0.75
#: GT: races a finding on shares of races needs before it speaks (P606, P610).
MIN_RACES = 10


def playability(
    report: Report,
    *,
    races: int,
    seed: int = 1,
    players: int = 4,
    jobs: int = 1,
    max_rounds: int | None = None,
) -> tuple[list[Finding], StageSummary]:
    """Race a valid stage ``races`` times; its findings, and its summary with the races'
    figures (:attr:`~trackkit.models.summary.StageSummary.simulation`) and, for a DIRT
    stage, its par time (``Report.add`` takes both).

    The drivers are those ``simulate`` races without ``--bot``
    (:func:`~trackkit.sim.race.default_bots`): cautious bots on a rally, the three bots
    in turn on a hillclimb.

    A Rallyman: GT track is raced as GT races (:func:`gt_playability`). ``max_rounds``
    None: 200 (a GT track: as many as its laps need, :func:`~trackkit.sim.gt_race.gt_round_cap`).
    """
    if report.layout.series == "gt":
        return gt_playability(
            report, races=races, seed=seed, players=players, jobs=jobs, max_rounds=max_rounds
        )
    if max_rounds is None:
        max_rounds = MAX_ROUNDS
    prepared = prepare(Track.from_graph(report.graph, report.layout))
    hillclimb = report.kind is Kind.HILLCLIMB
    settings = Settings.default(
        players,
        bots=default_bots(hillclimb=hillclimb),
        hillclimb=hillclimb,
        max_rounds=max_rounds,
    )
    results = run_many(prepared, settings, races=races, seed=seed, jobs=jobs)
    tiles = {t.index: t.face_id for t in report.layout.chain if t.index is not None}
    doc = summarize_races(results, settings, seed=seed, tiles=tiles)
    assert doc.dirt is not None and report.summary.dirt is not None  # a DIRT stage
    # a hillclimb is raced with Unlimited dashboards: its par is that of the richest one
    par_car = unlimited_bound(stage_profile(prepared.track)) if hillclimb else "dirt"
    stage = report.summary.dirt.model_copy(
        update={"par_time": par_time(prepared, car=par_car), "par_time_note": PAR_TIME_NOTE}
    )
    simulated = _simulated(
        doc,
        max_rounds=max_rounds,
        dirt=DirtSimulated(
            dnf={r: sum(d.dnf[r] for d in doc.drivers) for r in DNF_REASONS},
            mean_time=doc.dirt.time.overall.mean,
        ),
    )
    summary = report.summary.model_copy(update={"dirt": stage, "simulation": simulated})
    return findings_from(doc, report, races=races, players=players), summary


def _simulated(
    doc: SimReport,
    *,
    max_rounds: int,
    dirt: DirtSimulated | None = None,
    gt: GtSimulated | None = None,
) -> Simulated:
    """The summary's ``simulation``: what both series report of the races, and ``dirt``
    or ``gt``, one series' figures."""
    s = doc.settings
    return Simulated(
        races=s.races,
        seed=s.seed,
        players=s.players,
        max_rounds=max_rounds,
        finish_rate=doc.finish_rate,
        losses_per_race=doc.loss_of_control.per_race,
        most_dangerous_tiles=_most(doc.loss_of_control.by_tile),
        dirt=dirt,
        gt=gt,
    )


def findings_from(doc: SimReport, report: Report, *, races: int, players: int) -> list[Finding]:
    """Playability findings (P601-P605) from a ``simulate`` report of the stage.

    A GT report gives those that apply to it (P601 drivers who cannot finish, P602
    blocking spots, P603 a dangerous tile); stuck spots (P605) and start positions (P604)
    are DIRT figures.
    """
    by_index = {t.index: t for t in report.layout.chain if t.index is not None}
    out: list[Finding] = []
    unfinished = 1.0 - doc.finish_rate
    if unfinished > UNFINISHED_RATE:
        where = ", ".join(f"{k} x{v}" for k, v in list(doc.stuck.items())[:3])
        why = ", ".join(
            f"{sum(d.dnf.get(reason, 0) for d in doc.drivers)} {reason}" for reason in DNF_REASONS
        )
        out.append(
            finding(
                "P601",
                f"{unfinished:.0%} of drivers did not finish"
                + (f" ({why})" if doc.drivers else "")
                + f"; cars stopped at {where or 'start'}",
                Location(path="simulation"),
            )
        )
    dirt = doc.dirt
    for spot in dirt.stuck_spots if dirt else []:  # no legal way on, ever (sim/stuck.py)
        tile = by_index.get(spot.tile_index)
        space = spot.space if spot.space != "start" else None
        loc = tile.location(space=space) if tile else Location(path="simulation", space=space)
        out.append(
            finding(
                "P605",
                f"{plural(spot.count, 'car')} in {races} races got stuck "
                f"{'at the start' if space is None else 'on ' + space}: {spot.cause}",
                loc,
            )
        )
    for space, count in doc.blocked_turns.by_space.items():
        if count / races >= BLOCKED_PER_RACE and space != "start":
            tile = by_index.get(int(space.split(":")[0])) if ":" in space else None
            loc = tile.location(space=space) if tile else Location(space=space)
            out.append(
                finding(
                    "P602",
                    f"cars were blocked {count} times in {races} races on space {space}",
                    loc,
                )
            )
    rates = {int(k): v.per_race for k, v in doc.loss_of_control.by_tile.items()}
    for t, rate in rates.items():
        rest = [rates.get(i, 0.0) for i in by_index if i != t]
        typical = statistics.median(rest) if rest else 0.0
        if rate >= DANGEROUS_MIN_PER_RACE and rate > DANGEROUS_FACTOR * max(typical, 0.05):
            tile = by_index[t]
            out.append(
                finding(
                    "P603",
                    f"tile {t} ({tile.face_id}) causes {rate:.2f} losses "
                    f"of control per race (typical tile: {typical:.2f})",
                    tile.location(),
                )
            )
    # P604: a start position that wins clearly more than chance, among drivers alike
    # (trackkit.sim.stats.start_position_test; ties count for no position)
    groups = dirt.start_position_test.groups if dirt and players > 1 else []
    for group in groups:
        if not group.significant:
            continue
        test = WinTest(
            group.most,
            group.most_wins,
            group.races,
            group.positions,
            group.p_value,
            group.compared,
            True,
        )
        alike = ", ".join(map(str, group.start_positions))
        out.append(
            finding(
                "P604",
                f"start position {test.position} did best of the drivers alike "
                f"({group.bot}, {group.car}: start positions {alike}) in {test.wins} "
                f"of {test.races} races where one of them did ({group.tied} tied); "
                f"{test.words()}",
                Location(path="simulation"),
            )
        )
    return out


def gt_playability(
    report: Report,
    *,
    races: int,
    seed: int = 1,
    players: int = 4,
    jobs: int = 1,
    max_rounds: int | None = None,
) -> tuple[list[Finding], StageSummary]:
    """Race a valid GT track ``races`` times with a mix of the three bots (drawn grids).

    The DIRT findings that apply (P601 drivers who cannot finish, P602 blocking spots,
    P603 a dangerous tile: :func:`findings_from`) and the GT ones (:func:`gt_findings`);
    the summary's ``simulation`` says what a circuit designer asks: win rate by grid slot,
    overtakes per lap and where, the corners where control is lost most, how many races
    were decided on lap 1.
    """
    from trackkit.sim.gt_race import GtOptions, gt_round_cap

    laps = report.layout.laps if report.layout.circuit else None
    track = Track.from_graph(report.graph, report.layout)
    if max_rounds is None:
        max_rounds = gt_round_cap(track, laps)
    prepared = prepare(track)
    settings = Settings.default(
        players,
        bots=("cautious", "aggressive", "planner"),
        max_rounds=max_rounds,
        gt=GtOptions(laps=laps),
    )
    results = run_many(prepared, settings, races=races, seed=seed, jobs=jobs)
    tiles = {t.index: t.face_id for t in report.layout.chain if t.index is not None}
    doc = summarize_races(results, settings, seed=seed, tiles=tiles)
    gt = doc.gt
    assert gt is not None and doc.settings.gt is not None  # a GT track
    found = findings_from(doc, report, races=races, players=players)
    found += gt_findings(doc, report, races=races, players=players)
    simulated = _simulated(
        doc,
        max_rounds=max_rounds,
        gt=GtSimulated(
            laps=doc.settings.gt.laps,
            win_rate_by_grid_slot=gt.win_rate_by_grid_slot,
            overtakes_per_lap=gt.overtakes.per_lap,
            overtakes_per_race=gt.overtakes.per_race,
            overtakes_by_lap=gt.overtakes.by_lap,
            overtakes_most_on=_most(gt.overtakes.by_tile),
            losses_most_on=_loss_corners(doc, report),
            decided_on_lap_1=gt.decided_on_lap_1,
        ),
    )
    return found, report.summary.model_copy(update={"simulation": simulated})


def _most(by_tile: Mapping[str, TileCount], top: int = 3) -> list[TileRate]:
    """The ``top`` tiles with the most, most first (the first in driving order of those
    with as many)."""
    ranked = sorted(by_tile.items(), key=lambda kv: (-kv[1].count, int(kv[0])))[:top]
    return [TileRate(tile_index=int(k), tile=v.tile, per_race=v.per_race) for k, v in ranked]


def _loss_corners(doc: SimReport, report: Report) -> list[LossCorner]:
    """The corners (GT: the tiles with a corner) where control is lost most, top three.

    Losses on a tile's spaces count for its corner, wherever the dice went over the
    limit (before the corner, in it, on its dotted lines); each entry names the space
    where most of them happened.
    """
    graph = report.graph
    by_tile: dict[int, dict[str, int]] = {}
    for space, n in doc.loss_of_control.by_space.items():
        if space in graph:
            by_tile.setdefault(graph.nodes[space]["tile"], {})[space] = n
    races = max(1, doc.settings.races)
    faces = {t.index: t.face_id for t in report.layout.chain if t.index is not None}
    limits: dict[int, set[int]] = {}
    for _n, data in graph.nodes(data=True):
        if data.get("corner") is not None and data.get("limit") is not None:
            limits.setdefault(data["tile"], set()).add(data["limit"])
    ranked = sorted(
        ((tile, spaces) for tile, spaces in by_tile.items() if tile in limits),
        key=lambda ts: (-sum(ts[1].values()), ts[0]),
    )[:3]
    return [
        LossCorner(
            tile_index=tile,
            tile=faces.get(tile, "?"),
            limits=sorted(limits[tile]),
            space=max(sorted(spaces), key=lambda sp: spaces[sp]),
            per_race=round(sum(spaces.values()) / races, 4),
        )
        for tile, spaces in ranked
    ]


def gt_findings(doc: SimReport, report: Report, *, races: int, players: int) -> list[Finding]:
    """The GT playability findings (P606-P610) from a GT ``simulate`` report.

    A point-to-point track (no laps) counts its overtakes per race (P607, P608: one race
    drives the track once, as a lap of a circuit does); P610 asks about lap 1 only where
    the report has the figure (two laps or more, two cars or more, a winner).
    """
    gt = doc.gt
    assert gt is not None  # a GT report
    by_index = {t.index: t for t in report.layout.chain if t.index is not None}
    out: list[Finding] = []
    here = Location(path="simulation")
    # P606: the grid is drawn anew every race, so each slot gets every driver in turn and
    # chance gives each slot 1 in k of the wins (a GT race has no ties: one car is first
    # over the line)
    test = win_test(gt.wins_by_grid_slot) if players > 1 and races >= MIN_RACES else None
    if test is not None and test.significant:
        out.append(
            finding(
                "P606",
                f"grid slot {test.position} won {test.wins} of {test.races} races "
                "(win rate by slot: "
                + ", ".join(f"{k} {v:.0%}" for k, v in gt.win_rate_by_grid_slot.items())
                + f"); {test.words()}",
                here,
            )
        )
    overtakes = gt.overtakes
    most = _most(overtakes.by_tile)
    spots = ", ".join(f"tile {m.tile_index} ({m.tile}) {m.per_race:.2f}/race" for m in most)
    per_lap = overtakes.per_lap
    out.append(
        finding(
            "P607",
            (
                f"{per_lap:.2f} overtakes per lap ({overtakes.per_race:.2f} per race)"
                if per_lap is not None
                else f"{overtakes.per_race:.2f} overtakes per race (point to point: no laps)"
            )
            + (f"; most on {spots}" if spots else ""),
            by_index[most[0].tile_index].location() if most else here,
        )
    )
    # a point-to-point race drives the track once: its overtakes per race stand for a lap's
    few, unit = (per_lap, "lap") if per_lap is not None else (overtakes.per_race, "race")
    if players > 1 and few < FEW_OVERTAKES_PER_LAP:
        out.append(
            finding(
                "P608",
                f"only {few:.2f} overtakes per {unit} in {races} races: the cars keep their places",
                here,
            )
        )
    for corner in _loss_corners(doc, report)[:1]:
        tile = by_index.get(corner.tile_index)
        out.append(
            finding(
                "P609",
                f"control is lost most at the corner of tile {corner.tile_index} "
                f"({corner.tile}, limit {'/'.join(map(str, corner.limits))}): "
                f"{corner.per_race:.2f} per race, most on {corner.space}",
                tile.location() if tile else here,
            )
        )
    laps = doc.settings.gt.laps if doc.settings.gt else None
    decided = gt.decided_on_lap_1
    if (  # a one-lap race is decided on lap 1 by definition; a lone car races nobody
        players > 1
        and races >= MIN_RACES
        and (laps is None or laps > 1)
        and decided is not None
        and decided > LAP_1_SHARE
    ):
        out.append(
            finding(
                "P610",
                f"the car leading after lap 1 won {decided:.0%} of {races} races",
                here,
            )
        )
    return out
