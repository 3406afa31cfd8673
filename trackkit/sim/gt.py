"""The Rallyman: GT race: a grid, laps, white and black rounds, places (TURN-2, GT-1..5).

A GT race is (track, settings, seed) like a DIRT one, and :func:`run_gt_race` replays it
exactly from the same three. The cars start on the track's grid slots (pole first) in the
drivers' order or in an order the seed draws; every round each car still racing plays once,
in the GT order (speed, then distance, then the inner lane, TURN-2); a car is done once it
crosses the line after its last lap (BOARD-3), and the first over wins. On the way: gear 0
and gear 00 (LOC-6), yellow flags (GT-4, TRAFFIC-5), the weather and tyres (GT-3), pit
stops (GT-2), focus tokens (GT-5) and the flying start (GT-1).

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
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from trackkit.rules.blame import loss_space
from trackkit.rules.dashboard import Dashboard, dashboard
from trackkit.rules.dice import Dice
from trackkit.rules.order import play_order
from trackkit.rules.plans import GtTurn, PlanContext, legal_plans
from trackkit.rules.resolve import Event, resolve
from trackkit.rules.ruleset import Ruleset
from trackkit.rules.state import CarState, Damage, OtherCar
from trackkit.rules.table import Table, new_table
from trackkit.rules.track import Track
from trackkit.sim.bots import Bot, Wish, make_bot
from trackkit.sim.roads import GtRoad
from trackkit.sim.script import Script, Scripted, ScriptError

if TYPE_CHECKING:
    from trackkit.sim.race import (
        DriverResult,
        DriverSpec,
        Prepared,
        RacePosition,
        RaceResult,
        Settings,
        TurnLog,
    )

__all__ = ["GtOptions", "GtRace", "Overtake", "PitStop", "gt_round_cap", "run_gt_race"]

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
    """What a GT race adds to a :class:`~trackkit.sim.race.RaceResult`."""

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


@dataclass(slots=True)
class _GtSeat:
    spec: DriverSpec
    bot: Bot | Scripted
    boards: dict[str, Dashboard]
    car: CarState
    tyres: str
    done: bool = False
    off: Literal["", "00", "pit-0", "pit-00"] = ""
    """Off the road: gear 00 after a loss of control; in the pit in gear 0 or 00."""
    yellow: bool = False
    """Its yellow flag is out (GT-4)."""
    _seen: tuple[CarState, OtherCar | None, float] | None = None
    """The car as the others see it and how far along it is, for :attr:`car` (a car
    changes in its own turn only: the five others of a round read it alike)."""

    def seen(self, prepared: Prepared) -> tuple[OtherCar | None, float]:
        """The car as another car plans round it (None: not on the road yet), and its
        :func:`_distance`."""
        hit = self._seen
        car = self.car
        if hit is None or hit[0] is not car:
            other = OtherCar(car.space, car.gear, car.on_track) if car.space else None
            hit = self._seen = (car, other, _distance(prepared, car))
        return hit[1], hit[2]


def _boards(prepared: Prepared, car: str) -> dict[str, Dashboard]:
    """The car's dashboard on the right tyres and on the wrong ones (DASH-2, GT-3)."""
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


def _distance(prepared: Prepared, car: CarState) -> float:
    """How far along the race a car is (BOARD-5 DEFAULT: ``graph.lap_distance``)."""
    if car.finished:
        return float("inf")
    track = prepared.track
    info = track.spaces[car.space] if car.space is not None else None
    if info is None:
        return float("-inf")
    lap = track.lap_length or 0.0
    return (car.crossings - 1) * lap + info.progress


def _back_on(prepared: Prepared, space: str, taken: set[str]) -> str | None:
    """A car coming back on the road: its space, or the nearest free one behind (LOC-6)."""
    track = prepared.track

    def free(s: str) -> bool:
        return s not in taken and not (track.overlaps.get(s, frozenset()) & taken)

    if free(space):
        return space
    behind = sorted(
        (s for s in track.spaces if track.gain(space, s) < 0),
        key=lambda s: (-track.gain(space, s), s),
    )
    return next((s for s in behind if free(s)), None)


Observer = Callable[[int, int, tuple[CarState, ...]], None]


