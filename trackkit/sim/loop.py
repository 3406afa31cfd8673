"""The one race loop of both series: rounds, play order, turns (TURN-1..7).

:class:`RaceLoop` plays a race the same way for Rallyman: DIRT and Rallyman: GT: the
drivers take their seats, the start position (if any) is checked
(:func:`~trackkit.rules.positions.check_position`) and set, then round after round the
cars play in play order (TURN-2): a car that cannot move this turn sits it out, the others
plan (their bot or script), roll (:func:`~trackkit.rules.resolve.resolve`) and record
their losses of control and blocked turns, until every driver is done or the round cap
(cars still racing then are DNF). A series overrides a few hooks where its rules differ,
as a chess variant overrides a few methods of one board:

- :meth:`RaceLoop.seat_drivers` and :meth:`RaceLoop.start_cars` (the start: DIRT behind
  the line, GT on the grid), :meth:`RaceLoop.order` (who plays this round: DIRT adds the
  staggered start and hillclimb re-entries);
- :meth:`RaceLoop.sit_out` (a car that does not move: DIRT stuck for good; GT in gear 00
  or the pit), :meth:`RaceLoop.context` (where it moves from and what it knows: DIRT
  entering the stage or back on after a crash, mud and the lead; GT its tyres, flags and
  the last lap), :meth:`RaceLoop.after_move` (GT: weather, yellow flags, pit stops,
  overtakes, laps led) and :meth:`RaceLoop.end_turn` (DIRT: the end of an attempt);
- :meth:`RaceLoop.finish` (the result).

The series are :class:`~trackkit.sim.rally.RallyLoop` and :class:`~trackkit.sim.gt_race.GtLoop`;
:func:`~trackkit.sim.race.run_race` picks one.

Examples
--------
A rally's first rounds: one more car enters each round (TURN-1), then they play in order.

>>> from trackkit.rules.positions import track_of
>>> from trackkit.sim.race import Settings, prepare
>>> from trackkit.sim.rally import RallyLoop
>>> race = RallyLoop(prepare(track_of(["202a", "205a", "206a", "204a", "203a"])),
...                  Settings.default(2), seed=1)
>>> race.order(1), race.order(2)
([0], [0, 1])
>>> [(turn.round, turn.driver) for turn in race.run().log[:4]]
[(1, 0), (2, 0), (2, 1), (3, 0)]
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar, Generic, TypeVar

from trackkit.rules.blame import loss_space
from trackkit.rules.dashboard import Dashboard
from trackkit.rules.dice import Dice
from trackkit.rules.order import play_order
from trackkit.rules.plans import PlanContext
from trackkit.rules.positions import check_position, driver_label
from trackkit.rules.resolve import Event, Outcome, resolve
from trackkit.rules.state import CarState, OtherCar
from trackkit.rules.table import new_table
from trackkit.rules.track import Track
from trackkit.sim.bots import Bot, Choice, make_bot
from trackkit.sim.model import (
    Dnf,
    DriverResult,
    DriverSpec,
    Prepared,
    RacePosition,
    RaceResult,
    Settings,
    TurnLog,
)
from trackkit.sim.roads import Road
from trackkit.sim.script import Script, Scripted, ScriptError
from trackkit.sim.stuck import StuckSpot

__all__ = ["Observer", "RaceLoop", "Seat", "back_on", "free", "retire"]

#: Called after every turn with (round, driver, every car's state): tests check invariants.
Observer = Callable[[int, int, tuple[CarState, ...]], None]


@dataclass(slots=True)
class Seat:
    """A driver in a race: its bot, dashboard and car, and where it is in the race."""

    spec: DriverSpec
    bot: Bot | Scripted
    board: Dashboard
    car: CarState
    started: bool = False
    """Its car is on the stage (a GT car starts on the grid)."""
    done: bool = False
    """Its race is over: every attempt made, finished, or out (stuck)."""
    attempt: int = 0
    stayed: bool = False
    """Its last turn was on the track and it did not move (blocked, or no plan)."""
    sisu_spent: bool = False
    """Its SISU token was flipped earlier in the rally (LOC-7)."""
    _seen: tuple[CarState, OtherCar | None] | None = None
    """The car as the others see it, for :attr:`car` (a car changes in its own turn only:
    the others of a round read it alike)."""

    def other(self) -> OtherCar | None:
        """The car as another car plans round it (None: not on the stage yet)."""
        hit = self._seen
        car = self.car
        if hit is None or hit[0] is not car:
            hit = self._seen = (
                car,
                OtherCar(car.space, car.gear, car.on_track) if car.space else None,
            )
        return hit[1]


S = TypeVar("S", bound=Seat)


def free(track: Track, space: str, taken: set[str]) -> bool:
    """Whether a car may be put on ``space``: no car on it nor on a space over it.

    >>> from trackkit.rules.positions import track_of
    >>> track = track_of(["202a", "205a", "203a"])
    >>> free(track, "2:1.2L", {"2:1.2L"}), free(track, "2:1.2L", {"2:1.3L"})
    (False, True)
    """
    if space in taken:
        return False
    return not (track.overlaps.get(space, frozenset()) & taken)


def back_on(track: Track, space: str | None, taken: set[str]) -> str | None:
    """A car coming back on the road: its space, or the nearest free one behind it.

    LOC-4 DEFAULT (DIRT), LOC-6 (GT): any space of the road counts (lane, full width,
    corner, chicane, slide), not a shortcut; behind is back along the road (round the lap
    on a circuit). None when every space behind is taken.

    >>> from trackkit.rules.positions import track_of
    >>> track = track_of(["202a", "205a", "206a", "203a"])
    >>> back_on(track, "2:1.3L", {"2:1.3L", "2:1.2L"})
    '2:1.2R'
    """
    if space is None or free(track, space, taken):
        return space
    spaces = track.spaces
    gain = track.gain
    behind = [s for s, info in spaces.items() if info.kind != "shortcut" and gain(space, s) < 0]
    if track.lap_length:  # the nearest round the lap first
        behind.sort(key=lambda s: (-gain(space, s), s))
    else:  # the furthest along the stage first (the same order, without the subtraction)
        behind.sort(key=lambda s: (-spaces[s].progress, s))
    return next((s for s in behind if free(track, s, taken)), None)


def retire(seat: Seat, result: DriverResult, at: str | None, spot: StuckSpot | None = None) -> None:
    """A stuck car is out of the race: off the track, it blocks no one (TRAFFIC-4)."""
    seat.done = True
    seat.car = replace(seat.car, on_track=False)
    result.out = Dnf.STUCK
    result.stuck = spot
    result.stuck_at = at


class RaceLoop(Generic[S]):
    """One race, played round after round (see the module docstring for the hooks).

    Parameters
    ----------
    prepared : Prepared
        The stage.
    settings : Settings
        The drivers and how the race is run.
    seed : int
        Seeds the race's one generator.
    observe : callable, optional
        Called after every turn with (round, driver, every car's state).
    sisu_spent : sequence of bool
        Per driver, whether its SISU token was flipped on an earlier stage of the rally
        (LOC-7; a series without SISU tokens reads none).
    start : RacePosition, optional
        The position the race starts from.
    dice : Dice, optional
        Where the dice rolls come from (default: the race's generator).
    """

    road: ClassVar[type[Road]]
    """How the series' bots read the road (:mod:`trackkit.sim.roads`)."""
    pit_stops = False
    """Whether a car may stop in the pit (GT-2)."""
    laps: int | None = None
    """The laps of the race (None: raced once to the finish, or a rally)."""

    def __init__(
        self,
        prepared: Prepared,
        settings: Settings,
        seed: int,
        *,
        observe: Observer | None = None,
        sisu_spent: Sequence[bool] = (),
        start: RacePosition | None = None,
        dice: Dice | None = None,
    ) -> None:
        self.prepared = prepared
        self.settings = settings
        self.track = prepared.track
        self.rules = prepared.ruleset
        self.observe = observe
        self.sisu_before = sisu_spent
        self.dice = dice
        self.setup()
        self.rng = random.Random(seed)
        given = start.table if start is not None else None
        table = given if given is not None else new_table(self.rules, self.rng)
        if start is not None and start.mud:
            table = replace(table, mud=(*table.mud, *start.mud))
        self.table = table
        self.seats: list[S] = []
        self.results: list[DriverResult] = []
        self.log: list[TurnLog] = []
        self.flags: tuple[int, ...] = ()
        """The drivers whose yellow flag is out during this turn (GT-4)."""
        self.rnd = 0
        self.seat_drivers()
        if start is not None:
            self.place(start)
            self.rnd = start.round

    # -- the loop ---------------------------------------------------------------------

    def run(self) -> RaceResult:
        """Race to the end: every driver done, or the round cap."""
        seats, log, observe = self.seats, self.log, self.observe
        max_rounds = self.settings.max_rounds
        while self.rnd < max_rounds and not all(s.done for s in seats):
            self.rnd += 1
            rnd = self.rnd
            led = False  # rule: MOVE-3 (the first in play order leads)
            for i in self.order(rnd):
                if seats[i].done:
                    continue
                taken = self.occupied(i)
                mud = self.table.mud_for(i)
                sat = self.sit_out(i, rnd, taken, mud)
                if sat is not None:
                    log.append(sat)
                else:
                    ctx = self.context(i, rnd, taken, mud, leader=not led)
                    led = True
                    if ctx is not None:
                        self.move(i, rnd, ctx)
                if observe is not None:
                    observe(rnd, i, tuple([s.car for s in seats]))
                self.end_turn(i, rnd)
        return self.finish()

    def move(self, i: int, rnd: int, ctx: PlanContext) -> None:
        """Driver ``i`` plans from ``ctx``, rolls, and the turn goes in the log."""
        seat = self.seats[i]
        car = ctx.car
        try:
            choice = seat.bot.choose(ctx, self.rng)
            if choice.pit in ("tyres", "repair") and not self.pit_stops:
                raise ScriptError("a pit stop, but pit stops are off in this race (GT-2)")
        except ScriptError as exc:  # the driver and the round, for whoever wrote the script
            raise ScriptError(f"{seat.spec.name} (driver {i + 1}), round {rnd}: {exc}") from None
        outcome = resolve(
            ctx,
            choice.plan,
            choice.mode,
            self.rng,
            table=self.table,
            policy=choice.policy,
            dice=self.dice,
        )
        self.table = outcome.table
        seat.car = outcome.car
        res = self.results[i]
        res.turns += 1
        steps = choice.plan.steps
        seat.stayed = not steps
        if not steps:
            res.blocked.append(car.space or "start")
        if car.sisu_token and not outcome.car.sisu_token:  # rule: LOC-7 (flipped for good)
            seat.sisu_spent = res.sisu_spent = True
        if outcome.lost_control:  # charged where the limit broke, not where the car stopped
            where = loss_space(self.rules, choice.plan, choice.mode, outcome.events) or (
                outcome.car.space or ""
            )
            spaces = self.track.spaces
            res.losses.append((spaces[where].tile if where in spaces else 0, where))
        events = self.after_move(i, rnd, ctx, choice, outcome)
        self.log.append(
            TurnLog(
                rnd,
                i,
                seat.attempt,
                str(choice.plan),
                choice.mode.value,
                events,
                car.space,
                car.gear,
                steps,
                self.flags,
            )
        )

    def place(self, start: RacePosition) -> None:
        """Put the cars of ``start`` on the stage, once the rules allow them.

        Both series check a start alike (:func:`~trackkit.rules.positions.check_position`:
        more cars than drivers, a space the stage lacks, a finished car, a gear outside
        0..6, a negative count, two cars on one space or on spaces that overlap, a SISU
        token face up on a dashboard without one, GT states, mud, ...), naming the driver
        and the space (:class:`~trackkit.rules.positions.PositionError`).
        """
        cars = self.start_cars(start)
        check_position(
            self.track,
            self.rules,
            cars,
            who=[driver_label(i, s.spec.name) for i, s in enumerate(self.seats)],
            boards=[s.board for s in self.seats],
            gt=start.gt,
            laps=self.laps,
            mud=start.mud,
            rounds_played=start.round,
        )
        self.seat_cars(cars, start)

    def occupied(self, me: int) -> set[str]:
        """The spaces of the other cars on the road (TRAFFIC-3, TRAFFIC-4)."""
        return {
            s.car.space
            for i, s in enumerate(self.seats)
            if i != me and s.car.space and s.car.on_track and not s.car.finished
        }

    def others(self, me: int) -> tuple[OtherCar, ...]:
        """The other cars still racing, as driver ``me`` plans round them."""
        near: list[OtherCar] = []
        for i, s in enumerate(self.seats):
            if i != me and not s.done:
                car = s.car
                if car.finished:
                    continue
                seen = s._seen  # (Seat.other, without a call per car every turn)
                other = seen[1] if seen is not None and seen[0] is car else s.other()
                if other is not None:
                    near.append(other)
        return tuple(near)

    def make_bot(self, driver: DriverSpec) -> Bot | Scripted:
        """The driver's bot (or script), reading the road as the series does."""
        if isinstance(driver.bot, Script):
            return Scripted(driver.bot, self.prepared.memo, road=self.road)
        return make_bot(driver.bot, self.prepared.memo, road=self.road)

    # -- the hooks ----------------------------------------------------------------------

    def setup(self) -> None:
        """The series' own settings, before the drivers take their seats."""

    def seat_drivers(self) -> None:
        """Fill :attr:`seats` and :attr:`results`, one per driver, in order."""
        raise NotImplementedError

    def start_cars(self, start: RacePosition) -> list[CarState | None]:
        """The cars of every driver at ``start``, as :func:`check_position` checks them."""
        return list(start.cars)

    def seat_cars(self, cars: list[CarState | None], start: RacePosition) -> None:
        """Put the checked ``cars`` in their seats (None: a driver behind the line)."""
        for i, car in enumerate(cars):
            if car is None:
                continue
            self.seats[i].car = replace(car, car_id=i)
            self.seats[i].started = car.space is not None

    def order(self, rnd: int) -> list[int]:
        """The drivers who play round ``rnd``, in order: the cars on the stage in play
        order (TURN-2, :func:`~trackkit.rules.order.play_order`)."""
        cars = [
            s.car
            for s in self.seats
            if s.started and not s.done and s.car.space is not None and not s.car.finished
        ]
        return [car.car_id for car in play_order(cars, self.track, self.rules)]  # car id: seat

    def sit_out(self, i: int, rnd: int, taken: set[str], mud: dict[int, int]) -> TurnLog | None:
        """What driver ``i`` does instead of moving this turn, as logged (None: it moves)."""
        return None

    def context(
        self, i: int, rnd: int, taken: set[str], mud: dict[int, int], *, leader: bool
    ) -> PlanContext | None:
        """Where driver ``i`` plans from (None: it cannot get on the road this turn)."""
        raise NotImplementedError

    def after_move(
        self, i: int, rnd: int, ctx: PlanContext, choice: Choice, outcome: Outcome
    ) -> list[Event]:
        """What the move brings about besides the car's own state; the turn's events."""
        return outcome.events

    def end_turn(self, i: int, rnd: int) -> None:
        """After the turn is logged and observed."""

    def finish(self) -> RaceResult:
        """The race's result; drivers still racing are out at the round cap."""
        for i, seat in enumerate(self.seats):
            if not seat.done:
                self.results[i].stuck_at = seat.car.space or "start"
                self.results[i].out = Dnf.ROUND_CAP
        return RaceResult(self.results, self.rnd, self.log)
