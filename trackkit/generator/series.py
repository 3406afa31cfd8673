"""What a run of the generator does per series: a DIRT stage or a Rallyman: GT track.

One run (:mod:`trackkit.generator.run`) builds roads, makes candidates of them, races the
finalists and keeps the best, the same way for both series; what differs is behind one
interface, :class:`SeriesRun`, with one implementation per series (:data:`DIRT`,
:data:`GT`), chosen by the request's ruleset (:func:`series_of`):

- the request checks (they are truly different rules: DIRT's surfaces, tokens and
  fillers; GT's grid, laps, pit and circuits that must close):
  :func:`trackkit.generator.pieces.check_dirt_request` and
  :func:`trackkit.generator.gt_pieces.check_gt_request`, both behind :func:`check_request`;
- the aim and the goal of the search (a chain from start to finish, or a circuit);
- what goes on the road (DIRT tokens; a GT track's ruleset and laps) and beside it (DIRT
  fillers; the GT pit);
- the structure measured and its score, the races and their score.

Examples
--------
>>> from trackkit.generator.request import Request
>>> series_of(Request(boxes=("gt-core",), ruleset="gt")).name
'gt'
>>> request, pal = check_request(Request(boxes=("dirt-core",), tiles=8))
>>> request.tiles, len(pal.starts)
(8, 2)
>>> check_request(Request(boxes=("dirt-core",), ruleset="chess"))
Traceback (most recent call last):
...
trackkit.generator.request.GenerateError: --ruleset: 'chess': the rulesets are dirt and gt
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from trackkit.checks.pipeline import Report, validate
from trackkit.generator.circuit import CircuitGoal, no_circuit
from trackkit.generator.decorate import place_fillers, stage_of, token_plan
from trackkit.generator.gt_pieces import check_gt_request, place_pit, tiles_for_length
from trackkit.generator.gt_score import GtStructure, gt_aim, gt_structure_of, gt_structure_score
from trackkit.generator.pieces import Palette, Way, check_dirt_request
from trackkit.generator.refine import (
    GtSimResult,
    SimResult,
    gt_sim_score,
    refine_gt,
    sim_score,
    simulate_finalists,
)
from trackkit.generator.request import GenerateError, Request
from trackkit.generator.score import Aim, Structure, structure_of, structure_score
from trackkit.generator.search import ChainGoal, Goal, Road
from trackkit.models.stage import Kind, Stage, TileToken
from trackkit.tiles.library import TileLibrary

__all__ = [
    "DIRT",
    "GT",
    "DirtRun",
    "GtRun",
    "Job",
    "SeriesRun",
    "Tokens",
    "check_request",
    "series_of",
]

#: Tokens on the road, by tile (0-based place in driving order).
Tokens = dict[int, list[TileToken]]
#: Told how many more finalists have been raced.
Step = Callable[[int], None]
#: A candidate's structure and the parts of its structural score.
Scored = tuple[Structure | GtStructure, dict[str, float]]
#: What the races of each finalist showed, in the finalists' order.
Raced = list[SimResult | GtSimResult]


@dataclass(frozen=True, slots=True)
class Job:
    """What a run knows once its request is checked, for the series' steps."""

    request: Request
    """The request, settled (:meth:`SeriesRun.check`)."""
    pal: Palette
    aim: Aim
    rng: random.Random
    """The run's one generator: every draw, in a fixed order."""
    library: TileLibrary | None


#: GT finalists of each track raced again, with :data:`RACE_AGAIN` times the races and a
#: fresh seed: those whose first races put them nearest the level's band centre.
GT_RACED_AGAIN = 2
RACE_AGAIN = 2


class SeriesRun(Protocol):
    """The part of a generator run that differs per series (module docstring)."""

    name: str
    """The ruleset: ``dirt`` or ``gt``."""
    what: str
    """What the run makes, in the plural: ``stages`` or ``tracks``."""

    def check(self, request: Request, library: TileLibrary | None) -> tuple[Request, Palette]:
        """The request settled and the palette of its boxes; raises ``GenerateError``."""
        ...

    def aim(self, request: Request, pal: Palette) -> Aim:
        """The targets of the search and of the structural score."""
        ...

    def goal(self, job: Job, asked: Request) -> Goal:
        """The goal of the search; raises ``GenerateError`` when it cannot be met
        (``asked``: the request before :meth:`check` settled it)."""
        ...

    def on_road(self, job: Job, ways: Sequence[Way], name: str) -> tuple[Stage, Tokens]:
        """The stage file of a road and the tokens on it; ``ValueError`` when the road
        cannot hold them."""
        ...

    def beside(
        self, job: Job, stage: Stage, report: Report, road: Road
    ) -> tuple[Stage, Report] | None:
        """The stage with what stands beside its road, validated clean; None if that
        cannot be placed. ``report`` is the clean report of ``stage``."""
        ...

    def structure(self, job: Job, report: Report, ways: Sequence[Way], tokens: Tokens) -> Scored:
        """The structure of a candidate and the parts of its structural score."""
        ...

    def race(self, job: Job, finalists: Sequence[Sequence[Stage]], jobs: int, step: Step) -> Raced:
        """Race every finalist (stages by stage asked for), results in their order; the
        seeds come from ``job.rng``."""
        ...

    def sim_parts(self, job: Job, sim: SimResult | GtSimResult) -> dict[str, float]:
        """The parts of a finalist's simulation score."""
        ...


