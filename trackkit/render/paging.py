"""How a stage printed at true scale is cut into numbered pages that tape together.

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
>>> from trackkit.render.svg import Box
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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trackkit.render.draw import GtArt, TileArt
from trackkit.render.gt_road import piece_outline
from trackkit.render.labels import local_road
from trackkit.render.svg import (
    Box,
)
from trackkit.render.tile import mark_spots
from trackkit.road import hexgrid
from trackkit.road.geometry import (
    to_world,
)
from trackkit.stage.assemble import Layout
from trackkit.words import ordinal

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
    "content_footprints",
    "grid_count",
    "min_road_area",
    "own_part",
    "paper_name",
    "plan_pages",
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

    >>> from trackkit.stage.assemble import lay_out
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