def run_gt_race(
    prepared: Prepared,
    settings: Settings,
    seed: int,
    *,
    observe: Observer | None = None,
    start: RacePosition | None = None,
    dice: Dice | None = None,
) -> RaceResult:
    """Race ``settings.drivers`` on a GT circuit; the same seed gives the same race.

    Parameters
    ----------
    prepared : Prepared
        The track (:func:`~trackkit.sim.race.prepare` with the GT ruleset).
    settings : Settings
        The drivers and ``settings.gt`` (:class:`GtOptions`).
    seed : int
        Seeds the race's one generator: the grid draw, the damage bag, the dice.
    observe : callable, optional
        Called after every turn with (round, driver, every car's state).
    start : RacePosition, optional
        Cars placed anywhere on the track (their ``crossings`` say how many times they
        crossed the line) and the round; drivers without a car start on the grid.
    dice : Dice, optional
        Where the dice rolls come from (default: the race's generator).

    Returns
    -------
    RaceResult
        With ``gt`` (:class:`GtRace`): the grid, finishing order, rounds, laps led,
        overtakes, pit stops and weather changes.

    Raises
    ------
    ValueError
        If the grid holds fewer slots than drivers, or ``start`` does not fit the track.
    ScriptError
        If a scripted driver's plan is not legal when its turn comes.
    """
    from trackkit.sim.race import Dnf, DriverResult, RaceResult, TurnLog

    rules: Ruleset = prepared.ruleset
    gt = rules.gt
    options = settings.gt
    assert gt is not None and options is not None
    track = prepared.track
    circuit = track.lap_length is not None
    # a point-to-point track has no laps: the cars race once from the grid to its finish
    # spaces (BOARD-3), and no crossing of a line is ever a last lap's
    laps = options.laps or track.laps or rules.laps or 3
    weather: str = options.weather or gt.weather
    pits = gt.pit_stops if options.pit_stops is None else options.pit_stops
    flying = gt.flying_start if options.flying_start is None else options.flying_start
    rng = random.Random(seed)
    given = start.table if start is not None else None
    table: Table = given if given is not None else new_table(rules, rng)
    n = len(settings.drivers)
    slots = list(track.start)
    if n > len(slots):
        raise ValueError(f"the grid has {len(slots)} slots for {n} drivers (S127)")
    grid = list(range(n))
    if options.grid == "drawn":  # BOARD-3 DEFAULT: the seed draws the grid
        rng.shuffle(grid)
    seats: list[_GtSeat] = []
    results: list[DriverResult] = []
    for i, d in enumerate(settings.drivers):
        car_id = d.car if isinstance(d.car, str) else gt.car
        boards = _boards(prepared, car_id)
        bot: Bot | Scripted
        if isinstance(d.bot, Script):
            bot = Scripted(d.bot, prepared.memo, road=GtRoad)
        else:
            bot = make_bot(d.bot, prepared.memo, road=GtRoad)
        space = slots[grid.index(i)]
        seats.append(_GtSeat(d, bot, boards, CarState(i, space, 0), weather))
        results.append(DriverResult(d.name, d.car_label, d.bot_label))
    rnd = 0
    if start is not None:
        rnd = _place(prepared, seats, start, laps if circuit else None)
    race = GtRace(
        laps if circuit else None,
        grid,
        finish_round=[None] * n,
        laps_led=[0] * n,
        gear_00=[0] * n,
        start_weather=weather,
    )
    led_to = max(1, max(s.car.crossings for s in seats))  # laps begun by the leader
    # the turn's GT facts and wishes, made once (the plan memo keys on them every turn)
    turns = {
        (f, y): GtTurn(final_lap=f, yellow=y, flying=flying)
        for f in (False, True)
        for y in (False, True)
    }
    wishes = {pit: Wish(pit=pit) for pit in (False, True)}
    log: list[TurnLog] = []
    while rnd < settings.max_rounds and not all(s.done for s in seats):
        rnd += 1
        racing = [i for i, s in enumerate(seats) if not s.done]
        # rule: TURN-2 (GT: each round, speed, then distance, then the inner lane)
        order = [c.car_id for c in play_order([seats[i].car for i in racing], track, rules)]
        for i in order:
            seat = seats[i]
            if seat.done:
                continue
            before = {j: s.seen(prepared)[1] for j, s in enumerate(seats) if j != i}
            mine = seat.seen(prepared)[1]
            events: list[Event] = []
            taken = {
                s.car.space
                for j, s in enumerate(seats)
                if j != i and s.car.space and s.car.on_track and not s.car.finished
            }
            turn = _sit_out(prepared, seat, taken, events, weather)
            if turn is not None:  # gear 00, or in the pit: no move this turn (LOC-6, GT-2)
                flags = tuple([j for j, s in enumerate(seats) if s.yellow])
                log.append(TurnLog(rnd, i, 0, turn, "-", events, seat.car.space, 0, (), flags))
                if observe is not None:
                    observe(rnd, i, tuple(s.car for s in seats))
                continue
            if seat.yellow:  # rule: GT-4 (its flag comes down at its next move)
                seat.yellow = False
                events.append(Event("yellow-flag", note="down"))
            flags = tuple([j for j, s in enumerate(seats) if s.yellow])
            yellow = bool(flags)  # rule: TRAFFIC-5
            car = seat.car
            board = seat.boards["right" if seat.tyres == weather else "wrong"]
            near: list[OtherCar] = []
            for j, s in enumerate(seats):
                if j != i and not s.car.finished and not s.done:
                    other = s.seen(prepared)[0]
                    if other is not None:
                        near.append(other)
            others = tuple(near)
            final = circuit and car.crossings >= laps
            ctx = PlanContext(
                track,
                board,
                rules,
                car,
                others,
                gt=turns[bool(final), yellow],
            )
            wants_pit = pits and (car.damage != Damage() or seat.tyres != weather)
            if isinstance(seat.bot, Bot):
                seat.bot.wish = wishes[bool(wants_pit and not final)]
            try:
                choice = seat.bot.choose(ctx, rng)
                if choice.pit in ("tyres", "repair") and not pits:
                    raise ScriptError("a pit stop, but pit stops are off in this race (GT-2)")
            except ScriptError as exc:
                raise ScriptError(
                    f"{seat.spec.name} (driver {i + 1}), round {rnd}: {exc}"
                ) from None
            outcome = resolve(
                ctx, choice.plan, choice.mode, rng, table=table, policy=choice.policy, dice=dice
            )
            table = outcome.table
            events += outcome.events
            seat.car = outcome.car
            res = results[i]
            res.turns += 1
            if not choice.plan.steps:
                res.blocked.append(car.space or "grid")
                if not any(True for _ in legal_plans(replace(ctx, others=()), max_steps=1)):
                    # no legal move even alone on the road: out for good (TRAFFIC-4 DEFAULT)
                    seat.done = True
                    seat.car = replace(seat.car, on_track=False)
                    res.out = Dnf.STUCK
                    res.stuck_at = car.space
            for e in outcome.events:
                if e.kind == "damage" and e.note == "weather":  # rule: GT-3
                    weather = "rain" if weather == "dry" else "dry"
                    race.weather.append((rnd, i, weather))
                    events.append(Event("weather", note=weather))
                elif e.kind == "damage" and e.note == "yellow":  # rule: GT-4
                    seat.yellow = True
                    race.yellow_flags += 1
                    events.append(Event("yellow-flag", e.space, note="out"))
            if outcome.lost_control:
                where = loss_space(rules, choice.plan, choice.mode, outcome.events) or (
                    seat.car.space or ""
                )
                res.losses.append((track.spaces[where].tile if where in track.spaces else 0, where))
                if not seat.car.on_track and not seat.car.finished:
                    seat.off = "00"  # rule: LOC-6 (off the road: out for its next turn)
                    race.gear_00[i] += 1
            elif (
                (choice.pit is not None or (wants_pit and not final))
                # rule: GT-2 (the driver's choice; the bots': not on the last lap, where a
                # stop costs turns it cannot win back)
                and pits
                and not seat.car.finished
                and seat.car.gear == 1
                and seat.car.space is not None
                and track.spaces[seat.car.space].pit is not None
                and choice.pit != "no"
            ):
                # rule: GT-2 (first gear on a pit space: repairs and/or tyres; DEFAULT: a
                # driver that asks for tyres only keeps its damage, in gear 0)
                repair = choice.pit != "tyres" and seat.car.damage != Damage()
                tyres = choice.pit == "tyres" or seat.tyres != weather
                mended = seat.car.damage if repair else Damage()
                for kind in ("gear", "brake", "coast"):
                    for _ in range(getattr(mended, kind)):
                        table = table.put_back((kind, ""))
                damage = Damage() if repair else seat.car.damage
                seat.car = replace(seat.car, gear=0, on_track=False, damage=damage)
                seat.off = "pit-00" if repair else "pit-0"
                race.pit_stops.append(PitStop(rnd, i, seat.car.space or "", repair, tyres))
                events.append(Event("pit", seat.car.space, note="00" if repair else "0"))
            _record_passes(prepared, seats, i, before, mine, rnd, race)
            crossings = seat.car.crossings
            if crossings > led_to:  # first over the line: it led the laps it completed
                for _lap in range(led_to, crossings):
                    race.lap_leaders.append(i)
                    race.laps_led[i] += 1
                led_to = crossings
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
            log.append(
                TurnLog(
                    rnd,
                    i,
                    0,
                    str(choice.plan),
                    choice.mode.value,
                    events,
                    car.space,
                    car.gear,
                    choice.plan.steps,
                    flags,
                )
            )
            if observe is not None:
                observe(rnd, i, tuple(s.car for s in seats))
    for i, seat in enumerate(seats):
        if not seat.done:
            results[i].stuck_at = seat.car.space
            results[i].out = Dnf.ROUND_CAP
    race.laps_driven = min(laps, led_to) if circuit else 0
    result = RaceResult(results, rnd, log)
    result.gt = race
    return result


