"""Print a stage at true scale over numbered pages that tape together.

The map (tiles only, 1 SVG unit = 1 mm of paper) is cut into a grid of page *windows*:
each window is the paper less its margins, and neighbouring windows share an overlap
strip of ``overlap`` mm, so the pieces can be glued over each other. Portrait or
landscape, and the grid shifted by sixths of a page: whichever prints fewest pages.

Which pages are printed
-----------------------
A page is printed only where it holds *road*: the road's spaces (shortcut islands
included), not bare hex corners, tile labels or scenery; tokens on the tiles are shown
whole too (a page holding one and little road is still a sliver). With
``scenery=True`` the middle of each tile beside the road (scenery, service areas)
earns pages too. A page's
*own part* is its window less the strips it shares with its grid neighbours; a page
with nothing in its own part is left out when the pages around it already show all of
its road in their overlap. Road is never lost: every part of every space lies in some
printed window. A page whose own part holds less than :func:`min_road_area` (one tenth
of the tile size, squared: 576 mm² for 240 mm tiles, about half a space) is a *sliver*;
the grid is chosen to print none where it can (a sliver costs as much as two pages).

Numbers
-------
The overview (assembly plan, tile pull list, title block) is page 1; map pages are
numbered 2..N in reading order, the order of the PDF. Each page carries its number and
grid place (row letter, column number), the numbers of its neighbours, a frame with
corner crop marks, dashed lines where the neighbours' windows begin, registration marks
(⊕) in the overlap strips that land on the same spot of both pages, and a 100 mm scale
bar to check that the printer did not scale.

Examples
--------
>>> plan = plan_pages(Box(0, 0, 500, 250), None, paper="a4", overlap=10)
>>> plan.landscape, plan.cols, plan.rows, [c.number for c in plan.printed], plan.pages
(False, 3, 1, [2, 3, 4], 4)
>>> plan.cells[1].window.x - plan.cells[0].window.x == plan.window_w - 10
True
>>> min_road_area(240.0)
576.0
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import svgwrite
from svgwrite.container import Group

from trackkit import hexgrid
from trackkit.assemble import Layout, PlacedTile
from trackkit.geometry import (
    ROAD_WIDTH_RATIO,
    centre_line,
    local_polygon,
    space_polygon,
    to_world,
)
from trackkit.render.convert import SvgDoc, svg_to_pdf
from trackkit.render.draw import TileArt, clean_text, fmt, mark_spots
from trackkit.render.gt import gt_mark_spots, piece_outline, road_lines, tile_layers
from trackkit.render.svg import (
    Box,
    card_size,
    draw_card,
    hex_box,
    new_drawing,
    stage_arts,
    tile_extent,
)
from trackkit.render.theme import Theme, make_theme
from trackkit.validate import Report
from trackkit.words import plural

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
    "min_road_area",
    "own_part",
    "plan_box",
    "plan_pages",
    "print_pages",
    "pull_list",
    "road_shapes",
    "token_footprints",
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
#: Areas below this (mm²) are rounding noise, not content.
_NOISE_MM2 = 1e-3


def min_road_area(size: float) -> float:
    """The least road (mm²) a map page's own part should hold: ``(size / 10)²``.

    About half a space: 576 mm² for tiles of 240 mm, 144 mm² for tiles of 120 mm.
    """
    return (size / 10.0) ** 2


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
    """Page number in the PDF, from 2 (the overview is page 1), or None: not printed."""
    content: float = 0.0
    """Road (mm²; with scenery, the middle of scenery tiles too) in the cell's own part."""

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
    min_content: float = 0.0
    """Pages whose own part holds less content than this (mm²) are slivers."""

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
        """Cells that become map pages, in page order."""
        return [c for c in self.cells if c.number is not None]

    @property
    def pages(self) -> int:
        """Pages of the whole print: the overview and the map pages."""
        return 1 + len(self.printed)

    @property
    def slivers(self) -> list[Cell]:
        """Printed cells whose own part holds less than :attr:`min_content`."""
        return [c for c in self.printed if c.content < self.min_content]

    def cell(self, row: int, col: int) -> Cell | None:
        """The cell at a grid place, or None outside the grid."""
        if 0 <= row < self.rows and 0 <= col < self.cols:
            return self.cells[row * self.cols + col]
        return None