def _seeds(rng: random.Random, n: int) -> list[int]:
    """One seed a finalist, drawn before any race (the results do not depend on jobs)."""
    return [rng.randrange(1, 2**31) for _ in range(n)]


class DirtRun:
    """Rallyman: DIRT stages: rallies and hillclimbs, with tokens and fillers."""

    name = "dirt"
    what = "stages"

    def check(self, request: Request, library: TileLibrary | None) -> tuple[Request, Palette]:
        """:func:`trackkit.generator.pieces.check_dirt_request`."""
        return check_dirt_request(request, library)

    def aim(self, request: Request, pal: Palette) -> Aim:
        """:meth:`trackkit.generator.score.Aim.of`."""
        return Aim.of(request, pal)

    def goal(self, job: Job, asked: Request) -> Goal:
        """A chain from a start to a finish, room made for the tokens and climb tiles."""
        request = job.request
        hill = request.kind is Kind.HILLCLIMB
        climb_tokens = request.token_count("climb")
        most = job.pal.climb_pieces if hill else 0
        if request.tiles is not None:
            most = min(most, request.tiles - 2 - climb_tokens)
        # tokens need road tiles to lie on, one of a kind each (R202); climb tokens, tiles
        # without climb arrows
        middle = max(max((n for _, n in request.tokens), default=0), climb_tokens + hill, hill)
        return ChainGoal(
            tiles=request.tiles,
            length_mm=request.length_mm,
            min_tiles=2 + middle,
            climbs=(1 if hill else 0, max(most, 1 if hill else 0)),
        )

    def on_road(self, job: Job, ways: Sequence[Way], name: str) -> tuple[Stage, Tokens]:
        """The tokens asked for, drawn (:func:`trackkit.generator.decorate.token_plan`)."""
        request = job.request
        tokens = token_plan(ways, request.tokens, job.rng)
        stage = stage_of(ways, name=name, kind=request.kind, boxes=request.boxes, tokens=tokens)
        return stage, tokens

    def beside(
        self, job: Job, stage: Stage, report: Report, road: Road
    ) -> tuple[Stage, Report] | None:
        """The fillers asked for (:func:`trackkit.generator.decorate.place_fillers`)."""
        count = job.request.fillers
        if not count:
            return stage, report
        entry = report.layout.chain[0].entry_world
        fillers = place_fillers(road.hexes, road.exits, entry, job.pal, count, job.rng)
        if len(fillers) < count:
            return None
        placed = stage.model_copy(update={"tiles": [*stage.tiles, *fillers]})
        checked = validate(placed, library=job.library)
        return (placed, checked) if checked.clean else None

    def structure(self, job: Job, report: Report, ways: Sequence[Way], tokens: Tokens) -> Scored:
        """:func:`trackkit.generator.score.structure_of` and its score."""
        hexes = [t.hex for t in report.layout.chain]
        structure = structure_of(report.summary, ways, tokens, hexes)
        return structure, structure_score(structure, job.aim)

    def race(self, job: Job, finalists: Sequence[Sequence[Stage]], jobs: int, step: Step) -> Raced:
        """:func:`trackkit.generator.refine.simulate_finalists`."""
        stages = [s for group in finalists for s in group]
        seeds = _seeds(job.rng, len(stages))
        races = job.request.races
        return [*simulate_finalists(stages, seeds, races=races, jobs=jobs, progress=step)]

    def sim_parts(self, job: Job, sim: SimResult | GtSimResult) -> dict[str, float]:
        """:func:`trackkit.generator.refine.sim_score`."""
        assert isinstance(sim, SimResult)
        return sim_score(sim, job.aim.band.distance(sim.loc_rate), job.request.par)


