"""Tokens of the Rekee editor and the official editor (``.rgt``) <-> :class:`TileToken`.

Ids trackkit knows become tokens with a kind, a value and (Copilot track tokens) a surface;
any other id is kept as it is written (the validator reports unknown or unsupported
tokens). Reading accepts the ids of both editors, so a token trackkit writes where an editor
has no id of its own (mud in ``.rgt``) still reads back the same.

Where a token lies and how it is turned are kept too. Rekee writes them in trackkit's own
terms (``q``, ``r``: axial offsets from the tile's centre in tile widths, in the tile's
frame; ``dir`` in sixths of a turn), so they are read and written as they are. The official
editor writes ``X``, ``Y`` and ``Orientation`` (degrees), also in the tile's frame (its two
chicane samples give the same values on tiles turned differently): see :func:`rgt_offset`.

Examples
--------
>>> token_from_id("oxygen-2")
TileToken(token='oxygen', value=2)
>>> token_from_id("climbm1")
TileToken(token='climb', value=-1)
>>> token_from_id("chicane-limit-gravel"), token_from_id("ice3")
(TileToken(token='chicane-limit', surface='gravel'), TileToken(token='water', surface='snow'))
>>> rekee_token_id(TileToken(token="climb", value=1)), rgt_token_id(TileToken(token="cloud"))
('climb-descent', 'climbw')
>>> rgt_token_id(TileToken(token="jump", surface="asphalt"))
'asphalt4'
"""

from __future__ import annotations

import math
import re

from trackkit.models.stage import (
    MAX_TOKEN_OFFSET,
    MAX_TOKEN_TURN,
    RGT_SURFACES,
    RGT_TRACK_NUMBERS,
    Surface,
    TileToken,
    copilot_token,
)

__all__ = [
    "MAX_RGT_DEGREES",
    "MAX_RGT_OFFSET",
    "MAX_TOKEN_OFFSET",
    "MAX_TOKEN_TURN",
    "RGT_DECIMALS",
    "RGT_UNIT",
    "axial_offset",
    "rekee_token_id",
    "rgt_degrees",
    "rgt_offset",
    "rgt_token_id",
    "short_place",
    "short_turn",
    "token_from_id",
]

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
_RGT_PREFIX = {surface: prefix for prefix, surface in RGT_SURFACES.items()}
_RGT_NUMBER = {kind: n for n, kind in RGT_TRACK_NUMBERS.items()}

#: The official editor's unit of token offsets, in tile widths: the hex's corner radius
#: (tile width / sqrt 3). Its chicane samples put a chicane 0.5715768 from the chicane-limit
#: token in the middle of 205a: 0.33 tile widths (0.33 * sqrt 3 = 0.57157677 in the
#: editor's single precision), one row's length (a third of the tile) from the middle row,
#: where Rekee's own example puts the chicanes either side (0.32). ``Orientation`` is in
#: degrees, turning the way the tile's ``Orientation`` turns (clockwise: the samples' 0 and
#: 180 cannot tell), so a token's ``dir`` is ``Orientation / 60``.
RGT_UNIT = 1.0 / math.sqrt(3.0)
#: The farthest an ``.rgt`` token may lie from its tile's centre (editor units: the native
#: ``at`` it gives then stays within the native limits) and its largest turn in degrees.
MAX_RGT_OFFSET = MAX_TOKEN_OFFSET
MAX_RGT_DEGREES = MAX_TOKEN_TURN * 60.0
_SQRT3 = math.sqrt(3.0)
#: Decimals of the editor's token offsets and turns (its samples: ``-0.5715768``).
RGT_DECIMALS = 7
#: Decimals tried for the shortest form of a token's place or turn (then: as it is).
_MAX_DECIMALS = 12


def token_from_id(raw: str) -> TileToken:
    """The token for an editor's token id (either editor), at no particular place."""
    key = raw.strip().lower()
    if key in _FIXED:
        kind, value = _FIXED[key]
        return TileToken(token=kind, value=value)
    m = _OXYGEN.match(key)
    if m:
        return TileToken(token="oxygen", value=int(m.group(1)))
    copilot = copilot_token(key)
    if copilot is not None:
        return TileToken(token=copilot[0].value, surface=copilot[1])
    return TileToken(token=raw)


def _token_id(token: TileToken, table: dict[tuple[str, int | None], str], oxygen: str) -> str:
    value = -1 if token.token == "mud" and token.value is None else token.value  # mud is -1
    hit = table.get((token.token, value))
    if hit is not None:
        return hit
    if token.token == "oxygen" and token.value is not None and token.value >= 0:
        return f"{oxygen}{token.value}"
    return token.token


