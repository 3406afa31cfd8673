"""Rallyman: GT pieces: what the GT boxes hold, the checks of a GT request, the pit.

The GT boxes' faces (``gt-core``, ``gt-championship``, ``gt-world-tour``,
``gt-team-challenge``, ``gt-adrenaline``) become ways as DIRT faces do
(:mod:`trackkit.generator.pieces`): every road of a face, driven from either end. A bend or
hairpin is written ``turn: left|right``, a straight driven the other way round
``enter: E``, a face with several roads ``road: R`` and ``enter: E``. The pieces 122, 124
and 125 come in two boxes (Championship and World Tour, ``TileFace.also_in``): either box
supplies them and the copies of every box owned add up, as
:func:`trackkit.checks.inventory.check_inventory` counts them. Start/finish faces are
the starts (and, point to point, the finishes); they are laid with their grid behind the
line, in the race direction, as a stage file's first tile is.

:func:`check_gt_request` is where an impossible GT request stops (the DIRT one is
:func:`trackkit.generator.pieces.check_dirt_request`; both behind
:func:`trackkit.generator.series.check_request`); :func:`place_pit` lays the pit tile
beside a track. The goal that closes a circuit is :mod:`trackkit.generator.circuit`'s.

Examples
--------
>>> from trackkit.generator.request import Request
>>> request, pal = check_gt_request(Request(boxes=("gt-core",), ruleset="gt", tiles=12))
>>> [w.face.id for w in pal.starts], pal.max_tiles
(['102a', '102b'], 32)
>>> sorted({w.key for w in pal.middles if w.face.number == 105})
['105a left', '105a right', '105b left', '105b right']
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from trackkit import limits
from trackkit.checks.pipeline import Report, validate
from trackkit.generator.gt_score import gt_road_risk
from trackkit.generator.pieces import Palette, Piece, Way, box_list, check_boxes, series_boxes
from trackkit.generator.request import GenerateError, Request
from trackkit.models.stage import Kind, Stage, StageTile
from trackkit.models.tile import FaceKind, TileFace
from trackkit.road import hexgrid
from trackkit.road.geometry import road_turn
from trackkit.road.spaces import DrivenRoad, drive, face_roads
from trackkit.stage.assemble import lay_out
from trackkit.tiles.library import TileLibrary, default_library

__all__ = [
    "DEFAULT_PLAYERS",
    "GT_BOXES",
    "LEAST_TILES",
    "check_gt_request",
    "fitting_starts",
    "grid_slots",
    "gt_palette",
    "place_pit",
    "tiles_for_length",
]

#: The Rallyman: GT boxes, as the tile library names them.
GT_BOXES = ("gt-core", "gt-championship", "gt-world-tour", "gt-team-challenge", "gt-adrenaline")
#: Players a GT grid holds by default (S127).
DEFAULT_PLAYERS = limits.DEFAULT_PLAYERS
#: The smallest circuit: a start/finish tile and the turns back to it.
LEAST_TILES = 6


def _default_entry(face: TileFace) -> int:
    """The entry :func:`trackkit.stage.assemble.lay_out` takes for a line naming only the face."""
    return face_roads(face)[0][1]


def _ways(face: TileFace) -> list[Way]:
    """Every road of a GT face from either end, written as a stage file would say it."""
    roads = face_roads(face)
    if face.layout is not None and face.layout.start_finish:
        return [Way(face)]  # laid with its grid behind the line, the race direction
    out = []
    for rid, e0, e1 in roads:
        for entry, exit_ in ((e0, e1), (e1, e0)):
            turn = road_turn(entry, exit_)
            drives = (rid, entry)
            bend = _bend(entry, exit_)
            if len(roads) > 1:
                out.append(Way(face, enter=entry, road=rid, drives=drives, bend=bend))
            elif turn is not None:
                out.append(Way(face, turn=turn, drives=drives, bend=bend))  # type: ignore[arg-type]
            elif entry == _default_entry(face):
                out.append(Way(face, drives=drives, bend=bend))
            else:
                out.append(Way(face, enter=entry, drives=drives, bend=bend))
    return out


def _bend(entry: int, exit_: int) -> int:
    """The heading change of a road driven from edge ``entry`` to ``exit_`` (Way.bend)."""
    step = (exit_ - hexgrid.opposite(entry)) % 6
    return step if step <= 3 else step - 6


def _laid(ways: list[Way], library: TileLibrary) -> list[Way]:
    """The ways the placement accepts on their own, each with its length and demand."""
    out = []
    for way in ways:
        layout = lay_out(
            Stage(format="trackkit-stage/1", ruleset="gt", tiles=[way.tile()]), library
        )
        if layout.findings or not layout.chain or layout.chain[-1].road is None:
            continue
        placed = layout.chain[-1]
        road = placed.road
        assert road is not None
        drives = (road.road_id or "A", road.entry)
        if not _whole_width(road):
            continue
        length = round(layout.road_length(placed), 3)
        risk = gt_road_risk(drive(way.face, road.entry, road.road_id))
        bend = _bend(road.entry, road.exit)
        out.append(replace(way, length_mm=length, risk=risk, drives=drives, bend=bend))
    return out


def _whole_width(road: DrivenRoad) -> bool:
    """Whether ``road`` takes every lane of the edges it joins (a branch of a junction,
    such as 152a's one-lane hairpin C, takes some of the edge's slots only: laid on its
    own, its lanes need not meet the next tile's, though the edge's lane counts do, so
    the search leaves it out)."""
    for edge in (road.entry, road.exit):
        lanes = road.face.lanes.get(edge, 0)
        if set(road.cut.edge_slots(edge, lanes)) != set(range(1, lanes + 1)):
            return False
    return True


def _copies(faces: Sequence[TileFace], named: Counter[str]) -> dict[Piece, int]:
    """Pieces owned: each box's copies times the times it is named, every holder added."""
    out: dict[Piece, int] = {}
    for f in faces:
        have = f.copies * named[f.box] + sum(n * named[b] for b, n in f.also_in.items())
        out[(f.box, f.number)] = have
    return out


