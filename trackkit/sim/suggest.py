"""Unlimited dashboards for a hillclimb, searched by simulation (``trackkit car suggest``).

The search space (DASH-3, DASH-4), for a stage whose surfaces are its track-type tokens:

- the order of the track-type tokens: every order (the rightmost is the car's best
  surface: the right column works there only, the middle one on the best two);
- gear dice 1 to 4, 1 to 5 or 1 to 6;
- 0 to 2 brake dice, 1 to 3 coast dice, 0 to 2 boost dice;
- a SISU token or none; puncture-proof tyres or none (on a stage with shortcuts only).

Tokens are placed where they work on the most surfaces (:func:`place_tokens`: gears,
then coast, brake, boost, SISU and tyres), since a token works at least as well there, and
every space left empty adds one to the danger limit (DASH-4). Boards that give a car the
same dice, limit, SISU and tyres on every surface count once (a token order matters only
when tokens reach the columns of the best surfaces), and so do boards that do not fit the
17 spaces: none. :func:`search_space` lists the boards of a stage.

The search is a successive halving (:func:`schedule`): every board races once, the better
half twice in all, the better half of those four times, ... until the boards left have
raced ``races`` times each (or only ``top`` are left, which then race that often); the
best ``top`` of the last round are the suggestion. Every board races the same seeded
races (race ``i`` has the seed ``race_seed(seed, i)``), with ``players`` drivers who all
drive it, each with its bot, so boards meet the same luck. A board ranks by the share of
drivers who finished (the higher, the better), then the mean best-of-3 time
(HILLCLIMB-2), then losses of control per attempt, then its layout: the same seed gives
the same ranking, with any ``jobs``.

Examples
--------
>>> from trackkit.rules.positions import track_of
>>> from trackkit.sim.race import prepare
>>> stage = prepare(track_of(["301a", {"tile": "418a", "climb": "up"}, "302a"]))
>>> len(search_space(stage_profile(stage.track)))
162
>>> found = suggest(stage, players=1, races=2, seed=1, top=2)
>>> [round(s.mean_best or 0) > 0 for s in found.boards], found.searched
([True, True], 162)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from itertools import permutations

from trackkit.models.car import CarFile
from trackkit.parallel import executor
from trackkit.rules.cars import car_file
from trackkit.rules.dashboard import UnlimitedDashboard
from trackkit.sim.garage import (
    BUILDS,
    StageProfile,
    build_unlimited,
    place_tokens,
    stage_profile,
    unlimited_dashboard,
)
from trackkit.sim.race import MAX_ROUNDS, DriverSpec, Prepared, Settings, run_race
from trackkit.sim.stats import race_seed
from trackkit.sim.stuck import dashboard_key

__all__ = [
    "DEFAULT_BOTS",
    "BoardScore",
    "Suggestion",
    "schedule",
    "search_space",
    "space_size",
    "suggest",
]

#: Who drives the boards by default: each style in turn.
DEFAULT_BOTS = ("cautious", "aggressive", "planner")

#: What the search tries (module docstring): top gears, and dice counts per kind.
TOP_GEARS = (6, 5, 4)
BRAKES = (0, 1, 2)
COASTS = (1, 2, 3)
BOOSTS = (0, 1, 2)


def space_size(profile: StageProfile) -> int:
    """How many boards the search space holds before equal boards are merged."""
    k = len(profile.surfaces)
    extras = 2 * (2 if profile.shortcuts else 1)  # SISU, tyres
    return math.factorial(k) * len(TOP_GEARS) * len(BRAKES) * len(COASTS) * len(BOOSTS) * extras


def _play_key(board: UnlimitedDashboard) -> Hashable:
    """What a board gives a car: equal keys, equal races (the layout aside)."""
    dash = unlimited_dashboard(board)
    return (dashboard_key(dash), tuple(sorted(dash.sisu)), tuple(sorted(dash.puncture_proof)))


def search_space(profile: StageProfile) -> list[UnlimitedDashboard]:
    """Every board of the search space for a stage, one per way of playing (docstring).

    In a fixed order: the stage's own order of surfaces first (the most road rightmost),
    richer boards first.
    """
    room = 17 - len(profile.surfaces)
    orders = sorted(
        permutations(profile.surfaces),
        key=lambda o: (o != profile.surfaces, o),
    )
    tyres = (False, True) if profile.shortcuts else (False,)
    seen: set[Hashable] = set()
    out: list[UnlimitedDashboard] = []
    for order in orders:
        for top in TOP_GEARS:
            for brakes in BRAKES:
                for coasts in COASTS:
                    for boosts in BOOSTS:
                        for sisu in (True, False):
                            for tyre in tyres:
                                tokens = [f"gear-{v}" for v in range(1, top + 1)]
                                tokens += ["coast"] * coasts + ["brake"] * brakes
                                tokens += ["boost"] * boosts
                                tokens += ["sisu"] * sisu + ["tyres"] * tyre
                                if len(tokens) > room:
                                    continue
                                board = place_tokens(tokens, order)
                                key = _play_key(board)
                                if key not in seen:
                                    seen.add(key)
                                    out.append(board)
    return out


def schedule(boards: int, top: int, races: int) -> list[tuple[int, int]]:
    """The rounds of the search: (boards racing, races each in all) per round.

    Every board races once; then the better half races twice in all, the better half of
    those four times, ... until ``races`` races each or ``top`` boards; the last boards
    race ``races`` times each, and the best ``top`` of them are the suggestion.

    >>> schedule(20, 3, 16)
    [(20, 1), (10, 2), (5, 4), (3, 16)]
    >>> schedule(331, 3, 16)
    [(331, 1), (166, 2), (83, 4), (42, 8), (21, 16)]
    """
    top = max(1, min(top, boards))
    n, r = boards, 1
    rounds = [(n, r)]
    while n > top and r < races:
        n, r = max(top, math.ceil(n / 2)), min(races, 2 * r)
        rounds.append((n, r))
    if r < races:  # only ``top`` boards left: they race the rest
        rounds[-1] = (n, races)
    return rounds


@dataclass(slots=True)
class BoardScore:
    """How a board did: every driver's best time of each race it raced, losses, attempts."""

    board: UnlimitedDashboard
    races: int = 0
    best: list[int | None] = field(default_factory=list)
    """Each driver's best-of-3 time per race (None: no attempt finished)."""
    losses: int = 0
    attempts: int = 0

    @property
    def finish_rate(self) -> float:
        """Share of drivers (per race) who finished an attempt at least."""
        return sum(t is not None for t in self.best) / len(self.best) if self.best else 0.0

    @property
    def mean_best(self) -> float | None:
        """Mean best-of-3 time of the drivers who finished (seconds)."""
        times = [t for t in self.best if t is not None]
        return sum(times) / len(times) if times else None

    @property
    def loss_rate(self) -> float:
        """Losses of control per attempt driven."""
        return self.losses / self.attempts if self.attempts else 0.0

    def rank_key(self) -> tuple[float, float, float, str, str]:
        """Sort key: finish rate (higher first), mean time, loss rate, then the layout."""
        mean = self.mean_best
        return (
            -self.finish_rate,
            math.inf if mean is None else mean,
            self.loss_rate,
            self.board.short(),
            repr(self.board.layout()),
        )

    def add(self, stats: Sequence[_RaceStats]) -> None:
        """Count more races."""
        for best, losses, attempts in stats:
            self.races += 1
            self.best.extend(best)
            self.losses += losses
            self.attempts += attempts


