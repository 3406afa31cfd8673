"""The Rallyman: DIRT series of the race loop: staggered start, attempts, stuck cars.

:class:`RallyLoop` is :class:`~trackkit.sim.loop.RaceLoop` with DIRT's rules: the cars
start behind the line and enter one more a round (TURN-1), a crashed car comes back on
its space or the nearest free one behind and moves on (LOC-4); a car that can never
finish (mud closed the way on) is out at once (:mod:`trackkit.sim.stuck`); in a
hillclimb each driver makes its attempts, re-entering one a round, last (HILLCLIMB-2..5),
and a driver of an Unlimited car builds its board for the stage, and may rebuild it
between attempts (DASH-3, :mod:`trackkit.sim.garage`). The mud drawn at shortcuts slows
the others (SHORTCUT-2), and the first car in play order leads (MOVE-3).

Examples
--------
>>> from trackkit.rules.positions import track_of
>>> from trackkit.sim.race import Settings, prepare
>>> stage = prepare(track_of(["202a", "205a", "206a", "204a", "203a"]))
>>> result = RallyLoop(stage, Settings.default(2, bots=("planner",)), 1).run()
>>> [d.finished for d in result.drivers], result.log[0].start
([True, True], '1:1.1L')
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from trackkit.models.car import CarFile
from trackkit.rules.cars import car_dashboard
from trackkit.rules.dashboard import Dashboard, dashboard
from trackkit.rules.plans import PlanContext
from trackkit.rules.resolve import Event, stage_time
from trackkit.rules.state import CarState
from trackkit.sim.garage import (
    build_unlimited,
    next_level,
    stage_profile,
    surface_order,
    unlimited_dashboard,
)
from trackkit.sim.loop import RaceLoop, Seat, back_on, free, retire
from trackkit.sim.model import (
    UNLIMITED,
    DriverResult,
    TurnLog,
)
from trackkit.sim.roads import DirtRoad
from trackkit.sim.stuck import StuckSpot, reach_of, stuck_spot

__all__ = ["DAMAGE_TOKENS", "RallyLoop", "RallySeat"]

#: The token each kind of crash damage is when it goes back in the bag (DAMAGE-1).
DAMAGE_TOKENS = {"gear": ("gear", "ok"), "brake": ("brake", "ok"), "coast": ("coast", "coast")}

#: A seat's dashboard before it is built (replaced at once).
_PENDING = Dashboard("pending", {})

_FILE_BOARDS: dict[int, tuple[CarFile, Dashboard]] = {}


def _file_board(car: CarFile) -> Dashboard:
    """A car file's dashboard, made once per car (plan memos and stuck checks key by it)."""
    hit = _FILE_BOARDS.get(id(car))
    if hit is None or hit[0] is not car:
        if len(_FILE_BOARDS) >= 64:
            _FILE_BOARDS.clear()
        hit = _FILE_BOARDS[id(car)] = (car, car_dashboard(car))
    return hit[1]


@dataclass(slots=True)
class RallySeat(Seat):
    """A DIRT driver: also its hillclimb re-entry and its Unlimited board's build."""

    waiting_since: int | None = None
    """The round it finished an attempt in, waiting to re-enter (HILLCLIMB-4)."""
    level: int = 0
    """Tokens more (or fewer) than its bot's own build (:func:`~trackkit.sim.garage.next_level`)."""
    surfaces: tuple[str, ...] = ()
    """The track-type tokens of its Unlimited board, best first (drawn once per race)."""
    losses_before: int = 0
    """Losses of control before this attempt (the rebuild reads the attempt's own)."""


def _stuck_event(spot: StuckSpot) -> Event:
    return Event("stuck", None if spot.space == "start" else spot.space, note=spot.cause)


