"""Scoring Rallyman: GT tracks: the measures of the structure, the difficulty, the score.

A GT track is scored twice: first by its structure, read off the validated track (its
summary and stage graph, :mod:`trackkit.stage.graph`), then its finalists by GT races
(:func:`trackkit.generator.refine.refine_gt`; "scored by overtaking chances and grid
fairness", measured in races).

**Measures of the structure** (:class:`GtStructure`, in each report and ``index.json``):

- **lap**: the lap's length in mm and in moves (``lap_length_mm``, ``lap_length_spaces``
  of the summary; point to point, start to finish);
- **lanes**: the share of the tiles whose road is 3 or more lanes wide (a tile where the
  road widens from 2 to 3 lanes counts half);
- **corners** and their limits, circled or in a warning triangle (CORNER-5, ``4!``), and
  **sharp corners**: the dotted lines, with a top gear or a warning sign (CORNER-4);
- **straights**: each stretch of the stage graph between two corners (the spaces that
  carry no corner limit, joined by steps), its length in **spaces** (the fewest moves
  that drive it, plus one), the lanes it is wide (the narrowest of its tiles) and the
  limit of the corner it ends in;
- **overtaking chances**: the straights of at least :data:`OVERTAKE_SPACES` spaces that
  end in a corner (room to pull out and come alongside, TRAFFIC-1, then a braking point
  to pass at), each counted ``1 + 0.5 x (lanes - 2)``: a 3-lane straight leaves room to
  pass a pair running side by side;
- **the grid's run**: the moves from the pole slot to the first corner space, and from
  the last slot of the grid. A longer run to the first corner lets the field spread over
  the lanes before anyone brakes; a short run to a tight corner favours pole.

**The structural score** (lower is better, :func:`gt_structure_score`) adds up:

- ``length`` (``--length-mm``): 4 x the relative difference of the lap length;
- ``overtaking``: 2 x how far the overtaking chances fall short of one per 6 tiles
  (:data:`TILES_PER_CHANCE`), as a share of that;
- ``lanes``: 1 x the share of the tiles narrower than 3 lanes;
- ``grid``: 0.3 per move the pole slot is short of :data:`GRID_MOVES` moves from the
  first corner;
- ``corners``: 0.5 per corner short of one per 4 tiles (a circuit is more than an oval).

**Difficulty** (``--difficulty``) is, for GT as for DIRT, the losses of control a driver
can expect per 10 tiles driven (laps x tiles) — here measured in the GT races, where the
finalist nearest the level's band is preferred (:mod:`trackkit.generator.refine`). The
bands are absolute (:data:`GT_BANDS`): the thirds of what 160 random circuits of
gt-core alone and with Championship, World Tour or Adrenaline showed in seeded races
(four GT bots, 3 laps, 16 races each; 0.08 at the 10th percentile, 0.13 the median, 0.19
at the 90th). The structure hardly predicts it: the **demand measure** *D*, the mean
over the tiles of a per-tile rate fitted (least squares, rounded) to where those races
lost control,

    r = 0.08  + 0.075 on a medium-danger face, 0.10 on a high-danger one
              + 0.065 per corner, + 0.055 more if its lowest limit is 2 or less
              - 0.03 per dotted line (with a gear or a sign)  - 0.06 on 2-lane road

(:data:`GT_RISK`), explains about 12 % of the spread between tiles and none of the
spread between whole circuits: over 30 random gt-core circuits of 12 tiles raced 80
times each, *D* ran *against* the raced rate (correlation -0.51; circuits with more
limit-1 corners lost control less, -0.55: the bots slow down for them). So *D* is
reported but neither steers the search nor scores. The level is the races' alone: the
finalists' rates differ between circuits for real (two sets of 40 races agree with a
correlation of 0.75; spread 0.027 between circuits round a mean of 0.14), and the two
finalists nearest the band are raced again, twice as often, with fresh seeds, the
choice made on those races (:meth:`trackkit.generator.series.GtRun.race_again`). Without
races (``--races 0``) the level is not measured, and the reports say so.

Examples
--------
>>> from trackkit.tiles.library import default_library
>>> from trackkit.road.spaces import drive
>>> lib = default_library()
>>> [round(gt_road_risk(drive(lib.get(face), 0)), 3) for face in ("103a", "103b")]
[0.08, 0.095]
>>> round(gt_road_risk(drive(lib.get("107a"), 2)), 3)  # limit 1, two dotted lines with signs
0.14
>>> GT_BANDS["medium"]
(0.11, 0.15)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import networkx as nx

from trackkit.generator.request import Request
from trackkit.generator.score import Aim, Band

if TYPE_CHECKING:
    from trackkit.generator.pieces import Palette, Way
    from trackkit.models.summary import StageSummary
    from trackkit.road.spaces import DrivenRoad
    from trackkit.stage.assemble import Layout

__all__ = [
    "GRID_MOVES",
    "GT_BANDS",
    "GT_RISK",
    "OVERTAKE_SPACES",
    "TILES_PER_CHANCE",
    "GtStructure",
    "Straight",
    "gt_aim",
    "gt_features",
    "gt_road_risk",
    "gt_structure_of",
    "gt_structure_score",
    "straights",
]

#: The per-tile demand of the GT measure (see the module docstring).
GT_RISK: dict[str, float] = {
    "base": 0.08,
    "medium": 0.075,
    "high": 0.10,
    "corner": 0.065,
    "slow_corner": 0.055,
    "dotted": -0.03,
    "dotted_sign": -0.03,
    "triangle": 0.0,
    "two_lanes": -0.06,
}
#: A corner whose lowest limit is this or less is slow (a hairpin or tight bend).
SLOW_LIMIT = 2

#: Weights of the parts of the structural score.
WEIGHTS = {"length": 4.0, "overtaking": 2.0, "lanes": 1.0, "grid": 0.3, "corners": 0.5}
#: The difficulty bands, in losses of control per driver per 10 tiles driven in GT races
#: (see the module docstring).
GT_BANDS: dict[str, tuple[float, float]] = {
    "easy": (0.06, 0.11),
    "medium": (0.11, 0.15),
    "hard": (0.15, 0.20),
}
#: A straight this many spaces long, ending in a corner, is an overtaking chance.
OVERTAKE_SPACES = 4
#: One overtaking chance wanted per this many tiles.
TILES_PER_CHANCE = 6
#: Moves from the pole slot to the first corner below which ``grid`` counts.
GRID_MOVES = 6
#: One corner wanted per this many tiles.
TILES_PER_CORNER = 4
#: The bell of :func:`trackkit.generator.score.way_weights` this wide is flat: every way
#: as likely whatever its demand.
NO_STEERING = 1000.0


def gt_features(road: DrivenRoad) -> dict[str, float]:
    """What the demand measure counts on one GT road as driven (:data:`GT_RISK` keys)."""
    face = road.face
    out = dict.fromkeys(GT_RISK, 0.0)
    out["base"] = 1.0
    if face.danger.value in ("medium", "high"):
        out[face.danger.value] = 1.0
    lane_road = road.cut.road
    for corner in lane_road.corners:
        limits = [road.spaces[s].limit for s in corner.spaces if s in road.spaces]
        known = [lim for lim in limits if lim is not None]
        if known:
            out["corner"] += 1
            out["slow_corner"] += min(known) <= SLOW_LIMIT
    for line in lane_road.lines.values():
        if line.dotted:
            sign = any(mark == "hazard" for mark in line.dotted.values())
            out["dotted_sign" if sign else "dotted"] += 1
    if any(sp.triangle for sp in road.spaces.values()):
        out["triangle"] = 1.0
    lanes = [face.lanes.get(road.entry), face.lanes.get(road.exit)]
    if min((n for n in lanes if n is not None), default=3) <= 2:
        out["two_lanes"] = 1.0
    return out


def gt_road_risk(road: DrivenRoad) -> float:
    """The demand ``r`` of one GT road as driven (see the module docstring)."""
    return sum(GT_RISK[k] * v for k, v in gt_features(road).items())


def gt_aim(request: Request, pal: Palette) -> Aim:
    """The aim of a GT request: the band of its level (:data:`GT_BANDS`), the size."""
    low, high = GT_BANDS[request.difficulty.value]
    return Aim(
        request.tiles,
        request.length_mm,
        (),
        Band(request.difficulty.value, low, high),
        False,
        # no steering by the demand measure: across random gt-core circuits it ran
        # against the races (correlation -0.51 with the raced rate, 30 circuits x 80
        # races), slow corners slowing the bots down more than they cost them control
        spread=NO_STEERING,
    )


def _tiles_for(request: Request, pal: Palette) -> int:
    if request.length_mm is not None:
        lengths = sorted(w.length_mm for w in pal.middles)
        return max(3, round(request.length_mm / lengths[len(lengths) // 2]))
    return 12


@dataclass(frozen=True, slots=True)
class Straight:
    """A stretch of road between two corners (or from the grid to the first)."""

    tile: int
    """The tile (in driving order) it begins on."""
    spaces: int
    """The fewest moves that drive it, plus one: its length in spaces."""
    lanes: int
    """Its width: the narrowest road of its tiles."""
    corner: int | None
    """The limit of the corner it ends in (None: it ends at the finish)."""

    @property
    def chance(self) -> float:
        """Its worth as an overtaking chance (0: too short, or no corner to brake for)."""
        if self.corner is None or self.spaces < OVERTAKE_SPACES:
            return 0.0
        return 1.0 + 0.5 * (self.lanes - 2)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "tile": self.tile,
            "spaces": self.spaces,
            "lanes": self.lanes,
            "corner_limit": self.corner,
            "overtaking_chance": self.chance,
        }


@dataclass(frozen=True, slots=True)
class GtStructure:
    """What the scoring reads of one GT track (its summary and stage graph)."""

    tiles: int
    """Tiles on the table (a tile driven twice counted once)."""
    length_mm: float
    """The lap (point to point: start to finish line), in mm."""
    moves: int | None
    """The lap (or start to finish) in moves."""
    lanes_share: float
    """Share of the tiles with 3 or more lanes."""
    corners: int
    corner_limits: tuple[str, ...]
    """Each corner's limits in driving order, as the summary writes them (``4/4!``)."""
    dotted: int
    """Sharp-corner dotted lines."""
    dotted_signs: int
    """Of those, the ones with a warning sign instead of a gear."""
    straights: tuple[Straight, ...]
    overtaking: float
    """The overtaking chances of a lap."""
    grid_slots: int
    pole_to_corner: int | None
    """Moves from the pole slot to the first corner space."""
    back_to_corner: int | None
    """Moves from the last grid slot to the first corner space."""
    first_corner: int | None
    """The limit of the first corner."""
    difficulty: float
    """The demand measure *D*."""
    driven_twice: int
    pit: bool
    footprint: tuple[int, int]
    surfaces: dict[str, float] = field(default_factory=dict)
    """Share of the tiles per surface (every GT face is asphalt)."""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "tiles": self.tiles,
            "length_mm": self.length_mm,
            "moves": self.moves,
            "lanes_3_or_more": round(self.lanes_share, 3),
            "corners": self.corners,
            "corner_limits": list(self.corner_limits),
            "sharp_corners": self.dotted,
            "sharp_corner_signs": self.dotted_signs,
            "straights": [s.to_json() for s in self.straights],
            "overtaking_chances": self.overtaking,
            "grid_slots": self.grid_slots,
            "pole_to_first_corner": self.pole_to_corner,
            "last_slot_to_first_corner": self.back_to_corner,
            "first_corner_limit": self.first_corner,
            "difficulty": round(self.difficulty, 3),
            "driven_twice": self.driven_twice,
            "pit": self.pit,
            "footprint_hexes": list(self.footprint),
        }