def gt_palette(boxes: tuple[str, ...], library: TileLibrary | None = None) -> Palette:
    """What the GT ``boxes`` hold: the start/finish faces, the other road faces, the pit.

    Raises
    ------
    GenerateError
        An unknown box or a DIRT box.
    """
    lib = library or default_library()
    check_boxes(boxes, lib, "gt")
    if lib is default_library():
        return _shipped_palette(boxes)
    return _gt_palette(boxes, lib)


@lru_cache(maxsize=32)
def _shipped_palette(boxes: tuple[str, ...]) -> Palette:
    """The palette of the shipped library (laid out once per process)."""
    return _gt_palette(boxes, default_library())


def _gt_palette(boxes: tuple[str, ...], lib: TileLibrary) -> Palette:
    named = Counter(boxes)
    faces = [
        f
        for box in sorted(series_boxes(lib, "gt"))
        for f in lib.in_box(box)
        if f.series == "gt" and (named[f.box] or any(named[b] for b in f.also_in))
    ]
    copies = _copies(faces, named)
    road = [f for f in faces if f.kind is FaceKind.ROAD and f.is_gt_road]
    ways = _laid([w for f in road for w in _ways(f)], lib)
    starts = tuple(w for w in ways if w.line is not None)
    return Palette(
        boxes=tuple(boxes),
        starts=starts,
        finishes=starts,
        middles=tuple(w for w in ways if w.line is None),
        fillers=tuple(f for f in faces if f.kind is FaceKind.PIT),
        copies=copies,
    )


