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
ValueError: no space '1:1.9L' on this stage (did you mean 1:1.1L, 1:1.2L, 1:1.3L?)
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from trackkit.assemble import lay_out
from trackkit.graph import build_graph
from trackkit.models.car import CarFile
from trackkit.models.stage import Stage
from trackkit.rules.cars import car_dashboard
from trackkit.rules.dashboard import SURFACES, Dashboard, dashboard
from trackkit.rules.plans import GtTurn, PlanContext
from trackkit.rules.ruleset import Ruleset, load_ruleset
from trackkit.rules.state import CarState, Damage, OtherCar
from trackkit.rules.track import Track

__all__ = ["GT_RING", "OtherSpec", "check_space", "position", "track_of"]

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
    near = sorted(difflib.get_close_matches(space, sorted(track.spaces), n=3, cutoff=0.5))
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise ValueError(f"no {what} {space!r} on this stage{hint}")


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
    check_space(track, space)
    if not 0 <= gear <= 6:
        raise ValueError(f"gear {gear}: a car is in gear 0 to 6")
    if second_tokens < 0 or (time is not None and time < 0) or any(c < 0 for c in cards):
        raise ValueError("second tokens, time and time cards are never negative")
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
    placed: list[OtherCar] = []
    taken = {space}
    for spec in others:
        other = spec if isinstance(spec, OtherCar) else OtherCar(*spec)
        check_space(track, other.space, "space (another car's)")
        if other.space in taken:
            raise ValueError(f"two cars on space {other.space!r}")
        if not 0 <= other.gear <= 6:
            raise ValueError(f"gear {other.gear} of the car on {other.space}: gears are 0 to 6")
        taken.add(other.space)
        placed.append(other)
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
    )
    if rules.gt is not None:
        gt = gt or GtTurn()
        state = replace(state, crossings=crossings)
        board = Dashboard(board.name, board.columns, frozenset())  # rule: MOVE-3 (no leader)
    return PlanContext(track, board, rules, state, tuple(placed), leader, dict(mud or {}), gt)
