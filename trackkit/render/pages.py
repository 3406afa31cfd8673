"""Print a stage at true scale over numbered pages that tape together: the pages drawn.

How the map is cut into pages, which are printed and how they are numbered and named is
:mod:`trackkit.render.paging` (:func:`~trackkit.render.paging.plan_pages`); this module
draws them: each map page a stand-alone SVG of its window of the map, with its number and
name, its neighbours' numbers, crop marks, the dashed lines where its neighbours begin,
registration marks in the shared strips and a 100 mm scale bar; and page 1, the overview:
the assembly plan of the pages over the map, the tiles to take out of the boxes, the
title block and the legend (:func:`print_pages`).

Examples
--------
>>> from trackkit.models import Stage
>>> from trackkit.checks.pipeline import validate
>>> report = validate(Stage.model_validate({"format": "trackkit-stage/1",
...     "tiles": [{"tile": "202a"}, {"tile": "217b", "turn": "left"}, {"tile": "203a"}]}))
>>> job = print_pages(report, report.layout, paper="a4")
>>> len(job.svg_pages()) == job.plan.pages - 1
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import svgwrite
from svgwrite.container import Group

from trackkit.checks.pipeline import Report
from trackkit.render.draw import TileArt, clean_text, fmt, svg_id
from trackkit.render.gt_road import road_lines
from trackkit.render.paging import (
    DEFAULT_OVERLAP_MM,
    MARGINS,
    MAX_PAGES,
    PAPER_NAMES,
    PAPERS,
    Cell,
    Margins,
    Neighbour,
    PagePlan,
    content_footprints,
    grid_count,
    min_road_area,
    own_part,
    paper_name,
    plan_pages,
    pull_list,
    road_shapes,
    token_footprints,
)
from trackkit.render.raster import SvgDoc, svg_to_pdf
from trackkit.render.svg import (
    Box,
    card_size,
    draw_card,
    hex_box,
    new_drawing,
    stage_arts,
    tile_extent,
    wrap_text,
)
from trackkit.render.theme import Theme, make_theme
from trackkit.render.tile import draw_tile
from trackkit.road import hexgrid
from trackkit.road.geometry import (
    ROAD_WIDTH_RATIO,
    centre_line,
    local_polygon,
    to_world,
)
from trackkit.stage.assemble import Layout
from trackkit.words import plural

__all__ = [
    "DEFAULT_OVERLAP_MM",
    "MARGINS",
    "MAX_PAGES",
    "PAPERS",
    "PAPER_NAMES",
    "Cell",
    "Margins",
    "Neighbour",
    "PagePlan",
    "PrintJob",
    "content_footprints",
    "grid_count",
    "min_road_area",
    "own_part",
    "paper_name",
    "plan_box",
    "plan_pages",
    "print_pages",
    "pull_list",
    "road_shapes",
    "token_footprints",
]


# --- drawing the pages --------------------------------------------------------------------


@dataclass(slots=True)
class PrintJob:
    """A print: the assembly overview (page 1) and the numbered true-scale map pages.

    :meth:`svg_pages` makes each map page as a stand-alone SVG; :meth:`pdf` converts
    the overview and those very pages into one PDF, in page order.
    """

    plan: PagePlan
    overview: SvgDoc
    _tiles: list[tuple[Box, Group]]
    _theme: Theme
    _name: str
    _size: float

    def svg_pages(self) -> list[SvgDoc]:
        """Each map page (pages 2..N) as a stand-alone SVG, its tiles clipped to the window."""
        out = []
        for cell in self.plan.printed:
            tiles = [g for box, g in self._tiles if box.intersects(cell.window)]
            out.append(
                _page(
                    self.plan,
                    cell,
                    name=self._name,
                    size=self._size,
                    theme=self._theme,
                    tiles=tiles,
                )
            )
        return out

    def pdf(self) -> bytes:
        """Every page in one PDF: the overview (page 1), then the map pages 2..N."""
        return svg_to_pdf([self.overview, *self.svg_pages()])


def print_pages(
    report: Report,
    layout: Layout,
    *,
    paper: str = "a4",
    overlap: float = DEFAULT_OVERLAP_MM,
    theme: Theme | None = None,
    all_pages: bool = False,
    scenery: bool = False,
) -> PrintJob:
    """Cut the map of ``layout`` into true-scale pages, plus an assembly overview.

    Parameters
    ----------
    report : Report
        The validated stage (graph for limits and climb lines, summary for the title).
    layout : Layout
        The stage laid out at the tile size to print (``lay_out(stage, size=...)``).
    paper : str
        ``a4``, ``letter`` or ``a3``.
    overlap : float
        Strip shared by neighbouring pages, in mm.
    all_pages : bool
        Print every page of the grid, even those without road.
    scenery : bool
        Tiles beside the road (scenery, service areas) earn pages too, not only the road.

    Raises
    ------
    ValueError
        If the paper is unknown, the overlap does not fit, or more than
        :data:`MAX_PAGES` pages would be needed.
    """
    theme = theme or make_theme()
    size = layout.size
    extent = tile_extent(layout)
    earn = content_footprints(layout, scenery=scenery)
    tokens = token_footprints(layout)
    plan = plan_pages(
        extent,
        None if all_pages else earn + tokens,
        paper=paper,
        overlap=overlap,
        min_content=min_road_area(size),
        weighed=earn if tokens else None,
    )
    total = len(plan.printed)
    if total > MAX_PAGES:
        raise ValueError(
            f"this print needs {total} pages of {paper}: over {MAX_PAGES}; "
            "use a smaller --tile-size or larger paper"
        )
    name = report.summary.name or "Untitled stage"
    factory = svgwrite.Drawing(debug=False)
    arts = stage_arts(layout, report.graph)
    boxes = [hex_box(t, size) for t in layout.tiles]  # arts' order: chain, scenery, undriven
    order = sorted(range(len(arts)), key=lambda i: "scenery" not in arts[i].classes)
    # A label may stand out of its hex a little: the box is grown to keep it whole (and
    # holds a GT space drawn whole over the edge into the neighbouring tile).
    tiles: list[tuple[Box, Group]] = []
    later: list[tuple[Box, Group]] = []  # GT pieces' marks, over every tile
    for i in order:
        box = _art_box(arts[i], boxes[i]).grow(0.1 * size)
        first, *rest = draw_tile(factory, arts[i], size=size)
        tiles.append((box, first))
        later += [(box, g) for g in rest]
    tiles += later
    skipped = 0 if scenery or all_pages else len(layout.scenery)
    overview = _overview(report, layout, plan, theme=theme, skipped_scenery=skipped)
    return PrintJob(plan, overview, tiles, theme, name, size)


def _art_box(art: TileArt, box: Box) -> Box:
    """A tile's box, and that of the GT spaces it draws whole over a skew edge."""
    if art.gt is None or not art.gt.joined:
        return box
    for _node, geom in art.gt.joined.values():
        world = local_polygon(geom, centre=art.centre, rotation=art.rotation)
        x0, y0, x1, y1 = world.bounds
        box = box.union(Box(x0, y0, x1 - x0, y1 - y0))
    return box


