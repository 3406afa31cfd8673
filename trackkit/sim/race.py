"""The race loop: rounds, play order, staggered start, hillclimb attempts (TURN-1, TURN-2,
HILLCLIMB-2..5).

A race is (stage, settings, seed): :func:`run_race` replays exactly from the same three.
A race may also start from a given position (:class:`RacePosition`: the cars, their gears,
damage and tokens, the mud drawn, the round), roll fixed dice (``dice``,
:class:`~trackkit.rules.dice.ScriptedDice`) and seat scripted drivers
(:class:`~trackkit.sim.script.Script`).

Examples
--------
>>> from trackkit.sim.race import Settings, run_race, prepare
>>> from trackkit.rules.positions import track_of
>>> track = track_of(["202a", "205a", "206a", "204a", "203a"])
>>> result = run_race(prepare(track), Settings.default(players=2), seed=1)
>>> [d.finished for d in result.drivers]
[True, True]
>>> turn = result.log[0]
>>> turn.round, turn.driver, turn.start, turn.gear
(1, 0, '1:1.1L', 0)
>>> [(s.space, s.dice_label) for s in turn.steps][:3]
[('1:1.2L', 'G1'), ('1:1.3L', 'G2'), ('2:1.1L', 'G3')]
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from trackkit.models.car import CarFile
from trackkit.rules.blame import loss_space
from trackkit.rules.cars import car_dashboard
from trackkit.rules.dashboard import Dashboard, UnlimitedDashboard, dashboard
from trackkit.rules.dice import Dice
from trackkit.rules.order import inner_lanes, play_order
from trackkit.rules.plans import PlanContext, PlanStep
from trackkit.rules.positions import check_position, driver_label
from trackkit.rules.resolve import Event, resolve, stage_time
from trackkit.rules.ruleset import Ruleset, load_ruleset
from trackkit.rules.state import CarState, GtCar, OtherCar
from trackkit.rules.table import Table, new_table
from trackkit.rules.track import Track
from trackkit.sim.bots import MAX_STEPS, Bot, make_bot
from trackkit.sim.garage import (
    build_unlimited,
    next_level,
    stage_profile,
    surface_order,
    unlimited_dashboard,
)
from trackkit.sim.memo import PlanMemo
from trackkit.sim.script import Script, Scripted, ScriptError
from trackkit.sim.stuck import StuckSpot, reach_of, stuck_spot

if TYPE_CHECKING:
    from trackkit.sim.gt import GtOptions, GtRace

__all__ = [
    "HILLCLIMB_BOTS",
    "RALLY_BOTS",
    "UNLIMITED",
    "Dnf",
    "DriverResult",
    "DriverSpec",
    "Prepared",
    "RacePosition",
    "RaceResult",
    "Settings",
    "TurnLog",
    "default_bots",
    "prepare",
    "run_race",
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
    ``gt`` makes it a Rallyman: GT race (:class:`~trackkit.sim.gt.GtOptions`: laps,
    weather, grid), raced by :func:`~trackkit.sim.gt.run_gt_race`.
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


#: The token each kind of crash damage is when it goes back in the bag (DAMAGE-1).
DAMAGE_TOKENS = {"gear": ("gear", "ok"), "brake": ("brake", "ok"), "coast": ("coast", "coast")}


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
    (GT-4); the weather is the race's (:class:`~trackkit.sim.gt.GtOptions` ``weather``).
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
    >>> from trackkit.sim.gt import GtOptions
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


def prepare(track: Track, ruleset: Ruleset | None = None) -> Prepared:
    """Get a track ready for races (start grid rearmost first).

    Without ``ruleset``, a GT track (:attr:`Track.gt`) is raced by the GT ruleset and any
    other stage by the DIRT one.
    """
    start = tuple(sorted(track.start, key=lambda n: (track.spaces[n].progress, n)))
    rules = ruleset or load_ruleset("gt" if track.gt else "dirt")
    return Prepared(
        track, rules, start, inner_lanes(track), PlanMemo(track, rules, moves=MAX_STEPS)
    )


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


@dataclass(slots=True)
class _Seat:
    spec: DriverSpec
    bot: Bot | Scripted
    board: Dashboard
    car: CarState
    started: bool = False
    attempt: int = 0
    done: bool = False
    waiting_since: int | None = None
    stayed: bool = False
    """Its last turn was on the track and it did not move (blocked, or no plan)."""
    level: int = 0
    """Tokens more (or fewer) than its bot's own build (:func:`~trackkit.sim.garage.next_level`)."""
    surfaces: tuple[str, ...] = ()
    """The track-type tokens of its Unlimited board, best first (drawn once per race)."""
    sisu_spent: bool = False
    """Its SISU token was flipped earlier in the rally (LOC-7)."""
    losses_before: int = 0
    """Losses of control before this attempt (the rebuild reads the attempt's own)."""


