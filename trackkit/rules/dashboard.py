"""Dashboards: which dice a car may use per surface, and its danger limit (DASH-1..4).

Examples
--------
>>> d = dashboard("dirt")
>>> d.column("snow").danger_limit, d.column("gravel").coast
(2, 2)
>>> u = UnlimitedDashboard(surfaces=("snow", "gravel"), equipment={
...     "left": ["gear:1", "gear:2", "gear:3", "gear:4", "gear:5", "gear:6", "brake", "coast"],
...     "middle": ["coast", "sisu"], "right": ["boost"]})
>>> u.column("gravel").boost, u.column("snow").boost, u.column("snow").danger_limit
(1, 0, 5)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from trackkit.rules.ruleset import Column, Ruleset, load_ruleset

__all__ = ["Dashboard", "UnlimitedDashboard", "check_unlimited", "dashboard"]

SURFACES = ("gravel", "asphalt", "snow")


@dataclass(frozen=True, slots=True)
class Dashboard:
    """A printed dashboard: one column of dice per surface (DASH-1)."""

    name: str
    columns: dict[str, Column]
    leader_surfaces: frozenset[str] = frozenset(SURFACES)
    forced_leader_surfaces: frozenset[str] = frozenset()
    """Surfaces where the car's tyres make every coast die a leader die (MOVE-8)."""
    sisu: bool = False
    puncture_proof: bool = False

    def column(self, surface: str) -> Column:
        """The column that applies on ``surface`` (MOVE-7)."""
        return self.columns.get(surface) or self.columns["gravel"]


def dashboard(car: str = "dirt", ruleset: Ruleset | None = None) -> Dashboard:
    """A printed car of the ruleset (``dirt``: the DIRT default car, ``r5``: with boost)."""
    rs = ruleset or load_ruleset("dirt")
    try:
        spec = rs.cars[car]
    except KeyError:
        raise ValueError(f"unknown car '{car}' (cars: {', '.join(sorted(rs.cars))})") from None
    return Dashboard(car, {str(k): v for k, v in spec.columns.items()})


REGION_SIZES = {"top": 3, "right": 2, "middle": 2, "left": 10}
EQUIPMENT = ("gear", "brake", "coast", "boost", "tyres", "sisu")


@dataclass(frozen=True, slots=True)
class UnlimitedDashboard:
    """The Climb's Unlimited dashboard: 17 spaces (DASH-3, DASH-4).

    ``surfaces`` lists the track-type tokens of the top row from left to right, the
    car's best surface last (rightmost). ``equipment`` holds token names per region:
    ``right`` and ``middle`` (2 spaces each, under the rightmost and middle tokens),
    ``left`` (10 spaces under and left of the leftmost token) and ``top`` (top-row spaces
    no surface token uses). Tokens: ``gear:N``, ``brake``, ``coast``, ``boost``,
    ``tyres`` (puncture-proof), ``sisu``.
    """

    surfaces: tuple[str, ...]
    equipment: dict[str, list[str]] = field(default_factory=dict)

    def usable_regions(self, surface: str) -> tuple[str, ...]:
        """Regions whose equipment works on ``surface`` (DASH-3)."""
        if surface not in self.surfaces:
            return ()
        rank = len(self.surfaces) - 1 - self.surfaces.index(surface)  # 0 = rightmost
        if rank == 0:
            return ("top", "right", "middle", "left")
        if rank == 1:
            return ("top", "middle", "left")
        return ("top", "left")

    def empty_spaces(self) -> int:
        """Empty spaces: each adds 1 to the danger limit (DASH-4 DEFAULT: every surface)."""
        used = sum(len(v) for v in self.equipment.values()) + len(self.surfaces)
        return sum(REGION_SIZES.values()) - used

    def column(self, surface: str) -> Column:
        """The dice that work on ``surface``."""
        tokens = [t for r in self.usable_regions(surface) for t in self.equipment.get(r, [])]
        gears = sorted({int(t.split(":")[1]) for t in tokens if t.startswith("gear:")})
        return Column(
            gears=gears,
            brake=tokens.count("brake"),
            coast=tokens.count("coast"),
            boost=tokens.count("boost"),
            danger_limit=1 + self.empty_spaces(),
        )

    def as_dashboard(self) -> Dashboard:
        """A :class:`Dashboard` the plan generator can use (leader swap on gravel, MOVE-3)."""
        everything = [t for v in self.equipment.values() for t in v]
        return Dashboard(
            "unlimited",
            {s: self.column(s) for s in self.surfaces},
            leader_surfaces=frozenset({"gravel"}),
            sisu="sisu" in everything,
            puncture_proof="tyres" in everything,
        )


def check_unlimited(board: UnlimitedDashboard, stage_surfaces: Iterable[str]) -> list[str]:
    """Problems of an Unlimited dashboard for a stage, in words (empty: fine) (DASH-3)."""
    problems = []
    present = sorted(set(stage_surfaces) & set(SURFACES))
    if sorted(board.surfaces) != present:
        problems.append(
            f"track-type tokens {sorted(board.surfaces)} do not match the stage's "
            f"surfaces {present}: one token per surface present"
        )
    if len(set(board.surfaces)) != len(board.surfaces):
        problems.append("a surface token is placed twice")
    top_free = REGION_SIZES["top"] - len(board.surfaces)
    for region, size in REGION_SIZES.items():
        room = top_free if region == "top" else size
        if len(board.equipment.get(region, [])) > room:
            problems.append(
                f"region '{region}' holds {len(board.equipment[region])} tokens, room for {room}"
            )
    for region in board.equipment:
        if region not in REGION_SIZES:
            problems.append(f"unknown region '{region}'")
    gears = []
    for token in (t for v in board.equipment.values() for t in v):
        kind = token.split(":")[0]
        if kind not in EQUIPMENT:
            problems.append(f"unknown equipment token '{token}'")
        elif kind == "gear":
            try:
                value = int(token.split(":")[1])
            except (IndexError, ValueError):
                problems.append(f"gear token '{token}' needs a value 1..6")
                continue
            if not 1 <= value <= 6:
                problems.append(f"gear token '{token}' needs a value 1..6")
            gears.append(value)
    if len(gears) != len(set(gears)):
        problems.append("a gear value is placed twice")
    if board.empty_spaces() < 0:
        problems.append("more than 17 spaces used")
    for surface in present:
        if not board.column(surface).gears:
            problems.append(f"no gear die works on {surface}")
    return problems
