"""One drawer for both series (issue 20): a mark of one kind is drawn one way on a DIRT
tile and on a GT piece, the legend and the heat scale are one, and the render modules
stay small and import no private names of each other.

The checks compare the two series' drawings with each other (the same symbol, the same
size relative to the tile, the same stripes), so they fail if one series' mark drifts
from the other's.
"""

from __future__ import annotations

import ast
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
import svgwrite
from stagekit import REPO

from trackkit.formats import load_stage
from trackkit.render.draw import fmt
from trackkit.render.heat import Heat
from trackkit.render.legend import LEGENDS, SAMPLES, draw_heat_scale, draw_legend
from trackkit.render.sheet import face_art
from trackkit.render.svg import Box, render_map
from trackkit.render.tile import draw_tile, look, mark_spots
from trackkit.tiles.library import default_library

NS = "{http://www.w3.org/2000/svg}"
LIB = default_library()
SIZE = 240.0
#: A DIRT stage and a GT track with a corner limit, danger kerbs and a start line each.
MAPS = {"dirt": "col-de-turini.yaml", "gt": "gt-core-circuit.yaml"}
RENDER = REPO / "trackkit" / "render"


def _map(series: str) -> ET.Element:
    return ET.fromstring(render_map(load_stage(REPO / "examples" / MAPS[series])).svg)


@pytest.fixture(scope="module")
def maps() -> dict[str, ET.Element]:
    return {series: _map(series) for series in MAPS}


def _features(root: ET.Element, kind: str) -> list[ET.Element]:
    return [
        g
        for g in root.iter(f"{NS}g")
        if g.get("class", "").split()[:2] == ["feature", kind]
        and "track-token" not in g.get("class", "")
    ]


def _scale(use: ET.Element) -> tuple[float, float]:
    """The lengths of a ``<use>``'s matrix axes: the symbol's scale across and along."""
    m = [float(v) for v in re.findall(r"-?[\d.]+", use.get("transform", ""))]
    return (round((m[0] ** 2 + m[1] ** 2) ** 0.5, 1), round((m[2] ** 2 + m[3] ** 2) ** 0.5, 1))


def _shape(el: ET.Element) -> list[Any]:
    """An element's make-up: its tag, the symbol it places and its scale, text sizes."""
    out: list[Any] = []
    for child in el:
        tag = child.tag.removeprefix(NS)
        if tag == "use":
            out.append((tag, child.get("{http://www.w3.org/1999/xlink}href"), _scale(child)))
        elif tag == "text":
            out.append((tag, child.get("font-size")))
        else:
            out.append((tag, child.get("class"), child.get("stroke-width")))
    return out


def test_a_corner_limit_is_one_disc_and_number_in_both_series(maps: dict[str, ET.Element]) -> None:
    """CORNER-1: the limit in its disc, the same size on a DIRT tile and a GT piece."""
    shapes = {}
    for series, root in maps.items():
        discs = [g for g in _features(root, "limit") if "triangle" not in g.get("class", "")]
        assert discs, series
        shapes[series] = {str(_shape(g)) for g in discs}
    assert shapes["dirt"] == shapes["gt"]
    assert len(shapes["dirt"]) == 1
    assert f"'{fmt(0.056 * SIZE)}'" in next(iter(shapes["dirt"]))


def test_danger_kerbs_are_drawn_alike_in_both_series(maps: dict[str, ET.Element]) -> None:
    """The danger markers at the road ends: the same kerb symbol at the same scale on a
    DIRT tile and a GT piece."""
    kerb = ("use", "#sym-kerb", (round(0.022 * SIZE, 1), round(0.03 * SIZE, 1)))
    for series, root in maps.items():
        groups = _features(root, "danger")
        assert groups, series
        assert {str(part) for g in groups for part in _shape(g)} == {str(kerb)}, series


def test_start_lines_are_one_chequer_in_both_series(maps: dict[str, ET.Element]) -> None:
    """BOARD-3: a start (or start/finish) line is two stripes of paper and ink squares,
    the second shifted by one square, and its words, on both series' tiles."""
    for series, kind in (("dirt", "start"), ("gt", "start-finish")):
        (line,) = _features(maps[series], kind)
        stripes = [el for el in line if el.get("class") in ("paper", "ink")]
        assert [el.get("class") for el in stripes] == ["paper", "ink", "paper", "ink"], series
        width = stripes[0].get("stroke-width")
        assert {el.get("stroke-width") for el in stripes} == {width}
        inks = [el for el in stripes if el.get("class") == "ink"]
        assert [el.get("stroke-dasharray") for el in inks] == [f"{width} {width}"] * 2
        assert [el.get("stroke-dashoffset") for el in inks] == ["0", width]
        assert line[-1].tag == f"{NS}text"


