"""Print a stage at true scale over numbered pages that tape together.

The map (tiles only, 1 SVG unit = 1 mm of paper) is cut into a grid of page *windows*:
each window is the paper less its margins, and neighbouring windows share an overlap
strip of ``overlap`` mm, so the pieces can be glued over each other. Pages on which no
tile falls are left out (the overview shows them as dashed cells). Portrait or
landscape: whichever needs fewer pages.

Each page carries its number and grid place (row letter, column number), the numbers
of its neighbours, a frame with corner crop marks, dashed lines where the neighbours'
windows begin, registration marks (⊕) in the overlap strips that land on the same spot
of both pages, and a 100 mm scale bar to check that the printer did not scale.

Examples
--------
>>> plan = plan_pages(Box(0, 0, 500, 250), None, paper="a4", overlap=10)
>>> plan.landscape, plan.cols, plan.rows, len(plan.printed)
(False, 3, 1, 3)
>>> plan.cells[1].window.x - plan.cells[0].window.x == plan.window_w - 10
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import svgwrite
from svgwrite.container import Group

from trackkit import hexgrid
from trackkit.assemble import Layout
from trackkit.geometry import ROAD_WIDTH_RATIO, centre_line, to_world
from trackkit.render.convert import SvgDoc, Window, svg_to_pdf
from trackkit.render.draw import LABEL_AT, TOKENS_AT, clean_text, draw_tile, fmt, free_corners
from trackkit.render.svg import (
    CARD_SIZE,
    Box,
    desc_text,
    draw_card,
    hex_box,
    new_drawing,
    stage_arts,
    tile_extent,
)
from trackkit.render.theme import Theme, make_theme
from trackkit.validate import Report

__all__ = [
    "DEFAULT_OVERLAP_MM",
    "MARGINS",
    "MAX_PAGES",
    "PAPERS",
    "Cell",
    "Margins",
    "PagePlan",
    "PrintJob",
    "content_footprints",
    "grid_count",
    "plan_box",
    "plan_pages",
    "print_pages",
]

#: Paper sizes in millimetres, portrait.
PAPERS: dict[str, tuple[float, float]] = {
    "a4": (210.0, 297.0),
    "letter": (215.9, 279.4),
    "a3": (297.0, 420.0),
}
#: Overlap between neighbouring pages, in millimetres.
DEFAULT_OVERLAP_MM = 10.0
#: A print job larger than this is refused (use a smaller tile size or larger paper).
MAX_PAGES = 500


@dataclass(frozen=True, slots=True)
class Margins:
    """Paper margins around the map window, in millimetres (printers cannot print edges)."""

    left: float = 8.0
    right: float = 8.0
    top: float = 12.0
    bottom: float = 17.0


MARGINS = Margins()


@dataclass(frozen=True, slots=True)
class Cell:
    """One place of the page grid: the map window it shows and its page number."""

    row: int
    col: int
    window: Box
    number: int | None
    """Page number from 1, or None: no tile falls on it, so it is not printed."""

    @property
    def name(self) -> str:
        """Grid place: row letter and column number, e.g. ``B3``."""
        return _row_name(self.row) + str(self.col + 1)


def _row_name(row: int) -> str:
    name = ""
    row += 1
    while row:
        row, rest = divmod(row - 1, 26)
        name = chr(65 + rest) + name
    return name


@dataclass(frozen=True, slots=True)
class PagePlan:
    """How the map is cut into pages."""

    paper: str
    page_w: float
    page_h: float
    landscape: bool
    overlap: float
    margins: Margins
    cols: int
    rows: int
    cells: tuple[Cell, ...]

    @property
    def window_w(self) -> float:
        """Width of the map window of a page."""
        return self.page_w - self.margins.left - self.margins.right

    @property
    def window_h(self) -> float:
        """Height of the map window of a page."""
        return self.page_h - self.margins.top - self.margins.bottom

    @property
    def printed(self) -> list[Cell]:
        """Cells that become pages, in page order."""
        return [c for c in self.cells if c.number is not None]

    def cell(self, row: int, col: int) -> Cell | None:
        """The cell at a grid place, or None outside the grid."""
        if 0 <= row < self.rows and 0 <= col < self.cols:
            return self.cells[row * self.cols + col]
        return None


def grid_count(length: float, window: float, overlap: float) -> int:
    """Pages needed along one axis: windows of ``window`` mm overlapping by ``overlap`` mm.

    >>> grid_count(190, 190, 10), grid_count(191, 190, 10), grid_count(370, 190, 10)
    (1, 2, 2)
    """
    step = window - overlap
    return max(1, math.ceil((length - overlap) / step - 1e-9))


def _plan(
    extent: Box,
    content: Any,
    *,
    paper: str,
    landscape: bool,
    overlap: float,
    margins: Margins,
    shift: tuple[float, float] = (0.0, 0.0),
) -> PagePlan:
    """The grid for one orientation; ``shift`` (share of a step) moves it up and left."""
    import shapely

    w, h = PAPERS[paper]
    if landscape:
        w, h = h, w
    ww, wh = w - margins.left - margins.right, h - margins.top - margins.bottom
    if overlap * 2 >= min(ww, wh):
        raise ValueError(f"an overlap of {overlap:g} mm leaves no room on {paper} paper")
    sx, sy = ww - overlap, wh - overlap
    dx, dy = shift[0] * sx, shift[1] * sy
    cols = grid_count(extent.w + dx, ww, overlap)
    rows = grid_count(extent.h + dy, wh, overlap)
    if cols * rows > 20 * MAX_PAGES:
        raise ValueError(
            f"the map needs a grid of {cols} x {rows} pages of {paper}: "
            "use a smaller --tile-size or larger paper"
        )
    if shift == (0.0, 0.0):  # centre the grid: the spare paper is shared by both sides
        x0 = extent.x - (cols * sx + overlap - extent.w) / 2
        y0 = extent.y - (rows * sy + overlap - extent.h) / 2
    else:
        x0, y0 = extent.x - dx, extent.y - dy
    # Content is needed on a page if it lies where no later page shows it: up to the
    # next window, or to the far edge on the last row and column.
    places = [divmod(i, cols) for i in range(rows * cols)]
    xa = [x0 + c * sx for _, c in places]
    ya = [y0 + r * sy for r, _ in places]
    xb = [x + (ww if c == cols - 1 else sx) for x, (_, c) in zip(xa, places, strict=True)]
    yb = [y + (wh if r == rows - 1 else sy) for y, (r, _) in zip(ya, places, strict=True)]
    if content is None:
        used = [True] * len(places)
    else:
        used = list(shapely.intersects(content, shapely.box(xa, ya, xb, yb)))
    cells: list[Cell] = []
    number = 0
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        if used[i]:
            number += 1
        window = Box(x0 + c * sx, y0 + r * sy, ww, wh)
        cells.append(Cell(r, c, window, number if used[i] else None))
    return PagePlan(paper, w, h, landscape, overlap, margins, cols, rows, tuple(cells))


def plan_pages(
    extent: Box,
    footprints: Sequence[Any] | None,
    *,
    paper: str = "a4",
    overlap: float = DEFAULT_OVERLAP_MM,
    margins: Margins = MARGINS,
) -> PagePlan:
    """Cut ``extent`` into pages, portrait or landscape, whichever prints fewer pages.

    Parameters
    ----------
    extent : Box
        The part of the map to print (mm).
    footprints : sequence or None
        Shapes of what must be printed (shapely geometries or :class:`Box` es). Pages
        that show none of them are left out, and the grid is shifted by thirds of a page
        to need fewer pages. None: every page of the centred grid is printed.
    paper : str
        ``a4``, ``letter`` or ``a3``.
    overlap : float
        Strip shared by neighbouring pages, in mm.

    Raises
    ------
    ValueError
        For an unknown paper, an overlap too wide for the paper, or an absurd grid.
    """
    import shapely
    from shapely.ops import unary_union

    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {', '.join(PAPERS)}")
    if overlap < 0:
        raise ValueError("the overlap cannot be negative")
    content = None
    shifts = [(0.0, 0.0)]
    if footprints is not None:
        content = unary_union([_as_shape(f) for f in footprints])
        shapely.prepare(content)
        shifts += [(a / 3, b / 3) for a in range(3) for b in range(3) if a or b]
    plans = [
        _plan(
            extent,
            content,
            paper=paper,
            landscape=landscape,
            overlap=overlap,
            margins=margins,
            shift=shift,
        )
        for landscape in (False, True)
        for shift in shifts
    ]
    return min(plans, key=lambda p: (len(p.printed), p.cols * p.rows, p.landscape))


def _as_shape(footprint: Any) -> Any:
    if isinstance(footprint, Box):
        from shapely.geometry import box as shapely_box

        return shapely_box(footprint.x, footprint.y, footprint.right, footprint.bottom)
    return footprint


def content_footprints(layout: Layout) -> list[Any]:
    """What a print must show of each tile (world mm): the road with its roadside marks,
    the tile label and tokens; for tiles without a road, the middle of the hex.

    Bare hex corners are not worth a sheet of paper on their own.
    """
    from shapely.geometry import LineString, Point

    size = layout.size
    reach = ROAD_WIDTH_RATIO * size / 2 + 0.11 * size  # kerbs and START/FINISH labels
    out: list[Any] = []
    for tile in layout.tiles:
        centre = hexgrid.centre_mm(tile.hex, size)
        if tile.road is None:
            out.append(Point(centre).buffer(0.45 * size))
            continue
        pts = centre_line(tile.road, size).points[::3]
        world = [to_world(p, centre=centre, rotation=tile.rotation) for p in pts]
        out.append(LineString(world).buffer(reach))
        corners = free_corners(tile.road, size)
        spots = [(corners[0], LABEL_AT, 0.16 * size)]
        if tile.tokens:
            spots.append((corners[1], TOKENS_AT, 0.06 * size * (len(tile.tokens) + 1)))
        for corner, share, radius in spots:
            local = (corner[0] * share, corner[1] * share)
            out.append(Point(to_world(local, centre=centre, rotation=tile.rotation)).buffer(radius))
    return out


# --- drawing the pages --------------------------------------------------------------------


@dataclass(slots=True)
class PrintJob:
    """A print: the assembly overview and the numbered true-scale map pages.

    The map is drawn once (``map_doc``, the whole page grid); each page adds its marks
    (``marks``) and shows the map through its window. :meth:`svg_pages` makes stand-alone
    page SVGs; :meth:`pdf` one PDF that holds the map once.
    """

    plan: PagePlan
    overview: SvgDoc
    map_doc: SvgDoc
    frame_doc: SvgDoc
    """What every page has: frame, crop marks, scale bar (drawn once in a PDF)."""
    marks: list[SvgDoc]
    """What differs between pages: number, neighbours, overlap lines, ⊕ marks."""
    windows: list[Window]
    _tiles: list[tuple[Box, Group]]
    _theme: Theme
    _name: str
    _size: float

    def svg_pages(self) -> list[SvgDoc]:
        """Each map page as a stand-alone SVG (its tiles clipped to the window)."""
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
        """Every page in one PDF: the overview, then pages 1..N."""
        frame = Window(0, 0, 0, 0, self.plan.page_w, self.plan.page_h, backdrop=1)
        pages: list[SvgDoc | tuple[SvgDoc, Sequence[Window]]] = [self.overview]
        pages += [(doc, (w, frame)) for doc, w in zip(self.marks, self.windows, strict=True)]
        return svg_to_pdf(pages, backdrops=(self.map_doc, self.frame_doc))


def print_pages(
    report: Report,
    layout: Layout,
    *,
    paper: str = "a4",
    overlap: float = DEFAULT_OVERLAP_MM,
    theme: Theme | None = None,
    all_pages: bool = False,
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
        Print every page of the grid, even those no tile content falls on.

    Raises
    ------
    ValueError
        If the paper is unknown, the overlap does not fit, or more than
        :data:`MAX_PAGES` pages would be needed.
    """
    theme = theme or make_theme()
    size = layout.size
    extent = tile_extent(layout)
    plan = plan_pages(
        extent, None if all_pages else content_footprints(layout), paper=paper, overlap=overlap
    )
    total = len(plan.printed)
    if total > MAX_PAGES:
        raise ValueError(
            f"this print needs {total} pages of {paper}: over {MAX_PAGES}; "
            "use a smaller --tile-size or larger paper"
        )
    name = str(report.summary.get("name") or "Untitled stage")
    factory = svgwrite.Drawing(debug=False)
    arts = stage_arts(layout, report.graph)
    boxes = [hex_box(t, size) for t in [*layout.chain, *layout.scenery]]  # arts' order
    order = sorted(range(len(arts)), key=lambda i: "scenery" not in arts[i].classes)
    tiles = [(boxes[i], draw_tile(factory, arts[i], size=size)) for i in order]

    grid = plan_box(plan)
    dwg = new_drawing(grid, theme, title=name, desc=desc_text(report), parts=("base", "map"))
    whole = dwg.add(dwg.g(id="map"))
    for _box, g in tiles:
        whole.add(g)
    map_doc = SvgDoc(dwg.tostring(), grid.w, grid.h)

    m = plan.margins
    frame = new_drawing(Box(0, 0, plan.page_w, plan.page_h), theme, parts=(), symbols=False)
    _frame_marks(frame, frame.add(frame.g(font_family=theme["font"])), plan, name, size, theme)
    frame_doc = SvgDoc(frame.tostring(), plan.page_w, plan.page_h)
    marks, windows = [], []
    for cell in plan.printed:
        marks.append(_page(plan, cell, name=name, size=size, theme=theme, tiles=None))
        windows.append(
            Window(
                cell.window.x - grid.x,
                cell.window.y - grid.y,
                m.left,
                m.top,
                plan.window_w,
                plan.window_h,
            )
        )
    overview = _overview(report, layout, plan, theme=theme)
    return PrintJob(plan, overview, map_doc, frame_doc, marks, windows, tiles, theme, name, size)


