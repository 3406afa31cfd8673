"""The Rallyman: GT series of the race loop: a grid, laps, places (TURN-2, GT-1..5).

A GT race is (track, settings, seed) like a DIRT one, and
:func:`~trackkit.sim.race.run_race` replays it exactly from the same three.
:class:`GtLoop` is :class:`~trackkit.sim.loop.RaceLoop` with GT's rules: the cars start
on the track's grid slots (pole first) in the drivers' order or in an order the seed
draws; every round each car still racing plays once, in the GT order (speed, then
distance, then the inner lane, TURN-2); a car is done once it crosses the line after its
last lap (BOARD-3), and the first over wins. On the way: gear 0 and gear 00 (LOC-6),
yellow flags (GT-4, TRAFFIC-5), the weather and tyres (GT-3), pit stops (GT-2), focus
tokens (GT-5) and the flying start (GT-1).

Examples
--------
>>> from trackkit.rules.positions import track_of
>>> from trackkit.rules.ruleset import load_ruleset
>>> from trackkit.sim.race import Settings, prepare, run_race
>>> ring = ["102a", *[t for bend in ("105a", "115a", "117a", "106a", "113a", "118a")
...         for t in ({"tile": bend, "turn": "left"}, "103a")]][:12]
>>> stage = prepare(track_of(ring), load_ruleset("gt"))
>>> result = run_race(stage, Settings.default(3, gt=GtOptions(laps=1, grid="given")), seed=3)
>>> sorted(result.gt.order), [d.finished for d in result.drivers], result.gt.grid
([0, 1, 2], [True, True, True], [0, 1, 2])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Literal

from trackkit.rules.dashboard import Dashboard, dashboard
from trackkit.rules.plans import GtTurn, PlanContext, legal_plans
from trackkit.rules.resolve import Event, Outcome
from trackkit.rules.state import CarState, Damage
from trackkit.rules.track import Track
from trackkit.sim.bots import Bot, Choice, Wish
from trackkit.sim.loop import RaceLoop, Seat, back_on, retire
from trackkit.sim.model import (
    DriverResult,
    GtOptions,
    GtRace,
    Overtake,
    PitStop,
    Prepared,
    RacePosition,
    RaceResult,
    TurnLog,
)
from trackkit.sim.roads import GtRoad

__all__ = [
    "GtLoop",
    "GtOptions",
    "GtRace",
    "GtSeat",
    "Overtake",
    "PitStop",
    "gt_round_cap",
    "tyre_boards",
]

#: The road a car covers in a round, at the least, that the default round cap allows for
#: (mm: about one space; the slowest car of a six-car race drives three or four).
ROUND_MM = 100.0
#: The default round cap, at the least and at the most (replay files hold up to 10,000).
MIN_ROUNDS, MAX_CAP = 200, 10_000


def gt_round_cap(track: Track, laps: int | None) -> int:
    """The default round cap of a GT race: enough for the laps, whatever their number.

    At least 200 rounds (DIRT's cap), and as many as a car covering :data:`ROUND_MM` a
    round needs for the race's road (``laps`` times the lap; a point-to-point track's
    length once): a race of 3 laps of the example circuit keeps 200, one of 100 laps gets
    4,245. At most 10,000.

    >>> from trackkit.rules.positions import track_of
    >>> ring = ["102a", *[t for bend in ("105a", "115a", "117a", "106a", "113a", "118a")
    ...         for t in ({"tile": bend, "turn": "left"}, "103a")]][:12]
    >>> gt_round_cap(track_of(ring), 3), gt_round_cap(track_of(ring), 100)
    (200, 2820)
    """
    if track.lap_length is not None:
        road = track.lap_length * (laps or 1)
    else:
        road = max((info.progress for info in track.spaces.values()), default=0.0)
    return max(MIN_ROUNDS, min(MAX_CAP, math.ceil(road / ROUND_MM)))


def tyre_boards(prepared: Prepared, car: str) -> dict[str, Dashboard]:
    """The car's dashboard on the right tyres and on the wrong ones (DASH-2, GT-3).

    >>> from trackkit.rules.positions import GT_RING, track_of
    >>> from trackkit.sim.race import prepare
    >>> boards = tyre_boards(prepare(track_of(GT_RING)), "gt6")
    >>> [(k, b.columns["asphalt"].danger_limit) for k, b in boards.items()]
    [('right', 3), ('wrong', 2)]
    """
    rules = prepared.ruleset
    gt = rules.gt
    assert gt is not None
    right = dashboard(car, rules)
    right = Dashboard(right.name, right.columns, frozenset())  # rule: MOVE-3 (no leader)
    cut = gt.wrong_tyres
    wrong = Dashboard(
        f"{car} (wrong tyres)",
        {
            s: c.model_copy(
                update={
                    "coast": max(0, c.coast - cut.coast),
                    "danger_limit": max(1, c.danger_limit - cut.danger_limit),
                }
            )
            for s, c in right.columns.items()
        },
        frozenset(),
    )
    return {"right": right, "wrong": wrong}


#: A car with no damage token (compared with every turn: made once).
_NO_DAMAGE = Damage()


def _distance(track: Track, car: CarState) -> float:
    """How far along the race a car is (BOARD-5 DEFAULT: ``graph.lap_distance``)."""
    if car.finished:
        return float("inf")
    info = track.spaces[car.space] if car.space is not None else None
    if info is None:
        return float("-inf")
    lap = track.lap_length or 0.0
    return (car.crossings - 1) * lap + info.progress


@dataclass(slots=True)
class GtSeat(Seat):
    """A GT driver: also its tyres, where it is off the road, and its yellow flag."""

    boards: dict[str, Dashboard] = field(default_factory=dict)
    """Its dashboard on the right tyres and on the wrong ones (:func:`tyre_boards`)."""
    tyres: str = "dry"
    off: Literal["", "00", "pit-0", "pit-00"] = ""
    """Off the road: gear 00 after a loss of control; in the pit in gear 0 or 00."""
    yellow: bool = False
    """Its yellow flag is out (GT-4)."""
    _far: tuple[CarState, float] | None = None

    def distance(self, track: Track) -> float:
        """How far along the race its car is (:func:`_distance`, remembered per car)."""
        hit = self._far
        car = self.car
        if hit is None or hit[0] is not car:
            hit = self._far = (car, _distance(track, car))
        return hit[1]


class GtLoop(RaceLoop[GtSeat]):
    """A GT race (see the module docstring); the parameters are those of
    :class:`~trackkit.sim.loop.RaceLoop`, with ``settings.gt`` (:class:`GtOptions`;
    ``sisu_spent`` is not read: GT cars have no SISU token).

    Raises
    ------
    ValueError
        If the grid holds fewer slots than drivers, or ``start`` does not fit the track.
    """

    road = GtRoad

    def setup(self) -> None:
        """The laps, weather, pit stops and flying start of the race (the options, else
        the ruleset's), and the turn's GT facts."""
        rules, track = self.rules, self.track
        gt, options = rules.gt, self.settings.gt
        assert gt is not None and options is not None
        self.options = options
        self.circuit = track.lap_length is not None
        # a point-to-point track has no laps: the cars race once from the grid to its finish
        # spaces (BOARD-3), and no crossing of a line is ever a last lap's
        self.race_laps = options.laps or track.laps or rules.laps or 3
        self.laps = self.race_laps if self.circuit else None
        self.weather: str = options.weather or gt.weather
        self.pit_stops = gt.pit_stops if options.pit_stops is None else options.pit_stops
        flying = gt.flying_start if options.flying_start is None else options.flying_start
        # the turn's GT facts and wishes, made once (the plan memo keys on them every turn)
        self.turns = {
            (f, y): GtTurn(final_lap=f, yellow=y, flying=flying)
            for f in (False, True)
            for y in (False, True)
        }
        self.wishes = {pit: Wish(pit=pit) for pit in (False, True)}
        self.events: list[Event] = []
        """The events of the turn being played (the road, the flag, the pit, the move)."""
        self.mine = 0.0
        """How far along the car was as its turn began (:meth:`_record_passes`)."""
        self.final = self.wants_pit = False
        self.led_to = 1
        """The laps begun by the leader."""

    def seat_drivers(self) -> None:
        """Each driver on its grid slot, drawn by the seed or in order (BOARD-3)."""
        drivers = self.settings.drivers
        n = len(drivers)
        slots = list(self.track.start)
        if n > len(slots):
            raise ValueError(f"the grid has {len(slots)} slots for {n} drivers (S127)")
        grid = list(range(n))
        if self.options.grid == "drawn":  # BOARD-3 DEFAULT: the seed draws the grid
            self.rng.shuffle(grid)
        gt = self.rules.gt
        assert gt is not None
        for i, d in enumerate(drivers):
            boards = tyre_boards(self.prepared, d.car if isinstance(d.car, str) else gt.car)
            space = slots[grid.index(i)]
            seat = GtSeat(
                d,
                self.make_bot(d),
                boards["right"],
                CarState(i, space, 0),
                started=True,
                boards=boards,
                tyres=self.weather,
            )
            self.seats.append(seat)
            self.results.append(DriverResult(d.name, d.car_label, d.bot_label))
        self.race = GtRace(
            self.laps,
            grid,
            finish_round=[None] * n,
            laps_led=[0] * n,
            gear_00=[0] * n,
            start_weather=self.weather,
        )

    def start_cars(self, start: RacePosition) -> list[CarState | None]:
        """The cars placed by ``start`` (their ``crossings`` say how many times they
        crossed the line), the others on their grid slots."""
        seats = self.seats
        cars: list[CarState | None] = [
            replace(car, car_id=i)
            if car is not None and car.space is not None
            else seats[i].car
            if i < len(seats)
            else None  # more cars than drivers: refused
            for i, car in enumerate(start.cars)
        ]
        return cars + [seat.car for seat in seats[len(cars) :]]

    def seat_cars(self, cars: list[CarState | None], start: RacePosition) -> None:
        """Each car in its seat, and each :class:`~trackkit.rules.state.GtCar`: whether
        the car is off the road, its tyres and its flag (LOC-6, GT-2..4)."""
        for i, seat in enumerate(self.seats):
            car = cars[i]
            assert car is not None
            seat.car = car
            state = start.gt[i] if i < len(start.gt) else None
            if state is not None:
                seat.off = state.off
                seat.tyres = state.tyres or seat.tyres
                seat.yellow = state.yellow
        self.led_to = max(1, max(s.car.crossings for s in self.seats))

    def sit_out(self, i: int, rnd: int, taken: set[str], mud: dict[int, int]) -> TurnLog | None:
        """A car off the road this turn: what it does instead of moving (None: it drives).

        Gear 00 (LOC-6): it comes back on the road in gear 0 and its turn is over. In the
        pit (GT-2): in gear 00 it turns to gear 0 and waits; in gear 0 it takes the tyres
        that suit the weather (GT-3) and drives off from its pit space this very turn.
        """
        seats, track = self.seats, self.track
        seat = seats[i]
        self.mine = seat.distance(track)
        events: list[Event] = []
        self.events = events
        car = seat.car
        note = None
        if seat.off == "pit-00":
            seat.off = "pit-0"
            events.append(Event("pit", car.space, note="0"))
            note = "(pit: gear 00 to 0)"
        elif seat.off == "00" or seat.off == "pit-0":
            assert car.space is not None
            back = back_on(track, car.space, taken)
            if back is None:  # every space behind is taken: it waits off the road
                events.append(Event("stay", car.space, note="off the road"))
                note = "(off the road: no free space)"
            else:
                seat.car = replace(car, space=back, on_track=True, gear=0)
                if seat.off == "00":
                    events.append(Event("back", back, note="gear 0"))  # rule: LOC-6
                    note = "(gear 00: back on the road in gear 0)"
                else:
                    seat.tyres = self.weather  # rule: GT-2, GT-3 (tyres for the weather)
                    events.append(Event("tyres", back, note=self.weather))
                seat.off = ""
        if note is None:
            return None
        flags = tuple([j for j, s in enumerate(seats) if s.yellow])
        return TurnLog(rnd, i, 0, note, "-", events, seat.car.space, 0, (), flags)

    def context(
        self, i: int, rnd: int, taken: set[str], mud: dict[int, int], *, leader: bool
    ) -> PlanContext:
        """Its flag down (GT-4), the board of its tyres (GT-3), the flags out (TRAFFIC-5),
        the last lap (BOARD-3), and whether it wants to pit (GT-2)."""
        seat = self.seats[i]
        if seat.yellow:  # rule: GT-4 (its flag comes down at its next move)
            seat.yellow = False
            self.events.append(Event("yellow-flag", note="down"))
        self.flags = flags = tuple([j for j, s in enumerate(self.seats) if s.yellow])
        car = seat.car
        weather = self.weather
        board = seat.boards["right" if seat.tyres == weather else "wrong"]
        final = self.circuit and car.crossings >= self.race_laps
        ctx = PlanContext(
            self.track,
            board,
            self.rules,
            car,
            self.others(i),
            mud=mud,
            gt=self.turns[bool(final), bool(flags)],  # rule: TRAFFIC-5
        )
        self.final = final
        self.wants_pit = self.pit_stops and (car.damage != _NO_DAMAGE or seat.tyres != weather)
        if isinstance(seat.bot, Bot):
            seat.bot.wish = self.wishes[bool(self.wants_pit and not final)]
        return ctx

    def after_move(
        self, i: int, rnd: int, ctx: PlanContext, choice: Choice, outcome: Outcome
    ) -> list[Event]:
        """A car with no legal move even alone on the road is out (TRAFFIC-4 DEFAULT);
        then the weather (GT-3), yellow flags (GT-4), gear 00 (LOC-6), a pit stop (GT-2),
        the cars it got past, the laps it led and its finish."""
        seat, res, race = self.seats[i], self.results[i], self.race
        events = self.events
        events += outcome.events
        car = ctx.car
        if not choice.plan.steps and not any(
            True for _ in legal_plans(replace(ctx, others=()), max_steps=1)
        ):
            retire(seat, res, car.space)
        # damage tokens are drawn on a loss of control only (LOC-6): the events to read then
        for e in outcome.events if outcome.lost_control else ():
            if e.kind == "damage" and e.note == "weather":  # rule: GT-3
                self.weather = "rain" if self.weather == "dry" else "dry"
                race.weather.append((rnd, i, self.weather))
                events.append(Event("weather", note=self.weather))
            elif e.kind == "damage" and e.note == "yellow":  # rule: GT-4
                seat.yellow = True
                race.yellow_flags += 1
                events.append(Event("yellow-flag", e.space, note="out"))
        if outcome.lost_control:
            if not seat.car.on_track and not seat.car.finished:
                seat.off = "00"  # rule: LOC-6 (off the road: out for its next turn)
                race.gear_00[i] += 1
        elif self._stops(seat, choice):
            self._pit(seat, i, rnd, choice)
        self._record_passes(i, rnd)
        crossings = seat.car.crossings
        if crossings > self.led_to:  # first over the line: it led the laps it completed
            for _lap in range(self.led_to, crossings):
                race.lap_leaders.append(i)
                race.laps_led[i] += 1
            self.led_to = crossings
        if seat.car.finished:
            seat.done = True
            res.finished = True
            race.order.append(i)
            race.finish_round[i] = rnd
        if seat.done and seat.yellow:
            # rule: GT-4 DEFAULT (a car out of the race has no next move: its flag
            # comes down as it leaves, or it would hold the others to the end)
            seat.yellow = False
            events.append(Event("yellow-flag", note="down"))
        return events

    def _stops(self, seat: GtSeat, choice: Choice) -> bool:
        """Whether the car stops in the pit (GT-2: in first gear on a pit space, as the
        driver chooses; the bots: not on the last lap, where a stop costs turns it cannot
        win back)."""
        car = seat.car
        return (
            (choice.pit is not None or (self.wants_pit and not self.final))
            and self.pit_stops
            and not car.finished
            and car.gear == 1
            and car.space is not None
            and self.track.spaces[car.space].pit is not None
            and choice.pit != "no"
        )

    def _pit(self, seat: GtSeat, i: int, rnd: int, choice: Choice) -> None:
        """GT-2: repairs and/or tyres (DEFAULT: a driver that asks for tyres only keeps its
        damage, in gear 0)."""
        repair = choice.pit != "tyres" and seat.car.damage != Damage()
        tyres = choice.pit == "tyres" or seat.tyres != self.weather
        mended = seat.car.damage if repair else Damage()
        table = self.table
        for kind in ("gear", "brake", "coast"):
            for _ in range(getattr(mended, kind)):
                table = table.put_back((kind, ""))
        self.table = table
        damage = Damage() if repair else seat.car.damage
        seat.car = replace(seat.car, gear=0, on_track=False, damage=damage)
        seat.off = "pit-00" if repair else "pit-0"
        self.race.pit_stops.append(PitStop(rnd, i, seat.car.space or "", repair, tyres))
        self.events.append(Event("pit", seat.car.space, note="00" if repair else "0"))

    def _record_passes(self, i: int, rnd: int) -> None:
        """The cars driver ``i`` got past on the road this turn (cars off the road aside).

        Only driver ``i``'s car moves in its turn: the others are where they were as it
        began, as far along as :meth:`GtSeat.distance` says.
        """
        seats, track, race = self.seats, self.track, self.race
        seat = seats[i]
        car = seat.car
        now = seat.distance(track)
        mine = self.mine
        if not now > mine:  # it did not move on: it got past no one
            return
        space = car.space or ""
        tile = track.spaces[space].tile if space in track.spaces else 0
        for j, other_seat in enumerate(seats):
            other = other_seat.car
            if j == i or (other_seat.done and not other.finished):
                continue
            if not other.on_track or other.finished:
                continue
            was = other_seat.distance(track)
            if was > mine and now > was:
                # a pass in the move that ends the race belongs to the last lap
                lap = max(1, car.crossings)
                if race.laps is not None:
                    lap = min(lap, race.laps)
                race.overtakes.append(Overtake(rnd, i, j, tile, space, lap))

    def finish(self) -> RaceResult:
        """The result with its :class:`GtRace`: grid, places, laps led, overtakes, pit
        stops and weather."""
        result = super().finish()
        self.race.laps_driven = min(self.race_laps, self.led_to) if self.circuit else 0
        result.gt = self.race
        return result