_FILE_BOARDS: dict[int, tuple[CarFile, Dashboard]] = {}


def _file_board(car: CarFile) -> Dashboard:
    """A car file's dashboard, made once per car (plan memos and stuck checks key by it)."""
    hit = _FILE_BOARDS.get(id(car))
    if hit is None or hit[0] is not car:
        if len(_FILE_BOARDS) >= 64:
            _FILE_BOARDS.clear()
        hit = _FILE_BOARDS[id(car)] = (car, car_dashboard(car))
    return hit[1]


def _board_for(prepared: Prepared, seat: _Seat) -> Dashboard:
    """The dashboard ``seat`` drives its next attempt with (DASH-1, DASH-3, HILLCLIMB-3)."""
    car = seat.spec.car
    if isinstance(car, CarFile):
        return _file_board(car)
    if car != UNLIMITED:
        return dashboard(car, prepared.ruleset)
    profile = stage_profile(prepared.track)
    board = build_unlimited(
        profile,
        seat.spec.builder,
        level=seat.level,
        sisu=not (seat.sisu_spent and prepared.ruleset.sisu_once_per == "rally"),
        surfaces=seat.surfaces,
    )
    return unlimited_dashboard(board)


def _new_attempt(prepared: Prepared, seat: _Seat, i: int) -> CarState:
    """A car at the start, its SISU token face up if it has one and may use it (LOC-7)."""
    spent = seat.sisu_spent and prepared.ruleset.sisu_once_per == "rally"
    # rule: LOC-7 (once per rally, or given back at each stage: a hillclimb attempt is a
    # run of the stage); the token is the dashboard's: a car without one has none
    return CarState(car_id=i, space=None, sisu_token=bool(seat.board.sisu) and not spent)


def _occupied(seats: list[_Seat], me: int) -> set[str]:
    return {
        s.car.space
        for i, s in enumerate(seats)
        if i != me and s.car.space and s.car.on_track and not s.car.finished
    }


def _free(prepared: Prepared, space: str, taken: set[str]) -> bool:
    if space in taken:
        return False
    return not (prepared.track.overlaps.get(space, frozenset()) & taken)


def _play_order(prepared: Prepared, seats: list[_Seat], on_stage: list[int]) -> list[int]:
    """TURN-2: the seats on the stage in play order (:func:`~trackkit.rules.order.play_order`)."""
    cars = [seats[i].car for i in on_stage]  # a seat's car id is its number
    return [car.car_id for car in play_order(cars, prepared.track, prepared.ruleset)]


#: A seat's dashboard before it is built (replaced at once).
_PENDING = Dashboard("pending", {})

#: Called after every turn with (round, driver, every car's state): tests check invariants.
Observer = Callable[[int, int, tuple[CarState, ...]], None]