def own_part(plan: PagePlan, cell: Cell) -> Box:
    """The part of ``cell``'s window that no neighbouring window of the grid overlaps."""
    o, w = plan.overlap, cell.window
    left = o if cell.col > 0 else 0.0
    right = o if cell.col < plan.cols - 1 else 0.0
    top = o if cell.row > 0 else 0.0
    bottom = o if cell.row < plan.rows - 1 else 0.0
    return Box(w.x + left, w.y + top, w.w - left - right, w.h - top - bottom)


def grid_count(length: float, window: float, overlap: float) -> int:
    """Pages needed along one axis: windows of ``window`` mm overlapping by ``overlap`` mm.

    >>> grid_count(190, 190, 10), grid_count(191, 190, 10), grid_count(370, 190, 10)
    (1, 2, 2)
    """
    step = window - overlap
    return max(1, math.ceil((length - overlap) / step - 1e-9))


class _Content:
    """What pages must show, as small shapes in an R-tree (fast areas under many boxes)."""

    def __init__(self, shapes: Sequence[Any]) -> None:
        from shapely import STRtree

        self.tree = STRtree([s for s in shapes if not s.is_empty])

    def hits(self, boxes: Any) -> list[bool]:
        """Whether any content meets each of ``boxes`` (an array of shapely boxes)."""
        out = [False] * len(boxes)
        for i in self.tree.query(boxes, predicate="intersects")[0].tolist():
            out[i] = True
        return out

    def areas(self, boxes: Any) -> list[float]:
        """Content area (mm²) under each of ``boxes`` (an array of shapely boxes)."""
        import shapely

        out = [0.0] * len(boxes)
        pairs = self.tree.query(boxes, predicate="intersects")
        if pairs.shape[1]:
            parts = shapely.intersection(self.tree.geometries.take(pairs[1]), boxes.take(pairs[0]))
            for i, area in zip(pairs[0].tolist(), shapely.area(parts).tolist(), strict=True):
                out[i] += area
        return out

    def clip(self, box: Any) -> Any:
        """The content inside ``box``, as one geometry."""
        import shapely

        found = self.tree.query(box, predicate="intersects")
        return shapely.union_all(shapely.intersection(self.tree.geometries.take(found), box))


def _plan(
    extent: Box,
    content: _Content | None,
    *,
    paper: str,
    landscape: bool,
    overlap: float,
    margins: Margins,
    shift: tuple[float, float] = (0.0, 0.0),
    min_content: float = 0.0,
    measure: _Content | None = None,
) -> PagePlan:
    """The grid for one orientation; ``shift`` (share of a step) moves it up and left.

    Pages print ``content``; a page's own part is weighed (slivers) by ``measure``
    (default: the content itself).
    """
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
    windows = [Box(x0 + c * sx, y0 + r * sy, ww, wh) for r in range(rows) for c in range(cols)]
    bare = PagePlan(
        paper,
        w,
        h,
        landscape,
        overlap,
        margins,
        cols,
        rows,
        tuple(Cell(*divmod(i, cols), win, None) for i, win in enumerate(windows)),
    )
    if content is None:
        used = [True] * len(windows)
        own = [0.0] * len(windows)
    else:
        seen = [i for i, hit in enumerate(content.hits(shapely.box(*_columns(windows)))) if hit]
        own = [0.0] * len(windows)
        owns = shapely.box(*_columns([own_part(bare, bare.cells[i]) for i in seen]))
        for i, area in zip(seen, content.areas(owns), strict=True):
            own[i] = area
        used = [a > _NOISE_MM2 for a in own]
        _cover(content, windows, used, seen)
        if measure is not None:
            for i, area in zip(seen, measure.areas(owns), strict=True):
                own[i] = area
    cells: list[Cell] = []
    number = 1  # the overview is page 1
    for i, cell in enumerate(bare.cells):
        if used[i]:
            number += 1
        cells.append(Cell(cell.row, cell.col, cell.window, number if used[i] else None, own[i]))
    return PagePlan(paper, w, h, landscape, overlap, margins, cols, rows, tuple(cells), min_content)


def _columns(boxes: Sequence[Box]) -> tuple[list[float], list[float], list[float], list[float]]:
    return (
        [b.x for b in boxes],
        [b.y for b in boxes],
        [b.right for b in boxes],
        [b.bottom for b in boxes],
    )


