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
from typing import Any, ClassVar, TypeVar

from trackkit.checks.pipeline import Report, validate
from trackkit.models.findings import Finding, Severity
from trackkit.models.stage import Kind, Stage
from trackkit.parallel import executor
from trackkit.rules.track import Track
from trackkit.sim.par import par_time
from trackkit.sim.playability import findings_from, playability
from trackkit.sim.race import prepare
from trackkit.sim.simulate import simulate_files

__all__ = [
    "BOTS",
    "GT_FINALISTS",
    "GtSimResult",
    "RaceResult",
    "SimResult",
    "Task",
    "race_finalists",
    "race_gt_finalist",
    "sim_score",
    "simulate_finalist",
]

#: What a worker races: ``(stage, races, seed, players)``.
Task = tuple[Stage, int, int, int]
R = TypeVar("R")

#: One driver per bot: the spread between them is one of the measures.
BOTS = ("cautious", "aggressive", "planner")
#: Weights of the parts of the simulation score, of both series (a DIRT stage's ``par``
#: and ``spread``, a GT track's ``overtaking``, ``pole`` and ``lap_1``).
WEIGHTS = {
    "difficulty": 3.0,
    "par": 3.0,
    "overtaking": 2.0,
    "pole": 3.0,
    "lap_1": 1.5,
    "warning": 1.0,
    "error": 5.0,
    "finish": 10.0,
    "spread": 0.5,
}
#: The order of the parts of a simulation score (each series has some of them).
PARTS = ("difficulty", "par", "overtaking", "pole", "lap_1", "playability", "finish", "spread")
#: Finish rate below which the ``finish`` part counts.
FINISH_RATE = 0.95
#: Spread between bots beyond which the ``spread`` part counts.
SPREAD = 0.35


@dataclass(frozen=True, slots=True)
class RaceResult:
    """What the races of one finalist showed, either series (:class:`SimResult`, a DIRT
    stage's; :class:`GtSimResult`, a GT track's): the figures both have, and the hooks
    of :func:`sim_score` and :meth:`to_json` (the series' own parts and figures)."""

    races: int
    seed: int
    loc_rate: float
    """Losses of control per driver and run (GT: per lap driven), per 10 tiles."""
    loc_per_race: float
    finish_rate: float
    findings: tuple[tuple[str, str, str], ...]
    """Playability findings: (code, severity, message)."""
    measured: ClassVar[tuple[str, ...]] = ()
    """Warnings the series' own parts measure (:func:`sim_score` counts them once)."""
    head: ClassVar[tuple[str, ...]] = ()
    """Fields :meth:`to_json` writes after the seed."""

    def parts(self, par: float | None) -> dict[str, float]:
        """The series' own parts of the simulation score (``par``: ``--par``)."""
        raise NotImplementedError

    def figures(self) -> dict[str, Any]:
        """The series' own JSON-ready figures, between the finish rate and the findings."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "races": self.races,
            "seed": self.seed,
            **{name: getattr(self, name) for name in self.head},
            "bots": list(BOTS),
            "loss_of_control_rate": round(self.loc_rate, 4),
            "losses_per_race": self.loc_per_race,
            "finish_rate": self.finish_rate,
            **self.figures(),
            "findings": [{"code": c, "severity": s, "message": m} for c, s, m in self.findings],
        }


@dataclass(frozen=True, slots=True)
class SimResult(RaceResult):
    """What the races of one DIRT finalist showed (:func:`simulate_finalist`)."""

    careful_time: float | None
    """The cautious bot's median stage time (seconds)."""
    par_time: int | None
    """The lower bound: the fastest risk-free run (seconds)."""
    times: dict[str, float | None]
    """Median stage time per bot."""
    spread: float | None

    def parts(self, par: float | None) -> dict[str, float]:
        """The DIRT parts of the simulation score: ``par`` (``--par``) and ``spread``."""
        parts: dict[str, float] = {}
        if par:
            careful = self.careful_time
            off = 1.0 if careful is None else abs(careful - par) / par
            parts["par"] = WEIGHTS["par"] * off
        spread = self.spread if self.spread is not None else 2 * SPREAD
        parts["spread"] = WEIGHTS["spread"] * max(0.0, spread - SPREAD) / SPREAD
        return parts

    def figures(self) -> dict[str, Any]:
        """The careful time, par time, median time by bot and the spread between them."""
        return {
            "careful_time": self.careful_time,
            "par_time": self.par_time,
            "median_time_by_bot": self.times,
            "spread": None if self.spread is None else round(self.spread, 4),
        }


