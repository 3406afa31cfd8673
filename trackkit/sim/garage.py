"""How bots build their Unlimited dashboards for a stage (DASH-3, DASH-4, HILLCLIMB-3).

A hillclimb is driven with Unlimited dashboards (The Climb): each driver fills the 17
spaces of the board for the stage before its first turn, and may rebuild it between
attempts. A bot does it by a short, fixed rule:

1. **Track-type tokens**: one per surface of the stage, the surface with the most road
   rightmost (the car's best surface: the whole board works there), then the next; a
   tie is broken by the race's generator.
2. **What it wants**: each bot has a wish list, most wanted first, and a danger limit it
   aims at (every empty space adds one to the limit, DASH-4). It takes as many tokens from
   its list as leave that limit. The list is the bot's own, adjusted to the stage: on a
   stage that climbs the boost die comes right after the coast dice (coast + boost is the
   only way up a slope without losing a gear, CLIMB-3); on one that descends, a second
   brake comes right after them (coast + brake downhill); puncture-proof tyres are wanted,
   last, only where there are shortcuts; a SISU token already spent for the rally is left
   out (LOC-7).

   ======== ===== =====================================================================
   bot      limit wish list (then: coast, brake, boost)
   ======== ===== =====================================================================
   cautious 5     gears 1-5, brake, coast, coast, gear 6, boost, SISU
   planner  4     gears 1-6, brake, coast, coast, boost, SISU
   aggress. 3     gears 1-6, coast, coast, boost, brake, SISU
   ======== ===== =====================================================================

3. **Where**: the most wanted tokens go where they work on every surface (the left
   region, then free top-row spaces, then the columns that every surface of the stage
   reaches), the rest under the middle token, then under the right one.
4. **Between attempts** (HILLCLIMB-3): after an attempt with two or more losses of
   control the bot takes one token fewer (the limit goes up by one); after one without
   any, it goes back to its own build.

The same stage, bot, level and SISU state always give the same board: a race is still
(stage, settings, seed), and the bots' plan memo sees only a few boards per stage.

Examples
--------
>>> from trackkit.rules.testing import track_of
>>> track = track_of(["301a", {"tile": "418a", "climb": "up"}, "302a"])
>>> profile = stage_profile(track)
>>> profile.surfaces, profile.ascents > 0
(('asphalt',), True)
>>> board = build_unlimited(profile, "cautious")
>>> board.short()
'asphalt: gears 1-6, brake 1, coast 3, boost 1, SISU; limit 5'
>>> build_unlimited(profile, "cautious", level=1).danger_limit()
4
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from trackkit.models.car import REGION_SIZES, TRACK_TYPES, Column
from trackkit.rules.dashboard import Dashboard, UnlimitedDashboard
from trackkit.rules.track import Track, per_track

_EXTRA = ("coast", "brake", "boost")

__all__ = [
    "BUILDS",
    "MAX_LEVEL",
    "Build",
    "StageProfile",
    "build_unlimited",
    "next_level",
    "place_tokens",
    "stage_profile",
    "surface_order",
    "unlimited_bound",
    "unlimited_dashboard",
]

#: The most tokens a board takes beyond its bot's own build (:func:`unlimited_bound`).
MAX_LEVEL = 0
#: Tokens every board keeps at least (a car needs its gears).
MIN_TOKENS = 6


@dataclass(frozen=True, slots=True)
class StageProfile:
    """What a bot reads of a stage before it builds its dashboard.

    ``surfaces`` are the stage's surfaces, the most road first; ``ascents`` and
    ``descents`` count the steps over climb lines up and down (CLIMB-1, CLIMB-6).
    """

    surfaces: tuple[str, ...]
    spaces: tuple[tuple[str, int], ...]
    ascents: int
    descents: int
    shortcuts: bool
    oxygen: bool

    @property
    def tied(self) -> bool:
        """Whether two surfaces have exactly as much road (the order is then drawn)."""
        counts = [n for _s, n in self.spaces]
        return len(set(counts)) < len(counts)


@per_track
def stage_profile(track: Track) -> StageProfile:
    """The :class:`StageProfile` of a track (worked out once per track)."""
    counts = Counter(
        info.surface
        for info in track.spaces.values()
        if info.kind not in ("slide", "shortcut") and info.surface in TRACK_TYPES
    )
    order = sorted(counts, key=lambda s: (-counts[s], TRACK_TYPES.index(s)))
    climbs = Counter(climb for succs in track.successors.values() for _t, climb in succs)
    return StageProfile(
        tuple(order),
        tuple((s, counts[s]) for s in order),
        climbs["up"],
        climbs["down"],
        any(info.kind == "shortcut" for info in track.spaces.values()),
        bool(track.oxygen),
    )


@dataclass(frozen=True, slots=True)
class Build:
    """What a bot values in a dashboard: the danger limit it aims at, its wish list."""

    limit: int
    wants: tuple[str, ...]
    """Equipment tokens, most wanted first (see the module docstring)."""

    def wants_for(self, profile: StageProfile, *, sisu: bool) -> tuple[str, ...]:
        """The wish list adjusted to the stage (and to a SISU token still to use).

        Past the bot's own list come more coast, brake and boost dice, for a bot that
        takes more tokens than it lists.
        """
        wants = [w for w in self.wants if sisu or w != "sisu"]
        coasts = [i for i, w in enumerate(wants) if w == "coast"]
        after = coasts[1] + 1 if len(coasts) > 1 else len(wants)
        if profile.ascents and "boost" in wants[after:]:
            wants.remove("boost")  # rule: CLIMB-3 (coast + boost keeps the speed uphill)
            wants.insert(after, "boost")
        if profile.descents:  # rule: CLIMB-3 (coast + brake keeps it downhill)
            wants.insert(after + (1 if profile.ascents else 0), "brake")
        if profile.shortcuts:  # rule: DASH-4 (puncture-proof tyres matter on shortcuts)
            wants.append("tyres")
        return (*wants, *(_EXTRA * 2))


_GEARS = tuple(f"gear-{v}" for v in range(1, 7))

#: Each bot's build (module docstring); keys are bot names.
BUILDS: dict[str, Build] = {
    "cautious": Build(5, (*_GEARS[:5], "brake", "coast", "coast", "gear-6", "boost", "sisu")),
    "planner": Build(4, (*_GEARS, "brake", "coast", "coast", "boost", "sisu")),
    "aggressive": Build(3, (*_GEARS, "coast", "coast", "boost", "brake", "sisu")),
}


@lru_cache(maxsize=512)
def build_unlimited(
    profile: StageProfile,
    bot: str,
    *,
    level: int = 0,
    sisu: bool = True,
    surfaces: tuple[str, ...] | None = None,
) -> UnlimitedDashboard:
    """The Unlimited dashboard bot ``bot`` builds for a stage (module docstring).

    ``level`` takes that many tokens more than the bot's own limit leaves (fewer if
    negative); ``sisu`` False leaves the SISU token out; ``surfaces`` orders the
    track-type tokens best first (default: ``profile.surfaces``).
    """
    build = BUILDS[bot]
    order = surfaces or profile.surfaces
    k = len(order)
    room = sum(REGION_SIZES.values()) - k
    wants = build.wants_for(profile, sisu=sisu)
    limit = max(2, min(build.limit - level, room + 1 - MIN_TOKENS))
    n = max(MIN_TOKENS, min(room - (limit - 1), len(wants), room))
    return place_tokens(wants[:n], order)


def place_tokens(tokens: Sequence[str], surfaces: Sequence[str]) -> UnlimitedDashboard:
    """A board with ``tokens`` placed where they work on the most surfaces, first ones first.

    ``surfaces`` are the track-type tokens, best first. The tokens fill the left region,
    then the top row's free spaces, then the columns that work on every surface of the
    board, then the middle column (the best two surfaces), then the right one (the best
    surface only, DASH-3); tokens beyond the board's room are left out.

    >>> place_tokens(["gear-1", "gear-2", "boost"], ["snow"]).layout()["left"]
    ['gear-1', 'gear-2', 'boost']
    """
    k = len(surfaces)
    slots = ["left"] * REGION_SIZES["left"] + ["top"] * (REGION_SIZES["top"] - k)
    if k <= 2:  # the middle column works on the best two surfaces: all of them here
        slots += ["middle"] * REGION_SIZES["middle"]
    if k == 1:
        slots += ["right"] * REGION_SIZES["right"]
    if k == 3:
        slots += ["middle"] * REGION_SIZES["middle"]
    if k >= 2:
        slots += ["right"] * REGION_SIZES["right"]
    placed: dict[str, list[str]] = {"top": [], "right": [], "middle": [], "left": []}
    for token, region in zip(tokens, slots, strict=False):
        placed[region].append(token)
    return UnlimitedDashboard(
        tuple(reversed(surfaces)),  # left to right: the best surface last (DASH-3)
        top=tuple(placed["top"]),
        right=tuple(placed["right"]),
        middle=tuple(placed["middle"]),
        left=tuple(placed["left"]),
    )


def surface_order(profile: StageProfile, rng: random.Random) -> tuple[str, ...]:
    """The track-type tokens best first: most road first, a tie drawn with ``rng``."""
    if not profile.tied:
        return profile.surfaces
    counts = dict(profile.spaces)
    groups: dict[int, list[str]] = {}
    for s in profile.surfaces:
        groups.setdefault(counts[s], []).append(s)
    out: list[str] = []
    for n in sorted(groups, reverse=True):
        group = groups[n]
        rng.shuffle(group)  # the race's one generator: the same seed, the same board
        out += group
    return tuple(out)


def next_level(level: int, losses: int) -> int:
    """The level of the next attempt after one with ``losses`` losses of control.

    Two or more: one token fewer than the bot's own build (the limit one higher); none:
    back to its own build; one: as it was. (So a bot drives two boards at most, and the
    plan memo stays warm.)
    """
    if losses >= 2:
        return -1
    if losses == 0:
        return 0
    return level


def unlimited_bound(profile: StageProfile) -> Dashboard:
    """A dashboard with at least the dice of every board the bots build for the stage.

    A bot's board at a higher level holds the tokens of its lower levels and more (its wish
    list taken further, in the same order of spaces; a bot never goes above its own
    build, :data:`MAX_LEVEL`), and one without SISU a die in its place: so per surface,
    the most of each die over every bot's richest board (the most tokens, no SISU)
    covers every board any bot drives there. Its fastest risk-free line
    is a lower bound for the bots' Unlimited cars (a hillclimb's par time; track-type
    tokens in the stage's order of road, so a drawn tie is not covered). Its danger limit
    means nothing: no dice risk is taken.
    """
    boards = [
        build_unlimited(profile, bot, level=MAX_LEVEL, sisu=False).as_dashboard() for bot in BUILDS
    ]
    columns = {}
    for surface in profile.surfaces:
        cols = [b.column(surface) for b in boards]
        columns[surface] = Column(
            gears=sorted({g for c in cols for g in c.gears}),
            brake=max(c.brake for c in cols),
            coast=max(c.coast for c in cols),
            boost=max(c.boost for c in cols),
            danger_limit=max(c.danger_limit for c in cols),
        )
    return Dashboard("the bots' Unlimited boards", columns, leader_surfaces=frozenset({"gravel"}))


@lru_cache(maxsize=512)
def unlimited_dashboard(board: UnlimitedDashboard) -> Dashboard:
    """The :class:`Dashboard` of a board (one object per board: plan memos key by it)."""
    return board.as_dashboard()
