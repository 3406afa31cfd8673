"""Tokens on the placed tiles: where each lies, and what the Copilot track tokens do there.

A token's place is its ``at`` (:class:`~trackkit.models.stage.TileToken`): axial offsets
from its tile's centre in tile widths, in the tile's own frame. The space polygons of
:mod:`trackkit.road.geometry` say which space of the road its centre lies on, and so which
cross-section (row) it acts on. The Copilot track tokens change that row (DEFAULTs of
``docs/rules.md``):

- water: the whole row, both lanes (and a slide row's slide spaces), is a ford (FORD-1);
- jump: the whole row is a jump of the token's value, else the ruleset's default (JUMP-1);
- chicane-limit: the row becomes one chicane space across the road with the token's limit,
  else the ruleset's default (CORNER-1, BOARD-2: a corner space of both lanes, like 231's);
- chicane: the bend into or out of the chicane, like the plain rows either side of 231's
  chicane space: its row keeps its two lanes and no limit. It belongs next to a
  chicane-limit token's row.

A track token goes on a row of a straight, a slide row (not a chicane) or a full-width row:
never in a corner, on a chicane, on a shortcut, or on a row that already has a ford, a
jump or another track token; a chicane-limit token not on a row a shortcut joins. Without
``at``, a track token goes on the row nearest the middle of the road where it can go (on a
line between two rows, the row whose middle is nearer; exactly halfway, the one met first
from the road's ``from`` edge). The stage graph, the rules engine and the drawing all read
the road these changes make (:func:`place_tokens`); the validator reports the tokens that
change nothing (R207..R209).

Examples
--------
>>> from trackkit.tiles.library import default_library
>>> from trackkit.models.stage import TileToken
>>> from trackkit.road.spaces import drive
>>> road = drive(default_library().get("205a"), entry=0)
>>> placed = place_tokens(road, [TileToken(token="chicane-limit", value=3, at=(0.0, 0.0))])
>>> [u.kind for u in placed.units], placed.spaces["1.2C"].limit
(['row', 'chicane', 'row'], 3)
>>> placed.tokens[0].space, placed.tokens[0].acts
('1.2C', True)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pydantic import Field, ValidationError

from trackkit.errors import TileLibraryError
from trackkit.models.base import StrictModel
from trackkit.models.stage import TileToken, TokenKind
from trackkit.road.geometry import centre_line, local_axial, local_point, space_polygon
from trackkit.road.spaces import DrivenRoad, RowChange, TokenSpot, Unit, with_changes
from trackkit.tiles.library import library_dir, ruleset_data

if TYPE_CHECKING:
    from shapely.geometry import Polygon

__all__ = ["TrackTokenRules", "place_tokens", "track_token_rules"]


class TrackTokenRules(StrictModel):
    """The numbers of the Copilot track tokens the rule texts leave open (``track_tokens``)."""

    jump: int = Field(
        ge=1, le=6, description="JUMP-1: a jump token's number when the stage gives none."
    )
    chicane_limit: int = Field(
        ge=1,
        le=6,
        description="CORNER-1: a chicane-limit token's limit when the stage gives none.",
    )


@lru_cache(maxsize=4)
def track_token_rules(ruleset_id: str = "dirt") -> TrackTokenRules:
    """The ``track_tokens`` numbers of ``tile_library/ruleset-<id>.yaml``.

    Read here rather than through :func:`trackkit.rules.ruleset.load_ruleset`: laying a stage
    out comes before the rules engine (DESIGN.md's layers), and the ruleset model checks the
    same key with this model.

    Raises
    ------
    TileLibraryError
        If the file is missing or its ``track_tokens`` is not valid.
    """
    data = ruleset_data(ruleset_id)
    try:
        return TrackTokenRules.model_validate(data["track_tokens"])
    except (ValidationError, KeyError) as e:
        path = library_dir() / f"ruleset-{ruleset_id}.yaml"
        raise TileLibraryError(f"{path}: invalid track_tokens: {e}") from e


def place_tokens(
    road: DrivenRoad, tokens: Sequence[TileToken], rules: TrackTokenRules | None = None
) -> DrivenRoad:
    """``road`` as the tokens on its tile make it, with where each token lies.

    Parameters
    ----------
    road : DrivenRoad
        The tile's road as driven (:func:`trackkit.road.spaces.drive`); it is not changed.
    tokens : sequence of TileToken
        The tile's tokens, in file order.
    rules : TrackTokenRules, optional
        The default numbers (default: the DIRT ruleset's).

    Returns
    -------
    DrivenRoad
        ``road`` itself when no token has a place or is a track token, or when it is a GT
        road (Rallyman: GT has no such tokens: the validator reports them, R202); otherwise
        a new road (:func:`trackkit.road.spaces.with_changes`, the road cut again in the lane
        model) whose ``tokens`` say where each of them lies.
    """
    if road.series == "gt" or not any(t.at is not None or _on_track(t) for t in tokens):
        return road
    rules = rules or track_token_rules()
    rows = _row_features(road)
    taken: dict[int, str] = {}
    changes: dict[int, RowChange] = {}
    spots: list[TokenSpot] = []
    # tokens with a place first (theirs is taken), then the others, a chicane's limit
    # before its bends (which go beside it)
    for i in sorted(range(len(tokens)), key=lambda i: _order(tokens[i])):
        tok = tokens[i]
        kind = tok.kind
        if kind is None or not kind.on_track:
            if tok.at is not None:
                spots.append(TokenSpot(i, tok.token, tok.at, tok.dir or 0.0, True))
            continue
        spot = _place(road, i, tok, kind, rows, taken, changes)
        if spot.unit is not None and spot.problem is None:
            taken[spot.unit] = kind.value
            change = _change(kind, tok.value, rules)
            if change is not None:
                changes[spot.unit] = change
                spot = dataclasses.replace(spot, acts=True)
        spots.append(spot)
    spots.sort(key=lambda s: s.index)
    limits = _chicanes(changes)
    placed_road = with_changes(road, changes)
    for n, s in enumerate(spots):
        if s.kind == TokenKind.CHICANE.value and s.unit is not None and s.problem is None:
            if s.unit - 1 not in limits and s.unit + 1 not in limits:
                spots[n] = dataclasses.replace(s, problem="alone")
        elif s.space is not None and s.unit is not None and s.space not in placed_road.spaces:
            # the row became a chicane: the token lies on its one space
            spots[n] = dataclasses.replace(s, space=placed_road.units[s.unit].spaces[0])
    return dataclasses.replace(placed_road, tokens=tuple(spots))


def _order(token: TileToken) -> tuple[int, int]:
    """Placing order: tokens with ``at`` first, then chicane-limit, water, jump, chicane."""
    rank = {TokenKind.CHICANE_LIMIT: 0, TokenKind.WATER: 1, TokenKind.JUMP: 2}
    kind = token.kind
    return (0 if token.at is not None else 1, rank.get(kind, 3) if kind is not None else 3)


def _place(
    road: DrivenRoad,
    i: int,
    tok: TileToken,
    kind: TokenKind,
    rows: dict[int, set[str]],
    taken: dict[int, str],
    changes: dict[int, RowChange],
) -> TokenSpot:
    """Where track token ``i`` lies (or goes, without ``at``), and what stops it there."""
    if tok.at is None:
        unit = _free_row(road, kind, rows, taken, changes)
        if unit is None:
            why = f"no row of {road.face.id} can take a {kind.value} token"
            return TokenSpot(i, kind.value, None, 0.0, False, problem="cannot-go", why=why)
        at, turn = _row_spot(road, road.units[unit])
        if kind is TokenKind.CHICANE and unit - 1 in _chicanes(changes):
            turn = (turn + 3.0) % 6.0  # the bend out of the chicane: its kerb on the other side
        return TokenSpot(i, kind.value, at, turn, False, road.units[unit].spaces[0], unit)
    at, turn = tok.at, tok.dir or 0.0
    space = _space_at(road, at)
    why = ""
    if space is not None:
        unit = road.spaces[space].unit
        why = _cannot_go(road, kind, space, unit, rows, taken)
        if not why:
            return TokenSpot(i, kind.value, at, turn, True, space, unit)
    near = _free_row(road, kind, rows, taken, changes, near=at)
    suggest = None if near is None else _row_spot(road, road.units[near])[0]
    if space is None:
        return TokenSpot(i, kind.value, at, turn, True, problem="off-road", suggest=suggest)
    return TokenSpot(i, kind.value, at, turn, True, space, None, False, "cannot-go", why, suggest)


def _chicanes(changes: dict[int, RowChange]) -> set[int]:
    """The rows made chicane spaces."""
    return {u for u, c in changes.items() if c.chicane is not None}


def _on_track(token: TileToken) -> bool:
    kind = token.kind
    return kind is not None and kind.on_track


def _change(kind: TokenKind, value: int | None, rules: TrackTokenRules) -> RowChange | None:
    """What a track token makes of its row (a chicane token: nothing)."""
    if kind is TokenKind.WATER:
        return RowChange(kind.value, ford=True)  # rule: FORD-1
    if kind is TokenKind.JUMP:
        return RowChange(kind.value, jump=rules.jump if value is None else value)  # rule: JUMP-1
    if kind is TokenKind.CHICANE_LIMIT:
        # rule: CORNER-1, BOARD-2 (one chicane space across the road, with its limit)
        return RowChange(kind.value, chicane=rules.chicane_limit if value is None else value)
    return None


def _row_features(road: DrivenRoad) -> dict[int, set[str]]:
    """What each unit of the road is and holds: its kind, printed ford or jump, a shortcut."""
    out: dict[int, set[str]] = {u.index: {u.kind} for u in road.units}
    for sp in road.spaces.values():
        if sp.unit >= 0:
            if sp.ford:
                out[sp.unit].add("ford")
            if sp.jump:
                out[sp.unit].add("jump")
    for step in road.steps:
        if "into_shortcut" in step.tags or "out_of_shortcut" in step.tags:
            for sid in (step.source, step.target):
                unit = road.spaces[sid].unit
                if unit >= 0:
                    out[unit].add("shortcut")
    return out


def _cannot_go(
    road: DrivenRoad,
    kind: TokenKind,
    space: str | None,
    unit: int,
    rows: dict[int, set[str]],
    taken: dict[int, str],
) -> str:
    """Why a track token cannot go on ``unit`` (``space``), or ``""``."""
    name = f"a {kind.value} token"
    if space is not None and road.spaces[space].kind == "shortcut":
        return f"{name} goes on the road, not on a shortcut space"
    has = rows[unit]
    if "corner" in has:
        return f"{name} cannot go in a corner"
    if "chicane" in has:
        return f"{name} cannot go on a chicane space"
    if unit in taken:
        return f"the row already has a {taken[unit]} token"
    if kind is TokenKind.WATER:
        if "ford" in has:
            return "the row is a ford already"
        if "jump" in has:
            return "a ford cannot go on a jump"
    elif kind is TokenKind.JUMP:
        if "jump" in has:
            return "the row is a jump already"
        if "ford" in has:
            return "a jump cannot go on a ford"
    else:
        if "slide" in has:
            return f"{name} cannot go on a slide row (the dotted line)"
        for feature in ("ford", "jump"):
            if feature in has:
                return f"{name} cannot go on a {feature}"
        if kind is TokenKind.CHICANE_LIMIT and "shortcut" in has:
            return "a chicane cannot go on a row that a shortcut joins"
    return ""


def _free_row(
    road: DrivenRoad,
    kind: TokenKind,
    rows: dict[int, set[str]],
    taken: dict[int, str],
    changes: dict[int, RowChange],
    near: tuple[float, float] | None = None,
) -> int | None:
    """The row where a track token can go nearest the road's middle, or nearest ``near``."""
    free = [u for u in road.units if not _cannot_go(road, kind, None, u.index, rows, taken)]
    if kind is TokenKind.CHICANE:
        limits = _chicanes(changes)
        beside = [u for u in free if u.index - 1 in limits or u.index + 1 in limits]
        free = beside or free
    if not free:
        return None
    line = centre_line(road, 1.0) if near is not None else None
    point = local_point(near, 1.0) if near is not None else (0.0, 0.0)

    def key(u: Unit) -> tuple[float, int]:
        mid = (u.f0 + u.f1) / 2.0
        far = abs(mid - 0.5) if line is None else math.dist(line.at(mid), point)
        # ties go to the row met first from the road's `from` edge, whichever way it is driven
        return (far, -u.index if road.reversed else u.index)

    return min(free, key=key).index


def _row_spot(road: DrivenRoad, unit: Unit) -> tuple[tuple[float, float], float]:
    """The middle of a row on the centre line (tile widths) and the way the road runs there."""
    line = centre_line(road, 1.0)
    mid = (unit.f0 + unit.f1) / 2.0
    q, r = local_axial(line.at(mid), 1.0)
    turn = round(line.heading(mid) / 60.0, 4) % 6.0
    return (round(q, 6) + 0.0, round(r, 6) + 0.0), turn


def _space_at(road: DrivenRoad, at: tuple[float, float]) -> str | None:
    """The space of ``road`` that ``at`` lies on (tile frame), or None if on none.

    On a line between spaces, the space whose middle is nearest; a road space before a
    shortcut's island.
    """
    import shapely

    ids, polys, middles = _polygons(road)
    x, y = local_point(at, 1.0)
    hits = [i for i, hit in enumerate(shapely.intersects_xy(polys, x, y)) if hit]
    if not hits:
        return None

    def key(i: int) -> tuple[bool, float, str]:
        sp = road.spaces[ids[i]]
        return (sp.kind == "shortcut", math.dist(middles[i], (x, y)), ids[i])

    return ids[min(hits, key=key)]


_POLYGONS: dict[tuple[str, int], tuple[DrivenRoad, Any, Any, Any]] = {}


def _polygons(road: DrivenRoad) -> tuple[list[str], Any, list[tuple[float, float]]]:
    """Space ids, prepared polygons (tile widths, tile frame) and middles of ``road``'s spaces."""
    key = (road.face.id, road.entry)
    hit = _POLYGONS.get(key)
    if hit is not None and hit[0].face is road.face:
        return hit[1], hit[2], hit[3]
    import numpy as np
    import shapely

    ids = sorted(road.spaces)
    shapes: list[Polygon] = [space_polygon(road, road.spaces[s], 1.0) for s in ids]
    polys = np.array(shapes, dtype=object)
    shapely.prepare(polys)
    middles = [(p.centroid.x, p.centroid.y) if not p.is_empty else (0.0, 0.0) for p in shapes]
    _POLYGONS[key] = (road, ids, polys, middles)
    return ids, polys, middles