def _rows(found: Sequence[Finding]) -> tuple[tuple[str, str, str], ...]:
    """Findings as (code, severity, message), as a result keeps them."""
    return tuple((f.code, f.severity.value, f.message) for f in found)


def _rate(per_race: float, report: Report, *, players: int, runs: int) -> float:
    """Losses of control per driver and run per 10 tiles of ``report``'s road."""
    return per_race / players / runs / max(1, len(report.layout.chain)) * 10


def simulate_finalist(task: Task) -> SimResult:
    """Race one stage: ``(stage, races, seed, players)`` (players: one per bot,
    ``len(BOTS)``). A plain function, for worker processes."""
    stage, races, seed, players = task
    report = validate(stage)
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
        loc_rate=_rate(per_race, report, players=players, runs=runs),
        loc_per_race=per_race,
        finish_rate=doc.finish_rate,
        careful_time=times.get("cautious"),
        par_time=par_time(prepare(Track.from_graph(report.graph, report.layout))),
        times=times,
        spread=spread,
        findings=_rows(findings),
    )


def race_finalists(
    race: Callable[[Task], R],
    stages: Sequence[Stage],
    seeds: Sequence[int],
    *,
    races: int,
    players: int,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[R]:
    """Race every stage with its seed, by ``race`` (:func:`simulate_finalist`, a DIRT
    stage; :func:`race_gt_finalist`, a GT track); in ``jobs`` worker processes, with the
    same results."""
    tasks = [(stage, races, seed, players) for stage, seed in zip(stages, seeds, strict=True)]
    with executor(race, jobs=jobs, items=len(tasks)) as ex:
        return ex.map(_race_each, tasks, progress=progress)


def _race_each(race: Callable[[Task], R], tasks: list[Task]) -> list[R]:
    """``race`` of each task: a work function of :mod:`trackkit.parallel`."""
    return [race(task) for task in tasks]


def sim_score(
    result: RaceResult, band_distance: float, par: float | None = None
) -> dict[str, float]:
    """The parts of a finalist's simulation score, either series (see the module
    docstring; a GT track's: :mod:`trackkit.generator.gt_score`).

    ``band_distance`` is the distance of the simulated rate from the difficulty band's
    centre (:meth:`trackkit.generator.score.Band.distance`); ``par`` (``--par``, DIRT)
    the careful time asked for. The series' own parts are the result's
    (:meth:`SimResult.parts`, :meth:`GtSimResult.parts`); the warnings they measure are
    not counted again.
    """
    parts = {"difficulty": WEIGHTS["difficulty"] * band_distance, **result.parts(par)}
    warnings = sum(
        1 for c, s, _ in result.findings if s == Severity.WARNING.value and c not in result.measured
    )
    errors = sum(1 for _, s, _ in result.findings if s == Severity.ERROR.value)
    parts["playability"] = WEIGHTS["warning"] * warnings + WEIGHTS["error"] * errors
    parts["finish"] = WEIGHTS["finish"] * max(0.0, FINISH_RATE - result.finish_rate)
    return {k: round(parts[k], 4) for k in PARTS if k in parts}


# --- Rallyman: GT -------------------------------------------------------------------------

#: Finalists raced per GT track by default: the structure hardly predicts how GT races
#: go, so more are raced than for a DIRT stage.
GT_FINALISTS = 6
#: Overtakes per lap a circuit should give at least (below it, ``overtaking`` counts); a
#: point-to-point track, per race.
GT_OVERTAKES_PER_LAP = 2.0
#: Share of races decided on lap 1 beyond which ``lap_1`` counts (P610's threshold).
GT_LAP_1_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class GtSimResult(RaceResult):
    """What the GT races of one finalist showed (:func:`race_gt_finalist`); its findings
    are P601-P603 and P606-P610, its loss-of-control rate per driver per 10 tiles
    driven (laps x tiles)."""

    players: int
    laps: int
    overtakes_per_lap: float
    win_rate_by_slot: dict[str, float]
    decided_on_lap_1: float | None
    """Share of the won races that the car leading after lap 1 won (None: one lap, one
    car, point to point, or no race won)."""
    point_to_point: bool = False
    """A point-to-point track, raced once from start to finish: its figures are per race
    (``laps`` is the simulator's setting, not laps driven)."""
    measured: ClassVar[tuple[str, ...]] = ("P606", "P610")
    """P606 and P610 are what ``pole`` and ``lap_1`` measure: not counted twice."""
    head: ClassVar[tuple[str, ...]] = ("players",)

    def parts(self, par: float | None) -> dict[str, float]:
        """The GT parts of the race score: ``overtaking``, ``pole`` and (a circuit)
        ``lap_1`` (see :mod:`trackkit.generator.gt_score`)."""
        w = WEIGHTS
        # a point-to-point track: its overtakes per race, and no lap 1 to be decided on
        parts = {
            "overtaking": w["overtaking"] * max(0.0, 1.0 - self.overtakes / GT_OVERTAKES_PER_LAP)
        }
        parts["pole"] = w["pole"] * self.pole_edge
        if not self.point_to_point:
            lap_1 = self.decided_on_lap_1 or 0.0  # None: one lap, one car, no race won
            parts["lap_1"] = w["lap_1"] * max(0.0, lap_1 - GT_LAP_1_SHARE) / (1.0 - GT_LAP_1_SHARE)
        return parts

    def figures(self) -> dict[str, Any]:
        """The laps, overtakes, win rate by grid slot and pole edge (a point-to-point
        track's overtakes per race: no laps, no lap 1)."""
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
            **laps,
            "win_rate_by_grid_slot": self.win_rate_by_slot,
            "pole_edge": round(self.pole_edge, 4),
        }

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