def run_race(
    prepared: Prepared,
    settings: Settings,
    seed: int,
    *,
    observe: Observer | None = None,
    sisu_spent: Sequence[bool] = (),
    start: RacePosition | None = None,
    dice: Dice | None = None,
) -> RaceResult:
    """Race ``settings.drivers`` on the stage; the same seed gives the same race.

    Parameters
    ----------
    prepared : Prepared
        The stage (:func:`prepare`).
    settings : Settings
        The drivers (cars and bots, scripted ones too) and how the race is run.
    seed : int
        Seeds the race's one generator: decks, damage bag, dice, tied surface orders.
    observe : callable, optional
        Called after every turn with (round, driver, every car's state).
    sisu_spent : sequence of bool
        Per driver, whether its SISU token was flipped on an earlier stage of the rally:
        with ``sisu_once_per: rally`` it stays flipped (LOC-7).
    start : RacePosition, optional
        The position the race starts from (default: every car behind the start line,
        round 0, fresh decks and bag).
    dice : Dice, optional
        Where the dice rolls come from (default: the race's generator, as
        :class:`~trackkit.rules.dice.SeededDice` rolls them).

    Returns
    -------
    RaceResult
        Each driver's times, losses of control and blocked turns, and the turn log.

    Raises
    ------
    ValueError
        If ``start`` does not fit the stage or the drivers (the message names the driver
        and the space), or a driver's car or bot is unknown.
    ScriptError
        If a scripted driver's plan is not legal when its turn comes, naming the driver,
        the round, the turn and the step; or its script is played out.
    DiceScriptError
        If scripted ``dice`` run out or were written for other dice.

    Examples
    --------
    Two cars placed mid-stage in round 6, the first with a brake die lost, the second
    scripted for one turn, then driven by the planner:

    >>> from trackkit.rules.positions import track_of
    >>> from trackkit.rules.state import CarState, Damage
    >>> from trackkit.sim.script import Script
    >>> stage = prepare(track_of(["202a", "205a", "206a", "204a", "203a"]))
    >>> settings = Settings((DriverSpec("Ann"), DriverSpec(
    ...     "Bob", bot=Script.of(["2:1.3R G4 > 3:1.1R G5"], then="planner"))))
    >>> start = RacePosition(
    ...     (CarState(0, "2:1.3L", 3, damage=Damage(brake=1)), CarState(1, "2:1.2R", 3)),
    ...     round=6)
    >>> result = run_race(stage, settings, seed=3, start=start)
    >>> first = [t for t in result.log if t.driver == 1][0]
    >>> first.round, first.start, first.plan
    (7, '2:1.2R', '2:1.3R G4 > 3:1.1R G5')
    >>> [d.finished for d in result.drivers]
    [True, True]
    """
    if settings.gt is not None or prepared.ruleset.gt is not None:
        from trackkit.sim.gt import GtOptions, run_gt_race

        if settings.gt is None:
            settings = replace(settings, gt=GtOptions())
        return run_gt_race(prepared, settings, seed, observe=observe, start=start, dice=dice)
    rng = random.Random(seed)
    rules, track = prepared.ruleset, prepared.track
    reach = reach_of(track)
    table: Table = (
        start.table if start is not None and start.table is not None else new_table(rules, rng)
    )
    if start is not None and start.mud:
        table = replace(table, mud=(*table.mud, *start.mud))
    seats = []
    results = []
    for i, d in enumerate(settings.drivers):
        seat = _Seat(d, _make_bot(d, prepared.memo), _PENDING, CarState(car_id=i, space=None))
        seat.sisu_spent = bool(sisu_spent[i]) if i < len(sisu_spent) else False
        if d.car == UNLIMITED:  # rule: DASH-3 (built for the stage before the first turn)
            seat.surfaces = surface_order(stage_profile(track), rng)
        seat.board = _board_for(prepared, seat)
        seat.car = _new_attempt(prepared, seat, i)
        seats.append(seat)
        result = DriverResult(d.name, d.car_label, d.bot_label, sisu_spent=seat.sisu_spent)
        result.boards.append(seat.board.unlimited)
        results.append(result)
    rnd = 0
    if start is not None:
        _place(prepared, seats, start)
        rnd = start.round
    log: list[TurnLog] = []
    finish_order: list[int] = []
    while rnd < settings.max_rounds and not all(s.done for s in seats):
        rnd += 1
        on_stage = [
            i
            for i, s in enumerate(seats)
            if s.started and not s.done and s.car.space is not None and not s.car.finished
        ]
        order = _play_order(prepared, seats, on_stage)
        # rule: TURN-1 (staggered start: one more driver enters each round)
        # (a driver who found the start grid full tries again the next round)
        order += [
            i for i in range(min(rnd, len(seats))) if not seats[i].started and not seats[i].done
        ]
        # rule: HILLCLIMB-4 (one re-entry per round, last, first finisher first)
        waiting = [
            i
            for i in finish_order
            if (since := seats[i].waiting_since) is not None and since < rnd and not seats[i].done
        ]
        everyone_started = all(s.started or s.done for s in seats)
        if waiting and (everyone_started or not settings.short_game):
            order.append(waiting[0])  # it stops waiting once its car is on the stage
        led = False  # rule: MOVE-3 (the first in play order leads)
        for i in order:
            mud = table.mud_for(i)
            seat = seats[i]
            # (with no mud for it and a stage open everywhere, only a car that stayed can be)
            spot = (
                stuck_spot(track, seat.board, rules, seat.car, mud, stayed=seat.stayed)
                if mud or seat.stayed or not reach.open
                else None
            )
            if spot is not None:  # its race is over now, not at the round cap
                _retire(seat, results[i], spot)
                log.append(
                    TurnLog(
                        rnd,
                        i,
                        seat.attempt,
                        "(stuck)",
                        "dnf",
                        [_stuck_event(spot)],
                        seat.car.space,
                        seat.car.gear,
                    )
                )
                continue
            table = _turn(
                prepared,
                seats,
                i,
                rnd,
                rng,
                table,
                results,
                log,
                leader=not led,
                mud=mud,
                dice=dice,
            )
            led = True
            if observe is not None:
                observe(rnd, i, tuple(s.car for s in seats))
            if seat.car.finished:
                results[i].times.append(stage_time(seat.car))
                results[i].finished = True
                seat.attempt += 1
                if settings.hillclimb and seat.attempt < settings.attempts:
                    # rule: HILLCLIMB-3 (second tokens to the reserve, damage to the bag)
                    for kind, token in DAMAGE_TOKENS.items():
                        for _ in range(getattr(seat.car.damage, kind)):
                            table = table.put_back(token)
                    # rule: SHORTCUT-2 DEFAULT, HILLCLIMB-5 (the mud stays on the track, and
                    # its drawer's exemption ends with the attempt)
                    table = replace(
                        table, mud=tuple((t, -1 if d == i else d) for t, d in table.mud)
                    )
                    if seat.spec.car == UNLIMITED:  # rule: HILLCLIMB-3 (may rebuild it)
                        losses = len(results[i].losses) - seat.losses_before
                        seat.level = next_level(seat.level, losses)
                        seat.board = _board_for(prepared, seat)
                    seat.losses_before = len(results[i].losses)
                    results[i].boards.append(seat.board.unlimited)
                    seat.car = _new_attempt(prepared, seat, i)
                    seat.waiting_since = rnd
                    if i in finish_order:
                        finish_order.remove(i)
                    finish_order.append(i)
                else:
                    seat.done = True
    for i, seat in enumerate(seats):
        if not seat.done:
            results[i].stuck_at = seat.car.space or "start"
            results[i].out = Dnf.ROUND_CAP
    return RaceResult(results, rnd, log)