#: One race of one board: each driver's best time, losses of control, attempts driven.
_RaceStats = tuple[tuple[int | None, ...], int, int]


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The search's result: the best boards, best first, and how it went."""

    boards: list[BoardScore]
    searched: int
    """Boards in the search space (after equal boards were merged)."""
    size: int
    """Boards before merging (:func:`space_size`)."""
    rounds: list[tuple[int, int]]
    """(boards, races each) per round (:func:`schedule`)."""
    bots: tuple[str, ...]
    """The bots of the drivers of every race, driver by driver."""

    def builder_of(self, board: UnlimitedDashboard, profile: StageProfile) -> str | None:
        """The bot whose own build plays like ``board`` (None: none)."""
        key = _play_key(board)
        for bot in BUILDS:
            if _play_key(build_unlimited(profile, bot)) == key:
                return bot
        return None


def _settings(players: int, bots: Sequence[str], max_rounds: int, car: CarFile) -> Settings:
    drivers = tuple(DriverSpec(f"driver {i + 1}", car, bots[i % len(bots)]) for i in range(players))
    return Settings(drivers, hillclimb=True, max_rounds=max_rounds)


def _race_stats(prepared: Prepared, settings: Settings, seed: int) -> _RaceStats:
    result = run_race(prepared, settings, seed)
    best = tuple(d.best for d in result.drivers)
    losses = sum(len(d.losses) for d in result.drivers)
    attempts = sum(len(d.boards) for d in result.drivers)
    return best, losses, attempts


