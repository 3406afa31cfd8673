"""One run of the generator: candidates by search, finalists by simulation, K stages.

For each stage asked for, :func:`generate` builds ``candidates`` roads
(:func:`trackkit.generator.search.build_road`, none the same as a road already built in
the run; round by round, one for each stage in turn), puts the tokens and fillers on
them, validates each one (a candidate with any error or warning is dropped and counted:
none should be) and scores it by structure. The
``finalists`` best of each stage are then raced, all stages' finalists in one batch (so
``jobs`` worker processes share them), and each stage keeps its finalist with the lowest
total score: the structural score with its difficulty part replaced by the simulation
score (:mod:`trackkit.generator.refine`). Without races the structure alone decides. A
finalist that fits what was asked for (the difficulty band, ``--par``:
:mod:`trackkit.generator.fit`) goes before any that misses; with ``Request.tries`` a
stage whose finalists all miss is searched again (new roads, their finalists raced)
until one fits or the tries are spent.

Every random draw comes from one :class:`random.Random` seeded with ``request.seed``,
passed down in a fixed order: the same request gives the same stages, byte for byte.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trackkit.checks.pipeline import Report, validate
from trackkit.generator.fit import Fit, fit_of
from trackkit.generator.gt_score import GtStructure
from trackkit.generator.pieces import Palette, Way
from trackkit.generator.refine import GtSimResult, SimResult
from trackkit.generator.request import GenerateError, Request
from trackkit.generator.score import Aim, Structure
from trackkit.generator.search import Goal, Placer, Road, SearchFailed, build_road
from trackkit.generator.series import Job, SeriesRun, series_of
from trackkit.models.stage import Kind, Stage
from trackkit.tiles.library import default_library

__all__ = ["Candidate", "Finalist", "Generation", "Outcome", "Progress", "generate"]

#: ``progress(phase, done, total)``: phase ``building`` (candidates) then ``racing``; a
#: further search (``Request.tries``) ``building 2`` and ``racing 2``, and so on.
Progress = Callable[[str, int, int], None]
#: A stage's pool stops growing after this many roads that repeat roads already built
#: (few roads are possible with very few tiles).
MAX_REPEATS = 60


@dataclass(frozen=True, slots=True)
class Candidate:
    """A road with its tokens and fillers, validated and scored by structure."""

    stage_index: int
    number: int
    """Its number in its stage's pool, from 1."""
    ways: tuple[Way, ...]
    stage: Stage
    structure: Structure | GtStructure
    score: dict[str, float]
    """The parts of its structural score."""
    report: Report = field(repr=False, compare=False)
    """Its validation report (clean: no error, no warning)."""

    @property
    def total(self) -> float:
        """The structural score."""
        return round(sum(self.score.values()), 4)


