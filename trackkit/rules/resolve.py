"""Rolling a plan: flat out or one by one, losses of control, damage, time (TURN, LOC, TIME).

:func:`resolve` takes a car's plan, a rolling mode and the one seeded generator of the
race, and returns the new car state, the new table and the events of the turn. Every
random draw (dice, loss-of-control cards, damage tokens) comes from ``rng``.

Examples
--------
>>> import random
>>> from trackkit.rules.testing import position
>>> from trackkit.rules.plans import legal_plans
>>> from trackkit.rules.table import new_table
>>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
>>> plan = next(p for p in legal_plans(ctx) if len(p.steps) == 3)
>>> rng = random.Random(7)
>>> out = resolve(ctx, plan, Mode.FLAT_OUT, rng, table=new_table(ctx.ruleset, rng))
>>> out.car.space, out.car.gear, out.car.second_tokens, out.car.time_seconds
('2:1.1L', 3, 3, 30)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from typing import Literal, NamedTuple, Protocol

from mypy_extensions import mypyc_attr

from trackkit.rules.dice import BOOST, BRAKE, COAST, GEARS, LEADER, Dice, Die, DieKind
from trackkit.rules.plans import Plan, PlanContext, PlanStep
from trackkit.rules.reorder import loss_orders, reroute
from trackkit.rules.state import CarState, Damage
from trackkit.rules.table import Table
from trackkit.rules.track import Track, per_track

__all__ = [
    "DefaultPolicy",
    "Event",
    "Mode",
    "Outcome",
    "RollPolicy",
    "RollView",
    "loss_orders",
    "reroute",
    "resolve",
    "roll_units",
    "securing_cost",
    "sisu_ready",
    "stage_time",
]


class Mode(StrEnum):
    """How the dice are rolled (TURN-3)."""

    FLAT_OUT = "flat-out"
    ONE_BY_ONE = "one-by-one"


class Event(NamedTuple):
    """Something that happened in a turn; JSON-friendly for replay files.

    (A named tuple: immutable and hashable, and a race makes thousands of them, which a
    frozen dataclass is three times slower to build.)
    """

    kind: str
    space: str | None = None
    die: str | None = None
    value: int | None = None
    note: str | None = None


class RollView(NamedTuple):
    """What a player sees before rolling the next dice one by one (TURN-5).

    Rolling one by one, each die is rolled or secured on its own; only the dice that must
    be rolled together -- a climb pair (CLIMB-4), a boost with its gear die (MOVE-5) -- come
    as one. ``dice`` are the dice asked about now, ``unit`` their place among the step's
    (:func:`roll_units`); ``cost_to_secure`` what securing them costs. The player may stop
    only before a step's first dice (``unit`` 0): a move is not left half made.
    """

    step_index: int
    step: PlanStep
    dangers: int
    second_tokens: int
    secured: int
    cost_to_secure: int
    dice: tuple[Die, ...] = ()
    unit: int = 0

    @property
    def can_stop(self) -> bool:
        """Whether stopping is open now (before a step's first dice)."""
        return self.unit == 0


class RollPolicy(Protocol):
    """A player's choices while rolling (bots implement this)."""

    def before_roll(self, view: RollView) -> Literal["roll", "secure", "stop"]:
        """One by one: roll the next dice, secure them, or stop here (``view.can_stop``)."""

    def use_sisu(self, dangers: int, limit: int) -> bool:
        """Flip the SISU token to cancel this turn's danger results, rolled and to come (LOC-7)?"""

    def choose_loc_step(self, candidates: list[int]) -> int:
        """Flat out: the step the re-placed dice lose control on (TURN-4).

        ``candidates`` are indices of the plan's steps, in order. DIRT: the steps where
        the planned order's dangers reach the limit. GT: every step where some order of
        the thrown dice on the plan's spaces loses control (:func:`loss_orders`).
        """


# compiled (setup.py), the policy may still be subclassed by interpreted code
@mypyc_attr(allow_interpreted_subclasses=True)
class DefaultPolicy:
    """Roll every die, flip SISU when it saves the turn, lose control as late as possible."""

    def before_roll(self, view: RollView) -> Literal["roll", "secure", "stop"]:
        """Always roll."""
        return "roll"

    def use_sisu(self, dangers: int, limit: int) -> bool:
        """Flip it whenever the dice reached the limit."""
        return dangers >= limit

    def choose_loc_step(self, candidates: list[int]) -> int:
        """The furthest step."""
        return candidates[-1]


#: The default choice of where control goes flat out: the furthest step (TURN-4 DEFAULT).
_FURTHEST = DefaultPolicy.choose_loc_step


@dataclass(slots=True)
class Outcome:
    """The result of a turn."""

    car: CarState
    table: Table
    events: list[Event] = field(default_factory=list)
    lost_control: bool = False


def stage_time(car: CarState, seconds_per_token: int = 1) -> int:
    """Stage time: the time cards less one second per second token (TIME-2 DEFAULT)."""
    return car.time_seconds - seconds_per_token * car.second_tokens


def securing_cost(already: int, dice: int) -> int:
    """Second tokens to secure ``dice`` more dice after ``already`` this turn (TURN-5)."""
    return dice * already + dice * (dice + 1) // 2  # already+1 + ... + already+dice


def roll_units(step: PlanStep) -> tuple[tuple[Die, ...], ...]:
    """A step's dice as they are rolled one by one (TURN-5).

    Each die on its own -- a gear die and the brake dice beside it too -- except the dice
    that must be rolled together: a boost with its gear die (MOVE-5) and a climb pair,
    coast with boost or brake (CLIMB-4). Flat out, all dice are rolled at once anyway.
    """
    return _units(step.dice)


@lru_cache(maxsize=256)
def _units(dice: tuple[Die, ...]) -> tuple[tuple[Die, ...], ...]:
    if len(dice) <= 1:
        return (dice,) if dice else ()
    if dice[0].kind is not DieKind.GEAR or any(d.kind is DieKind.BOOST for d in dice):
        return (dice,)  # rule: MOVE-5, CLIMB-4 (rolled and secured together)
    return tuple((d,) for d in dice)  # rule: TURN-5 (the gear die and each brake die alone)


def sisu_ready(ctx: PlanContext, space: str | None = None) -> bool:
    """Whether the car could flip its SISU token on ``space`` (default: where it stands).

    The token must still be unflipped (:attr:`CarState.sisu_token`) and sit where it works
    on the space's surface (:attr:`Dashboard.sisu`, DASH-3, LOC-7).
    """
    car = ctx.car
    if not car.sisu_token or not ctx.dashboard.sisu:
        return False
    where = space if space is not None else car.space
    if where is None:
        return False
    return ctx.track.spaces[where].surface in ctx.dashboard.sisu


_GEAR = DieKind.GEAR  # enum members are slow to look up in the hot loop
#: Dice that earn a second token flat out (TURN-4).
_EARNS = frozenset({DieKind.GEAR, DieKind.COAST, DieKind.LEADER})


#: Rolls one die: whether it shows a danger face.
_Roll = Callable[[Die], bool]

#: The events of a step, by its id (the move tables hand the same steps to every plan),
#: with the step: per die, its roll's event when safe and when a danger; the move's.
_STEP_EVENTS: dict[int, tuple[PlanStep, tuple[tuple[Event, Event], ...], Event, int]] = {}


def _events_of(step: PlanStep) -> tuple[tuple[tuple[Event, Event], ...], Event, int]:
    """The roll events of each die of ``step`` (safe, danger), its move event, and how many
    of its dice earn a second token flat out (TURN-4): made once a step (events are
    immutable, and a race logs thousands)."""
    hit = _STEP_EVENTS.get(id(step))
    if hit is None or hit[0] is not step:
        if len(_STEP_EVENTS) >= 8192:
            _STEP_EVENTS.clear()
        on = step.placed_on
        rolls = tuple(
            (Event("roll", on, d.label, 0), Event("roll", on, d.label, 1)) for d in step.dice
        )
        move = Event("move", step.space, step.dice_label, step.speed)
        earns = sum(1 for d in step.dice if d.kind in _EARNS)
        hit = _STEP_EVENTS[id(step)] = (step, rolls, move, earns)
    return hit[1], hit[2], hit[3]


#: The dice every plan is made of (module constants: their ids stay theirs).
_DICE = (*GEARS, COAST, LEADER, BRAKE, BOOST)
#: Danger faces by the id of a die of :data:`_DICE`, per ruleset's counts (kept with them).
_FACES: dict[int, tuple[dict[tuple[str, int], int], dict[int, int]]] = {}


def _faces_of(counts: dict[tuple[str, int], int]) -> dict[int, int]:
    """``counts`` (danger faces by kind and value) by the id of each die of :data:`_DICE`."""
    hit = _FACES.get(id(counts))
    if hit is None or hit[0] is not counts:
        if len(_FACES) >= 16:
            _FACES.clear()
        faces = {id(d): counts[d.kind, d.value] for d in _DICE if (d.kind, d.value) in counts}
        hit = _FACES[id(counts)] = (counts, faces)
    return hit[1]


def _roller(ctx: PlanContext, rng: random.Random, dice: Dice | None) -> _Roll:
    """How this turn's dice are rolled: ``dice``, or the race's generator (DICE-1)."""
    counts = ctx.ruleset.danger_counts
    if dice is None and type(rng) is random.Random:
        # what SeededDice(rng) does, without a call through it per die: rng.randrange(6)
        # as Random draws it (three bits until they show 0..5), the same numbers in the
        # same order; a die's danger faces read by the die (the plans reuse the same dice)
        getrandbits = rng.getrandbits
        faces = _faces_of(counts)

        def seeded(die: Die) -> bool:
            r = getrandbits(3)
            while r >= 6:
                r = getrandbits(3)
            n = faces.get(id(die))
            return r < (n if n is not None else counts[die.kind, die.value])

        return seeded
    if dice is None:  # another generator: its own randrange
        randrange = rng.randrange
        return lambda die: randrange(6) < counts[die.kind, die.value]
    roll = dice.danger
    return lambda die: roll(die, counts[die.kind, die.value])


def resolve(
    ctx: PlanContext,
    plan: Plan,
    mode: Mode,
    rng: random.Random,
    *,
    table: Table,
    policy: RollPolicy | None = None,
    dice: Dice | None = None,
) -> Outcome:
    """Roll ``plan`` for ``ctx.car`` and end its turn.

    Parameters
    ----------
    ctx : PlanContext
        The position the plan was made in.
    plan : Plan
        One of :func:`~trackkit.rules.plans.legal_plans` (the empty plan: the car stays).
    mode : Mode
        Flat out or one by one.
    rng : random.Random
        The race's seeded generator: the same seed replays the same turn. It shuffles a
        deck that runs out and draws damage tokens; it rolls the dice too, unless ``dice``
        is given.
    table : Table
        Decks, damage bag and mud before the turn (:meth:`Table.stack` puts chosen cards
        on top of a deck).
    policy : RollPolicy, optional
        The player's choices (default: :class:`DefaultPolicy`).
    dice : Dice, optional
        Where the dice rolls come from (default: ``rng``, as
        :class:`~trackkit.rules.dice.SeededDice` rolls them):
        :class:`~trackkit.rules.dice.ScriptedDice` fixes them.

    Returns
    -------
    Outcome
        The car after the turn, the table, the events, and whether control was lost.

    Raises
    ------
    DiceScriptError
        If scripted ``dice`` run out or were written for other dice.

    Examples
    --------
    A DIRT car in gear 4 a space before the 2/3 corner of 217b plans G5, then G4 into
    the inner lane (limit 2): over the limit, control is lost there whatever the dice
    show (CORNER-1); the card on top of the gear-4 deck is a spin (LOC-3: 60 s, gear 0).

    >>> from trackkit.rules.dice import ScriptedDice
    >>> from trackkit.rules.plans import legal_plans
    >>> from trackkit.rules.positions import position
    >>> from trackkit.rules.table import new_table
    >>> ctx = position(["202a", "205a", {"tile": "217b", "turn": "left"}, "203a"],
    ...                space="2:1.3L", gear=4)
    >>> plan = next(p for p in legal_plans(ctx) if str(p) == "3:1.1L G5 > 3:2.I1 G4 !corner")
    >>> rng = random.Random(1)
    >>> table = new_table(ctx.ruleset, rng).stack(4, ["spin"])
    >>> out = resolve(ctx, plan, Mode.FLAT_OUT, rng, table=table,
    ...               dice=ScriptedDice(["safe", "danger"]))
    >>> out.lost_control, out.car.space, out.car.gear, out.car.time_seconds
    (True, '3:2.I1', 0, 60)
    >>> [(e.kind, e.note) for e in out.events if e.kind in ("loss-of-control", "card")]
    [('loss-of-control', 'corner'), ('card', 'spin')]
    """
    policy = policy or DefaultPolicy()
    roll = _roller(ctx, rng, dice)
    if mode is Mode.FLAT_OUT:
        return _flat_out(ctx, plan, rng, roll, table, policy)
    return _one_by_one(ctx, plan, rng, roll, table, policy)


def _flat_out(
    ctx: PlanContext,
    plan: Plan,
    rng: random.Random,
    roll: _Roll,
    table: Table,
    policy: RollPolicy,
) -> Outcome:
    rules = ctx.ruleset
    events: list[Event] = []
    add = events.append
    rolled: list[list[bool]] = []
    total = clouds = earned = 0
    low = 99
    for step in plan.steps:  # rule: TURN-4 (roll every planned die together)
        results = []
        rolls, _move_event, earns = _events_of(step)
        earned += earns  # rule: TURN-4 (a second token a gear, coast or leader die)
        for k, die in enumerate(step.dice):
            hit = roll(die)
            results.append(hit)
            add(rolls[k][1 if hit else 0])
            total += hit
        rolled.append(results)
        if step.cloud:
            clouds += 1  # rule: CLIMB-8 (a danger that cannot be cancelled)
        if step.hazards:
            clouds += step.hazards  # rule: CORNER-4, CORNER-5 (GT: dangers whatever the dice)
        if step.limit < low:
            low = step.limit
    car = ctx.car
    if plan.steps and plan.steps[0].flying and rolled[0][0]:
        # rule: GT-1 (the flying start's 2 shows danger: one space, gear 2, the turn is over;
        # a loss of control the throw would have made is ignored)
        first = plan.steps[0]
        events.append(Event("flying-start", first.placed_on, first.dice_label, 1))
        if earned:
            events.append(Event("seconds", value=earned))
        moved = _Moved()
        table = _move(ctx, car.car_id, plan.steps[:1], rng, table, events, moved)
        tokens = car.second_tokens + earned
        return _end_turn(ctx, car, moved, plan.steps[:1], table, events, tokens, car.sisu_token)
    sisu = False
    if (
        total
        and sisu_ready(ctx)  # rule: LOC-7 (flat out: thrown from where the car stands)
        and rules.loses_control(total + clouds, low)
        and not rules.loses_control(clouds, low)
        and policy.use_sisu(total + clouds, low)
    ):
        sisu = True  # rule: LOC-7 (the SISU token cancels this turn's danger results)
        events.append(Event("sisu"))
    # a jump's danger face is a track element: SISU does not cancel it (LOC-7)
    jump_hits = [bool(r) and r[0] for r in rolled]
    if sisu:
        rolled = [[False] * len(r) for r in rolled]

    # Where control is lost: a track element first; else the dice (re-placed, TURN-4).
    track_loc = None
    for j, step in enumerate(plan.steps):
        if step.loc or (step.jump_risk and jump_hits[j]):
            track_loc = j  # rule: CORNER-1, JUMP-1
            break
    candidates = []
    # the dangers only add up and the lowest limit only falls: a plan whose every danger
    # keeps control at its lowest limit loses it at no step (most turns: no step to look at)
    if rules.loses_control((0 if sisu else total) + clouds, low):
        dangers = 0
        low_so_far = 99
        for j, step in enumerate(plan.steps):
            dangers += sum(rolled[j]) + (1 if step.cloud else 0) + step.hazards
            low_so_far = min(low_so_far, step.limit)
            if track_loc is not None and j > track_loc:
                break
            if rules.loses_control(dangers, low_so_far):
                candidates.append(j)
    # rule: TURN-4 (the tokens are earned with a loss of control too)
    tokens = car.second_tokens + earned
    if earned:
        events.append(Event("seconds", value=earned))
    if ctx.gt is not None and (candidates or track_loc is not None):
        # rule: TURN-4 (GT: flat out, the dice may take another route that keeps control)
        other = reroute(ctx, plan, total if not sisu else 0)
        if other is not None:
            events.append(Event("reroute", other.end, note=str(other)))
            moved = _Moved()
            table = _move(ctx, car.car_id, other.steps, rng, table, events, moved)
            return _end_turn(
                ctx, car, moved, other.steps, table, events, tokens, car.sisu_token and not sisu
            )
        # rule: TURN-4 (GT DEFAULT: the thrown dice in any order the plan's spaces allow)
        orders = {}
        if type(policy).choose_loc_step is not _FURTHEST:
            orders = loss_orders(ctx, plan, rolled)
        # (else the furthest step, the last: the planned order always loses control there
        # once it does anywhere, and is the order taken there: no search)
        if orders:  # (none: a plan not of this position; its own order as thrown)
            candidates, track_loc = sorted(orders), None
    else:
        orders = {}
    loc_at = None
    if candidates:
        loc_at = policy.choose_loc_step(candidates)
        cause = "dangers"
    placed = plan.steps
    if orders and loc_at is not None:
        placed, over = orders[loc_at]
        if not over:
            cause = placed[loc_at].loc or "corner"
    elif track_loc is not None and (loc_at is None or track_loc < loc_at):
        loc_at, cause = track_loc, plan.steps[track_loc].loc or "jump"
    steps = placed if loc_at is None else placed[: loc_at + 1]
    moved = _Moved()
    table = _move(ctx, car.car_id, steps, rng, table, events, moved)
    token = car.sisu_token and not sisu
    if loc_at is not None:
        lost = placed[loc_at]
        return _lose_control(ctx, car, moved, lost, cause, rng, table, events, tokens, token)
    return _end_turn(ctx, car, moved, steps, table, events, tokens, token)


def _one_by_one(
    ctx: PlanContext,
    plan: Plan,
    rng: random.Random,
    roll: _Roll,
    table: Table,
    policy: RollPolicy,
) -> Outcome:
    rules = ctx.ruleset
    loses_control = rules.loses_control
    before_roll = policy.before_roll
    events: list[Event] = []
    add = events.append
    shortcuts = _shortcuts(ctx.track)
    car = ctx.car
    dangers = 0  # danger results that count: rolled (unless cancelled) and clouds
    clouds = 0
    secured = 0
    flipped = False  # the SISU token was flipped this turn (LOC-7)
    done: list[PlanStep] = []
    moved = _Moved()
    for j, step in enumerate(plan.steps):
        cause = None
        stopped = False
        on = step.placed_on
        rolls, move_event, _earns = _events_of(step)
        # rule: TURN-5 (each die rolled or secured on its own; pairs together)
        units = (step.dice,) if len(step.dice) == 1 else roll_units(step)
        for k, dice in enumerate(units):
            cost = securing_cost(secured, len(dice))
            view = RollView(j, step, dangers, car.second_tokens, secured, cost, dice, k)
            choice = before_roll(view)
            if choice == "stop" and k == 0:  # rule: TURN-5 (stop at any time)
                add(Event("stop", on))
                stopped = True
                break
            hits = 0
            short = False
            if choice == "secure" and car.second_tokens >= cost:
                # rule: TURN-5, CLIMB-4 (rising cost; a pair is paid for together)
                car = replace(car, second_tokens=car.second_tokens - cost)
                secured += len(dice)
                add(Event("secure", on, "+".join(d.label for d in dice), cost))
            else:
                # the die's place in the step: k + i (dice rolled together are its one unit)
                for i, die in enumerate(dice):
                    if roll(die):
                        add(rolls[k + i][1])
                        if k == 0 and i == 0 and step.jump_risk:
                            cause = "jump"  # rule: JUMP-1 (the jump's die: a track element)
                        if step.flying:
                            short = True  # rule: GT-1 (the flying start's 2 shows danger)
                        hits += 1
                    else:
                        add(rolls[k + i][0])
            if short:
                # rule: GT-1 (one space forward in gear 2, and the turn is over)
                add(Event("flying-start", on, step.dice_label, 1))
                done.append(step)
                table = _move(ctx, car.car_id, (step,), rng, table, events, moved)
                return _end_turn(
                    ctx, car, moved, done, table, events, car.second_tokens, car.sisu_token
                )
            if k == 0 and step.cloud:
                clouds += 1  # rule: CLIMB-8 (with the first die on the tile)
                dangers += 1
            if k == 0 and step.hazards:
                clouds += step.hazards  # rule: CORNER-4, CORNER-5 (GT: whatever the dice)
                dangers += step.hazards
            if not flipped:
                dangers += hits  # rule: LOC-7 (after the flip, every danger rolled is void)
            if cause is None and loses_control(dangers, step.limit):
                # rule: TURN-6 (per surface, one by one: on the die that reached the limit)
                if (
                    not flipped
                    and dangers > clouds
                    and not loses_control(clouds, step.limit)
                    and sisu_ready(ctx, on)
                    and policy.use_sisu(dangers, step.limit)
                ):
                    car = replace(car, sisu_token=False)  # rule: LOC-7
                    add(Event("sisu"))
                    flipped = True
                    dangers = clouds
                else:
                    cause = "dangers"
            if cause is not None:
                break
        if stopped:
            break
        if step.loc:
            cause = step.loc  # rule: CORNER-1, JUMP-1 (whatever the dice)
        done.append(step)
        # the move, as _move makes it (written out: one by one, it is made step by step)
        if shortcuts:
            table = _enter(ctx, car.car_id, step, shortcuts, rng, table, events, moved)
        moved.last = step
        add(move_event)
        if step.lap:  # rule: BOARD-3 (over the start/finish line: a lap begins or ends)
            moved.laps += 1
            add(Event("lap", step.space))
        if step.finishes:  # rule: BOARD-3 (a finished car leaves the track)
            add(Event("finish", step.space))
        if cause:
            return _lose_control(
                ctx, car, moved, step, cause, rng, table, events, car.second_tokens, car.sisu_token
            )
        if step.finishes:
            break
    return _end_turn(ctx, car, moved, done, table, events, car.second_tokens, car.sisu_token)


@dataclass(slots=True)
class _Moved:
    """Where a turn's moves took the car: the car state is built once, at the end."""

    last: PlanStep | None = None
    coast_damage: int = 0
    laps: int = 0
    """Crossings of the start/finish line (GT, BOARD-3)."""

    def apply(self, car: CarState) -> tuple[str | None, int, bool]:
        """The car's space, gear and finished flag after the moves."""
        if self.last is None:
            return car.space, car.gear, car.finished
        return self.last.space, self.last.speed, car.finished or self.last.finishes


def _move(
    ctx: PlanContext,
    car_id: int,
    steps: list[PlanStep] | tuple[PlanStep, ...],
    rng: random.Random,
    table: Table,
    events: list[Event],
    moved: _Moved,
) -> Table:
    """Move through ``steps``: shortcut tokens are drawn on entering (SHORTCUT-2)."""
    shortcuts = _shortcuts(ctx.track)
    add = events.append
    for step in steps:
        if shortcuts:  # (most stages have none: no space of the step to look at)
            table = _enter(ctx, car_id, step, shortcuts, rng, table, events, moved)
        moved.last = step
        add(_events_of(step)[1])
        if step.lap:  # rule: BOARD-3 (over the start/finish line: a lap begins or ends)
            moved.laps += 1
            add(Event("lap", step.space))
        if step.finishes:  # rule: BOARD-3 (a finished car leaves the track)
            add(Event("finish", step.space))
            break
    return table


def _enter(
    ctx: PlanContext,
    car_id: int,
    step: PlanStep,
    shortcuts: frozenset[str],
    rng: random.Random,
    table: Table,
    events: list[Event],
    moved: _Moved,
) -> Table:
    """The shortcut tokens drawn on the spaces ``step`` enters (SHORTCUT-2)."""
    for node in (*step.passed, step.space) if step.passed else (step.space,):
        if node not in shortcuts:
            continue
        info = ctx.track.spaces[node]
        token, table = table.draw_token(rng, ctx.ruleset)
        side = token[1]
        events.append(Event("shortcut-token", node, note=side))
        if side == "coast":
            if info.surface in ctx.dashboard.puncture_proof:  # rule: DASH-4, DASH-3
                table = table.put_back(token)
            else:
                moved.coast_damage += 1
        elif side == "mud":  # rule: SHORTCUT-2 (-1 on this tile, not for the drawer)
            table = replace(table, mud=(*table.mud, (info.tile, car_id)))
    return table


@per_track
def _shortcuts(track: Track) -> frozenset[str]:
    """The shortcut spaces of a track."""
    return frozenset(n for n, info in track.spaces.items() if info.kind == "shortcut")


def _card_seconds(ctx: PlanContext, gear: int) -> int:
    return ctx.ruleset.time_cards[max(1, min(gear, 6))]


def _end_turn(
    ctx: PlanContext,
    car: CarState,
    moved: _Moved,
    steps: list[PlanStep] | tuple[PlanStep, ...],
    table: Table,
    events: list[Event],
    tokens: int,
    sisu_token: bool,
) -> Outcome:
    """Take the turn's time card (TURN-8, TIME-1) and apply shortcut coast damage.

    ``tokens`` and ``sisu_token`` are the car's second tokens and SISU token after the
    rolls: the car's state is built once, here.
    """
    space, gear, finished = moved.apply(car)
    seconds = None
    if ctx.ruleset.time_cards:  # (none in GT: the race is for places, TIME-2)
        gear_dice = False
        for s in steps:
            if any(d.kind is _GEAR for d in s.dice):
                gear_dice = True
                break
        if gear_dice or not car.cards or car.top_card_loc:
            # rule: TURN-8 (the current gear's card; DEFAULT: gear 0 takes the gear-1 card)
            seconds = _card_seconds(ctx, gear)
        else:
            seconds = car.cards[-1]  # rule: TURN-8 (coast/leader only: the top card again)
    if not steps and not any(e.kind == "stop" for e in events):
        events.append(Event("stay", space))  # blocked or no plan: TURN-7
    if seconds is not None:
        events.append(Event("time", value=seconds, note=f"gear {gear}"))
    after = _after(car, moved, space, gear, car.on_track, finished, car.damage, tokens,
                   sisu_token, seconds, False)  # fmt: skip
    return Outcome(after, table, events)


def _after(
    car: CarState,
    moved: _Moved,
    space: str | None,
    gear: int,
    on_track: bool,
    finished: bool,
    damage: Damage,
    tokens: int,
    sisu_token: bool,
    seconds: int | None,
    lost: bool,
) -> CarState:
    """The car at the end of its turn, its time card (``seconds``; None: none) taken.

    Built whole: every turn makes one (``dataclasses.replace`` is slow). The coast damage
    of the shortcuts crossed is applied now (SHORTCUT-2, DASH-4); ``lost``: the card
    taken was for a loss of control (TURN-8 takes a new card next turn).
    """
    coast = car.pending_coast_damage + moved.coast_damage
    if coast:
        damage = replace(damage, coast=damage.coast + coast)
    time, cards, top_card_loc = car.time_seconds, car.cards, car.top_card_loc
    if seconds is not None:
        time, cards, top_card_loc = time + seconds, (*cards, seconds), lost
    return CarState(
        car.car_id,
        space,
        gear,
        on_track and not finished,
        finished,
        damage,
        0,
        tokens,
        sisu_token,
        time,
        cards,
        top_card_loc,
        car.turns + 1,
        car.crossings + moved.laps,  # rule: BOARD-3 (the line crossed)
    )


def _lose_control(
    ctx: PlanContext,
    car: CarState,
    moved: _Moved,
    step: PlanStep,
    cause: str,
    rng: random.Random,
    table: Table,
    events: list[Event],
    tokens: int,
    sisu_token: bool,
) -> Outcome:
    """Draw the gear's loss-of-control card: SISU, spin or crash (LOC-1..5, DAMAGE-2).

    With a GT ruleset, the GT player board's table instead (LOC-6, :func:`_gt_lose_control`).
    """
    if ctx.ruleset.gt is not None:
        return _gt_lose_control(ctx, car, moved, step, cause, rng, table, events, tokens)
    gear = step.speed  # rule: LOC-1 DEFAULT (the gear of the die that caused it)
    card, table = table.draw_card(gear, rng, ctx.ruleset)
    events.append(Event("loss-of-control", step.space, value=gear, note=cause))
    events.append(Event("card", step.space, value=gear, note=card))
    rules = ctx.ruleset
    damage = car.damage
    space, _gear, finished = moved.apply(car)
    on_track = True
    # rule: LOC-2 (SISU: the card's normal time); LOC-3, LOC-4 (spin, crash: 60 s)
    seconds = _card_seconds(ctx, gear) if card == "sisu" else rules.loss_of_control_seconds
    if card == "crash":
        on_track = False  # rule: LOC-4, TRAFFIC-4 (off the track, blocks no one)
        danger = ctx.track.spaces[step.space].danger
        for _ in range(rules.crash_tokens(gear, danger)):  # rule: DAMAGE-2
            # rule: DAMAGE-1 DEFAULT (a green crash token stays out of the bag)
            damage, table = _damage_token(ctx, damage, rng, table, events, step.space, False)
    after = _after(car, moved, space, rules.restart_gear, on_track, finished, damage, tokens,
                   sisu_token, seconds, True)  # fmt: skip
    events.append(Event("time", value=seconds, note=card))
    return Outcome(after, table, events, lost_control=True)


def _gt_lose_control(
    ctx: PlanContext,
    car: CarState,
    moved: _Moved,
    step: PlanStep,
    cause: str,
    rng: random.Random,
    table: Table,
    events: list[Event],
    tokens: int,
) -> Outcome:
    """GT: gear 0 (stopped where it is) or gear 00 (off the road), and damage (LOC-6).

    The player board's table, by the gear of the die to blame and the tile's danger,
    says which and how many damage tokens are drawn (DAMAGE-4). A gear 00 car is off the
    road (``on_track`` False, TRAFFIC-4): the race sits it out for its next turn.
    """
    rules = ctx.ruleset.gt
    assert rules is not None
    gear = max(1, min(step.speed, 6))
    danger = ctx.track.spaces[step.space].danger
    level: Literal["low", "medium", "high"] = (
        "low" if danger == "low" else "medium" if danger == "medium" else "high"
    )
    loss = rules.loss_of_control[gear][level]
    events.append(Event("loss-of-control", step.space, value=step.speed, note=cause))
    events.append(Event("gear", step.space, note=loss.gear))  # rule: LOC-6
    damage = car.damage
    for _ in range(loss.damage):  # rule: LOC-6, DAMAGE-4 (tokens from the board's table)
        # rule: GT-3, GT-4, DAMAGE-4 (the weather, yellow and green tokens act once and go
        # back into the bag)
        damage, table = _damage_token(ctx, damage, rng, table, events, step.space, True)
    space, _gear, finished = moved.apply(car)
    # rule: TURN-4, GT-5 (focus tokens are earned all the same)
    after = _after(car, moved, space, ctx.ruleset.restart_gear, loss.gear == "0", finished,
                   damage, tokens, car.sisu_token, None, False)  # fmt: skip
    return Outcome(after, table, events, lost_control=True)


def _damage_token(
    ctx: PlanContext,
    damage: Damage,
    rng: random.Random,
    table: Table,
    events: list[Event],
    space: str,
    back: bool,
) -> tuple[Damage, Table]:
    """Draw damage tokens until one names a die the car has, or names none (DAMAGE-1..4).

    A die token stays on the dashboard (until a pit stop, GT-2); one naming a die the car
    does not have goes back and another is drawn (DAMAGE-3). A die the car has on some
    surface of its dashboard is present, whichever surface the crash is on: an Unlimited
    car's brake in the right column takes a brake token. A token that names no die (green;
    GT's weather and yellow flag too) ends the draw: ``back``, it goes back into the bag
    (the race turns the weather and raises the flag from the event).
    """
    board = ctx.dashboard
    have = {kind: board.most(kind) for kind in ("gear", "brake", "coast")}
    for _ in range(len(table.bag) + 60):
        token, table = table.draw_token(rng, ctx.ruleset)
        kind = token[0]
        if kind not in have:
            events.append(Event("damage", space, note=kind))
            return damage, table.put_back(token) if back else table
        if getattr(damage, kind) < have[kind]:
            events.append(Event("damage", space, note=kind))
            return replace(damage, **{kind: getattr(damage, kind) + 1}), table
        table = table.put_back(token)  # rule: DAMAGE-3 (a die it lacks: draw again)
    return damage, table
