"""Build rules positions quickly, for tests, doctests, perft files and benchmarks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trackkit.assemble import lay_out
from trackkit.graph import build_graph
from trackkit.models.stage import Stage
from trackkit.rules.dashboard import Dashboard, dashboard
from trackkit.rules.plans import PlanContext
from trackkit.rules.ruleset import load_ruleset
from trackkit.rules.state import CarState, Damage, OtherCar
from trackkit.rules.track import Track

__all__ = ["position", "track_of"]

_TRACKS: dict[str, Track] = {}


def track_of(tiles: Sequence[str | dict[str, Any]]) -> Track:
    """The rules track of a stage given as tile specs in driving order (cached)."""
    key = repr(tiles)
    if key not in _TRACKS:
        specs = [t if isinstance(t, dict) else {"tile": t} for t in tiles]
        layout = lay_out(Stage.model_validate({"format": "trackkit-stage/1", "tiles": specs}))
        _TRACKS[key] = Track.from_graph(build_graph(layout), layout)
    return _TRACKS[key]


def position(
    tiles: Sequence[str | dict[str, Any]],
    *,
    space: str,
    gear: int,
    car: str | Dashboard = "dirt",
    others: Sequence[tuple[str, int]] = (),
    leader: bool = False,
    damage: Damage | None = None,
    mud: dict[int, int] | None = None,
) -> PlanContext:
    """A planning position: a stage, a car on ``space`` in ``gear``, other cars."""
    board = car if isinstance(car, Dashboard) else dashboard(car)
    state = CarState(car_id=0, space=space, gear=gear, damage=damage or Damage())
    return PlanContext(
        track_of(tiles),
        board,
        load_ruleset("dirt"),
        state,
        tuple(OtherCar(s, g) for s, g in others),
        leader,
        dict(mud or {}),
    )