def _sit_out(
    prepared: Prepared, seat: _GtSeat, taken: set[str], events: list[Event], weather: str
) -> str | None:
    """A car off the road this turn: what it does instead of moving (None: it drives).

    Gear 00 (LOC-6): it comes back on the road in gear 0 and its turn is over. In the
    pit (GT-2): in gear 00 it turns to gear 0 and waits; in gear 0 it takes the tyres that
    suit the weather (GT-3) and drives off from its pit space this very turn.
    """
    car = seat.car
    if seat.off == "pit-00":
        seat.off = "pit-0"
        events.append(Event("pit", car.space, note="0"))
        return "(pit: gear 00 to 0)"
    if seat.off == "00" or seat.off == "pit-0":
        assert car.space is not None
        back = _back_on(prepared, car.space, taken)
        if back is None:  # every space behind is taken: it waits off the road
            events.append(Event("stay", car.space, note="off the road"))
            return "(off the road: no free space)"
        seat.car = replace(car, space=back, on_track=True, gear=0)
        if seat.off == "00":
            seat.off = ""
            events.append(Event("back", back, note="gear 0"))  # rule: LOC-6
            return "(gear 00: back on the road in gear 0)"
        seat.off = ""
        seat.tyres = weather  # rule: GT-2, GT-3 (the tyres chosen for the weather)
        events.append(Event("tyres", back, note=weather))
    return None


