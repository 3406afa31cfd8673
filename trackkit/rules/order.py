"""Who plays first in a round (TURN-2).

Examples
--------
>>> from trackkit.rules.positions import track_of
>>> from trackkit.rules.ruleset import load_ruleset
>>> from trackkit.rules.state import CarState
>>> track = track_of(["202a", {"tile": "217b", "turn": "left"}, "203a"])
>>> cars = [CarState(0, "2:1.1L", 3), CarState(1, "2:1.1R", 4), CarState(2, "1:1.3L", 6)]
>>> [c.car_id for c in play_order(cars, track, load_ruleset("dirt"))]
[1, 0, 2]
"""

from __future__ import annotations

from collections.abc import Sequence

from trackkit.rules.ruleset import Ruleset
from trackkit.rules.state import CarState
from trackkit.rules.track import Track, per_track

__all__ = ["inner_lanes", "play_order"]


def play_order(cars: Sequence[CarState], track: Track, ruleset: Ruleset) -> list[CarState]:
    """The cars in the order they play this round (TURN-2).

    DIRT: the car furthest ahead first (the front edge of its space, BOARD-5); level on
    that, the higher gear; still level, the car on the inner lane of its corner or of the
    next one (:func:`inner_lanes`). GT (a ruleset whose ``play_order`` is ``speed``): the
    higher gear first, then the one further ahead, then the inner lane. On a circuit, the
    laps driven count in how far ahead a car is (:attr:`CarState.crossings`). Cars level on
    all three keep the order they are given in (TURN-2 DEFAULT: player order). Cars not on
    the stage yet (``space`` None) play after the others, in the order given (TURN-1).

    Parameters
    ----------
    cars : sequence of CarState
        The cars that play this round (finished cars have no turn: leave them out).
    track : Track
        The stage.
    ruleset : Ruleset
        The rules; its ``play_order`` picks the DIRT or the GT order.

    Returns
    -------
    list of CarState
        The same cars, first to play first.

    Raises
    ------
    ValueError
        If a car stands on a space the stage does not have.
    """
    spaces = track.spaces
    inner = inner_lanes(track)
    speed_first = ruleset.play_order == "speed"  # rule: TURN-2 (GT: speed, then distance)
    lap = track.lap_length
    on: list[tuple[tuple[float, float, int, int], CarState]] = []
    key: tuple[float, float, int, int]
    off: list[CarState] = []
    for i, car in enumerate(cars):
        if car.space is None:
            off.append(car)
            continue
        info = spaces.get(car.space)
        if info is None:
            raise ValueError(f"car {car.car_id} is on {car.space!r}, a space the stage lacks")
        lane = 0 if car.space in inner else 1
        # BOARD-5 DEFAULT: on a circuit, the laps driven count (graph.lap_distance)
        far = info.progress + ((car.crossings - 1) * lap if lap else 0.0)
        # rule: TURN-2 (distance, speed, inner lane; then the order given: DEFAULT)
        # (the gear as a float, as the key declares it: mypyc checks the tuple's types)
        gear = float(car.gear)
        key = (-gear, -far, lane, i) if speed_first else (-far, -gear, lane, i)
        on.append((key, car))
    on.sort(key=lambda kc: kc[0])
    return [car for _key, car in on] + off


@per_track
def inner_lanes(track: Track) -> frozenset[str]:
    """Spaces whose lane is the inner lane of the current or next corner (TURN-2).

    A corner's inner-lane spaces, and the lane spaces before it on the same side of the
    road (worked out once per track).
    """
    side_of_next: dict[str, int | None] = {}
    backwards = sorted(track.spaces, key=lambda n: -track.spaces[n].progress)
    # twice round: on a circuit the spaces before the line (the grid) look ahead to the
    # first corner of the next lap
    for node in backwards + backwards:
        info = track.spaces[node]
        if info.corner_lane == "inner":
            # the lane at the road's edge: an inner space may span lanes (1-2 of 3)
            side_of_next[node] = 1 if min(info.lanes) == 1 else max(info.lanes)
            continue
        if info.corner_lane is not None:
            side_of_next[node] = 0  # the outside of the corner it is in: no inner lane
            continue
        if side_of_next.get(node) is not None:
            continue
        known = [x for s, _ in track.successors[node] if (x := side_of_next.get(s)) is not None]
        edges = [x for x in known if x > 0]  # an inner lane ahead rather than an outside
        side_of_next[node] = edges[0] if edges else (known[0] if known else None)
    return frozenset(
        n
        for n, info in track.spaces.items()
        if info.corner_lane == "inner"
        or (len(info.lanes) == 1 and side_of_next.get(n) == info.lanes[0])
    )
