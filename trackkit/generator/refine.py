"""Refinement by simulation: race the best candidates and score what the races show.

Each finalist is raced ``races`` times by three drivers in the default car (the DIRT car
in a rally, the bots' own Unlimited dashboards in a hillclimb), one per bot
(cautious, aggressive, planner), through :func:`trackkit.sim.simulate.simulate_files`;
its par time comes from :func:`trackkit.sim.par.par_time` and its playability findings
from :func:`trackkit.sim.playability.findings_from`, as ``validate --simulate`` has them.
What is measured:

- **loss-of-control rate**: losses of control per driver and run (a hillclimb has three
  runs, HILLCLIMB-2) per 10 tiles, the unit of the difficulty measure
  (:mod:`trackkit.generator.score`);
- **careful time**: the cautious bot's median stage time, the time ``--par`` asks for
  ("about 3 minutes for a careful driver"); the par time itself is the lower bound of a
  risk-free run, reported beside it;
- **spread between bots**: how much slower the slowest bot's median time is than the
  fastest's, as a share of the fastest (a stage that rewards one driving style much
  more than the others shows a large spread);
- the finish rate and the playability findings (P601-P605).

The simulation score (lower is better, :func:`sim_score`) replaces the structural
difficulty part with the simulated rate and adds:

- ``difficulty``: 3 x the distance of the simulated rate from the band's centre, in half
  band widths;
- ``par`` (``--par``): 3 x the relative difference of the careful time from it;
- ``playability``: 1 per playability warning, 5 per error (P601); P604 (one start
  position wins too often) is left out, since each start position has its own bot;
- ``finish``: 10 x the share of runs below a 95 % finish rate;
- ``spread``: 0.5 x how far the spread exceeds 0.35, in units of 0.35 (the calibration
  runs' median spread is 0.2).

Every finalist is raced with its own seed, drawn from the run's generator before any race
starts, so the results do not depend on how the finalists are shared out between
``jobs`` worker processes (:mod:`trackkit.parallel`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from trackkit.checks.pipeline import validate
from trackkit.models.findings import Severity
from trackkit.models.stage import Kind, Stage
from trackkit.parallel import executor
from trackkit.rules.track import Track
from trackkit.sim.par import par_time
from trackkit.sim.playability import findings_from
from trackkit.sim.race import prepare
from trackkit.sim.simulate import simulate_files

__all__ = [
    "BOTS",
    "GT_FINALISTS",
    "GtSimResult",
    "SimResult",
    "gt_sim_score",
    "race_gt_finalist",
    "refine_gt",
    "sim_score",
    "simulate_finalist",
    "simulate_finalists",
]

#: One driver per bot: the spread between them is one of the measures.
BOTS = ("cautious", "aggressive", "planner")
#: Weights of the parts of the simulation score.
WEIGHTS = {
    "difficulty": 3.0,
    "par": 3.0,
    "warning": 1.0,
    "error": 5.0,
    "finish": 10.0,
    "spread": 0.5,
}
#: Finish rate below which the ``finish`` part counts.
FINISH_RATE = 0.95
#: Spread between bots beyond which the ``spread`` part counts.
SPREAD = 0.35


@dataclass(frozen=True, slots=True)
class SimResult:
    """What the races of one finalist showed."""

    races: int
    seed: int
    loc_rate: float
    """Losses of control per driver and run, per 10 tiles."""
    loc_per_race: float
    finish_rate: float
    careful_time: float | None
    """The cautious bot's median stage time (seconds)."""
    par_time: int | None
    """The lower bound: the fastest risk-free run (seconds)."""
    times: dict[str, float | None]
    """Median stage time per bot."""
    spread: float | None
    findings: tuple[tuple[str, str, str], ...]
    """Playability findings: (code, severity, message)."""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "races": self.races,
            "seed": self.seed,
            "bots": list(BOTS),
            "loss_of_control_rate": round(self.loc_rate, 4),
            "losses_per_race": self.loc_per_race,
            "finish_rate": self.finish_rate,
            "careful_time": self.careful_time,
            "par_time": self.par_time,
            "median_time_by_bot": self.times,
            "spread": None if self.spread is None else round(self.spread, 4),
            "findings": [{"code": c, "severity": s, "message": m} for c, s, m in self.findings],
        }


def simulate_finalist(task: tuple[Stage, int, int]) -> SimResult:
    """Race one stage: ``(stage, races, seed)``. A plain function, for worker processes."""
    stage, races, seed = task
    report = validate(stage)
    players = len(BOTS)
    doc, _ = simulate_files(
        [stage],
        [stage.name],
        players=players,
        races=races,
        seed=seed,
        cars=None,  # the default car: the DIRT car in a rally, Unlimited boards in a hillclimb
        bots=BOTS,
    )
    runs = 3 if report.kind is Kind.HILLCLIMB else 1
    tiles = max(1, len(report.layout.chain))
    per_race = doc.loss_of_control.per_race
    times: dict[str, float | None] = {}
    for driver in doc.drivers:
        times[driver.bot] = driver.dirt.time.p50 if driver.dirt else None
    known = [t for t in times.values() if t is not None]
    spread = (max(known) - min(known)) / min(known) if len(known) == len(BOTS) else None
    # P604 (a start position wins too often) measures the bots here, not the stage:
    # each start position has its own bot
    findings = [
        f for f in findings_from(doc, report, races=races, players=players) if f.code != "P604"
    ]
    return SimResult(
        races=races,
        seed=seed,
        loc_rate=per_race / players / runs / tiles * 10,
        loc_per_race=per_race,
        finish_rate=doc.finish_rate,
        careful_time=times.get("cautious"),
        par_time=par_time(prepare(Track.from_graph(report.graph, report.layout))),
        times=times,
        spread=spread,
        findings=tuple((f.code, f.severity.value, f.message) for f in findings),
    )


