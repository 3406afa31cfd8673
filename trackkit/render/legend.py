"""The keys of a map: its legend (what the tiles show) and the heat map's colour scale.

One legend for both series: each sample is drawn by its kind (:data:`SAMPLES`), and a
series lists the samples its tiles show, with their words (:data:`LEGENDS`): a DIRT
stage's surfaces, slides, shortcuts, jumps, fords, climbs and tokens; a GT track's lanes,
triangles, dotted lines, grid, race direction, crossings, bridges and pit board. One heat
scale: the bar of the losses of control and, for a GT race's overtakes, a row of rings
as the map draws them (:func:`trackkit.render.gt_road.overtake_ring`).

Examples
--------
>>> import svgwrite
>>> dwg = svgwrite.Drawing()
>>> [len(draw_legend(dwg, series, x=0, y=0, width=140).elements) for series in ("dirt", "gt")]
[25, 25]
>>> fit_text("Col de Turini", 20.0, 4.0)
('Col de Tur…', 2.8)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import svgwrite
from svgwrite.container import Group

from trackkit.render.draw import clean_text, fmt, heat_colour, local_hexagon, place, upright_text
from trackkit.render.gt_road import OVERTAKE_HALO, overtake_ring
from trackkit.render.heat import Heat
from trackkit.render.marks import chequer
from trackkit.road.geometry import DEFAULT_TILE_SIZE_MM
from trackkit.words import plural

if TYPE_CHECKING:
    from trackkit.render.svg import Box

__all__ = [
    "CARD_SCALE",
    "HEAT_ROW_HEIGHT",
    "HEAT_SCALE_SIZE",
    "LEGENDS",
    "SAMPLES",
    "draw_heat_scale",
    "draw_legend",
    "fit_text",
    "left_text",
]

#: Card units per millimetre of map, per millimetre of tile size (2.6 at 240 mm tiles).
CARD_SCALE = 2.6 / DEFAULT_TILE_SIZE_MM
#: Natural size of the heat map's colour scale (card units).
HEAT_SCALE_SIZE = (300.0, 30.0)
#: Height the heat map's scale grows by for its second row (a GT race's overtakes besides
#: the losses of control; card units).
HEAT_ROW_HEIGHT = 14.0


def fit_text(text: str, width: float, size: float, em: float = 0.6) -> tuple[str, float]:
    """Text and font size that fit ``width``, estimating a glyph at ``em`` of the size."""
    text = clean_text(text)
    need = em * size * max(1, len(text))
    if need <= width:
        return text, size
    smaller = max(0.7 * size, size * width / need)
    keep = int(width / (em * smaller))
    if keep < len(text):
        text = text[: max(1, keep - 1)] + "…"
    return text, smaller


def left_text(
    dwg: svgwrite.Drawing, text: str, x: float, y: float, size: float, width: float, **extra: Any
) -> Any:
    """Left-aligned text, shrunk or cut to fit ``width``."""
    bold = extra.get("class_") == "title"
    shown, fs = fit_text(text, width, size, em=0.7 if bold else 0.6)
    return dwg.text(shown, insert=(fmt(x), fmt(y)), font_size=fmt(fs), **extra)


# --- the legend ---------------------------------------------------------------------------


def _surface(surface: str) -> Callable[[svgwrite.Drawing], Group]:
    def sample(dwg: svgwrite.Drawing) -> Group:
        s = dwg.g(class_=f"surface-{surface}")
        hexagon = [(fmt(px * 0.075), fmt(py * 0.075)) for px, py in local_hexagon(100)]
        s.add(dwg.polygon(hexagon, class_="hex"))
        return s

    return sample


def _danger(dwg: svgwrite.Drawing) -> Group:
    danger = dwg.g()
    for i, level in enumerate(("low", "medium", "high")):
        kerb = dwg.g(class_=f"danger danger-{level}")
        kerb.add(place(dwg, "sym-kerb", (-3.0 + 3.0 * i, 0), (0, 1), 1.3, 3.2))
        danger.add(kerb)
    return danger


def _limit(dwg: svgwrite.Drawing) -> Group:
    limit = dwg.g(class_="limit")
    limit.add(place(dwg, "sym-disc", (0, 0), (0, 1), 3.4))
    limit.add(upright_text(dwg, "3", (0, 0), size=4.4))
    return limit


def _triangle(dwg: svgwrite.Drawing) -> Group:
    triangle = dwg.g(class_="limit triangle")
    triangle.add(place(dwg, "sym-triangle", (0, -0.5), (0, 1), 4.0))
    triangle.add(upright_text(dwg, "4", (0, 0.4), size=3.8))
    return triangle


def _slide(dwg: svgwrite.Drawing) -> Group:
    slide = dwg.g(class_="surface-gravel")
    slide.add(dwg.rect((-4, -3.5), (8, 7), class_="space"))
    slide.add(dwg.rect((-4, -3.5), (8, 7), class_="space kind-slide"))
    slide.add(dwg.line((0, -3.5), (0, 3.5), class_="slide", stroke_width=0.5))
    return slide


def _shortcut(dwg: svgwrite.Drawing) -> Group:
    shortcut = dwg.g(class_="shortcut")
    shortcut.add(place(dwg, "sym-badge", (0, 0), (0, 1), 4.2, 3.0, cls="badge"))
    shortcut.add(place(dwg, "sym-paren", (-1.5, 0), (0, 1), 1.9))
    shortcut.add(upright_text(dwg, "3", (1.2, 0), size=4.2))
    return shortcut


def _jump(dwg: svgwrite.Drawing) -> Group:
    jump = dwg.g(class_="jump")
    jump.add(place(dwg, "sym-chevron", (-1.6, 0), (1, 0), 3.0))
    jump.add(upright_text(dwg, "4", (2.6, 0), size=4.6))
    return jump


def _ford(dwg: svgwrite.Drawing) -> Group:
    ford = dwg.g(class_="ford")
    ford.add(place(dwg, "sym-waves", (0, 0), (0, 1), 4.0, 3.6))
    return ford


def _climb(dwg: svgwrite.Drawing) -> Group:
    climb = dwg.g(class_="climb")
    climb.add(place(dwg, "sym-arrow", (-1.2, 0), (1, 0), 1.8, 3.0))
    climb.add(upright_text(dwg, "−1", (4.0, 0), size=3.4))
    return climb


def _line(kind: str, *, trim: bool) -> Callable[[svgwrite.Drawing], Group]:
    def sample(dwg: svgwrite.Drawing) -> Group:
        line = dwg.g(class_=kind)
        stripes = [((k, -3.6), (k, 3.6)) for k in (-0.9, 0.9)]
        chequer(dwg, line, stripes, 1.8, straight=True, num=lambda v: v)
        if trim:
            line.add(dwg.rect((-1.8, -3.6), (3.6, 7.2), fill="none", class_="trim"))
        return line

    return sample


def _tokens(dwg: svgwrite.Drawing) -> Group:
    tokens = dwg.g()
    samples = (("oxygen", "2"), ("cloud", ""), ("mud", "−1"), ("climb", "−1"))
    for i, (kind, text) in enumerate(samples):
        tok = dwg.g(class_=f"token token-{kind}")
        at = (-4.8 + 3.6 * i, 0.0)
        tok.add(place(dwg, "sym-token", at, (0, 1), 1.7))
        if kind == "cloud":
            tok.add(place(dwg, "sym-cloud", at, (0, 1), 1.3, cls="glyph"))
        else:
            tok.add(upright_text(dwg, text, at, size=1.9))
        tokens.add(tok)
    return tokens


def _lanes(dwg: svgwrite.Drawing) -> Group:
    road = dwg.g(class_="surface-asphalt")
    for lane in range(3):
        road.add(dwg.rect((-4, -3.6 + 2.4 * lane), (8, 2.4), class_="space kind-lane"))
    return road


def _dotted(sign: bool) -> Callable[[svgwrite.Drawing], Group]:
    def sample(dwg: svgwrite.Drawing) -> Group:
        dotted = dwg.g(class_="dotted")
        dotted.add(dwg.line((-4, 0), (4, 0), class_="dotted-under"))
        dotted.add(dwg.line((-4, 0), (4, 0), class_="dotted-line"))
        if sign:
            dotted.add(place(dwg, "sym-triangle", (0, 0), (0, 1), 2.6, cls="sign"))
            dotted.add(upright_text(dwg, "!", (0, 0.3), size=3.0))
        else:
            dotted.add(place(dwg, "sym-badge", (0, 0), (0, 1), 1.9, 2.3, cls="badge"))
            dotted.add(upright_text(dwg, "2", (0, 0), size=3.4))
        return dotted

    return sample


def _grid(dwg: svgwrite.Drawing) -> Group:
    grid = dwg.g(class_="grid surface-asphalt")
    grid.add(dwg.rect((-4, -3.6), (8, 7.2), class_="space kind-lane"))
    grid.add(dwg.polyline([(-3, -1.4), (-3, -2.8), (3, -2.8), (3, -1.4)], class_="grid-mark"))
    grid.add(upright_text(dwg, "1", (0, 0.8), size=3.6))
    return grid


def _direction(dwg: svgwrite.Drawing) -> Group:
    arrow = dwg.g(class_="direction")
    arrow.add(place(dwg, "sym-arrow", (0, 0), (1, 0), 2.2, 4.0))
    return arrow


def _over(under: str, over: str) -> Callable[[svgwrite.Drawing], Group]:
    def sample(dwg: svgwrite.Drawing) -> Group:
        cross = dwg.g(class_="surface-asphalt")
        cross.add(dwg.rect((-4, -1.6), (8, 3.2), class_=f"space kind-lane{under}"))
        cross.add(dwg.rect((-1.6, -3.6), (3.2, 7.2), class_=f"space kind-lane{over}"))
        return cross

    return sample


def _pit(dwg: svgwrite.Drawing) -> Group:
    pit = dwg.g(class_="pit")
    for col in range(3):
        pit.add(dwg.rect((-4 + 2.7 * col, -3.6), (2.6, 7.2), class_="pit-column"))
    return pit


#: A legend sample by kind: the mark as the tiles print it, drawn small.
SAMPLES: dict[str, Callable[[svgwrite.Drawing], Group]] = {
    "gravel": _surface("gravel"),
    "asphalt": _surface("asphalt"),
    "snow": _surface("snow"),
    "danger": _danger,
    "limit": _limit,
    "triangle": _triangle,
    "slide": _slide,
    "shortcut": _shortcut,
    "jump": _jump,
    "ford": _ford,
    "climb": _climb,
    "start": _line("start", trim=True),
    "start-finish": _line("start-finish", trim=False),
    "tokens": _tokens,
    "lanes": _lanes,
    "dotted": _dotted(sign=False),
    "hazard": _dotted(sign=True),
    "grid": _grid,
    "direction": _direction,
    "crossing": _over("", " overlap"),
    "bridge": _over(" hidden", ""),
    "pit": _pit,
}

#: What each series' legend shows: (sample kind, words), in order.
LEGENDS: dict[str, Sequence[tuple[str, str]]] = {
    "dirt": (
        ("gravel", "gravel tile"),
        ("asphalt", "asphalt tile"),
        ("snow", "snow tile"),
        ("danger", "danger: low, medium, high"),
        ("limit", "corner limit, one per lane"),
        ("slide", "slide row: dotted line"),
        ("shortcut", "shortcut and its limit"),
        ("jump", "jump: chevron and value"),
        ("ford", "ford"),
        ("climb", "climb: −1 arrow points uphill"),
        ("start", "start / finish line"),
        ("tokens", "tokens: oxygen N, cloud, mud, climb"),
    ),
    "gt": (
        ("lanes", "lanes of spaces (2, 3 or 4)"),
        ("danger", "danger: low, medium, high"),
        ("limit", "corner limit of the space"),
        ("triangle", "in a triangle: dangerous"),
        ("dotted", "dotted line: top gear over it"),
        ("hazard", "warning sign: a danger result"),
        ("start-finish", "start / finish line"),
        ("grid", "grid slot and its place"),
        ("direction", "race direction"),
        ("crossing", "crossing: spaces over spaces"),
        ("bridge", "road under a bridge, dashed"),
        ("pit", "pit board: tyres, repair (GT-2)"),
    ),
}


def draw_legend(dwg: svgwrite.Drawing, series: str, *, x: float, y: float, width: float) -> Group:
    """The legend of a ``series`` (``dirt`` or ``gt``) map: its title and the samples of
    :data:`LEGENDS` with their words, in two columns."""
    items = [(words, SAMPLES[kind](dwg)) for kind, words in LEGENDS[series]]
    g = dwg.g(id="legend", transform=f"translate({fmt(x)},{fmt(y)})")
    g.add(dwg.text("Legend", insert=(0, 4), font_size=4.6, class_="title"))
    col_w = width / 2
    row_h = 12.6
    per_col = math.ceil(len(items) / 2)
    for i, (label, sample) in enumerate(items):
        col, row = divmod(i, per_col)
        cx = col * col_w + 6
        cy = 14 + row * row_h
        sample["transform"] = f"translate({fmt(cx)},{fmt(cy)})"
        g.add(sample)
        g.add(left_text(dwg, label, cx + 10, cy + 1.3, 3.4, col_w - 17))
    return g


# --- the heat scale -------------------------------------------------------------------------

#: Steps of the heat map's colour bar.
_HEAT_STEPS = 20
#: Where the heat scale's bar runs (card units).
_BAR_X = (6.0, 200.0)


def _heat_title(heat: Heat) -> str:
    """What the heat scale says it shows: losses of control, overtakes or both, per race
    on the space (or in total)."""
    rings = heat.overtakes is not None
    if not rings:
        what = "losses of control"
    elif heat.losses:
        what = "losses of control (fill) and overtakes (rings)"
    else:
        what = "overtakes"
    if heat.races is None:
        return f"Heat map: {what} " + ("on the space (totals)" if rings else "(total)")
    return f"Heat map: {what} per race on the space, over {plural(heat.races, 'race')}"


def draw_heat_scale(dwg: svgwrite.Drawing, heat: Heat, *, at: Box, scale: float) -> Group:
    """The heat map's colour scale: a bar from pale yellow to red, in losses per race.

    A space's colour is its losses of control relative to the worst space's, so the
    bar runs from (almost) none to the worst space's losses of control per race. A GT
    race's overtakes (``heat.overtakes``) add a row of rings as the map draws them: for
    one overtake, half the most and the most on one space, in overtakes per race.
    """
    rings = heat.overtakes is not None
    w = HEAT_SCALE_SIZE[0]
    h = HEAT_SCALE_SIZE[1] + (HEAT_ROW_HEIGHT if rings and heat.losses else 0.0)
    g = dwg.g(
        id="heat-scale",
        class_="heat-scale",
        transform=f"translate({fmt(at.x)},{fmt(at.y)}) scale({scale:.4f})",
    )
    g.add(dwg.rect((0, 0), (w, h), rx=2, class_="card", stroke_width=0.4))
    g.add(left_text(dwg, _heat_title(heat), 6, 8.5, 4.2, w - 12, class_="title"))
    y = 12.0
    if heat.losses or not rings:
        note = "untinted: no loss of control" if rings else "untinted spaces: no loss of control"
        _loss_bar(dwg, g, heat, y0=y, note=note)
        y += HEAT_ROW_HEIGHT
    if rings:
        _ring_row(dwg, g, heat, y0=y, scale=scale)
    return g


def _loss_bar(dwg: svgwrite.Drawing, g: Group, heat: Heat, *, y0: float, note: str) -> None:
    """The colour bar of the losses of control at ``y0``, its ticks and ``note``.

    With no loss of control at all there is nothing to scale: a line says so, and in how
    many races, instead of a bar from 0.00 to 0.00.
    """
    w = HEAT_SCALE_SIZE[0]
    per_race = heat.races is not None
    (x0, x1), bar_h = _BAR_X, 6.0
    if not heat.worst:
        none = "no losses of control" + (
            f" in {plural(heat.races, 'race')}" if heat.races is not None else ""
        )
        g.add(left_text(dwg, none, x0, y0 + 4.5, 3.8, w - x0 - 6, class_="heat-none"))
        return
    step = (x1 - x0) / _HEAT_STEPS
    bar = g.add(dwg.g(class_="heat-bar"))
    for i in range(_HEAT_STEPS):
        level = (i + 0.5) / _HEAT_STEPS
        bar.add(
            dwg.rect(
                (fmt(x0 + i * step), fmt(y0)),
                (fmt(step + 0.05), fmt(bar_h)),
                fill=heat_colour(level),
                stroke="none",
            )
        )
    g.add(dwg.rect((fmt(x0), fmt(y0)), (fmt(x1 - x0), fmt(bar_h)), class_="card-rule", fill="none"))
    worst = heat.worst_per_race
    digits = 2 if per_race else 0
    for share in (0.0, 0.5, 1.0):
        x = x0 + share * (x1 - x0)
        g.add(
            dwg.line((fmt(x), fmt(y0 + bar_h)), (fmt(x), fmt(y0 + bar_h + 1.5)), class_="card-rule")
        )
        anchor = {0.0: "start", 0.5: "middle", 1.0: "end"}[share]
        g.add(
            dwg.text(
                f"{share * worst:.{digits}f}",
                insert=(fmt(x), fmt(y0 + bar_h + 5.5)),
                font_size="3.6",
                text_anchor=anchor,
                class_="heat-tick",
            )
        )
    g.add(left_text(dwg, note, x1 + 8, y0 + 4.5, 3.4, w - x1 - 14, class_="muted"))


def _ring_row(dwg: svgwrite.Drawing, g: Group, heat: Heat, *, y0: float, scale: float) -> None:
    """A GT race's overtakes: rings for one overtake, half the most and the most on one
    space (as large as the map draws them), in overtakes per race."""
    w = HEAT_SCALE_SIZE[0]
    most = heat.most_overtakes
    size = scale / CARD_SCALE  # the tile size: rings as large as on the map
    digits = 2 if heat.races is not None else 0
    counts = sorted({1, (most + 1) // 2, most}) if most else []
    key = g.add(dwg.g(class_="overtakes-keys"))
    x = _BAR_X[0]
    for count in counts:
        r, stroke, opacity = overtake_ring(count / most, size)
        r, stroke = r / scale, stroke / scale
        cx, cy = x + overtake_ring(1.0, size)[0] / scale, y0 + 4.5
        ring = key.add(dwg.g(class_="overtakes-key", opacity=f"{opacity:.2f}"))
        halo = stroke + OVERTAKE_HALO * size / scale
        ring.add(dwg.circle((fmt(cx), fmt(cy)), fmt(r), class_="halo", stroke_width=fmt(halo)))
        ring.add(dwg.circle((fmt(cx), fmt(cy)), fmt(r), class_="ring", stroke_width=fmt(stroke)))
        value = count / (heat.races or 1)
        key.add(
            dwg.text(
                f"{value:.{digits}f}",
                insert=(fmt(cx + 5.5), fmt(cy + 1.3)),
                font_size="3.6",
                class_="heat-tick",
            )
        )
        x += 64.0
    note = "no overtake" if not most else "no ring: no overtake"
    g.add(left_text(dwg, note, _BAR_X[1] + 8, y0 + 4.5, 3.4, w - _BAR_X[1] - 14, class_="muted"))