def check_gt_request(
    request: Request, library: TileLibrary | None = None
) -> tuple[Request, Palette]:
    """The GT request with its size, laps and players settled, and the palette.

    Raises
    ------
    GenerateError
        Naming the option at fault and what would work: DIRT options (``--surface``,
        ``--tokens``, ``--fillers``, ``--par``, a DIRT ``--kind``), unknown or DIRT boxes,
        no start/finish face (or only one piece of them for a point-to-point track), a
        size the pieces cannot close into a circuit, a grid too small for the players,
        laps on a point-to-point track, a pit without the pit tile, crossings.
    """
    _check_dirt_options(request)
    pal = gt_palette(request.boxes, library)
    owned = box_list(request.boxes)
    p2p = request.kind is Kind.POINT_TO_POINT
    if not pal.starts:
        raise GenerateError(
            "--boxes",
            f"a GT track needs a start/finish tile, and {owned} hold none: add gt-core "
            "(102), gt-world-tour (131) or gt-team-challenge (139, 140, 143, 144)",
        )
    line_pieces = sum(pal.copies[p] for p in {w.piece for w in pal.starts})
    if p2p and line_pieces < 2:
        raise GenerateError(
            "--kind",
            f"a point-to-point track starts and finishes on two start/finish pieces, and "
            f"{owned} hold {line_pieces}: add gt-world-tour or gt-team-challenge, or use "
            "--kind circuit",
        )
    if p2p and request.laps is not None:
        raise GenerateError("--laps", "a point-to-point track is raced once: leave --laps out")
    if request.laps is not None and not limits.MIN_LAPS <= request.laps <= limits.MAX_LAPS:
        raise GenerateError("--laps", f"a race is {limits.laps_words()} laps, not {request.laps}")
    players = request.players if request.players is not None else DEFAULT_PLAYERS
    if not limits.MIN_PLAYERS <= players <= limits.MAX_PLAYERS:
        raise GenerateError(
            "--players", f"a GT race has {limits.players_words()} cars, not {players}"
        )
    grids = {w.face.id: grid_slots(w.face) for w in pal.starts}
    fitting = fitting_starts(pal, players)
    if not fitting:
        most = max(grids.values())
        raise GenerateError(
            "--players",
            f"the start/finish tiles of {owned} hold at most {most} cars on their grid "
            f"(S127): use --players {most} or fewer",
        )
    if request.pit and not pal.fillers:
        raise GenerateError(
            "--pit", f"the pit tile 101 comes with gt-core, and {owned} hold none: add gt-core"
        )
    if request.crossings:
        raise GenerateError(
            "--crossings",
            "generated tracks do not cross themselves yet: leave --crossings out (draw a "
            "figure of eight by hand, as examples/gt-figure-eight.rekee.json)",
        )
    pal = replace(pal, starts=fitting, finishes=fitting)
    request = replace(request, players=players)
    if request.tiles is None and request.length_mm is None:
        request = replace(request, tiles=min(12, pal.max_tiles))
    _check_size(request, pal)
    if request.count < 1 or request.candidates < 1 or request.finalists < 1:
        raise GenerateError("--count", "ask for at least one track, candidate and finalist")
    return request, pal


def fitting_starts(pal: Palette, players: int) -> tuple[Way, ...]:
    """The start/finish ways of ``pal`` whose grid holds ``players`` cars (S127)."""
    return tuple(w for w in pal.starts if grid_slots(w.face) >= players)


def grid_slots(face: TileFace) -> int:
    """The grid slots of a start/finish face (its start spaces, BOARD-3)."""
    return _grid_of(face.id) if default_library().get(face.id) is face else _count_grid(face.id)


@lru_cache(maxsize=64)
def _grid_of(face_id: str) -> int:
    return _count_grid(face_id)


def _count_grid(face_id: str) -> int:
    stage = Stage(format="trackkit-stage/1", ruleset="gt", tiles=[StageTile(tile=face_id)])
    gt = validate(stage).summary.gt
    return gt.grid_slots if gt is not None else 0


def _check_dirt_options(request: Request) -> None:
    """DIRT options given with ``--ruleset gt``."""
    dirt = [
        ("--surface", bool(request.surfaces), "every GT road is asphalt"),
        ("--tokens", bool(request.tokens), "the tokens are The Climb's, for DIRT hillclimbs"),
        ("--fillers", bool(request.fillers), "fillers are DIRT scenery; --pit lays the GT pit"),
        ("--par", request.par is not None, "a GT race is won on places, not stage time"),
    ]
    for option, given, why in dirt:
        if given:
            raise GenerateError(option, f"is a DIRT option ({why}): leave it out with --ruleset gt")
    if request.kind.series != "gt":
        raise GenerateError(
            "--kind",
            f"{request.kind.value} is a DIRT stage: a GT track is --kind circuit or "
            "--kind point-to-point",
        )