def _corner_nodes(graph: nx.DiGraph) -> set[str]:
    return {n for n, d in graph.nodes(data=True) if d["printed_limit"] is not None}


def _width(layout: Layout, tile: int) -> int:
    placed = layout.chain[tile - 1]
    if placed.face is None or placed.road is None:
        return 0
    ends = [placed.face.lanes.get(placed.road.entry), placed.face.lanes.get(placed.road.exit)]
    return min(n for n in ends if n is not None) if any(ends) else 0


def straights(graph: nx.DiGraph, layout: Layout) -> list[Straight]:
    """The straights of a GT track's graph, in driving order (see the module docstring)."""
    corner = _corner_nodes(graph)
    plain = graph.subgraph(n for n in graph.nodes if n not in corner)
    starts = set(graph.graph.get("start", ()))
    out: list[tuple[float, Straight]] = []
    for part in nx.weakly_connected_components(plain):
        entries = [n for n in part if n in starts or any(p in corner for p in graph.pred[n])]
        exits = [n for n in part if any(s in corner for s in graph.succ[n])]
        if not entries:
            continue  # no corner on the lap: nothing to brake for, nowhere to pass at
        depth = nx.multi_source_dijkstra_path_length(plain, set(entries), weight=None)
        ends = [depth[n] for n in exits if n in depth]
        finish = [depth[n] for n in part if n in depth and graph.nodes[n]["finished"]]
        if ends:
            moves = min(ends)
            nxt = [
                graph.nodes[s]["printed_limit"]
                for n in exits
                if depth.get(n) == moves
                for s in graph.succ[n]
                if s in corner
            ]
            limit: int | None = min(nxt)
        elif finish:
            moves, limit = min(finish), None
        else:
            continue
        first = min(part, key=lambda n: graph.nodes[n]["tile"])
        tiles = {graph.nodes[n]["tile"] for n in part}
        begin = min(graph.nodes[n]["progress"] for n in entries)
        out.append(
            (
                begin,
                Straight(
                    tile=int(graph.nodes[first]["tile"]),
                    spaces=int(moves) + 1,
                    lanes=min(_width(layout, t) for t in tiles),
                    corner=limit,
                ),
            )
        )
    out.sort(key=lambda pair: (pair[0], pair[1].tile))
    return [s for _, s in out]


