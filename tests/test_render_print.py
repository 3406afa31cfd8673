"""Printing at true scale, PNG/PDF output and the render commands (issues 3 and 9).

Page sizes are checked in millimetres (SVG) and points (PDF); the page count of a long
stage is computed here independently from its extent, the overlap and the paper. PDF
pages are rasterised (pypdfium2) and compared with their SVG pages (CairoSVG) by the
road they show; page numbers are read back from the PDF's text (pypdf).
"""

from __future__ import annotations

import io
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cairosvg
import pypdf
import pypdfium2
import pytest
import yaml
from PIL import Image, ImageChops, ImageFilter
from stagekit import REPO, make_stage
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.render.pages import (
    MARGINS,
    PAPERS,
    PrintJob,
    min_road_area,
    own_part,
    plan_box,
    print_pages,
    pull_list,
)
from trackkit.render.raster import SvgDoc
from trackkit.render.svg import map_svg
from trackkit.render.theme import make_theme
from trackkit.road import hexgrid
from trackkit.road.geometry import centre_line, space_polygon, to_world
from trackkit.stage.assemble import lay_out
from trackkit.tiles.library import default_library

NS = "{http://www.w3.org/2000/svg}"
EXAMPLES = REPO / "examples"
TURINI = EXAMPLES / "col-de-turini.yaml"
PIKES = EXAMPLES / "hillclimb-pikes.yaml"
GT_CORE = EXAMPLES / "gt-core-circuit.yaml"
GT_EIGHT = EXAMPLES / "gt-figure-eight.rekee.json"
PT = 72 / 25.4
runner = CliRunner()

ZIGZAG = [
    {"tile": "206a"},
    {"tile": "217a", "turn": "left"},
    {"tile": "227a", "turn": "right"},
    {"tile": "205b"},
    {"tile": "222a", "turn": "left"},
    {"tile": "224a", "turn": "right"},
]


def zigzag(tiles: int) -> Any:
    middle = [ZIGZAG[i % len(ZIGZAG)] for i in range(tiles - 2)]
    return make_stage({"tile": "202a"}, *middle, {"tile": "203a"}, name=f"zigzag {tiles}")


def run(*args: str) -> Any:
    return runner.invoke(app, [str(a) for a in args])