def plan_box(plan: PagePlan) -> Box:
    """The map area the printed pages cover (their windows' bounding box)."""
    boxes = [c.window for c in plan.cells]
    out = boxes[0]
    for b in boxes[1:]:
        out = out.union(b)
    return out


def _page(
    plan: PagePlan,
    cell: Cell,
    *,
    name: str,
    size: float,
    theme: Theme,
    tiles: Sequence[Group],
) -> SvgDoc:
    """One map page, stand-alone: its ``tiles`` clipped to the window, and the page marks."""
    m = plan.margins
    ww, wh = plan.window_w, plan.window_h
    total = plan.pages
    number = cell.number
    dwg = new_drawing(
        Box(0, 0, plan.page_w, plan.page_h),
        theme,
        title=f"{name}: page {number} of {total}",
        desc=f"Page {number} of {total} ({cell.name}), true scale, tiles {size:g} mm",
        parts=("base", "map"),
    )
    clip = dwg.defs.add(dwg.clipPath(id="window"))
    clip.add(dwg.rect((fmt(m.left), fmt(m.top)), (fmt(ww), fmt(wh))))
    holder = dwg.add(dwg.g(id="map", clip_path="url(#window)"))
    inner = holder.add(
        dwg.g(transform=f"translate({fmt(m.left - cell.window.x)},{fmt(m.top - cell.window.y)})")
    )
    for g in tiles:
        inner.add(g)

    # Marks carry their colours as attributes, not classes: they need no style rules.
    marks = dwg.add(dwg.g(id="page-marks", font_family=theme["font"], fill=theme["text"]))
    _frame_marks(dwg, marks, plan, cell, name, size, theme)
    glue = _look(theme, "glue")
    crosses: list[tuple[float, float]] = []
    dx, dy = m.left - cell.window.x, m.top - cell.window.y  # map mm -> page mm
    fs = 3.0
    taken: dict[str, list[tuple[float, float]]] = {}
    for n in plan.neighbours(cell):
        s, o = n.shared, n.cell.window
        # The dashed line is where the neighbour's window begins; the ⊕ marks sit in
        # the middle of the shared strip, so they print on both pages at the same spot.
        if n.side in ("left", "right"):
            x = (o.right if n.side == "left" else o.x) + dx
            y0, y1 = s.y + dy, s.bottom + dy
            marks.add(dwg.line((fmt(x), fmt(y0)), (fmt(x), fmt(y1)), **glue))
            mid = s.x + s.w / 2 + dx
            crosses += [(mid, y0 + k * (y1 - y0)) for k in _mark_places(y1 - y0)]
        else:
            y = (o.bottom if n.side == "up" else o.y) + dy
            x0, x1 = s.x + dx, s.right + dx
            marks.add(dwg.line((fmt(x0), fmt(y)), (fmt(x1), fmt(y)), **glue))
            mid = s.y + s.h / 2 + dy
            crosses += [(x0 + k * (x1 - x0), mid) for k in _mark_places(x1 - x0)]
        _neighbour_label(dwg, marks, plan, cell, n, fs, taken)
    if crosses:
        marks.add(_register(dwg, crosses, min(3.0, plan.overlap / 2 + 1), theme))
    return SvgDoc(dwg.tostring(), plan.page_w, plan.page_h)


