"""Print a stage at true scale over numbered pages that tape together.

The map (tiles only, 1 SVG unit = 1 mm of paper) is cut into page *windows*: each window
is the paper less its margins, and pages that meet share an overlap strip of ``overlap``
mm, so the pieces can be glued over each other.

How the pages are laid out
--------------------------
The map is cut across into *strips* one window high, the strips overlapping by the
overlap: rows of pages (or, where that needs fewer, columns of pages). Each strip is
covered on its own, left to right, with the fewest windows that show all the road in it:
a window starts where the strip's road starts, the next one overlaps it by the overlap
where the road runs on, and a gap in the road starts a new run. Each run is centred on
its road, so the pages of neighbouring rows need not line up (they are glued where they
overlap, ⊕ marks on ⊕ marks). Portrait or landscape, rows or columns, and where the
first strip begins (a few offsets): whichever prints fewest pages. A page that shows no
road which the others do not show is left out.

Which pages are printed
-----------------------
A page is printed only where it holds *road*: the road's spaces (shortcut islands
included), not bare hex corners, tile labels or scenery; tokens on the tiles are shown
whole too (a page holding one and little road is still a sliver). With
``scenery=True`` the middle of each tile beside the road (scenery, service areas)
earns pages too. A page's *own part* is its window less the windows of the other
printed pages (:func:`own_part`). Road is never lost: every part of every space lies in
some printed window. A page whose own part holds less than :func:`min_road_area` (one
tenth of the tile size, squared: 576 mm² for 240 mm tiles, about half a space) is a
*sliver*; the layout is chosen to print none where it can (a sliver costs as much as two
pages). ``all_pages`` prints the plain grid over the whole map instead.

Numbers and names
-----------------
The overview (assembly plan, tile pull list, title block) is page 1; map pages are
numbered 2..N in reading order, the order of the PDF. Each page is named by its place,
in words that no paper size can be mistaken for: ``row 2, 3rd from the left`` (with
columns of pages, ``column 2, 3rd from the top``). Each page carries its number and
name, the numbers of the pages it overlaps, a frame with corner crop marks, dashed lines
where those pages' windows begin, registration marks (⊕) in the shared strips that land
on the same spot of both pages, and a 100 mm scale bar to check that the printer did not
scale.

Examples
--------
>>> plan = plan_pages(Box(0, 0, 500, 250), None, paper="a4", overlap=10)
>>> plan.landscape, plan.strips, [c.number for c in plan.printed], plan.pages
(False, 1, [2, 3, 4], 4)
>>> plan.cells[1].window.x - plan.cells[0].window.x == plan.window_w - 10
True
>>> plan.cells[1].name
'row 1, 2nd from the left'
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
from trackkit.assemble import Layout
from trackkit.geometry import (
    ROAD_WIDTH_RATIO,
    centre_line,
    local_polygon,
    to_world,
)
from trackkit.render.convert import SvgDoc, svg_to_pdf
from trackkit.render.draw import GtArt, TileArt, clean_text, fmt, svg_id
from trackkit.render.gt import piece_outline, road_lines
from trackkit.render.labels import local_road
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
from trackkit.render.tile import draw_tile, mark_spots
from trackkit.validate import Report
from trackkit.words import ordinal, plural

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

#: Paper sizes in millimetres, portrait.
PAPERS: dict[str, tuple[float, float]] = {
    "a4": (210.0, 297.0),
    "letter": (215.9, 279.4),
    "a3": (297.0, 420.0),
}
#: Paper sizes as people write them (page texts, the command's report).
PAPER_NAMES: dict[str, str] = {"a4": "A4", "letter": "Letter", "a3": "A3"}


def paper_name(paper: str) -> str:
    """A paper size as people write it: ``A4``, ``Letter``, ``A3``."""
    return PAPER_NAMES.get(paper, paper)


#: Overlap between neighbouring pages, in millimetres.
DEFAULT_OVERLAP_MM = 10.0
#: A print job larger than this is refused (use a smaller tile size or larger paper).
MAX_PAGES = 500
#: Areas below this (mm²) are rounding noise, not content.
_NOISE_MM2 = 1e-3
#: Where the first strip may begin, as shares of a strip's step back from the map's edge.
_OFFSETS = tuple(k / 8 for k in range(8))
#: Pages meet (and are glued) where their windows share a strip at least this long (mm).
_MEET_MM = 20.0


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
    """One printed page: the map window it shows, its page number and its place."""

    row: int
    """Its strip, from 0: a row of pages from the top (a column from the left with
    ``columns``)."""
    col: int
    """Its place in the strip, from 0: from the left (from the top with ``columns``)."""
    window: Box
    number: int
    """Page number in the PDF, from 2 (the overview is page 1)."""
    content: float = 0.0
    """Road (mm²; with scenery, the middle of scenery tiles too) in the page's own part."""
    columns: bool = False
    """The strips are columns of pages."""

    @property
    def name(self) -> str:
        """Its place in words no paper size can be mistaken for: ``row 2, 3rd from the
        left`` (``column 2, 3rd from the top``)."""
        if self.columns:
            return f"column {self.row + 1}, {ordinal(self.col + 1)} from the top"
        return f"row {self.row + 1}, {ordinal(self.col + 1)} from the left"

    @property
    def strip_name(self) -> str:
        """Its strip: ``row 2`` (``column 2``)."""
        return f"{'column' if self.columns else 'row'} {self.row + 1}"


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A page that overlaps another: which side, and the strip (map mm) they share."""

    side: str
    """``up``, ``down``, ``left`` or ``right``: where the other page lies."""
    cell: Cell
    shared: Box


@dataclass(frozen=True, slots=True)
class PagePlan:
    """How the map is cut into pages."""

    paper: str
    page_w: float
    page_h: float
    landscape: bool
    overlap: float
    margins: Margins
    cells: tuple[Cell, ...]
    """The printed pages, in page order."""
    min_content: float = 0.0
    """Pages whose own part holds less content than this (mm²) are slivers."""
    columns: bool = False
    """The strips are columns of pages (pages laid top to bottom), not rows."""
    strips: int = 1
    """Rows (columns) of pages the layout has."""

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
        return list(self.cells)

    @property
    def pages(self) -> int:
        """Pages of the whole print: the overview and the map pages."""
        return 1 + len(self.cells)

    @property
    def slivers(self) -> list[Cell]:
        """Printed cells whose own part holds less than :attr:`min_content`."""
        return [c for c in self.cells if c.content < self.min_content]

    def neighbours(self, cell: Cell) -> list[Neighbour]:
        """The pages ``cell``'s page is glued to: those whose windows share a strip at
        least 20 mm long with its window (a shared corner does not count)."""
        out = []
        w = cell.window
        for other in self.cells:
            if other is cell:
                continue
            o = other.window
            x0, x1 = max(w.x, o.x), min(w.right, o.right)
            y0, y1 = max(w.y, o.y), min(w.bottom, o.bottom)
            if x1 - x0 <= 1e-6 or y1 - y0 <= 1e-6:
                continue
            shared = Box(x0, y0, x1 - x0, y1 - y0)
            across = other.row != cell.row
            if self.columns:
                side = ("left" if other.row < cell.row else "right") if across else None
                side = side or ("up" if other.col < cell.col else "down")
            else:
                side = ("up" if other.row < cell.row else "down") if across else None
                side = side or ("left" if other.col < cell.col else "right")
            length = shared.w if side in ("up", "down") else shared.h
            if length >= _MEET_MM:
                out.append(Neighbour(side, other, shared))
        return out


def own_part(plan: PagePlan, cell: Cell) -> Any:
    """The part of ``cell``'s window that no other printed page's window overlaps
    (a shapely geometry, map mm)."""
    import shapely

    w = cell.window
    mine = shapely.box(w.x, w.y, w.right, w.bottom)
    others = [
        shapely.box(o.window.x, o.window.y, o.window.right, o.window.bottom)
        for o in plan.cells
        if o is not cell and o.window.intersects(w)
    ]
    return mine.difference(shapely.union_all(others)) if others else mine


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

    def areas(self, shapes: Any) -> list[float]:
        """Content area (mm²) under each of ``shapes`` (an array of shapely geometries)."""
        import shapely

        out = [0.0] * len(shapes)
        pairs = self.tree.query(shapes, predicate="intersects")
        if pairs.shape[1]:
            parts = shapely.intersection(self.tree.geometries.take(pairs[1]), shapes.take(pairs[0]))
            for i, area in zip(pairs[0].tolist(), shapely.area(parts).tolist(), strict=True):
                out[i] += area
        return out

    def spans(self, box: Box, axis: int) -> list[tuple[float, float]]:
        """Where the content inside ``box`` lies along ``axis`` (0: x, 1: y): the
        extents of its pieces, merged."""
        import shapely

        rect = shapely.box(box.x, box.y, box.right, box.bottom)
        found = self.tree.query(rect, predicate="intersects")
        if not len(found):
            return []
        cut = shapely.intersection(self.tree.geometries.take(found), rect)
        parts = shapely.get_parts(cut)
        parts = parts[shapely.area(parts) > _NOISE_MM2]
        bounds = shapely.bounds(parts)
        return _merge([(float(b[axis]), float(b[axis + 2])) for b in bounds])


def _size(paper: str, landscape: bool, margins: Margins, overlap: float) -> tuple[float, ...]:
    """Page width and height, window width and height for ``paper``; checks the overlap."""
    w, h = PAPERS[paper]
    if landscape:
        w, h = h, w
    ww, wh = w - margins.left - margins.right, h - margins.top - margins.bottom
    if overlap * 2 >= min(ww, wh):
        raise ValueError(f"an overlap of {overlap:g} mm leaves no room on {paper} paper")
    return w, h, ww, wh


def _too_many(count: int, paper: str) -> None:
    if count > 20 * MAX_PAGES:
        raise ValueError(
            f"the map needs over {20 * MAX_PAGES} pages of {paper}: "
            "use a smaller --tile-size or larger paper"
        )


def _grid(
    extent: Box, *, paper: str, landscape: bool, overlap: float, margins: Margins
) -> PagePlan:
    """Every page of the plain grid over ``extent``, centred on it (``all_pages``)."""
    w, h, ww, wh = _size(paper, landscape, margins, overlap)
    cols = grid_count(extent.w, ww, overlap)
    rows = grid_count(extent.h, wh, overlap)
    _too_many(cols * rows, paper)
    sx, sy = ww - overlap, wh - overlap
    x0 = extent.x - (cols * sx + overlap - extent.w) / 2
    y0 = extent.y - (rows * sy + overlap - extent.h) / 2
    cells = tuple(
        Cell(r, c, Box(x0 + c * sx, y0 + r * sy, ww, wh), 2 + r * cols + c)
        for r in range(rows)
        for c in range(cols)
    )
    return PagePlan(paper, w, h, landscape, overlap, margins, cells, strips=rows)


def _runs(intervals: Sequence[tuple[float, float]], length: float, overlap: float) -> list[float]:
    """Where windows of ``length`` go along a strip to show every interval (sorted,
    merged) of road in it: the fewest, a window overlapping the one before by
    ``overlap`` where the road runs on; each run of windows centred on its road.

    >>> _runs([(0, 100)], 190, 10), _runs([(0, 300)], 190, 10)
    ([-45.0], [-35.0, 145.0])
    >>> _runs([(0, 50), (500, 520)], 190, 10), _runs([(0, 50), (130, 140)], 100, 10)
    ([-70.0, 415.0], [-25.0, 85.0])

    A run never overlaps the run before it (it is moved right to where that ends): pages
    that overlap share a strip of exactly ``overlap``.
    """
    out: list[float] = []
    done = -math.inf  # where the last run's windows end
    i = 0
    while i < len(intervals):
        run = [intervals[i][0]]
        end = run[0] + length
        last = intervals[i][1]
        while True:
            while i < len(intervals) and intervals[i][0] <= end:
                last = max(last, intervals[i][1])
                i += 1
            if last <= end:
                break
            run.append(end - overlap)
            end = run[-1] + length
        shift = max(-(end - last) / 2, done - run[0])
        out += [x + shift for x in run]
        done = out[-1] + length
    return out


def _merge(spans: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _strips(
    extent: Box,
    content: _Content,
    *,
    paper: str,
    landscape: bool,
    columns: bool,
    offset: float,
    overlap: float,
    margins: Margins,
) -> list[tuple[int, Box]]:
    """The windows of one layout, with their strips: strips across the map (rows, or
    ``columns``), the first ``offset`` of a step before the map's edge, each covered by
    :func:`_runs`."""
    _w, _h, ww, wh = _size(paper, landscape, margins, overlap)
    along, across = (wh, ww) if columns else (ww, wh)  # window length along / across a strip
    lo, hi = (extent.x, extent.right) if columns else (extent.y, extent.bottom)
    step = across - overlap
    start = lo - offset * step
    count = max(1, math.ceil((hi - start) / step - 1e-9))
    _too_many(count * max(1, math.ceil(max(extent.w, extent.h) / (along - overlap))), paper)
    windows: list[tuple[int, Box]] = []
    for strip in range(count):
        a = start + strip * step
        # the strip's own band: up to where the next strip begins (its window reaches on
        # into the next band by the overlap, which the next strip shows whole)
        if columns:
            band = Box(a, extent.y - 1, step, extent.h + 2)
        else:
            band = Box(extent.x - 1, a, extent.w + 2, step)
        spans = content.spans(band, 1 if columns else 0)
        for u in _runs(spans, along, overlap):
            windows.append((strip, Box(a, u, ww, wh) if columns else Box(u, a, ww, wh)))
    return windows


def _finish(
    windows: Sequence[tuple[int, Box]],
    content: _Content,
    *,
    paper: str,
    landscape: bool,
    columns: bool,
    overlap: float,
    margins: Margins,
    min_content: float,
    measure: _Content,
) -> PagePlan:
    """The plan of a layout's windows: a page whose road the others all show left out,
    the rest numbered in order and weighed (their own parts' content)."""
    import shapely

    w, h, _ww, _wh = _size(paper, landscape, margins, overlap)
    boxes = [shapely.box(b.x, b.y, b.right, b.bottom) for _s, b in windows]
    tree = shapely.STRtree(boxes)

    def own(i: int, alive: Sequence[bool]) -> Any:
        near = [j for j in tree.query(boxes[i]).tolist() if j != i and alive[j]]
        return (
            boxes[i].difference(shapely.union_all([boxes[j] for j in near])) if near else boxes[i]
        )

    # leave out a page whose road the others all show (one at a time: two such pages
    # may show the same strip)
    alive = [True] * len(boxes)
    parts: list[Any] = []
    shown: list[float] = []
    while boxes:
        parts = [own(i, alive) if alive[i] else boxes[i] for i in range(len(boxes))]
        shown = content.areas(_array(parts))
        spare = [i for i in range(len(boxes)) if alive[i] and shown[i] <= _NOISE_MM2]
        if not spare:
            break
        alive[spare[0]] = False
    keep = [i for i in range(len(boxes)) if alive[i]]
    if measure is content:
        weights = [shown[i] for i in keep]
    else:
        weights = measure.areas(_array([parts[i] for i in keep])) if keep else []
    cells: list[Cell] = []
    places: Counter[int] = Counter()
    strips = {s: n for n, s in enumerate(sorted({windows[i][0] for i in keep}))}
    for i, weight in zip(keep, weights, strict=True):
        strip, box = windows[i]
        # strips numbered from 0 without gaps (a strip without road has no pages)
        row = strips[strip]
        cells.append(Cell(row, places[row], box, 2 + len(cells), weight, columns))
        places[row] += 1
    return PagePlan(
        paper, w, h, landscape, overlap, margins, tuple(cells), min_content, columns, len(strips)
    )


def _array(shapes: Sequence[Any]) -> Any:
    import numpy as np

    out = np.empty(len(shapes), dtype=object)
    out[:] = list(shapes)
    return out


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
    """Cut ``extent`` into pages: those that show ``footprints``, as few as can be.

    Parameters
    ----------
    extent : Box
        The part of the map to print (mm).
    footprints : sequence or None
        Shapes of what earns pages (shapely geometries or :class:`Box` es): pages are
        printed only to show them, laid out in strips (see the module's notes), portrait
        or landscape, rows or columns, whichever needs fewest. None: every page of the
        plain grid centred on ``extent``, portrait or landscape, whichever has fewer.
    paper : str
        ``a4``, ``letter`` or ``a3``.
    overlap : float
        Strip shared by neighbouring pages, in mm.
    min_content : float
        A page with less of the footprints than this (mm²) in its own part is a sliver:
        layouts that print slivers are avoided (a sliver counts as two pages).
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
    if footprints is None:
        grids = [
            _grid(extent, paper=paper, landscape=lands, overlap=overlap, margins=margins)
            for lands in (False, True)
        ]
        return min(grids, key=lambda p: (len(p.cells), p.landscape))
    content = _Content([_as_shape(f) for f in footprints])
    measure = content if weighed is None else _Content([_as_shape(f) for f in weighed])
    layouts = [
        (
            landscape,
            columns,
            _strips(
                extent,
                content,
                paper=paper,
                landscape=landscape,
                columns=columns,
                offset=offset,
                overlap=overlap,
                margins=margins,
            ),
        )
        for landscape in (False, True)
        for columns in (False, True)
        for offset in _OFFSETS
    ]
    # Leaving out pages and weighing slivers changes a count by little: only the
    # layouts within two pages of the fewest are weighed.
    fewest = min(len(windows) for _l, _c, windows in layouts)
    plans = [
        _finish(
            windows,
            content,
            paper=paper,
            landscape=landscape,
            columns=columns,
            overlap=overlap,
            margins=margins,
            min_content=min_content,
            measure=measure,
        )
        for landscape, columns, windows in layouts
        if len(windows) <= fewest + 2
    ]
    return min(
        plans,
        key=lambda p: (len(p.cells) + len(p.slivers), len(p.slivers), p.landscape, p.columns),
    )


def _as_shape(footprint: Any) -> Any:
    if isinstance(footprint, Box):
        from shapely.geometry import box as shapely_box

        return shapely_box(footprint.x, footprint.y, footprint.right, footprint.bottom)
    return footprint


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
            assert tile.road is not None
            shape = local_road(tile.road, size)
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
        gt = tile.face is not None and tile.face.layout is not None
        road = tile.road if not gt and tile.road is not None else None
        art = TileArt(
            key="", face=tile.face, road=road, tokens=tile.tokens, gt=GtArt() if gt else None
        )
        spots = mark_spots(art, size, kerbs=False)
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
    name = str(report.summary.get("name") or "Untitled stage")
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
    boxes = report.summary.get("boxes") or {}
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
    name = str(report.summary.get("name") or "Untitled stage")
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
