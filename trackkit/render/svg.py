"""The map of a stage as SVG: every tile with its spaces and features, a title block, a legend.

The document is in millimetres (``width``/``height`` in mm, ``viewBox`` in mm): the map
is true to scale, so a tile of the default size (240 mm) is 240 units wide. What the
stage graph knows (effective corner limits, climb lines, node ids) comes from the graph;
shapes come from :mod:`trackkit.road.geometry`. Rallyman: GT pieces are drawn by
:mod:`trackkit.render.gt_road`, their marks over every tile; the title block and legend of a
GT track give its lap, laps, lanes, corners and boxes.

Examples
--------
>>> from trackkit.models import Stage
>>> stage = Stage.model_validate({"format": "trackkit-stage/1", "name": "<Test> & co",
...     "tiles": [{"tile": "202a"}, {"tile": "217b", "turn": "left"}, {"tile": "203a"}]})
>>> drawn = render_map(stage)
>>> drawn.svg.count("data-node=") == drawn.report.graph.number_of_nodes()
True
>>> "&lt;Test&gt; &amp; co" in drawn.svg and "<Test>" not in drawn.svg
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import svgwrite
from svgwrite.container import Group

from trackkit.checks.pipeline import Report, validate
from trackkit.checks.text import title_lines
from trackkit.models.stage import Stage
from trackkit.models.summary import StageSummary
from trackkit.render.arts import stage_arts
from trackkit.render.draw import (
    TileArt,
    add_symbols,
    clean_text,
    fmt,
)
from trackkit.render.gt_road import overtake_layer
from trackkit.render.heat import Heat
from trackkit.render.legend import (
    CARD_SCALE,
    HEAT_ROW_HEIGHT,
    HEAT_SCALE_SIZE,
    draw_heat_scale,
    draw_legend,
)
from trackkit.render.theme import CSS_PARTS, Theme, css, make_theme
from trackkit.render.tile import draw_tile, look
from trackkit.road import hexgrid
from trackkit.road.geometry import DEFAULT_TILE_SIZE_MM
from trackkit.stage.assemble import Layout, PlacedTile, lay_out
from trackkit.tiles.library import TileLibrary
from trackkit.words import plural

__all__ = [
    "CARD_SCALE",
    "CARD_SIZE",
    "HEAT_ROW_HEIGHT",
    "HEAT_SCALE_SIZE",
    "MAP_PADDING",
    "Box",
    "CardText",
    "MapFrame",
    "RenderedMap",
    "card_size",
    "card_text",
    "draw_card",
    "draw_heat_scale",
    "map_frame",
    "map_svg",
    "new_drawing",
    "render_map",
    "stage_arts",
    "structure",
    "tile_extent",
    "wrap_text",
]

#: Space around the tiles, as a share of the tile size.
MAP_PADDING = 0.12
#: Natural size of the title block + legend card (its own units), before scaling.
CARD_SIZE = (300.0, 92.0)


@dataclass(frozen=True, slots=True)
class Box:
    """An axis-aligned rectangle in millimetres."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        """Right edge."""
        return self.x + self.w

    @property
    def bottom(self) -> float:
        """Bottom edge."""
        return self.y + self.h

    def grow(self, by: float) -> Box:
        """The box with ``by`` mm added on every side."""
        return Box(self.x - by, self.y - by, self.w + 2 * by, self.h + 2 * by)

    def union(self, other: Box) -> Box:
        """The smallest box holding both."""
        x, y = min(self.x, other.x), min(self.y, other.y)
        return Box(x, y, max(self.right, other.right) - x, max(self.bottom, other.bottom) - y)

    def intersects(self, other: Box) -> bool:
        """Whether the boxes overlap (touching edges do not count)."""
        return (
            self.x < other.right
            and other.x < self.right
            and self.y < other.bottom
            and other.y < self.bottom
        )

    @property
    def view_box(self) -> str:
        """The box as an SVG ``viewBox`` value."""
        return f"{fmt(self.x)} {fmt(self.y)} {fmt(self.w)} {fmt(self.h)}"


def hex_box(tile: PlacedTile, size: float) -> Box:
    """The bounding box of a placed tile's hexagon."""
    xs, ys = zip(*hexgrid.corners_mm(tile.hex, size), strict=True)
    return Box(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def tile_extent(layout: Layout) -> Box:
    """The bounding box of every placed tile's hexagon (one tile's box if there is none)."""
    boxes = [hex_box(t, layout.size) for t in layout.tiles]
    if not boxes:
        r = layout.size / math.sqrt(3.0)
        return Box(-layout.size / 2, -r, layout.size, 2 * r)
    out = boxes[0]
    for b in boxes[1:]:
        out = out.union(b)
    return out


@dataclass(frozen=True, slots=True)
class MapFrame:
    """Where things go on the map: the tiles, the padded map, the card, the whole view."""

    tiles: Box
    map: Box
    card: Box | None
    card_scale: float
    view: Box
    heat: Box | None = None
    """The heat map's colour scale (card units scaled by ``card_scale``)."""


def map_frame(
    layout: Layout,
    *,
    legend: bool = True,
    heat: bool = False,
    heat_rows: int = 1,
    card_height: float = CARD_SIZE[1],
) -> MapFrame:
    """Place the map and the title/legend card: below a wide map, right of a tall one.

    With ``heat``, the heat map's colour scale (of ``heat_rows`` rows: losses of control,
    overtakes) goes under the card (under the map without a card). ``card_height`` is
    the card's height in card units (:func:`card_size`).
    """
    tiles = tile_extent(layout)
    pad = MAP_PADDING * layout.size
    area = tiles.grow(pad)
    k = CARD_SCALE * layout.size
    cw, ch = CARD_SIZE[0] * k, card_height * k
    card = None
    if legend:
        if area.w >= area.h:
            card = Box(area.x + max(0.0, (area.w - cw) / 2), area.bottom, cw, ch)
        else:
            card = Box(area.right, area.y + max(0.0, (area.h - ch) / 2), cw, ch)
    scale = None
    if heat:
        hh = (HEAT_SCALE_SIZE[1] + HEAT_ROW_HEIGHT * max(0, heat_rows - 1)) * k
        if card is not None:
            scale = Box(card.x, card.bottom + pad / 2, cw, hh)
        else:
            scale = Box(area.x + max(0.0, (area.w - cw) / 2), area.bottom, cw, hh)
    view = area
    for extra in (card, scale):
        if extra is not None:
            view = view.union(extra.grow(pad))
    return MapFrame(tiles, area, card, k if legend or heat else 0.0, view, scale)


def new_drawing(
    view: Box,
    theme: Theme,
    *,
    title: str | None = None,
    desc: str | None = None,
    parts: tuple[str, ...] = CSS_PARTS,
    symbols: bool = True,
) -> svgwrite.Drawing:
    """An empty drawing in millimetres with the style block (rule groups ``parts``) and symbols."""
    dwg = svgwrite.Drawing(
        size=(f"{fmt(view.w)}mm", f"{fmt(view.h)}mm"),
        viewBox=view.view_box,
        profile="full",
        debug=False,
    )
    if title is not None or desc is not None:
        dwg.set_desc(
            title=clean_text(title) if title is not None else None,
            desc=clean_text(desc, 20_000) if desc is not None else None,
        )
    if parts:
        dwg.defs.add(dwg.style(css(theme, parts)))
    if symbols:
        add_symbols(dwg)
    return dwg


# --- the title block and legend ----------------------------------------------------------


def summary_lines(summary: StageSummary, report: Report | None = None) -> list[str]:
    """The title block's lines under the name and author (both series:
    :func:`trackkit.checks.text.title_lines`)."""
    return title_lines(summary, report)


#: The card's left column: its width, the text's left edge and width (card units).
_CARD_LEFT_W = 148.0
_CARD_TEXT_X = 6.0
_CARD_TEXT_W = _CARD_LEFT_W - 8.0


@dataclass(frozen=True, slots=True)
class CardText:
    """One line of the title block's left column, placed in card units."""

    text: str
    y: float
    size: float
    kind: str
    """``title`` (the name), ``author``, ``line`` (a summary line) or ``note``."""
    indent: float = 0.0


def wrap_text(text: str, width: float, size: float, em: float = 0.6) -> list[str]:
    """``text`` broken at spaces into lines that fit ``width`` at ``size`` type (a glyph
    is taken as ``em`` of the size); a word longer than a line is broken inside.

    >>> wrap_text("Circuit 1 (gt-core, gt-championship; seed 3)", 140, 7.2, em=0.7)
    ['Circuit 1 (gt-core,', 'gt-championship; seed 3)']
    >>> wrap_text("short", 140, 9.0)
    ['short']
    """
    import textwrap

    chars = max(4, int(width / (em * size)))
    return textwrap.wrap(clean_text(text), chars, break_on_hyphens=False) or [""]


def _card_block(
    text: str, width: float, size: float, *, em: float, least: float
) -> tuple[list[str], float]:
    """Lines and type size of one text of the card: one line at ``size``, else shrunk to
    no less than ``least`` of it, else wrapped onto more lines at that smaller size."""
    text = clean_text(text)
    need = em * size * max(1, len(text))
    if need <= width:
        return [text], size
    if need * least <= width:
        return [text], size * width / need
    return wrap_text(text, width, size * least, em), size * least


def card_text(summary: StageSummary, report: Report | None) -> tuple[list[CardText], float]:
    """The title block's left column, line by line, and the card's height (card units).

    Nothing is cut: a long name, author or summary line wraps onto more lines (the
    card grows to hold them; it is never less than :data:`CARD_SIZE` high).
    """
    out: list[CardText] = []
    name = summary.name or "Untitled stage"
    lines, fs = _card_block(name, _CARD_TEXT_W, 9.0, em=0.7, least=0.8)
    y = 14.0 - 9.0 + fs
    for i, line in enumerate(lines):
        out.append(CardText(line, y, fs, "title"))
        if i < len(lines) - 1:
            y += 1.2 * fs
    author = summary.author or ""
    if author:
        lines, fs = _card_block(f"by {author}", _CARD_TEXT_W, 4.6, em=0.6, least=0.85)
        for line in lines:
            y += 7.0 if not out or out[-1].kind == "title" else 1.3 * fs
            out.append(CardText(line, y, fs, "author"))
    y = max(y + 10.0, 31.0) - 7.0
    for line in summary_lines(summary, report):
        parts, fs = _card_block(line, _CARD_TEXT_W, 4.0, em=0.6, least=0.85)
        y += 7.0
        for i, part in enumerate(parts):
            if i:
                y += 1.35 * fs
            out.append(CardText(part, y, fs, "line", indent=3.0 if i else 0.0))
    height = max(CARD_SIZE[1], y + 16.0)
    out.append(
        CardText("Made with trackkit · map true to scale: 1 unit = 1 mm", height - 4, 3.0, "note")
    )
    return out, height


def card_size(summary: StageSummary, report: Report | None = None) -> tuple[float, float]:
    """Width and height of the title block + legend card (card units): :data:`CARD_SIZE`,
    taller when the name or a summary line needs more lines."""
    return CARD_SIZE[0], card_text(summary, report)[1]


def draw_card(
    dwg: svgwrite.Drawing, summary: StageSummary, report: Report | None, *, at: Box, scale: float
) -> Group:
    """The title block (name, author, length, surfaces, boxes) and the legend, in one card.

    Its size is :func:`card_size` (card units) times ``scale``.
    """
    w = CARD_SIZE[0]
    texts, h = card_text(summary, report)
    card = dwg.g(
        id="title-block",
        transform=f"translate({fmt(at.x)},{fmt(at.y)}) scale({scale:.4f})",
    )
    card.add(dwg.rect((0, 0), (w, fmt(h)), rx=2, class_="card", stroke_width=0.4))
    looks: dict[str, dict[str, Any]] = {
        "title": {"class_": "title"},
        "author": {"class_": "muted author"},
        "line": {"class_": "summary"},
        "note": {"class_": "muted note"},
    }
    for t in texts:
        card.add(
            dwg.text(
                t.text,
                insert=(fmt(_CARD_TEXT_X + t.indent), fmt(t.y)),
                font_size=fmt(t.size),
                **looks[t.kind],
            )
        )
    left_w = _CARD_LEFT_W
    card.add(dwg.line((left_w, 5), (left_w, fmt(h - 5)), class_="card-rule", stroke_width=0.3))
    series = "gt" if summary.series == "gt" else "dirt"
    card.add(draw_legend(dwg, series, x=left_w + 5, y=6.0, width=w - left_w - 8))
    return card


# --- the whole map -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RenderedMap:
    """An SVG map and what it was drawn from."""

    svg: str
    frame: MapFrame
    report: Report
    layout: Layout


def desc_text(report: Report) -> str:
    """The text embedded in the map's ``<desc>``: the stage summary, as validate prints it."""
    from trackkit.checks.text import summary_text

    head = report.summary.name or "Untitled stage"
    if report.summary.author:
        head += f" by {report.summary.author}"
    state = "valid" if report.valid else "INVALID"
    lines = [
        head,
        f"{state} ({plural(report.errors, 'error')}, {plural(report.warnings, 'warning')})",
    ]
    lines += summary_text(report.summary)
    lines += [f"{f.code} {f.severity.value}: {f.message}" for f in report.findings[:50]]
    return "\n".join(lines)


def map_svg(
    report: Report,
    layout: Layout | None = None,
    *,
    theme: Theme | None = None,
    legend: bool = True,
    heat: Heat | Mapping[str, int] | None = None,
) -> RenderedMap:
    """Draw a validated stage.

    Parameters
    ----------
    report : Report
        From :func:`trackkit.checks.pipeline.validate`: its graph and summary are drawn.
    layout : Layout, optional
        The stage laid out at another tile size (default: the report's own layout).
    theme : dict, optional
        Colour overrides (:func:`trackkit.render.theme.make_theme`).
    legend : bool
        Add the title block and legend card.
    heat : Heat or dict, optional
        Losses of control per space (graph node id -> count, from ``trackkit simulate``;
        see :func:`trackkit.render.heat.read_heat`): those spaces are tinted from pale
        yellow to red (class ``heat``), and a colour scale tells what the colours mean.
        A GT race's overtakes (``Heat.overtakes``) are rings on the spaces (class
        ``overtakes``, :func:`trackkit.render.gt_road.overtake_layer`), in the scale too.
    """
    layout = layout or report.layout
    theme = theme or make_theme()
    if heat is not None and not isinstance(heat, Heat):
        heat = Heat(dict(heat))
    rings = heat is not None and heat.overtakes is not None
    rows = int(heat.losses) + int(rings) if heat is not None else 0
    frame = map_frame(
        layout,
        legend=legend,
        heat=heat is not None,
        heat_rows=rows,
        card_height=card_size(report.summary, report)[1],
    )
    dwg = new_drawing(
        frame.view,
        theme,
        title=report.summary.name or "",
        desc=desc_text(report),
        parts=(*CSS_PARTS, "heat") if rings else CSS_PARTS,
    )
    v = frame.view
    dwg.add(dwg.rect((fmt(v.x), fmt(v.y)), (fmt(v.w), fmt(v.h)), class_="background"))
    tiles = dwg.add(dwg.g(id="map"))
    worst = heat.worst if heat is not None else 0
    most = heat.most_overtakes if heat is not None else 0
    later: list[Group] = []  # GT pieces' marks, over every tile
    passes: list[Group] = []  # GT pieces' overtakes, over every tile, under every mark
    for art in _ordered(stage_arts(layout, report.graph)):
        if heat is not None and (worst or most):
            mine = look(art).nodes(art)
            if worst:
                art = replace(
                    art,
                    heat={n: c / worst for n, c in heat.by_space.items() if n in mine},
                )
            if most and heat.overtakes is not None:
                art = replace(
                    art,
                    overtakes={n: c / most for n, c in heat.overtakes.items() if n in mine and c},
                )
        first, *rest = draw_tile(dwg, art, size=layout.size)
        tiles.add(first)
        later += rest
        ring = overtake_layer(dwg, art, size=layout.size) if most else None
        if ring is not None:
            passes.append(ring)
    for group in (*passes, *later):
        tiles.add(group)
    if frame.card is not None:
        dwg.add(draw_card(dwg, report.summary, report, at=frame.card, scale=frame.card_scale))
    if heat is not None and frame.heat is not None:
        dwg.add(draw_heat_scale(dwg, heat, at=frame.heat, scale=frame.card_scale))
    return RenderedMap(dwg.tostring(), frame, report, layout)


def _ordered(arts: Iterable[TileArt]) -> Sequence[TileArt]:
    """Scenery first, so road tiles' labels and markers are never hidden under them."""
    arts = list(arts)
    return [a for a in arts if "scenery" in a.classes] + [
        a for a in arts if "scenery" not in a.classes
    ]


def render_map(
    stage: Stage,
    *,
    size: float = DEFAULT_TILE_SIZE_MM,
    theme: Theme | None = None,
    legend: bool = True,
    library: TileLibrary | None = None,
    heat: Heat | Mapping[str, int] | None = None,
) -> RenderedMap:
    """Validate ``stage`` and draw its map at tile size ``size`` (mm).

    A stage with errors is drawn all the same: what can be placed is shown.
    """
    report = validate(stage, library=library)
    layout = report.layout if size == report.layout.size else lay_out(stage, library, size=size)
    return map_svg(report, layout, theme=theme, legend=legend, heat=heat)


def structure(svg: str) -> dict[str, Any]:
    """What a map holds, for golden files and review: size, and elements counted by class.

    Counts cover the map only (not the legend): ``space kind-*`` per space kind,
    ``feature <kind>`` per feature kind, and the tiles' ids with their classes.
    """
    import xml.etree.ElementTree as ET

    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(svg)
    the_map = root.find(f".//{ns}g[@id='map']")
    counts: dict[str, int] = {}
    tiles: dict[str, str] = {}
    for el in the_map.iter() if the_map is not None else ():
        cls = el.get("class", "").split()
        if "space" in cls:
            key = "space " + next((c for c in cls if c.startswith("kind-")), "")
        elif "feature" in cls:
            key = "feature " + cls[1]
        elif "tile" in cls and el.get("id"):
            tiles[str(el.get("id"))] = " ".join(cls)
            continue
        else:
            continue
        counts[key] = counts.get(key, 0) + 1
    return {
        "width": root.get("width"),
        "height": root.get("height"),
        "viewBox": root.get("viewBox"),
        "counts": dict(sorted(counts.items())),
        "tiles": tiles,
    }