def plan_box(plan: PagePlan) -> Box:
    """The map area the whole page grid covers."""
    first = plan.cells[0].window
    return Box(
        first.x,
        first.y,
        plan.cols * (plan.window_w - plan.overlap) + plan.overlap,
        plan.rows * (plan.window_h - plan.overlap) + plan.overlap,
    )


def _page(
    plan: PagePlan,
    cell: Cell,
    *,
    name: str,
    size: float,
    theme: Theme,
    tiles: Sequence[Group] | None,
) -> SvgDoc:
    """One map page, stand-alone with its ``tiles``; or, without them, only what differs
    between pages (the map and the frame then come from shared PDF backdrops)."""
    m = plan.margins
    ww, wh, o = plan.window_w, plan.window_h, plan.overlap
    total = len(plan.printed)
    number = cell.number or 0
    with_map = tiles is not None
    dwg = new_drawing(
        Box(0, 0, plan.page_w, plan.page_h),
        theme,
        title=f"{name}: page {number} of {total}",
        desc=f"Page {number} of {total} ({cell.name}), true scale, tiles {size:g} mm",
        parts=("base", "map") if with_map else (),
        symbols=with_map,
    )
    if tiles is not None:
        clip = dwg.defs.add(dwg.clipPath(id="window"))
        clip.add(dwg.rect((fmt(m.left), fmt(m.top)), (fmt(ww), fmt(wh))))
        holder = dwg.add(dwg.g(id="map", clip_path="url(#window)"))
        inner = holder.add(
            dwg.g(
                transform=f"translate({fmt(m.left - cell.window.x)},{fmt(m.top - cell.window.y)})"
            )
        )
        for g in tiles:
            inner.add(g)

    # Marks carry their colours as attributes: a page of marks alone then needs no
    # style block, which makes converting dozens of pages much faster.
    marks = dwg.add(dwg.g(id="page-marks", font_family=theme["font"], fill=theme["text"]))
    if with_map:
        _frame_marks(dwg, marks, plan, name, size, theme)
    glue = _look(theme, "glue")
    crosses: list[tuple[float, float]] = []
    left, top, right, bottom = m.left, m.top, m.left + ww, m.top + wh
    neighbours = {
        "up": plan.cell(cell.row - 1, cell.col),
        "down": plan.cell(cell.row + 1, cell.col),
        "left": plan.cell(cell.row, cell.col - 1),
        "right": plan.cell(cell.row, cell.col + 1),
    }
    fs = 3.0
    for side, other in neighbours.items():
        if other is None or other.number is None:
            continue
        label = f"▲ {other.number} ({other.name})"
        # The dashed line is where the neighbour's window begins; the ⊕ marks sit in
        # the middle of the shared strip, so they print on both pages at the same spot.
        if side in ("left", "right"):
            x = left + o if side == "left" else right - o
            mid = left + o / 2 if side == "left" else right - o / 2
            marks.add(dwg.line((fmt(x), fmt(top)), (fmt(x), fmt(bottom)), **glue))
            crosses += [(mid, top + k * wh) for k in (0.25, 0.75)]
            tx = left - m.left / 2 if side == "left" else right + m.right / 2
            turn = -90 if side == "left" else 90
            holder_g = marks.add(
                dwg.g(transform=f"translate({fmt(tx)},{fmt(top + wh / 2)}) rotate({turn})")
            )
            holder_g.add(
                dwg.text(label, insert=(0, fmt(0.36 * fs)), font_size=fmt(fs), text_anchor="middle")
            )
        else:
            y = top + o if side == "up" else bottom - o
            mid = top + o / 2 if side == "up" else bottom - o / 2
            marks.add(dwg.line((fmt(left), fmt(y)), (fmt(right), fmt(y)), **glue))
            crosses += [(left + k * ww, mid) for k in (0.25, 0.75)]
            ty = top - 1.6 if side == "up" else bottom + 4.2
            text = label if side == "up" else label.replace("▲", "▼")
            marks.add(
                dwg.text(
                    text,
                    insert=(fmt(left + ww * 0.75), fmt(ty)),
                    font_size=fmt(fs),
                    text_anchor="middle",
                )
            )
    if crosses:
        marks.add(_register(dwg, crosses, min(3.0, o / 2 + 1), theme))
    marks.add(
        dwg.text(
            f"page {number} of {total} · {cell.name}",
            insert=(fmt(left + ww / 2), fmt(top - 5.5)),
            font_size="3.6",
            text_anchor="middle",
            class_="title",
            font_weight="bold",
        )
    )
    return SvgDoc(dwg.tostring(), plan.page_w, plan.page_h)


