"""The step rule: which steps a car may take from a space, and with which dice.

One rule for both series (MOVE, CORNER 1-5, SHORTCUT, JUMP, FORD, TRAFFIC 1-5, CLIMB, DASH,
GT-1, BOARD-3). Its checks read the features of the space entered and of the line crossed
-- a corner's limit (less mud), a warning triangle, a dotted line's number or warning sign,
a climb line, a jump, a ford, a shortcut, the lap line -- the dashboard's column for the
surface, and the turn (last lap, yellow flag, flying start), never the series: a DIRT
stage has no dotted lines and a GT circuit no jumps, so each check finds nothing to do
there. A check that is a rule of one series only reads the ruleset
(:attr:`~trackkit.rules.ruleset.Ruleset.corner_lanes`, TRAFFIC-3).

The checks come in two parts:

- :func:`moves_from`: what the track, the dashboard and the turn decide -- the dice that
  fit the line and the column, the limits, the landings of a jump. It is the same for every
  plan of every car with that dashboard, so :class:`Traffic` keeps its answers in a table
  per track and dashboard (:func:`move_table`): a cache of :func:`moves_from`, nothing
  more (a search weighs the same moves again and again, from many positions);
- :func:`level`: what the plan so far and the other cars decide -- the dice used, damage
  and oxygen (MOVE-7, DAMAGE-3, CLIMB-7), a cloud first met (CLIMB-8), the cars (TRAFFIC-1,
  TRAFFIC-3, TRAFFIC-5), and the free move of CLIMB-5.

Examples
--------
>>> from trackkit.rules.testing import position
>>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
>>> traffic = Traffic.of(ctx)
>>> steps = level(ctx, "1:1.1L", 0, start_walk(ctx, "1:1.1L", traffic), [], traffic)
>>> [str(step) for step, _record in steps]
['1:1.2L G1', '1:1.2R G1']
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from trackkit.models.car import Column
from trackkit.rules.dashboard import Dashboard
from trackkit.rules.dice import BOOST, BRAKE, COAST, GEARS, LEADER, Die, DieKind
from trackkit.rules.track import EdgeMark, SpaceInfo, Track, per_track
from trackkit.rules.turn import GtTurn, PlanContext, PlanStep

__all__ = [
    "LEVEL_MM",
    "Move",
    "MoveTable",
    "Prune",
    "PruneMove",
    "Record",
    "Target",
    "Traffic",
    "Undo",
    "Walk",
    "apply_step",
    "level",
    "move_table",
    "moves_from",
    "mud_key",
    "past_ahead",
    "start_walk",
    "unapply_step",
    "yellow_ahead",
]

#: A pruning callback: (steps so far, candidate step) -> whether to keep the candidate.
Prune = Callable[[list[PlanStep], PlanStep], bool]
#: A cheaper one, before a step is built: (steps so far, target space, speed before, after).
PruneMove = Callable[[list[PlanStep], str, int, int], bool]

# enum members are slow to look up (a descriptor call each time): the hot loop reads these
_GEAR_KIND, _COAST_KIND = DieKind.GEAR, DieKind.COAST
#: Kinds of space with a limit a car may not go over (CORNER-1).
_CORNERS = ("corner", "chicane")
_NOTHING: frozenset[str] = frozenset()
#: The turn of a car that is not in a Rallyman: GT race: no lap line to finish on, no
#: yellow flag, no flying start.
_NO_TURN = GtTurn(final_lap=False, yellow=False, flying=False)


@dataclass(slots=True)
class Walk:
    """Dice used so far in the plan being built."""

    gears: set[int] = field(default_factory=set)
    brakes: int = 0
    coasts: int = 0
    boosts: int = 0
    tiles: set[int] = field(default_factory=set)
    oxygen: int = 0
    alongside: set[str] = field(default_factory=set)
    """Spaces of the cars the plan has come beside (TRAFFIC-1 asks once per car)."""


#: What a step adds to the walk: lead die, brakes, boosts, tile, the tile's oxygen (CLIMB-7:
#: counted when the tile is first entered), cars come beside.
Record = tuple[Die, int, int, int, int, tuple[str, ...]]
#: What :func:`unapply_step` needs to take a step back: the gear die's value (-1: a coast or
#: leader die), brakes, boosts, the tile first entered (None: entered before), the oxygen
#: before, the cars come beside.
Undo = tuple[int, int, int, int | None, int, tuple[str, ...]]


def apply_step(
    walk: Walk,
    lead: Die,
    brakes: int,
    boosts: int,
    tile: int,
    oxygen: int,
    alongside: tuple[str, ...],
) -> Undo:
    """Record the dice of a step in ``walk``; returns what :func:`unapply_step` takes back.

    >>> from trackkit.rules.dice import GEARS
    >>> walk = Walk()
    >>> undo = apply_step(walk, GEARS[2], 0, 0, 3, 1, ())
    >>> walk.gears, walk.tiles, walk.oxygen
    ({2}, {3}, 1)
    >>> unapply_step(walk, undo); walk == Walk()
    True
    """
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
        walk.oxygen += oxygen  # rule: CLIMB-7 (a tile's oxygen, once, on entering it)
    if alongside:
        walk.alongside.update(alongside)
    return value, brakes, boosts, tile if added else None, old_oxygen, alongside


def unapply_step(walk: Walk, undo: Undo) -> None:
    """Take back a step :func:`apply_step` recorded (the last one recorded)."""
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


# --- the dice that move a car one space --------------------------------------------------

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


# --- what the track, the dashboard and the turn decide -----------------------------------


#: One way into a target (:func:`moves_from`): the dice, the speed after, brake and boost
#: dice, the gear die's value (-1: a coast or leader die), the step (None for a jump), a
#: jump's steps (one per landing space, JUMP-1, JUMP-2; else empty), and the record. Steps
#: a table's pruner dropped are left out. (A plain tuple: the walk unpacks it.)
Move = tuple[tuple[Die, ...], int, int, int, int, PlanStep | None, tuple[PlanStep, ...], Record]


class Target(NamedTuple):
    """The moves into one successor space, and what :func:`level` checks there.

    ``gears``, ``coast``, ``brake`` and ``boost`` are the dice of the space's column before
    damage (MOVE-7), ``oxygen`` the tile's (CLIMB-7). ``cloud_moves``: the moves as they are
    when the tile, with a cloud, is first entered (CLIMB-8; None: no cloud). ``free``: the
    move without a die a climb line leaves on the first step (CLIMB-5; None: none).
    ``jumps``: some move lands beyond the space (its landings' traffic is read too).
    """

    info: SpaceInfo
    climb: str | None
    besides: tuple[str, ...]
    gears: int
    coast: int
    brake: int
    boost: int
    oxygen: int
    moves: tuple[Move, ...]
    cloud_moves: tuple[Move, ...] | None
    free: PlanStep | None
    jumps: bool


def _corner(info: SpaceInfo, limit: int | None, speed: int) -> tuple[str | None, int]:
    """A corner space entered at ``speed``: the loss of control and the danger results."""
    if limit is None or info.kind not in _CORNERS:
        return None, 0
    if speed > limit:
        return "corner", 0  # rule: CORNER-1 (over the limit: loss of control)
    if speed == limit and info.triangle:
        return None, 1  # rule: CORNER-5 (the triangle's own gear: a danger result)
    return None, 0


def _shut(ctx: PlanContext, info: SpaceInfo) -> bool:
    """A corner space whose limit (less mud) is 0 or less: no car enters it (CORNER-1)."""
    limit = ctx.limit_of(info)
    return limit is not None and info.kind in _CORNERS and limit <= 0


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


def _steps(
    ctx: PlanContext,
    info: SpaceInfo,
    limit: int | None,
    col: Column,
    mark: EdgeMark | None,
    final_lap: bool,
    dice: tuple[Die, ...],
    speed: int,
    brakes: int,
    boosts: int,
    flying: bool,
    cloud: bool,
) -> tuple[PlanStep, ...] | None:
    """The step(s) ``dice`` make into ``info`` over the line ``mark``, or None.

    The one check of a step from what the track, the dashboard and the turn hold: the
    lead die fits the column ``col`` and the space (MOVE-3, MOVE-7, MOVE-8, FORD-1,
    SHORTCUT-1), and the step's limits and marks (CORNER-1, CORNER-4, CORNER-5, JUMP-1,
    JUMP-2, BOARD-3, GT-1). ``limit``: the space's limit for this car (less mud,
    SHORTCUT-2); ``final_lap``: the turn is the car's last lap; ``flying``: the dice are
    the turn's first from gear 0 with a flying start; ``cloud``: the step first enters a
    tile with a cloud (CLIMB-8).
    """
    lead = dice[0]
    value = lead.value if lead.kind is _GEAR_KIND else -1
    if value >= 0 and value not in col.gears:
        return None  # rule: MOVE-7 (not a die of this surface's column)
    # rule: FORD-1 (a coast/leader die, or gear 1 without a brake)
    if info.ford and not (value < 0 or (value == 1 and not brakes)):
        return None
    if info.kind == "shortcut" and limit is not None and speed > limit:
        return None  # rule: SHORTCUT-1 (the die on the shortcut space is at most its limit)
    line_loc, hazards, lap = None, 0, False
    if mark is not None:
        line_limit, hazard, lap = mark
        if line_limit is not None and speed > line_limit:
            line_loc = "sharp"  # rule: CORNER-4 (straight over a dotted line, too fast)
        if hazard:
            hazards = 1  # rule: CORNER-4 (a warning sign: a danger result)
    # rule: BOARD-3 (the step over the line on the last lap ends the race)
    over_line = lap and final_lap
    # rule: GT-1 (0 to 2 without a boost die, as the turn's first die)
    fly = flying and speed == 2 and not boosts
    danger_limit = col.danger_limit
    node = info.node
    if not (info.jump and speed >= info.jump):  # the usual step: one space, no jump
        loc, more = _corner(info, limit, speed)
        return (
            PlanStep(
                node, dice, speed, node, danger_limit, (), loc or line_loc, False, cloud,
                False, info.finished or over_line, hazards + more, fly, lap,
            ),
        )  # fmt: skip
    # rule: JUMP-1, JUMP-2 (at or over the jump's number: landing one or two beyond)
    extra = 1 if speed == info.jump else 2
    jump_loc = "jump" if speed >= info.jump + 2 else None
    risk = speed == info.jump + 1
    seen: set[str] = set()
    out: list[PlanStep] = []
    for path in _paths(ctx.track, node, extra):
        land = ctx.track.spaces[path[-1]]
        if land.node in seen or _shut(ctx, land):
            continue  # one plan per landing, whichever spaces it flies over
        seen.add(land.node)
        loc, more = _corner(land, ctx.limit_of(land), speed)
        out.append(
            PlanStep(
                land.node, dice, speed, node, danger_limit, path[:-1], jump_loc or loc or line_loc,
                risk,
                cloud, False, land.finished or over_line, hazards + more, fly, lap,
            )
        )  # fmt: skip
    return tuple(out) or None  # none: the jump cannot be made with that die


def moves_from(
    ctx: PlanContext,
    here: str,
    speed: int,
    flying: bool,
    keep_move: PruneMove | None = None,
    keep: Prune | None = None,
    stack: list[PlanStep] | None = None,
) -> tuple[Target, ...]:
    """Every move from ``here`` at ``speed`` that the track, the dashboard and the turn allow.

    In the order of the plans: successors in graph order, the dice of each in
    :func:`_die_options` order (``flying``: the turn's first die from gear 0 with a flying
    start, GT-1), a jump's landings in path order. The plan so far and the cars are
    :func:`level`'s to check. With ``keep_move`` and ``keep`` (a pruner that reads the
    target and speeds alone, and the step alone), only the moves they keep -- except into
    a space over a climb line, whose moves decide CLIMB-5's free move and are all kept.
    The pruners are handed ``stack``, the steps so far (none: the turn's first step).
    """
    before: list[PlanStep] = stack or []
    track, board = ctx.track, ctx.dashboard
    final_lap = (ctx.gt or _NO_TURN).final_lap
    leader = ctx.leader
    limit_of = ctx.limit_of
    targets: list[Target] = []
    for target, climb in track.successors[here]:
        info = track.spaces[target]
        limit = limit_of(info)
        if limit is not None and limit <= 0 and info.kind in _CORNERS:
            continue  # rule: CORNER-1 (a corner at limit 0 or less cannot be entered)
        col = board.columns.get(info.surface) or board.column(info.surface)
        # rule: MOVE-3 (the leader's coast die is a leader die where the car says so),
        # MOVE-8 (and every car's, on the surfaces where its tyres make it one)
        as_leader = (
            leader and info.surface in board.leader_surfaces
        ) or info.surface in board.forced_leader_surfaces
        mark = track.marks.get((here, target))
        tile = info.tile
        oxygen = track.oxygen.get(tile, 0)
        cloudy = tile in track.clouds
        prune = climb is None
        moves: list[Move] = []
        cloud_moves: list[Move] = []
        kinds = ((False, moves), (True, cloud_moves)) if cloudy else ((False, moves),)
        for dice, new_speed, brakes, boosts in (
            _flying_options() if flying else _die_options(speed, climb)
        ):
            if prune and keep_move is not None and not keep_move(before, target, speed, new_speed):
                continue
            if as_leader and dice[0].kind is _COAST_KIND:
                dice = (LEADER, *dice[1:])
            lead = dice[0]
            value = lead.value if lead.kind is _GEAR_KIND else -1
            record = (lead, brakes, boosts, tile, oxygen, ())
            plain = _steps(ctx, info, limit, col, mark, final_lap, dice, new_speed, brakes,
                           boosts, flying, False)  # fmt: skip
            if plain is None:
                continue  # (the cloud changes no check)
            for cloud, into in kinds:
                # the steps first entering a cloud differ only in saying so (CLIMB-8)
                made = tuple([s._replace(cloud=True) for s in plain]) if cloud else plain
                if prune and keep is not None:
                    made = tuple([s for s in made if keep(before, s)])
                    if not made:
                        continue
                if made[0].space == target:
                    into.append((dice, new_speed, brakes, boosts, value, made[0], (), record))
                else:  # a jump's landings
                    into.append((dice, new_speed, brakes, boosts, value, None, made, record))
        free = None
        if climb is not None:
            # rule: CLIMB-5 (blocked by a climb line on its first space: one free space)
            free = PlanStep(target, (), speed, target, col.danger_limit, free=True,
                            finishes=info.finished)  # fmt: skip
        targets.append(
            Target(
                info,
                climb,
                tuple(track.beside.get(target, _NOTHING)),
                len(col.gears),
                col.coast,
                col.brake,
                col.boost,
                oxygen,
                tuple(moves),
                tuple(cloud_moves) if cloudy else None,
                free,
                any(m[5] is None for m in (*moves, *cloud_moves)),
            )
        )
    return tuple(targets)


#: The moves of a track and a dashboard for a turn, by (space, speed, flying start, last
#: lap, the key of the pruner applied: :attr:`~trackkit.rules.plans.PlanBuilder.moves_key`,
#: the mud read: :func:`mud_key`).
MoveTable = dict[tuple[str, int, bool, bool, Hashable, tuple[int, ...]], tuple[Target, ...]]
#: What a dashboard holds, by the dashboard (kept with it: its id stays its own).
_BOARDS: dict[int, tuple[Dashboard, Hashable]] = {}


def move_table(ctx: PlanContext) -> MoveTable:
    """The table that keeps :func:`moves_from` of ``ctx``'s track and dashboard (empty at
    first): whatever else the position holds, the same moves come from the same key.

    It is chosen by all that :func:`moves_from` reads besides its arguments but the mud: the
    track, what the dashboard holds and whether the car leads (MOVE-3). The mud
    (SHORTCUT-2) changes the moves of a few spaces only, so it is in the key of those
    entries (:func:`mud_key`) and a car meeting more mud keeps the rest of its table.
    """
    board = ctx.dashboard
    known = _BOARDS.get(id(board))
    if known is None or known[0] is not board:
        if len(_BOARDS) >= 256:
            _BOARDS.clear()
        held = (
            tuple(
                (s, tuple(c.gears), c.coast, c.brake, c.boost, c.danger_limit)
                for s, c in sorted(board.columns.items())
            ),
            tuple(sorted(board.leader_surfaces)),
            tuple(sorted(board.forced_leader_surfaces)),
        )
        known = _BOARDS[id(board)] = (board, held)
    track = ctx.track
    # the leader's coast die only differs where the track has a surface it is one on
    leader = ctx.leader and not _surfaces(track).isdisjoint(board.leader_surfaces)
    tables = _tables(track)
    table = tables.get((known[1], leader))
    if table is None:
        table = tables[known[1], leader] = {}
    return table


@per_track
def _tables(track: Track) -> dict[tuple[Hashable, bool], MoveTable]:
    """A track's move tables, by what the dashboard holds (a race makes its own dashboards)
    and whether the car leads: filled as races meet them."""
    return {}


@per_track
def _facts(track: Track) -> tuple[frozenset[str], dict[str, tuple[int, ...]]]:
    """The track's surfaces, and per space the tiles whose mud its moves read: those of the
    corners a move from it may enter or land on, a jump's landings being at most three
    spaces on (JUMP-1, JUMP-2)."""
    spaces, successors = track.spaces, track.successors
    near: dict[str, tuple[int, ...]] = {}
    for node in spaces:
        reach: set[str] = set()
        frontier = {node}
        for _ in range(3):
            frontier = {succ for n in frontier for succ, _climb in successors.get(n, ())}
            reach |= frontier
        tiles = {
            spaces[n].tile
            for n in reach
            if n in spaces and spaces[n].limit is not None and spaces[n].kind in _CORNERS
        }
        near[node] = tuple(sorted(tiles))
    return frozenset(info.surface for info in spaces.values()), near


def _surfaces(track: Track) -> frozenset[str]:
    return _facts(track)[0]


def mud_key(ctx: PlanContext, here: str) -> tuple[int, ...]:
    """The mud (SHORTCUT-2) that the moves from ``here`` read: a part of their table key.

    >>> from trackkit.rules.testing import position
    >>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.1L", gear=0)
    >>> mud_key(ctx, "1:1.1L")
    ()
    """
    mud = ctx.mud
    if not mud:
        return ()
    return tuple([mud.get(tile, 0) for tile in _facts(ctx.track)[1].get(here, ())])


# --- what the other cars decide -----------------------------------------------------------

#: A corner with cars in both lanes: no lane matches it (TRAFFIC-3).
_BOTH_LANES = "both"
#: Front edges closer than this, mm, are level (TRAFFIC-5: level is not past).
LEVEL_MM = 1e-6


@dataclass(frozen=True, slots=True)
class Traffic:
    """The other cars as obstacles: spaces no car may enter, their gears, the car ahead."""

    blocked: frozenset[str]
    """Spaces no car may enter: the cars' own and those overlapping them, and the other
    lane of a corner a car is in (TRAFFIC-3)."""
    cars_at: dict[str, int]
    """The gear of the blocking car on each space (TRAFFIC-1)."""
    examined: set[str] | None = None
    """If given, every space whose traffic is read is added to it."""
    ahead: float | None = None
    """Under a yellow flag: how far ahead the nearest car is, mm (TRAFFIC-5)."""
    moves: MoveTable | None = None
    """The table of :func:`moves_from` for the car (:func:`move_table`; None: none kept)."""

    @classmethod
    def of(cls, ctx: PlanContext, examined: set[str] | None = None) -> Traffic:
        """The traffic ``ctx.car`` meets (``examined``: where to note the spaces read)."""
        track = ctx.track
        cars_at = {o.space: o.gear for o in ctx.others if o.blocks}
        blocked = set(cars_at)
        overlaps = track.overlaps
        for space in cars_at:
            over = overlaps.get(space)
            if over:
                blocked |= over
        if ctx.ruleset.corner_lanes:
            lanes_taken: dict[str, str] = {}
            for space in cars_at:
                info = track.spaces.get(space)
                if info is not None and info.corner is not None and info.corner_lane is not None:
                    # rule: TRAFFIC-3 (enter by the same lane as the car in the corner; with
                    # cars in both lanes, by neither, whatever order the cars are listed in)
                    taken = lanes_taken.get(info.corner, info.corner_lane)
                    lanes_taken[info.corner] = taken if taken == info.corner_lane else _BOTH_LANES
            if lanes_taken:
                corners = _corners(track)
                for corner, taken in lanes_taken.items():
                    blocked.update(n for n, lane in corners[corner] if lane != taken)
        return cls(frozenset(blocked), cars_at, examined, yellow_ahead(ctx), move_table(ctx))


@per_track
def _corners(track: Track) -> dict[str, tuple[tuple[str, str | None], ...]]:
    """The spaces of each corner with their lane."""
    found: dict[str, list[tuple[str, str | None]]] = {}
    for n, info in track.spaces.items():
        if info.corner is not None:
            found.setdefault(info.corner, []).append((n, info.corner_lane))
    return {c: tuple(s) for c, s in found.items()}


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


def start_walk(ctx: PlanContext, start: str, traffic: Traffic) -> Walk:
    """The walk before the first step: no dice used, alongside the cars beside the start.

    rule: TRAFFIC-1 DEFAULT (a car that begins its turn beside another is alongside it
    already: it needs no gear die to stay or come beside it again this turn). Those cars
    only matter where a step comes beside them, and every such space is examined.
    """
    cars_at = traffic.cars_at
    beside = ctx.track.beside.get(start, frozenset())
    return Walk(alongside={near for near in beside if near in cars_at})


def _open(node: str, traffic: Traffic) -> bool:
    """Whether a car may enter ``node`` (TRAFFIC-3); the space's traffic is read."""
    if traffic.examined is not None:
        traffic.examined.add(node)
    return node not in traffic.blocked  # rule: TRAFFIC-3 (no car enters an occupied space)


