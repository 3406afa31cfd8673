"""Scoring by structure: the difficulty measure, the targets, the weights of the search.

**The difficulty measure.** A stage's difficulty *D* is the losses of control a driver
can expect on it per 10 tiles, estimated from its structure alone: the mean over its
tiles of a per-tile risk

    r = 0.3  + 1.2 on snow  + 0.1 on asphalt
             + 0.8 per jump  - 0.2 per ford
             + per corner (and chicane): 0.4 - 0.05 x (6 - its outer lane's limit)
             - 0.5 with climb arrows
             + 1.7 per cloud token  - 0.35 per climb token  (oxygen: 0)

(:data:`RISK`). The numbers were fitted (least squares, then rounded) to 530 seeded
simulations of random roads: 12 tiles from dirt-core, dirt-monte-carlo, both, and with
dirt-climb as hillclimbs with random tokens; three drivers (cautious, aggressive and
planner bots), 12 to 24 races each. They say what the simulator finds: the danger limit
of 2 on snow (DASH-1) costs most; a jump invites a loss of control on landing (JUMP-1);
corners cost less than straights' speed would suggest, because every bot slows down for
them, and fast corners cost more than slow ones; climb lines slow cars down (CLIMB-2,
CLIMB-3); a cloud adds a danger result to every turn there (CLIMB-8). The fit explains
80 % of the spread of the simulated rallies' rates (the rest is mostly the noise of 72
driver-races) and 45 % of the hillclimbs' (raced 12 times each).
``python benchmarks/generate.py --calibrate`` runs such simulations again and prints the
fit beside the numbers in use.

**Difficulty levels** are relative to the boxes: for the tiles asked for, *D* can lie
between the value of the least risky and of the most risky pieces owned
(:func:`difficulty_range`); ``easy`` aims at the lowest third of that range, ``medium``
at the middle third, ``hard`` at the top third (:class:`Band`). The simulation then checks
the stage's real rate in the same units (:mod:`trackkit.generator.refine`). That check
matters most where the structure says least: the pieces of dirt-core alone differ little
in risk, and their structure tells ``easy`` from ``medium`` but hardly ``medium`` from
``hard``; chosen with the races, four stages of each level raced again with other seeds
showed 0.41, 0.54 and 0.77 losses of control per driver per 10 tiles (with snow from
dirt-monte-carlo the structure alone separates the levels clearly).

**The structural score** of a candidate (lower is better, :func:`structure_score`) adds
up, each as a number where 1 is "clearly off":

- ``difficulty``: 3 x the distance of *D* from the band's centre, in half band widths;
- ``surfaces``: 3 x the sum of the differences between the shares asked for and laid;
- ``length`` (``--length-mm``): 4 x the relative difference of the road length;
- ``flow``: 0.5 per tile of the longest run of tiles without a corner beyond 3.

Examples
--------
>>> from trackkit.tiles.library import default_library
>>> lib = default_library()
>>> round(face_risk(lib.get("205a")), 2), round(face_risk(lib.get("305b")), 2)
(0.3, 1.5)
>>> round(face_risk(lib.get("217a")), 2)  # one corner, outer limit 3
0.55
>>> Band("medium", 0.6, 0.9).distance(0.75), Band("medium", 0.6, 0.9).distance(0.9)
(0.0, 1.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trackkit.generator.request import Difficulty, Request
from trackkit.models.stage import Kind
from trackkit.models.tile import ChicaneSection, CornerSection, TileFace

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from trackkit.generator.pieces import Palette, Way
    from trackkit.generator.search import Road
    from trackkit.models.stage import TileToken
    from trackkit.models.summary import StageSummary

__all__ = [
    "RISK",
    "SECONDS_PER_TILE",
    "Aim",
    "Band",
    "Structure",
    "difficulty",
    "difficulty_range",
    "face_risk",
    "structure_of",
    "structure_score",
    "way_risk",
    "way_weights",
]

#: The per-tile risk of the difficulty measure (see the module docstring).
RISK: dict[str, float] = {
    "base": 0.3,
    "snow": 1.2,
    "asphalt": 0.1,
    "jump": 0.8,
    "ford": -0.2,
    "corner": 0.4,
    "corner_per_gear_below_6": -0.05,
    "climb": -0.5,
    "cloud": 1.7,
    "climb_token": -0.35,
    "oxygen": 0.0,
}

#: A careful driver's (the cautious bot's) median seconds per tile in the calibration
#: runs: ``--par`` alone asks for about par / 24 tiles.
SECONDS_PER_TILE = 24.0

#: Weights of the parts of the structural score.
WEIGHTS = {"difficulty": 3.0, "surfaces": 3.0, "length": 4.0, "flow": 0.5}
#: Tiles in a row without a corner before ``flow`` counts.
STRAIGHT_RUN = 3


def way_risk(way: Way) -> float:
    """The risk ``r`` of one way: its share of the difficulty measure (``Way.risk``)."""
    return way.risk


def face_risk(face: TileFace) -> float:
    """The risk ``r`` of a face (the same both ways round)."""
    road = face.road
    if road is None:
        return 0.0
    risk = RISK["base"] + RISK.get(face.surface.value, 0.0)
    risk += RISK["jump"] * len(road.jumps) + RISK["ford"] * len(road.fords)
    for section in road.sections:
        if isinstance(section, CornerSection | ChicaneSection):
            limit = section.outer.limit if isinstance(section, CornerSection) else section.limit
            risk += RISK["corner"] + RISK["corner_per_gear_below_6"] * (6 - limit)
    if road.climb is not None:
        risk += RISK["climb"]
    return risk


def token_risk(tokens: Iterable[TileToken]) -> float:
    """The risk the tokens on one tile add."""
    names = {"cloud": "cloud", "climb": "climb_token", "oxygen": "oxygen"}
    return sum(RISK[names[t.token]] for t in tokens if t.token in names)


def difficulty(ways: Sequence[Way], tokens: Mapping[int, Sequence[TileToken]]) -> float:
    """The difficulty measure *D* of a road with tokens by tile (0-based)."""
    if not ways:
        return 0.0
    total = sum(way_risk(w) for w in ways)
    total += sum(token_risk(ts) for ts in tokens.values())
    return total / len(ways)


@dataclass(frozen=True, slots=True)
class Band:
    """The range of the difficulty measure a level aims at."""

    level: str
    low: float
    high: float

    @property
    def centre(self) -> float:
        """The middle of the band."""
        return (self.low + self.high) / 2

    def distance(self, value: float) -> float:
        """How far ``value`` lies from the centre, in half band widths (1: on the edge)."""
        half = max((self.high - self.low) / 2, 1e-6)
        return abs(value - self.centre) / half

    def words(self) -> str:
        """``medium (0.62 to 0.80)``."""
        return f"{self.level} ({self.low:.2f} to {self.high:.2f})"


def _tokens_risk(request: Request) -> float:
    names = {"cloud": "cloud", "climb": "climb_token", "oxygen": "oxygen"}
    return sum(RISK[names[k]] * n for k, n in request.tokens)


def difficulty_range(pal: Palette, tiles: int, request: Request) -> tuple[float, float]:
    """The least and the most *D* the pieces can make for a stage of ``tiles`` tiles.

    The least risky (most risky) start, finish and ``tiles - 2`` other pieces, each by its
    least (most) risky face; a hillclimb keeps one climb piece among them.
    """
    middle = max(0, tiles - 2)

    def extreme(most: bool) -> float:
        pick = max if most else min
        per_piece: dict[tuple[str, int], tuple[float, bool]] = {}
        for w in pal.middles:
            r = way_risk(w)
            old = per_piece.get(w.piece)
            per_piece[w.piece] = (r if old is None else pick(old[0], r), w.is_climb)
        values = sorted(
            (v for p, v in per_piece.items() for _ in range(pal.copies[p])),
            key=lambda v: v[0],
            reverse=most,
        )
        chosen = values[:middle]
        climbs = [v for v in values if v[1]]
        if request.kind is Kind.HILLCLIMB and climbs and chosen and not any(c for _, c in chosen):
            chosen[-1] = climbs[0]  # a hillclimb has a climb tile
        start = pick(way_risk(w) for w in pal.starts)
        finish = pick(way_risk(w) for w in pal.finishes)
        laid = start + finish + sum(r for r, _ in chosen)
        return (laid + _tokens_risk(request)) / max(tiles, 1)

    low, high = extreme(False), extreme(True)
    return min(low, high), max(low, high)


def band_of(level: Difficulty, low: float, high: float) -> Band:
    """The third of [low, high] a level aims at."""
    third = (high - low) / 3
    k = {Difficulty.EASY: 0, Difficulty.MEDIUM: 1, Difficulty.HARD: 2}[level]
    return Band(level.value, low + k * third, low + (k + 1) * third)


@dataclass(frozen=True, slots=True)
class Aim:
    """The targets a search weighs its ways by, and candidates are scored against."""

    tiles: int | None
    length_mm: float | None
    surfaces: tuple[tuple[str, float], ...]
    band: Band
    hillclimb: bool = False
    spread: float = 0.3
    """The width of the search's preference around the risk still wanted per tile."""

    @classmethod
    def of(cls, request: Request, pal: Palette) -> Aim:
        """The aim of a request over the pieces of ``pal``."""
        tiles = request.tiles or _tiles_for(request, pal)
        low, high = difficulty_range(pal, tiles, request)
        risks = [way_risk(w) for w in pal.middles]
        return cls(
            request.tiles,
            request.length_mm,
            request.surfaces,
            band_of(request.difficulty, low, high),
            request.kind is Kind.HILLCLIMB,
            spread=0.35 * (max(risks) - min(risks)) + 0.05,
        )

    @property
    def expected_tiles(self) -> int:
        """The tiles the stage will have (by length: an estimate)."""
        return self.tiles or 12


