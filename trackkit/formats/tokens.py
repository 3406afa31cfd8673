"""Token ids of the Rekee editor and the official editor (``.rgt``) <-> :class:`TileToken`.

Ids trackkit knows become tokens with a value; any other id is kept as it is written (the
validator reports unknown or unsupported tokens). Reading accepts the ids of both editors,
so a token trackkit writes where an editor has no id of its own (mud in ``.rgt``) still
reads back the same.

Examples
--------
>>> token_from_id("oxygen-2")
TileToken(token='oxygen', value=2)
>>> token_from_id("climbm1")
TileToken(token='climb', value=-1)
>>> token_from_id("chicane-limit-gravel")
TileToken(token='chicane-limit-gravel', value=None)
>>> rekee_token_id(TileToken(token="climb", value=1)), rgt_token_id(TileToken(token="cloud"))
('climb-descent', 'climbw')
"""

from __future__ import annotations

import re

from trackkit.models.stage import TileToken

__all__ = ["rekee_token_id", "rgt_token_id", "token_from_id"]

_FIXED: dict[str, tuple[str, int | None]] = {
    # Rekee
    "climb-ascent": ("climb", -1),
    "climb-descent": ("climb", 1),
    "cloud": ("cloud", None),
    "mud-spray": ("mud", -1),
    # official editor
    "climbm1": ("climb", -1),
    "climbp1": ("climb", 1),
    "climbw": ("cloud", None),
}
_OXYGEN = re.compile(r"^(?:oxygen-|climbr)(\d{1,3})$")

_REKEE: dict[tuple[str, int | None], str] = {
    ("climb", -1): "climb-ascent",
    ("climb", 1): "climb-descent",
    ("cloud", None): "cloud",
    ("mud", -1): "mud-spray",
}
_RGT: dict[tuple[str, int | None], str] = {
    ("climb", -1): "climbm1",
    ("climb", 1): "climbp1",
    ("cloud", None): "climbw",
    ("mud", -1): "mud-spray",  # the official editor has no mud token
}


def token_from_id(raw: str) -> TileToken:
    """The token for an editor's token id (either editor)."""
    key = raw.strip().lower()
    if key in _FIXED:
        kind, value = _FIXED[key]
        return TileToken(token=kind, value=value)
    m = _OXYGEN.match(key)
    if m:
        return TileToken(token="oxygen", value=int(m.group(1)))
    return TileToken(token=raw)


def _token_id(token: TileToken, table: dict[tuple[str, int | None], str], oxygen: str) -> str:
    hit = table.get((token.token, token.value))
    if hit is not None:
        return hit
    if token.token == "oxygen" and token.value is not None and token.value >= 0:
        return f"{oxygen}{token.value}"
    return token.token


def rekee_token_id(token: TileToken) -> str:
    """The Rekee id of a token (unknown tokens keep their name)."""
    return _token_id(token, _REKEE, "oxygen-")


def rgt_token_id(token: TileToken) -> str:
    """The official editor's id of a token (unknown tokens keep their name)."""
    return _token_id(token, _RGT, "climbr")