def _make_bot(driver: DriverSpec, memo: PlanMemo | None) -> Bot | Scripted:
    if isinstance(driver.bot, Script):
        return Scripted(driver.bot, memo)
    return make_bot(driver.bot, memo)


def _place(prepared: Prepared, seats: list[_Seat], start: RacePosition) -> None:
    """Put the cars of ``start`` on the stage, once :func:`check_position` allows them.

    Raises
    ------
    PositionError
        For what the rules do not allow (:func:`~trackkit.rules.positions.check_position`:
        more cars than drivers, a space the stage lacks, a finished car, a gear outside
        0..6, a negative count, two cars on one space or on spaces that overlap, a SISU
        token face up on a dashboard without one, ...), naming the driver and the space.
    """
    check_position(
        prepared.track,
        prepared.ruleset,
        start.cars,
        who=[driver_label(i, s.spec.name) for i, s in enumerate(seats)],
        boards=[s.board for s in seats],
        gt=start.gt,
        mud=start.mud,
        rounds_played=start.round,
    )
    for i, car in enumerate(start.cars):
        if car is None:
            continue
        seats[i].car = replace(car, car_id=i)
        seats[i].started = car.space is not None


def _retire(seat: _Seat, result: DriverResult, spot: StuckSpot) -> None:
    """A stuck car is out of the race: off the track, it blocks no one (TRAFFIC-4)."""
    seat.done = True
    seat.car = replace(seat.car, on_track=False)
    result.out = Dnf.STUCK
    result.stuck = spot
    result.stuck_at = spot.space