def _cover(content: _Content, windows: Sequence[Box], used: list[bool], seen: list[int]) -> None:
    """Print more pages (in ``used``) until every part of the content is in a printed window.

    The pages printed so far hold content in their own parts; what the others show lies
    only in overlap strips, so it is mostly shown already. What is not is covered
    greedily, the page showing most of it first.
    """
    import shapely

    def shape(i: int) -> Any:
        b = windows[i]
        return shapely.box(b.x, b.y, b.right, b.bottom)

    spare = [i for i in seen if not used[i]]
    if not spare:
        return
    printed = shapely.union_all([shape(i) for i in range(len(windows)) if used[i]])
    missing = shapely.union_all([content.clip(shape(i)) for i in spare]).difference(printed)
    while missing.area > _NOISE_MM2 and spare:
        best = max(spare, key=lambda i: (missing.intersection(shape(i)).area, -i))
        spare.remove(best)
        used[best] = True
        missing = missing.difference(shape(best))


def plan_pages(
    extent: Box,
    footprints: Sequence[Any] | None,
    *,
    paper: str = "a4",
    overlap: float = DEFAULT_OVERLAP_MM,
    margins: Margins = MARGINS,
    min_content: float = 0.0,
    weighed: Sequence[Any] | None = None,
) -> PagePlan:
    """Cut ``extent`` into pages, portrait or landscape, whichever prints fewer pages.

    Parameters
    ----------
    extent : Box
        The part of the map to print (mm).
    footprints : sequence or None
        Shapes of what earns pages (shapely geometries or :class:`Box` es): pages are
        printed only to show them, and the grid is shifted by sixths of a page to need
        fewer. None: every page of the centred grid is printed.
    paper : str
        ``a4``, ``letter`` or ``a3``.
    overlap : float
        Strip shared by neighbouring pages, in mm.
    min_content : float
        A page with less of the footprints than this (mm²) in its own part is a sliver:
        grids that print slivers are avoided (a sliver counts as two pages).
    weighed : sequence, optional
        What a page's own part is weighed by, if not all the footprints (the road
        without the tokens: a page holding a token and little road is a sliver too).

    Raises
    ------
    ValueError
        For an unknown paper, an overlap too wide for the paper, or an absurd grid.
    """
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {', '.join(PAPERS)}")
    if overlap < 0:
        raise ValueError("the overlap cannot be negative")
    content = measure = None
    shifts = [(0.0, 0.0)]
    if footprints is not None:
        content = _Content([_as_shape(f) for f in footprints])
        if weighed is not None:
            measure = _Content([_as_shape(f) for f in weighed])
        shifts += [(a / 6, b / 6) for a in range(6) for b in range(6) if a or b]
    plans = [
        _plan(
            extent,
            content,
            paper=paper,
            landscape=landscape,
            overlap=overlap,
            margins=margins,
            shift=shift,
            min_content=min_content,
            measure=measure,
        )
        for landscape in (False, True)
        for shift in shifts
    ]
    return min(
        plans,
        key=lambda p: (
            len(p.printed) + len(p.slivers),
            len(p.slivers),
            p.cols * p.rows,
            p.landscape,
        ),
    )


def _as_shape(footprint: Any) -> Any:
    if isinstance(footprint, Box):
        from shapely.geometry import box as shapely_box

        return shapely_box(footprint.x, footprint.y, footprint.right, footprint.bottom)
    return footprint


_ROADS: dict[tuple[str, str, int, float], Any] = {}


def _local_road(tile: PlacedTile, size: float) -> Any:
    """Every space of a tile's road as one shape, in the tile's frame (cached per face)."""
    from shapely.ops import unary_union

    road = tile.road
    assert road is not None
    key = (road.face.id, road.road_id, road.entry, size)
    if key not in _ROADS:
        shape = unary_union([space_polygon(road, s, size) for s in road.spaces.values()])
        _ROADS[key] = shape
    return _ROADS[key]


def road_shapes(layout: Layout) -> list[Any]:
    """The road of each tile on the map (world mm): every space, shortcut islands included.

    Tiles the road does not run through (``layout.undriven``) are on the map too.
    """
    from shapely import affinity

    size = layout.size
    out = []
    for tile in [*layout.chain, *layout.undriven]:
        face = tile.face
        if face is not None and face.layout is not None:
            if tile.visit_of is not None:
                continue  # a GT piece driven twice: its roads are all there at the first visit
            shape = piece_outline(face, size)  # every road printed on the piece
        elif tile.road is None:
            continue
        else:
            shape = _local_road(tile, size)
        cx, cy = hexgrid.centre_mm(tile.hex, size)
        a = math.radians(60 * tile.rotation)
        c, s = math.cos(a), math.sin(a)
        out.append(affinity.affine_transform(shape, [c, -s, s, c, cx, cy]))
    return out


