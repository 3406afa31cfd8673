"""Draw one tile of either series: its hex, every space of its roads, the marks printed on
them, its label and its tokens.

One drawer for Rallyman: DIRT and Rallyman: GT: :func:`draw_tile` walks what a tile
shows (:class:`~trackkit.render.draw.TileArt`) the same way for both, and draws each
space and each mark by its kind (:mod:`trackkit.render.marks`). What differs between the
series' printed tiles is read by the series' :class:`Look`
(:data:`trackkit.render.dirt_road.DIRT`, :data:`trackkit.render.gt_road.GT`): which spaces there
are and their classes, where the marks of each road go, where the label goes when the
map did not choose, and whether the marks are drawn in the tile's own group (DIRT) or in
a second group drawn over every tile (GT: a space cut by a skew edge is drawn whole by
one of its two tiles and lies under both tiles' marks).

Ids and classes (for tests and users' CSS)::

    <g id="tile-3" class="tile surface-gravel danger-low">
      <polygon class="hex"/>
      <g class="spaces"><path id="space-3-2.O1" class="space kind-corner lane-outer"
                              data-node="3:2.O1"/>...</g>
      <g class="features">(the marks)</g>
      (the label, the tokens)
    </g>
    <g id="marks-4" class="tile-marks">(a GT piece's features, label and tokens)</g>

Examples
--------
>>> import svgwrite
>>> from trackkit.tiles.library import default_library
>>> from trackkit.render.sheet import face_art
>>> lib = default_library()
>>> [len(draw_tile(svgwrite.Drawing(), face_art(lib.get(i)), size=240.0)) for i in ("202a", "117a")]
[1, 2]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise
from typing import Protocol

import svgwrite
from svgwrite.container import Group

from trackkit.render.dirt_road import DIRT
from trackkit.render.draw import (
    TileArt,
    draw_label,
    fit_size,
    fmt,
    free_corners,
    local_hexagon,
    off,
    page_down,
    points,
    svg_id,
    upright_text,
)
from trackkit.render.gt_road import GT
from trackkit.render.marks import Ink, Mark, SpacePath
from trackkit.render.tokens import TOKEN_RADIUS, draw_tokens, placed_tokens, token_spots
from trackkit.road.geometry import local_point

__all__ = ["Look", "corners", "draw_tile", "look", "mark_spots"]

Point = tuple[float, float]
Spot = tuple[Point, float]


class Look(Protocol):
    """What a series reads off its tiles for drawing: the hooks of :func:`draw_tile`."""

    over_every_tile: bool
    """The marks, label and tokens are a second group, drawn after every tile."""

    def has_road(self, art: TileArt) -> bool:
        """Whether the tile has a road to draw (else its label goes in its middle)."""
        ...

    def lines(self, art: TileArt, size: float) -> Sequence[Sequence[Point]]:
        """The centre lines of the roads drawn (local frame, mm)."""
        ...

    def spaces(self, art: TileArt, size: float) -> Iterator[SpacePath]:
        """Every space to draw, in drawing order."""
        ...

    def nodes(self, art: TileArt) -> set[str]:
        """The graph nodes the tile draws."""
        ...

    def roads(self, art: TileArt, size: float) -> Iterator[tuple[str | None, Iterator[Mark]]]:
        """Per road, the class of the group its marks go in (None: the features group)
        and its marks in drawing order."""
        ...

    def label_spot(
        self,
        art: TileArt,
        corners: Sequence[Point],
        font: float,
        below: float,
        *,
        size: float,
        turn: float,
    ) -> Point:
        """Where the label goes when the map did not choose (``corners``: the freest first)."""
        ...

    def beside(self, art: TileArt, size: float, *, kerbs: bool) -> tuple[list[Spot], list[Spot]]:
        """Marks beside the road that may lie off its spaces (centre, radius): those listed
        before the tokens and those after them."""
        ...


def look(art: TileArt) -> Look:
    """The look of the series the tile belongs to."""
    return GT if art.gt is not None else DIRT


def corners(art: TileArt, size: float) -> list[Point]:
    """The tile's hex corners from the farthest from its roads to the nearest."""
    return free_corners(look(art).lines(art, size), size)