def rekee_token_id(token: TileToken) -> str:
    """The Rekee id of a token (unknown tokens keep their name).

    A Copilot track token is ``KIND-SURFACE`` (``water-gravel``), or its kind alone without a
    surface; a jump's or chicane's number is not part of the id (Rekee has none).
    """
    kind = token.kind
    if kind is not None and kind.on_track:
        return f"{kind.value}-{token.surface}" if token.surface else kind.value
    return _token_id(token, _REKEE, "oxygen-")


def rgt_token_id(token: TileToken, surface: Surface = "gravel") -> str:
    """The official editor's id of a token (unknown tokens keep their name).

    A Copilot track token is ``dirt1``..``ice4``; the editor has no token without a surface,
    so one without gets ``surface`` (the tile's, as the writer passes it).
    """
    kind = token.kind
    if kind is not None and kind.on_track:
        return f"{_RGT_PREFIX[token.surface or surface]}{_RGT_NUMBER[kind]}"
    return _token_id(token, _RGT, "climbr")


def axial_offset(x: float, y: float) -> tuple[float, float]:
    """A token's ``.rgt`` offset ``X``, ``Y`` as trackkit's ``at`` ``[q, r]`` (tile frame).

    Assumed (the samples give X only): ``X``, ``Y`` run the way the editor's own column and
    row numbers run, so +X points at the tile's edge 3 (columns count against Rekee's q, see
    :func:`trackkit.road.hexgrid.offset_to_axial`) and +Y straight across that, the way the rows
    count (r): the editor's picture is Rekee's turned half a turn, X to the right and Y up.
    The unit is :data:`RGT_UNIT`.

    >>> q, r = axial_offset(-0.5715768, 0.0)
    >>> round(q, 6), r
    (0.33, 0.0)
    """
    # pointy-top, tile widths: x = q + r / 2, y = r * sqrt(3) / 2; +X = -x, +Y = +y
    px, py = -x * RGT_UNIT, y * RGT_UNIT
    r = 2.0 * py / _SQRT3
    return (px - r / 2.0 + 0.0, r + 0.0)  # + 0.0: no negative zero


def rgt_offset(at: tuple[float, float]) -> tuple[float, float]:
    """Inverse of :func:`axial_offset`, rounded to :data:`RGT_DECIMALS` (as the editor).

    >>> rgt_offset(axial_offset(-0.5715768, 0.25)), rgt_offset((0.33, 0.0))
    ((-0.5715768, 0.25), (-0.5715768, 0.0))
    """
    q, r = at
    px, py = q + r / 2.0, r * _SQRT3 / 2.0
    return (_tidy(-px / RGT_UNIT), _tidy(py / RGT_UNIT))


def rgt_degrees(turn: float) -> float:
    """A token's ``dir`` (sixths of a turn) as the editor's ``Orientation`` in degrees."""
    return _tidy(turn * 60.0)


def _tidy(x: float) -> float:
    """``x`` to the editor's precision (and without a negative zero)."""
    return round(x, RGT_DECIMALS) + 0.0


def short_place(at: tuple[float, float]) -> tuple[float, float]:
    """A token's ``at`` with the fewest decimals that keep its place to the editors'
    precision (the same ``.rgt`` offsets, :func:`rgt_offset`): an offset read from an
    editor file loses its float noise, nothing else.

    >>> short_place(axial_offset(-0.5715768, 0.0))
    (0.33, 0.0)
    >>> short_place((0.25, 1 / 3))
    (0.25, 0.33333333)
    """
    want = rgt_offset(at)
    for decimals in range(_MAX_DECIMALS):
        short = (round(at[0], decimals) + 0.0, round(at[1], decimals) + 0.0)
        if rgt_offset(short) == want:
            return short
    return at


def short_turn(turn: float) -> float:
    """A token's ``dir`` with the fewest decimals that keep its turn to the editors'
    precision (the same degrees, :func:`rgt_degrees`).

    >>> short_turn(180.0 / 60.0), short_turn(90.00000001 / 60.0), short_turn(45.5 / 60.0)
    (3.0, 1.5, 0.758333333)
    """
    want = rgt_degrees(turn)
    for decimals in range(_MAX_DECIMALS):
        short = round(turn, decimals) + 0.0
        if rgt_degrees(short) == want:
            return short
    return turn