def _to_corner(graph: nx.DiGraph, source: str, corner: set[str]) -> tuple[int | None, int | None]:
    """Moves from ``source`` to the nearest corner space, and that corner's limit."""
    depth = nx.single_source_shortest_path_length(graph, source)
    reached = [(d, n) for n, d in depth.items() if n in corner]
    if not reached:
        return None, None
    moves = min(d for d, _ in reached)
    limit = min(graph.nodes[n]["printed_limit"] for d, n in reached if d == moves)
    return moves, int(limit)


def gt_structure_of(
    summary: StageSummary,
    graph: nx.DiGraph,
    layout: Layout,
    ways: Sequence[Way],
) -> GtStructure:
    """The structure of a validated GT track (``summary`` and ``graph`` of its report)."""
    gt = summary.gt
    assert gt is not None  # a GT track's
    tiles = summary.tiles
    lanes = gt.lanes
    wide = 0.0
    for text, n in lanes.items():
        ends = [int(x) for x in str(text).split("-")]
        wide += n * sum(1 for e in ends if e >= 3) / len(ends)
    corner = _corner_nodes(graph)
    grid = list(graph.graph.get("start", ()))
    pole = _to_corner(graph, grid[0], corner) if grid else (None, None)
    back = _to_corner(graph, grid[-1], corner) if grid else (None, None)
    runs = straights(graph, layout)
    hexes = [t.hex for t in layout.chain]
    qs = [q for q, _ in hexes]
    rs = [r for _, r in hexes]
    dotted = gt.sharp_corners
    circuit = gt.lap_length_mm is not None
    length = gt.lap_length_mm if circuit else summary.length_mm
    moves = gt.lap_length_spaces if circuit else summary.length_spaces
    return GtStructure(
        tiles=tiles,
        length_mm=float(length or 0.0),
        moves=None if moves is None else int(moves),
        lanes_share=wide / tiles if tiles else 0.0,
        corners=len(gt.corners),
        corner_limits=tuple(c.limits for c in gt.corners),
        dotted=len(dotted),
        dotted_signs=sum(1 for d in dotted if "hazard" in d.marks.values()),
        straights=tuple(runs),
        overtaking=sum(s.chance for s in runs),
        grid_slots=gt.grid_slots,
        pole_to_corner=pole[0],
        back_to_corner=back[0],
        first_corner=pole[1],
        difficulty=sum(w.risk for w in ways) / len(ways) if ways else 0.0,
        driven_twice=len(gt.driven_twice),
        pit=bool(gt.pit),
        footprint=(max(qs) - min(qs) + 1, max(rs) - min(rs) + 1) if hexes else (0, 0),
        surfaces={k: v / tiles for k, v in summary.surfaces.items()} if tiles else {},
    )


def gt_structure_score(s: GtStructure, aim: Aim) -> dict[str, float]:
    """The parts of a GT track's structural score (their sum is the score)."""
    parts: dict[str, float] = {}
    if aim.length_mm:
        parts["length"] = WEIGHTS["length"] * abs(s.length_mm - aim.length_mm) / aim.length_mm
    wanted = max(1.0, s.tiles / TILES_PER_CHANCE)
    parts["overtaking"] = WEIGHTS["overtaking"] * max(0.0, 1.0 - s.overtaking / wanted)
    parts["lanes"] = WEIGHTS["lanes"] * (1.0 - s.lanes_share)
    to_corner = s.pole_to_corner if s.pole_to_corner is not None else GRID_MOVES
    parts["grid"] = WEIGHTS["grid"] * max(0, GRID_MOVES - to_corner)
    parts["corners"] = WEIGHTS["corners"] * max(0.0, s.tiles / TILES_PER_CORNER - s.corners)
    return {k: round(v, 4) for k, v in parts.items()}
