"""Rules checks on a laid-out stage: tokens, jumps, corners closed by mud."""

from __future__ import annotations

from collections import Counter

import networkx as nx

from trackkit.checks.catalogue import finding
from trackkit.models.findings import Finding, Location
from trackkit.models.stage import MAX_TILE_TOKENS, TileToken, TokenKind
from trackkit.models.tile import FaceKind
from trackkit.road.spaces import TokenSpot
from trackkit.stage.assemble import Layout, PlacedTile

__all__ = ["check_rules", "check_tokens"]

#: Tokens read from editor files that trackkit knows but does not play (RX arches).
UNSUPPORTED_TOKENS = (
    "joker-entrance",
    "joker-exit",
    "finish",
    "dirt",
    "asphalt",
    "ice",
    "greendoor",
    "reddoor",
    "whitedoor",
)


def _at(at: tuple[float, float] | None) -> str:
    return "" if at is None else f" at [{at[0]:.2f}, {at[1]:.2f}]"


def _track_findings(tile: PlacedTile, spot: TokenSpot, loc: Location) -> list[Finding]:
    """R207..R209 for a Copilot track token that changes nothing where it lies."""
    name = f"the {spot.kind} token on {_tile_name(tile)}"
    fix = None
    if spot.suggest is not None:
        q, r = spot.suggest
        fix = (
            f"Move it to the nearest row where it can go, at [{q:.2f}, {r:.2f}] (tile widths "
            "from the tile's centre, in the tile's own frame), or remove it."
        )
    if spot.problem == "off-road":
        return [finding("R207", f"{name}{_at(spot.at)} lies on no space of the road", loc, fix=fix)]
    if spot.problem == "cannot-go":
        where = _at(spot.at) if spot.placed else " (no 'at' given)"
        return [finding("R208", f"{name}{where}: {spot.why}", loc, fix=fix)]
    if spot.problem == "alone":
        return [
            finding(
                "R209",
                f"{name}{_at(spot.at)} has no chicane-limit token on a row next to it",
                loc,
            )
        ]
    return []


def _tile_name(tile: PlacedTile) -> str:
    return f"tile {tile.index} ({tile.face_id})" if tile.index else f"tile {tile.face_id}"


def check_tokens(layout: Layout) -> list[Finding]:
    """Tokens that are unknown, too many, or where they cannot go.

    CLIMB-6..8, SHORTCUT-2 and the Copilot track tokens (FORD-1, JUMP-1, CORNER-1: where
    they lie, :mod:`trackkit.stage.track_tokens`). Linear in the number of tokens: a tile's
    tokens are counted once, and beyond :data:`MAX_TILE_TOKENS` a tile gets one finding
    (R210) and its further tokens are neither played nor checked.
    """
    out: list[Finding] = []
    for tile in layout.tiles:
        given = len(layout.stage.tiles[tile.position - 1].tokens)
        if given > MAX_TILE_TOKENS:
            out.append(
                finding(
                    "R210",
                    f"{_tile_name(tile)} holds {given} tokens; a tile holds at most "
                    f"{MAX_TILE_TOKENS}, and only the first {MAX_TILE_TOKENS} count",
                    tile.location(path=f"tiles[{tile.position - 1}].tokens"),
                )
            )
        counts = Counter(t.kind for t in tile.tokens)
        spots = {s.index: s for s in tile.road.tokens} if tile.road is not None else {}
        climb_values: set[int] = set()
        for n, tok in enumerate(tile.tokens):
            loc = tile.location(path=f"tiles[{tile.position - 1}].tokens[{n}]")
            kind = tok.kind
            if kind is None:
                if tok.token.startswith(UNSUPPORTED_TOKENS):
                    out.append(
                        finding(
                            "R204",
                            f"token '{tok.token}' on tile {tile.face_id} is "
                            "not simulated by trackkit",
                            loc,
                        )
                    )
                else:
                    out.append(
                        finding("R201", f"unknown token '{tok.token}' on tile {tile.face_id}", loc)
                    )
                continue
            if tile.face is not None and tile.face.series == "gt":
                out.append(
                    finding(
                        "R202",
                        f"a {kind.value} token has no place on {tile.face_id}, a Rallyman: GT "
                        "tile (its tokens are DIRT's and The Climb's)",
                        loc,
                    )
                )
                continue
            if tile.face is not None and (tile.face.kind is not FaceKind.ROAD or tile.road is None):
                out.append(
                    finding(
                        "R202",
                        f"a {kind.value} token cannot go on {tile.face_id}: it has no road",
                        loc,
                    )
                )
                continue
            problem = _value_problem(tile, tok, kind, climb_values)
            if kind in (TokenKind.OXYGEN, TokenKind.CLOUD) and counts[kind] > 1:
                problem = problem or f"one {kind.value} token per tile"
            if problem:
                out.append(finding("R202", f"token on tile {tile.face_id}: {problem}", loc))
            spot = spots.get(n)
            if kind.on_track and spot is not None:
                if spot.space is not None and tile.index is not None:
                    loc = loc.model_copy(update={"space": f"{tile.index}:{spot.space}"})
                out += _track_findings(tile, spot, loc)
    return out


