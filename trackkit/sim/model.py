"""What a race is made of: its drivers and settings, where it starts, and what it gives.

The race data types of both series, in one module that the race loop
(:mod:`trackkit.sim.race`), the series (:mod:`trackkit.sim.rally`, :mod:`trackkit.sim.gt_race`),
statistics and replays import alike: a :class:`Settings` of :class:`DriverSpec` s (and, for
Rallyman: GT, :class:`GtOptions`), a stage made ready (:class:`Prepared`), a start
(:class:`RacePosition`), and the result: a :class:`RaceResult` of :class:`DriverResult` s
and :class:`TurnLog` s (and, GT, a :class:`GtRace` with its :class:`Overtake` s and
:class:`PitStop` s). Data only: the rules that fill them live in the race loop.

Examples
--------
>>> settings = Settings.default(3, bots=("cautious", "planner"))
>>> [(d.name, d.bot_label) for d in settings.drivers]
[('driver 1', 'cautious'), ('driver 2', 'planner'), ('driver 3', 'cautious')]
>>> Settings.default(2, gt=GtOptions(laps=2)).drivers[0].car
'gt6'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from trackkit.models.car import CarFile
from trackkit.rules.dashboard import UnlimitedDashboard
from trackkit.rules.plans import PlanStep
from trackkit.rules.resolve import Event
from trackkit.rules.ruleset import Ruleset, load_ruleset
from trackkit.rules.state import CarState, GtCar
from trackkit.rules.table import Table
from trackkit.rules.track import Track
from trackkit.sim.memo import PlanMemo
from trackkit.sim.script import Script, Scripted
from trackkit.sim.stuck import StuckSpot

__all__ = [
    "HILLCLIMB_BOTS",
    "MAX_ROUNDS",
    "RALLY_BOTS",
    "UNLIMITED",
    "Dnf",
    "DriverResult",
    "DriverSpec",
    "GtOptions",
    "GtRace",
    "Overtake",
    "PitStop",
    "Prepared",
    "RacePosition",
    "RaceResult",
    "Settings",
    "TurnLog",
    "Weather",
    "default_bots",
]


#: The car id of a bot-built Unlimited dashboard (the default for hillclimbs, DASH-3).
UNLIMITED = "unlimited"


@dataclass(frozen=True, slots=True)
class DriverSpec:
    """A driver: a car and a driving style (bot).

    ``car`` is a printed car of the ruleset (``dirt``, ``r5``), :data:`UNLIMITED` (the bot
    builds an Unlimited dashboard for the stage and may rebuild it between attempts,
    :mod:`trackkit.sim.garage`), or a car file (:class:`~trackkit.models.car.CarFile`).
    ``bot`` is a bot's name (:data:`~trackkit.sim.bots.BOTS`) or a
    :class:`~trackkit.sim.script.Script` of plans to play. A scripted driver of an
    Unlimited car builds the board of the script's ``then`` bot (default: cautious).
    """

    name: str
    car: str | CarFile = "dirt"
    bot: str | Script = "cautious"

    @property
    def car_label(self) -> str:
        """How reports name the car: its id, or the car file's name."""
        return self.car if isinstance(self.car, str) else self.car.name

    @property
    def bot_label(self) -> str:
        """How reports name the bot: its name, or ``scripted``."""
        return self.bot if isinstance(self.bot, str) else Scripted.name

    @property
    def builder(self) -> str:
        """The bot whose build an Unlimited car gets (:mod:`trackkit.sim.garage`)."""
        if isinstance(self.bot, str):
            return self.bot
        return self.bot.then or "cautious"


#: Rounds a race lasts at most (``simulate --max-rounds``): cars still racing then are DNF.
MAX_ROUNDS = 200

#: The bots of a hillclimb's drivers when none are given (``simulate``, ``validate
#: --simulate``): the three in turn. A cautious bot alone builds an Unlimited board with
#: danger limit 5 and secures its dice: it never loses control and drives the same time
#: every race, which says nothing about the stage.
HILLCLIMB_BOTS = ("cautious", "aggressive", "planner")

