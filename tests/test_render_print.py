"""Printing at true scale, PNG/PDF output and the render commands (issue 3).

Page sizes are checked in millimetres (SVG) and points (PDF); the page count of a long
stage is computed here independently from its extent, the overlap and the paper.
"""

from __future__ import annotations

import io
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml
from PIL import Image
from stagekit import REPO, make_stage
from typer.testing import CliRunner

from trackkit import hexgrid
from trackkit.assemble import lay_out
from trackkit.cli import app
from trackkit.formats import load_stage
from trackkit.geometry import centre_line, to_world
from trackkit.render.pages import MARGINS, PAPERS, plan_box, print_pages
from trackkit.validate import validate

NS = "{http://www.w3.org/2000/svg}"
EXAMPLES = REPO / "examples"
TURINI = EXAMPLES / "col-de-turini.yaml"
PIKES = EXAMPLES / "hillclimb-pikes.yaml"
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
    assert len(full.plan.printed) == full.plan.cols * full.plan.rows == expected
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
    a, b = plan.cell(0, 0), plan.cell(0, 1)
    c = plan.cell(1, 0)
    assert a and b and c
    assert a.window.right - b.window.x == pytest.approx(12.0)
    assert a.window.bottom - c.window.y == pytest.approx(12.0)
    grid = plan_box(plan)
    extent = report.layout
    xs = [x for t in extent.tiles for x, _ in hexgrid.corners_mm(t.hex, extent.size)]
    assert grid.x <= min(xs) and grid.right >= max(xs)


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
    assert numbers == {str(n) for n in range(1, len(job.plan.printed) + 1)}
    assert root.find(f".//{NS}g[@id='legend']") is not None


def test_unusable_print_settings_are_refused() -> None:
    report = validate(load_stage(TURINI))
    with pytest.raises(ValueError, match="paper"):
        print_pages(report, report.layout, paper="b5")
    with pytest.raises(ValueError, match="overlap"):
        print_pages(report, report.layout, overlap=100.0)


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
    assert out.exists() and pages and pages[0].name == "plan-page-01.svg"
    for page in pages:
        root = ET.parse(page).getroot()
        assert sorted([root.get("width"), root.get("height")]) == ["215.9mm", "279.4mm"]
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
    assert "error(s)" in result.stderr and "trackkit validate" in result.stderr


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
        "import sys, trackkit.cli, trackkit.validate, trackkit.graph;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('svgwrite', 'cairosvg', 'cairocffi') or m.startswith('trackkit.render')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