def _tiles_for(request: Request, pal: Palette) -> int:
    """Tiles of a stage asked for by length (an estimate) or by par alone."""
    if request.length_mm is not None:
        lengths = sorted(w.length_mm for w in pal.middles)
        return max(2, round(request.length_mm / lengths[len(lengths) // 2]))
    return 12


def way_weights(ways: Sequence[Way], road: Road, aim: Aim) -> list[float]:
    """How much the search favours each of ``ways`` as the next tile of ``road``.

    The product of three preferences, each above zero so every way stays possible:

    - **surfaces**: the share of the tiles still to lay that a way's surface still wants
      (surfaces not named share what the named ones leave), spread over the ways of that
      surface, so that the chance of a surface does not depend on how many faces have it;
    - **difficulty**: a bell around the risk per tile the road still needs to end on the
      band's centre;
    - **hillclimb**: climb faces three times as likely.
    """
    total = max(aim.tiles or 0, len(road.ways) + 2, _estimate(aim, road))
    left = max(1, total - len(road.ways))
    need = (aim.band.centre * total - road.risk) / left
    named = dict(aim.surfaces)

    def category(way: Way) -> str:
        surface = way.face.surface.value
        return surface if surface in named else "rest"

    sizes: dict[str, int] = {}
    for way in ways:
        sizes[category(way)] = sizes.get(category(way), 0) + 1
    wanted: dict[str, float] = {}
    if named:
        for cat in sizes:
            if cat == "rest":
                laid = sum(n for s, n in road.surfaces.items() if s not in named)
                want = (1.0 - sum(named.values())) * total - laid
            else:
                want = named[cat] * total - road.surfaces[cat]
            wanted[cat] = max(0.03, min(1.0, want / left)) / sizes[cat]
    out = []
    for way in ways:
        weight = wanted.get(category(way), 1.0)
        weight *= math.exp(-(((way.risk - need) / aim.spread) ** 2)) + 0.05
        if aim.hillclimb and way.is_climb:
            weight *= 3.0
        out.append(weight)
    return out


def _estimate(aim: Aim, road: Road) -> int:
    if aim.length_mm is None or not road.ways:
        return aim.expected_tiles
    per_tile = road.length_mm / len(road.ways)
    return round(aim.length_mm / max(per_tile, 1.0))


@dataclass(frozen=True, slots=True)
class Structure:
    """What the scoring reads of one candidate stage (from its validation summary)."""

    tiles: int
    length_mm: float
    surfaces: dict[str, float]
    """Share of the road tiles per surface."""
    corners: int
    corner_limits: tuple[int, ...]
    """Outer-lane limits of the corners, in driving order."""
    features: dict[str, int]
    difficulty: float
    straight_run: int
    """The longest run of tiles without a corner."""
    footprint: tuple[int, int]
    """Width and height of the map in hexes."""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "tiles": self.tiles,
            "length_mm": self.length_mm,
            "surfaces": {k: round(v, 3) for k, v in self.surfaces.items()},
            "corners": self.corners,
            "corner_limits": list(self.corner_limits),
            "features": self.features,
            "difficulty": round(self.difficulty, 3),
            "straight_run": self.straight_run,
            "footprint_hexes": list(self.footprint),
        }


def structure_of(
    summary: StageSummary,
    ways: Sequence[Way],
    tokens: Mapping[int, Sequence[TileToken]],
    hexes: Sequence[tuple[int, int]],
) -> Structure:
    """The structure of a validated candidate: ``summary`` is its validation summary."""
    dirt = summary.dirt
    assert dirt is not None  # a DIRT stage's
    tiles = summary.tiles
    surfaces = {k: v / tiles for k, v in summary.surfaces.items()} if tiles else {}
    corner_tiles = {c.tile_index for c in dirt.corners}
    run = best = 0
    for i in range(1, tiles + 1):
        run = 0 if i in corner_tiles else run + 1
        best = max(best, run)
    qs = [q for q, _ in hexes]
    rs = [r for _, r in hexes]
    features = {"shortcuts": dirt.shortcuts, "jumps": dirt.jumps, "fords": dirt.fords}
    features["climb_up"] = dirt.climb.up
    features["climb_down"] = dirt.climb.down
    for t in summary.tokens:
        features[f"{t.token}_tokens"] = t.count
    return Structure(
        tiles=tiles,
        length_mm=float(summary.length_mm or 0.0),
        surfaces=surfaces,
        corners=len(dirt.corners),
        corner_limits=tuple(int(c.outer or 0) for c in dirt.corners),
        features=features,
        difficulty=difficulty(ways, tokens),
        straight_run=best,
        footprint=(max(qs) - min(qs) + 1, max(rs) - min(rs) + 1) if hexes else (0, 0),
    )


def structure_score(s: Structure, aim: Aim) -> dict[str, float]:
    """The parts of a candidate's structural score (their sum is the score)."""
    parts = {"difficulty": WEIGHTS["difficulty"] * aim.band.distance(s.difficulty)}
    if aim.surfaces:
        parts["surfaces"] = WEIGHTS["surfaces"] * sum(
            abs(s.surfaces.get(name, 0.0) - share) for name, share in aim.surfaces
        )
    if aim.length_mm:
        parts["length"] = WEIGHTS["length"] * abs(s.length_mm - aim.length_mm) / aim.length_mm
    parts["flow"] = WEIGHTS["flow"] * max(0, s.straight_run - STRAIGHT_RUN)
    return {k: round(v, 4) for k, v in parts.items()}