@dataclass(frozen=True, slots=True)
class Finalist:
    """A candidate raced (or not), with its total score."""

    candidate: Candidate
    sim: SimResult | GtSimResult | None = None
    sim_parts: dict[str, float] = field(default_factory=dict)

    @property
    def parts(self) -> dict[str, float]:
        """Every part of the total: what the races measured in place of the structure's
        estimate of it (difficulty; GT: overtaking, and the grid's fairness as ``pole``)."""
        parts = dict(self.candidate.score)
        if self.sim is not None:
            for key in ("difficulty", "overtaking"):
                if key in self.sim_parts:
                    parts.pop(key, None)
            if "pole" in self.sim_parts:
                parts.pop("grid", None)
            parts.update(self.sim_parts)
        return parts

    @property
    def total(self) -> float:
        """The total score (lower is better)."""
        return round(sum(self.parts.values()), 4)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One generated stage: the finalist chosen, the others, and its validation report."""

    index: int
    chosen: Finalist
    finalists: tuple[Finalist, ...]
    """Every finalist raced for this stage, over all its searches."""
    built: int
    """Candidates built for this stage."""
    report: Report
    fit: Fit
    """Whether the chosen finalist is what was asked for, and by how much it misses."""
    tries: int = 1
    """Searches made for this stage (more than one only with ``Request.tries``)."""

    @property
    def stage(self) -> Stage:
        """The stage file."""
        return self.chosen.candidate.stage


@dataclass(frozen=True, slots=True)
class Generation:
    """Everything one run produced."""

    request: Request
    aim: Aim
    outcomes: list[Outcome]
    stats: dict[str, Any]
    """Counts of the run: roads built, candidates dropped, placements asked."""


def _name(request: Request, index: int) -> str:
    kind = {
        Kind.HILLCLIMB: "Hillclimb",
        Kind.CIRCUIT: "Circuit",
        Kind.POINT_TO_POINT: "Track",
    }.get(request.kind, "Rally")
    boxes = ", ".join(request.boxes)
    return f"{kind} {index} ({boxes}; seed {request.seed})"


def _candidate(
    series: SeriesRun, job: Job, road: Road, index: int, number: int
) -> Candidate | None:
    """The candidate of a road, or None if it is not clean (counted by the caller).

    What goes on the road (DIRT tokens) and beside it (DIRT fillers, the GT pit), and the
    structure measured, are the series' (:class:`~trackkit.generator.series.SeriesRun`);
    the road must validate clean, laid on the hexes the search laid it on.
    """
    ways = tuple(road.ways)
    try:
        stage, tokens = series.on_road(job, ways, _name(job.request, index))
    except ValueError:
        return None
    report = validate(stage, library=job.library, players=job.request.players)
    if not report.clean or [t.hex for t in report.layout.chain] != road.hexes:
        return None
    placed = series.beside(job, stage, report, road)
    if placed is None:
        return None
    stage, report = placed
    structure, score = series.structure(job, report, ways, tokens)
    return Candidate(index, number, ways, stage, structure, score, report)


def generate(
    request: Request,
    *,
    jobs: int = 1,
    progress: Progress | None = None,
) -> Generation:
    """Generate ``request.count`` stages from the shipped tile library.

    Parameters
    ----------
    request : Request
        What to generate.
    jobs : int
        Worker processes for the races (the result is the same for any number).
    progress : callable, optional
        Told ``(phase, done, total)`` as candidates are built and finalists raced.

    Raises
    ------
    GenerateError
        For a request the boxes cannot meet, naming the option.
    """
    library = default_library()  # the one the simulator races on, too
    series = series_of(request)
    asked = request
    request, pal = series.check(request, library)
    aim = series.aim(request, pal)
    job = Job(request, pal, aim, random.Random(request.seed), library)
    goal = series.goal(job, asked)
    search = _Search(series, job, goal, Placer(library), progress)
    pools: list[list[Candidate]] = [[] for _ in range(request.count)]
    search.build(pools, range(request.count), "building")
    if not pools[0]:
        raise GenerateError(_size_option(request), _no_road(request))
    if not all(pools):
        have = sum(1 for p in pools if p)
        raise GenerateError(
            "--count",
            f"only {have} different {series.what} of {_size(request)} were found from these "
            f"boxes: ask for --count {have}, or more tiles",
        )
    groups = _race(series, job, _finalists(request, pools), jobs, progress)
    tries = [1] * request.count
    for attempt in range(2, request.tries + 1):
        # the stages whose best finalist misses what was asked for: search again
        missing = [
            i for i, g in enumerate(groups) if not _fit(request, aim, _best(request, aim, g)).fits
        ]
        if not missing or search.exhausted:
            break
        fresh: list[list[Candidate]] = [[] for _ in pools]
        search.build(fresh, missing, f"building {attempt}", numbered_from=pools)
        missing = [i for i in missing if fresh[i]]
        if not missing:
            break
        more = _race(
            series,
            job,
            _finalists(request, [fresh[i] for i in missing]),
            jobs,
            progress,
            phase=f"racing {attempt}",
        )
        for i, group in zip(missing, more, strict=True):
            pools[i] += fresh[i]
            groups[i] += group
            tries[i] = attempt
    outcomes = []
    for index, group in enumerate(groups, start=1):
        chosen = _best(request, aim, group)
        report = chosen.candidate.report
        fit = _fit(request, aim, chosen)
        built = len(pools[index - 1])
        outcomes.append(Outcome(index, chosen, tuple(group), built, report, fit, tries[index - 1]))
    stats = {
        "candidates": sum(len(p) for p in pools),
        "dropped": search.dropped,
        "placements": search.placer.layouts,
        "raced": sum(len(g) for g in groups) if request.races else 0,
        "searches": sum(tries),
    }
    return Generation(request, aim, outcomes, stats)


def _finalists(request: Request, pools: list[list[Candidate]]) -> list[list[Candidate]]:
    """The best ``request.finalists`` of each pool by structure."""
    return [sorted(p, key=lambda c: (c.total, c.number))[: request.finalists] for p in pools]


def _fit(request: Request, aim: Aim, finalist: Finalist) -> Fit:
    return fit_of(request, aim.band, finalist.candidate.structure.difficulty, finalist.sim)


def _best(request: Request, aim: Aim, group: list[Finalist]) -> Finalist:
    """The finalist a stage keeps: of those that fit what was asked for, the lowest total
    score; when none fits, the lowest total score of all."""
    return min(
        group,
        key=lambda f: (not _fit(request, aim, f).fits, f.total, f.candidate.number),
    )


class _Search:
    """The road search of one run: its random generator, the roads already built, and
    the candidates dropped."""

    def __init__(
        self,
        series: SeriesRun,
        job: Job,
        goal: Goal,
        placer: Placer,
        progress: Progress | None,
    ) -> None:
        self.series, self.job, self.goal, self.placer = series, job, goal, placer
        self.progress = progress
        self.seen: set[tuple[str, ...]] = set()
        self.dropped = 0
        self.exhausted = False

    def build(
        self,
        pools: list[list[Candidate]],
        stages: Sequence[int],
        phase: str,
        *,
        numbered_from: list[list[Candidate]] | None = None,
    ) -> None:
        """Add ``request.candidates`` new roads to each pool of ``stages`` (indices).

        Round by round, one new road for each stage in turn: when the boxes make few
        roads, every stage still gets some. Candidates are numbered after those of
        ``numbered_from`` (the stage's earlier searches)."""
        request, job = self.job.request, self.job
        total = len(stages) * request.candidates
        for _ in range(request.candidates):
            for i in stages:
                road = _new_road(job.pal, self.goal, job.aim, job.rng, self.placer, self.seen)
                if road is None:
                    self.exhausted = True
                    return
                earlier = len(numbered_from[i]) if numbered_from is not None else 0
                number = earlier + len(pools[i]) + 1
                cand = _candidate(self.series, job, road, i + 1, number)
                if cand is None:
                    self.dropped += 1
                    continue
                pools[i].append(cand)
                if self.progress:
                    self.progress(phase, sum(len(pools[j]) for j in stages), total)


def _new_road(
    pal: Palette,
    goal: Goal,
    aim: Aim,
    rng: random.Random,
    placer: Placer,
    seen: set[tuple[str, ...]],
) -> Road | None:
    """A road unlike every road built before in the run, or None when none turns up."""
    for _ in range(MAX_REPEATS):
        try:
            road = build_road(pal, goal, aim, rng, placer)
        except SearchFailed:
            return None
        if road.signature not in seen:
            seen.add(road.signature)
            return road
    return None


def _race(
    series: SeriesRun,
    job: Job,
    finalists: list[list[Candidate]],
    jobs: int,
    progress: Progress | None,
    *,
    phase: str = "racing",
) -> list[list[Finalist]]:
    """Race every finalist (or not, without races) and score it."""
    if job.request.races <= 0:
        return [[Finalist(c) for c in group] for group in finalists]
    total = sum(len(group) for group in finalists)
    done = [0]

    def step(n: int) -> None:
        done[0] += n
        if progress:
            progress(phase, done[0], total)

    stages = [[c.stage for c in group] for group in finalists]
    results = series.race(job, stages, jobs, step)
    flat = [
        Finalist(c, sim, series.sim_parts(job, sim))
        for c, sim in zip((c for group in finalists for c in group), results, strict=True)
    ]
    out, start = [], 0
    for group in finalists:
        out.append(flat[start : start + len(group)])
        start += len(group)
    return out


def _size_option(request: Request) -> str:
    return "--length-mm" if request.length_mm is not None else "--tiles"


def _size(request: Request) -> str:
    if request.length_mm is not None:
        return f"{request.length_mm:g} mm of road"
    return f"{request.tiles} tiles"


def _no_road(request: Request) -> str:
    size = _size(request)
    if request.kind is Kind.CIRCUIT:
        return (
            f"no circuit of {size} closes with these pieces (lanes and skew edges must "
            "meet at every edge, the last tile leading into the start/finish): ask for "
            "another size, or name another box (gt-core has the most bends)"
        )
    return (
        f"no road of {size} that does not run into itself could be laid with these pieces "
        "and options: ask for fewer tiles, or name another box"
    )