def _look(theme: Theme, what: str) -> dict[str, Any]:
    """Presentation attributes of the page marks (class name included, for users' CSS)."""
    looks: dict[str, dict[str, Any]] = {
        "trim": {"stroke": theme["page.trim"], "stroke_width": 0.25},
        "glue": {"stroke": theme["page.trim"], "stroke_width": 0.25, "stroke_dasharray": "2 1.5"},
        "mark": {"stroke": theme["page.mark"], "stroke_width": 0.25},
    }
    return {"class_": what, "fill": "none", **looks[what]}


def _frame_marks(
    dwg: svgwrite.Drawing, parent: Any, plan: PagePlan, name: str, size: float, theme: Theme
) -> None:
    """What every page shows: frame, crop marks, stage name, paper note, scale bar."""
    m = plan.margins
    box = Box(m.left, m.top, plan.window_w, plan.window_h)
    parent.add(
        dwg.text(
            clean_text(name, 45),
            insert=(fmt(box.x), fmt(box.y - 5.5)),
            font_size="3.6",
            class_="title",
            font_weight="bold",
        )
    )
    parent.add(dwg.rect((fmt(box.x), fmt(box.y)), (fmt(box.w), fmt(box.h)), **_look(theme, "trim")))
    _crop_marks(dwg, parent, box, theme)
    parent.add(
        dwg.text(
            f"{plan.paper.upper()} · 1:1 · tiles {size:g} mm",
            insert=(fmt(box.right), fmt(box.y - 5.5)),
            font_size="2.8",
            text_anchor="end",
            class_="muted",
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


def _overview(report: Report, layout: Layout, plan: PagePlan, *, theme: Theme) -> SvgDoc:
    """The assembly page: instructions, a small map under the page grid, the title card.

    It is portrait or landscape, whichever shows the small map larger.
    """
    m = plan.margins
    grid = plan_box(plan)
    pw, ph = PAPERS[plan.paper]
    top_h, card_share = 40.0, CARD_SIZE[1] / CARD_SIZE[0]

    def map_scale(w: float, h: float) -> float:
        width = w - m.left - m.right
        return min(width / grid.w, (h - m.top - m.bottom - top_h - width * card_share) / grid.h)

    if map_scale(ph, pw) > map_scale(pw, ph):
        pw, ph = ph, pw
    name = str(report.summary.get("name") or "Untitled stage")
    total = len(plan.printed)
    dwg = new_drawing(
        Box(0, 0, pw, ph),
        theme,
        title=f"{name}: how the pages assemble",
        desc=f"{total} page(s) of {plan.paper}, {plan.cols} x {plan.rows} grid",
    )
    width = pw - m.left - m.right
    y = m.top + 2
    dwg.add(
        dwg.text(
            clean_text(name, 60) + " — assembly plan",
            insert=(fmt(m.left), fmt(y)),
            font_size="6",
            class_="title",
        )
    )
    lines = [
        f"{total} map page(s) of {plan.paper.upper()} "
        f"{'landscape' if plan.landscape else 'portrait'} from a grid of "
        f"{plan.cols} × {plan.rows}; tiles {layout.size:g} mm; overlap {plan.overlap:g} mm.",
        "1. Print at 100 % (actual size, not 'fit to page'): the bar on each page must "
        "measure 100 mm.",
        "2. Cut each page along its frame on the left and top sides.",
        "3. Lay it over its left and upper neighbours, ⊕ marks on ⊕ marks, and tape.",
        "Parts of the grid without a number are not printed: nothing of the stage is there.",
    ]
    y += 7
    for line in lines:
        dwg.add(dwg.text(line, insert=(fmt(m.left), fmt(y)), font_size="3.1"))
        y += 4.6

    # The title card at the bottom, the map in between.
    card_k = width / CARD_SIZE[0]
    card_h = CARD_SIZE[1] * card_k
    card_box = Box(m.left, ph - m.bottom - card_h, width, card_h)
    area = Box(m.left, y, width, card_box.y - y - 5)
    k = min(area.w / grid.w, area.h / grid.h)
    ox = area.x + (area.w - grid.w * k) / 2 - grid.x * k
    oy = area.y + (area.h - grid.h * k) / 2 - grid.y * k
    mini = dwg.add(
        dwg.g(id="overview-map", transform=f"translate({fmt(ox)},{fmt(oy)}) scale({k:.5f})")
    )
    size = layout.size
    for tile in [*layout.scenery, *layout.chain]:
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
        if tile.road is not None:
            pts = centre_line(tile.road, size).points[::6]
            world = [to_world(p, centre=centre, rotation=tile.rotation) for p in pts]
            t.add(
                dwg.polyline(
                    [(fmt(x), fmt(y)) for x, y in world],
                    class_="overview-road",
                    stroke_width=fmt(ROAD_WIDTH_RATIO * size * 0.35),
                )
            )
    # Only printed cells are drawn (a long stage's grid has hundreds of empty ones);
    # row letters and column numbers along the grid's edges name them.
    step = min(plan.window_w, plan.window_h) - plan.overlap
    fs = 0.3 * step
    cells = mini.add(dwg.g(id="page-grid"))
    thin = {"style": f"stroke-width: {fmt(0.35 / k)}"}
    for cell in plan.printed:
        w = cell.window
        cells.add(
            dwg.rect(
                (fmt(w.x), fmt(w.y)),
                (fmt(w.w), fmt(w.h)),
                class_="cell",
                id=f"cell-{cell.name}",
                **thin,
            )
        )
        cells.add(
            dwg.text(
                str(cell.number),
                insert=(fmt(w.x + w.w / 2), fmt(w.y + w.h / 2 + 0.36 * fs)),
                font_size=fmt(fs),
                text_anchor="middle",
                class_="cell-number",
                fill_opacity="0.75",
            )
        )
    edge: dict[str, Any] = {
        "font_size": fmt(min(fs * 0.5, 3.0 / k)),
        "text_anchor": "middle",
        "class_": "muted",
    }
    for col in range(plan.cols):
        w = plan.cells[col].window
        cells.add(dwg.text(str(col + 1), insert=(fmt(w.x + w.w / 2), fmt(w.y - 0.4 * fs)), **edge))
    for row in range(plan.rows):
        w = plan.cells[row * plan.cols].window
        cells.add(
            dwg.text(_row_name(row), insert=(fmt(w.x - 0.5 * fs), fmt(w.y + w.h / 2)), **edge)
        )
    dwg.add(draw_card(dwg, report.summary, report, at=card_box, scale=card_k))
    return SvgDoc(dwg.tostring(), pw, ph)
