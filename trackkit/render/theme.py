"""Colours and the font of every drawing, in one dict with readable keys.

A theme is a flat ``dict[str, str]``: :data:`DEFAULT_THEME` holds every key; a user's
theme (``--theme FILE``, a JSON object) overrides some of them. Values end up in a
``<style>`` block, so a theme file is data, never CSS: a colour is a CSS colour name,
``#rgb``, ``#rrggbb`` or ``rgb(r, g, b)`` (checked by tinycss2, CairoSVG's CSS parser), and
``font`` a list of font family names; anything else is refused, naming the key.

Examples
--------
>>> theme = make_theme({"surface.gravel": "#e0c9a0", "font": "'Open Sans', serif"})
>>> theme["surface.gravel"], theme["danger.high"], theme["font"]
('#e0c9a0', '#d7191c', '"Open Sans", serif')
>>> make_theme({"danger.high": "red; } svg { display: none"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: theme key 'danger.high': 'red; } svg { display: none' is not a colour ...
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import tinycss2
import tinycss2.color3

from trackkit.errors import InputError
from trackkit.formats.source import MAX_THEME_BYTES, read_json

__all__ = ["CSS_PARTS", "DEFAULT_THEME", "Theme", "css", "load_theme", "make_theme"]

Theme = dict[str, str]

#: Every colour of the drawings, and the font. Keys read "what.which".
DEFAULT_THEME: Theme = {
    "font": "DejaVu Sans, Verdana, Arial, sans-serif",
    "background": "#f6f3ec",
    "text": "#1f1f1f",
    "muted": "#6b6b6b",
    # The hex of a tile, tinted by its surface (BOARD-4) ...
    "surface.gravel": "#e9dcbc",
    "surface.asphalt": "#dde1e4",
    "surface.snow": "#f4f8fd",
    "surface.none": "#d3e3bd",
    "hex.edge": "#8c8474",
    # ... and its road.
    "road.gravel": "#c9a468",
    "road.asphalt": "#a3a9af",
    "road.snow": "#ffffff",
    "road.none": "#d6c6a2",
    "space.line": "#2b2b2b",
    "slide.line": "#111111",
    "slide.fill": "#e8cf9d",
    "shortcut.fill": "#a8c47a",
    "shortcut.line": "#3d5a1e",
    "limit.ring": "#c8102e",
    "limit.fill": "#ffffff",
    "limit.text": "#111111",
    "limit.mud": "#7b5a36",
    "jump": "#1b1b1b",
    "ford": "#1f74c7",
    "climb": "#6a3d9a",
    "start": "#111111",
    "finish": "#111111",
    "danger.low": "#f2c500",
    "danger.medium": "#f28c00",
    "danger.high": "#d7191c",
    "token.oxygen": "#2f7dc4",
    "token.cloud": "#8d99a6",
    "token.mud": "#7b5a36",
    "token.climb": "#6a3d9a",
    "token.unknown": "#888888",
    "token.text": "#ffffff",
    "label": "#4a4438",
    "card.fill": "#ffffff",
    "card.edge": "#555555",
    "page.trim": "#9a9a9a",
    "page.mark": "#000000",
    "unknown.fill": "#f1d4d4",
    # Rallyman: GT
    "triangle.fill": "#ffd23f",
    "dotted.line": "#111111",
    "grid.mark": "#ffffff",
    "direction": "#1f5fbf",
    "pit.board": "#c4c9ce",
    "pit.line": "#ffffff",
    "pit.access": "#1f5fbf",
    "hidden.line": "#4d4d4d",
    # Heat maps of Rallyman: GT races: the overtakes' rings
    "overtakes.ring": "#1c2a78",
}

#: The forms of colour a theme accepts; tinycss2 then checks that it is a colour.
_COLOUR_FORM = re.compile(
    r"#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-zA-Z]{3,30}"
    r"|rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)"
)
#: What a font family name may hold (no quotes, no backslashes, no CSS punctuation).
_FAMILY = re.compile(r"[\w][\w \-]*")
_MAX_FONT = 120


def _colour(value: str) -> str | None:
    """``value`` as a theme colour, or None if it is none of the accepted forms."""
    text = value.strip()
    if _COLOUR_FORM.fullmatch(text) is None:
        return None
    parsed = tinycss2.color3.parse_color(text)
    if not isinstance(parsed, tinycss2.color3.RGBA):  # None, or 'currentColor'
        return None
    if max(parsed.red, parsed.green, parsed.blue) > 1.0:  # rgb(300, 0, 0)
        return None
    return text


def _font(value: str) -> str | None:
    """``value`` as a font list (``"Open Sans", Arial, sans-serif``), or None if it is not
    one: families separated by commas, each one name in quotes or plain words."""
    if len(value) > _MAX_FONT:
        return None
    families: list[str] = []
    family: list[str] = []  # the words of the family being read
    quoted: str | None = None
    for token in [*tinycss2.parse_component_value_list(value), None]:
        kind = getattr(token, "type", None)
        if kind == "whitespace":
            continue
        if token is None or (kind == "literal" and token.value == ","):
            if quoted is not None and not family:
                families.append(f'"{quoted}"')
            elif family and quoted is None:
                families.append(" ".join(family))
            else:
                return None  # an empty family, or a quoted name with words beside it
            family, quoted = [], None
        elif kind == "ident" and quoted is None and _FAMILY.fullmatch(token.value):
            family.append(token.value)
        elif kind == "string" and quoted is None and not family:
            name = token.value.strip()
            if not _FAMILY.fullmatch(name):
                return None
            quoted = name
        else:
            return None  # a bad string, a function, a number, other punctuation
    return ", ".join(families)


def make_theme(overrides: Mapping[str, object] | None = None) -> Theme:
    """The default theme with ``overrides`` applied, every value checked.

    Raises
    ------
    ValueError
        For an unknown key or a value that is not a colour (or, for ``font``, a font list).
    """
    theme = dict(DEFAULT_THEME)
    for key, value in (overrides or {}).items():
        if key not in DEFAULT_THEME:
            raise ValueError(f"unknown theme key {key!r}; keys: {', '.join(DEFAULT_THEME)}")
        if not isinstance(value, str):
            raise ValueError(f"theme key {key!r}: expected a string, got {type(value).__name__}")
        if key == "font":
            font = _font(value)
            if font is None:
                raise ValueError(
                    f"theme key 'font': {value[:60]!r} is not a font list (family names "
                    "of letters, digits, spaces and hyphens, in quotes or not, separated by "
                    f"commas; at most {_MAX_FONT} characters)"
                )
            theme[key] = font
            continue
        colour = _colour(value)
        if colour is None:
            raise ValueError(
                f"theme key {key!r}: {value[:60]!r} is not a colour "
                "(#rgb, #rrggbb, rgb(r, g, b) with r, g, b from 0 to 255, or a CSS colour name)"
            )
        theme[key] = colour
    return theme


def load_theme(path: str | Path) -> Theme:
    """A theme from a JSON file holding an object of overrides.

    Raises
    ------
    InputError
        If the file cannot be read (missing, not a regular file, over 1 MB), is not a JSON
        object, or holds a bad key or value.
    """
    file = str(path)
    data = read_json(path, what="theme file", limit=MAX_THEME_BYTES)
    if not isinstance(data, dict):
        raise InputError(file, "a theme is a JSON object of 'key': 'colour' pairs")
    try:
        return make_theme(data)
    except ValueError as exc:
        raise InputError(file, str(exc)) from None


#: Groups of style rules; a drawing carries only the groups it uses (a smaller style
#: block is faster to convert: print pages are converted by the dozen). "heat" (the
#: overtakes of a GT heat map) is added only to the maps that draw them.
CSS_PARTS = ("base", "map", "card", "page")


def css(theme: Theme, parts: tuple[str, ...] = CSS_PARTS) -> str:
    """The ``<style>`` text of a drawing for ``theme``, with the rule groups in ``parts``.

    Symbols take their colours from the ``<use>`` that places them (renderers such as
    CairoSVG do not style the inside of a symbol by class), so rules target ``use``.
    """
    t = theme
    groups: dict[str, list[str]] = {
        "base": [
            f"svg {{ font-family: {t['font']}; }}",
            f".background {{ fill: {t['background']}; }}",
            f"text {{ fill: {t['text']}; }}",
            f".muted {{ fill: {t['muted']}; }}",
            ".title { font-weight: bold; }",
        ],
        "map": [
            f".hex {{ stroke: {t['hex.edge']}; stroke-width: 0.6; }}",
            *(
                f".surface-{s} .hex {{ fill: {t['surface.' + s]}; }} "
                f".surface-{s} .space {{ fill: {t['road.' + s]}; }}"
                for s in ("gravel", "asphalt", "snow", "none")
            ),
            f".unknown .hex {{ fill: {t['unknown.fill']}; stroke-dasharray: 4 3; }}",
            # on the map but not on the road (an editor file's road breaks before it)
            ".undriven { opacity: 0.55; }",
            ".undriven .hex { stroke-dasharray: 4 3; }",
            f".space {{ stroke: {t['space.line']}; stroke-width: 0.7; stroke-linejoin: round; }}",
            f".space.kind-slide {{ fill: {t['slide.fill']}; fill-opacity: 0.5; stroke: none; }}",
            f".slide {{ stroke: {t['slide.line']}; stroke-width: 1.2; "
            "stroke-dasharray: 1.4 2.2; stroke-linecap: round; }",
            f".space.kind-shortcut {{ fill: {t['shortcut.fill']}; "
            f"stroke: {t['shortcut.line']}; stroke-dasharray: 3 2; }}",
            f".limit use {{ fill: {t['limit.fill']}; stroke: {t['limit.ring']}; }}",
            f".limit text {{ fill: {t['limit.text']}; font-weight: bold; }}",
            f".limit.muddy text {{ fill: {t['limit.mud']}; }}",
            f".shortcut use {{ fill: none; stroke: {t['shortcut.line']}; }}",
            ".shortcut use.badge { fill: #ffffff; fill-opacity: 0.85; }",
            f".shortcut text {{ fill: {t['shortcut.line']}; font-weight: bold; }}",
            f".jump use {{ fill: none; stroke: {t['jump']}; }}",
            f".jump text {{ fill: {t['jump']}; font-weight: bold; }}",
            f".ford use {{ fill: none; stroke: {t['ford']}; }}",
            f".climb use {{ fill: {t['climb']}; stroke: {t['climb']}; }}",
            f".climb text {{ fill: {t['climb']}; font-weight: bold; }}",
            f".start line.ink {{ stroke: {t['start']}; }}",
            f".finish line.ink {{ stroke: {t['finish']}; }}",
            ".start line.paper, .finish line.paper { stroke: #ffffff; }",
            f".start text {{ fill: {t['start']}; font-weight: bold; }}",
            f".finish text {{ fill: {t['finish']}; font-weight: bold; }}",
            *(
                f".danger.danger-{d} use {{ fill: {t['danger.' + d]}; }}"
                for d in ("low", "medium", "high")
            ),
            ".danger use { stroke: #000000; }",
            *(
                f".token-{k} use {{ fill: {t['token.' + k]}; stroke: #ffffff; }}"
                for k in ("oxygen", "cloud", "mud", "climb", "unknown")
            ),
            f".token use.glyph {{ fill: {t['token.text']}; stroke: none; }}",
            f".token text {{ fill: {t['token.text']}; font-weight: bold; }}",
            f".tile-label {{ fill: {t['label']}; font-weight: bold; }}",
            f".tile-label-sub {{ fill: {t['label']}; }}",
            f".overview-road {{ fill: none; stroke: {t['text']}; stroke-linecap: round; }}",
            # Rallyman: GT pieces (trackkit.render.gt_road)
            ".feature polyline { fill: none; }",
            f".space.hidden {{ fill: none; stroke: {t['hidden.line']}; stroke-dasharray: 3 2; }}",
            ".space.off-track { fill-opacity: 0.45; stroke-opacity: 0.5; }",
            ".off-track { opacity: 0.5; }",
            ".space.overlap { fill-opacity: 0.6; stroke-dasharray: 2.5 1.5; }",
            f".space.pit-access {{ stroke: {t['pit.access']}; stroke-width: 1.4; }}",
            f".limit.triangle use {{ fill: {t['triangle.fill']}; stroke: {t['limit.ring']}; }}",
            f".dotted use.badge {{ fill: #ffffff; stroke: {t['dotted.line']}; }}",
            f".dotted use.sign {{ fill: {t['triangle.fill']}; stroke: {t['limit.ring']}; }}",
            f".dotted text {{ fill: {t['dotted.line']}; font-weight: bold; }}",
            ".dotted-under { fill: none; stroke: #ffffff; stroke-width: 1.8; "
            "stroke-linecap: round; }",
            f".dotted-line {{ fill: none; stroke: {t['dotted.line']}; stroke-width: 1.3; "
            "stroke-dasharray: 0.1 2.3; stroke-linecap: round; }",
            f".start-finish .ink, .start .ink, .finish .ink {{ stroke: {t['start']}; }}",
            ".start-finish .paper, .start .paper, .finish .paper { stroke: #ffffff; }",
            f".start-finish text {{ fill: {t['start']}; font-weight: bold; }}",
            f".grid-mark {{ fill: none; stroke: {t['grid.mark']}; stroke-linecap: round; "
            "stroke-linejoin: round; }",
            f".grid text {{ fill: {t['text']}; font-weight: bold; }}",
            f".direction use {{ fill: {t['direction']}; stroke: #ffffff; }}",
            f".pit-column {{ fill: {t['pit.board']}; stroke: {t['pit.line']}; "
            "stroke-width: 0.8; }",
            f".pit text {{ fill: {t['text']}; font-weight: bold; }}",
        ],
        "card": [
            f".card {{ fill: {t['card.fill']}; stroke: {t['card.edge']}; }}",
            f".card-rule {{ stroke: {t['card.edge']}; }}",
        ],
        # only in a heat map that shows overtakes (trackkit.render.gt_road.overtake_layer)
        "heat": [
            f".overtakes .ring, .overtakes-key .ring {{ fill: {t['overtakes.ring']}; "
            f"fill-opacity: 0.3; stroke: {t['overtakes.ring']}; }}",
            ".overtakes .halo, .overtakes-key .halo { fill: none; stroke: #ffffff; }",
        ],
        "page": [
            f".trim {{ fill: none; stroke: {t['page.trim']}; stroke-width: 0.25; }}",
            f".glue {{ fill: none; stroke: {t['page.trim']}; stroke-width: 0.25; "
            "stroke-dasharray: 2 1.5; }",
            f".mark {{ fill: none; stroke: {t['page.mark']}; stroke-width: 0.25; }}",
            f".ink {{ fill: {t['page.mark']}; }} .paper {{ fill: #ffffff; }}",
            f".scale-bar rect {{ stroke: {t['page.mark']}; stroke-width: 0.2; }}",
            f".cell {{ fill: none; stroke: {t['page.mark']}; stroke-width: 0.3; }}",
            f".cell.blank {{ stroke: {t['page.trim']}; stroke-dasharray: 1 1; }}",
            f".cell-number {{ fill: {t['page.mark']}; font-weight: bold; }}",
        ],
    }
    return "\n".join(rule for part in parts for rule in groups[part])
