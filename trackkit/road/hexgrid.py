"""Axial hex maths for the grid of large tiles (Red Blob Games' conventions).

Direction ``k`` points to the neighbour at ``DIRECTIONS[k]``; a tile turned by ``dir``
has its local edge ``e`` facing world direction ``(e + dir) % 6`` (the Rekee convention,
``../shared/data/README.md``). Drawings are pointy-top with y downwards: direction ``k``
points at ``60 * k`` degrees clockwise from east.

Examples
--------
>>> neighbour((0, 0), 1)
(0, 1)
>>> direction_between((2, 3), (1, 3))
3
>>> world_edge(3, 5), local_edge(2, 5)
(2, 3)
"""

from __future__ import annotations

import math

__all__ = [
    "DIRECTIONS",
    "Hex",
    "axial_to_offset",
    "centre_mm",
    "corners_mm",
    "direction_between",
    "distance",
    "local_edge",
    "neighbour",
    "offset_to_axial",
    "opposite",
    "world_edge",
]

Hex = tuple[int, int]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
_SQRT3 = math.sqrt(3.0)


def neighbour(h: Hex, direction: int) -> Hex:
    """The hex next to ``h`` in ``direction``."""
    dq, dr = DIRECTIONS[direction % 6]
    return (h[0] + dq, h[1] + dr)


def direction_between(a: Hex, b: Hex) -> int | None:
    """Direction from ``a`` to its neighbour ``b``, or None if they do not touch."""
    delta = (b[0] - a[0], b[1] - a[1])
    try:
        return DIRECTIONS.index(delta)
    except ValueError:
        return None


def distance(a: Hex, b: Hex) -> int:
    """Number of tile steps between two hexes."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def opposite(direction: int) -> int:
    """The direction pointing back."""
    return (direction + 3) % 6


def world_edge(local: int, rotation: int) -> int:
    """World direction faced by a tile's local edge."""
    return (local + rotation) % 6


def local_edge(world: int, rotation: int) -> int:
    """Local edge of a tile that faces a world direction."""
    return (world - rotation) % 6


def centre_mm(h: Hex, size: float) -> tuple[float, float]:
    """Centre of a hex in millimetres; ``size`` is the tile's flat-to-flat width."""
    q, r = h
    return (size * (q + r / 2.0), size * (_SQRT3 / 2.0) * r)


def corners_mm(h: Hex, size: float) -> list[tuple[float, float]]:
    """The six corners of a hex (pointy-top), clockwise from the lower-right one."""
    cx, cy = centre_mm(h, size)
    radius = size / _SQRT3
    return [
        (
            cx + radius * math.cos(math.radians(30 + 60 * k)),
            cy + radius * math.sin(math.radians(30 + 60 * k)),
        )
        for k in range(6)
    ]


def offset_to_axial(x: int, y: int) -> Hex:
    """Official editor (``.rgt``) offset coordinates to axial, as Rekee converts them."""
    return (-x - ((y & 1) + y) // 2, y)


def axial_to_offset(h: Hex) -> tuple[int, int]:
    """Inverse of :func:`offset_to_axial`."""
    q, r = h
    return (-q - ((r & 1) + r) // 2, r)