#: One piece of work: a board and the race indices it runs.
_Unit = tuple[UnlimitedDashboard, tuple[int, ...]]
#: What every unit's races share: the stage, drivers, their bots, the round cap, the seed.
_Context = tuple[Prepared, int, tuple[str, ...], int, int]


def _run_units(context: _Context, units: list[_Unit]) -> list[list[_RaceStats]]:
    """The races of each unit: a work function of :mod:`trackkit.parallel`."""
    prepared, players, bots, max_rounds, seed = context
    out = []
    for board, indices in units:
        settings = _settings(players, bots, max_rounds, _car(board))
        out.append([_race_stats(prepared, settings, race_seed(seed, i)) for i in indices])
    return out


_CARS: dict[UnlimitedDashboard, CarFile] = {}


def _car(board: UnlimitedDashboard) -> CarFile:
    """A car file for a board (one object per board: the race's dashboards key by it)."""
    hit = _CARS.get(board)
    if hit is None:
        if len(_CARS) >= 4096:
            _CARS.clear()
        hit = _CARS[board] = car_file(board, "suggested board")
    return hit


def suggest(
    prepared: Prepared,
    *,
    players: int = 4,
    races: int = 16,
    seed: int = 1,
    top: int = 3,
    jobs: int = 1,
    bots: Sequence[str] = DEFAULT_BOTS,
    max_rounds: int = MAX_ROUNDS,
    progress: Callable[[int], None] | None = None,
) -> Suggestion:
    """Search the Unlimited boards of a hillclimb for the best ``top`` (module docstring).

    Parameters
    ----------
    prepared : Prepared
        The stage, raced as a hillclimb (three attempts, best time).
    players : int
        Drivers per race, all with the board under test.
    races : int
        Races each of the last ``top`` boards runs.
    seed : int
        The seed of the races: the same seed, the same ranking (with any ``jobs``).
    top : int
        Boards to suggest.
    jobs : int
        Worker processes.
    bots : sequence of str
        The drivers' bots, in turn (default: cautious, aggressive, planner).
    max_rounds : int
        The round cap of each race (a car still racing then has not finished).
    progress : callable, optional
        Told how many races have been run, as they are.

    Raises
    ------
    ValueError
        For an unknown bot, or fewer than one player, race or board to suggest.
    """
    from trackkit.sim.bots import BOTS

    unknown = [b for b in bots if b not in BOTS]
    if unknown or not bots:
        raise ValueError(f"unknown bot '{unknown[0] if unknown else ''}' (bots: {', '.join(BOTS)})")
    if min(players, races, top, jobs) < 1:
        raise ValueError("players, races, top and jobs are 1 or more")
    profile = stage_profile(prepared.track)
    boards = search_space(profile)
    rounds = schedule(len(boards), top, races)
    scores = [BoardScore(b) for b in boards]
    alive = list(range(len(boards)))
    done = 0
    context: _Context = (prepared, players, tuple(bots), max_rounds, seed)
    with executor(context, jobs=jobs) as ex:
        for n, want in rounds:
            ranked = sorted(alive, key=lambda i: scores[i].rank_key())
            alive = sorted(ranked[:n])
            units = [(scores[i].board, tuple(range(done, want))) for i in alive]
            each = want - done  # races per unit
            told = None if progress is None else _times(progress, each)
            # small chunks: Ctrl-C stops soon
            results = ex.map(_run_units, units, most=16, progress=told)
            for i, stats in zip(alive, results, strict=True):
                scores[i].add(stats)
            done = want
    best = sorted((scores[i] for i in alive), key=BoardScore.rank_key)[:top]
    seats = tuple(bots[i % len(bots)] for i in range(players))
    return Suggestion(best, len(boards), space_size(profile), rounds, seats)


def _times(progress: Callable[[int], None], each: int) -> Callable[[int], None]:
    """``progress`` told the races of the units done (``each`` a unit)."""
    return lambda n: progress(n * each)
