"""The stage as the rules engine sees it: per-space facts and steps, read from the graph.

Everything here is read from :func:`trackkit.stage.graph.build_graph` (the single source of
movement truth) once per stage, in plain tuples so that plan enumeration is fast: the
spaces side by side and overlapping come from the cut of each road (the one road model of
:mod:`trackkit.road.spaces`), carried by the graph's nodes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar, cast

import networkx as nx

from trackkit.models.stage import TokenKind
from trackkit.stage.assemble import Layout

__all__ = ["Derived", "EdgeMark", "SpaceInfo", "Track", "derive", "per_track"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class SpaceInfo:
    """What a car needs to know about one space."""

    node: str
    tile: int
    kind: str
    surface: str
    danger: str
    limit: int | None
    corner: str | None
    corner_lane: str | None
    jump: int | None
    ford: bool
    finished: bool
    progress: float
    lanes: tuple[int, ...] = (1, 2)
    """The lanes the space lies in, counted from the left in the driving direction."""
    triangle: bool = False
    """GT: the limit is in a warning triangle (CORNER-5)."""
    pit: int | None = None
    """GT: the pit tile this space gives access to (its position in the file, GT-2)."""


class EdgeMark(NamedTuple):
    """What a GT step crosses: a dotted line's number or sign (CORNER-4), the lap line."""

    limit: int | None
    hazard: bool
    lap: bool


@dataclass(slots=True)
class Track:
    """Per-space facts, successors with their climb direction, adjacency and overlaps."""

    graph: nx.DiGraph
    spaces: dict[str, SpaceInfo]
    successors: dict[str, tuple[tuple[str, str | None], ...]]
    beside: dict[str, frozenset[str]]
    overlaps: dict[str, frozenset[str]]
    oxygen: dict[int, int] = field(default_factory=dict)
    clouds: frozenset[int] = frozenset()
    start: tuple[str, ...] = ()
    marks: dict[tuple[str, str], EdgeMark] = field(default_factory=dict)
    """GT steps over a dotted line (CORNER-4) or the start/finish line (BOARD-3)."""
    lap_length: float | None = None
    """A circuit's lap, mm (None: a point-to-point stage)."""
    laps: int | None = None
    """The laps a circuit's file asks for."""
    # (a lambda: Derived is defined below, its type naming Track)
    derived: Derived = field(default_factory=lambda: Derived(), repr=False, compare=False)
    """What the engine worked out from this track's facts alone (:func:`derive`)."""

    @classmethod
    def from_graph(cls, graph: nx.DiGraph, layout: Layout | None = None) -> Track:
        """Read a stage graph (and the tokens of its layout)."""
        spaces = {
            n: SpaceInfo(
                n,
                d["tile"],
                d["kind"],
                d["surface"],
                d["danger"],
                d["limit"],
                d["corner"],
                d["corner_lane"],
                d["jump"],
                bool(d["ford"]),
                bool(d["finished"]),
                float(d["progress"]),
                tuple(d["lanes"]),
                bool(d.get("triangle")),
                d.get("pit"),
            )
            for n, d in graph.nodes(data=True)
        }
        # rule: CORNER-4 (a straight step over a dotted line), BOARD-3 (the lap line)
        marks = {
            (u, v): EdgeMark(d.get("limit"), bool(d.get("hazard")), "lap_line" in d["tags"])
            for u, v, d in graph.edges(data=True)
            if d.get("limit") is not None or d.get("hazard") or "lap_line" in d["tags"]
        }
        successors = {
            n: tuple((v, graph.edges[n, v]["climb"]) for v in graph.successors(n))
            for n in graph.nodes
        }
        # rule: TRAFFIC-1 (side by side), SHORTCUT-3 (a shortcut beside its linked spaces)
        beside = {n: d["beside"] for n, d in graph.nodes(data=True) if d["beside"]}
        # a slide space lies over the row's lanes; a GT crossing's spaces cover each other
        overlaps = {n: d["overlaps"] for n, d in graph.nodes(data=True) if d["overlaps"]}
        oxygen: dict[int, int] = {}
        clouds: set[int] = set()
        if layout is not None:
            for t in layout.chain:
                if t.index is None:
                    continue
                for tok in t.tokens:
                    if tok.kind is TokenKind.OXYGEN and tok.value:
                        oxygen[t.index] = oxygen.get(t.index, 0) + tok.value
                    elif tok.kind is TokenKind.CLOUD:
                        clouds.add(t.index)
        return cls(
            graph,
            spaces,
            successors,
            beside,
            overlaps,
            oxygen,
            frozenset(clouds),
            tuple(graph.graph.get("start", ())),
            marks,
            graph.graph.get("lap_length"),
            graph.graph.get("laps"),
        )

    @property
    def gt(self) -> bool:
        """Whether the track is a Rallyman: GT track (graph data ``series``)."""
        return bool(self.graph.graph.get("series") == "gt")

    def gain(self, origin: str, target: str) -> float:
        """How far ``target``'s front edge is beyond ``origin``'s, mm (round the lap)."""
        diff = self.spaces[target].progress - self.spaces[origin].progress
        if self.lap_length:
            diff %= self.lap_length
            if diff > self.lap_length / 2:
                diff -= self.lap_length
        return diff


class Derived(dict[Callable[[Track], object], object]):
    """Facts worked out from a track alone, by the function that works each out.

    Kept with the track, so they go when it goes: a process that races many tracks (a
    ``generate`` run) holds the facts of the tracks it still uses, not of the last few it
    met. Not pickled: a track sent to another process works its facts out again there,
    rather than carrying them (a GT circuit's move tables hold many thousand entries).
    """

    __slots__ = ()

    def __reduce__(self) -> tuple[type[Derived], tuple[()]]:
        return (Derived, ())


def derive(track: Track, work_out: Callable[[Track], _T]) -> _T:
    """``work_out(track)``, worked out once per track and kept with it.

    ``work_out`` must read the track's facts alone (they do not change once read), and is
    the key of its result: a class whose constructor takes the track will do.

    Examples
    --------
    >>> import networkx as nx
    >>> track = Track(nx.DiGraph(), {}, {}, {}, {})
    >>> calls = []
    >>> def spaces(t: Track) -> int:
    ...     calls.append(t)
    ...     return len(t.spaces)
    >>> derive(track, spaces), derive(track, spaces), len(calls)
    (0, 0, 1)
    """
    known = track.derived
    try:
        return cast(_T, known[work_out])
    except KeyError:
        value = known[work_out] = work_out(track)
        return value


def per_track(work_out: Callable[[Track], _T]) -> Callable[[Track], _T]:
    """Decorate a function of a track's facts alone: :func:`derive` calls it once per track."""

    @functools.wraps(work_out)
    def once(track: Track) -> _T:
        return derive(track, work_out)

    return once