def _mark_places(length: float) -> tuple[float, ...]:
    """Where the ⊕ marks go along a shared strip of ``length`` mm (shares of it)."""
    return (0.25, 0.75) if length >= 60.0 else (0.5,)


def _neighbour_label(
    dwg: svgwrite.Drawing,
    marks: Group,
    plan: PagePlan,
    cell: Cell,
    n: Neighbour,
    fs: float,
    taken: dict[str, list[tuple[float, float]]],
) -> None:
    """``▲ 5 (row 1, 2nd from the left)`` in the margin beside the strip a page shares
    with page 5; just ``▲ 5`` where two neighbours' labels would run into each other."""
    m = plan.margins
    ww, wh = plan.window_w, plan.window_h
    arrow = {"up": "▲", "down": "▼", "left": "▲", "right": "▲"}[n.side]
    vertical = n.side in ("left", "right")
    s = n.shared
    if vertical:
        lo, hi = m.top, m.top + wh
        centre = s.y + s.h / 2 + m.top - cell.window.y
    else:
        lo, hi = m.left, m.left + ww
        centre = s.x + s.w / 2 + m.left - cell.window.x
    spans = taken.setdefault(n.side, [])
    for text in (f"{arrow} {n.cell.number} ({n.cell.name})", f"{arrow} {n.cell.number}"):
        half = len(text) * _CHAR_WIDTH * fs / 2
        at = min(max(centre, lo + half), hi - half)
        if not any(a < at + half + 2 and at - half - 2 < b for a, b in spans):
            break
    spans.append((at - half, at + half))
    if vertical:
        tx = m.left / 2 if n.side == "left" else m.left + ww + m.right / 2
        turn = -90 if n.side == "left" else 90
        g = marks.add(dwg.g(transform=f"translate({fmt(tx)},{fmt(at)}) rotate({turn})"))
        g.add(
            dwg.text(
                text,
                insert=(0, fmt(0.36 * fs)),
                font_size=fmt(fs),
                text_anchor="middle",
                class_="neighbour",
            )
        )
    else:
        ty = m.top - 1.6 if n.side == "up" else m.top + wh + 4.2
        marks.add(
            dwg.text(
                text,
                insert=(fmt(at), fmt(ty)),
                font_size=fmt(fs),
                text_anchor="middle",
                class_="neighbour",
            )
        )


