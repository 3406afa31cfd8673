"""What is printed on a tile's road, by kind, for both series: each mark drawn one way.

A series' road reading (:mod:`trackkit.render.dirt_road`, :mod:`trackkit.render.gt_road`) says
where each mark of a road goes: a :class:`Kerbs` of danger markers at a road end, a
corner :class:`Limit`, a start or finish :class:`Chequer`, a DIRT :class:`Slide` line,
:class:`Ford`, :class:`Jump`, :class:`ClimbArrow` or :class:`Shortcut` badge, a GT
:class:`Dotted` line, grid :class:`Slot`, race :class:`Direction` or :class:`PitBoard`.
Each mark draws itself (``mark.draw(ink, parent)``) the same way on every tile of both
series, so a kind looks one way wherever it is printed; the legend and the Copilot track
tokens draw their samples with the same pieces (:func:`limit_sign`, :func:`chequer`,
:func:`waves`, :func:`chevron`).

Ids and classes (for tests and users' CSS): ``<g id="danger-3-entry" class="feature
danger danger-low">``, ``<g id="limit-3-2-outer" class="feature limit lane-outer">``
(``triangle``: CORNER-5; ``muddy``: lowered by mud), ``feature start``, ``feature
finish``, ``feature start-finish``, ``<line class="feature slide">``, ``feature ford``,
``feature jump``, ``feature climb climb-up``, ``feature shortcut``, ``feature dotted
dotted-number`` (``dotted-hazard``), ``feature grid``, ``feature direction``, ``feature
pit``.

Examples
--------
>>> import svgwrite
>>> dwg = svgwrite.Drawing()
>>> g = dwg.g()
>>> Limit(("3", 2, "outer"), (0.0, 0.0), 3, "outer").draw(Ink(dwg, 240.0, 0.0), g)
>>> g.elements[0]["id"], g.elements[0]["class"]
('limit-3-2-outer', 'feature limit lane-outer')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import svgwrite
from svgwrite.container import Group

from trackkit.render.draw import (
    fit_size,
    fmt,
    heat_colour,
    off,
    page_down,
    place,
    points,
    svg_id,
    upright_text,
)

__all__ = [
    "Chequer",
    "ClimbArrow",
    "Direction",
    "Dotted",
    "Ford",
    "Ink",
    "Jump",
    "Kerbs",
    "Limit",
    "Mark",
    "PitBoard",
    "PitColumn",
    "Shortcut",
    "Slide",
    "Slot",
    "SpacePath",
    "chequer",
    "chevron",
    "limit_sign",
    "waves",
]

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Ink:
    """What every mark of a tile is drawn with: the drawing (it holds the symbols), the
    tile size (mm) and the tile's turn (degrees: text and signs are turned back)."""

    dwg: svgwrite.Drawing
    size: float
    turn: float

    @property
    def down(self) -> Point:
        """Down the page in the tile's frame."""
        return page_down(self.turn)

    def text(self, text: str, at: Point, size: float, **extra: Any) -> Any:
        """Upright text centred on ``at``."""
        return upright_text(self.dwg, text, at, size=size, turn=self.turn, **extra)


# --- pieces of marks, shared with the legend and the tokens -----------------------------


def limit_sign(
    ink: Ink, grp: Group, at: Point, number: int | None, *, triangle: bool = False
) -> None:
    """A corner limit: ``number`` in a disc (CORNER-1) or in a warning triangle (CORNER-5)."""
    size = ink.size
    if triangle:
        down = ink.down
        grp.add(place(ink.dwg, "sym-triangle", off(at, down, -0.008 * size), down, 0.05 * size))
        if number is not None:
            grp.add(ink.text(str(number), off(at, down, 0.004 * size), 0.048 * size))
        return
    grp.add(place(ink.dwg, "sym-disc", at, (0.0, 1.0), 0.042 * size))
    if number is not None:
        grp.add(ink.text(str(number), at, 0.056 * size))


