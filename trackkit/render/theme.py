"""Colours and the font of every drawing, in one dict with readable keys.

A theme is a flat ``dict[str, str]``: :data:`DEFAULT_THEME` holds every key; a user's
theme (``--theme FILE``, a JSON object) overrides some of them. Values end up in a
``<style>`` block, so each one is checked against a strict pattern: a theme file cannot
inject markup or CSS.

Examples
--------
>>> theme = make_theme({"surface.gravel": "#e0c9a0"})
>>> theme["surface.gravel"], theme["danger.high"]
('#e0c9a0', '#d7191c')
>>> make_theme({"danger.high": "red; } svg { display: none"})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: theme key 'danger.high': 'red; } svg { display: none' is not a colour ...
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from trackkit.errors import InputError

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
}

_COLOUR = re.compile(
    r"^(#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6}|[a-zA-Z]{3,30}"
    r"|rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\))$"
)
_FONT = re.compile(r"^[A-Za-z0-9 ,'\-]{1,120}$")


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
            if not _FONT.match(value):
                raise ValueError(
                    f"theme key 'font': {value[:60]!r} is not a font list (letters, digits, "
                    "spaces, commas, quotes and hyphens)"
                )
        elif not _COLOUR.match(value.strip()):
            raise ValueError(
                f"theme key {key!r}: {value[:60]!r} is not a colour "
                "(#rgb, #rrggbb, rgb(r, g, b) or a colour name)"
            )
        theme[key] = value.strip()
    return theme


def load_theme(path: str | Path) -> Theme:
    """A theme from a JSON file holding an object of overrides.

    Raises
    ------
    InputError
        If the file cannot be read, is not a JSON object, or holds a bad key or value.
    """
    file = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(file, f"cannot read theme: {(exc.strerror or str(exc)).lower()}") from None
    if len(raw) > 1_000_000:
        raise InputError(file, "theme file is too large (over 1 MB)")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(file, f"theme is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(file, "a theme is a JSON object of 'key': 'colour' pairs")
    try:
        return make_theme(data)
    except ValueError as exc:
        raise InputError(file, str(exc)) from None


#: Groups of style rules; a drawing carries only the groups it uses (a smaller style
#: block is faster to convert: print pages are converted by the dozen).
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
        ],
        "card": [
            f".card {{ fill: {t['card.fill']}; stroke: {t['card.edge']}; }}",
            f".card-rule {{ stroke: {t['card.edge']}; }}",
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