def pdf_pages(data: bytes) -> list[tuple[float, float]]:
    """Width and height (points) of each page of a PDF written by cairo."""
    boxes = re.findall(rb"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    pages = len(re.findall(rb"/Type\s*/Page\b", data))
    assert len(boxes) >= pages
    return [(float(b[2]) - float(b[0]), float(b[3]) - float(b[1])) for b in boxes[-pages:]]


def no_temp_files(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


#: A theme that paints every road space one colour no other drawing uses.
ROAD = "#ff00ff"
ROAD_THEME = make_theme(
    {
        key: ROAD
        for key in (
            "road.gravel",
            "road.asphalt",
            "road.snow",
            "road.none",
            "slide.fill",
            "shortcut.fill",
        )
    }
)
PX_PER_MM = 1.5


def road_mask(image: Image.Image) -> Image.Image:
    """Where the road colour is painted: 255 there, 0 elsewhere."""
    r, g, b = image.convert("RGB").split()
    return ImageChops.multiply(
        ImageChops.multiply(
            r.point(lambda v: 255 if v >= 200 else 0), g.point(lambda v: 255 if v <= 100 else 0)
        ),
        b.point(lambda v: 255 if v >= 200 else 0),
    )


def road_pixels(image: Image.Image) -> tuple[int, tuple[int, int, int, int] | None]:
    """Pixels painted in the road colour, and their bounding box."""
    mask = road_mask(image)
    return mask.histogram()[255], mask.getbbox()


def stray_pixels(mask: Image.Image, other: Image.Image) -> int:
    """Road pixels of ``mask`` more than two pixels from any road pixel of ``other``."""
    near = other.filter(ImageFilter.MaxFilter(5))
    return ImageChops.subtract(mask, near).histogram()[255]


def svg_raster(doc: SvgDoc) -> Image.Image:
    png = cairosvg.svg2png(
        bytestring=doc.text.encode("utf-8"),
        output_width=round(doc.width_mm * PX_PER_MM),
        output_height=round(doc.height_mm * PX_PER_MM),
    )
    return Image.open(io.BytesIO(png))


def pdf_rasters(data: bytes) -> list[Image.Image]:
    pdf = pypdfium2.PdfDocument(data)
    try:
        return [page.render(scale=PX_PER_MM * 25.4 / 72).to_pil() for page in pdf]
    finally:
        pdf.close()


def pdf_texts(data: bytes) -> list[str]:
    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages]


def world_spaces(layout: Any) -> list[tuple[str, Any]]:
    """Every space of the stage as a polygon in map millimetres, with its node id."""
    from shapely import affinity

    out = []
    for tile in layout.chain:
        if tile.road is None:
            continue
        cx, cy = hexgrid.centre_mm(tile.hex, layout.size)
        a = math.radians(60 * tile.rotation)
        matrix = [math.cos(a), -math.sin(a), math.sin(a), math.cos(a), cx, cy]
        for sid, space in tile.road.spaces.items():
            poly = space_polygon(tile.road, space, layout.size)
            out.append((f"{tile.index}:{sid}", affinity.affine_transform(poly, matrix)))
    return out


def token_centres(tile: Any, size: float) -> list[tuple[tuple[float, float], float]]:
    """Where the tokens of a placed tile are drawn (world mm) and how large they are."""
    from trackkit.render.draw import TileArt
    from trackkit.render.tile import mark_spots

    centre = hexgrid.centre_mm(tile.hex, size)
    art = TileArt(key="", face=tile.face, road=tile.road, tokens=tile.tokens)
    return [
        (to_world(at, centre=centre, rotation=tile.rotation), radius)
        for at, radius in mark_spots(art, size, kerbs=False)
    ]


def printed_area(job: PrintJob) -> Any:
    from shapely.geometry import box
    from shapely.ops import unary_union

    return unary_union(
        [box(w.x, w.y, w.right, w.bottom) for w in (c.window for c in job.plan.printed)]
    )


# --- page plan: true scale, paper size, page count -------------------------------------------


def expected_grid(extent_w: float, extent_h: float, paper: str, overlap: float) -> int:
    """Fewest pages of the full grid, portrait or landscape, worked out from scratch."""
    best = None
    w, h = PAPERS[paper]
    for pw, ph in ((w, h), (h, w)):
        ww = pw - MARGINS.left - MARGINS.right
        wh = ph - MARGINS.top - MARGINS.bottom
        cols = max(1, math.ceil((extent_w - overlap) / (ww - overlap)))
        rows = max(1, math.ceil((extent_h - overlap) / (wh - overlap)))
        best = cols * rows if best is None else min(best, cols * rows)
    assert best is not None
    return best


def test_a_long_stage_needs_the_pages_its_extent_asks_for() -> None:
    stage = zigzag(30)
    report = validate(stage)
    assert report.valid, report.codes
    layout = report.layout
    xs = [x for t in layout.tiles for x, _ in hexgrid.corners_mm(t.hex, layout.size)]
    ys = [y for t in layout.tiles for _, y in hexgrid.corners_mm(t.hex, layout.size)]
    expected = expected_grid(max(xs) - min(xs), max(ys) - min(ys), "a4", 10.0)
    full = print_pages(report, layout, paper="a4", overlap=10.0, all_pages=True)
    xs = {c.window.x for c in full.plan.printed}
    ys = {c.window.y for c in full.plan.printed}
    assert len(full.plan.printed) == len(xs) * len(ys) == expected  # the whole grid
    assert expected > 4
    # Leaving out pages that show nothing of the stage never needs more pages ...
    lean = print_pages(report, layout, paper="a4", overlap=10.0)
    assert 4 < len(lean.plan.printed) <= expected
    # ... and every space still lies on a printed page.
    windows = [c.window for c in lean.plan.printed]
    for tile in layout.chain:
        assert tile.road is not None
        centre = hexgrid.centre_mm(tile.hex, layout.size)
        line = centre_line(tile.road, layout.size)
        for space in tile.road.spaces.values():
            x, y = to_world(
                line.at((space.f0 + space.f1) / 2), centre=centre, rotation=tile.rotation
            )
            assert any(w.x <= x <= w.right and w.y <= y <= w.bottom for w in windows)


def test_neighbouring_pages_overlap_by_the_overlap() -> None:
    report = validate(load_stage(TURINI))
    plan = print_pages(report, report.layout, overlap=12.0, all_pages=True).plan
    grid = {(c.row, c.col): c for c in plan.printed}
    a, b, c = grid[(0, 0)], grid[(0, 1)], grid[(1, 0)]
    assert a.window.right - b.window.x == pytest.approx(12.0)
    assert a.window.bottom - c.window.y == pytest.approx(12.0)
    box = plan_box(plan)
    extent = report.layout
    xs = [x for t in extent.tiles for x, _ in hexgrid.corners_mm(t.hex, extent.size)]
    assert box.x <= min(xs) and box.right >= max(xs)


@pytest.mark.parametrize("path", [TURINI, PIKES, GT_CORE, GT_EIGHT])
def test_pages_that_meet_share_a_strip_of_the_overlap(path: Path) -> None:
    """Pages laid out in strips overlap where they meet by exactly the overlap (so the
    ⊕ marks in the middle of the shared strip land on the same spot of both), and the
    pages each page names as its neighbours are those it shares such a strip with."""
    report = validate(load_stage(path))
    plan = print_pages(report, report.layout, overlap=10.0).plan
    seen = 0
    for cell in plan.printed:
        for n in plan.neighbours(cell):
            across = n.shared.h if n.side in ("up", "down") else n.shared.w
            along = n.shared.w if n.side in ("up", "down") else n.shared.h
            assert across == pytest.approx(10.0, abs=1e-6), (cell.name, n.cell.name)
            assert along >= 20.0
            back = {m.cell.number: m.side for m in plan.neighbours(n.cell)}
            opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}
            assert back[cell.number] == opposite[n.side]
            seen += 1
    assert seen > 0
    # pages that touch no other page along a side would float: every page meets one
    assert all(plan.neighbours(c) for c in plan.printed) or len(plan.printed) == 1