def content_footprints(layout: Layout, *, scenery: bool = False) -> list[Any]:
    """What earns a print page (world mm): the road of every tile (all its spaces).

    Also the middle of chain tiles without a road (unknown tiles) and, with
    ``scenery``, of the tiles beside the road: a page holding only bare hex corners,
    tile labels or (by default) scenery is not worth a sheet of paper.
    """
    from shapely.geometry import Point

    size = layout.size
    middles = [
        t
        for t in [*layout.chain, *layout.undriven]
        if t.road is None and (t.face is None or t.face.layout is None)
    ]
    if scenery:
        middles += layout.scenery
    return road_shapes(layout) + [
        Point(hexgrid.centre_mm(t.hex, size)).buffer(0.45 * size) for t in middles
    ]


def token_footprints(layout: Layout) -> list[Any]:
    """The tokens placed on the tiles (world mm): rules pieces, so a print shows them
    whole; a page that holds one but little road is still a sliver."""
    from shapely.geometry import Point

    size = layout.size
    out = []
    for tile in layout.tiles:
        if not tile.tokens:
            continue
        centre = hexgrid.centre_mm(tile.hex, size)
        if tile.face is not None and tile.face.layout is not None:
            spots = gt_mark_spots(tile.face, tile.tokens, size)
        else:
            road = tile.road if tile.road is not None and tile.road.series == "dirt" else None
            spots = mark_spots(road, danger=False, tokens=len(tile.tokens), size=size)
        for at, radius in spots:
            out.append(Point(to_world(at, centre=centre, rotation=tile.rotation)).buffer(radius))
    return out