def waves(ink: Ink, grp: Group, at: Point, toward: Point, half: float) -> None:
    """A ford's waves across a road ``2 * half`` wide (FORD-1)."""
    grp.add(place(ink.dwg, "sym-waves", at, toward, 0.85 * half, 0.6 * half))


def chevron(ink: Ink, grp: Group, at: Point, toward: Point, number: int | None) -> None:
    """A jump's chevron pointing ``toward`` and its number behind it (JUMP-1)."""
    size = ink.size
    grp.add(place(ink.dwg, "sym-chevron", at, toward, 0.05 * size))
    if number is not None:
        grp.add(ink.text(str(number), off(at, toward, -0.075 * size), 0.06 * size))


def chequer(
    dwg: svgwrite.Drawing,
    grp: Group,
    stripes: Sequence[Sequence[Any]],
    width: float,
    *,
    straight: bool,
    num: Callable[[float], Any] = fmt,
) -> None:
    """A chequered line: two stripes ``width`` wide of paper and ink squares, the second
    shifted by a square. ``straight``: each stripe is a ``<line>`` between its two points,
    else a ``<polyline>`` through them; ``num`` writes the widths."""
    for stripe, shift in zip(stripes, (0.0, width), strict=True):
        for cls, dash in (("paper", False), ("ink", True)):
            attrs: dict[str, Any] = {"class_": cls, "stroke_width": num(width)}
            if dash:
                attrs["stroke_dasharray"] = f"{num(width)} {num(width)}"
                attrs["stroke_dashoffset"] = num(shift)
            if straight:
                grp.add(dwg.line(stripe[0], stripe[1], **attrs))
            else:
                grp.add(dwg.polyline(stripe, **attrs))


# --- the marks --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpacePath:
    """One space of a road: its outline, id and classes, and the graph node it is."""

    ident: str
    d: str
    """SVG path data of its outline (tile frame)."""
    classes: Sequence[str]
    """``space``, ``kind-*`` and what the series tells of it; ``heat`` is added here."""
    node: str | None = None

    def draw(self, ink: Ink, parent: Group, heat: float | None = None) -> None:
        """Draw the space into ``parent``, tinted by ``heat`` (0..1 of the worst space)."""
        classes = list(self.classes)
        attrs: dict[str, Any] = {}
        if heat:  # pale yellow -> red with the losses of control of this space
            classes.append("heat")
            attrs["style"] = f"fill:{heat_colour(heat)}"
        if self.node is not None:
            attrs["data_node"] = self.node
        parent.add(ink.dwg.path(d=self.d, id=self.ident, class_=" ".join(classes), **attrs))


@dataclass(frozen=True, slots=True)
class Kerbs:
    """The danger markers beside one end of a road, in the colour of the face's danger."""

    ident: tuple[object, ...]
    level: str
    spots: Sequence[tuple[Point, Point]]
    """(where, road heading) of each marker."""

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        dwg, size = ink.dwg, ink.size
        grp = parent.add(
            dwg.g(id=svg_id("danger", *self.ident), class_=f"feature danger danger-{self.level}")
        )
        for at, d in self.spots:
            grp.add(place(dwg, "sym-kerb", at, d, 0.022 * size, 0.03 * size))


@dataclass(frozen=True, slots=True)
class Limit:
    """CORNER-1: a corner's limit where it is printed (CORNER-5: in a triangle)."""

    ident: tuple[object, ...]
    at: Point
    shown: int
    lane: str | None = None
    """The corner lane (``inner``/``outer``) it is the limit of; None: the whole road."""
    muddy: bool = False
    """Lowered from the printed limit (mud tokens)."""
    triangle: bool = False

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        cls = "feature limit" + (f" lane-{self.lane}" if self.lane else "")
        if self.triangle:
            cls += " triangle"
        if self.muddy:
            cls += " muddy"
        grp = parent.add(ink.dwg.g(id=svg_id("limit", *self.ident), class_=cls))
        limit_sign(ink, grp, self.at, self.shown, triangle=self.triangle)


