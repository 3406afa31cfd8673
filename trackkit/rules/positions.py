"""Positions to script: a stage, a car on it with everything a turn depends on, other cars.

:func:`position` builds a :class:`~trackkit.rules.plans.PlanContext` from a few words --
tiles in driving order (or a :class:`~trackkit.rules.track.Track`), the car's space and
gear, its car, damage, second tokens, time cards, SISU token, and the other cars (blocking
or not) -- and checks them, so that a script or a test states a position the way a player
reads it off the table. :func:`track_of` lays tiles out into a rules track.

Examples
--------
>>> ctx = position(["202a", "205a", "206a", "203a"], space="2:1.2L", gear=3,
...                second_tokens=4, cards=[20, 30], sisu=True, others=[("2:1.3R", 2, False)])
>>> ctx.car.second_tokens, ctx.car.time_seconds, ctx.car.sisu_token, ctx.others[0].blocks
(4, 50, True, False)
>>> sorted(ctx.dashboard.sisu)
['asphalt', 'gravel', 'snow']
>>> position(["202a", "203a"], space="1:1.9L", gear=1)
Traceback (most recent call last):
...
trackkit.errors.PositionError: the car: no space '1:1.9L' on this stage (did you mean 1:1.1L, \
1:1.2L, 1:1.3L?)
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

from trackkit.errors import PositionError
from trackkit.models.car import CarFile
from trackkit.models.stage import Stage
from trackkit.rules.cars import car_dashboard
from trackkit.rules.dashboard import SURFACES, Dashboard, dashboard
from trackkit.rules.plans import GtTurn, PlanContext
from trackkit.rules.ruleset import Ruleset, load_ruleset
from trackkit.rules.state import CarState, Damage, GtCar, OtherCar
from trackkit.rules.track import Track
from trackkit.stage.assemble import lay_out
from trackkit.stage.graph import build_graph
from trackkit.words import plural

__all__ = [
    "GT_RING",
    "OtherSpec",
    "check_position",
    "check_space",
    "driver_label",
    "position",
    "track_of",
]

_TRACKS: dict[str, Track] = {}

#: Another car as :func:`position` takes it: (space, gear), (space, gear, blocks) or one
#: :class:`~trackkit.rules.state.OtherCar`.
OtherSpec = tuple[str, int] | tuple[str, int, bool] | OtherCar


#: A 12-tile Rallyman: GT circuit of core-box tiles (the start/finish straight and six bends
#: of 60 degrees, left), in driving order: the GT perft positions and the race benchmark
#: are played on it.
GT_RING: tuple[str | dict[str, Any], ...] = (
    "102a",
    {"tile": "105a", "turn": "left"},
    "103a",
    {"tile": "115a", "turn": "left"},
    "104a",
    {"tile": "117a", "turn": "left"},
    "103a",
    {"tile": "106a", "turn": "left"},
    "104a",
    {"tile": "113a", "turn": "left"},
    "103a",
    {"tile": "118a", "turn": "left"},
)


def track_of(tiles: Sequence[str | dict[str, Any]]) -> Track:
    """The rules track of a stage given as tile specs in driving order (cached).

    Each tile is a face id (``"202a"``) or a stage file's tile entry
    (``{"tile": "217b", "turn": "left"}``).

    Raises
    ------
    pydantic.ValidationError
        If a tile entry is not one a stage file could hold.
    trackkit.errors.LayoutError
        If the tiles cannot be laid out.
    """
    key = repr(tiles)
    if key not in _TRACKS:
        specs = [t if isinstance(t, dict) else {"tile": t} for t in tiles]
        layout = lay_out(Stage.model_validate({"format": "trackkit-stage/1", "tiles": specs}))
        _TRACKS[key] = Track.from_graph(build_graph(layout), layout)
    return _TRACKS[key]


def check_space(track: Track, space: str, what: str = "space") -> None:
    """Raise ValueError naming ``space`` (and the nearest ids) if the track has no such space."""
    if space in track.spaces:
        return
    raise ValueError(_no_space(track, space, what))


def _no_space(track: Track, space: str, what: str = "space") -> str:
    near = sorted(difflib.get_close_matches(space, sorted(track.spaces), n=3, cutoff=0.5))
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    return f"no {what} {space!r} on this stage{hint}"


def driver_label(i: int, name: str) -> str:
    """How an error names driver ``i`` (from 0): ``driver 2``, or ``driver 2 (Bob)``."""
    plain = f"driver {i + 1}"
    return plain if name == plain else f"{plain} ({name})"


def check_position(
    track: Track,
    ruleset: Ruleset,
    cars: Sequence[CarState | None],
    *,
    who: Sequence[str],
    boards: Sequence[Dashboard | None] = (),
    gt: Sequence[GtCar | None] = (),
    laps: int | None = None,
    mud: Sequence[tuple[int, int]] = (),
    rounds_played: int = 0,
    race: bool = True,
) -> None:
    """Refuse a position the rules do not allow, naming the car and the space.

    The one check of a position, for both series: a race's start
    (:func:`~trackkit.sim.race.run_race` with a ``start``, DIRT and GT alike) and a
    planning position (:func:`position`). Per car: a space of the stage, not finished, a
    gear of 0 to 6 and no higher than its dashboard's top gear (DASH-1, DASH-2), no
    negative count (second or focus tokens, time, cards, damage, line crossings), no more
    damage tokens of a kind than its dashboard has dice of it (DAMAGE-3), a SISU token
    face up only on a dashboard with one (LOC-7). Between cars: no two on the road on
    one space or on spaces that overlap (a slide over its lanes, a GT crossing driven
    twice: ``Track.overlaps``; TRAFFIC-3); cars off the road may share (TRAFFIC-4). GT:
    no more crossings of the line than the race's laps (BOARD-3); a car off the road is
    in gear 00 or in the pit (:class:`~trackkit.rules.state.GtCar`, LOC-6, GT-2), a car
    in the pit on a space that gives access to one, off the road and in gear 0; no mud
    (SHORTCUT-2 is DIRT's). DIRT: mud only on the stage's tiles.

    Parameters
    ----------
    track, ruleset : Track, Ruleset
        The stage and the rules (``ruleset.gt`` set: a GT position).
    cars : sequence of CarState or None
        Each car as it stands (None: not on the stage, behind the start line).
    who : sequence of str
        How the messages name each car (:func:`driver_label`); one per driver, so that
        more cars than drivers are refused.
    boards : sequence of Dashboard or None
        Each car's dashboard (left out or None: its dashboard is not checked against).
    gt : sequence of GtCar or None
        GT: each car's state off the road, tyres and flag.
    laps : int, optional
        GT: the laps of the race (None: a point-to-point track, or not a race).
    mud : sequence of (tile, driver)
        DIRT: mud tokens drawn so far (SHORTCUT-2).
    rounds_played : int
        The rounds played before the position.
    race : bool
        False: a planning position (:func:`position`), whose GT cars off the road need not
        say whether they are in gear 00 or in the pit (they are only out of the way).

    Raises
    ------
    PositionError
        The first thing the rules do not allow, naming the car and the space.

    Examples
    --------
    A car sliding across the road before the bend of 217b (CORNER-3) and a car on a lane
    space under its slide space: the two spaces are one piece of road.

    >>> track = track_of(["202a", {"tile": "217b", "turn": "left"}, "203a"])
    >>> check_position(track, load_ruleset("dirt"),
    ...                [CarState(0, "2:1.1S1", 3), CarState(1, "2:1.1L", 2)],
    ...                who=["driver 1", "driver 2 (Bob)"])
    Traceback (most recent call last):
    ...
    trackkit.errors.PositionError: driver 2 (Bob) on 2:1.1L and driver 1 on 2:1.1S1 stand \
on one piece of road (the spaces overlap, TRAFFIC-3): no two cars on the road there
    """
    series_gt = ruleset.gt is not None
    if rounds_played < 0:
        raise PositionError(f"round {rounds_played}: a race starts after round 0 or later")
    for given, what in ((len(cars), "cars"), (len(gt), "GT car states")):
        if given > len(who):
            raise PositionError(
                f"the position gives {given} {what} for {plural(len(who), 'driver')}"
            )
    if gt and not series_gt and any(g is not None for g in gt):
        raise PositionError(
            "GT car states (off the road, tyres, yellow flags) are for a Rallyman: GT race"
        )
    for tile, _drawer in mud:
        if series_gt:
            raise PositionError(f"mud on tile {tile}: mud tokens are DIRT's (SHORTCUT-2)")
        if not any(info.tile == tile for info in track.spaces.values()):
            raise PositionError(f"mud on tile {tile}: the stage has no tile {tile}")
    placed: dict[str, tuple[str, str]] = {}
    for i, car in enumerate(cars):
        state = gt[i] if i < len(gt) else None
        if car is None:
            if state is not None and state.off:
                raise PositionError(
                    f"{who[i]}: off the road ({state.off!r}) but with no car on the track",
                    car=who[i],
                )
            continue
        board = boards[i] if i < len(boards) else None
        _check_car(track, car, who[i], board, state, laps, series_gt, race)
        space = car.space
        if space is None or not car.on_track:
            continue  # behind the start line, or off the road: in nobody's way (TRAFFIC-4)
        for near in (space, *sorted(track.overlaps.get(space, ()))):
            if near not in placed:
                continue
            other, there = placed[near]
            if there == space:
                raise PositionError(
                    f"{who[i]} and {other} both stand on {space}", car=who[i], space=space
                )
            raise PositionError(
                f"{who[i]} on {space} and {other} on {there} stand on one piece of road "
                "(the spaces overlap, TRAFFIC-3): no two cars on the road there",
                car=who[i],
                space=space,
            )
        placed[space] = (who[i], space)


def _check_car(
    track: Track,
    car: CarState,
    name: str,
    board: Dashboard | None,
    state: GtCar | None,
    laps: int | None,
    series_gt: bool,
    race: bool,
) -> None:
    """:func:`check_position` of one car."""
    space = car.space
    at = f"{name} on {space}" if space is not None else name

    def refuse(message: str) -> PositionError:
        return PositionError(f"{at}: {message}", car=name, space=space)

    if space is not None and space not in track.spaces:
        raise PositionError(f"{name}: {_no_space(track, space)}", car=name, space=space)
    if car.finished:
        raise refuse("a finished car has no place in a race still to run")
    if not 0 <= car.gear <= 6:
        raise refuse(f"gear {car.gear}; a car is in gear 0 to 6")
    tokens = "focus tokens" if series_gt else "second tokens"
    counts = (
        (tokens, car.second_tokens),
        ("seconds of time", car.time_seconds),
        ("gear damage tokens", car.damage.gear),
        ("brake damage tokens", car.damage.brake),
        ("coast damage tokens", car.damage.coast),
        ("coast damage tokens to come", car.pending_coast_damage),
        ("crossings of the line", car.crossings),
        ("turns", car.turns),
        *(("seconds on a time card", c) for c in car.cards),
    )
    for what, value in counts:
        if value < 0:
            raise refuse(f"{value} {what}: tokens, damage, time and cards are never negative")
    if board is not None and board.columns:
        top = max((max(c.gears, default=0) for c in board.columns.values()), default=6)
        if car.gear > top:
            raise refuse(f"gear {car.gear}, but {board.name} has no gear above {top} (DASH-2)")
        for kind in ("gear", "brake", "coast"):
            n, have = getattr(car.damage, kind), board.most(kind)
            if n > have:
                raise refuse(
                    f"{n} {kind} damage tokens, but {board.name} has {have} {kind} dice "
                    "(DAMAGE-3: a token for a die the car lacks goes back)"
                )
        if car.sisu_token and not board.sisu:
            raise refuse("its SISU token is face up, but its dashboard has none")
    if laps is not None and car.crossings > laps:
        raise refuse(
            f"{car.crossings} crossings of the line: in a race of {plural(laps, 'lap')} it "
            "would have finished (BOARD-3)"
        )
    if not (series_gt and race):
        return
    off = state.off if state is not None else ""
    if state is not None and state.tyres not in (None, "dry", "rain"):
        raise refuse(f"tyres {state.tyres!r}: GT tyres are dry or rain (GT-3)")
    if not off:
        if not car.on_track and space is not None:
            raise refuse(
                "off the road, but neither in gear 00 nor in the pit: say which with "
                "GtCar(off='00'), GtCar(off='pit-0') or GtCar(off='pit-00') (LOC-6, GT-2)"
            )
        return
    if off not in ("00", "pit-0", "pit-00"):
        raise refuse(f"off {off!r}: a GT car is off the road in gear 00 or in the pit")
    if space is None:
        raise refuse(f"off the road ({off!r}) needs the space it went off on")
    if car.on_track or car.gear != 0:
        raise refuse(
            f"off the road ({off!r}): its car state is off the track (on_track False) "
            "in gear 0 (LOC-6, GT-2)"
        )
    if off.startswith("pit") and track.spaces[space].pit is None:
        pits = sorted(n for n, info in track.spaces.items() if info.pit is not None)
        where = f"; pit spaces: {', '.join(pits[:6])}" if pits else "; the track has no pit"
        raise refuse(f"in the pit ({off!r}), but {space} gives no access to a pit (GT-2){where}")


def position(
    tiles: Sequence[str | dict[str, Any]] | Track,
    *,
    space: str,
    gear: int,
    car: str | Dashboard | CarFile = "dirt",
    others: Sequence[OtherSpec] = (),
    leader: bool = False,
    damage: Damage | None = None,
    mud: dict[int, int] | None = None,
    second_tokens: int = 0,
    cards: Sequence[int] = (),
    time: int | None = None,
    sisu: bool | Iterable[str] | None = None,
    top_card_loc: bool = False,
    ruleset: Ruleset | None = None,
    crossings: int = 0,
    gt: GtTurn | None = None,
) -> PlanContext:
    """A planning position: a stage, a car on ``space`` in ``gear``, other cars.

    Parameters
    ----------
    tiles : sequence of tile specs, or Track
        The stage: tiles in driving order (see :func:`track_of`), or a rules track.
    space, gear : str, int
        Where the car stands (a space id such as ``"3:2.I1"``) and its gear (0..6).
    car : str, Dashboard or CarFile
        A printed car of the ruleset (``dirt``, ``r5``), a dashboard, or a car file.
    others : sequence
        Other cars: ``(space, gear)``, ``(space, gear, blocks)`` -- ``blocks`` False for a
        car off the road, which blocks no one (TRAFFIC-4) -- or :class:`OtherCar`.
    leader : bool
        Whether the car plays first this round: its coast dice are leader dice (MOVE-3).
    damage : Damage, optional
        Damage tokens on its dashboard (DAMAGE-3).
    mud : dict, optional
        Mud tokens per tile (by number in driving order) that count for this car
        (SHORTCUT-2).
    second_tokens : int
        Second tokens it holds (TURN-4, TURN-5).
    cards : sequence of int
        Its pile of time cards so far, in seconds, the top one last (TURN-8 repeats it).
    time : int, optional
        Seconds on its clock so far (default: the sum of ``cards``).
    sisu : bool, iterable of str, or None
        Its SISU token (LOC-7): None, face up if the dashboard has one; True, face up (a
        dashboard without one gets one that works on every surface); the surfaces it works
        on (face up); False, flipped already or none.
    top_card_loc : bool
        Whether the top card of its pile is a loss-of-control card (TURN-8 DEFAULT).
    ruleset : Ruleset, optional
        The rules (default: ``dirt``; ``gt`` for a Rallyman: GT position).
    crossings : int
        GT: the times the car crossed the start/finish line (the first begins lap 1).
    gt : GtTurn, optional
        GT: the last lap, a yellow flag, the flying start (default with a GT ruleset:
        :class:`~trackkit.rules.plans.GtTurn` as a race's first lap has it).

    Returns
    -------
    PlanContext
        The position, ready for :func:`~trackkit.rules.plans.legal_plans` and
        :func:`~trackkit.rules.resolve.resolve`.

    Raises
    ------
    ValueError
        For a space the stage does not have (with the nearest ids), a gear outside 0..6,
        two cars on one space, a negative count, or an unknown car.
    """
    rules = ruleset or load_ruleset("dirt")
    track = tiles if isinstance(tiles, Track) else track_of(tiles)
    if isinstance(car, Dashboard):
        board = car
    elif isinstance(car, CarFile):
        board = car_dashboard(car)
    else:
        board = dashboard(car, rules)
    if sisu is None:
        token = bool(board.sisu)
    elif sisu is True:
        token = True
        board = board if board.sisu else board.with_sisu(SURFACES)
    elif sisu is False:
        token = False
    else:
        where = frozenset(sisu)
        unknown = sorted(where - set(SURFACES))
        if unknown:
            raise ValueError(f"SISU on {', '.join(unknown)}: surfaces are {', '.join(SURFACES)}")
        token, board = True, board.with_sisu(where)
    placed = [spec if isinstance(spec, OtherCar) else OtherCar(*spec) for spec in others]
    state = CarState(
        car_id=0,
        space=space,
        gear=gear,
        damage=damage or Damage(),
        second_tokens=second_tokens,
        sisu_token=token,
        time_seconds=sum(cards) if time is None else time,
        cards=tuple(cards),
        top_card_loc=top_card_loc,
        crossings=crossings if rules.gt is not None else 0,
    )
    check_position(
        track,
        rules,
        [state, *(CarState(k, o.space, o.gear, o.blocks) for k, o in enumerate(placed, 1))],
        who=["the car", *(f"other car {k}" for k in range(1, len(placed) + 1))],
        boards=[board],
        race=False,
    )
    if rules.gt is not None:
        gt = gt or GtTurn()
        board = Dashboard(board.name, board.columns, frozenset())  # rule: MOVE-3 (no leader)
    return PlanContext(track, board, rules, state, tuple(placed), leader, dict(mud or {}), gt)