def simulate_finalists(
    stages: Sequence[Stage],
    seeds: Sequence[int],
    *,
    races: int,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[SimResult]:
    """Race every stage with its seed; in ``jobs`` worker processes, with the same results."""
    tasks = [(stage, races, seed) for stage, seed in zip(stages, seeds, strict=True)]
    with executor(None, jobs=jobs, items=len(tasks)) as ex:
        return ex.map(_simulate_each, tasks, progress=progress)


def _simulate_each(_context: None, tasks: list[tuple[Stage, int, int]]) -> list[SimResult]:
    """:func:`simulate_finalist` of each task: a work function of :mod:`trackkit.parallel`."""
    return [simulate_finalist(task) for task in tasks]


def sim_score(result: SimResult, band_distance: float, par: float | None) -> dict[str, float]:
    """The parts of a finalist's simulation score (see the module docstring).

    ``band_distance`` is the distance of the simulated rate from the difficulty band's
    centre (:meth:`trackkit.generator.score.Band.distance`).
    """
    parts = {"difficulty": WEIGHTS["difficulty"] * band_distance}
    if par:
        careful = result.careful_time
        off = 1.0 if careful is None else abs(careful - par) / par
        parts["par"] = WEIGHTS["par"] * off
    warnings = sum(1 for _, s, _ in result.findings if s == Severity.WARNING.value)
    errors = sum(1 for _, s, _ in result.findings if s == Severity.ERROR.value)
    parts["playability"] = WEIGHTS["warning"] * warnings + WEIGHTS["error"] * errors
    parts["finish"] = WEIGHTS["finish"] * max(0.0, FINISH_RATE - result.finish_rate)
    spread = result.spread if result.spread is not None else 2 * SPREAD
    parts["spread"] = WEIGHTS["spread"] * max(0.0, spread - SPREAD) / SPREAD
    return {k: round(v, 4) for k, v in parts.items()}


# --- Rallyman: GT -------------------------------------------------------------------------

#: Weights of the parts of the GT race score.
GT_WEIGHTS = {
    "difficulty": 3.0,
    "overtaking": 2.0,
    "pole": 3.0,
    "lap_1": 1.5,
    "warning": 1.0,
    "error": 5.0,
    "finish": 10.0,
}
#: Finalists raced per GT track by default: the structure hardly predicts how GT races
#: go, so more are raced than for a DIRT stage.
GT_FINALISTS = 6
#: Overtakes per lap a circuit should give at least (below it, ``overtaking`` counts); a
#: point-to-point track, per race.
GT_OVERTAKES_PER_LAP = 2.0
#: Share of races decided on lap 1 beyond which ``lap_1`` counts (P610's threshold).
GT_LAP_1_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class GtSimResult:
    """What the GT races of one finalist showed (:func:`refine_gt`)."""

    races: int
    seed: int
    players: int
    laps: int
    loc_rate: float
    """Losses of control per driver per 10 tiles driven (laps x tiles)."""
    loc_per_race: float
    finish_rate: float
    overtakes_per_lap: float
    win_rate_by_slot: dict[str, float]
    decided_on_lap_1: float | None
    """Share of the won races that the car leading after lap 1 won (None: one lap, one
    car, point to point, or no race won)."""
    findings: tuple[tuple[str, str, str], ...]
    """Playability findings (P601-P603, P606-P610): (code, severity, message)."""
    point_to_point: bool = False
    """A point-to-point track, raced once from start to finish: its figures are per race
    (``laps`` is the simulator's setting, not laps driven)."""

    @property
    def overtakes_per_race(self) -> float:
        """Overtakes in a race (the simulator's per-lap figure times its laps)."""
        return round(self.overtakes_per_lap * self.laps, 4)

    @property
    def overtakes(self) -> float:
        """The overtakes figure the reports show: per lap of a circuit, per race of a
        point-to-point track (which has no laps)."""
        return self.overtakes_per_race if self.point_to_point else self.overtakes_per_lap

    @property
    def overtakes_unit(self) -> str:
        """``per lap`` or ``per race`` (:attr:`overtakes`)."""
        return "per race" if self.point_to_point else "per lap"

    @property
    def pole_edge(self) -> float:
        """How decisive pole is: its win rate above a fair share (1 / players), as a share
        of what is left above it (0: no better than any slot; 1: pole always wins)."""
        fair = 1.0 / max(self.players, 1)
        pole = self.win_rate_by_slot.get("1", 0.0)
        return max(0.0, pole - fair) / (1.0 - fair) if self.players > 1 else 0.0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields (a point-to-point track's per race: no laps, no lap 1)."""
        laps: dict[str, Any] = (
            {"overtakes_per_race": self.overtakes_per_race}
            if self.point_to_point
            else {
                "laps": self.laps,
                "overtakes_per_lap": self.overtakes_per_lap,
                "decided_on_lap_1": self.decided_on_lap_1,
            }
        )
        return {
            "races": self.races,
            "seed": self.seed,
            "players": self.players,
            "bots": list(BOTS),
            "loss_of_control_rate": round(self.loc_rate, 4),
            "losses_per_race": self.loc_per_race,
            "finish_rate": self.finish_rate,
            **laps,
            "win_rate_by_grid_slot": self.win_rate_by_slot,
            "pole_edge": round(self.pole_edge, 4),
            "findings": [{"code": c, "severity": s, "message": m} for c, s, m in self.findings],
        }


def race_gt_finalist(task: tuple[Stage, int, int, int]) -> GtSimResult:
    """Race one GT track: ``(stage, races, seed, players)``. A plain function, for worker
    processes: :func:`trackkit.sim.playability.gt_playability`, as ``validate --simulate``
    races it (the three bots in turn on the grid, drawn grids, the track's laps)."""
    from trackkit.sim.playability import gt_playability

    stage, races, seed, players = task
    report = validate(stage, players=players)
    found, summary = gt_playability(report, races=races, seed=seed, players=players)
    sim = summary.simulation
    assert sim is not None and sim.gt is not None  # GT races
    laps = sim.gt.laps or 1  # a point-to-point run counts as one lap
    tiles = max(1, len(report.layout.chain))
    per_race = sim.losses_per_race
    p2p = report.kind is Kind.POINT_TO_POINT
    driven = 1 if p2p else max(laps, 1)  # a point-to-point track is driven once
    return GtSimResult(
        races=races,
        seed=seed,
        players=players,
        laps=laps,
        loc_rate=per_race / players / driven / tiles * 10,
        loc_per_race=per_race,
        finish_rate=sim.finish_rate,
        overtakes_per_lap=(
            sim.gt.overtakes_per_lap
            if sim.gt.overtakes_per_lap is not None
            else sim.gt.overtakes_per_race
        ),
        win_rate_by_slot=dict(sim.gt.win_rate_by_grid_slot),
        decided_on_lap_1=sim.gt.decided_on_lap_1,
        findings=tuple((f.code, f.severity.value, f.message) for f in found),
        point_to_point=p2p,
    )


def refine_gt(
    stages: Sequence[Stage],
    seeds: Sequence[int],
    *,
    races: int,
    players: int,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[GtSimResult]:
    """Race every GT finalist with its seed, in ``jobs`` worker processes (same results)."""
    tasks = [(stage, races, seed, players) for stage, seed in zip(stages, seeds, strict=True)]
    with executor(None, jobs=jobs, items=len(tasks)) as ex:
        return ex.map(_race_each, tasks, progress=progress)


def _race_each(_context: None, tasks: list[tuple[Stage, int, int, int]]) -> list[GtSimResult]:
    """:func:`race_gt_finalist` of each task: a work function of :mod:`trackkit.parallel`."""
    return [race_gt_finalist(task) for task in tasks]


def gt_sim_score(result: GtSimResult, band_distance: float) -> dict[str, float]:
    """The parts of a GT finalist's race score (see :mod:`trackkit.generator.gt_score`).

    ``band_distance`` is the distance of the simulated loss-of-control rate from the
    difficulty band's centre (:meth:`trackkit.generator.score.Band.distance`).
    """
    w = GT_WEIGHTS
    parts = {"difficulty": w["difficulty"] * band_distance}
    # a point-to-point track: its overtakes per race, and no lap 1 to be decided on
    parts["overtaking"] = w["overtaking"] * max(0.0, 1.0 - result.overtakes / GT_OVERTAKES_PER_LAP)
    parts["pole"] = w["pole"] * result.pole_edge
    if not result.point_to_point:
        lap_1 = result.decided_on_lap_1 or 0.0  # None: one lap, one car, no race won
        parts["lap_1"] = w["lap_1"] * max(0.0, lap_1 - GT_LAP_1_SHARE) / (1.0 - GT_LAP_1_SHARE)
    # P606 and P610 are what ``pole`` and ``lap_1`` measure: not counted twice
    counted = [(c, s) for c, s, _m in result.findings]
    warnings = sum(
        1 for c, s in counted if s == Severity.WARNING.value and c not in ("P606", "P610")
    )
    errors = sum(1 for _c, s in counted if s == Severity.ERROR.value)
    parts["playability"] = w["warning"] * warnings + w["error"] * errors
    parts["finish"] = w["finish"] * max(0.0, FINISH_RATE - result.finish_rate)
    return {k: round(v, 4) for k, v in parts.items()}