@dataclass(frozen=True, slots=True)
class Chequer:
    """A start, finish or start/finish line across the road (BOARD-3) and its words."""

    kind: str
    """``start``, ``finish`` or ``start-finish``."""
    ident: tuple[object, ...]
    stripes: Sequence[Sequence[tuple[str, str]]]
    width: float
    straight: bool
    words: str
    words_at: Point
    words_size: float

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        dwg = ink.dwg
        grp = parent.add(dwg.g(id=svg_id(self.kind, *self.ident), class_=f"feature {self.kind}"))
        chequer(dwg, grp, self.stripes, self.width, straight=self.straight)
        grp.add(ink.text(self.words, self.words_at, self.words_size))


@dataclass(frozen=True, slots=True)
class Slot:
    """A grid slot (GT-1): a bar with two legs at its front, and its place from pole."""

    ident: tuple[object, ...]
    bar: Sequence[Point]
    number_at: Point
    number: int | None

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        dwg, size = ink.dwg, ink.size
        grp = parent.add(dwg.g(id=svg_id("grid", *self.ident), class_="feature grid"))
        grp.add(dwg.polyline(points(self.bar), class_="grid-mark", stroke_width=fmt(0.012 * size)))
        if self.number is not None:
            grp.add(ink.text(str(self.number), self.number_at, 0.045 * size))


@dataclass(frozen=True, slots=True)
class Slide:
    """CORNER-3: the dotted line splitting a slide row into two full-width spaces."""

    ident: tuple[object, ...]
    a: Point
    b: Point

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        (ax, ay), (bx, by) = self.a, self.b
        parent.add(
            ink.dwg.line(
                (fmt(ax), fmt(ay)),
                (fmt(bx), fmt(by)),
                id=svg_id("slide", *self.ident),
                class_="feature slide",
            )
        )


@dataclass(frozen=True, slots=True)
class Ford:
    """FORD-1: waves across a row of the road."""

    ident: tuple[object, ...]
    at: Point
    toward: Point
    half: float
    """Half the road's width (mm)."""

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        grp = parent.add(ink.dwg.g(id=svg_id("ford", *self.ident), class_="feature ford"))
        waves(ink, grp, self.at, self.toward, self.half)


@dataclass(frozen=True, slots=True)
class Jump:
    """JUMP-1: the chevron of a jump row and its number."""

    ident: tuple[object, ...]
    at: Point
    toward: Point
    number: int

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        grp = parent.add(ink.dwg.g(id=svg_id("jump", *self.ident), class_="feature jump"))
        chevron(ink, grp, self.at, self.toward, self.number)


@dataclass(frozen=True, slots=True)
class ClimbArrow:
    """CLIMB-1: on a climb line, the −1 arrow points uphill (+1 on its tail)."""

    ident: tuple[object, ...]
    way: str
    at: Point
    uphill: Point

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        dwg, size = ink.dwg, ink.size
        grp = parent.add(
            dwg.g(id=svg_id("climb", *self.ident), class_=f"feature climb climb-{self.way}")
        )
        grp.add(place(dwg, "sym-arrow", self.at, self.uphill, 0.035 * size, 0.05 * size))
        fs = 0.038 * size
        grp.add(ink.text("−1", off(self.at, self.uphill, 0.082 * size), fs))
        grp.add(ink.text("+1", off(self.at, self.uphill, -0.082 * size), fs))


@dataclass(frozen=True, slots=True)
class Shortcut:
    """SHORTCUT-1: the "(" symbol with the shortcut's limit on a badge, upright."""

    ident: tuple[object, ...]
    at: Point
    limit: int | None

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        dwg, size, at = ink.dwg, ink.size, self.at
        down = ink.down
        right = (down[1], -down[0])
        grp = parent.add(dwg.g(id=svg_id("shortcut", *self.ident), class_="feature shortcut"))
        grp.add(place(dwg, "sym-badge", at, down, 0.05 * size, 0.034 * size, cls="badge"))
        grp.add(place(dwg, "sym-paren", off(at, right, -0.018 * size), down, 0.022 * size))
        grp.add(ink.text(str(self.limit), off(at, right, 0.014 * size), 0.048 * size))