def _check_size(request: Request, pal: Palette) -> None:
    owned = box_list(request.boxes)
    p2p = request.kind is Kind.POINT_TO_POINT
    least = 2 if p2p else LEAST_TILES
    # a circuit's start/finish piece is one piece; point to point, a start and a finish
    most = pal.middle_pieces + (2 if p2p else 1)
    if request.tiles is not None and request.length_mm is not None:
        raise GenerateError("--length-mm", "give --tiles or --length-mm, not both")
    what = "track" if p2p else "circuit"
    if request.tiles is not None:
        if request.tiles < least:
            raise GenerateError(
                "--tiles",
                f"a {what} needs at least {least} tiles (the start/finish and the turns back "
                f"to it): use --tiles {least}+",
            )
        if request.tiles > most:
            raise GenerateError(
                "--tiles",
                f"{owned} hold {most} road pieces for a {what} (a start/finish and "
                f"{most - 1} others): use --tiles {most} or fewer, or name another box",
            )
    if request.length_mm is not None:
        lengths = sorted(w.length_mm for w in pal.middles)
        start = min(w.length_mm for w in pal.starts)
        shortest = start + sum(lengths[: least - 1])
        longest_of: dict[Piece, float] = {}
        for w in pal.middles:
            longest_of[w.piece] = max(longest_of.get(w.piece, 0.0), w.length_mm)
        longest = max(w.length_mm for w in pal.starts) + sum(
            pal.copies[p] * mm for p, mm in longest_of.items()
        )
        if not shortest <= request.length_mm <= longest:
            raise GenerateError(
                "--length-mm",
                f"{owned} make {what}s of {shortest:.0f} to {longest:.0f} mm of road: ask for "
                "a length in that range",
            )


def tiles_for_length(request: Request, pal: Palette) -> int:
    """Tiles of a GT track asked for by length: the length over the median tile's."""
    assert request.length_mm is not None
    lengths = sorted(w.length_mm for w in (*pal.middles, *pal.starts))
    median = lengths[len(lengths) // 2]
    least = 2 if request.kind is Kind.POINT_TO_POINT else LEAST_TILES
    return max(least, round(request.length_mm / median))


#: Spots beside the road tried for the pit before a candidate is dropped.
PIT_TRIES = 6


def place_pit(
    stage: Stage,
    report: Report,
    pal: Palette,
    rng: random.Random,
    *,
    library: TileLibrary | None = None,
    players: int | None = None,
) -> tuple[Stage, Report] | None:
    """The track with the pit tile 101 beside its road (GT-2), validated clean, or None.

    The pit goes on a free hex beside the road, the hexes beside the most straight road
    tiles first (a pit lane along a straight), then beside the most road tiles, ties
    drawn at random; it is turned to face the road tile it touches first. A spot where
    no lane gives access to it (S133) or that makes any finding is passed over.
    """
    chain = report.layout.chain
    road = {t.hex for t in chain}
    straight = {t.hex for t in chain if t.road is not None and not t.road.corner_turns}
    beside: dict[hexgrid.Hex, tuple[int, int, int]] = {}
    for t in chain:
        for d in range(6):
            n = hexgrid.neighbour(t.hex, d)
            if n in road:
                continue
            s, a, facing = beside.get(n, (0, 0, hexgrid.opposite(d)))
            beside[n] = (s + (t.hex in straight), a + 1, facing)
    if not beside:
        return None
    ranked = sorted(beside, key=lambda h: (-beside[h][0], -beside[h][1], rng.random()))
    pit = pal.fillers[0]
    for spot in ranked[:PIT_TRIES]:
        tile = StageTile(tile=pit.id, at=spot, dir=beside[spot][2])
        placed = stage.model_copy(update={"tiles": [*stage.tiles, tile]})
        checked = validate(placed, library=library, players=players)
        pits = checked.summary.gt.pit if checked.summary.gt else []
        if checked.clean and all(p.access for p in pits):
            return placed, checked
    return None
