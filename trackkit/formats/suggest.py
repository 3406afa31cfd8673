"""Tile ids that were probably meant, for an id the library does not know.

A face id is a catalogue number and a side (``217a``). A number the library has gets its
faces (``208`` -> ``208a``, ``208b``; ``224x`` -> ``224a``, ``224b``; ``208ax`` -> ``208a``);
a number of a hundred the library has no tile in (``503a``) gets nothing; anything
else gets the closest ids by spelling (:func:`difflib.get_close_matches`).

Examples
--------
>>> from trackkit.tiles.library import default_library
>>> lib = default_library()
>>> close_tile_ids("208", lib), close_tile_ids("21a", lib), close_tile_ids("503a", lib)
(['208a', '208b'], ['210a', '211a', '212a'], [])
>>> did_you_mean(["224a"]), did_you_mean(["208a", "208b"]), did_you_mean([])
('did you mean 224a?', 'did you mean 208a or 208b?', '')

Box names (``validate --boxes``, ``generate --boxes``, a native file's ``boxes:``) get
one check, :func:`unknown_box`:

>>> unknown_box("gt-core-box", lib)
"unknown box 'gt-core-box': did you mean gt-core?"
>>> unknown_box("gt-core", lib) is None
True
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from trackkit.tiles.library import TileLibrary, normalize_tile_id

__all__ = ["close_tile_ids", "did_you_mean", "unknown_box", "unknown_tile_fix"]

_NUMBER_SIDE = re.compile(r"^(\d{3})([a-z]?)")
#: How alike two ids must be to be suggested (``224x``/``224a`` is 0.75).
_CUTOFF = 0.7


def close_tile_ids(raw: str, library: TileLibrary, *, limit: int = 3) -> list[str]:
    """Face ids of ``library`` close to ``raw``, the likeliest first (empty: none close)."""
    wanted = normalize_tile_id(raw)
    if wanted in library.faces:
        return [wanted]
    match = _NUMBER_SIDE.match(wanted)
    if match:
        number, side = match.groups()
        same = sorted(f.id for f in library if f.id.startswith(number))
        if f"{number}{side}" in same:
            return [f"{number}{side}"]  # the right face with something after it: 208ax
        if same:
            return same[:limit]
        if not any(f.id[0] == number[0] for f in library):
            return []  # a series the library has none of (5xx): not a typo
    ids = list(library.faces)
    close = difflib.get_close_matches(wanted, ids, n=len(ids), cutoff=_CUTOFF)

    def likeness(face_id: str) -> tuple[float, int, str]:
        # many ids are equally alike by difflib's measure (one character off): prefer the
        # ones that keep the other characters in their places (2o6a: 206a before 326a)
        in_place = sum(a == b for a, b in zip(wanted, face_id, strict=False))
        return (-difflib.SequenceMatcher(None, wanted, face_id).ratio(), -in_place, face_id)

    return sorted(close, key=likeness)[:limit]


def did_you_mean(ids: Sequence[str]) -> str:
    """``did you mean A?`` / ``A or B?`` / ``A, B or C?`` ('' for no ids)."""
    if not ids:
        return ""
    if len(ids) == 1:
        return f"did you mean {ids[0]}?"
    return f"did you mean {', '.join(ids[:-1])} or {ids[-1]}?"


def unknown_tile_fix(raw: str, ids: Sequence[str]) -> str:
    """The fix of an unknown tile id: the ids probably meant, or where to find the ids."""
    shown = raw if len(raw) <= 40 else raw[:37] + "..."
    guess = did_you_mean(ids)
    if guess:
        return f"'{shown}' is not a face id of the library: {guess}"
    return f"'{shown}' is not a face id of the library ('trackkit tiles' lists them, e.g. 217a)."


def unknown_box(box: str, library: TileLibrary) -> str | None:
    """What is wrong with a box name: None for a box of ``library``, else
    ``unknown box 'NAME'`` with the box probably meant (``did you mean gt-core?``).

    The one check of a box name, wherever a user names the boxes they own; callers add
    the boxes to choose from where it helps (all of them, or one series' boxes).
    """
    if box in library.tilesets:
        return None
    shown = box if len(box) <= 40 else box[:37] + "..."
    close = difflib.get_close_matches(box.strip().lower(), library.boxes(), n=1)
    guess = did_you_mean(close)
    return f"unknown box {shown!r}: {guess}" if guess else f"unknown box {shown!r}"
