"""Tokens on a tile: where they lie, and drawn as the pieces they are (R207..R210).

Tokens with a place (``at``) are drawn where they lie on the tile, the others in a row
beside the road; a Copilot track token as the symbol printed on it, turned as placed, on the
space it lies on (its row is drawn as the token made it: a chicane-limit token's row is one
chicane space), with the marks' own pieces (:mod:`trackkit.render.marks`). A tile shows at
most ``MAX_TILE_TOKENS`` tokens (R210).

``<g id="token-3-1" class="feature token token-oxygen">`` (a round token);
``<g id="token-3-2" class="feature track-token token-water ford token-surface-gravel">``
(a Copilot track token; ``idle``: it changes nothing, R207..R209; ``muddy``).

Examples
--------
>>> [tuple(round(c, 1) for c in p) for p in token_spots((0.0, -138.6), 2, 240.0)]
[(-13.5, -83.2), (13.5, -83.2)]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import svgwrite
from svgwrite.container import Group

from trackkit.models.stage import MAX_TILE_TOKENS, TileToken, TokenKind
from trackkit.render.draw import TileArt, clean_text, off, place, svg_id, turned, upright_text
from trackkit.render.marks import Ink, chevron, limit_sign, waves
from trackkit.road.geometry import ROAD_WIDTH_RATIO, local_point
from trackkit.road.spaces import DrivenRoad, TokenSpot

__all__ = ["TOKENS_AT", "TOKEN_RADIUS", "draw_tokens", "placed_tokens", "token_spots"]

Point = tuple[float, float]

#: Where the tokens without a place sit: this share of the way to a free hex corner.
TOKENS_AT = 0.6


def _token_value(tok: TileToken) -> str:
    """The number on a token: signed for climb and mud tokens (``−1``), plain for oxygen."""
    if tok.value is None:
        return ""
    signed = tok.kind in (TokenKind.CLIMB, TokenKind.MUD)
    return (f"{tok.value:+d}" if signed else str(tok.value)).replace("-", "−")


#: The word on a token above its number (none on cloud and climb tokens).
_TOKEN_TEXT: dict[TokenKind, str] = {
    TokenKind.OXYGEN: "O₂",
    TokenKind.MUD: "mud",
    TokenKind.CLOUD: "",
    TokenKind.CLIMB: "",
    # Copilot track tokens with nowhere to go (R208) wait beside the road as discs
    TokenKind.WATER: "ford",
    TokenKind.JUMP: "jump",
    TokenKind.CHICANE: "kerb",
    TokenKind.CHICANE_LIMIT: "limit",
}


#: A token's radius, as a share of the tile size.
TOKEN_RADIUS = 0.05


def token_spots(corner: Point, n: int, size: float) -> list[Point]:
    """Where ``n`` tokens go: in a row across the way to ``corner``."""
    r = TOKEN_RADIUS * size
    base = off((0.0, 0.0), corner, TOKENS_AT)
    norm = math.hypot(*corner) or 1.0
    along = (-corner[1] / norm, corner[0] / norm)
    return [off(base, along, (i - (n - 1) / 2.0) * 2.25 * r) for i in range(n)]


def placed_tokens(
    road: DrivenRoad | None, tokens: Sequence[TileToken]
) -> dict[int, tuple[tuple[float, float], float, TokenSpot | None]]:
    """Tokens that lie somewhere on their tile: index -> (``at``, ``dir``, spot).

    A road's spots (:attr:`DrivenRoad.tokens`) hold the places trackkit chose for Copilot
    track tokens given none; without a road, the tokens' own ``at``.
    """
    out: dict[int, tuple[tuple[float, float], float, TokenSpot | None]] = {}
    if road is not None:
        for spot in road.tokens:
            if spot.at is not None and spot.index < len(tokens):
                out[spot.index] = (spot.at, spot.dir, spot)
        return out
    for i, tok in enumerate(tokens):
        if tok.at is not None:
            out[i] = (tok.at, tok.dir or 0.0, None)
    return out


def _spread(points: dict[int, Point], r: float) -> dict[int, Point]:
    """Discs that would lie on one another (several tokens at one place) set side by side."""
    groups: dict[tuple[int, int], list[int]] = {}
    for i, (x, y) in points.items():
        groups.setdefault((round(x / r), round(y / r)), []).append(i)
    out: dict[int, Point] = {}
    for members in groups.values():
        n = len(members)
        for k, i in enumerate(members):
            out[i] = off(points[i], (1.0, 0.0), (k - (n - 1) / 2.0) * 2.25 * r)
    return out


def draw_tokens(
    dwg: svgwrite.Drawing, g: Group, art: TileArt, corner: Point, size: float, turn: float
) -> None:
    """Tokens where they lie on the tile; those without a place in a row beside the road.

    Copilot track tokens are drawn as the symbols they carry, turned as placed (see
    :func:`_draw_track_token`); the others as round tokens with their number, upright.
    """
    r = TOKEN_RADIUS * size
    tokens = art.tokens[:MAX_TILE_TOKENS]
    placed = placed_tokens(art.road, tokens)
    rest = [i for i in range(len(tokens)) if i not in placed]
    where = dict(zip(rest, token_spots(corner, len(rest), size), strict=True))
    discs = {
        i: local_point(at, size)
        for i, (at, _, _) in placed.items()
        if not (tokens[i].kind and tokens[i].kind.on_track)  # type: ignore[union-attr]
    }
    where.update(_spread(discs, r))
    for i, tok in enumerate(tokens):
        if i in placed and i not in discs:
            at, d, spot = placed[i]
            _draw_track_token(dwg, g, art, i, tok, spot, local_point(at, size), d, size, turn)
        else:
            _draw_disc_token(dwg, g, art, i, tok, where[i], r, turn)


def _draw_disc_token(
    dwg: svgwrite.Drawing,
    g: Group,
    art: TileArt,
    i: int,
    tok: TileToken,
    at: Point,
    r: float,
    turn: float,
) -> None:
    """A round token with its number (climb, oxygen, cloud, mud; unknown names)."""
    down = turned((0.0, 1.0), -turn)
    kind = tok.kind
    name = kind.value if kind is not None else "unknown"
    grp = g.add(dwg.g(id=svg_id("token", art.key, i + 1), class_=f"feature token token-{name}"))
    grp.add(place(dwg, "sym-token", at, down, r))
    value = _token_value(tok)
    if kind is TokenKind.CLOUD:
        grp.add(place(dwg, "sym-cloud", at, down, 0.75 * r, cls="glyph"))
    top = _TOKEN_TEXT.get(kind, "?") if kind is not None else clean_text(tok.token, 12)
    if top and value:
        grp.add(upright_text(dwg, top, off(at, down, -0.38 * r), size=0.55 * r, turn=turn))
        grp.add(upright_text(dwg, value, off(at, down, 0.38 * r), size=0.8 * r, turn=turn))
    elif top or value:
        grp.add(upright_text(dwg, top or value, at, size=(0.6 if top else 0.9) * r, turn=turn))


def _draw_track_token(
    dwg: svgwrite.Drawing,
    g: Group,
    art: TileArt,
    i: int,
    tok: TileToken,
    spot: TokenSpot | None,
    at: Point,
    rotation: float,
    size: float,
    turn: float,
) -> None:
    """A Copilot track token as the symbol printed on it, where it lies, turned as placed.

    Water: the ford's waves (FORD-1); jump: the chevron, across the token, and its number
    (JUMP-1); chicane-limit: the limit in its circle (CORNER-1, after mud); chicane: a
    kerb barrier across half the road. The token's forward axis points at ``60 * dir``
    degrees (the tile's edge 0 at 0). A token that changes nothing (R207..R209) is classed
    ``idle``.
    """
    kind = tok.kind
    assert kind is not None
    half = ROAD_WIDTH_RATIO * size / 2.0
    forward = turned((1.0, 0.0), 60.0 * rotation)
    across = turned(forward, 90.0)
    feature = {
        TokenKind.WATER: "ford",
        TokenKind.JUMP: "jump",
        TokenKind.CHICANE_LIMIT: "limit",
        TokenKind.CHICANE: "danger danger-high",
    }[kind]
    classes = ["feature", "track-token", f"token-{kind.value}", feature]
    if tok.surface:
        classes.append(f"token-surface-{tok.surface}")
    road = art.road
    space = road.spaces.get(spot.space) if road is not None and spot and spot.space else None
    acting = spot is not None and spot.acts and space is not None
    if not acting:
        classes.append("idle")
    shown: int | None = None
    if kind is TokenKind.CHICANE_LIMIT and acting and space is not None and spot is not None:
        shown = art.limits.get(spot.space or "", space.limit)
        if shown != space.limit:
            classes.append("muddy")
    grp = g.add(dwg.g(id=svg_id("token", art.key, i + 1), class_=" ".join(classes)))
    ink = Ink(dwg, size, turn)
    if kind is TokenKind.WATER:
        waves(ink, grp, at, forward, half)
    elif kind is TokenKind.JUMP:
        chevron(ink, grp, at, across, space.jump if acting and space is not None else tok.value)
    elif kind is TokenKind.CHICANE_LIMIT:
        limit_sign(ink, grp, at, shown if shown is not None else tok.value)
    else:
        bar = off(at, across, 0.5 * half)
        grp.add(place(dwg, "sym-kerb", bar, across, 0.03 * size, 0.5 * half))