@pytest.mark.parametrize("face_id", ["217a", "418a", "117a", "101", "153b"])
def test_one_drawer_draws_every_face(face_id: str) -> None:
    """draw_tile draws a face of either series: a DIRT tile in one group, a GT piece in
    its tile and its marks, each space once with the ids its look gives."""
    face = LIB.get(face_id)
    assert face is not None
    art = face_art(face)
    groups = draw_tile(svgwrite.Drawing(), art, size=SIZE)
    assert len(groups) == (2 if face.layout is not None else 1)
    text = "".join(g.tostring() for g in groups)
    spaces = list(look(art).spaces(art, SIZE))
    assert text.count('class="space ') == len(spaces)
    assert spaces or 'class="feature pit"' in text  # the pit tile: its board (GT-2)
    assert all(f'id="{s.ident}"' in text for s in spaces)


def test_mark_spots_hold_the_kerbs_and_tokens_of_both_series() -> None:
    """What a print and the labels keep whole: the danger kerbs of a GT piece with danger
    and a DIRT road's kerbs, and a token beside either road."""
    for face_id in ("217a", "117a"):
        face = LIB.get(face_id)
        assert face is not None
        art = face_art(face)
        bare = mark_spots(art, SIZE, kerbs=False)
        kerbed = mark_spots(art, SIZE, kerbs=True)
        assert len(kerbed) > len(bare), face_id


def test_every_legend_sample_is_drawn_and_shared_ones_look_alike() -> None:
    dwg = svgwrite.Drawing()
    for series, items in LEGENDS.items():
        assert all(kind in SAMPLES for kind, _words in items), series
        legend = draw_legend(dwg, series, x=0, y=0, width=140)
        assert len(legend.elements) == 1 + 2 * len(items)
    dirt, gt = ({kind for kind, _ in LEGENDS[s]} for s in ("dirt", "gt"))
    assert {"danger", "limit"} <= dirt & gt
    for kind in dirt & gt:
        assert SAMPLES[kind](dwg).tostring() == SAMPLES[kind](dwg).tostring()


@pytest.mark.parametrize(
    ("heat", "rows", "rings"),
    [
        (Heat({"1:1.1L": 2}, 4), 1, False),  # DIRT, or a GT race shown without overtakes
        (Heat({"1:A1a": 2}, 4, overtakes={"1:A1a": 3}), 2, True),
        (Heat({}, 4, overtakes={"1:A1a": 3}, losses=False), 1, True),
    ],
)
def test_one_heat_scale_grows_a_row_for_the_overtakes(heat: Heat, rows: int, rings: bool) -> None:
    scale = draw_heat_scale(svgwrite.Drawing(), heat, at=Box(0, 0, 10, 10), scale=1.0)
    text = scale.tostring()
    assert ('class="heat-bar"' in text) == heat.losses
    assert ('class="overtakes-keys"' in text) == rings
    assert float(scale.elements[0]["height"]) == 30.0 + 14.0 * (rows - 1)


def test_render_modules_are_short_or_say_why() -> None:
    """No render module over about 800 lines without a reason stated at its top."""
    for path in sorted(RENDER.glob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        head = "\n".join(lines[:40]).lower()
        assert len(lines) <= 820 or "long because" in head, f"{path.name}: {len(lines)} lines"


def test_render_modules_import_no_private_names() -> None:
    """A module of the package imports no underscore name of another one."""
    for path in sorted(RENDER.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("trackkit"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from {node.module}"


def test_a_token_on_a_tile_without_a_road_is_kept_where_it_is_drawn() -> None:
    """R210: a token placed (``at``) on a tile without a road (an unknown tile, scenery)
    is drawn where it lies; what a print keeps whole and labels keep clear of is that
    place too, not a spot in the row beside the road."""
    from trackkit.models.stage import TileToken
    from trackkit.render.draw import TileArt
    from trackkit.render.tokens import TOKEN_RADIUS
    from trackkit.road.geometry import local_point

    token = TileToken(token="oxygen", value=2, at=(0.1, -0.2))
    art = TileArt(key="s1", face=None, road=None, tokens=[token])
    text = "".join(g.tostring() for g in draw_tile(svgwrite.Drawing(), art, size=SIZE))
    x, y = local_point((0.1, -0.2), SIZE)
    assert f"{fmt(x)},{fmt(y)})" in text  # the token's disc, placed by its matrix
    assert mark_spots(art, SIZE, kerbs=True) == [((x, y), 1.2 * TOKEN_RADIUS * SIZE)]
