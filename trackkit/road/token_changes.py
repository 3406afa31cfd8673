"""Copilot track tokens on a DIRT road: :func:`with_changes` makes the road they change.

Where a placed tile's tokens lie and what each does is worked out in
:mod:`trackkit.stage.track_tokens`; this module applies the changes (a ford, a jump, a
chicane space) to a :class:`~trackkit.road.driven.DrivenRoad` and cuts it again in the lane
model (:func:`trackkit.road.dirt_cut.dirt_road`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from trackkit.road.dirt_cut import Shortcut, dirt_road
from trackkit.road.driven import DrivenRoad, LocalSpace, RowChange, TokenSpot, Unit

__all__ = ["with_changes"]


def with_changes(
    road: DrivenRoad, changes: Mapping[int, RowChange], tokens: Sequence[TokenSpot] = ()
) -> DrivenRoad:
    """``road`` with Copilot track tokens' changes, by unit index, and where its tokens lie.

    A ford or a jump marks every space of its row (as printed ones do, FORD-1, JUMP-1); a
    chicane replaces the row's spaces by one chicane space across the road, with its limit
    (CORNER-1, BOARD-2: a corner space of both lanes, like 231's), a corner of its own. The
    road is cut again in the lane model, so every step carries the right tags; ``road``
    itself is never changed (:func:`drive` caches it).
    """
    if not changes and not tokens:
        return road
    if road.sections is None:
        return dataclasses.replace(road, tokens=tuple(tokens))
    spaces = dict(road.spaces)
    units = list(road.units)
    for index, change in sorted(changes.items()):
        unit = units[index]
        if change.chicane is not None:
            for sid in unit.spaces:
                del spaces[sid]
            cid = f"{unit.section}.{unit.row}C"
            spaces[cid] = LocalSpace(
                cid,
                index,
                "chicane",
                (1, 2),
                unit.f0,
                unit.f1,
                (-1.0, 1.0),
                limit=change.chicane,
                token=change.token,
                corner=f"{unit.section}.{unit.row}",
            )
            units[index] = Unit(
                index,
                "chicane",
                unit.section,
                unit.row,
                unit.f0,
                unit.f1,
                None,
                [cid],
                [cid],
                [cid],
            )
            continue
        for sid in unit.spaces:
            sp = spaces[sid]
            spaces[sid] = dataclasses.replace(
                sp,
                ford=sp.ford or change.ford,
                jump=change.jump if change.jump is not None else sp.jump,
                token=change.token,
            )
    shortcuts = [
        Shortcut(
            tuple(sc.spaces),
            sc.limit,
            sc.side,
            tuple(sc.into),
            tuple(sc.out),
            sc.at,
        )
        for sc in road.cut.road.shortcuts
    ]
    return dirt_road(
        road.face,
        road.road,
        road.entry,
        road.exit,
        road.reversed,
        units,
        spaces,
        road.climb,
        shortcuts,
        road.start_after,
        road.finish_after,
        tuple(tokens),
    )