def _record_passes(
    prepared: Prepared,
    seats: Sequence[_GtSeat],
    i: int,
    before: dict[int, float],
    mine: float,
    rnd: int,
    race: GtRace,
) -> None:
    """The cars driver ``i`` got past on the road this turn (cars off the road aside)."""
    car = seats[i].car
    now = _distance(prepared, car)
    space = car.space or ""
    tile = prepared.track.spaces[space].tile if space in prepared.track.spaces else 0
    for j, was in before.items():
        other = seats[j].car
        if seats[j].done and not other.finished:
            continue
        if not other.on_track or other.finished:
            continue
        if was > mine and now > was:
            # a pass in the move that ends the race belongs to the last lap
            lap = max(1, car.crossings)
            if race.laps is not None:
                lap = min(lap, race.laps)
            race.overtakes.append(Overtake(rnd, i, j, tile, space, lap))


def _place(prepared: Prepared, seats: list[_GtSeat], start: RacePosition, laps: int | None) -> int:
    """Put the cars of ``start`` on the track (the others stay on the grid); its round.

    Checked as a DIRT start is (:func:`~trackkit.rules.positions.check_position`), the
    cars on the grid with them; then each :class:`~trackkit.rules.state.GtCar` says
    whether the car is off the road, its tyres and its flag (LOC-6, GT-2..4).
    """
    from trackkit.rules.positions import check_position, driver_label

    cars: list[CarState | None] = [
        replace(car, car_id=i)
        if car is not None and car.space is not None
        else seats[i].car
        if i < len(seats)
        else None  # more cars than drivers: refused
        for i, car in enumerate(start.cars)
    ]
    cars += [seat.car for seat in seats[len(cars) :]]
    check_position(
        prepared.track,
        prepared.ruleset,
        cars,
        who=[driver_label(i, seat.spec.name) for i, seat in enumerate(seats)],
        boards=[seat.boards["right"] for seat in seats],
        gt=start.gt,
        laps=laps,
        mud=start.mud,
        rounds_played=start.round,
    )
    for i, seat in enumerate(seats):
        car = cars[i]
        assert car is not None
        seat.car = car
        state = start.gt[i] if i < len(start.gt) else None
        if state is not None:
            seat.off = state.off
            seat.tyres = state.tyres or seat.tyres
            seat.yellow = state.yellow
    return start.round
