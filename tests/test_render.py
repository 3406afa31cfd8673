"""Stage maps (issue 3): structure, not pixels.

Every count is checked against the stage graph (the single source of movement truth):
one outlined element per space, one element per feature, limits per corner lane, climb
lines where the graph's edges climb. Sizes are checked in millimetres.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from stagekit import REPO, make_stage

from trackkit.checks.pipeline import validate
from trackkit.formats import load_stage
from trackkit.render.draw import clean_text, svg_id
from trackkit.render.sheet import tile_sheet
from trackkit.render.svg import MAP_PADDING, map_frame, map_svg, render_map, structure
from trackkit.render.theme import DEFAULT_THEME, load_theme, make_theme
from trackkit.road import hexgrid
from trackkit.road.geometry import DEFAULT_TILE_SIZE_MM
from trackkit.road.spaces import drive, lane_roads
from trackkit.stage.assemble import lay_out
from trackkit.tiles.library import default_library

NS = "{http://www.w3.org/2000/svg}"
EXAMPLES = REPO / "examples"
EXAMPLE_FILES = ["col-de-turini.yaml", "hillclimb-pikes.yaml", "broken-stage.yaml"]


# --- helpers -------------------------------------------------------------------------------


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def classes(el: ET.Element) -> set[str]:
    return set(el.get("class", "").split())


def by_id(root: ET.Element, ident: str) -> ET.Element:
    found = root.find(f".//*[@id='{ident}']")
    assert found is not None, ident
    return found


def features(root: ET.Element, kind: str) -> list[ET.Element]:
    """Elements with classes ``feature`` and ``kind`` inside the map (not the legend)."""
    return [el for el in by_id(root, "map").iter() if {"feature", kind} <= classes(el)]


def spaces(root: ET.Element) -> list[ET.Element]:
    return [el for el in by_id(root, "map").iter() if "space" in classes(el)]


def graph_features(g: nx.DiGraph) -> dict[str, int]:
    """Feature counts read from the graph alone."""
    nodes = [d for _, d in g.nodes(data=True)]
    climb_lines = set()
    for u, v, e in g.edges(data=True):
        a, b = g.nodes[u], g.nodes[v]
        if e["climb"] and a["tile"] == b["tile"] and "shortcut" not in (a["kind"], b["kind"]):
            climb_lines.add((a["tile"], a["unit"]))
    return {
        "jump": len({(d["tile"], d["unit"]) for d in nodes if d["jump"] is not None}),
        "ford": len({(d["tile"], d["unit"]) for d in nodes if d["ford"]}),
        "shortcut": len(
            {(d["tile"], d["space"].split(".")[0]) for d in nodes if d["kind"] == "shortcut"}
        ),
        "limit": len(
            {(d["corner"], d["corner_lane"]) for d in nodes if d["kind"] in ("corner", "chicane")}
        ),
        "slide": len({(d["tile"], d["unit"]) for d in nodes if d["kind"] == "slide"}),
        "climb": len(climb_lines),
    }


def hex_extent(layout: Any) -> tuple[float, float, float, float]:
    xs, ys = [], []
    for tile in layout.tiles:
        for x, y in hexgrid.corners_mm(tile.hex, layout.size):
            xs.append(x)
            ys.append(y)
    return min(xs), min(ys), max(xs), max(ys)


def numbers(text: str) -> list[float]:
    return [float(v) for v in re.split(r"[ ,]+", text.strip()) if v]


RICH_STAGE = make_stage(
    {"tile": "202a"},
    {"tile": "205b"},  # jump
    {"tile": "217b", "turn": "left", "tokens": [{"token": "mud", "value": -1}]},
    {"tile": "207b"},  # ford and jump
    {"tile": "231a"},  # chicane
    {"tile": "418a", "climb": "up"},
    {"tile": "418b", "climb": "down"},
    {"tile": "305a", "tokens": [{"token": "climb", "value": -1}, {"token": "cloud"}]},
    {"tile": "224b", "turn": "left", "tokens": [{"token": "oxygen", "value": 2}]},
    {"tile": "203a"},
    name="Everything",
)


@pytest.fixture(scope="module", params=[*EXAMPLE_FILES, "rich"])
def drawn(request: pytest.FixtureRequest) -> Any:
    stage = RICH_STAGE if request.param == "rich" else load_stage(EXAMPLES / request.param)
    return render_map(stage)


# --- one element per space and per feature ----------------------------------------------


def test_one_outlined_element_per_graph_node(drawn: Any) -> None:
    root = parse(drawn.svg)
    outlined = spaces(root)
    g = drawn.report.graph
    assert len(outlined) == g.number_of_nodes()
    assert all(el.tag in (f"{NS}path", f"{NS}polygon") for el in outlined)
    assert {el.get("data-node") for el in outlined} == set(g.nodes)
    kinds = {el.get("data-node"): classes(el) for el in outlined}
    for node, data in g.nodes(data=True):
        assert f"kind-{data['kind']}" in kinds[node]


def test_one_element_per_feature_as_in_the_graph(drawn: Any) -> None:
    root = parse(drawn.svg)
    expected = graph_features(drawn.report.graph)
    assert {kind: len(features(root, kind)) for kind in expected} == expected


def test_space_ids_are_sanitised_and_unique(drawn: Any) -> None:
    root = parse(drawn.svg)
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", i or "") for i in ids)
    for node in list(drawn.report.graph.nodes)[:5]:
        tile, space = node.split(":")
        assert by_id(root, f"space-{tile}-{space}").get("data-node") == node


def test_tiles_have_ids_and_classes_by_surface_and_danger(drawn: Any) -> None:
    root = parse(drawn.svg)
    for tile in drawn.layout.chain:
        el = by_id(root, f"tile-{tile.index}")
        if tile.face is None:
            assert "unknown" in classes(el)
            continue
        assert {"tile", f"surface-{tile.face.surface}", f"danger-{tile.face.danger}"} <= classes(el)


def test_start_finish_danger_and_tokens_are_drawn(drawn: Any) -> None:
    root = parse(drawn.svg)
    layout = drawn.layout
    starts = sum(1 for t in layout.chain if t.road and t.road.start_after is not None)
    finishes = sum(1 for t in layout.chain if t.road and t.road.finish_after is not None)
    assert len(features(root, "start")) == starts
    assert len(features(root, "finish")) == finishes
    with_danger = [t for t in layout.chain if t.face and t.road and t.face.danger != "none"]
    assert len(features(root, "danger")) == 2 * len(with_danger)  # one at each road end
    assert len(features(root, "token")) == sum(len(t.tokens) for t in layout.tiles)


def test_a_mud_token_lowers_the_printed_limit_of_its_corner() -> None:
    root = parse(render_map(RICH_STAGE).svg)
    muddy = [el for el in features(root, "limit") if "muddy" in classes(el)]
    texts = sorted(el.findtext(f"{NS}text") or "" for el in muddy)
    assert texts == ["1", "2"]  # 217b: inner 2 -> 1, outer 3 -> 2 (SHORTCUT-2)


# --- climb arrows point the right way (CLIMB-1, CLIMB-6) -------------------------------------


def _matrix(transform: str) -> list[float]:
    match = re.search(r"matrix\(([^)]*)\)", transform)
    assert match
    return numbers(match.group(1))


def _rotation(transform: str) -> float:
    match = re.search(r"rotate\(([-\d.]+)", transform)
    return float(match.group(1)) if match else 0.0


@pytest.mark.parametrize(
    ("spec", "way"),
    [
        ({"tile": "418a", "climb": "up"}, "up"),
        ({"tile": "418a", "climb": "down"}, "down"),
        ({"tile": "205a", "tokens": [{"token": "climb", "value": -1}]}, "up"),
        ({"tile": "205a", "tokens": [{"token": "climb", "value": 1}]}, "down"),
    ],
)
def test_the_minus_one_arrow_points_uphill(spec: dict[str, Any], way: str) -> None:
    stage = make_stage("202a", spec, "203a")
    drawn = render_map(stage)
    root = parse(drawn.svg)
    tile = drawn.layout.chain[1]
    arrows = features(root, "climb")
    assert arrows and all(f"climb-{way}" in classes(a) for a in arrows)
    assert len(arrows) == len(tile.road.units) - 1  # every line between rows
    turn = _rotation(by_id(root, "tile-2").get("transform", ""))
    # Driving direction across the tile: from the entry edge's midpoint to the exit's.
    entry, exit_ = tile.entry_world, tile.exit_world
    drive_dir = (
        math.cos(math.radians(60 * exit_)) - math.cos(math.radians(60 * entry)),
        math.sin(math.radians(60 * exit_)) - math.sin(math.radians(60 * entry)),
    )
    for arrow in arrows:
        use = arrow.find(f"{NS}use")
        assert use is not None
        _a, _b, c, d, _e, _f = _matrix(use.get("transform", ""))  # symbol +y: the arrow head
        r = math.radians(turn)
        world = (c * math.cos(r) - d * math.sin(r), c * math.sin(r) + d * math.cos(r))
        dot = world[0] * drive_dir[0] + world[1] * drive_dir[1]
        assert (dot > 0) == (way == "up")
        texts = [t.text for t in arrow.iter(f"{NS}text")]
        assert texts == ["−1", "+1"]


# --- sizes in millimetres -----------------------------------------------------------------


@pytest.mark.parametrize("size", [DEFAULT_TILE_SIZE_MM, 180.0])
def test_viewbox_in_mm_is_the_layout_extent(size: float) -> None:
    stage = load_stage(EXAMPLES / "col-de-turini.yaml")
    report = validate(stage)
    layout = lay_out(stage, size=size)
    root = parse(map_svg(report, layout, legend=False).svg)
    x0, y0, x1, y1 = hex_extent(layout)
    pad = MAP_PADDING * size
    vb = numbers(root.get("viewBox", ""))
    expected = [x0 - pad, y0 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad]
    assert vb == pytest.approx(expected, abs=0.01)
    assert float(root.get("width", "")[:-2]) == pytest.approx(vb[2], abs=0.01)
    assert float(root.get("height", "")[:-2]) == pytest.approx(vb[3], abs=0.01)
    assert root.get("width", "").endswith("mm") and root.get("height", "").endswith("mm")


def test_with_the_legend_the_view_holds_map_and_card() -> None:
    stage = load_stage(EXAMPLES / "col-de-turini.yaml")
    drawn = render_map(stage)
    frame = map_frame(drawn.layout)
    root = parse(drawn.svg)
    vb = numbers(root.get("viewBox", ""))
    assert vb == pytest.approx([frame.view.x, frame.view.y, frame.view.w, frame.view.h], abs=0.01)
    x0, y0, x1, y1 = hex_extent(drawn.layout)
    assert vb[0] <= x0 and vb[1] <= y0 and vb[0] + vb[2] >= x1 and vb[1] + vb[3] >= y1
    assert frame.card is not None
    assert by_id(root, "title-block") is not None and by_id(root, "legend") is not None


@pytest.mark.parametrize("size", [DEFAULT_TILE_SIZE_MM, 150.0])
def test_tile_hexes_are_the_tile_size(size: float) -> None:
    stage = load_stage(EXAMPLES / "hillclimb-pikes.yaml")
    report = validate(stage)
    root = parse(map_svg(report, lay_out(stage, size=size)).svg)
    for tile in report.layout.chain:
        hexagon = by_id(root, f"tile-{tile.index}").find(f"{NS}polygon")
        assert hexagon is not None and "hex" in classes(hexagon)
        pts = numbers(hexagon.get("points", ""))
        corners = list(zip(pts[::2], pts[1::2], strict=True))
        # Flat edge to flat edge: midpoints of opposite edges.
        mids = [
            ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            for a, b in zip(corners, corners[1:] + corners[:1], strict=True)
        ]
        assert math.dist(mids[0], mids[3]) == pytest.approx(size, abs=0.05)


def test_spaces_of_a_face_are_drawn_at_the_scale_of_the_tile() -> None:
    small = render_map(make_stage("202a", "203a"), size=120.0)
    big = render_map(make_stage("202a", "203a"), size=240.0)

    def width(svg: str) -> float:
        path = by_id(parse(svg), "space-1-1.1L").get("d", "")
        xs = numbers(re.sub(r"[MLZ]", " ", path))[::2]
        return max(xs) - min(xs)

    assert width(big.svg) == pytest.approx(2 * width(small.svg), rel=0.02)


# --- text: summary, title block, escaping ---------------------------------------------------


HOSTILE = "<script>alert(\"x\")</script> & 'q' ]]> \x01"


def test_user_text_is_escaped_everywhere() -> None:
    stage = make_stage(
        {"tile": "202a", "tokens": [{"token": "<img src=x onerror=1>"}]},
        {"tile": "<b>x</b>"},
        "203a",
        name=HOSTILE,
        author="</desc><evil/>",
    )
    svg = render_map(stage).svg
    for raw in ("<script", "<img", "<evil", "<b>", "\x01"):
        assert raw not in svg
    assert "&lt;script&gt;" in svg and "&amp;" in svg
    root = parse(svg)  # well-formed XML
    assert root.findtext(f"{NS}title") == clean_text(HOSTILE)
    desc = root.findtext(f"{NS}desc") or ""
    assert clean_text(HOSTILE) in desc and "</desc><evil/>" in desc
    texts = " ".join(t.text or "" for t in root.iter(f"{NS}text"))
    assert "<b>x</b>" in texts


def test_desc_holds_the_summary() -> None:
    drawn = render_map(load_stage(EXAMPLES / "col-de-turini.yaml"))
    desc = parse(drawn.svg).findtext(f"{NS}desc") or ""
    assert "Col de Turini" in desc and "valid" in desc
    assert f"{drawn.report.summary.tiles} tiles" in desc


def test_title_block_shows_name_author_length_surfaces_boxes() -> None:
    drawn = render_map(load_stage(EXAMPLES / "hillclimb-pikes.yaml"))
    card = by_id(parse(drawn.svg), "title-block")
    text = " ".join(t.text or "" for t in card.iter(f"{NS}text"))
    summary = drawn.report.summary
    assert summary.name in text and summary.author in text
    assert f"{summary.length_mm / 1000:.2f} m" in text
    for surface in summary.surfaces:
        assert surface in text
    for box in summary.boxes:
        assert box in text


def test_symbols_are_defined_once_and_used() -> None:
    svg = render_map(load_stage(EXAMPLES / "col-de-turini.yaml")).svg
    root = parse(svg)
    symbols = {s.get("id") for s in root.iter(f"{NS}symbol")}
    assert {"sym-disc", "sym-chevron", "sym-waves", "sym-arrow", "sym-kerb"} <= symbols
    href = "{http://www.w3.org/1999/xlink}href"
    used = {u.get(href, u.get("href", ""))[1:] for u in root.iter(f"{NS}use")}
    assert used <= symbols


# --- theme ------------------------------------------------------------------------------------


def test_theme_overrides_reach_the_style_block() -> None:
    theme = make_theme({"surface.gravel": "#123456", "danger.high": "rgb(1, 2, 3)"})
    svg = render_map(make_stage("202a", "203a"), theme=theme).svg
    style = parse(svg).findtext(f".//{NS}style") or ""
    assert ".surface-gravel .hex { fill: #123456; }" in style
    assert "rgb(1, 2, 3)" in style
    assert DEFAULT_THEME["surface.gravel"] not in style


@pytest.mark.parametrize(
    "bad",
    [
        {"nope": "#fff"},
        {"danger.low": "red;} svg{display:none"},
        {"font": "</style><script>"},
        {"text": 3},
    ],
)
def test_bad_themes_are_refused(bad: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        make_theme(bad)
    path = tmp_path / "theme.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(ValueError, match=r"theme\.json"):
        load_theme(path)


# --- tile sheet ---------------------------------------------------------------------------------


def test_sheet_draws_every_space_and_feature_of_every_face() -> None:
    faces = list(default_library())
    sheet = tile_sheet(faces)
    root = parse(sheet.single.text)
    assert len(sheet.pages) == math.ceil(len(faces) / 12)
    for face in faces:
        el = by_id(root, svg_id("tile", face.id))
        assert {f"surface-{face.surface}", f"danger-{face.danger}"} <= classes(el)
        drawn_spaces = [s for s in el.iter() if "space" in classes(s)]
        feats = {
            k: [s for s in el.iter() if {"feature", k} <= classes(s)]
            for k in ("jump", "ford", "shortcut", "climb", "limit")
        }
        road = face.road
        if face.layout is not None:  # GT: every space of every road (the bridge's too)
            sids = {s for r in lane_roads(face) for s in r.named_spaces()}
            assert len(drawn_spaces) == len(sids), face.id
            limited = [s for s, sp in face.layout.spaces.items() if sp.limit is not None]
            marks = by_id(root, svg_id("marks", face.id))  # drawn over every tile
            limits = [s for s in marks.iter() if {"feature", "limit"} <= classes(s)]
            assert len(limits) == len(limited) and not feats["limit"], face.id
            continue
        if road is None:
            assert not drawn_spaces
            continue
        driven = drive(face, road.from_edge)
        assert len(drawn_spaces) == len(driven.spaces), face.id
        assert len(feats["jump"]) == len(road.jumps), face.id
        assert len(feats["ford"]) == len(road.fords), face.id
        assert len(feats["shortcut"]) == len(road.shortcuts), face.id
        corners = {
            (s.unit, s.corner_lane)
            for s in driven.spaces.values()
            if s.limit and s.kind != "shortcut"
        }
        assert len(feats["limit"]) == len(corners), face.id
        lines = len(driven.units) - 1 if road.climb else 0
        assert len(feats["climb"]) == lines, face.id
    labels = " ".join(t.text or "" for t in root.iter(f"{NS}text"))
    assert all(face.id in labels for face in faces)


def test_sheet_pages_are_paper_size() -> None:
    faces = default_library().in_box("dirt-climb")
    sheet = tile_sheet(faces, paper="letter")
    root = parse(sheet.pages[0].text)
    assert (root.get("width"), root.get("height")) == ("215.9mm", "279.4mm")
    assert numbers(root.get("viewBox", "")) == [0, 0, 215.9, 279.4]


# --- golden structure of the example maps -------------------------------------------------------


def test_example_maps_match_the_golden_structure() -> None:
    """Regenerate with ``.venv/bin/python scripts/regen_render_golden.py`` and review."""
    golden = json.loads((REPO / "tests" / "golden" / "render-examples.json").read_text("utf-8"))
    for name, expected in golden.items():
        assert structure(render_map(load_stage(EXAMPLES / name)).svg) == expected, name


# --- labels of tiles beside the road (issue 9) -----------------------------------------------


def test_labels_of_tiles_without_road_sit_whole_in_the_middle_of_their_hex() -> None:
    stage = make_stage(
        "202a",
        {"tile": "999x"},  # unknown: drawn without a road
        "203a",
        {"tile": "902a", "at": [0, -1], "dir": 2},
        {"tile": "201a", "at": [1, -2], "dir": 5},
    )
    drawn = render_map(stage)
    root = parse(drawn.svg)
    size = drawn.layout.size
    roadless = [t for t in drawn.layout.tiles if t.road is None]
    assert len(roadless) == 3
    for tile in roadless:
        key = f"s{tile.position}" if tile.index is None else str(tile.index)
        group = by_id(root, f"tile-{key}")
        texts = [t for t in group.iter(f"{NS}text") if t.get("class", "").startswith("tile-label")]
        assert texts and texts[0].text and tile.face_id in texts[0].text
        if tile.face is not None:  # the second line says what the tile is
            assert [t.text for t in texts[1:]] == [tile.face.kind.value]
        for text in texts:
            x, y = float(text.get("x", "")), float(text.get("y", ""))
            fs = float(text.get("font-size", ""))
            # Near the middle (the hex is widest there: ``size`` across the flats) ...
            assert math.hypot(x, y) < 0.1 * size
            # ... and narrow enough to stay inside it (a bold glyph is under 0.66 em).
            assert 0.66 * fs * len(text.text or "") < 0.8 * size


# --- heat maps: the stage's own simulation, with a colour scale (issue 9) ---------------------


def _simulate(path: Path, races: int = 6) -> dict[str, Any]:
    from typer.testing import CliRunner

    from trackkit.cli.app import app

    done = CliRunner().invoke(
        app, ["simulate", str(path), "--races", str(races), "--seed", "5", "--format", "json"]
    )
    assert done.exit_code == 0, done.output
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def _render_heat(tmp_path: Path, stage: Path, doc: object) -> Any:
    from typer.testing import CliRunner

    from trackkit.cli.app import app

    sim = tmp_path / "sim.json"
    sim.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "heat.svg"
    out.unlink(missing_ok=True)
    result = CliRunner().invoke(app, ["render", str(stage), "-o", str(out), "--heat", str(sim)])
    return result, out


def test_a_simulation_names_its_stage_by_its_tiles() -> None:
    turini = EXAMPLES / "col-de-turini.yaml"
    doc = _simulate(turini)
    layout = validate(load_stage(turini)).layout
    assert doc["stage"] == {"tiles": [t.face_id for t in layout.chain]}


def test_heat_of_another_stage_is_refused(tmp_path: Path) -> None:
    turini, pikes = EXAMPLES / "col-de-turini.yaml", EXAMPLES / "hillclimb-pikes.yaml"
    doc = _simulate(turini)
    result, out = _render_heat(tmp_path, turini, doc)
    assert result.exit_code == 0, result.output
    result, out = _render_heat(tmp_path, pikes, doc)
    assert result.exit_code == 2 and "sim.json" in result.stderr
    assert "another stage" in result.stderr and "Traceback" not in result.output
    assert not out.exists()
    # A document written before the 'stage' field is checked by its spaces.
    old = {k: v for k, v in doc.items() if k != "stage"}
    old["loss_of_control"] = {"by_space": {"8:1.1L": 3, "77:1.1L": 1}}
    result, _ = _render_heat(tmp_path, turini, old)
    assert result.exit_code == 2 and "77:1.1L" in result.stderr
    # A rally's document: the stage drawn is found among its stages.
    rally = {"loss_of_control": {"by_space": {}}, "stages": [_simulate(pikes, 2), doc]}
    result, out = _render_heat(tmp_path, turini, rally)
    assert result.exit_code == 0, result.output
    tinted = {el.get("data-node") for el in spaces(parse(out.read_text())) if "heat" in classes(el)}
    assert tinted == {k for k, v in doc["loss_of_control"]["by_space"].items() if v}
    result, _ = _render_heat(tmp_path, turini, {**rally, "stages": [rally["stages"][0]]})
    assert result.exit_code == 2
    assert "no stage of this rally's simulation (1 stage)" in result.stderr


def test_heat_map_has_a_colour_scale_in_losses_per_race(tmp_path: Path) -> None:
    from trackkit.render.draw import heat_colour

    turini = EXAMPLES / "col-de-turini.yaml"
    doc = _simulate(turini, races=8)
    counts = doc["loss_of_control"]["by_space"]
    assert counts  # the example's corners do see losses of control
    result, out = _render_heat(tmp_path, turini, doc)
    assert result.exit_code == 0, result.output
    root = parse(out.read_text())
    scale = by_id(root, "heat-scale")
    ticks = [t.text for t in scale.iter(f"{NS}text") if t.get("class") == "heat-tick"]
    worst = max(counts.values()) / doc["settings"]["races"]
    assert ticks == [f"{0:.2f}", f"{worst / 2:.2f}", f"{worst:.2f}"]
    title = " ".join(t.text or "" for t in scale.iter(f"{NS}text") if t.get("class") == "title")
    assert "per race" in title and f"over {doc['settings']['races']} race" in title
    bar = next(g for g in scale.iter(f"{NS}g") if g.get("class") == "heat-bar")
    fills = [r.get("fill") for r in bar.iter(f"{NS}rect")]
    assert fills[0] == heat_colour(0.5 / len(fills)) and fills[-1] == heat_colour(
        1 - 0.5 / len(fills)
    )
    # The worst space wears the colour of the bar's end; the scale lies inside the view.
    worst_space = max(counts, key=lambda k: counts[k])
    el = next(e for e in spaces(root) if e.get("data-node") == worst_space)
    assert el.get("style") == f"fill:{heat_colour(1.0)}"
    vb = numbers(root.get("viewBox", ""))
    frame = map_frame(validate(load_stage(turini)).layout, heat=True)
    assert frame.heat is not None
    assert vb[1] + vb[3] >= frame.heat.bottom and vb[0] + vb[2] >= frame.heat.right
    # Without the legend card, the scale still comes with the heat map.
    bare = map_svg(validate(load_stage(turini)), legend=False, heat={worst_space: 2})
    assert by_id(parse(bare.svg), "heat-scale") is not None


def test_a_png_holds_at_most_the_documented_pixels(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from trackkit.cli.app import app
    from trackkit.render.raster import MAX_PNG_PIXELS

    out = tmp_path / "big.png"
    result = CliRunner().invoke(
        app,
        ["render", str(REPO / "examples" / "col-de-turini.yaml"), "-o", str(out), "--px", "20000"],
    )
    assert result.exit_code == 0, result.output
    from PIL import Image

    with Image.open(out) as im:
        assert im.width * im.height <= MAX_PNG_PIXELS
        assert abs(im.width / im.height - 2546.4 / 1789.65) < 0.01  # the map's proportions
    assert "reduced from --px 20000" in result.stdout
