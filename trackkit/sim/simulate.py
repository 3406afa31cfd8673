"""Simulation as a plain function: stages in, the ``simulate`` report out
(:class:`~trackkit.models.simreport.SimReport`; its ``to_json()`` is the JSON document)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from trackkit.checks.pipeline import Report, validate
from trackkit.errors import InputError, TrackkitError
from trackkit.formats.source import StageSource
from trackkit.models.car import CarFile
from trackkit.models.findings import Severity
from trackkit.models.simreport import SimReport
from trackkit.models.stage import Kind, Stage
from trackkit.rules.cars import CarMismatch, stage_problems
from trackkit.rules.track import Track
from trackkit.sim.figures import RaceSummary
from trackkit.sim.race import MAX_ROUNDS, Settings, default_bots, prepare, run_race
from trackkit.sim.replay import replay_document
from trackkit.sim.stats import race_seed, run_many, summarize_races

__all__ = ["NotAGtCar", "SimulationError", "simulate_files"]


class SimulationError(TrackkitError):
    """Stages that cannot be raced: they have errors (``reports`` holds their findings).

    ``file`` names the first of them and ``message`` says what is wrong after it (the
    error reads ``file: message``).
    """

    def __init__(
        self, message: str, reports: Sequence[Report] = (), *, file: str | None = None
    ) -> None:
        super().__init__(f"{file}: {message}" if file else message)
        self.file = file
        self.message = message
        self.reports = list(reports)


class NotAGtCar(InputError):
    """A car file given for a Rallyman: GT track (``--car``): GT tracks take GT cars.

    ``car`` is the file's car, so that the command line can name the path the user typed
    (:meth:`naming`).
    """

    def __init__(self, car: CarFile) -> None:
        self.car = car
        super().__init__("--car", self._text(f"'{car.name}'"))

    @staticmethod
    def _text(what: str) -> str:
        return f"{what} is no Rallyman: GT car: a GT track takes {', '.join(_GT_CARS)}"

    def naming(self, path: str) -> str:
        """The message, naming the car file by ``path``."""
        return self._text(f"the car file {path} ('{self.car.name}')")


def _errors(report: Report) -> list[str]:
    return [f.code for f in report.findings if f.severity is Severity.ERROR]


def simulate_files(
    stages: Sequence[Stage],
    names: Sequence[str],
    *,
    players: int,
    races: int,
    seed: int,
    cars: tuple[str | CarFile, ...] | None,
    bots: tuple[str, ...],
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    want_replay: bool = False,
    max_rounds: int | None = None,
    kind: Kind | None = None,
    note: Callable[[str], None] | None = None,
    sources: Sequence[StageSource | None] | None = None,
    laps: int | None = None,
    weather: str | None = None,
    grid: str | None = None,
) -> tuple[SimReport, str | None]:
    """Race every stage ``races`` times; several stages make a rally (times add up).

    ``cars`` cycle over the drivers: ruleset car ids, ``unlimited`` (the bots build
    Unlimited dashboards) or car files; None: Unlimited dashboards on a hillclimb, the
    DIRT car on a rally (DASH-3). ``bots`` cycle over the drivers too; empty: the
    cautious, aggressive and planner bots in turn on a hillclimb, cautious ones on a rally
    and a GT track (:func:`~trackkit.sim.race.default_bots`). ``kind`` overrides each
    stage's own event kind (see ``validate``); ``note`` is told, in words, how a stage's
    kind was inferred when its file gives none; ``sources`` (the files as read,
    :func:`trackkit.formats.load_source`) give the findings their lines. In a rally a
    driver's SISU token, once flipped, stays flipped on the later stages
    (``sisu_once_per: rally``, LOC-7).

    A Rallyman: GT track is raced alone, as a GT race (:mod:`trackkit.sim.gt_race`): ``laps``
    (default: the file's), ``weather`` (``dry`` or ``rain``; default: the ruleset's) and
    ``grid`` (``drawn`` or ``given``; None: drawn); ``cars`` are GT cars (``gt4``, ``gt5``,
    ``gt6``). A point-to-point GT track has no laps: ``laps`` is refused there. ``max_rounds`` None:
    200 rounds, and on a GT track as many as its laps need
    (:func:`~trackkit.sim.gt_race.gt_round_cap`).

    Raises
    ------
    SimulationError
        If any stage has errors (none is raced then).
    CarMismatch
        If an Unlimited car file has track-type tokens for other surfaces than a stage's.
    InputError
        For GT options on a DIRT stage, a GT track raced with other stages, or cars of
        the other series, or laps of a point-to-point track (``--laps``, ``--weather``,
        ``--grid``, ``--car`` named).
    """
    per_stage: list[list[RaceSummary]] = []
    docs = []
    replay_text = None
    settings = None
    reports = [
        validate(stage, kind=kind, file=name, source=source, players=players)
        for stage, name, source in zip(stages, names, sources or [None] * len(stages), strict=True)
    ]
    for report in reports:
        for f in report.findings:
            if note is not None and f.code == "H404":
                note(f"{report.file}: {f.message}")
    invalid = [r for r in reports if not r.valid]
    if invalid:
        # the first stage's file leads the message (SimulationError.file), the others' follow
        why = [
            ("" if n == 0 else f"{r.file}: ") + f"the stage has errors ({', '.join(_errors(r))})"
            for n, r in enumerate(invalid)
        ]
        raise SimulationError(
            "; ".join(why) + ": not raced (the fixes are in the findings)",
            invalid,
            file=invalid[0].file,
        )
    gt = [r for r in reports if r.layout.series == "gt"]
    if gt:
        return _simulate_gt(
            stages,
            reports,
            players=players,
            races=races,
            seed=seed,
            cars=cars,
            bots=bots,
            jobs=jobs,
            progress=progress,
            want_replay=want_replay,
            max_rounds=max_rounds,
            laps=laps,
            weather=weather,
            grid=grid,
        )
    given = {"--laps": laps, "--weather": weather, "--grid": grid}
    for option, value in given.items():
        if value is not None:
            raise InputError(option, "is for Rallyman: GT tracks; these stages are DIRT stages")
    if max_rounds is None:
        max_rounds = MAX_ROUNDS
    for car in cars or ():
        if isinstance(car, str) and car in _GT_CARS:
            raise InputError(
                "--car",
                f"'{car}' is a Rallyman: GT car; DIRT stages take dirt, r5, "
                "unlimited or a car file",
            )
    tracks = [Track.from_graph(r.graph, r.layout) for r in reports]
    for car in cars or ():
        if isinstance(car, CarFile):
            for track, name in zip(tracks, names, strict=True):
                surfaces = {info.surface for info in track.spaces.values()}
                problem = stage_problems(car, surfaces)
                if problem is not None:
                    raise CarMismatch(car, f"{problem}; the stage is {name}")
    spent: list[tuple[bool, ...]] | None = None
    for stage, report, track in zip(stages, reports, tracks, strict=True):
        hillclimb = report.kind is Kind.HILLCLIMB
        settings = Settings.default(
            players,
            cars=cars,
            bots=bots or default_bots(hillclimb=hillclimb),
            hillclimb=hillclimb,
            max_rounds=max_rounds,
        )
        layout = report.layout
        prepared = prepare(track)
        results = run_many(
            prepared,
            settings,
            races=races,
            seed=seed,
            jobs=jobs,
            progress=progress,
            sisu_spent=spent,
        )
        per_stage.append(results)
        spent = [r.sisu_spent for r in results]
        tiles = {t.index: t.face_id for t in layout.chain if t.index is not None}
        docs.append(
            summarize_races(results, settings, seed=seed, tiles=tiles, ruleset=prepared.ruleset)
        )
        if want_replay and replay_text is None:
            first = run_race(prepared, settings, race_seed(seed, 0))
            replay_text = replay_document(stage, settings, race_seed(seed, 0), first)
    assert settings is not None
    if len(stages) == 1:
        return docs[0], replay_text
    # a rally: a driver's time is the sum of its stage times (TIME-2)
    combined = []
    for k in range(races):
        rows = [stage_races[k] for stage_races in per_stage]
        times = tuple(
            None if any(r.times[i] is None for r in rows) else sum(r.times[i] or 0 for r in rows)
            for i in range(players)
        )
        combined.append(
            RaceSummary(
                times=times,
                attempts=tuple(() for _ in range(players)),
                finished=tuple(all(r.finished[i] for r in rows) for i in range(players)),
                # per-place details stay in each stage's own document ("stages")
                losses=(),
                blocked=(),
                stuck=tuple(
                    (i, f"stage {n + 1}: {space}")
                    for n, r in enumerate(rows)
                    for i, space in r.stuck
                ),
                rounds=sum(r.rounds for r in rows),
                start_positions=rows[0].start_positions,
                # the first stage a driver did not finish says why (spots: per stage)
                dnf=tuple(
                    next((r.dnf[i] for r in rows if r.dnf and r.dnf[i]), None)
                    for i in range(players)
                ),
            )
        )
    rally = replace(settings, hillclimb=False)
    doc = summarize_races(combined, rally, seed=seed, tiles={})
    assert doc.dirt is not None  # DIRT stages
    losses = round(sum(d.loss_of_control.per_race for d in docs), 4)
    doc = doc.model_copy(
        update={
            "loss_of_control": doc.loss_of_control.model_copy(update={"per_race": losses}),
            "dirt": doc.dirt.model_copy(update={"stages": docs}),
        }
    )
    return doc, replay_text


#: The GT cars (DASH-2): ``--car`` names them.
_GT_CARS = ("gt4", "gt5", "gt6")


def _simulate_gt(
    stages: Sequence[Stage],
    reports: Sequence[Report],
    *,
    players: int,
    races: int,
    seed: int,
    cars: tuple[str | CarFile, ...] | None,
    bots: tuple[str, ...],
    jobs: int,
    progress: Callable[[int], None] | None,
    want_replay: bool,
    max_rounds: int | None,
    laps: int | None,
    weather: str | None,
    grid: str | None,
) -> tuple[SimReport, str | None]:
    """Race one GT track (:func:`simulate_files` with a GT track)."""
    from trackkit.rules.ruleset import load_ruleset
    from trackkit.sim.gt_race import GtOptions, gt_round_cap

    if len(stages) != 1:
        raise InputError(
            reports[0].file or "stage",
            "a Rallyman: GT track is raced on its own, not as a stage of a rally "
            f"({len(stages)} files given)",
        )
    for car in cars or ():
        if isinstance(car, CarFile):
            raise NotAGtCar(car)
        if car not in _GT_CARS:
            raise InputError("--car", NotAGtCar._text(f"'{car}'"))
    if weather not in (None, "dry", "rain"):
        raise InputError("--weather", f"'{weather}': the weather is dry or rain")
    if grid not in (None, "drawn", "given"):
        raise InputError("--grid", f"'{grid}': the grid is drawn or given")
    report = reports[0]
    if laps is not None and not report.layout.circuit:
        raise InputError(
            "--laps",
            f"{report.file or 'the track'} is a point-to-point track: it is raced once from "
            "the grid to the finish and has no laps (laps are for a circuit, kind: circuit)",
        )
    rules = load_ruleset("gt")
    assert rules.gt is not None
    options = GtOptions(
        laps=laps or report.layout.laps,
        weather="rain" if (weather or rules.gt.weather) == "rain" else "dry",
        grid="given" if grid == "given" else "drawn",
    )
    track = Track.from_graph(report.graph, report.layout)
    if max_rounds is None:  # as many rounds as the laps need
        max_rounds = gt_round_cap(track, options.laps)
    settings = Settings.default(
        players,
        cars=cars,
        bots=bots or default_bots(hillclimb=False),
        max_rounds=max_rounds,
        gt=options,
    )
    prepared = prepare(track, rules)
    results = run_many(prepared, settings, races=races, seed=seed, jobs=jobs, progress=progress)
    tiles = {t.index: t.face_id for t in report.layout.chain if t.index is not None}
    doc = summarize_races(results, settings, seed=seed, tiles=tiles)
    replay_text = None
    if want_replay:
        first = run_race(prepared, settings, race_seed(seed, 0))
        replay_text = replay_document(stages[0], settings, race_seed(seed, 0), first)
    return doc, replay_text
