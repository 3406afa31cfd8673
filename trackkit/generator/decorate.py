"""Tokens on the road and fillers beside it: a built road becomes a stage file.

Tokens (``--tokens``, The Climb):

- **oxygen** — the thin air is at the top: the last road tiles before the finish, one
  token each (R202), their values rising from 1 to 3 toward the top (CLIMB-7);
- **cloud** — on road tiles of the upper half of the stage, drawn at random (CLIMB-8);
- **climb** — ``-1`` (an ascent, CLIMB-6) on road tiles without climb arrows, at random.

The start and the finish tile carry no token. Fillers (``--fillers``, the scenery tiles
of the Copilot pack, BOARD-3) go on free hexes beside the road, the pockets that touch the
most road tiles first (ties drawn at random), never on the hex behind the start or beyond
the finish; each piece once, a random face and turn.

Examples
--------
>>> oxygen_values(1), oxygen_values(2), oxygen_values(5)
([1], [1, 3], [1, 2, 2, 3, 3])
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from trackkit.generator.pieces import Palette, Way
from trackkit.models.stage import Kind, Stage, StageTile, TileToken
from trackkit.models.tile import TileFace
from trackkit.road import hexgrid

__all__ = ["oxygen_values", "place_fillers", "stage_of", "token_plan"]


def oxygen_values(count: int) -> list[int]:
    """Oxygen values of ``count`` tokens in driving order, rising from 1 to 3 (CLIMB-7)."""
    if count <= 1:
        return [1] * count
    return [1 + round(2 * j / (count - 1) + 1e-9) for j in range(count)]


def token_plan(
    ways: Sequence[Way], tokens: Sequence[tuple[str, int]], rng: random.Random
) -> dict[int, list[TileToken]]:
    """Tokens by tile (0-based place in driving order) for the ``tokens`` asked for.

    Raises
    ------
    ValueError
        When the road has too few road tiles for them (the search sees to it that it has).
    """
    middle = list(range(1, len(ways) - 1))
    out: dict[int, list[TileToken]] = {}
    for kind, count in tokens:
        if kind == "oxygen":
            places = middle[-count:] if count else []
            for place, value in zip(places, oxygen_values(count), strict=False):
                out.setdefault(place, []).append(TileToken(token="oxygen", value=value))
            if len(places) < count:
                raise ValueError(f"{count} oxygen tokens need {count} road tiles")
        elif kind == "cloud":
            upper = middle[len(middle) // 2 :]
            pool = upper if len(upper) >= count else middle
            if len(pool) < count:
                raise ValueError(f"{count} cloud tokens need {count} road tiles")
            for place in sorted(rng.sample(pool, count)):
                out.setdefault(place, []).append(TileToken(token="cloud"))
        elif kind == "climb":
            pool = [i for i in middle if not ways[i].is_climb]
            if len(pool) < count:
                raise ValueError(f"{count} climb tokens need {count} tiles without climb arrows")
            for place in sorted(rng.sample(pool, count)):
                out.setdefault(place, []).append(TileToken(token="climb", value=-1))
        else:
            raise ValueError(f"unknown token {kind!r}")
    return out


def place_fillers(
    hexes: Sequence[hexgrid.Hex],
    exits: Sequence[int],
    entry: int | None,
    pal: Palette,
    count: int,
    rng: random.Random,
) -> list[StageTile]:
    """``count`` filler tiles on free hexes beside the road (pockets first).

    Parameters
    ----------
    hexes, exits : sequence
        The road's hexes and exit directions in driving order.
    entry : int, optional
        The world direction the start tile's road enters by (the hex there stays free).
    pal : Palette
        The scenery pieces owned.
    count : int
        Fillers to place.
    rng : random.Random
        The run's generator.
    """
    if count <= 0:
        return []
    road = set(hexes)
    keep_free = {hexgrid.neighbour(hexes[-1], exits[-1])}
    if entry is not None:
        keep_free.add(hexgrid.neighbour(hexes[0], entry))
    touching: dict[hexgrid.Hex, int] = {}
    for h in hexes:
        for d in range(6):
            n = hexgrid.neighbour(h, d)
            if n not in road and n not in keep_free:
                touching[n] = touching.get(n, 0) + 1
    spots = sorted(touching, key=lambda n: (-touching[n], rng.random()))[:count]
    pieces: list[TileFace] = []
    by_number: dict[tuple[str, int], list[TileFace]] = {}
    for face in pal.fillers:
        by_number.setdefault((face.box, face.number), []).append(face)
    for piece, faces in sorted(by_number.items()):
        for _ in range(pal.copies[piece]):
            pieces.append(faces[rng.randrange(len(faces))])
    rng.shuffle(pieces)
    return [
        StageTile(tile=face.id, at=spot, dir=rng.randrange(6))
        for spot, face in zip(spots, pieces, strict=False)
    ]


def stage_of(
    ways: Sequence[Way],
    *,
    name: str,
    kind: Kind,
    boxes: Sequence[str],
    tokens: dict[int, list[TileToken]] | None = None,
    fillers: Sequence[StageTile] = (),
    ruleset: str | None = None,
    laps: int | None = None,
) -> Stage:
    """The stage file of a road: its tiles in driving order, tokens on them, fillers (or
    the GT pit) after; a GT track names its ``ruleset`` and, a circuit, its ``laps``."""
    tokens = tokens or {}
    tiles = [w.tile(tuple(tokens.get(i, ()))) for i, w in enumerate(ways)]
    extra: dict[str, object] = {}
    if ruleset is not None:
        extra["ruleset"] = ruleset
    if laps is not None:
        extra["laps"] = laps
    return Stage(
        format="trackkit-stage/1",
        name=name,
        author="trackkit generate",
        kind=kind,
        boxes=list(boxes),
        tiles=[*tiles, *fillers],
        **extra,
    )