@pytest.mark.parametrize("paper", ["a4", "letter", "a3"])
def test_print_svg_pages_are_paper_size_at_true_scale(paper: str) -> None:
    report = validate(load_stage(PIKES))
    job = print_pages(report, report.layout, paper=paper)
    w, h = PAPERS[paper]
    if job.plan.landscape:
        w, h = h, w
    pages = job.svg_pages()
    assert len(pages) == len(job.plan.printed)
    for doc in pages:
        root = ET.fromstring(doc.text)
        assert (root.get("width"), root.get("height")) == (f"{w:g}mm", f"{h:g}mm")
        assert root.get("viewBox") == f"0 0 {w:g} {h:g}"
        inner = root.find(f"{NS}g[@id='map']/{NS}g")
        assert inner is not None
        assert re.fullmatch(r"translate\([-\d.]+,[-\d.]+\)", inner.get("transform", ""))
        bar = root.find(f".//{NS}g[@id='scale-bar']")
        assert bar is not None
        steps = [r for r in bar.iter(f"{NS}rect") if r.get("class") in ("ink", "paper")]
        assert sum(float(r.get("width", 0)) for r in steps) == pytest.approx(100.0)
        number = root.findtext(f"{NS}title") or ""
        assert "page" in number


def test_tile_size_setting_relays_out_the_print() -> None:
    stage = load_stage(TURINI)
    report = validate(stage)
    job = print_pages(report, lay_out(stage, size=180.0), paper="a4")
    root = ET.fromstring(job.svg_pages()[0].text)
    hexagon = next(p for p in root.iter(f"{NS}polygon") if p.get("class") == "hex")
    pts = [float(v) for v in re.split(r"[ ,]+", hexagon.get("points", "").strip())]
    corners = list(zip(pts[::2], pts[1::2], strict=True))
    assert math.dist(corners[0], corners[3]) == pytest.approx(2 * 180.0 / math.sqrt(3), abs=0.05)
    smaller = print_pages(report, lay_out(stage, size=120.0), paper="a4")
    assert len(smaller.plan.printed) < len(job.plan.printed)


def test_overview_shows_the_grid_of_printed_pages() -> None:
    report = validate(load_stage(TURINI))
    job = print_pages(report, report.layout)
    root = ET.fromstring(job.overview.text)
    cells = [r for r in root.iter(f"{NS}rect") if r.get("class") == "cell"]
    assert len(cells) == len(job.plan.printed)
    numbers = {t.text for t in root.iter(f"{NS}text") if t.get("class") == "cell-number"}
    # The overview is page 1: the map pages are 2..N.
    assert numbers == {str(n) for n in range(2, len(job.plan.printed) + 2)}
    assert job.plan.pages == len(job.plan.printed) + 1
    assert root.find(f".//{NS}g[@id='legend']") is not None
    assert f"page 1 of {job.plan.pages}" in (root.findtext(f"{NS}title") or "")


def test_unusable_print_settings_are_refused() -> None:
    report = validate(load_stage(TURINI))
    with pytest.raises(ValueError, match="paper"):
        print_pages(report, report.layout, paper="b5")
    with pytest.raises(ValueError, match="overlap"):
        print_pages(report, report.layout, overlap=100.0)


# --- the PDF shows what the SVG pages show (issue 9) ------------------------------------------


@dataclass
class Printed:
    """A print of a stage in the road-colour theme, and its PDF."""

    layout: Any
    job: PrintJob
    pdf: bytes


def _stage(name: str) -> Any:
    files = {"turini": TURINI, "pikes": PIKES, "gt core": GT_CORE, "gt eight": GT_EIGHT}
    return load_stage(files[name]) if name in files else zigzag(30)