#: The bots of a rally's (and a GT race's) drivers when none are given: cautious ones,
#: whose races vary with the dice and the traffic.
RALLY_BOTS = ("cautious",)


def default_bots(*, hillclimb: bool) -> tuple[str, ...]:
    """The bots drivers cycle through when none are given (:data:`HILLCLIMB_BOTS` for a
    hillclimb, :data:`RALLY_BOTS` otherwise).

    >>> default_bots(hillclimb=True), default_bots(hillclimb=False)
    (('cautious', 'aggressive', 'planner'), ('cautious',))
    """
    return HILLCLIMB_BOTS if hillclimb else RALLY_BOTS


@dataclass(frozen=True, slots=True)
class Settings:
    """How races are run.

    ``max_rounds`` is the round cap: a car that has not finished when it is reached is out
    of the race, DNF "round cap" (a car that can never finish is out at once, "stuck").
    ``gt`` makes it a Rallyman: GT race (:class:`GtOptions`: laps, weather, grid), raced
    by the GT series of the race loop (:mod:`trackkit.sim.gt_race`).
    """

    drivers: tuple[DriverSpec, ...]
    hillclimb: bool = False
    attempts: int = 3
    max_rounds: int = MAX_ROUNDS
    short_game: bool = True
    gt: GtOptions | None = None

    @classmethod
    def default(
        cls,
        players: int = 4,
        *,
        cars: tuple[str | CarFile, ...] | None = None,
        bots: tuple[str | Script, ...] = ("cautious",),
        hillclimb: bool = False,
        max_rounds: int = MAX_ROUNDS,
        gt: GtOptions | None = None,
    ) -> Settings:
        """``players`` drivers cycling through the given cars and bots.

        Without ``cars``, a hillclimb is driven with Unlimited dashboards the bots build
        (:data:`UNLIMITED`, DASH-3), a rally with the DIRT default car, and a GT race
        (``gt``) with the GT ruleset's car (``gt.car``, DASH-2).
        """
        if not cars:
            if gt is not None:
                rules = load_ruleset("gt").gt
                assert rules is not None
                cars = (rules.car,)
            else:
                cars = (UNLIMITED,) if hillclimb else ("dirt",)
        drivers = tuple(
            DriverSpec(f"driver {i + 1}", cars[i % len(cars)], bots[i % len(bots)])
            for i in range(players)
        )
        return cls(drivers, hillclimb=hillclimb, max_rounds=max_rounds, gt=gt)


class Dnf(StrEnum):
    """Why a driver's race ended before it made all its attempts (did not finish)."""

    STUCK = "stuck"
    """No legal move could ever get the car past its spot (:mod:`trackkit.sim.stuck`)."""
    ROUND_CAP = "round cap"
    """Still racing when the race reached ``Settings.max_rounds``."""