#: Width of a character of the page marks' sans-serif type, as a share of the font size
#: (a generous mean: names are cut a little early rather than run into what follows).
_CHAR_WIDTH = 0.62


def _fits(text: str, width_mm: float, font_mm: float) -> str:
    """``text`` cut (with an ellipsis) to about ``width_mm`` at ``font_mm`` type."""
    return clean_text(text, max(8, int(width_mm / (_CHAR_WIDTH * font_mm))))


def _page_label(number: int, total: int, cell: str) -> str:
    return f"page {number} of {total} · {cell}"


def _look(theme: Theme, what: str) -> dict[str, Any]:
    """Presentation attributes of the page marks (class name included, for users' CSS)."""
    looks: dict[str, dict[str, Any]] = {
        "trim": {"stroke": theme["page.trim"], "stroke_width": 0.25},
        "glue": {"stroke": theme["page.trim"], "stroke_width": 0.25, "stroke_dasharray": "2 1.5"},
        "mark": {"stroke": theme["page.mark"], "stroke_width": 0.25},
    }
    return {"class_": what, "fill": "none", **looks[what]}


def _frame_marks(
    dwg: svgwrite.Drawing,
    parent: Any,
    plan: PagePlan,
    cell: Cell,
    name: str,
    size: float,
    theme: Theme,
) -> None:
    """What every page shows: frame, crop marks, stage name, page number and place,
    paper note, scale bar."""
    m = plan.margins
    box = Box(m.left, m.top, plan.window_w, plan.window_h)
    label = _page_label(cell.number, plan.pages, cell.name)
    parent.add(
        dwg.text(
            label,
            insert=(fmt(box.right), fmt(box.y - 5.5)),
            font_size="3.6",
            text_anchor="end",
            class_="title page-number",
            font_weight="bold",
        )
    )
    # The name stands left of the page number and place: it gets the room up to the
    # widest of them, in type shrunk to 3 mm before it is cut.
    widest = max((len(_page_label(c.number, plan.pages, c.name)) for c in plan.cells), default=0)
    room = box.w - widest * _CHAR_WIDTH * 3.6 - 4.0
    font = min(3.6, max(3.0, room / (_CHAR_WIDTH * max(1, len(name)))))
    parent.add(
        dwg.text(
            _fits(name, room, font),
            insert=(fmt(box.x), fmt(box.y - 5.5)),
            font_size=fmt(font),
            class_="title",
            font_weight="bold",
        )
    )
    parent.add(dwg.rect((fmt(box.x), fmt(box.y)), (fmt(box.w), fmt(box.h)), **_look(theme, "trim")))
    _crop_marks(dwg, parent, box, theme)
    parent.add(
        dwg.text(
            f"{paper_name(plan.paper)} · 1:1 · tiles {size:g} mm",
            insert=(fmt(box.right), fmt(box.bottom + 14.0)),
            font_size="2.6",
            text_anchor="end",
            class_="muted paper-note",
            fill=theme["muted"],
        )
    )
    parent.add(_scale_bar(dwg, (box.x, box.bottom + 8.0), theme))


def _register(
    dwg: svgwrite.Drawing, points: Sequence[tuple[float, float]], r: float, theme: Theme
) -> Any:
    """Registration marks (⊕: a circle with a cross), all in one path."""
    c = 0.55 * r
    d = " ".join(
        f"M {fmt(x - r)},{fmt(y)} h {fmt(2 * r)} M {fmt(x)},{fmt(y - r)} v {fmt(2 * r)} "
        f"M {fmt(x - c)},{fmt(y)} a {fmt(c)},{fmt(c)} 0 1 0 {fmt(2 * c)},0 "
        f"a {fmt(c)},{fmt(c)} 0 1 0 {fmt(-2 * c)},0"
        for x, y in points
    )
    path = dwg.path(d=d, **_look(theme, "mark"))
    path["class"] = "mark registration"
    return path