def pull_list(layout: Layout) -> dict[str, list[tuple[str, int]]]:
    """The faces to take out of the boxes, by box: ``{box: [(face id, copies), ...]}``.

    Both faces of a piece are one piece, so a piece whose two faces are both used is
    needed twice. Boxes in name order, faces by piece number; tiles missing from the
    library are listed under the box ``""``, last.

    >>> from trackkit.assemble import lay_out
    >>> from trackkit.models import Stage
    >>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
    ...     {"tile": "202a"}, {"tile": "205a"}, {"tile": "205a"}, {"tile": "203a"}]})
    >>> pull_list(lay_out(stage))
    {'dirt-core': [('202a', 1), ('203a', 1), ('205a', 2)]}
    """
    counts: Counter[tuple[str, int, str]] = Counter()
    for tile in layout.tiles:
        face = tile.face
        counts[(face.box, face.number, face.id) if face else ("", 0, tile.raw_id)] += 1
    out: dict[str, list[tuple[str, int]]] = {}
    for box, _number, face_id in sorted(counts, key=lambda k: (k[0] == "", k)):
        out.setdefault(box, []).append((face_id, counts[(box, _number, face_id)]))
    return out


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
    name = str(report.summary.get("name") or "Untitled stage")
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
        first, *rest = tile_layers(factory, arts[i], size=size)
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
    tiles: Sequence[Group],
) -> SvgDoc:
    """One map page, stand-alone: its ``tiles`` clipped to the window, and the page marks."""
    m = plan.margins
    ww, wh, o = plan.window_w, plan.window_h, plan.overlap
    total = plan.pages
    number = cell.number or 0
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
                dwg.text(
                    label,
                    insert=(0, fmt(0.36 * fs)),
                    font_size=fmt(fs),
                    text_anchor="middle",
                    class_="neighbour",
                )
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
                    class_="neighbour",
                )
            )
    if crosses:
        marks.add(_register(dwg, crosses, min(3.0, o / 2 + 1), theme))
    marks.add(
        dwg.text(
            _page_label(number, total, cell.name),
            insert=(fmt(left + ww / 2), fmt(top - 5.5)),
            font_size="3.6",
            text_anchor="middle",
            class_="title page-number",
            font_weight="bold",
        )
    )
    return SvgDoc(dwg.tostring(), plan.page_w, plan.page_h)


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
    dwg: svgwrite.Drawing, parent: Any, plan: PagePlan, name: str, size: float, theme: Theme
) -> None:
    """What every page shows: frame, crop marks, stage name, paper note, scale bar."""
    m = plan.margins
    box = Box(m.left, m.top, plan.window_w, plan.window_h)
    # The name stands left of the page number, which is centred over the frame: it gets the
    # room up to the widest page number's left end.
    widest = max(
        (_page_label(c.number or 0, len(plan.printed) + 1, c.name) for c in plan.printed),
        key=len,
        default="",
    )
    room = box.w / 2 - len(widest) * _CHAR_WIDTH * 3.6 / 2 - 3.0
    parent.add(
        dwg.text(
            _fits(name, room, 3.6),
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


def _overview(
    report: Report, layout: Layout, plan: PagePlan, *, theme: Theme, skipped_scenery: int = 0
) -> SvgDoc:
    """Page 1: instructions, a small map under the page grid, the pull list, the title card.

    It is portrait or landscape, whichever shows the small map larger.
    """
    m = plan.margins
    grid = plan_box(plan)
    pw, ph = PAPERS[plan.paper]
    card_w0, card_h0 = card_size(report.summary, report)
    top_h, card_share = 40.0, card_h0 / card_w0
    pulls = pull_list(layout)
    boxes = report.summary.get("boxes") or {}

    def fit(w: float, h: float) -> tuple[float, float, float]:
        """Map scale, pull list height and card width on paper of ``w`` x ``h``."""
        width = w - m.left - m.right
        card_w = min(width, 200.0)
        pull_h = _pull_lines(pulls, boxes, width)[1]
        free = h - m.top - m.bottom - top_h - card_w * card_share - pull_h - 8
        return min(width / grid.w, free / grid.h), pull_h, card_w

    if fit(ph, pw)[0] > fit(pw, ph)[0]:
        pw, ph = ph, pw
    card_w = fit(pw, ph)[2]
    name = str(report.summary.get("name") or "Untitled stage")
    total = plan.pages
    printed = len(plan.printed)
    dwg = new_drawing(
        Box(0, 0, pw, ph),
        theme,
        title=f"{name}: page 1 of {total}, how the pages assemble",
        desc=f"Page 1 of {total}: {plural(printed, 'map page')} of {plan.paper}, "
        f"{plan.cols} x {plan.rows} grid",
    )
    width = pw - m.left - m.right
    y = m.top + 2
    tail = " — assembly plan"
    title_char = 0.7 * 6  # the title is set large and bold
    room = width - len(f"page 1 of {total}") * _CHAR_WIDTH * 3.6 - 6.0 - len(tail) * title_char
    dwg.add(
        dwg.text(
            _fits(name, room, title_char / _CHAR_WIDTH) + tail,
            insert=(fmt(m.left), fmt(y)),
            font_size="6",
            class_="title",
        )
    )
    dwg.add(
        dwg.text(
            f"page 1 of {total}",
            insert=(fmt(pw - m.right), fmt(y)),
            font_size="3.6",
            text_anchor="end",
            class_="title page-number",
        )
    )
    pages = f"pages 2–{total}" if printed > 1 else "page 2"
    lines = [
        f"This page, then {plural(printed, 'map page')} ({pages}) of {plan.paper.upper()} "
        f"{'landscape' if plan.landscape else 'portrait'} from a grid of "
        f"{plan.cols} × {plan.rows}; tiles {layout.size:g} mm; overlap {plan.overlap:g} mm.",
        "1. Print at 100 % (actual size, not 'fit to page'): the bar on each page must "
        "measure 100 mm.",
        "2. Cut each page along its frame on the left and top sides.",
        "3. Lay it over its left and upper neighbours, ⊕ marks on ⊕ marks, and tape.",
        "Grid cells without a number are not printed: no road lies there"
        + (
            f" ({plural(skipped_scenery, 'tile')} beside the road are shown only on road pages)."
            if skipped_scenery
            else "."
        ),
    ]
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
    # Room above and left of the small map for the grid's column numbers and row letters.
    area = Box(m.left + 4, y + 4, width - 8, pull_y - 4 - (y + 4))
    k = min(area.w / grid.w, area.h / grid.h)
    ox = area.x + (area.w - grid.w * k) / 2 - grid.x * k
    oy = area.y + (area.h - grid.h * k) / 2 - grid.y * k
    mini = dwg.add(
        dwg.g(id="overview-map", transform=f"translate({fmt(ox)},{fmt(oy)}) scale({k:.5f})")
    )
    size = layout.size
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
    dwg.add(_draw_pull_list(dwg, pull_lines, (m.left, pull_y)))
    dwg.add(draw_card(dwg, report.summary, report, at=card_box, scale=card_k))
    return SvgDoc(dwg.tostring(), pw, ph)