@dataclass(frozen=True, slots=True)
class Dotted:
    """CORNER-4: a sharp corner's dotted line over one lane, with its number (the highest
    safe gear) or a warning sign (``hazard``)."""

    ident: tuple[object, ...]
    line: Sequence[Point]
    at: Point
    mark: int | str

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        dwg, size, at = ink.dwg, ink.size, self.at
        down = ink.down
        hazard = self.mark == "hazard"
        grp = parent.add(
            dwg.g(
                id=svg_id("dotted", *self.ident),
                class_="feature dotted " + ("dotted-hazard" if hazard else "dotted-number"),
            )
        )
        pts = points(self.line)
        grp.add(dwg.polyline(pts, class_="dotted-under"))
        grp.add(dwg.polyline(pts, class_="dotted-line"))
        if hazard:
            grp.add(place(dwg, "sym-triangle", at, down, 0.03 * size, cls="sign"))
            grp.add(ink.text("!", off(at, down, 0.004 * size), 0.036 * size))
        else:
            grp.add(place(dwg, "sym-badge", at, down, 0.022 * size, 0.027 * size, cls="badge"))
            grp.add(ink.text(str(self.mark), at, 0.04 * size))


@dataclass(frozen=True, slots=True)
class Direction:
    """The race direction: an arrow on the road."""

    ident: tuple[object, ...]
    at: Point
    ahead: Point

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        dwg, size = ink.dwg, ink.size
        grp = parent.add(dwg.g(id=svg_id("direction", *self.ident), class_="feature direction"))
        grp.add(place(dwg, "sym-arrow", self.at, self.ahead, 0.045 * size, 0.075 * size))


@dataclass(frozen=True, slots=True)
class PitColumn:
    """One column of a pit board: its outline, where its words go, its gear and services."""

    ident: tuple[object, ...]
    corners: Sequence[Point]
    at: Point
    gear: str
    services: str


@dataclass(frozen=True, slots=True)
class PitBoard:
    """GT-2: the pit board, its columns with their gear and services."""

    ident: tuple[object, ...]
    columns: Sequence[PitColumn] = field(default_factory=tuple)
    length: float = 0.0
    """A column's length (mm)."""
    width: float = 0.0
    """A column's width (mm)."""

    def draw(self, ink: Ink, parent: Group) -> None:
        """Draw the mark into ``parent``."""
        dwg, size, turn = ink.dwg, ink.size, ink.turn
        grp = parent.add(dwg.g(id=svg_id("pit", *self.ident), class_="feature pit"))
        down = ink.down
        # the columns run along the tile's local x axis: across the page or up it
        lying = abs(math.cos(math.radians(turn))) > 0.6
        for column in self.columns:
            col = grp.add(dwg.g(id=svg_id("pit", *column.ident), class_="pit-spot"))
            col.add(dwg.polygon(points(column.corners), class_="pit-column"))
            at, words = column.at, column.services
            if lying:  # a column across the page: gear and services on one line
                text = f"{column.gear} · {words}"
                fs = fit_size(text, 0.7 * self.length, 0.04 * size)
                col.add(ink.text(text, at, fs))
                continue
            col.add(ink.text(column.gear, off(at, down, -0.03 * size), 0.06 * size))
            fs = fit_size(words, 0.9 * self.width, 0.03 * size)
            col.add(ink.text(words, off(at, down, 0.03 * size), fs))


#: Every kind of mark a road reading may give.
Mark = (
    Kerbs
    | Limit
    | Chequer
    | Slot
    | Slide
    | Ford
    | Jump
    | ClimbArrow
    | Shortcut
    | Dotted
    | Direction
    | PitBoard
)