@dataclass(frozen=True, slots=True)
class RacePosition:
    """Where a race starts from: each driver's car, the mud drawn, the rounds played.

    ``cars[i]`` is driver ``i``'s car (:class:`~trackkit.rules.state.CarState`: space,
    gear, damage, second tokens, SISU token, time cards and time), None or left out for
    a driver still behind the start line, who joins by the staggered start (TURN-1) in
    the rounds after ``round`` (GT: who starts on its grid slot). ``mud`` lists mud
    tokens already drawn at shortcuts, (tile number, the driver who drew it; -1: nobody,
    every car slows), on top of those of ``table`` (SHORTCUT-2); ``table`` gives the
    decks and the damage bag (None: fresh ones, shuffled by the race's generator). A
    hillclimb starts in every driver's first attempt. ``car_id`` is set to the driver's
    number. Both series check a position alike before the race
    (:func:`~trackkit.rules.positions.check_position`).

    A Rallyman: GT race also takes ``gt[i]``, driver ``i``'s
    :class:`~trackkit.rules.state.GtCar`: in gear 00 or in the pit (its car off the road,
    ``on_track`` False, in gear 0: LOC-6, GT-2), its tyres (GT-3), its yellow flag out
    (GT-4); the weather is the race's (:class:`GtOptions` ``weather``).
    A car's ``crossings`` count its crossings of the start/finish line: 1 on lap 1.

    Examples
    --------
    >>> from trackkit.rules.state import CarState, Damage
    >>> start = RacePosition((CarState(0, "2:1.1L", 3, damage=Damage(brake=1)), None), round=4)
    >>> start.cars[0].space, start.round
    ('2:1.1L', 4)

    A GT race in the rain from round 6: driver 1 off the road in gear 00 with its yellow
    flag out, driver 2 still on dry tyres (the danger limit 2, not 3: GT-3), driver 3
    behind them. The flag holds every car (TRAFFIC-5) until driver 1 moves again (GT-4).

    >>> from trackkit.rules.positions import GT_RING, track_of
    >>> from trackkit.rules.state import GtCar
    >>> from trackkit.sim.race import prepare, run_race
    >>> start = RacePosition(
    ...     (CarState(0, "4:A2a", 0, on_track=False, crossings=1),
    ...      CarState(1, "3:A2b", 3, crossings=1),
    ...      CarState(2, "2:A2a", 2, crossings=1)),
    ...     round=6,
    ...     gt=(GtCar(off="00", yellow=True), GtCar(tyres="dry"), None))
    >>> result = run_race(prepare(track_of(GT_RING)),
    ...                   Settings.default(3, gt=GtOptions(laps=1, weather="rain")),
    ...                   seed=2, start=start)
    >>> [(t.round, t.driver, t.flags) for t in result.log[:6]]
    [(7, 1, (0,)), (7, 2, (0,)), (7, 0, (0,)), (8, 2, (0,)), (8, 1, (0,)), (8, 0, ())]
    >>> {s.limit for s in result.log[0].steps}, result.log[2].plan
    ({2}, '(gear 00: back on the road in gear 0)')
    """

    cars: tuple[CarState | None, ...] = ()
    round: int = 0
    mud: tuple[tuple[int, int], ...] = ()
    table: Table | None = None
    gt: tuple[GtCar | None, ...] = ()


@dataclass(frozen=True, slots=True)
class Prepared:
    """A stage ready to race: the rules track, ruleset and start spaces."""

    track: Track
    ruleset: Ruleset
    start: tuple[str, ...]
    inner: frozenset[str] = frozenset()
    """Spaces on the inner lane of the corner they are in, or of the next one (TURN-2)."""
    memo: PlanMemo | None = None
    """Bots' plans by position, shared by the races on this stage (None: always search)."""


@dataclass(slots=True)
class TurnLog:
    """One turn of the race log (for replay files).

    ``start`` and ``gear`` say where the car stood and in which gear before it moved (a
    car entering the stage: the grid space it entered on, gear 0; None: it never got on
    the track); ``steps`` are its plan as data, each step's space and dice
    (:class:`~trackkit.rules.plans.PlanStep`); ``plan`` writes them as text. ``flags``
    (GT) are the drivers whose yellow flag was out during the turn, its own taken down
    at its move first (GT-4): while there are any, no car overtakes (TRAFFIC-5).
    """

    round: int
    driver: int
    attempt: int
    plan: str
    mode: str
    events: list[Event]
    start: str | None = None
    gear: int = 0
    steps: tuple[PlanStep, ...] = ()
    flags: tuple[int, ...] = ()


@dataclass(slots=True)
class DriverResult:
    """What one driver did in a race."""

    name: str
    car: str
    bot: str
    times: list[int] = field(default_factory=list)
    finished: bool = False
    losses: list[tuple[int, str]] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    turns: int = 0
    stuck_at: str | None = None
    """Where the car stood when its race ended early ("start": not on the stage)."""
    out: Dnf | None = None
    """Why its race ended early (None: it made every attempt)."""
    stuck: StuckSpot | None = None
    """Where and why it got stuck (``out`` is :attr:`Dnf.STUCK`)."""
    boards: list[UnlimitedDashboard | None] = field(default_factory=list)
    """The Unlimited board of each attempt it started (None: a printed or fixed car)."""
    sisu_spent: bool = False
    """Whether its SISU token has been flipped in the rally so far (LOC-7)."""

    @property
    def best(self) -> int | None:
        """Best single time (rally: the stage time; hillclimb: best of the attempts)."""
        return min(self.times) if self.times else None


