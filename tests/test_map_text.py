"""Words on maps and print pages (issue 19): titles wrap instead of being cut, tile labels
stay clear of the road and of each other, page numbers on the overview too.

Text boxes are estimated from the drawn font size and the character count with the same
generous glyph width the drawing code assumes (bold 0.7 em in the card), and checked with
shapely against the road as the geometry gives it.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest
from stagekit import GT_OVAL, REPO, make_stage

from trackkit.render.svg import CARD_SIZE, card_size, map_svg
from trackkit.validate import validate

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