def mark_spots(art: TileArt, size: float, *, kerbs: bool) -> list[Spot]:
    """Where a tile's marks that may lie off its road's spaces are drawn (local frame).

    The danger markers beside the road ends (with ``kerbs``), DIRT shortcut badges and the
    tokens (those with a place where :func:`~trackkit.render.tokens.draw_tokens` draws
    them, the others in a row beside the road), each as (centre, radius) in millimetres:
    a print shows them whole, with the road; labels keep clear of them.
    """
    before, after = look(art).beside(art, size, kerbs=kerbs)
    placed = placed_tokens(art.road, art.tokens)
    out = [
        *before,
        *((local_point(at, size), 1.2 * TOKEN_RADIUS * size) for at, _, _ in placed.values()),
    ]
    rest = len(art.tokens) - len(placed)
    if rest > 0:
        corner = corners(art, size)[1]
        out += [(at, 1.05 * TOKEN_RADIUS * size) for at in token_spots(corner, rest, size)]
    return out + after


def draw_tile(dwg: svgwrite.Drawing, art: TileArt, *, size: float) -> list[Group]:
    """The groups of one tile in drawing order: a DIRT tile is one; a GT piece its tile
    (hex and spaces) and its marks, drawn after every tile.

    Parameters
    ----------
    dwg : svgwrite.Drawing
        The drawing the groups are made for (holds the symbols).
    art : TileArt
        What to draw.
    size : float
        Tile size in millimetres (flat edge to flat edge).

    Returns
    -------
    list of svgwrite.container.Group
        The tile's groups.
    """
    hook = look(art)
    turn = 60.0 * art.rotation
    cx, cy = art.centre
    transform = f"translate({fmt(cx)},{fmt(cy)})" + (f" rotate({fmt(turn)})" if turn else "")
    tile = dwg.g(
        id=svg_id("tile", art.key), class_=" ".join(["tile", *art.classes]), transform=transform
    )
    tile.add(dwg.polygon(points(local_hexagon(size)), class_="hex"))
    ink = Ink(dwg, size, turn)
    road = hook.has_road(art)
    if road:
        spaces = tile.add(dwg.g(class_="spaces"))
        for space in hook.spaces(art, size):
            space.draw(ink, spaces, art.heat.get(space.node) if space.node is not None else None)
    layers = [tile]
    marks = tile
    if hook.over_every_tile:
        keep = [c for c in art.classes if c in ("undriven", "scenery")]
        marks = dwg.g(
            id=svg_id("marks", art.key), class_=" ".join(["tile-marks", *keep]), transform=transform
        )
        layers.append(marks)
    if road:
        feats = marks.add(dwg.g(class_="features"))
        for group, road_marks in hook.roads(art, size):
            grp = feats if group is None else feats.add(dwg.g(class_=group))
            for mark in road_marks:
                mark.draw(ink, grp)
    free = corners(art, size)
    if art.label and not road:
        _middle_label(dwg, marks, art, size, turn)
    elif art.label:
        fs = art.label_size or fit_size(art.label, 0.5 * size, 0.055 * size)
        sub = fit_size(art.sublabel, 0.5 * size, 0.04 * size) if art.sublabel else 0.0
        at = art.label_at
        if at is None:
            at = hook.label_spot(art, free, fs, sub, size=size, turn=turn)
        draw_label(dwg, marks, art, at, font=fs, below=sub, size=size, turn=turn)
    if art.tokens:
        draw_tokens(dwg, marks, art, free[1], size, turn)
    return layers


def _middle_label(dwg: svgwrite.Drawing, g: Group, art: TileArt, size: float, turn: float) -> None:
    """Nothing else on the tile: the label goes in the middle, where the hex is widest, so
    it never runs onto the neighbouring tiles (which are drawn over it)."""
    assert art.label is not None
    down = page_down(turn)
    lines = [(art.label, fit_size(art.label, 0.75 * size, 0.055 * size), "tile-label")]
    if art.sublabel:
        sub = fit_size(art.sublabel, 0.75 * size, 0.04 * size)
        lines.append((art.sublabel, sub, "tile-label-sub"))
    centres = [0.0]
    for (_, above, _), (_, below, _) in pairwise(lines):
        centres.append(centres[-1] + 0.65 * (above + below))
    for (text, fs, cls), c in zip(lines, centres, strict=True):
        at = off((0.0, 0.0), down, c - centres[-1] / 2)
        g.add(upright_text(dwg, text, at, size=fs, turn=turn, cls=cls))
