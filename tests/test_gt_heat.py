"""The heat map of a Rallyman: GT race (issue 12, item 4): losses of control as the fill of
the spaces, overtakes as rings on them, both read from ``trackkit simulate --format json``.

The documents are seeded simulations of the example circuit; every expectation is taken
from the document (which spaces saw overtakes, how many) or from the map's own shapes.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from shapely.geometry import Point, Polygon
from stagekit import REPO
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.render.draw import heat_colour
from trackkit.render.gt_road import OVERTAKE_HALO, overtake_ring
from trackkit.render.heat import Heat, read_heat
from trackkit.render.svg import map_svg

NS = "{http://www.w3.org/2000/svg}"
CORE = REPO / "examples" / "gt-core-circuit.yaml"
EIGHT = REPO / "examples" / "gt-figure-eight.rekee.json"
TURINI = REPO / "examples" / "col-de-turini.yaml"
SIZE = 240.0
runner = CliRunner()


def _simulate(path: Path, races: int) -> dict[str, Any]:
    args = ["simulate", str(path), "--races", str(races), "--seed", "11", "--players", "4"]
    done = runner.invoke(app, [*args, "--format", "json"])
    assert done.exit_code == 0, done.output
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


@pytest.fixture(scope="module")
def core_doc() -> dict[str, Any]:
    doc = _simulate(CORE, 6)
    assert doc["overtakes"]["by_space"] and doc["loss_of_control"]["by_space"]
    return doc


@pytest.fixture(scope="module")
def core_map(core_doc: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> ET.Element:
    """The circuit's heat map of ``core_doc``, drawn by the command line once."""
    result, out = _render(tmp_path_factory.mktemp("heat"), CORE, core_doc)
    assert result.exit_code == 0, result.output
    return ET.parse(out).getroot()


def _render(tmp_path: Path, stage: Path, doc: object, *extra: str, name: str = "map.svg") -> Any:
    sim = tmp_path / "sim.json"
    sim.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / name
    out.unlink(missing_ok=True)
    result = runner.invoke(app, ["render", str(stage), "-o", str(out), "--heat", str(sim), *extra])
    return result, out


def classes(el: ET.Element) -> set[str]:
    return set(el.get("class", "").split())


def the_map(root: ET.Element) -> ET.Element:
    found = root.find(f".//{NS}g[@id='map']")
    assert found is not None
    return found


def rings(root: ET.Element) -> dict[str, ET.Element]:
    """Graph node -> its overtake mark, on the map."""
    return {
        str(g.get("data-node")): g
        for g in the_map(root).iter(f"{NS}g")
        if "overtakes" in classes(g)
    }


def circle(mark: ET.Element, cls: str) -> tuple[float, float, float, float]:
    """(cx, cy, r, stroke width) of a mark's ring or halo."""
    c = next(e for e in mark if e.get("class") == cls)
    return (
        float(c.get("cx", "0")),
        float(c.get("cy", "0")),
        float(c.get("r", "0")),
        float(c.get("stroke-width", "0")),
    )


def outline(path: ET.Element) -> Polygon:
    """The polygon of a space's path (``M x,y L x,y ... Z``, one ring)."""
    d = path.get("d", "")
    ring = d.split("Z")[0]
    points = [tuple(map(float, p.split(","))) for p in re.findall(r"-?[\d.]+,-?[\d.]+", ring)]
    return Polygon(points)


def test_rings_mark_exactly_the_spaces_with_overtakes_sized_by_their_counts(
    core_map: ET.Element, core_doc: dict[str, Any]
) -> None:
    root = core_map
    counts = {n: c for n, c in core_doc["overtakes"]["by_space"].items() if c}
    marks = rings(root)
    assert set(marks) == set(counts)
    most = max(counts.values())
    full = set()  # the rings drawn at their size (a ring shrinks only to fit its space)
    for node, mark in marks.items():
        assert mark.get("id") == "overtakes-" + node.replace(":", "-")
        r, w, opacity = overtake_ring(counts[node] / most, SIZE)
        _x, _y, drawn_r, drawn_w = circle(mark, "ring")
        assert drawn_w == pytest.approx(w, abs=0.01)
        assert float(mark.get("opacity", "0")) == pytest.approx(opacity, abs=0.01)
        assert drawn_r <= r + 0.01
        if drawn_r >= r - 0.01:
            full.add(node)
    assert len(full) >= 0.9 * len(marks)
    # The order of the counts is the order of the rings' strokes and sizes.
    order = sorted(marks, key=lambda n: counts[n])
    for a, b in itertools.pairwise(order):
        (_xa, _ya, ra, wa), (_xb, _yb, rb, wb) = circle(marks[a], "ring"), circle(marks[b], "ring")
        if counts[a] < counts[b]:
            assert wa < wb, (a, b)
        else:
            assert wa == wb, (a, b)
    ranked = [n for n in order if n in full]
    for a, b in itertools.pairwise(ranked):
        ra, rb = circle(marks[a], "ring")[2], circle(marks[b], "ring")[2]
        assert ra < rb if counts[a] < counts[b] else ra == rb, (a, b)
    big, small = ranked[-1], ranked[0]
    assert counts[big] > counts[small]
    assert circle(marks[big], "ring")[2] > 1.5 * circle(marks[small], "ring")[2]