class GtRun:
    """Rallyman: GT tracks: circuits and point-to-point tracks, with the pit."""

    name = "gt"
    what = "tracks"

    def check(self, request: Request, library: TileLibrary | None) -> tuple[Request, Palette]:
        """:func:`trackkit.generator.gt_pieces.check_gt_request`."""
        return check_gt_request(request, library)

    def aim(self, request: Request, pal: Palette) -> Aim:
        """:func:`trackkit.generator.gt_score.gt_aim`."""
        return gt_aim(request, pal)

    def goal(self, job: Job, asked: Request) -> Goal:
        """A circuit closing on its start/finish tile (refused up front when the pieces
        cannot close one: :func:`trackkit.generator.circuit.no_circuit`), or a
        point-to-point track from its start to its finish."""
        request, pal = job.request, job.pal
        tiles = request.tiles or tiles_for_length(request, pal)
        if request.kind is not Kind.CIRCUIT:
            return ChainGoal(tiles=tiles, lines_counted=True)
        goal = CircuitGoal.of(tiles, pal, job.library)
        refused = no_circuit(asked, request, pal, goal, job.library)
        if refused is not None:
            raise refused
        return goal

    def on_road(self, job: Job, ways: Sequence[Way], name: str) -> tuple[Stage, Tokens]:
        """The track names its ruleset and, a circuit, its laps; no tokens."""
        request = job.request
        laps = request.laps if request.kind is Kind.CIRCUIT else None
        stage = stage_of(
            ways, name=name, kind=request.kind, boxes=request.boxes, ruleset="gt", laps=laps
        )
        return stage, {}

    def beside(
        self, job: Job, stage: Stage, report: Report, road: Road
    ) -> tuple[Stage, Report] | None:
        """The pit, when asked for (:func:`trackkit.generator.gt_pieces.place_pit`)."""
        if not job.request.pit:
            return stage, report
        players = job.request.players
        return place_pit(stage, report, job.pal, job.rng, library=job.library, players=players)

    def structure(self, job: Job, report: Report, ways: Sequence[Way], tokens: Tokens) -> Scored:
        """:func:`trackkit.generator.gt_score.gt_structure_of` and its score."""
        structure = gt_structure_of(report.summary, report.graph, report.layout, ways)
        return structure, gt_structure_score(structure, job.aim)

    def race(self, job: Job, finalists: Sequence[Sequence[Stage]], jobs: int, step: Step) -> Raced:
        """:func:`trackkit.generator.refine.refine_gt`, then the likeliest finalists raced
        again (:meth:`race_again`)."""
        stages = [s for group in finalists for s in group]
        seeds = _seeds(job.rng, len(stages))
        races, players = job.request.races, job.request.players or 4
        first = refine_gt(stages, seeds, races=races, players=players, jobs=jobs, progress=step)
        return [*self.race_again(job, finalists, first, jobs)]

    def race_again(
        self,
        job: Job,
        finalists: Sequence[Sequence[Stage]],
        results: Sequence[GtSimResult],
        jobs: int,
    ) -> list[GtSimResult]:
        """The finalists nearest the band raced again, more, with fresh seeds.

        A GT track's losses of control vary with the traffic more than with the tiles: in
        30 races a track's rate is known to about +-0.02, half a band's width, so the
        finalist that looks deepest inside the band is often there by luck. Racing the
        likeliest ones again (only those: the others are out of the running on
        difficulty) and choosing on the new races, whose seeds the first races did not
        pick, makes the level chosen hold up in races the generator did not see.
        """
        out = list(results)
        again: list[int] = []
        start = 0
        for group in finalists:
            idx = list(range(start, start + len(group)))
            start += len(group)
            if len(idx) < 2:
                continue
            idx.sort(key=lambda i: (job.aim.band.distance(out[i].loc_rate), i))
            again += idx[:GT_RACED_AGAIN]
        if not again:
            return out
        flat = [s for group in finalists for s in group]
        redone = refine_gt(
            [flat[i] for i in again],
            _seeds(job.rng, len(again)),
            races=job.request.races * RACE_AGAIN,
            players=job.request.players or 4,
            jobs=jobs,
        )
        for i, result in zip(again, redone, strict=True):
            out[i] = result
        return out

    def sim_parts(self, job: Job, sim: SimResult | GtSimResult) -> dict[str, float]:
        """:func:`trackkit.generator.refine.gt_sim_score`."""
        assert isinstance(sim, GtSimResult)
        return gt_sim_score(sim, job.aim.band.distance(sim.loc_rate))


#: The two series.
DIRT = DirtRun()
GT = GtRun()


def series_of(request: Request) -> SeriesRun:
    """The series a request is for, by its ruleset.

    Raises
    ------
    GenerateError
        For a ruleset other than ``dirt`` and ``gt``.
    """
    for series in (DIRT, GT):
        if request.ruleset == series.name:
            return series
    raise GenerateError("--ruleset", f"{request.ruleset!r}: the rulesets are dirt and gt")


def check_request(request: Request, library: TileLibrary | None = None) -> tuple[Request, Palette]:
    """The request with its size (GT: laps, players) settled, and the palette of its
    boxes, once the request is known to be possible: the check of its series.

    Raises
    ------
    GenerateError
        Naming the option at fault and what would work
        (:func:`trackkit.generator.pieces.check_dirt_request`,
        :func:`trackkit.generator.gt_pieces.check_gt_request`).

    Examples
    --------
    >>> request, pal = check_request(Request(boxes=("gt-core",), ruleset="gt", tiles=10))
    >>> request.players, len(pal.starts) > 0
    (4, True)
    """
    return series_of(request).check(request, library)