@pytest.fixture(scope="module", params=["turini", "pikes", "zigzag 30", "gt core", "gt eight"])
def printed(request: pytest.FixtureRequest) -> Printed:
    """Four shipped examples (two of them Rallyman: GT circuits) and a long stage (35
    pages), printed on A4."""
    report = validate(_stage(request.param))
    job = print_pages(report, report.layout, paper="a4", theme=ROAD_THEME)
    return Printed(report.layout, job, job.pdf())


def test_every_pdf_page_shows_the_road_of_its_svg_page(printed: Printed) -> None:
    svgs = [printed.job.overview, *printed.job.svg_pages()]
    rasters = pdf_rasters(printed.pdf)
    assert len(rasters) == len(svgs) == printed.job.plan.pages
    for number, (doc, raster) in enumerate(zip(svgs, rasters, strict=True), start=1):
        expected = svg_raster(doc)
        assert raster.size == expected.size, number
        got, got_box = road_pixels(raster)
        want, want_box = road_pixels(expected)
        if number > 1:  # every map page shows a fair share of road
            assert want > 0.002 * expected.size[0] * expected.size[1], number
        # The same road in the same place. The rasterisers differ at the edges, and
        # pdfium draws the thin ⊕ marks over the road a pixel wide: a few % at most.
        assert abs(got - want) <= 0.05 * want + 150, (number, got, want)
        assert got_box is not None and want_box is not None, number
        # every road pixel of each lies within two pixels of the other's road, but for
        # the tip of a sliver of road along the page's edge, each shaded its own way
        pdf_road, svg_road = road_mask(raster), road_mask(expected)
        assert stray_pixels(pdf_road, svg_road) <= 0.002 * got + 20, number
        assert stray_pixels(svg_road, pdf_road) <= 0.002 * want + 20, number


def test_pages_hold_road_and_every_space_and_token_is_printed(printed: Printed) -> None:
    from shapely.geometry import Point
    from shapely.ops import unary_union

    plan = printed.job.plan
    spaces = world_spaces(printed.layout)
    assert len(spaces) > 10 * len(printed.layout.chain) // 2
    road = unary_union([poly for _, poly in spaces])
    # No sheet of a sliver: each page's own part (its window less the strips it shares
    # with its neighbours) holds at least the threshold of road ...
    for cell in plan.printed:
        area = road.intersection(own_part(plan, cell)).area
        assert area >= min_road_area(printed.layout.size), (cell.name, area)
    # ... and no road is lost: every part of every space lies on a printed page, and so
    # does every token placed on the tiles.
    paper = printed_area(printed.job)
    for node, poly in spaces:
        assert poly.difference(paper).area < 1e-3, node
    root = ET.fromstring(map_svg(validate(printed.layout.stage), printed.layout, legend=False).svg)
    tokens = [g for g in root.iter(f"{NS}g") if "token" in g.get("class", "").split()]
    assert len(tokens) == sum(len(t.tokens) for t in printed.layout.tiles)
    for tile in printed.layout.tiles:
        for at, radius in token_centres(tile, printed.layout.size):
            assert Point(at).buffer(radius).difference(paper).area < 1e-3, tile.face_id


def test_no_page_is_blank_of_road_nor_left_without_it(printed: Printed) -> None:
    """Every printed page shows road that no other page shows: leaving any one out would
    lose road (so none is printed only for what its neighbours' overlap already shows)."""
    from shapely.geometry import box
    from shapely.ops import unary_union

    plan = printed.job.plan
    road = unary_union([poly for _, poly in world_spaces(printed.layout)])
    for cell in plan.printed:
        w = cell.window
        assert road.intersection(box(w.x, w.y, w.right, w.bottom)).area > 0, cell.name
        assert road.intersection(own_part(plan, cell)).area > 1.0, cell.name
        others = unary_union(
            [
                box(c.window.x, c.window.y, c.window.right, c.window.bottom)
                for c in plan.printed
                if c is not cell
            ]
        )
        assert road.difference(others).area > 1.0, cell.name  # without it, road is lost