def _may_come_beside(
    ctx: PlanContext, node: str, lead: Die | None, walk: Walk, cars_at: dict[str, int]
) -> bool:
    """TRAFFIC-1: coming beside a car takes a gear die at or above its gear."""
    for near in ctx.track.beside.get(node, _NOTHING):
        if near in cars_at:
            if near in walk.alongside:
                continue
            if lead is None or lead.kind is not _GEAR_KIND or lead.value < cars_at[near]:
                return False
    return True


def level(
    ctx: PlanContext,
    here: str,
    speed: int,
    walk: Walk,
    stack: list[PlanStep],
    traffic: Traffic,
    *,
    keep: Prune | None = None,
    keep_move: PruneMove | None = None,
    ref: PlanStep | None = None,
    moves_key: Hashable | None = None,
) -> list[tuple[PlanStep, Record | None]]:
    """The legal next steps from ``here`` at ``speed`` after ``stack`` (with ``walk``'s dice).

    Each comes with the dice it records in the walk (None for the free move of CLIMB-5);
    with ``ref``, only that step (a prefix being re-walked, not pruned). ``moves_key``: see
    :attr:`~trackkit.rules.plans.PlanBuilder.moves_key` (the pruners are applied once, in
    the table). The moves come from :func:`moves_from` (through the traffic's table, if it
    keeps one); what is checked here is what the plan so far and the cars decide.
    """
    turn = ctx.gt or _NO_TURN
    first = not stack
    flying = turn.flying and first and speed == 0
    table = traffic.moves
    pruned = moves_key is not None and ref is None and table is not None
    # a table's pruners read of the steps so far only whether there are any (the last
    # ends on ``here``, in the key already)
    pruner = (moves_key, first) if pruned else None
    key = (here, speed, flying, turn.final_lap, pruner, mud_key(ctx, here))
    targets = table.get(key) if table is not None else None
    if targets is None:
        targets = (
            moves_from(ctx, here, speed, flying, keep_move, keep, stack)
            if pruned
            else moves_from(ctx, here, speed, flying)
        )
        if table is not None:
            table[key] = targets
    car = ctx.car
    damage = car.damage
    gears_used = walk.gears
    n_gears = len(gears_used) + 1 + damage.gear  # against the column's gear dice
    coasts = walk.coasts + 1 + damage.coast
    brakes_used = walk.brakes + damage.brake
    boosts_used = walk.boosts
    tiles = walk.tiles
    oxygen_so_far = walk.oxygen
    alongside = walk.alongside
    cars_at = traffic.cars_at
    blocked = traffic.blocked
    examined = traffic.examined
    ahead = traffic.ahead
    yellow = turn.yellow
    here_at = car.space
    frees = first and ref is None
    # a re-walked prefix is not pruned; a table's pruner was applied in the table
    keep_last = None if ref is not None else keep
    if ref is not None or pruned:
        keep = keep_move = None
    out: list[tuple[PlanStep, Record | None]] = []
    for (
        info,
        climb,
        besides,
        n_col,
        coast_col,
        brake,
        boost,
        oxygen,
        moves,
        clouded,
        free,
        jumps,
    ) in targets:
        target = info.node
        if ref is not None and target != ref.placed_on:
            continue
        # rule: CLIMB-7 (the oxygen of the tiles entered, this one too, takes coast dice)
        coast = coast_col - oxygen_so_far
        if (oxygen or clouded is not None) and info.tile not in tiles:
            coast -= oxygen
            if clouded is not None:
                moves = clouded  # rule: CLIMB-8 (a cloud: a danger, on entering the tile)
        if climb is None:
            prune_move, prune = keep_move, keep
        else:
            # a climb line leaves no choice worth pruning (CLIMB-2); its moves decide the
            # free move (CLIMB-5), so they are pruned last
            prune_move = prune = None
        # the dice first: where no move is left whatever the cars, the traffic there is
        # not read (nor examined: the plan memo keys on fewer cars)
        start = len(out)
        for _dice, new_speed, brakes, boosts, value, step, landings, record in moves:
            if prune_move is not None and not prune_move(stack, target, speed, new_speed):
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
            if step is not None:
                if prune is None or prune(stack, step):
                    out.append((step, record))
            else:
                for land in landings:
                    if prune is None or prune(stack, land):
                        out.append((land, record))
        if len(out) == start and (free is None or not frees):
            continue
        if examined is not None:
            examined.add(target)
        if cars_at:
            if (
                target in blocked  # rule: TRAFFIC-3 (no car may enter an occupied space)
                or (yellow and any(near in cars_at for near in besides))
                # rule: TRAFFIC-5 (no coming up next to a car)
                or (
                    ahead is not None
                    and here_at is not None
                    and ctx.track.gain(here_at, target) > ahead + LEVEL_MM
                )
                # rule: TRAFFIC-5 (no overtaking: never past the car ahead)
            ):
                del out[start:]
                continue
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
                    lead, brakes, boosts, tile, oxygen, _n = made_record
                    # rule: TRAFFIC-1 (beside a car: a gear die at or above its gear)
                    if lead.kind is _GEAR_KIND and lead.value >= need:
                        beside.append((made, (lead, brakes, boosts, tile, oxygen, newly)))
                out[start:] = beside
        if jumps:
            # rule: JUMP-1 (the landing must be free), TRAFFIC-1 DEFAULT (a landing beside
            # a car needs the gear too)
            out[start:] = [
                (made, made_record)
                for made, made_record in out[start:]
                if made.space == target
                or (
                    _open(made.space, traffic)
                    and made_record is not None
                    and _may_come_beside(ctx, made.space, made_record[0], walk, cars_at)
                )
            ]
        if ref is not None:
            out[start:] = [(s, r) for s, r in out[start:] if s == ref]
        elif climb is not None:
            if len(out) == start:
                # rule: CLIMB-5 (no die can cross the climb line: one free space); a move
                # with no die cannot come beside a car (TRAFFIC-1)
                if (
                    frees
                    and free is not None
                    and _may_come_beside(ctx, target, None, walk, cars_at)
                ):
                    out.append((free, None))
            elif keep_last is not None:
                out[start:] = [(s, r) for s, r in out[start:] if keep_last(stack, s)]
    return out