def test_rings_lie_inside_their_space_under_every_mark(
    core_map: ET.Element, core_doc: dict[str, Any]
) -> None:
    root = core_map
    groups = list(the_map(root))
    kinds = [
        "tile" if "tile" in classes(g) else "rings" if "overtakes-layer" in classes(g) else "marks"
        for g in groups
    ]
    # every tile, then every piece's overtakes, then every piece's marks (numbers on top)
    assert kinds == sorted(kinds, key=["tile", "rings", "marks"].index)
    assert "rings" in kinds
    paths = {
        p.get("data-node"): p
        for p in the_map(root).iter(f"{NS}path")
        if "space" in classes(p) and p.get("data-node")
    }
    for layer in (g for g in groups if "overtakes-layer" in classes(g)):
        tile = next(g for g in groups if g.get("id") == "tile-" + layer.get("id", "")[10:])
        assert layer.get("transform") == tile.get("transform")  # the same frame
        for mark in layer:
            x, y, r, w = circle(mark, "ring")
            halo = circle(mark, "halo")
            assert (halo[0], halo[1], halo[2]) == (x, y, r)
            assert halo[3] == pytest.approx(w + OVERTAKE_HALO * SIZE, abs=0.01)
            space = outline(paths[mark.get("data-node")])
            reach = Point(x, y).buffer(r + halo[3] / 2)
            assert space.buffer(0.05).contains(reach), mark.get("id")  # inside its lines


def test_losses_of_control_fill_the_spaces_as_before(
    core_map: ET.Element, core_doc: dict[str, Any]
) -> None:
    root = core_map
    losses = {n: c for n, c in core_doc["loss_of_control"]["by_space"].items() if c}
    worst = max(losses.values())
    tinted = {
        str(p.get("data-node")): p.get("style")
        for p in the_map(root).iter(f"{NS}path")
        if "heat" in classes(p)
    }
    assert tinted == {n: f"fill:{heat_colour(c / worst)}" for n, c in losses.items()}
    # The fill is what a heat map of the losses alone draws: the rings come on top.
    report = validate(load_stage(CORE))
    alone = map_svg(report, heat=Heat(losses, core_doc["settings"]["races"]))
    alone_tinted = {
        str(p.get("data-node")): p.get("style")
        for p in the_map(ET.fromstring(alone.svg)).iter(f"{NS}path")
        if "heat" in classes(p)
    }
    assert alone_tinted == tinted