def race_gt_finalist(task: Task) -> GtSimResult:
    """Race one GT track: ``(stage, races, seed, players)``. A plain function, for worker
    processes: :func:`trackkit.sim.playability.playability`, as ``validate --simulate``
    races it (the three bots in turn on the grid, drawn grids, the track's laps)."""
    stage, races, seed, players = task
    report = validate(stage, players=players)
    found, summary = playability(report, races=races, seed=seed, players=players)
    sim = summary.simulation
    assert sim is not None and sim.gt is not None  # GT races
    laps = sim.gt.laps or 1  # a point-to-point run counts as one lap
    per_race = sim.losses_per_race
    p2p = report.kind is Kind.POINT_TO_POINT
    driven = 1 if p2p else max(laps, 1)  # a point-to-point track is driven once
    return GtSimResult(
        races=races,
        seed=seed,
        players=players,
        laps=laps,
        loc_rate=_rate(per_race, report, players=players, runs=driven),
        loc_per_race=per_race,
        finish_rate=sim.finish_rate,
        overtakes_per_lap=(
            sim.gt.overtakes_per_lap
            if sim.gt.overtakes_per_lap is not None
            else sim.gt.overtakes_per_race
        ),
        win_rate_by_slot=dict(sim.gt.win_rate_by_grid_slot),
        decided_on_lap_1=sim.gt.decided_on_lap_1,
        findings=_rows(found),
        point_to_point=p2p,
    )