def _value_problem(
    tile: PlacedTile, tok: TileToken, kind: TokenKind, climb_values: set[int]
) -> str | None:
    """What is wrong with a token's value on its tile (R202), if anything."""
    if kind is TokenKind.CLIMB:
        if tok.value not in (-1, 1):
            return "a climb token is -1 (ascent) or +1 (descent)"
        road = tile.face.road if tile.face is not None else None
        if road is not None and road.climb is not None:
            return f"{tile.face_id} already has climb arrows (CLIMB-6)"
        climb_values.add(tok.value)
        if len(climb_values) > 1:
            return "a tile cannot be both an ascent and a descent"
    elif kind is TokenKind.OXYGEN and tok.value not in (1, 2, 3):
        return "an oxygen token is 1, 2 or 3 (CLIMB-7)"
    elif kind is TokenKind.CLOUD and tok.value is not None:
        return "a cloud token has no value (CLIMB-8)"
    elif kind is TokenKind.MUD:
        if tok.value not in (None, -1):
            return "a mud token is -1 (SHORTCUT-2)"
        if tile.road is not None and not any(
            u.kind in ("corner", "chicane") for u in tile.road.units
        ):
            return f"mud lowers corner limits, and {tile.face_id} has no corner"
    elif kind is TokenKind.JUMP and tok.value is not None and not 1 <= tok.value <= 6:
        return "a jump token's number is a gear, 1..6 (JUMP-1)"
    elif kind is TokenKind.CHICANE_LIMIT and tok.value is not None and not 1 <= tok.value <= 6:
        return "a chicane-limit token's limit is a gear, 1..6 (CORNER-1)"
    elif kind in (TokenKind.WATER, TokenKind.CHICANE) and tok.value is not None:
        return f"a {kind.value} token has no number"
    return None


def check_rules(layout: Layout, graph: nx.DiGraph) -> list[Finding]:
    """Every rules problem of the stage."""
    out = check_tokens(layout)
    ruleset = layout.stage.ruleset
    if ruleset is not None and layout.series_found and ruleset not in layout.series_found:
        other = "Rallyman: GT" if ruleset == "dirt" else "Rallyman: DIRT"
        out.append(
            finding(
                "R205",
                f"the file says 'ruleset: {ruleset}', but every tile is a {other} tile",
                Location(path="ruleset"),
            )
        )
    by_index = {t.index: t for t in layout.chain}
    closed: set[str] = set()
    for node, data in graph.nodes(data=True):
        tile = by_index.get(data["tile"])
        # rule: CORNER-1 (a corner whose limit dropped to 0 cannot be entered)
        if (
            data["kind"] in ("corner", "chicane")
            and data["limit"] is not None
            and data["limit"] <= 0
            and data["corner"] not in closed
        ):
            closed.add(data["corner"])
            assert tile is not None
            out.append(
                finding(
                    "R206",
                    f"mud closes the corner of tile {tile.index} ({tile.face_id})",
                    tile.location(space=node),
                )
            )
        # rule: JUMP-1 (a jump carries the car up to two more spaces)
        if data["jump"] and data["kind"] == "lane":
            far = {v for s in graph.successors(node) for v in graph.successors(s)}
            # where the road breaks (S117) the landing is unknown, not missing
            if not far and not data["finished"] and not layout.road_breaks:
                assert tile is not None
                out.append(
                    finding(
                        "R203",
                        f"the jump on tile {tile.index} ({tile.face_id}) "
                        "has no landing two spaces on",
                        tile.location(space=node),
                    )
                )
    return out