def _crop_marks(dwg: svgwrite.Drawing, parent: Group, window: Box, theme: Theme) -> None:
    """Short lines in the margin that extend the frame's corners."""
    g = parent.add(dwg.g(**_look(theme, "mark")))
    g["class"] = "mark crop-marks"
    gap, length = 1.0, 5.0
    for x, sx in ((window.x, -1), (window.right, 1)):
        for y, sy in ((window.y, -1), (window.bottom, 1)):
            g.add(dwg.line((fmt(x + sx * gap), fmt(y)), (fmt(x + sx * (gap + length)), fmt(y))))
            g.add(dwg.line((fmt(x), fmt(y + sy * gap)), (fmt(x), fmt(y + sy * (gap + length)))))


def _scale_bar(dwg: svgwrite.Drawing, at: tuple[float, float], theme: Theme) -> Group:
    """A 100 mm bar in 10 mm steps: measure it to check the print is at 100 %."""
    x, y = at
    ink = theme["page.mark"]
    g = dwg.g(id="scale-bar", class_="scale-bar", stroke=ink, stroke_width=0.2)
    for i in range(10):
        g.add(
            dwg.rect(
                (fmt(x + 10 * i), fmt(y)),
                ("10", "2.4"),
                class_="ink" if i % 2 == 0 else "paper",
                fill=ink if i % 2 == 0 else "#ffffff",
            )
        )
    g.add(dwg.rect((fmt(x), fmt(y)), ("100", "2.4"), fill="none"))
    words = {"stroke": "none", "font_size": "2.6"}
    g.add(dwg.text("0", insert=(fmt(x), fmt(y + 6.0)), fill=theme["text"], **words))
    g.add(
        dwg.text(
            "100 mm",
            insert=(fmt(x + 100), fmt(y + 6.0)),
            text_anchor="end",
            fill=theme["text"],
            **words,
        )
    )
    g.add(
        dwg.text(
            "Print at 100 %: this bar must measure 100 mm.",
            insert=(fmt(x + 104), fmt(y + 2.2)),
            class_="muted",
            fill=theme["muted"],
            **words,
        )
    )
    return g


# --- the overview: assembly plan and pull list ------------------------------------------

#: The pull list's type: title, box headings and faces (font sizes in mm), line steps,
#: and the width of one column of faces.
_PULL_TITLE, _PULL_HEAD, _PULL_FACE = 3.6, 3.0, 2.8
_PULL_TITLE_STEP, _PULL_HEAD_STEP, _PULL_ROW, _PULL_GAP = 5.4, 4.2, 3.9, 1.6
_PULL_COLUMN = 17.0


@dataclass(frozen=True, slots=True)
class _Line:
    """One text of the pull list, placed relative to the list's top-left corner."""

    text: str
    x: float
    y: float
    kind: str
    """``title``, ``box`` or ``face``."""