def test_the_scale_names_both_and_the_races(core_map: ET.Element, core_doc: dict[str, Any]) -> None:
    root = core_map
    scale = root.find(f".//{NS}g[@id='heat-scale']")
    assert scale is not None
    words = " ".join(t.text or "" for t in scale.iter(f"{NS}text"))
    races = core_doc["settings"]["races"]
    assert f"over {races} races" in words
    assert "losses of control" in words and "overtakes" in words
    assert next(g for g in scale.iter(f"{NS}g") if g.get("class") == "heat-bar") is not None
    keys = [g for g in scale.iter(f"{NS}g") if g.get("class") == "overtakes-key"]
    most = max(core_doc["overtakes"]["by_space"].values())
    assert len(keys) == len({1, (most + 1) // 2, most})
    ticks = [t.text for t in scale.iter(f"{NS}text") if t.get("class") == "heat-tick"]
    assert f"{most / races:.2f}" in ticks and f"{1 / races:.2f}" in ticks
    # the key's rings are the map's rings, in card units
    k = float(re.findall(r"scale\(([\d.]+)\)", scale.get("transform", ""))[0])
    r_most = circle(keys[-1], "ring")[2] * k
    assert r_most == pytest.approx(overtake_ring(1.0, SIZE)[0], abs=0.05)
    # the taller scale lies inside the view
    box = [float(v) for v in root.get("viewBox", "").split()]
    sx, sy = (
        float(v)
        for v in re.findall(r"translate\(([-\d.]+),([-\d.]+)\)", scale.get("transform", ""))[0]
    )
    card = next(e for e in scale if e.tag == f"{NS}rect")
    assert sy + float(card.get("height", "0")) * k <= box[1] + box[3] + 0.01
    assert ".overtakes .ring" in "".join(s.text or "" for s in root.iter(f"{NS}style"))
    assert sx >= box[0]


def test_heat_show_draws_one_or_the_other(tmp_path: Path, core_doc: dict[str, Any]) -> None:
    result, out = _render(tmp_path, CORE, core_doc, "--heat-show", "overtakes")
    assert result.exit_code == 0, result.output
    root = ET.parse(out).getroot()
    assert set(rings(root)) == {n for n, c in core_doc["overtakes"]["by_space"].items() if c}
    assert not [p for p in the_map(root).iter(f"{NS}path") if "heat" in classes(p)]
    scale = root.find(f".//{NS}g[@id='heat-scale']")
    assert scale is not None
    assert not [g for g in scale.iter(f"{NS}g") if g.get("class") == "heat-bar"]

    result, out = _render(tmp_path, CORE, core_doc, "--heat-show", "loss")
    assert result.exit_code == 0, result.output
    svg = out.read_text("utf-8")
    assert not rings(ET.fromstring(svg)) and "overtakes" not in svg
    # exactly the map of the losses alone
    losses = core_doc["loss_of_control"]["by_space"]
    report = validate(load_stage(CORE))
    assert svg == map_svg(report, heat=Heat(losses, core_doc["settings"]["races"])).svg


def test_a_dirt_heat_map_is_unchanged_by_heat_show(tmp_path: Path) -> None:
    doc = _simulate(TURINI, 3)
    made = []
    for extra in ((), ("--heat-show", "both"), ("--heat-show", "loss")):
        result, out = _render(tmp_path, TURINI, doc, *extra)
        assert result.exit_code == 0, result.output
        made.append(out.read_bytes())
    assert made[0] == made[1] == made[2]
    assert b"overtakes" not in made[0]
    report = validate(load_stage(TURINI))
    losses = doc["loss_of_control"]["by_space"]
    assert made[0].decode() == map_svg(report, heat=Heat(losses, doc["settings"]["races"])).svg
    result, out = _render(tmp_path, TURINI, doc, "--heat-show", "overtakes")
    assert result.exit_code == 2 and not out.exists()
    assert "GT races only" in result.stderr and "Traceback" not in result.output


def _broken(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Documents of another track, or malformed, each with what the message names."""
    out = []
    a = copy.deepcopy(doc)
    a["overtakes"]["by_space"]["77:A1a"] = 2
    out.append(("77:A1a", a))
    a = copy.deepcopy(doc)
    a["overtakes"]["by_space"][next(iter(a["overtakes"]["by_space"]))] = 1.5
    out.append(("overtakes.by_space[", a))
    a = copy.deepcopy(doc)
    a["overtakes"] = ["nope"]
    out.append(("overtakes.by_space", a))
    a = copy.deepcopy(doc)
    del a["overtakes"]
    out.append(("--heat-show loss", a))
    # without the 'stage' field, the tiles of by_tile tell another track
    a = copy.deepcopy(doc)
    del a["stage"]
    number, entry = next(iter(a["overtakes"]["by_tile"].items()))
    entry["tile"] = "199z"
    out.append((f"overtakes.by_tile['{number}']", a))
    a = copy.deepcopy(doc)
    a["loss_of_control"]["by_tile"] = {"99": {"tile": "102a", "count": 1}}
    out.append(("loss_of_control.by_tile['99']", a))
    return out


def test_a_document_of_another_track_or_malformed_is_refused(
    tmp_path: Path, core_doc: dict[str, Any]
) -> None:
    result, out = _render(tmp_path, EIGHT, core_doc)  # the figure of eight is not the circuit
    assert result.exit_code == 2 and not out.exists()
    assert "another stage" in result.stderr and "Traceback" not in result.output
    for needle, doc in _broken(core_doc):
        result, out = _render(tmp_path, CORE, doc)
        assert result.exit_code == 2, (needle, result.output)
        assert result.stderr.startswith(f"trackkit: error: {tmp_path / 'sim.json'}: ")
        assert needle in result.stderr and "Traceback" not in result.output
        assert not out.exists()
    # a document without overtakes still draws its losses of control when asked to
    result, out = _render(tmp_path, CORE, _broken(core_doc)[3][1], "--heat-show", "loss")
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        app, ["render", str(CORE), "-o", str(tmp_path / "x.svg"), "--heat-show", "loss"]
    )
    assert result.exit_code == 2 and "--heat" in result.stderr
    assert not (tmp_path / "x.svg").exists()


def test_read_heat_keeps_the_overtakes_of_a_gt_document(core_doc: dict[str, Any]) -> None:
    report = validate(load_stage(CORE))
    heat = read_heat(core_doc, report, source="sim.json")
    assert heat.overtakes == core_doc["overtakes"]["by_space"]
    assert heat.by_space == core_doc["loss_of_control"]["by_space"]
    races = core_doc["settings"]["races"]
    assert heat.races == races and heat.losses
    most = max(core_doc["overtakes"]["by_space"].values())
    assert heat.most_overtakes == most and heat.most_overtakes_per_race == most / races
    only = read_heat(core_doc, report, source="sim.json", show="overtakes")
    assert not only.losses and only.by_space == {} and only.overtakes == heat.overtakes
    assert read_heat(core_doc, report, source="sim.json", show="loss").overtakes is None


def test_a_gt_heat_map_rasterises(tmp_path: Path, core_doc: dict[str, Any]) -> None:
    result, out = _render(tmp_path, CORE, core_doc, "--px", "400", name="map.png")
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
