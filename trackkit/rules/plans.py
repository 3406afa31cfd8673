"""Legal turn plans: every sequence of steps, each a space and the dice placed on it.

A plan is what a player lays out before rolling (TURN-3): from the car's space and gear,
each step moves into a next space (graph successor) with one speed die — a gear die one
above or below the current speed, a gear die with brake dice or a boost die, or a coast /
leader die — and the plan may end after any die (MOVE-6). The rules of docs/rules.md sections
MOVE, CORNER 1-3, SHORTCUT, JUMP, FORD, TRAFFIC 1-4, CLIMB and DASH decide which steps
exist; :mod:`trackkit.rules.resolve` rolls them.

Examples
--------
>>> from trackkit.rules.testing import position
>>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
>>> plans = list(legal_plans(ctx))
>>> [str(p) for p in plans[:3]]
['1:1.2L G1', '1:1.2L G1 > 1:1.3L G2', '1:1.2L G1 > 1:1.3L G2 > 2:1.1L G3']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from trackkit.rules.dashboard import Dashboard
from trackkit.rules.dice import BOOST, BRAKE, COAST, GEARS, LEADER, Die, DieKind
from trackkit.rules.ruleset import Ruleset
from trackkit.rules.state import CarState, OtherCar
from trackkit.rules.track import SpaceInfo, Track

__all__ = [
    "GtTurn",
    "Plan",
    "PlanBuilder",
    "PlanContext",
    "PlanStep",
    "count_plans",
    "legal_plans",
    "past_ahead",
    "plans_by_first",
    "turn_ends",
    "yellow_ahead",
]


class PlanStep(NamedTuple):
    """One move: the car ends on ``space``; ``dice`` were placed on ``placed_on``.

    ``loc`` names a loss of control that happens whatever the roll ("corner": over the
    limit, CORNER-1; "jump": two or more over the jump's number, JUMP-1); ``jump_risk``
    marks a jump one over its number (control is lost if the speed die shows danger).
    ``free`` is The Climb's move without a die (CLIMB-5). GT: ``hazards`` counts the
    danger results the step adds whatever the dice (a warning sign on a dotted line,
    CORNER-4; the gear of a warning triangle, CORNER-5), ``flying`` marks a flying start
    (GT-1) and ``lap`` a step over the start/finish line (BOARD-3).

    (A named tuple: immutable and hashable, and the plan search makes tens of thousands
    of them a race, which a frozen dataclass is several times slower to build.)
    """

    space: str
    dice: tuple[Die, ...]
    speed: int
    placed_on: str
    limit: int
    passed: tuple[str, ...] = ()
    loc: str | None = None
    jump_risk: bool = False
    cloud: bool = False
    free: bool = False
    finishes: bool = False
    hazards: int = 0
    flying: bool = False
    lap: bool = False

    def __str__(self) -> str:
        return f"{self.space} {self.dice_label}" + (f" !{self.loc}" if self.loc else "")

    @property
    def dice_label(self) -> str:
        """The step's dice as logs write them: ``G3``, ``G2+B``, ``C+Bo``; ``free`` (CLIMB-5)."""
        dice = self.dice
        hit = _LABELS.get(id(dice))  # the plan generator reuses its dice tuples
        if hit is not None and hit[0] is dice:
            return hit[1]
        label = "+".join([d.label for d in dice]) or "free"
        if len(_LABELS) >= 4096:
            _LABELS.clear()
        _LABELS[id(dice)] = (dice, label)  # the tuple is kept with it: its id stays its own
        return label


#: Labels of dice tuples, by the tuple (:attr:`PlanStep.dice_label`).
_LABELS: dict[int, tuple[tuple[Die, ...], str]] = {}


@dataclass(frozen=True, slots=True)
class Plan:
    """A sequence of steps (possibly empty: the car stays put)."""

    steps: tuple[PlanStep, ...]
    _text: str | None = field(default=None, init=False, repr=False, compare=False)

    def __str__(self) -> str:
        if self._text is None:  # every turn's log writes the plan: once per plan
            text = " > ".join([str(s) for s in self.steps]) or "(stay)"
            object.__setattr__(self, "_text", text)
            return text
        return self._text

    @property
    def dice(self) -> list[Die]:
        """Every die of the plan, in placing order."""
        return [d for s in self.steps for d in s.dice]

    @property
    def end(self) -> str | None:
        """The space the plan ends on (None for the empty plan)."""
        return self.steps[-1].space if self.steps else None


@dataclass(frozen=True, slots=True)
class GtTurn:
    """What a Rallyman: GT turn adds to a position.

    ``final_lap``: the car is on its last lap, so the step over the line ends its race
    (BOARD-3). ``yellow``: a yellow flag is out, so no car may overtake or come up next to
    another (TRAFFIC-5, GT-4). ``flying``: a car in gear 0 may shift straight into 2 (GT-1).
    """

    final_lap: bool = False
    yellow: bool = False
    flying: bool = True


@dataclass(slots=True)
class PlanContext:
    """Everything a car's plans depend on: stage, dashboard, car, other cars, order."""

    track: Track
    dashboard: Dashboard
    ruleset: Ruleset
    car: CarState
    others: tuple[OtherCar, ...] = ()
    leader: bool = False
    mud: dict[int, int] = field(default_factory=dict)
    """Extra mud tokens per tile that lower this car's corner limits (SHORTCUT-2)."""
    gt: GtTurn | None = None
    """A Rallyman: GT turn (None: DIRT and The Climb)."""

    def limit_of(self, info: SpaceInfo) -> int | None:
        """A corner or chicane space's limit for this car (printed, less mud)."""
        if info.limit is None or info.kind not in ("corner", "chicane"):
            return info.limit
        return info.limit - self.mud.get(info.tile, 0)


@dataclass(slots=True)
class _Walk:
    """Dice used so far in the plan being built."""

    gears: set[int] = field(default_factory=set)
    brakes: int = 0
    coasts: int = 0
    boosts: int = 0
    tiles: set[int] = field(default_factory=set)
    oxygen: int = 0
    alongside: set[str] = field(default_factory=set)
    """Spaces of the cars the plan has come beside (TRAFFIC-1 asks once per car)."""


# enum members are slow to look up (a descriptor call each time): the hot loop reads these
_GEAR_KIND, _COAST_KIND, _LEADER_KIND = DieKind.GEAR, DieKind.COAST, DieKind.LEADER
#: Kinds of space with a limit a car may not go over (CORNER-1).
_CORNERS = ("corner", "chicane")
_NOTHING: frozenset[str] = frozenset()

#: Dice that move a car one space: (dice, speed after, brake dice, boost dice).
_Option = tuple[tuple[Die, ...], int, int, int]


@lru_cache(maxsize=64)
def _die_options(speed: int, climb: str | None) -> tuple[_Option, ...]:
    return tuple(
        (
            dice,
            v,
            sum(1 for d in dice if d.kind is DieKind.BRAKE),
            sum(1 for d in dice if d.kind is DieKind.BOOST),
        )
        for dice, v in _die_options_uncached(speed, climb)
    )


def _die_options_uncached(speed: int, climb: str | None) -> list[tuple[tuple[Die, ...], int]]:
    """Dice that can move a car at ``speed`` one space, with the speed after (MOVE, CLIMB)."""
    out: list[tuple[tuple[Die, ...], int]] = []
    if climb == "up":  # rule: CLIMB-2, CLIMB-3 (one gear below, or coast + boost)
        if speed - 1 >= 1:
            out.append(((GEARS[speed - 1],), speed - 1))
        if speed >= 1:
            out.append(((COAST, BOOST), speed))
        return out
    if climb == "down":  # rule: CLIMB-2, CLIMB-3 (one gear above, or coast + brake)
        if speed + 1 <= 6:
            out.append(((GEARS[speed + 1],), speed + 1))
        if speed >= 1:
            out.append(((COAST, BRAKE), speed))
        return out
    if speed + 1 <= 6:  # rule: MOVE-2
        out.append(((GEARS[speed + 1],), speed + 1))
    if speed - 1 >= 1:
        out.append(((GEARS[speed - 1],), speed - 1))
    for brakes in range(1, 6):  # rule: MOVE-4 (each brake skips one gear down)
        v = speed - 1 - brakes
        if v < 1:
            break
        out.append(((GEARS[v], *([BRAKE] * brakes)), v))
    if speed + 2 <= 6:  # rule: MOVE-5 (boost: two gears up in one move)
        out.append(((GEARS[speed + 2], BOOST), speed + 2))
    if speed >= 1:  # rule: MOVE-3 (coast keeps the speed; not from gear 0)
        out.append(((COAST,), speed))
    return out


@lru_cache(maxsize=1)
def _flying_options() -> tuple[_Option, ...]:
    """From gear 0, gear 1 as usual, or straight into 2 with no boost die (GT-1)."""
    return (*_die_options(0, None), ((GEARS[2],), 2, 0, 0))


#: A corner with cars in both lanes: no lane matches it (TRAFFIC-3).
_BOTH_LANES = "both"

#: What a step adds to the walk: lead die, brakes, boosts, tile, oxygen, cars come beside.
_Record = tuple[Die, int, int, int, int, tuple[str, ...]]

#: A pruning callback: (steps so far, candidate step) -> whether to keep the candidate.
Prune = Callable[[list[PlanStep], PlanStep], bool]
#: A cheaper one, before a step is built: (steps so far, target space, speed before, after).
PruneMove = Callable[[list[PlanStep], str, int, int], bool]


def legal_plans(
    ctx: PlanContext,
    *,
    max_steps: int | None = None,
    keep: Prune | None = None,
    keep_move: PruneMove | None = None,
    after: Sequence[PlanStep] = (),
    descend: Callable[[Plan], bool] | None = None,
) -> Iterator[Plan]:
    """Every legal non-empty plan of ``ctx.car``, depth first (first steps in graph order).

    With ``after``, only the plans that go on from those first steps (the prefix is walked
    once, not every plan; :class:`PlanBuilder` grows a plan without walking it at all).

    ``max_steps`` limits the plans to that many steps (their first steps, for instance);
    ``keep`` lets a bot skip steps it will never choose (and every plan through them);
    ``keep_move`` does the same from the target space and speeds alone, before the step
    is built (fast). ``descend`` is asked, once a plan has been yielded, whether to go on
    to the plans that extend it (a branch-and-bound search answers from what it saw).
    """
    start = ctx.car.space
    if start is None or not ctx.car.on_track or ctx.car.finished:
        return
    traffic = _Traffic.of(ctx)
    depth = 99 if max_steps is None else max_steps
    yield from _extend(
        ctx,
        start,
        ctx.car.gear,
        _start_walk(ctx, start, traffic),
        [],
        traffic,
        depth=depth,
        keep=keep,
        keep_move=keep_move,
        after=tuple(after),
        descend=descend,
    )


class PlanBuilder:
    """One plan grown a step at a time: the legal next steps after the steps taken so far.

    The same steps, in the same order, as the plans of :func:`legal_plans` that go on from
    :attr:`steps` (with the same ``keep`` and ``keep_move``), without re-walking them: a
    bot that builds its plan greedily asks for :meth:`options` and :meth:`push` es one.

    Examples
    --------
    >>> from trackkit.rules.testing import position
    >>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
    >>> builder = PlanBuilder(ctx)
    >>> [str(s) for s in builder.options()]
    ['1:1.2L G1', '1:1.2R G1']
    >>> builder.push(builder.options()[0])
    >>> [str(s) for s in builder.options()]
    ['1:1.3L G2', '1:1.3L C', '1:1.3R G2', '1:1.3R C']
    >>> str(builder.plan())
    '1:1.2L G1'
    """

    def __init__(
        self,
        ctx: PlanContext,
        *,
        keep: Prune | None = None,
        keep_move: PruneMove | None = None,
        moves_key: Hashable | None = None,
    ) -> None:
        self.ctx = ctx
        self.keep = keep
        self.keep_move = keep_move
        self.moves_key = moves_key
        """Given, on a GT track: ``keep_move`` reads the target space and the two speeds
        alone and ``keep`` the step alone (not the steps so far, nor the cars), and they
        prune alike for every builder on the track given the same key, so their answers
        are remembered with the track's moves."""
        self.steps: list[PlanStep] = []
        self.examined: set[str] = set()
        """Spaces whose traffic the builder read (entering, coming beside; TRAFFIC-1..3).

        Other cars change the builder's steps only through these spaces: each one's
        occupant, the spaces overlapping or beside it, and the lane taken in its corner.
        """
        self._traffic = _Traffic.of(ctx, examined=self.examined)
        start = ctx.car.space
        self._walk = _start_walk(ctx, start, self._traffic) if start is not None else _Walk()
        self._options: list[tuple[PlanStep, _Record | None]] | None = None
        self._undo: list[tuple[_Undo | None, list[tuple[PlanStep, _Record | None]] | None]] = []
        # the tiles whose entering the rest of a plan depends on (oxygen, clouds)
        self._special = frozenset(ctx.track.oxygen) | ctx.track.clouds

    def options(self) -> list[PlanStep]:
        """The legal next steps (none once the plan finishes, loses control or moved free)."""
        return [step for step, _record in self._level()]

    def push(self, step: PlanStep) -> None:
        """Take ``step``, one of :meth:`options`."""
        record = self._record(step)
        undo = _apply(self._walk, *record) if record is not None else None
        self.steps.append(step)
        self._undo.append((undo, self._options))
        self._options = None

    def _record(self, step: PlanStep) -> _Record | None:
        """What ``step``, one of :meth:`options`, records in the walk."""
        level = self._level()
        for option, record in level:
            if option is step:  # the options themselves, as a search hands them back
                return record
        for option, record in level:
            if option == step:
                return record
        raise ValueError(f"{step} is not a legal next step after {self.plan()}")

    def pop(self) -> PlanStep:
        """Take back the last step: the builder is as it was before it (a search backtracks).

        >>> from trackkit.rules.testing import position
        >>> builder = PlanBuilder(position(["202a", "205a", "203a"], space="1:1.1L", gear=0))
        >>> first = builder.options()
        >>> builder.push(first[0])
        >>> builder.pop() == first[0] and builder.options() == first and builder.steps == []
        True
        """
        if not self.steps:
            raise IndexError("no step to take back")
        step = self.steps.pop()
        undo, options = self._undo.pop()
        if undo is not None:
            _unapply(self._walk, undo)
        self._options = options
        return step

    def state(self) -> Hashable:
        """What the steps so far leave to the rest of the plan, as a key.

        The number of steps, the last space and speed, the dice used, the tiles entered that
        carry oxygen or a cloud (CLIMB-7, CLIMB-8), the cars come beside (TRAFFIC-1): two
        plans of one position with the same state have the same legal continuations.
        """
        walk = self._walk
        last = self.steps[-1] if self.steps else None
        special = self._special
        return (
            len(self.steps),
            None if last is None else (last.space, last.speed, last.loc, last.finishes, last.free),
            frozenset(walk.gears),
            walk.brakes,
            walk.coasts,
            walk.boosts,
            frozenset(walk.tiles & special) if special else None,
            walk.oxygen,
            frozenset(walk.alongside) if walk.alongside else None,
        )

    def plan(self, step: PlanStep | None = None) -> Plan:
        """The plan so far (with ``step`` after it, if given)."""
        return Plan((*self.steps, step) if step is not None else tuple(self.steps))

    def _level(self) -> list[tuple[PlanStep, _Record | None]]:
        if self._options is None:
            ctx = self.ctx
            if not self.steps:
                here, speed = ctx.car.space, ctx.car.gear
                if here is None or not ctx.car.on_track or ctx.car.finished:
                    self._options = []
                    return self._options
            else:
                last = self.steps[-1]
                if last.loc is not None or last.finishes or last.free:
                    self._options = []
                    return self._options
                here, speed = last.space, last.speed
            traffic = self._traffic
            gt = ctx.gt
            if traffic.moves is not None and self.moves_key is not None and gt is not None:
                # _level's GT walk, straight from the table (a search asks for it often)
                flying = gt.flying and not self.steps and speed == 0
                table = traffic.moves.get((here, speed, flying, gt.final_lap, self.moves_key))
                if table is None:
                    table = _gt_moves(
                        ctx, traffic.moves, here, speed, flying, self.keep_move, self.keep,
                        self.moves_key,
                    )  # fmt: skip
                if table is not None:
                    self._options = _gt_level(
                        ctx, table, self._walk, self.steps, traffic, None, None
                    )
                    return self._options
            self._options = _level(
                ctx,
                here,
                speed,
                self._walk,
                self.steps,
                self._traffic,
                keep=self.keep,
                keep_move=self.keep_move,
                ref=None,
                moves_key=self.moves_key,
            )
        return self._options


@dataclass(frozen=True, slots=True)
class _Traffic:
    """The other cars as obstacles: spaces no car may enter, corner lanes taken, gears."""

    blocked: frozenset[str]
    lanes_taken: dict[str, str]
    cars_at: dict[str, int]
    """The gear of the blocking car on each space (TRAFFIC-1)."""
    examined: set[str] | None = None
    """If given, every space whose traffic is read is added to it."""
    ahead: float | None = None
    """GT, yellow flag out: how far ahead the nearest car is, mm (TRAFFIC-5)."""
    moves: _GtMoves | None = None
    """GT: the moves of the track and the car's dashboard (:func:`_gt_moves`)."""

    @classmethod
    def of(cls, ctx: PlanContext, examined: set[str] | None = None) -> _Traffic:
        if ctx.gt is not None:  # TRAFFIC-3's corner lanes are DIRT's: GT corners are wide
            cars_at = {o.space: o.gear for o in ctx.others if o.blocks}
            overlaps = ctx.track.overlaps
            covered = set(cars_at)
            for space in cars_at:
                over = overlaps.get(space)
                if over:
                    covered |= over
            moves = _gt_table(ctx.track, ctx.dashboard)
            return cls(frozenset(covered), {}, cars_at, examined, yellow_ahead(ctx), moves)
        occupied: set[str] = set()
        lanes_taken: dict[str, str] = {}
        for other in ctx.others:
            if other.blocks:
                occupied.add(other.space)
                info = ctx.track.spaces.get(other.space)
                if info is not None and info.corner is not None and info.corner_lane is not None:
                    # rule: TRAFFIC-3 (enter by the same lane as the car in the corner; with
                    # cars in both lanes, by neither, whatever order the cars are listed in)
                    taken = lanes_taken.get(info.corner, info.corner_lane)
                    lanes_taken[info.corner] = taken if taken == info.corner_lane else _BOTH_LANES
        blocked = set(occupied)
        for space in occupied:
            blocked |= ctx.track.overlaps.get(space, frozenset())
        cars_at = {o.space: o.gear for o in ctx.others if o.blocks}
        return cls(frozenset(blocked), lanes_taken, cars_at, examined)


#: Front edges closer than this, mm, are level (TRAFFIC-5: level is not past).
LEVEL_MM = 1e-6


def past_ahead(gain: float, ahead: float) -> bool:
    """TRAFFIC-5: whether a space ``gain`` mm on takes the car past a car ``ahead`` mm on.

    Under a yellow flag no car overtakes: no step's front edge goes beyond that of the
    nearest car ahead (:func:`yellow_ahead`). A space level with it is not past it: in
    the next lane it is alongside (``Track.beside``, forbidden on its own account), in
    the same lane it is that car's, and across a free lane it is open (DEFAULT).

    >>> past_ahead(56.6, 56.6), past_ahead(60.0, 56.6)
    (False, True)
    """
    return gain > ahead + LEVEL_MM


def yellow_ahead(ctx: PlanContext) -> float | None:
    """GT, under a yellow flag: how far ahead the nearest car is, mm (else None).

    rule: TRAFFIC-5 (no overtaking under a yellow flag: a step may not take the car past
    the nearest car ahead, :func:`past_ahead`; a car level with it is not ahead).
    """
    here = ctx.car.space
    if ctx.gt is None or not ctx.gt.yellow or here is None:
        return None
    gains = [ctx.track.gain(here, o.space) for o in ctx.others if o.blocks]
    return min((g for g in gains if g > 0), default=None)


def _start_walk(ctx: PlanContext, start: str, traffic: _Traffic) -> _Walk:
    """The walk before the first step: no dice used, alongside the cars beside the start.

    rule: TRAFFIC-1 DEFAULT (a car that begins its turn beside another is alongside it
    already: it needs no gear die to stay or come beside it again this turn). Those cars
    only matter where a step comes beside them, and every such space is examined.
    """
    cars_at = traffic.cars_at
    beside = ctx.track.beside.get(start, frozenset())
    return _Walk(alongside={near for near in beside if near in cars_at})


def _enterable(ctx: PlanContext, info: SpaceInfo, traffic: _Traffic) -> bool:
    # every read of the traffic at a space starts here (beside checks follow on the same space)
    if traffic.examined is not None:
        traffic.examined.add(info.node)
    if info.node in traffic.blocked:  # rule: TRAFFIC-3 (no car may enter an occupied space)
        return False
    lanes_taken = traffic.lanes_taken
    if (
        info.corner is not None
        and info.corner in lanes_taken
        and info.corner_lane != lanes_taken[info.corner]
    ):
        return False  # rule: TRAFFIC-3 (a corner with a car in it: same lane only)
    limit = ctx.limit_of(info)
    return not (limit is not None and info.kind in ("corner", "chicane") and limit <= 0)


def _extend(
    ctx: PlanContext,
    here: str,
    speed: int,
    walk: _Walk,
    stack: list[PlanStep],
    traffic: _Traffic,
    *,
    depth: int,
    keep: Prune | None = None,
    keep_move: PruneMove | None = None,
    after: tuple[PlanStep, ...] = (),
    descend: Callable[[Plan], bool] | None = None,
) -> Iterator[Plan]:
    if depth <= 0:
        return
    n = len(stack)
    ref = after[n] if n < len(after) else None
    options = _level(
        ctx, here, speed, walk, stack, traffic, keep=keep, keep_move=keep_move, ref=ref
    )
    for step, record in options:
        if record is None:  # the free move of CLIMB-5 ends the plan
            yield Plan((*stack, step))
            continue
        undo = _apply(walk, *record)
        stack.append(step)
        go_on = step.loc is None and not step.finishes and depth > 1
        if ref is None:
            plan = Plan(tuple(stack))
            yield plan
            if go_on and descend is not None:
                go_on = descend(plan)
        if go_on:
            yield from _extend(
                ctx,
                step.space,
                step.speed,
                walk,
                stack,
                traffic,
                depth=depth - 1,
                keep=keep,
                keep_move=keep_move,
                after=after,
                descend=descend,
            )
        stack.pop()
        _unapply(walk, undo)


def _level(
    ctx: PlanContext,
    here: str,
    speed: int,
    walk: _Walk,
    stack: list[PlanStep],
    traffic: _Traffic,
    *,
    keep: Prune | None,
    keep_move: PruneMove | None,
    ref: PlanStep | None,
    moves_key: Hashable | None = None,
) -> list[tuple[PlanStep, _Record | None]]:
    """The legal next steps from ``here`` at ``speed`` after ``stack`` (with ``walk``'s dice).

    Each comes with the dice it records in the walk (None for the free move of CLIMB-5);
    with ``ref``, only that step (a prefix being re-walked, not pruned). ``moves_key``: see
    :attr:`PlanBuilder.moves_key`.
    """
    gt = ctx.gt
    if traffic.moves is not None and gt is not None and ref is None:
        flying = gt.flying and not stack and speed == 0
        if moves_key is not None:
            moves = _gt_moves(ctx, traffic.moves, here, speed, flying, keep_move, keep, moves_key)
            keep_move = keep = None  # applied once, in the table
        else:
            moves = _gt_moves(ctx, traffic.moves, here, speed, flying)
        if moves is not None:
            return _gt_level(ctx, moves, walk, stack, traffic, keep, keep_move)
    track = ctx.track
    first = not stack
    out: list[tuple[PlanStep, _Record | None]] = []
    marks = track.marks if gt is not None else None
    flying = gt is not None and gt.flying and first and speed == 0
    for target, climb in track.successors[here]:
        if ref is not None and target != ref.placed_on:
            continue
        info = track.spaces[target]
        if not _enterable(ctx, info, traffic):
            continue
        placed = False
        options = _flying_options() if flying else _die_options(speed, climb)
        mark = marks.get((here, target)) if marks else None
        for dice, new_speed, brakes, boosts in options:
            if ref is not None:
                if new_speed != ref.speed:
                    continue
            elif (
                keep_move is not None
                and climb is None  # a climb line leaves no choice worth pruning (CLIMB-2)
                and not keep_move(stack, target, speed, new_speed)
            ):
                placed = True  # skipped by choice, not blocked by the climb line
                continue
            if gt is None:
                tried = _try_step(ctx, info, dice, new_speed, brakes, boosts, walk, traffic)
            else:
                tried = _try_gt_step(
                    ctx, here, info, mark, dice, new_speed, brakes, boosts, walk, traffic
                )
            if tried is None:
                continue
            placed = True
            steps, record = tried
            for landing_step in steps:
                if ref is not None:
                    if landing_step != ref:
                        continue
                elif keep is not None and not keep(stack, landing_step):
                    continue
                out.append((landing_step, record))
        if first and climb is not None and not placed and ref is None:
            # rule: CLIMB-5 (blocked by a climb line on its first space: one free space);
            # a move with no die cannot come beside a car (TRAFFIC-1)
            if not _may_come_beside(ctx, target, None, walk, traffic.cars_at):
                continue
            col = ctx.dashboard.column(info.surface)
            free = PlanStep(
                target, (), speed, target, col.danger_limit, free=True, finishes=info.finished
            )
            out.append((free, None))
    return out


def _try_step(
    ctx: PlanContext,
    info: SpaceInfo,
    dice: tuple[Die, ...],
    speed: int,
    brakes: int,
    boosts: int,
    walk: _Walk,
    traffic: _Traffic,
) -> tuple[list[PlanStep], _Record] | None:
    """The step(s) ``dice`` make into ``info`` (several landings for a jump), or None."""
    col = ctx.dashboard.column(info.surface)
    lead = dice[0]
    board = ctx.dashboard
    if lead.kind is _COAST_KIND and (
        (ctx.leader and info.surface in board.leader_surfaces)  # rule: MOVE-3
        or info.surface in board.forced_leader_surfaces  # rule: MOVE-8 (climb tyres)
    ):
        dice = (LEADER, *dice[1:])
        lead = LEADER
    damage = ctx.car.damage
    new_tile = info.tile not in walk.tiles
    oxygen = walk.oxygen + (ctx.track.oxygen.get(info.tile, 0) if new_tile else 0)
    # rule: MOVE-7, DAMAGE-3, CLIMB-7 (the column of the surface, less damage and oxygen)
    if lead.kind is _GEAR_KIND:
        if lead.value in walk.gears or lead.value not in col.gears:
            return None
        if len(walk.gears) + 1 > len(col.gears) - damage.gear:
            return None
    elif walk.coasts + 1 > max(0, col.coast - damage.coast - oxygen):
        return None
    if brakes and walk.brakes + brakes > col.brake - damage.brake:
        return None
    if boosts and walk.boosts + boosts > col.boost:
        return None
    # rule: FORD-1 (a coast/leader die, or gear 1 without a brake)
    if info.ford and not (
        lead.kind in (_COAST_KIND, _LEADER_KIND)
        or (lead.kind is _GEAR_KIND and lead.value == 1 and not brakes)
    ):
        return None
    if info.kind == "shortcut" and info.limit is not None and speed > info.limit:
        return None  # rule: SHORTCUT-1 (the die on the shortcut space is at most its limit)
    # rule: TRAFFIC-1 (entering beside a car takes a gear die at or above its gear)
    cars_at = traffic.cars_at
    newly_alongside: list[str] = []
    if cars_at:
        for near in ctx.track.beside.get(info.node, _NOTHING):
            if near in cars_at:
                if near in walk.alongside:
                    continue
                if lead.kind is not _GEAR_KIND or lead.value < cars_at[near]:
                    return None
                newly_alongside.append(near)

    cloud = new_tile and info.tile in ctx.track.clouds
    record = (lead, brakes, boosts, info.tile, oxygen, tuple(newly_alongside))
    if not (info.jump and speed >= info.jump):  # the usual step: one space, no jump
        limit = ctx.limit_of(info)
        over = info.kind in _CORNERS and limit is not None and speed > limit
        step = PlanStep(
            info.node,
            dice,
            speed,
            info.node,
            col.danger_limit,
            (),
            "corner" if over else None,  # rule: CORNER-1 (over the limit: loss of control)
            False,
            cloud,
            False,
            info.finished,
        )
        return [step], record
    # rule: JUMP-1, JUMP-2 (at or over the jump's number: landing one or two beyond)
    landings: list[tuple[str, tuple[str, ...], str | None, bool]] = []
    extra = 1 if speed == info.jump else 2
    loc = "jump" if speed >= info.jump + 2 else None
    seen: set[str] = set()
    for path in _paths(ctx.track, info.node, extra):
        land = ctx.track.spaces[path[-1]]
        if land.node in seen or not _enterable(ctx, land, traffic):
            continue  # one plan per landing, whichever spaces it flies over
        if not _may_come_beside(ctx, land.node, lead, walk, cars_at):
            continue  # TRAFFIC-1 DEFAULT: a landing beside a car needs the gear too
        seen.add(land.node)
        landings.append((land.node, path[:-1], loc, speed == info.jump + 1))
    if not landings:
        return None  # the jump cannot be made with that die

    out: list[PlanStep] = []
    for land_node, passed, loc, risk in landings:
        land = ctx.track.spaces[land_node]
        limit = ctx.limit_of(land)
        step_loc = loc
        if land.kind in _CORNERS and limit is not None and speed > limit:
            step_loc = step_loc or "corner"  # rule: CORNER-1 (over the limit: loss of control)
        out.append(
            PlanStep(
                land_node,
                dice,
                speed,
                info.node,
                col.danger_limit,
                passed,
                step_loc,
                risk,
                cloud,
                finishes=land.finished,
            )
        )
    return out, record


def _try_gt_step(
    ctx: PlanContext,
    here: str,
    info: SpaceInfo,
    mark: tuple[int | None, bool, bool] | None,
    dice: tuple[Die, ...],
    speed: int,
    brakes: int,
    boosts: int,
    walk: _Walk,
    traffic: _Traffic,
) -> tuple[list[PlanStep], _Record] | None:
    """A Rallyman: GT step ``dice`` make from ``here`` into ``info``, or None.

    The DIRT step's dice and traffic rules (MOVE, DAMAGE-3, TRAFFIC-1), with GT's own:
    no leader dice (MOVE-3), sharp corners (CORNER-4), warning triangles (CORNER-5), the
    yellow flag (TRAFFIC-5) and the start/finish line (BOARD-3).
    """
    gt = ctx.gt
    assert gt is not None
    col = ctx.dashboard.columns.get(info.surface) or ctx.dashboard.column(info.surface)
    lead = dice[0]
    damage = ctx.car.damage
    # rule: MOVE-7, DAMAGE-3 (the column, less damage; GT-3's wrong tyres are the column's)
    if lead.kind is _GEAR_KIND:
        if lead.value in walk.gears or lead.value not in col.gears:
            return None
        if len(walk.gears) + 1 > len(col.gears) - damage.gear:
            return None
    elif walk.coasts + 1 > max(0, col.coast - damage.coast):
        return None
    if brakes and walk.brakes + brakes > col.brake - damage.brake:
        return None
    if boosts and walk.boosts + boosts > col.boost:
        return None
    cars_at = traffic.cars_at
    newly_alongside: list[str] = []
    if cars_at:
        for near in ctx.track.beside.get(info.node, _NOTHING):
            if near in cars_at:
                if gt.yellow:
                    return None  # rule: TRAFFIC-5 (no coming up next to a car)
                if near in walk.alongside:
                    continue
                # rule: TRAFFIC-1 (beside a car: a gear die at or above its gear)
                if lead.kind is not _GEAR_KIND or lead.value < cars_at[near]:
                    return None
                newly_alongside.append(near)
        here_at = ctx.car.space
        if (
            traffic.ahead is not None
            and here_at is not None
            and ctx.track.gain(here_at, info.node) > traffic.ahead + LEVEL_MM
        ):
            return None  # rule: TRAFFIC-5 (no overtaking: never past the car ahead)
    hazards = 0
    loc = None
    limit = info.limit  # no mud on GT tracks (SHORTCUT-2 is DIRT's)
    if limit is not None and info.kind in _CORNERS:
        if speed > limit:
            loc = "corner"  # rule: CORNER-1 (over the limit: loss of control)
        elif speed == limit and info.triangle:
            hazards += 1  # rule: CORNER-5 (the triangle's own gear: a danger result)
    lap = False
    if mark is not None:
        line_limit, hazard, lap = mark
        if line_limit is not None and speed > line_limit:
            loc = loc or "sharp"  # rule: CORNER-4 (straight over a dotted line, too fast)
        if hazard:
            hazards += 1  # rule: CORNER-4 (a warning sign: a danger result)
    flying = not walk.gears and not walk.coasts and ctx.car.gear == 0 and speed == 2
    record = (lead, brakes, boosts, info.tile, 0, tuple(newly_alongside))
    step = PlanStep(
        info.node,
        dice,
        speed,
        info.node,
        col.danger_limit,
        (),
        loc,
        False,
        False,
        False,
        info.finished or (lap and gt.final_lap),  # rule: BOARD-3 (over the line, last lap)
        hazards,
        flying and not boosts,  # rule: GT-1 (0 to 2 without a boost die)
        lap,
    )
    return [step], record


#: A GT move worked out from the track and the dashboard alone (:func:`_gt_moves`): the
#: dice, the speed after, brake and boost dice, the gear die's value (-1: a coast die), the
#: step (and the step as a flying start, GT-1; None: pruned), and its record with no car
#: come beside.
_GtMove = tuple[tuple[Die, ...], int, int, int, int, PlanStep | None, PlanStep | None, _Record]
#: The GT moves into one target: the space, the spaces beside it, whether it is shut (a
#: corner limit of 0), its column's gear, coast, brake and boost dice (before damage), and
#: the moves in the order of :func:`_die_options`.
_GtTarget = tuple[SpaceInfo, tuple[str, ...], bool, int, int, int, int, tuple[_GtMove, ...]]

#: The GT moves of a track and a dashboard, by (space, speed, flying start, last lap, the
#: key of the pruner applied: :attr:`PlanBuilder.moves_key`).
_GtMoves = dict[tuple[str, int, bool, bool, Hashable], tuple[_GtTarget, ...] | None]
#: Per track and dashboard (by what its columns hold: a race makes its own dashboards).
_GT_MOVES: dict[tuple[int, Hashable], tuple[Track, _GtMoves]] = {}


#: What the columns of a dashboard hold, by the dashboard (kept with it: its id stays its own).
_COLUMNS: dict[int, tuple[Dashboard, Hashable]] = {}


def _gt_table(track: Track, board: Dashboard) -> _GtMoves:
    """The table of :func:`_gt_moves` for ``track`` and ``board`` (empty at first)."""
    known = _COLUMNS.get(id(board))
    if known is None or known[0] is not board:
        if len(_COLUMNS) >= 256:
            _COLUMNS.clear()
        held = tuple(
            (s, tuple(c.gears), c.coast, c.brake, c.boost, c.danger_limit)
            for s, c in sorted(board.columns.items())
        )
        known = _COLUMNS[id(board)] = (board, held)
    cols = known[1]
    hit = _GT_MOVES.get((id(track), cols))
    if hit is None or hit[0] is not track:
        if len(_GT_MOVES) >= 64:
            _GT_MOVES.clear()
        hit = _GT_MOVES[id(track), cols] = (track, {})
    return hit[1]


def _gt_moves(
    ctx: PlanContext,
    table: _GtMoves,
    here: str,
    speed: int,
    flying: bool,
    keep_move: PruneMove | None = None,
    keep: Prune | None = None,
    moves_key: Hashable | None = None,
) -> tuple[_GtTarget, ...] | None:
    """What of a GT step from ``here`` at ``speed`` depends on neither the plan nor the cars.

    The steps of :func:`_try_gt_step` before the dice used, the damage and the traffic are
    checked, made once per track and dashboard in ``table`` (a search weighs the same
    moves again and again, from many positions). None where a successor is over a climb
    line (CLIMB-2): :func:`_level`'s general walk takes those. With ``moves_key``, only
    the moves ``keep_move`` and ``keep`` keep.
    """
    track, board, gt = ctx.track, ctx.dashboard, ctx.gt
    assert gt is not None
    key = (here, speed, flying, gt.final_lap, moves_key)
    if key in table:
        return table[key]
    if any(climb is not None for _t, climb in track.successors[here]):
        table[key] = None
        return None
    targets: list[_GtTarget] = []
    for target, _climb in track.successors[here]:
        info = track.spaces[target]
        col = board.columns.get(info.surface) or board.column(info.surface)
        gears = frozenset(col.gears)
        mark = track.marks.get((here, target))
        moves: list[_GtMove] = []
        for dice, new_speed, brakes, boosts in (
            _flying_options() if flying else _die_options(speed, None)
        ):
            if keep_move is not None and not keep_move([], target, speed, new_speed):
                continue
            lead = dice[0]
            value = lead.value if lead.kind is _GEAR_KIND else -1
            if value >= 0 and value not in gears:
                continue  # rule: MOVE-7 (not a die of this surface's column)
            hazards = 0
            loc = None
            limit = info.limit  # no mud on GT tracks (SHORTCUT-2 is DIRT's)
            if limit is not None and info.kind in _CORNERS:
                if new_speed > limit:
                    loc = "corner"  # rule: CORNER-1 (over the limit: loss of control)
                elif new_speed == limit and info.triangle:
                    hazards += 1  # rule: CORNER-5 (the triangle's own gear: a danger result)
            lap = False
            if mark is not None:
                line_limit, hazard, lap = mark
                if line_limit is not None and new_speed > line_limit:
                    loc = loc or "sharp"  # rule: CORNER-4 (straight over a dotted line)
                if hazard:
                    hazards += 1  # rule: CORNER-4 (a warning sign: a danger result)
            finishes = info.finished or (lap and gt.final_lap)  # rule: BOARD-3
            plain = PlanStep(
                target, dice, new_speed, target, col.danger_limit, (), loc, False, False,
                False, finishes, hazards, False, lap,
            )  # fmt: skip
            # rule: GT-1 (0 to 2 without a boost die, as the turn's first die)
            fly = plain._replace(flying=True) if new_speed == 2 and not boosts else plain
            kept_plain = plain if keep is None or keep([], plain) else None
            kept_fly = fly if keep is None or keep([], fly) else None
            if kept_plain is None and kept_fly is None:
                continue
            record = (lead, brakes, boosts, info.tile, 0, ())
            moves.append((dice, new_speed, brakes, boosts, value, kept_plain, kept_fly, record))
        shut = info.limit is not None and info.kind in _CORNERS and info.limit <= 0
        besides = tuple(track.beside.get(target, _NOTHING))
        targets.append(
            (info, besides, shut, len(col.gears), col.coast, col.brake, col.boost, tuple(moves))
        )
    out = table[key] = tuple(targets)
    return out


def _gt_level(
    ctx: PlanContext,
    moves: tuple[_GtTarget, ...],
    walk: _Walk,
    stack: list[PlanStep],
    traffic: _Traffic,
    keep: Prune | None,
    keep_move: PruneMove | None,
) -> list[tuple[PlanStep, _Record | None]]:
    """:func:`_level` on a GT track from :func:`_gt_moves`: the same steps, in the same order.

    What is left to check is :func:`_try_gt_step`'s: the dice used so far and the damage
    (MOVE-7, DAMAGE-3), the cars come beside (TRAFFIC-1) and the yellow flag (TRAFFIC-5).
    """
    gt = ctx.gt
    assert gt is not None
    car = ctx.car
    damage = car.damage
    speed = stack[-1].speed if stack else car.gear
    gears_used = walk.gears
    n_gears = len(gears_used) + 1 + damage.gear  # against the column's gear dice
    coasts = walk.coasts + 1 + damage.coast
    brakes_used = walk.brakes + damage.brake
    boosts_used = walk.boosts
    alongside = walk.alongside
    fly = not gears_used and not walk.coasts and car.gear == 0
    cars_at = traffic.cars_at
    blocked = traffic.blocked
    examined = traffic.examined
    ahead = traffic.ahead
    here_at = car.space
    mud = bool(ctx.mud)  # none on GT tracks (SHORTCUT-2 is DIRT's); if given, as DIRT reads it
    out: list[tuple[PlanStep, _Record | None]] = []
    for info, besides, shut, n_col, coast, brake, boost, options in moves:
        target = info.node
        # the dice first: where no move is left whatever the cars, the traffic there is
        # not read (nor examined: the plan memo keys on fewer cars)
        start = len(out)
        for _dice, new_speed, brakes, boosts, value, plain, flying, record in options:
            if keep_move is not None and not keep_move(stack, target, speed, new_speed):
                continue
            # rule: MOVE-7, DAMAGE-3 (the column, less damage; GT-3's wrong tyres are the
            # column's)
            if value >= 0:
                if value in gears_used or n_gears > n_col:
                    continue
            elif coasts > coast:  # (a coast die more than the column's, less damage)
                continue
            if brakes and brakes_used + brakes > brake:
                continue
            if boosts and boosts_used + boosts > boost:
                continue
            step = flying if fly else plain
            if step is None or (keep is not None and not keep(stack, step)):
                continue
            out.append((step, record))
        if len(out) == start:
            continue
        if mud:
            if not _enterable(ctx, info, traffic):
                del out[start:]
                continue
        else:  # _enterable, its GT part
            if examined is not None:
                examined.add(target)
            if target in blocked or shut:
                del out[start:]
                continue  # rule: TRAFFIC-3 (no car may enter an occupied space)
        if not cars_at:
            continue
        if gt.yellow and any(near in cars_at for near in besides):
            del out[start:]
            continue  # rule: TRAFFIC-5 (no coming up next to a car)
        if (
            ahead is not None
            and here_at is not None
            and ctx.track.gain(here_at, target) > ahead + LEVEL_MM
        ):
            del out[start:]
            continue  # rule: TRAFFIC-5 (no overtaking: never past the car ahead)
        need = 0  # the gear die coming beside the cars there takes (TRAFFIC-1)
        newly: tuple[str, ...] = ()
        for near in besides:
            if near in cars_at and near not in alongside:
                need = max(need, cars_at[near])
                newly = (*newly, near)
        if newly:
            beside = []
            for made, made_record in out[start:]:
                assert made_record is not None
                lead, brakes, boosts, tile, _o, _n = made_record
                # rule: TRAFFIC-1 (beside a car: a gear die at or above its gear, no coast)
                if lead.kind is _GEAR_KIND and lead.value >= need:
                    beside.append((made, (lead, brakes, boosts, tile, 0, newly)))
            out[start:] = beside
    return out


#: What :func:`_unapply` needs to take a step back: the gear die's value (-1: a coast or
#: leader die), brakes, boosts, the tile first entered (None: entered before), the oxygen
#: before, the cars come beside.
_Undo = tuple[int, int, int, int | None, int, tuple[str, ...]]


def _apply(
    walk: _Walk,
    lead: Die,
    brakes: int,
    boosts: int,
    tile: int,
    oxygen: int,
    alongside: tuple[str, ...],
) -> _Undo:
    """Record the dice of a step in ``walk``; returns what :func:`_unapply` takes back."""
    added = tile not in walk.tiles
    old_oxygen = walk.oxygen
    if lead.kind is _GEAR_KIND:
        value = lead.value
        walk.gears.add(value)
    else:
        value = -1
        walk.coasts += 1
    walk.brakes += brakes
    walk.boosts += boosts
    if added:
        walk.tiles.add(tile)
    walk.oxygen = oxygen
    if alongside:
        walk.alongside.update(alongside)
    return value, brakes, boosts, tile if added else None, old_oxygen, alongside


def _unapply(walk: _Walk, undo: _Undo) -> None:
    """Take back a step :func:`_apply` recorded (the last one recorded)."""
    value, brakes, boosts, tile, old_oxygen, alongside = undo
    if value >= 0:
        walk.gears.discard(value)
    else:
        walk.coasts -= 1
    walk.brakes -= brakes
    walk.boosts -= boosts
    if tile is not None:
        walk.tiles.discard(tile)
    walk.oxygen = old_oxygen
    if alongside:
        walk.alongside.difference_update(alongside)


def _may_come_beside(
    ctx: PlanContext, node: str, lead: Die | None, walk: _Walk, cars_at: dict[str, int]
) -> bool:
    """TRAFFIC-1: coming beside a car takes a gear die at or above its gear."""
    for near in ctx.track.beside.get(node, frozenset()):
        if near in cars_at:
            if near in walk.alongside:
                continue
            if lead is None or lead.kind is not _GEAR_KIND or lead.value < cars_at[near]:
                return False
    return True


def _paths(track: Track, start: str, length: int) -> list[tuple[str, ...]]:
    """Every forward path of ``length`` more spaces from ``start`` (ending spaces last)."""
    frontier: list[tuple[str, tuple[str, ...]]] = [(start, ())]
    for _ in range(length):
        nxt: list[tuple[str, tuple[str, ...]]] = []
        for node, path in frontier:
            for succ, _climb in track.successors[node]:
                nxt.append((succ, (*path, succ)))
        frontier = nxt
    return [p for _, p in frontier]


#: A turn's end as :func:`turn_ends` gives it: (space, speed, finishes, a gear die used).
TurnEnd = tuple[str, int, bool, bool]


def turn_ends(
    ctx: PlanContext,
    *,
    max_steps: int,
    keep: Prune | None = None,
    keep_move: PruneMove | None = None,
) -> dict[TurnEnd, int]:
    """Where the legal plans of ``ctx.car`` can end, with the most dice-moves to get there.

    The same ends as walking :func:`legal_plans` (with the same limits and pruners), but
    breadth first, partial plans merged when they reach the same space at the same speed
    with the same dice left: what follows them is the same, so the number of plans does
    not matter, only that of distinct positions inside the turn. The value is the most
    steps moved with a die (second tokens earned flat out, TURN-4); CLIMB-5's free move
    counts 0. Plans that lose control whatever the roll (CORNER-1, JUMP-1) are left out.
    The pruners see the plan's last step only (``[last]`` for the steps so far), which is
    all the bots' pruners read.

    Examples
    --------
    >>> from trackkit.rules.testing import position
    >>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
    >>> ends = turn_ends(ctx, max_steps=3)
    >>> ends[("2:1.1L", 3, False, True)], len(ends) == len(
    ...     {(p.end, p.steps[-1].speed) for p in legal_plans(ctx, max_steps=3)})
    (3, True)
    """
    start = ctx.car.space
    ends: dict[TurnEnd, int] = {}
    if start is None or not ctx.car.on_track or ctx.car.finished:
        return ends
    traffic = _Traffic.of(ctx)
    special = set(ctx.track.oxygen) | set(ctx.track.clouds)
    layer: dict[object, tuple[_Walk, PlanStep | None]] = {
        (): (_start_walk(ctx, start, traffic), None)
    }
    for depth in range(max_steps):
        nxt: dict[object, tuple[_Walk, PlanStep | None]] = {}
        for walk, last in layer.values():
            here, speed = (start, ctx.car.gear) if last is None else (last.space, last.speed)
            stack = [] if last is None else [last]
            options = _level(
                ctx, here, speed, walk, stack, traffic, keep=keep, keep_move=keep_move, ref=None
            )
            for step, record in options:
                if step.loc is not None:
                    continue  # control lost whatever the roll: the turn does not end there
                gear_used = bool(walk.gears) or any(d.kind is _GEAR_KIND for d in step.dice)
                end = (step.space, step.speed, step.finishes, gear_used)
                moved = 0 if step.free else depth + 1
                if ends.get(end, -1) < moved:
                    ends[end] = moved
                if record is None or step.finishes:
                    continue  # the plan ends here
                grown = _Walk(
                    set(walk.gears),
                    walk.brakes,
                    walk.coasts,
                    walk.boosts,
                    set(walk.tiles),
                    walk.oxygen,
                    set(walk.alongside),
                )
                _apply(grown, *record)
                key = (
                    step.space,
                    step.speed,
                    frozenset(grown.gears),
                    grown.brakes,
                    grown.coasts,
                    grown.boosts,
                    frozenset(grown.tiles & special),
                    grown.oxygen,
                    frozenset(grown.alongside),
                )
                if key not in nxt:
                    nxt[key] = (grown, step)
        layer = nxt
        if not layer:
            break
    return ends


def count_plans(ctx: PlanContext) -> int:
    """Number of legal non-empty plans (the perft count of a position)."""
    return sum(1 for _ in legal_plans(ctx))


def plans_by_first(ctx: PlanContext) -> dict[str, int]:
    """Plan counts under each first step (for perft mismatch reports)."""
    return dict(sorted(Counter(str(p.steps[0]) for p in legal_plans(ctx)).items()))
