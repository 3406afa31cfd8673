"""Words on maps and print pages (issue 19): titles wrap instead of being cut, tile labels
stay clear of the road and of each other, page numbers on the overview too.

Text boxes are estimated from the drawn font size and the character count with the same
generous glyph width the drawing code assumes (bold 0.7 em in the card), and checked with
shapely against the road as the geometry gives it.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from stagekit import GT_OVAL, REPO, make_stage

from trackkit.checks.pipeline import validate
from trackkit.formats import load_stage
from trackkit.render.svg import CARD_SIZE, card_size, map_svg

NS = "{http://www.w3.org/2000/svg}"
EXAMPLES = REPO / "examples"

NAMES = [
    "Core circuit",
    "Circuit 1 (gt-core, gt-championship; seed 3)",  # what 'trackkit generate' names a track
    "Grand Prix de la Principauté de Monaco, tracé historique des années soixante (1955-1972)",
    "Supercalifragilisticexpialidocious-and-then-some-more-words-without-any-space",
]


def card_texts(svg: str) -> tuple[list[ET.Element], float]:
    """The texts of the title block's left column, and the card's height (card units)."""
    root = ET.fromstring(svg)
    card = root.find(f".//{NS}g[@id='title-block']")
    assert card is not None
    rect = card.find(f"{NS}rect")
    assert rect is not None
    texts = card.findall(f"{NS}text")  # the legend's texts are in a group of their own
    return texts, float(rect.get("height", 0))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("series", ["gt", "dirt"])
def test_a_long_title_wraps_onto_more_lines_and_nothing_is_cut(name: str, series: str) -> None:
    tiles = GT_OVAL if series == "gt" else ({"tile": "202a"}, {"tile": "205a"}, {"tile": "203a"})
    author = "somebody with a rather long name, and the club they drive for"
    report = validate(make_stage(*tiles, name=name, author=author))
    svg = map_svg(report).svg
    texts, height = card_texts(svg)
    assert texts
    assert not [t.text for t in texts if "…" in (t.text or "")]
    title = [t for t in texts if t.get("class") == "title"]
    by = [t for t in texts if t.get("class") == "muted author"]
    for lines, whole in ((title, name), (by, f"by {author}")):
        # nothing lost: the lines hold every character (wrapped at spaces, or inside a
        # word longer than a line)
        assert "".join(t.text or "" for t in lines).replace(" ", "") == whole.replace(" ", "")
        assert all(t.text for t in lines)
    # every line fits the left column (140 units from x = 6; bold glyphs 0.7 em) ...
    for t in texts:
        em = 0.7 if t.get("class") == "title" else 0.6
        x, size = float(t.get("x", 0)), float(t.get("font-size", 0))
        assert x + em * size * len(t.text or "") <= 6 + 140 + 0.5, t.text
    # ... the lines follow each other without touching, and all lie on the card
    ys = [(float(t.get("y", 0)), float(t.get("font-size", 0))) for t in texts]
    for (y0, _s0), (y1, s1) in itertools.pairwise(ys):
        assert y1 - y0 >= s1, (y0, y1)
    assert ys[-1][0] <= height
    assert height >= CARD_SIZE[1]
    assert height == pytest.approx(card_size(report.summary, report)[1], abs=0.01)
    # the map's view holds the (taller) card
    root = ET.fromstring(svg)
    view = [float(v) for v in (root.get("viewBox") or "").split()]
    card = root.find(f".//{NS}g[@id='title-block']")
    assert card is not None
    move, scale = (card.get("transform") or "").split(" scale(")
    x, y = (float(v) for v in move[len("translate(") : -1].split(","))
    assert y + height * float(scale[:-1]) <= view[1] + view[3] + 1e-6


def test_generated_gt_track_names_are_shown_whole() -> None:
    # 'trackkit generate' names its tracks after the boxes and the seed: before, 10 of 14
    # such maps showed the name cut with '…'
    name = "Circuit 12 (gt-core, gt-championship, gt-world-tour; seed 1234)"
    svg = map_svg(validate(make_stage(*GT_OVAL, name=name))).svg
    texts, _ = card_texts(svg)
    shown = " ".join(t.text or "" for t in texts if t.get("class") == "title")
    assert shown == name


# --- tile labels: clear of the road and of each other -----------------------------------------

#: A circuit 'trackkit generate --ruleset gt --boxes gt-core --boxes gt-championship --seed 3'
#: made: chosen tile by tile, the label of its 109a sat on the road of the 110a beside it,
#: and those of its 130a and 123a touched.
GENERATED = (
    {"tile": "102a"},
    {"tile": "106a", "turn": "right"},
    {"tile": "110a", "enter": 3},
    {"tile": "109a", "turn": "right"},
    {"tile": "123a", "turn": "left"},
    {"tile": "128a", "turn": "right"},
    {"tile": "121a", "turn": "right"},
    {"tile": "130a"},
    {"tile": "107a", "turn": "left"},
    {"tile": "127a", "turn": "right"},
    {"tile": "124a", "turn": "right"},
    {"tile": "118a", "turn": "right"},
)

#: Glyph width and height of the labels' bold sans type, as shares of the type size
#: (DejaVu Sans Bold, the theme's font: digits and lower case about 0.63-0.7 em wide,
#: the middle dot narrower; capitals and digits 0.73 em high).
GLYPH_W, CAP_H = 0.66, 0.73


def _transform(text: str) -> tuple[float, float, float]:
    """``translate(x,y) rotate(a)`` -> (x, y, a)."""
    import re

    move = re.search(r"translate\(([-\d.]+),([-\d.]+)\)", text)
    turn = re.search(r"rotate\(([-\d.]+)", text)
    assert move
    return float(move.group(1)), float(move.group(2)), float(turn.group(1)) if turn else 0.0


def drawn_labels(svg: str) -> dict[str, Any]:
    """Each tile label's text box on the map (shapely, map mm), read back from the SVG:
    its tile's place and turn, the text's own place, size and characters."""
    import math

    from shapely.geometry import box

    root = ET.fromstring(svg)
    out: dict[str, Any] = {}
    for group in root.iter(f"{NS}g"):
        gid = group.get("id", "")
        if not gid.startswith(("tile-", "marks-")):
            continue
        cx, cy, turn = _transform(group.get("transform", ""))
        for t in group.iter(f"{NS}text"):
            if t.get("class") != "tile-label":
                continue
            fs = float(t.get("font-size", 0))
            x, base = float(t.get("x", 0)), float(t.get("y", 0))
            y = base - 0.36 * fs  # the middle of the capitals (draw.upright_text)
            a = math.radians(turn)
            wx = cx + math.cos(a) * x - math.sin(a) * y
            wy = cy + math.sin(a) * x + math.cos(a) * y
            w, h = GLYPH_W * fs * len(t.text or "") / 2, CAP_H * fs / 2
            key = gid.split("-", 1)[1]
            shape = box(wx - w, wy - h, wx + w, wy + h)
            out[key] = out[key].union(shape) if key in out else shape  # a label on two lines
    return out


LABEL_STAGES = {
    "turini": lambda: load_stage(EXAMPLES / "col-de-turini.yaml"),
    "pikes": lambda: load_stage(EXAMPLES / "hillclimb-pikes.yaml"),
    "broken": lambda: load_stage(EXAMPLES / "broken-stage.yaml"),
    "gt core": lambda: load_stage(EXAMPLES / "gt-core-circuit.yaml"),
    "gt eight": lambda: load_stage(EXAMPLES / "gt-figure-eight.rekee.json"),
    "gt oval": lambda: make_stage(*GT_OVAL),
    "gt generated": lambda: make_stage(*GENERATED),
}


@pytest.mark.parametrize("which", sorted(LABEL_STAGES))
def test_tile_labels_keep_clear_of_every_road_and_of_each_other(which: str) -> None:
    from shapely.ops import unary_union

    from trackkit.render.pages import road_shapes

    report = validate(LABEL_STAGES[which]())
    labels = drawn_labels(map_svg(report).svg)
    drawn = [t for t in report.layout.chain if t.visit_of is None]
    assert len(labels) >= len(drawn)  # every tile has its label
    road = unary_union(road_shapes(report.layout))  # every space of every tile
    for key, shape in labels.items():
        assert shape.intersection(road).area < 1.0, (key, shape.intersection(road).area)
    keys = sorted(labels)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            assert not labels[a].intersects(labels[b]), (a, b)


def test_the_print_overview_title_wraps_too() -> None:
    from trackkit.render.pages import print_pages

    name = NAMES[2]
    report = validate(make_stage(*GT_OVAL, name=name))
    root = ET.fromstring(print_pages(report, report.layout).overview.text)
    big = [t.text or "" for t in root.iter(f"{NS}text") if t.get("font-size") == "6"]
    assert len(big) > 1 and not any("…" in t for t in big)
    assert " ".join(big) == f"{name} — assembly plan"