def test_pdf_page_numbers_are_the_pdf_page_order(printed: Printed) -> None:
    """Headers, neighbour labels and the overview's pages all use the PDF's page order,
    and every page is named by its place in words no paper size can be read into."""
    texts = pdf_texts(printed.pdf)
    total = len(texts)
    place: dict[str, int] = {}
    name = r"((?:row|column) \d+, \d+(?:st|nd|rd|th) from the (?:left|top))"
    for number, text in enumerate(texts, start=1):
        assert re.findall(r"page (\d+) of (\d+)", text) == [(str(number), str(total))]
        if number > 1:
            found = re.search(r"page \d+ of \d+ · " + name, text)
            assert found, text[:200]
            place[found.group(1)] = number
            # no header names a place that reads as a paper size (A3, B4, ...)
            assert not re.search(r"page \d+ of \d+ · [A-Z]\d", text)
    assert sorted(place.values()) == list(range(2, total + 1))
    assert {c.name: c.number for c in printed.job.plan.printed} == place
    labels = 0
    for text in texts[1:]:
        for number, where in re.findall(r"[▲▼] (\d+) \(" + name + r"\)", " ".join(text.split())):
            assert place[where] == int(number)
            labels += 1
    assert labels > 0 or len(texts) == 2
    root = ET.fromstring(printed.job.overview.text)
    grid = root.find(f".//{NS}g[@id='page-grid']")
    assert grid is not None
    rects = {r.get("id"): r for r in grid.iter(f"{NS}rect")}
    numbers = [t for t in grid.iter(f"{NS}text") if t.get("class") == "cell-number"]
    assert len(numbers) == len(rects) == total - 1
    by_id = {
        c: cell
        for cell in printed.job.plan.printed
        for c in [f"cell-{cell.row + 1}-{cell.col + 1}"]
    }
    for t in numbers:
        rect = rects[t.get("data-cell")]
        cell = by_id[t.get("data-cell", "")]
        assert t.text == str(cell.number)
        x, y = float(t.get("x", 0)), float(t.get("y", 0))
        rx, ry = float(rect.get("x", 0)), float(rect.get("y", 0))
        assert rx <= x <= rx + float(rect.get("width", 0))
        assert ry <= y <= ry + float(rect.get("height", 0))


@pytest.mark.parametrize("paper", ["letter", "a3"])
@pytest.mark.parametrize("path", [TURINI, PIKES])
def test_no_sliver_pages_on_other_papers_and_sizes(path: Path, paper: str) -> None:
    stage = load_stage(path)
    report = validate(stage)
    for size in (240.0, 180.0):
        layout = report.layout if size == 240.0 else lay_out(stage, size=size)
        plan = print_pages(report, layout, paper=paper).plan
        assert min(c.content for c in plan.printed) >= min_road_area(size), (size, paper)
        assert not plan.slivers


def test_scenery_earns_pages_only_when_asked(tmp_path: Path) -> None:
    from shapely.geometry import Point, box
    from shapely.ops import unary_union

    report = validate(load_stage(TURINI))
    layout = report.layout
    assert layout.scenery  # a filler and a service area beside the road
    lean = print_pages(report, layout)
    full = print_pages(report, layout, scenery=True)

    def paper(job: PrintJob) -> Any:
        return unary_union(
            [box(c.window.x, c.window.y, c.window.right, c.window.bottom) for c in job.plan.printed]
        )

    middles = [
        Point(hexgrid.centre_mm(t.hex, layout.size)).buffer(0.4 * layout.size)
        for t in layout.scenery
    ]
    # By default the middle of some scenery tile is off the pages; with scenery, none is.
    assert any(m.difference(paper(lean)).area > 1 for m in middles)
    assert all(m.difference(paper(full)).area < 1e-3 for m in middles)
    assert len(full.plan.printed) > len(lean.plan.printed)
    for flag, job in (("--skip-scenery", lean), ("--no-skip-scenery", full)):
        out = tmp_path / f"t{flag}.svg"
        result = run("print", TURINI, "-o", out, flag)
        assert result.exit_code == 0, result.output
        assert len(list(tmp_path.glob(f"t{flag}-page-*.svg"))) == len(job.plan.printed)


# --- the pull list on the overview (issue 9) ---------------------------------------------------