def _stuck_event(spot: StuckSpot) -> Event:
    return Event("stuck", None if spot.space == "start" else spot.space, note=spot.cause)


def _turn(
    prepared: Prepared,
    seats: list[_Seat],
    i: int,
    rnd: int,
    rng: random.Random,
    table: Table,
    results: list[DriverResult],
    log: list[TurnLog],
    *,
    leader: bool,
    mud: dict[int, int],
    dice: Dice | None,
) -> Table:
    seat = seats[i]
    track = prepared.track
    taken = _occupied(seats, i)
    car = seat.car
    if car.space is None:  # entering the stage behind the start line (BOARD-3)
        free = [s for s in prepared.start if _free(prepared, s, taken)]
        if not free:
            results[i].blocked.append("start")
            return table
        car = replace(car, space=free[0], gear=0, on_track=True, finished=False)
        seat.started = True
        seat.waiting_since = None
    elif not car.on_track:
        back = _back_on(prepared, car.space, taken)
        if back is None:  # nowhere free behind: it waits off the track (LOC-4)
            results[i].blocked.append(car.space or "start")
            return table
        car = replace(car, space=back, on_track=True)
    others = tuple(
        OtherCar(s.car.space, s.car.gear, s.car.on_track)
        for j, s in enumerate(seats)
        if j != i and s.car.space and not s.car.finished
    )
    ctx = PlanContext(track, seat.board, prepared.ruleset, car, others, leader=leader, mud=mud)
    try:
        choice = seat.bot.choose(ctx, rng)
    except ScriptError as exc:  # the driver and the round, for whoever wrote the script
        raise ScriptError(f"{seat.spec.name} (driver {i + 1}), round {rnd}: {exc}") from None
    outcome = resolve(
        ctx, choice.plan, choice.mode, rng, table=table, policy=choice.policy, dice=dice
    )
    seat.car = outcome.car
    res = results[i]
    if car.sisu_token and not outcome.car.sisu_token:  # rule: LOC-7 (flipped for good)
        seat.sisu_spent = res.sisu_spent = True
    res.turns += 1
    seat.stayed = not choice.plan.steps
    if not choice.plan.steps:
        res.blocked.append(car.space or "start")
    if outcome.lost_control:  # charged where the limit broke, not where the car stopped
        where = loss_space(prepared.ruleset, choice.plan, choice.mode, outcome.events) or (
            outcome.car.space or ""
        )
        res.losses.append((track.spaces[where].tile if where in track.spaces else 0, where))
    log.append(
        TurnLog(
            rnd,
            i,
            seat.attempt,
            str(choice.plan),
            choice.mode.value,
            outcome.events,
            car.space,
            car.gear,
            choice.plan.steps,
        )
    )
    return outcome.table


def _back_on(prepared: Prepared, space: str | None, taken: set[str]) -> str | None:
    """LOC-4 DEFAULT: back where control was lost, or the nearest free space behind it.

    Any space of the road counts (lane, full width, corner, chicane, slide), not a
    shortcut; None when every space behind is taken.
    """
    if space is None or _free(prepared, space, taken):
        return space
    spaces = prepared.track.spaces
    here = spaces[space].progress
    behind = sorted(
        (s for s, info in spaces.items() if info.progress < here and info.kind != "shortcut"),
        key=lambda s: (-spaces[s].progress, s),
    )
    for s in behind:
        if _free(prepared, s, taken):
            return s
    return None
