"""Rules checks on a laid-out stage: tokens, jumps, corners closed by mud."""

from __future__ import annotations

import networkx as nx

from trackkit.assemble import Layout
from trackkit.catalogue import finding
from trackkit.models.findings import Finding
from trackkit.models.stage import TokenKind
from trackkit.models.tile import FaceKind

__all__ = ["check_rules", "check_tokens"]

#: Tokens read from editor files that trackkit knows but does not play yet (Copilot, RX).
UNSUPPORTED_TOKENS = (
    "water",
    "jump",
    "chicane",
    "chicane-limit",
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


def check_tokens(layout: Layout) -> list[Finding]:
    """Tokens that are unknown or stand where they cannot go (CLIMB-6..8, SHORTCUT-2)."""
    out: list[Finding] = []
    for tile in layout.tiles:
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
            if tile.face is not None and (tile.face.kind is not FaceKind.ROAD or tile.road is None):
                out.append(
                    finding(
                        "R202",
                        f"a {kind.value} token cannot go on {tile.face_id}: it has no road",
                        loc,
                    )
                )
                continue
            problem = None
            if kind is TokenKind.CLIMB:
                if tok.value not in (-1, 1):
                    problem = "a climb token is -1 (ascent) or +1 (descent)"
                elif (
                    tile.face is not None
                    and tile.face.road is not None
                    and tile.face.road.climb is not None
                ):
                    problem = f"{tile.face_id} already has climb arrows (CLIMB-6)"
                else:
                    climb_values.add(tok.value)
                    if len(climb_values) > 1:
                        problem = "a tile cannot be both an ascent and a descent"
            elif kind is TokenKind.OXYGEN and tok.value not in (1, 2, 3):
                problem = "an oxygen token is 1, 2 or 3 (CLIMB-7)"
            elif kind is TokenKind.CLOUD and tok.value is not None:
                problem = "a cloud token has no value (CLIMB-8)"
            elif kind is TokenKind.MUD:
                if tok.value not in (None, -1):
                    problem = "a mud token is -1 (SHORTCUT-2)"
                elif tile.road is not None and not any(
                    u.kind in ("corner", "chicane") for u in tile.road.units
                ):
                    problem = f"mud lowers corner limits, and {tile.face_id} has no corner"
            if (
                kind in (TokenKind.OXYGEN, TokenKind.CLOUD)
                and sum(1 for t in tile.tokens if t.kind is kind) > 1
            ):
                problem = problem or f"one {kind.value} token per tile"
            if problem:
                out.append(finding("R202", f"token on tile {tile.face_id}: {problem}", loc))
    return out


def check_rules(layout: Layout, graph: nx.DiGraph) -> list[Finding]:
    """Every rules problem of the stage."""
    out = check_tokens(layout)
    if layout.stage.ruleset != "dirt":
        out.append(finding("R205", f"ruleset '{layout.stage.ruleset}' is not supported yet"))
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