class RallyLoop(RaceLoop[RallySeat]):
    """A DIRT race (a rally stage, or a hillclimb's attempts); see the module docstring.

    The parameters are :class:`~trackkit.sim.loop.RaceLoop`'s.
    """

    road = DirtRoad

    def setup(self) -> None:
        """Where mud can shut the way (:mod:`trackkit.sim.stuck`), and the re-entry queue."""
        self.reach = reach_of(self.track)
        self.finish_order: list[int] = []
        """The drivers in the order they finished their last attempt (HILLCLIMB-4)."""

    def seat_drivers(self) -> None:
        """Each driver behind the line, its Unlimited board built for the stage (DASH-3)."""
        before = self.sisu_before
        for i, d in enumerate(self.settings.drivers):
            seat = RallySeat(d, self.make_bot(d), _PENDING, CarState(car_id=i, space=None))
            seat.sisu_spent = bool(before[i]) if i < len(before) else False
            if d.car == UNLIMITED:  # rule: DASH-3 (built for the stage before the first turn)
                seat.surfaces = surface_order(stage_profile(self.track), self.rng)
            seat.board = self._board_for(seat)
            seat.car = self._new_attempt(seat, i)
            self.seats.append(seat)
            result = DriverResult(d.name, d.car_label, d.bot_label, sisu_spent=seat.sisu_spent)
            result.boards.append(seat.board.unlimited)
            self.results.append(result)

    def _board_for(self, seat: RallySeat) -> Dashboard:
        """The dashboard ``seat`` drives its next attempt with (DASH-1, DASH-3, HILLCLIMB-3)."""
        car = seat.spec.car
        if isinstance(car, CarFile):
            return _file_board(car)
        if car != UNLIMITED:
            return dashboard(car, self.rules)
        board = build_unlimited(
            stage_profile(self.track),
            seat.spec.builder,
            level=seat.level,
            sisu=not (seat.sisu_spent and self.rules.sisu_once_per == "rally"),
            surfaces=seat.surfaces,
        )
        return unlimited_dashboard(board)

    def _new_attempt(self, seat: RallySeat, i: int) -> CarState:
        """A car at the start, its SISU token face up if it has one and may use it (LOC-7)."""
        spent = seat.sisu_spent and self.rules.sisu_once_per == "rally"
        # rule: LOC-7 (once per rally, or given back at each stage: a hillclimb attempt is a
        # run of the stage); the token is the dashboard's: a car without one has none
        return CarState(car_id=i, space=None, sisu_token=bool(seat.board.sisu) and not spent)

    def order(self, rnd: int) -> list[int]:
        """The cars on the stage in play order, then the one driver more the staggered
        start lets in (TURN-1; a driver who found the start grid full tries again), then
        one hillclimb re-entry (HILLCLIMB-4)."""
        order = super().order(rnd)
        seats = self.seats
        # rule: TURN-1 (staggered start: one more driver enters each round)
        order += [
            i for i in range(min(rnd, len(seats))) if not seats[i].started and not seats[i].done
        ]
        # rule: HILLCLIMB-4 (one re-entry per round, last, first finisher first)
        waiting = [
            i
            for i in self.finish_order
            if (since := seats[i].waiting_since) is not None and since < rnd and not seats[i].done
        ]
        everyone_started = all(s.started or s.done for s in seats)
        if waiting and (everyone_started or not self.settings.short_game):
            order.append(waiting[0])  # it stops waiting once its car is on the stage
        return order

    def sit_out(self, i: int, rnd: int, taken: set[str], mud: dict[int, int]) -> TurnLog | None:
        """A car that can never finish from where it is is out now, not at the round cap."""
        seat = self.seats[i]
        # (with no mud for it and a stage open everywhere, only a car that stayed can be)
        spot = (
            stuck_spot(self.track, seat.board, self.rules, seat.car, mud, stayed=seat.stayed)
            if mud or seat.stayed or not self.reach.open
            else None
        )
        if spot is None:
            return None
        retire(seat, self.results[i], spot.space, spot)
        car = seat.car
        return TurnLog(
            rnd, i, seat.attempt, "(stuck)", "dnf", [_stuck_event(spot)], car.space, car.gear
        )

    def context(
        self, i: int, rnd: int, taken: set[str], mud: dict[int, int], *, leader: bool
    ) -> PlanContext | None:
        """Entering the stage on the first free start space (BOARD-3), or back on the road
        after a crash (LOC-4); None, and a blocked turn, when there is no free space."""
        seat = self.seats[i]
        track = self.track
        car = seat.car
        if car.space is None:  # entering the stage behind the start line (BOARD-3)
            grid = [s for s in self.prepared.start if free(track, s, taken)]
            if not grid:
                self.results[i].blocked.append("start")
                return None
            car = replace(car, space=grid[0], gear=0, on_track=True, finished=False)
            seat.started = True
            seat.waiting_since = None
        elif not car.on_track:
            back = back_on(track, car.space, taken)
            if back is None:  # nowhere free behind: it waits off the track (LOC-4)
                self.results[i].blocked.append(car.space or "start")
                return None
            car = replace(car, space=back, on_track=True)
        return PlanContext(
            track, seat.board, self.rules, car, self.others(i), leader=leader, mud=mud
        )

    def end_turn(self, i: int, rnd: int) -> None:
        """A car over the line: its time; in a hillclimb, its next attempt (HILLCLIMB-3)."""
        seat = self.seats[i]
        if not seat.car.finished:
            return
        res = self.results[i]
        res.times.append(stage_time(seat.car))
        res.finished = True
        seat.attempt += 1
        if not (self.settings.hillclimb and seat.attempt < self.settings.attempts):
            seat.done = True
            return
        table = self.table
        # rule: HILLCLIMB-3 (second tokens to the reserve, damage to the bag)
        for kind, token in DAMAGE_TOKENS.items():
            for _ in range(getattr(seat.car.damage, kind)):
                table = table.put_back(token)
        # rule: SHORTCUT-2 DEFAULT, HILLCLIMB-5 (the mud stays on the track, and its
        # drawer's exemption ends with the attempt)
        self.table = replace(table, mud=tuple((t, -1 if d == i else d) for t, d in table.mud))
        if seat.spec.car == UNLIMITED:  # rule: HILLCLIMB-3 (may rebuild it)
            seat.level = next_level(seat.level, len(res.losses) - seat.losses_before)
            seat.board = self._board_for(seat)
        seat.losses_before = len(res.losses)
        res.boards.append(seat.board.unlimited)
        seat.car = self._new_attempt(seat, i)
        seat.waiting_since = rnd
        if i in self.finish_order:
            self.finish_order.remove(i)
        self.finish_order.append(i)