@dataclass(slots=True)
class RaceResult:
    """A whole race: per-driver results, rounds played, and the turn log (and for a GT
    race, its places, laps led, overtakes, pit stops and weather: ``gt``)."""

    drivers: list[DriverResult]
    rounds: int
    log: list[TurnLog]
    gt: GtRace | None = None


Weather = Literal["dry", "rain"]


@dataclass(frozen=True, slots=True)
class GtOptions:
    """How a GT race is run.

    ``laps`` None: the track's own (its file's ``laps``, else the ruleset's). ``weather``
    None: the ruleset's (GT-3). ``grid``: ``drawn`` (the seed draws who starts where) or
    ``given`` (driver 1 on pole, then in order). ``pit_stops`` and ``flying_start`` None:
    as the ruleset says (GT-2, GT-1).
    """

    laps: int | None = None
    weather: Weather | None = None
    grid: Literal["drawn", "given"] = "drawn"
    pit_stops: bool | None = None
    flying_start: bool | None = None


@dataclass(frozen=True, slots=True)
class Overtake:
    """One car getting past another on the road in its turn."""

    round: int
    driver: int
    passed: int
    tile: int
    space: str
    lap: int


@dataclass(frozen=True, slots=True)
class PitStop:
    """A pit stop (GT-2): where, and whether the car was repaired, given tyres, or both."""

    round: int
    driver: int
    space: str
    repair: bool
    tyres: bool


@dataclass(slots=True)
class GtRace:
    """What a GT race adds to a :class:`RaceResult`."""

    laps: int | None
    """The laps of the race (None: a point-to-point track, raced once from the grid to
    the finish, has no laps)."""
    grid: list[int]
    """The driver on each grid slot, pole first."""
    order: list[int] = field(default_factory=list)
    """The finishing order (drivers that did not finish are not in it)."""
    finish_round: list[int | None] = field(default_factory=list)
    """Per driver, the round it crossed the line after its last lap."""
    laps_led: list[int] = field(default_factory=list)
    """Per driver, the laps it was first to complete."""
    lap_leaders: list[int] = field(default_factory=list)
    """The driver first over the line at the end of each lap, lap 1 first."""
    overtakes: list[Overtake] = field(default_factory=list)
    pit_stops: list[PitStop] = field(default_factory=list)
    weather: list[tuple[int, int, str]] = field(default_factory=list)
    """Weather changes: (round, the driver whose damage token it was, the new weather)."""
    yellow_flags: int = 0
    gear_00: list[int] = field(default_factory=list)
    """Per driver, losses of control that sent it off the road (gear 00, LOC-6)."""
    start_weather: str = "dry"
    laps_driven: int = 0
    """The laps the leader began, the last perhaps unfinished (a race stopped at the round
    cap); all of them in a race that was won; 0 on a point-to-point track."""

    @property
    def winner(self) -> int | None:
        """The first driver over the line after the last lap (None: nobody finished)."""
        return self.order[0] if self.order else None

    @property
    def decided_on_lap_1(self) -> bool | None:
        """Whether the car that led lap 1 went on to win (None: the question does not
        arise, with no winner, one lap or none, or one car)."""
        if self.winner is None or not self.laps or self.laps < 2 or len(self.grid) < 2:
            return None
        return bool(self.lap_leaders) and self.winner == self.lap_leaders[0]

    def gaps(self) -> list[int | None]:
        """Per driver, the rounds it finished after the winner (None: it did not finish)."""
        if self.winner is None:
            return [None] * len(self.finish_round)
        first = self.finish_round[self.winner]
        assert first is not None
        return [None if r is None else r - first for r in self.finish_round]