@pytest.mark.parametrize("path", [TURINI, PIKES])
def test_pull_list_names_every_face_by_box_with_copies(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    wanted: dict[str, int] = {}
    for spec in data["tiles"]:
        wanted[spec["tile"]] = wanted.get(spec["tile"], 0) + 1
    library = default_library()
    report = validate(load_stage(path))
    pulls = pull_list(report.layout)
    assert {face: n for faces in pulls.values() for face, n in faces} == wanted
    for box, faces in pulls.items():
        assert all(library.get(face).box == box for face, _ in faces)
    # On the overview: a heading per box, then its faces with their copies.
    root = ET.fromstring(print_pages(report, report.layout).overview.text)
    block = root.find(f".//{NS}g[@id='pull-list']")
    assert block is not None
    texts = [(t.get("class"), t.text or "") for t in block.iter(f"{NS}text")]
    heads = [text for cls, text in texts if "pull-box" in (cls or "")]
    assert [h.split(":")[0].split(" (")[0] for h in heads] == list(pulls)
    shown = [text for cls, text in texts if cls == "pull-face"]
    assert sorted(shown) == sorted(
        face + (f" ×{n}" if n > 1 else "") for faces in pulls.values() for face, n in faces
    )
    pieces = sum(wanted.values())
    assert f"{pieces} pieces" in texts[0][1]


def test_pull_list_of_a_long_stage_fits_the_overview() -> None:
    report = validate(zigzag(40))
    job = print_pages(report, report.layout)
    root = ET.fromstring(job.overview.text)
    block = root.find(f".//{NS}g[@id='pull-list']")
    card = root.find(f".//{NS}g[@id='title-block']")
    assert block is not None and card is not None
    top = float(re.findall(r"[-\d.]+", block.get("transform", ""))[1])
    card_top = float(re.findall(r"[-\d.]+", card.get("transform", ""))[1])
    lowest = max(float(t.get("y", 0)) for t in block.iter(f"{NS}text"))
    assert top + lowest < card_top  # above the title card, not over it
    counts = [t.text for t in block.iter(f"{NS}text") if t.get("class") == "pull-face"]
    assert any("×" in (c or "") for c in counts)  # repeated faces carry their copies


# --- commands ------------------------------------------------------------------------------------


def test_render_svg_png_pdf(tmp_path: Path) -> None:
    for suffix in ("svg", "png", "pdf"):
        out = tmp_path / f"map.{suffix}"
        result = run("render", TURINI, "-o", out, "--px", "800")
        assert result.exit_code == 0, result.output
        assert str(out) in result.stdout
    assert ET.parse(tmp_path / "map.svg").getroot().tag == f"{NS}svg"
    png = (tmp_path / "map.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert max(image.size) == 800
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # not blank: many colours drawn
    pdf = (tmp_path / "map.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and len(pdf) > 5000
    (w, h), *more = pdf_pages(pdf)
    assert not more
    root = ET.parse(tmp_path / "map.svg").getroot()
    vb = [float(v) for v in root.get("viewBox", "").split()]
    assert (w / PT, h / PT) == pytest.approx((vb[2], vb[3]), abs=0.1)


def test_print_pdf_has_overview_and_paper_size_pages(tmp_path: Path) -> None:
    out = tmp_path / "turini.pdf"
    result = run("print", TURINI, "-o", out, "--paper", "a4")
    assert result.exit_code == 0, result.output
    report = validate(load_stage(TURINI))
    expected = len(print_pages(report, report.layout).plan.printed)
    sizes = pdf_pages(out.read_bytes())
    assert len(sizes) == expected + 1  # the overview first
    for w, h in sizes:
        assert sorted((w / PT, h / PT)) == pytest.approx([210.0, 297.0], abs=0.1)


def test_print_svg_writes_overview_and_numbered_pages(tmp_path: Path) -> None:
    out = tmp_path / "plan.svg"
    result = run("print", PIKES, "-o", out, "--paper", "letter", "--tile-size", "200")
    assert result.exit_code == 0, result.output
    pages = sorted(tmp_path.glob("plan-page-*.svg"))
    assert out.exists() and pages and pages[0].name == "plan-page-02.svg"
    total = len(pages) + 1
    overview = ET.parse(out).getroot().findtext(f"{NS}title") or ""
    assert f"page 1 of {total}" in overview
    for number, page in enumerate(pages, start=2):
        # Each file is named by the page number it prints, and says so.
        assert page.name == f"plan-page-{number:02d}.svg"
        root = ET.parse(page).getroot()
        assert sorted([root.get("width"), root.get("height")]) == ["215.9mm", "279.4mm"]
        assert (root.findtext(f"{NS}title") or "").endswith(f"page {number} of {total}")
    assert no_temp_files(tmp_path)


def test_tiles_sheet_pdf_and_svg(tmp_path: Path) -> None:
    result = run("tiles", "sheet", "-o", tmp_path / "climb.pdf", "--box", "dirt-climb")
    assert result.exit_code == 0, result.output
    assert len(pdf_pages((tmp_path / "climb.pdf").read_bytes())) == 1
    result = run("tiles", "sheet", "-o", tmp_path / "core.svg", "--box", "dirt-core")
    assert result.exit_code == 0, result.output
    root = ET.parse(tmp_path / "core.svg").getroot()
    tiles = [g for g in root.iter(f"{NS}g") if "tile" in g.get("class", "").split()]
    assert len(tiles) == 64
    result = run("tiles", "sheet", "-o", tmp_path / "x.pdf", "--box", "nope")
    assert result.exit_code == 2 and "unknown box" in result.stderr


def test_theme_file_option(tmp_path: Path) -> None:
    theme = tmp_path / "theme.json"
    theme.write_text('{"surface.gravel": "#abcdef"}', encoding="utf-8")
    out = tmp_path / "m.svg"
    assert run("render", TURINI, "-o", out, "--theme", theme).exit_code == 0
    assert "#abcdef" in out.read_text(encoding="utf-8")
    theme.write_text('{"gravel": "#abcdef"}', encoding="utf-8")
    result = run("render", TURINI, "-o", out, "--theme", theme)
    assert result.exit_code == 2 and "theme.json" in result.stderr and "gravel" in result.stderr


# --- bad input and safety -------------------------------------------------------------------------


def test_bad_stage_input_exits_2_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: trackkit-stage/1\ntiles: [\n", encoding="utf-8")
    for command in ("render", "print"):
        result = run(command, bad, "-o", tmp_path / "out.svg")
        assert result.exit_code == 2 and "bad.yaml" in result.stderr
        assert "Traceback" not in result.output
        result = run(command, tmp_path / "missing.yaml", "-o", tmp_path / "out.pdf")
        assert result.exit_code == 2 and "missing.yaml" in result.stderr
    assert not (tmp_path / "out.svg").exists() and not (tmp_path / "out.pdf").exists()


def test_unusable_output_paths_exit_2_naming_the_path(tmp_path: Path) -> None:
    cases = [
        tmp_path / "no-such-folder" / "map.svg",
        tmp_path / "map.gif",
        tmp_path,  # a folder
    ]
    (tmp_path / "folder.svg").mkdir()
    cases.append(tmp_path / "folder.svg")
    for out in cases:
        result = run("render", TURINI, "-o", out)
        assert result.exit_code == 2, out
        assert str(out) in result.stderr


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_read_only_folder_exits_2(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        for suffix in ("svg", "pdf"):
            result = run("render", TURINI, "-o", folder / f"map.{suffix}")
            assert result.exit_code == 2 and "map." in result.stderr
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("suffix", ["svg", "png", "pdf"])
def test_a_failed_render_leaves_the_good_file(
    suffix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trackkit.render.output as output
    import trackkit.render.svg as svg

    out = tmp_path / f"map.{suffix}"
    assert run("render", TURINI, "-o", out, "--px", "400").exit_code == 0
    good = out.read_bytes()

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("renderer crashed")

    steps = [(svg, "map_svg")]
    steps += {"png": [(output, "svg_to_png")], "pdf": [(output, "svg_to_pdf")]}.get(suffix, [])
    for module, name in steps:
        with monkeypatch.context() as patch:
            patch.setattr(module, name, broken)
            result = run("render", TURINI, "-o", out, "--px", "400")
        assert result.exit_code != 0 and isinstance(result.exception, RuntimeError)
        assert out.read_bytes() == good
        assert no_temp_files(tmp_path)


@pytest.mark.parametrize("suffix", ["svg", "pdf"])
def test_a_failed_write_leaves_the_good_file_and_no_temp(
    suffix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / f"map.{suffix}"
    out.write_bytes(b"good")

    def refuse(*_: Any, **__: Any) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    result = run("render", TURINI, "-o", out)
    assert result.exit_code == 2
    assert str(out) in result.stderr and "cannot write" in result.stderr
    assert out.read_bytes() == b"good"
    assert no_temp_files(tmp_path)


def test_render_draws_a_stage_with_errors_and_says_so(tmp_path: Path) -> None:
    result = run("render", EXAMPLES / "broken-stage.yaml", "-o", tmp_path / "b.svg")
    assert result.exit_code == 0
    assert "error" in result.stderr and "trackkit validate" in result.stderr


def test_hostile_names_are_escaped_in_print_pages(tmp_path: Path) -> None:
    stage = tmp_path / "evil.yaml"
    doc = {
        "format": "trackkit-stage/1",
        "name": "<script>&\"'",
        "tiles": [{"tile": "202a"}, {"tile": "203a"}],
    }
    stage.write_text(yaml.safe_dump(doc), encoding="utf-8")
    result = run("print", stage, "-o", tmp_path / "evil.svg")
    assert result.exit_code == 0, result.output
    for path in tmp_path.glob("evil*.svg"):
        text = path.read_text(encoding="utf-8")
        assert "<script" not in text and "&lt;script&gt;&amp;" in text
        ET.fromstring(text)


def test_validate_never_imports_the_renderer() -> None:
    code = (
        "import sys, trackkit.cli.app, trackkit.checks, trackkit.stage.graph;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('svgwrite', 'cairosvg', 'cairocffi') or m.startswith('trackkit.render')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- fewer sheets (issue 19) --------------------------------------------------------------------


def best_plain_grid(road: Any, extent: Any, paper: str, overlap: float) -> int:
    """Fewest map pages a plain grid of pages (portrait or landscape, shifted by sixths
    of a page) prints when it keeps only the pages whose own part (the window less the
    strips it shares with its grid neighbours) holds road: how 'print' cut the map
    before, worked out here from the geometry alone."""
    from shapely.geometry import box

    best = None
    w, h = PAPERS[paper]
    for pw, ph in ((w, h), (h, w)):
        ww = pw - MARGINS.left - MARGINS.right
        wh = ph - MARGINS.top - MARGINS.bottom
        sx, sy = ww - overlap, wh - overlap
        for a in range(6):
            for b in range(6):
                x0, y0 = extent.x - a / 6 * sx, extent.y - b / 6 * sy
                cols = max(1, math.ceil((extent.right - x0 - overlap) / sx))
                rows = max(1, math.ceil((extent.bottom - y0 - overlap) / sy))
                count = 0
                for r in range(rows):
                    for c in range(cols):
                        left = x0 + c * sx + (overlap if c else 0)
                        top = y0 + r * sy + (overlap if r else 0)
                        right = x0 + c * sx + ww - (overlap if c < cols - 1 else 0)
                        bottom = y0 + r * sy + wh - (overlap if r < rows - 1 else 0)
                        if road.intersection(box(left, top, right, bottom)).area > 1.0:
                            count += 1
                best = count if best is None else min(best, count)
    assert best is not None
    return best


@pytest.mark.parametrize("paper", ["a4", "letter", "a3"])
def test_the_gt_example_prints_on_fewer_sheets_each_holding_road(paper: str) -> None:
    """The 18-tile GT example took 27 sheets of A4 (26 map pages from a plain grid, some
    with only a corner of road): pages now laid out row by row (or column by column)
    need fewer than the best plain grid, and no page is blank of road."""
    from shapely.ops import unary_union

    from trackkit.render.pages import road_shapes
    from trackkit.render.svg import tile_extent

    report = validate(load_stage(GT_CORE))
    assert len([t for t in report.layout.chain if t.visit_of is None]) == 18
    plan = print_pages(report, report.layout, paper=paper).plan
    road = unary_union(road_shapes(report.layout))
    grid = best_plain_grid(road, tile_extent(report.layout), paper, plan.overlap)
    assert len(plan.printed) < grid, (len(plan.printed), grid)
    if paper == "a4":
        assert grid >= 26 and len(plan.printed) <= 22  # 27 sheets before, 23 now
    for cell in plan.printed:
        shown = road.intersection(own_part(plan, cell)).area
        assert shown >= min_road_area(report.layout.size), (cell.name, shown)
    # nothing lost: all the road is on the pages
    assert road.difference(printed_area_of(plan)).area < 1e-3


def printed_area_of(plan: Any) -> Any:
    from shapely.geometry import box
    from shapely.ops import unary_union

    return unary_union(
        [box(c.window.x, c.window.y, c.window.right, c.window.bottom) for c in plan.printed]
    )


def test_print_says_how_many_sheets_it_takes(tmp_path: Path) -> None:
    report = validate(load_stage(GT_CORE))
    plan = print_pages(report, report.layout).plan
    result = run("print", GT_CORE, "-o", tmp_path / "gt.pdf")
    assert result.exit_code == 0, result.output
    assert f"the print takes {plan.pages} sheets of A4" in result.stdout
    assert len(pypdf.PdfReader(tmp_path / "gt.pdf").pages) == plan.pages


@pytest.mark.parametrize("path", [TURINI, PIKES, GT_CORE, GT_EIGHT])
def test_overview_page_numbers_keep_clear_of_the_road_line_and_of_each_other(path: Path) -> None:
    """Read back from the overview's SVG: each page's number (digits about 0.6 em wide,
    0.73 em high) lies in its own page, off the road line drawn under the pages, and
    no two numbers touch."""
    from shapely.geometry import LineString, box

    report = validate(load_stage(path))
    job = print_pages(report, report.layout)
    root = ET.fromstring(job.overview.text)
    mini = root.find(f".//{NS}g[@id='overview-map']")
    assert mini is not None
    lines = []
    for line in mini.iter(f"{NS}polyline"):
        if line.get("class") != "overview-road":
            continue
        pts = [float(v) for v in re.split(r"[ ,]+", line.get("points", "").strip())]
        half = float(line.get("stroke-width", 0)) / 2
        lines.append(LineString(list(zip(pts[::2], pts[1::2], strict=True))).buffer(half))
    assert lines
    numbers = {}
    for t in mini.iter(f"{NS}text"):
        if t.get("class") != "cell-number":
            continue
        fs = float(t.get("font-size", 0))
        x, y = float(t.get("x", 0)), float(t.get("y", 0))
        w = 0.6 * fs * len(t.text or "") / 2
        numbers[t.text] = box(x - w, y - 0.73 * fs, x + w, y)
    assert len(numbers) == len(job.plan.printed)
    cells = {str(c.number): c for c in job.plan.printed}
    for text, shape in numbers.items():
        assert not any(shape.intersects(line) for line in lines), text
        assert own_part(job.plan, cells[text]).contains(shape), text
    keys = sorted(numbers)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            assert not numbers[a].intersects(numbers[b]), (a, b)