def _pull_lines(
    pulls: Mapping[str, Sequence[tuple[str, int]]], boxes: Mapping[str, Any], width: float
) -> tuple[list[_Line], float]:
    """The texts of the pull list in columns across ``width`` mm, and the list's height."""
    columns = max(1, int(width // _PULL_COLUMN))
    pieces = sum(n for faces in pulls.values() for _, n in faces)
    lines = [
        _Line(
            f"Tiles to take out of the boxes: {plural(pieces, 'piece')}",
            0.0,
            _PULL_TITLE,
            "title",
        )
    ]
    y = _PULL_TITLE_STEP
    for box, faces in pulls.items():
        count = sum(n for _, n in faces)
        copies = boxes.get(box)
        head = box or "not in the tile library"
        if isinstance(copies, int) and copies > 1:
            head += f" (× {copies} boxes)"
        head += f": {plural(count, 'piece')}"
        y += _PULL_HEAD
        lines.append(_Line(head, 0.0, y, "box"))
        y += _PULL_HEAD_STEP - _PULL_HEAD
        rows = math.ceil(len(faces) / columns)
        for i, (face, n) in enumerate(faces):
            col, row = divmod(i, rows)  # down the columns, as a list is read
            text = face + (f" ×{n}" if n > 1 else "")
            lines.append(_Line(text, col * _PULL_COLUMN, y + (row + 0.75) * _PULL_ROW, "face"))
        y += rows * _PULL_ROW + _PULL_GAP
    return lines, y


def _draw_pull_list(dwg: svgwrite.Drawing, lines: Sequence[_Line], at: tuple[float, float]) -> Any:
    g = dwg.g(id="pull-list", transform=f"translate({fmt(at[0])},{fmt(at[1])})")
    looks: dict[str, dict[str, Any]] = {
        "title": {"font_size": fmt(_PULL_TITLE), "class_": "title"},
        "box": {"font_size": fmt(_PULL_HEAD), "class_": "title pull-box"},
        "face": {"font_size": fmt(_PULL_FACE), "class_": "pull-face"},
    }
    for line in lines:
        g.add(
            dwg.text(
                clean_text(line.text, 80), insert=(fmt(line.x), fmt(line.y)), **looks[line.kind]
            )
        )
    return g


def _intro(
    report: Report,
    layout: Layout,
    plan: PagePlan,
    width: float,
    skipped_scenery: int,
) -> tuple[list[str], list[str], float]:
    """The overview's title lines (wrapped, never cut), its instructions (wrapped), and
    the height they take from the top margin (mm), on paper ``width`` mm wide."""
    name = report.summary.name or "Untitled stage"
    total = plan.pages
    room = width - len(f"page 1 of {total}") * _CHAR_WIDTH * 3.6 - 6.0
    title = wrap_text(f"{name} — assembly plan", room, 6.0, em=0.7)
    printed = len(plan.cells)
    pages = f"pages 2–{total}" if printed > 1 else "page 2"
    strips = plural(plan.strips, "column" if plan.columns else "row")
    first = plan.cells[min(2, len(plan.cells) - 1)] if plan.cells else None
    example = first.name if first is not None else "row 1, 1st from the left"
    across = "from the left" if plan.columns else "from the top"
    strip = "column" if plan.columns else "row"
    lines = [
        f"This page, then {plural(printed, 'map page')} ({pages}) of {paper_name(plan.paper)} "
        f"{'landscape' if plan.landscape else 'portrait'}, in {strips} of pages; "
        f"tiles {layout.size:g} mm; overlap {plan.overlap:g} mm.",
        "1. Print at 100 % (actual size, not 'fit to page'): the bar on each page must "
        "measure 100 mm.",
        "2. Cut each page along its frame on the left and top sides.",
        "3. Lay it over the pages left of it and above it, ⊕ marks on ⊕ marks, and tape.",
        f"Each page names its place ('{example}'; {strip}s count {across}): each {strip} "
        f"is laid out on its own, so the pages of neighbouring {strip}s need not line up.",
        "Only pages that hold road are printed"
        + (
            f" ({plural(skipped_scenery, 'tile')} beside the road "
            f"{'is' if skipped_scenery == 1 else 'are'} shown only on road pages)."
            if skipped_scenery
            else "."
        ),
    ]
    wrapped = [part for line in lines for part in wrap_text(line, width, 3.1, em=0.55)]
    height = 2 + 7.0 * (len(title) - 1) + 7 + 4.6 * len(wrapped)
    return title, wrapped, height


def _number_spot(
    own: Any, text: str, font: float, road: Any
) -> tuple[tuple[float, float], float] | None:
    """Where a page's number goes on the overview's small map, and in what type: inside
    the page's own part, clear of the road line (None: nowhere at this type size)."""
    import numpy as np
    import shapely

    x0, y0, x1, y1 = own.bounds
    w, h = 0.62 * font * len(text) / 2, 0.4 * font
    if x1 - x0 < 2 * w or y1 - y0 < 2 * h:
        return None
    grid_x, grid_y = np.meshgrid(np.linspace(x0 + w, x1 - w, 9), np.linspace(y0 + h, y1 - h, 9))
    xs, ys = grid_x.ravel(), grid_y.ravel()
    boxes = shapely.box(xs - w, ys - h, xs + w, ys + h)
    ok = shapely.contains(own, boxes)
    if road is not None:
        ok &= ~shapely.intersects(road, boxes)
    if not ok.any():
        return None
    centre = own.centroid
    far = (xs - centre.x) ** 2 + (ys - centre.y) ** 2
    best = int(np.argmin(np.where(ok, far, np.inf)))
    return (float(xs[best]), float(ys[best])), font


def _overview(
    report: Report, layout: Layout, plan: PagePlan, *, theme: Theme, skipped_scenery: int = 0
) -> SvgDoc:
    """Page 1: instructions, a small map under the printed pages, the pull list, the
    title card. It is portrait or landscape, whichever shows the small map larger.
    """
    import shapely

    m = plan.margins
    grid = plan_box(plan)
    pw, ph = PAPERS[plan.paper]
    card_w0, card_h0 = card_size(report.summary, report)
    card_share = card_h0 / card_w0
    pulls = pull_list(layout)
    boxes = report.summary.boxes
    # room left of (or above) the small map for the rows' (columns') names
    side, above = (4.0, 8.0) if plan.columns else (14.0, 4.0)

    def fit(w: float, h: float) -> tuple[float, float, float]:
        """Map scale, pull list height and card width on paper of ``w`` x ``h``."""
        width = w - m.left - m.right
        card_w = min(width, 200.0)
        pull_h = _pull_lines(pulls, boxes, width)[1]
        top_h = _intro(report, layout, plan, width, skipped_scenery)[2]
        free = h - m.top - m.bottom - top_h - above - card_w * card_share - pull_h - 8
        return min((width - side - 4) / grid.w, free / grid.h), pull_h, card_w

    if fit(ph, pw)[0] > fit(pw, ph)[0]:
        pw, ph = ph, pw
    card_w = fit(pw, ph)[2]
    name = report.summary.name or "Untitled stage"
    total = plan.pages
    printed = len(plan.printed)
    dwg = new_drawing(
        Box(0, 0, pw, ph),
        theme,
        title=f"{name}: page 1 of {total}, how the pages assemble",
        desc=f"Page 1 of {total}: {plural(printed, 'map page')} of {paper_name(plan.paper)}, in "
        f"{plural(plan.strips, 'column' if plan.columns else 'row')}",
    )
    width = pw - m.left - m.right
    title, lines, _height = _intro(report, layout, plan, width, skipped_scenery)
    y = m.top + 2
    dwg.add(
        dwg.text(
            f"page 1 of {total}",
            insert=(fmt(pw - m.right), fmt(y)),
            font_size="3.6",
            text_anchor="end",
            class_="title page-number",
        )
    )
    for i, line in enumerate(title):
        if i:
            y += 7.0
        dwg.add(dwg.text(line, insert=(fmt(m.left), fmt(y)), font_size="6", class_="title"))
    y += 7
    for line in lines:
        dwg.add(dwg.text(line, insert=(fmt(m.left), fmt(y)), font_size="3.1"))
        y += 4.6

    # From the bottom up: the title card, the pull list; the small map in between.
    card_k = card_w / card_w0
    card_h = card_h0 * card_k
    card_box = Box(m.left + (width - card_w) / 2, ph - m.bottom - card_h, card_w, card_h)
    pull_lines, pull_h = _pull_lines(pulls, boxes, width)
    pull_y = card_box.y - 4 - pull_h
    area = Box(m.left + side, y + above, width - side - 4, pull_y - 4 - (y + above))
    k = min(area.w / grid.w, area.h / grid.h)
    ox = area.x + (area.w - grid.w * k) / 2 - grid.x * k
    oy = area.y + (area.h - grid.h * k) / 2 - grid.y * k
    mini = dwg.add(
        dwg.g(id="overview-map", transform=f"translate({fmt(ox)},{fmt(oy)}) scale({k:.5f})")
    )
    size = layout.size
    road_w = ROAD_WIDTH_RATIO * size * 0.35
    lines_drawn: list[Any] = []
    for tile in [*layout.scenery, *layout.chain, *layout.undriven]:
        face = tile.face
        surface = face.surface.value if face is not None else "none"
        t = mini.add(
            dwg.g(class_=f"tile surface-{surface}" + ("" if face is not None else " unknown"))
        )
        t.add(
            dwg.polygon(
                [(fmt(x), fmt(y)) for x, y in hexgrid.corners_mm(tile.hex, size)],
                class_="hex",
                style=f"stroke-width: {fmt(0.4 / k)}",
            )
        )
        centre = hexgrid.centre_mm(tile.hex, size)
        courses: list[list[tuple[float, float]]] = []
        if face is not None and face.layout is not None:
            courses = [line[::6] + line[-1:] for line in road_lines(face, size)]
        elif tile.road is not None and tile.road.series == "dirt":
            courses = [list(centre_line(tile.road, size).points[::6])]
        for pts in courses:
            world = [to_world(p, centre=centre, rotation=tile.rotation) for p in pts]
            if len(world) >= 2:
                lines_drawn.append(shapely.LineString(world))
            t.add(
                dwg.polyline(
                    [(fmt(x), fmt(y)) for x, y in world],
                    class_="overview-road",
                    stroke_width=fmt(road_w),
                )
            )
    # The printed pages, each with its number inside its own part (the part no other
    # page shows), clear of the road line; the rows (columns) named beside them.
    road = shapely.union_all(lines_drawn).buffer(road_w / 2 + 0.01 * size) if lines_drawn else None
    if road is not None:
        shapely.prepare(road)
    step = min(plan.window_w, plan.window_h) - plan.overlap
    fs = 0.3 * step
    cells = mini.add(dwg.g(id="page-grid"))
    thin = {"style": f"stroke-width: {fmt(0.35 / k)}"}
    for cell in plan.printed:
        w = cell.window
        cid = svg_id("cell", cell.row + 1, cell.col + 1)
        cells.add(
            dwg.rect((fmt(w.x), fmt(w.y)), (fmt(w.w), fmt(w.h)), class_="cell", id=cid, **thin)
        )
        own = own_part(plan, cell)
        text = str(cell.number)
        spot = None
        for scale in (1.0, 0.75, 0.55, 0.4):
            spot = _number_spot(own, text, fs * scale, road)
            if spot is not None:
                break
        if spot is None:  # no room clear of the road: the middle of its own part
            c = own.representative_point() if not own.is_empty else shapely.Point(w.x, w.y)
            spot = ((c.x, c.y), 0.4 * fs)
        (nx, ny), font = spot
        cells.add(
            dwg.text(
                text,
                insert=(fmt(nx), fmt(ny + 0.36 * font)),
                font_size=fmt(font),
                text_anchor="middle",
                class_="cell-number",
                fill_opacity="0.75",
                **{"data-cell": cid},
            )
        )
    edge: dict[str, Any] = {"font_size": fmt(min(fs * 0.5, 3.0 / k)), "class_": "muted strip"}
    gap = 1.5 / k
    for strip in range(plan.strips):
        mine = [c for c in plan.printed if c.row == strip]
        if not mine:
            continue
        # along the top (the left) of all the pages, clear of every page of the map
        first = mine[0].window
        if plan.columns:
            at = (first.x + (first.w - plan.overlap) / 2, grid.y - gap)
            extra = {"text_anchor": "middle"}
        else:
            at = (grid.x - gap, first.y + (first.h - plan.overlap) / 2)
            extra = {"text_anchor": "end"}
        cells.add(dwg.text(mine[0].strip_name, insert=(fmt(at[0]), fmt(at[1])), **edge, **extra))
    dwg.add(_draw_pull_list(dwg, pull_lines, (m.left, pull_y)))
    dwg.add(draw_card(dwg, report.summary, report, at=card_box, scale=card_k))
    return SvgDoc(dwg.tostring(), pw, ph)
