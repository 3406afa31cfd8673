"""What follows from a road's lane lists: spaces, steps, side-by-side pairs, progress.

The rules of the per-lane road model (``tile_library/sources/gt-space-layouts/README.md``,
section 5), as plain functions of :class:`~trackkit.models.lanes.LaneRoad` data:

- a space's lanes are the lanes whose list names it; its back and front lines are its
  neighbours in those lists (the same in every lane it spans);
- a *straight* step crosses a line from a space to the space after that line in the same
  lane; a *diagonal* step goes to the space after it in a neighbouring lane, when the line
  runs across both lanes (MOVE-1) — unless one of the two spaces spans both lanes, which
  makes the step straight; a lane-count transition line has its steps listed (``links``);
- two spaces of neighbouring lanes are side by side when their stretches between lines
  overlap (TRAFFIC-1);
- a straight step across a line that is dotted in every lane it crosses is limited by the
  printed number or sign (CORNER-4); diagonal steps never are;
- spaces lying over a stretch of the road across its lanes (``overlays``: DIRT's slide
  spaces, CORNER-3) take part in the steps across the lines they meet as if they were in
  each of those lanes, and overlap the lane spaces under them;
- shortcut spaces (DIRT, SHORTCUT-1) are a chain beside the road, entered from the spaces
  of the road listed in ``into`` and left into those in ``out`` (``link`` steps), and are
  side by side with those spaces (SHORTCUT-3).

Two lines at the same place (the lines of two lanes of a DIRT corner, each lane with its
own lines, CORNER-2) count as one place for side-by-side pairs: spaces that only meet at
that place are not side by side (section 5.4 with lines at equal progress).

The same rules join two roads across a tile edge (:func:`cross_line`, section 5.7), with
the edge's slots (:meth:`RoadCut.edge_slots`) in place of lanes.

Steps are given driving ``from -> to``; :meth:`RoadCut.reversed` gives the road driven the
other way (the same spaces and lines, every step turned round).

Examples
--------
>>> from trackkit.models.lanes import LaneRoad
>>> road = LaneRoad.model_validate({"id": "A", "from": 0, "to": 3,
...     "lanes": {1: ["A1a", "l1", "A1b"], 2: ["A2a", "l1", "A2b"], 3: ["A3a", "l1", "A3b"]},
...     "lines": {"l1": {"at": 0.5}}})
>>> cut = cut_road(road)
>>> sorted(f"{s.source}>{s.target}{'/d' if s.kind == 'diagonal' else ''}" for s in cut.steps)
['A1a>A1b', 'A1a>A2b/d', 'A2a>A1b/d', 'A2a>A2b', 'A2a>A3b/d', 'A3a>A2b/d', 'A3a>A3b']
>>> sorted(tuple(sorted(p)) for p in cut.beside)
[('A1a', 'A2a'), ('A1b', 'A2b'), ('A2a', 'A3a'), ('A2b', 'A3b')]
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from trackkit.models.lanes import DottedMark, LaneRoad

__all__ = ["LaneError", "LaneStep", "RoadCut", "RoadSpace", "cross_line", "cut_road"]

StepKind = Literal["straight", "diagonal", "link"]
Layer = Literal["lane", "overlay", "side"]


class LaneError(ValueError):
    """A road's lane lists contradict themselves (a face the library must not ship)."""


@dataclass(frozen=True, slots=True)
class RoadSpace:
    """A space of one road: its lanes, its back and front lines, and where they lie.

    ``back``/``front`` index the road's line order; ``back_at``/``front_at`` give the
    progress of those lines (0..1 along the road, ``from -> to``) in each of ``lanes``.
    ``layer`` is ``lane`` for a space of the lanes, ``overlay`` for a space lying over them
    (a DIRT slide space) and ``side`` for a space beside the road (a DIRT shortcut space:
    no lanes, ``back``/``front`` -1, one progress value each way).
    """

    id: str
    road: str
    lanes: tuple[int, ...]
    back: int
    front: int
    back_at: tuple[float, ...]
    front_at: tuple[float, ...]
    layer: Layer = "lane"

    @property
    def progress(self) -> float:
        """Front edge along the road (0..1), the mean over the space's lanes (BOARD-5)."""
        return sum(self.front_at) / len(self.front_at)

    @property
    def back_progress(self) -> float:
        """Back edge along the road (0..1), the mean over the space's lanes."""
        return sum(self.back_at) / len(self.back_at)


@dataclass(frozen=True, slots=True)
class LaneStep:
    """A forward step across one cross line.

    ``limit`` is the highest gear a straight step may take across a dotted line (CORNER-4),
    ``hazard`` that crossing it adds a danger result (a warning sign instead of a number).
    A ``link`` step crosses no printed line of the road (into or out of a shortcut); its
    ``line`` is empty, as is that of a step along a shortcut.
    """

    source: str
    target: str
    kind: StepKind
    line: str
    limit: int | None = None
    hazard: bool = False


@dataclass(slots=True)
class RoadCut:
    """A road cut into spaces, with its steps, side-by-side pairs and overlapping spaces."""

    road: LaneRoad
    order: list[str]
    """Cross lines in driving order, end edges first and last."""
    spaces: dict[str, RoadSpace]
    steps: list[LaneStep]
    beside: set[frozenset[str]] = field(default_factory=set)
    reverse: bool = False
    """Driven ``to -> from``: ``order`` and ``steps`` are turned round."""
    overlaps: set[frozenset[str]] = field(default_factory=set)
    """Spaces of the road that cover common ground (an overlay and the lane spaces under it)."""

    @property
    def entry_edge(self) -> int:
        """The face edge a car enters this road by."""
        return self.road.to_edge if self.reverse else self.road.from_edge

    @property
    def exit_edge(self) -> int:
        """The face edge a car leaves this road by."""
        return self.road.from_edge if self.reverse else self.road.to_edge

    def entries(self) -> list[str]:
        """Spaces a car enters the road into: those whose back line is the entry edge."""
        first = 0 if not self.reverse else len(self.order) - 1
        key = "back" if not self.reverse else "front"
        return [s.id for s in self.spaces.values() if getattr(s, key) == first]

    def exits(self) -> list[str]:
        """Spaces a car leaves the road from: those whose front line is the exit edge."""
        last = len(self.order) - 1 if not self.reverse else 0
        key = "front" if not self.reverse else "back"
        return [s.id for s in self.spaces.values() if getattr(s, key) == last]

    def edge_slots(self, edge: int, count: int | None = None) -> dict[int, list[str]]:
        """The spaces touching road end ``edge``, by the edge's slot (section 5.7).

        Slots count the edge's lanes clockwise round the tile. Without ``slots`` on the
        road, lane k sits at slot k on its ``to`` edge and at slot N+1-k on its ``from``
        edge (N: ``count``, the edge's lanes, by default the road's lanes there); a space
        spanning several lanes is in each of their slots.

        Raises
        ------
        ValueError
            If ``edge`` is not an end of the road.
        """
        road = self.road
        if edge not in (road.from_edge, road.to_edge):
            raise ValueError(f"edge {edge} is not an end of road {road.id}")
        end = 0 if edge == road.from_edge else len(self.order) - 1
        lanes: dict[int, list[str]] = {}
        for sp in self.spaces.values():
            if (sp.back if edge == road.from_edge else sp.front) == end and sp.layer != "side":
                for lane in sp.lanes:
                    lanes.setdefault(lane, []).append(sp.id)
        present = sorted(k for k in lanes if any(self.spaces[s].layer == "lane" for s in lanes[k]))
        width = count if count is not None else len(present)
        given = (road.slots or {}).get(edge)
        out: dict[int, list[str]] = {}
        for n, lane in enumerate(present, start=1):
            if given is not None and n <= len(given):
                slot = given[n - 1]
            else:
                slot = n if edge == road.to_edge else width + 1 - n
            out[slot] = lanes[lane]
        return out

    def reversed(self) -> RoadCut:
        """The same road driven the other way."""
        steps = [replace(s, source=s.target, target=s.source) for s in self.steps]
        return RoadCut(
            self.road,
            self.order,
            self.spaces,
            steps,
            self.beside,
            not self.reverse,
            self.overlaps,
        )


def _at(road: LaneRoad, line: str, lane: int, crossed: list[int]) -> float:
    spec = road.lines.get(line)
    value = spec.at if spec is not None else None
    if value is None:
        if line == f"E{road.from_edge}":
            return 0.0
        if line == f"E{road.to_edge}":
            return 1.0
        raise LaneError(f"road {road.id}: line {line} has no 'at'")
    if isinstance(value, float | int):
        return float(value)
    if len(value) != len(crossed):
        raise LaneError(
            f"road {road.id}: line {line} gives {len(value)} 'at' values for lanes {crossed}"
        )
    return float(value[crossed.index(lane)])


def _runs(
    road: LaneRoad, items: Sequence[str], index: Mapping[str, int], where: str
) -> list[tuple[str, str, str]]:
    """``(back line, space, front line)`` of each space of one lane list (or overlay)."""
    order = road.line_order()
    full = list(items)
    if full[0] not in index:
        full.insert(0, order[0])
    if full[-1] not in index:
        full.append(order[-1])
    runs = [(full[k - 1], full[k], full[k + 1]) for k in range(1, len(full), 2)]
    for back, sid, front in runs:
        if index[front] <= index[back]:
            raise LaneError(f"road {road.id} {where}: {sid} lies between lines out of order")
    return runs


def _ranks(road: LaneRoad, order: list[str]) -> dict[str, int]:
    """Each line's place along the road: lines at the same progress share a place."""
    ranks: dict[str, int] = {}
    rank, last = -1, None
    for name in order:
        spec = road.lines.get(name)
        at = spec.at if spec is not None else None
        if not (isinstance(at, float | int) and at == last):
            rank += 1
        last = at if isinstance(at, float | int) else None
        ranks[name] = rank
    return ranks


def cut_road(road: LaneRoad, space_order: Sequence[str] | None = None) -> RoadCut:
    """Spaces, steps, side-by-side pairs and overlaps of ``road``, driven ``from -> to``.

    Parameters
    ----------
    road : LaneRoad
        The road, lane by lane.
    space_order : sequence of str, optional
        The order to list the spaces in, and each space's steps by target (DIRT's
        cross-sections in driving order); by default lane by lane, and the steps line by
        line and lane by lane.

    Raises
    ------
    LaneError
        If the lists contradict themselves: a merged space with different lines in its
        lanes, lanes of a space not side by side, lines out of order, a line that ends a
        lane without listed links.
    """
    if road.hidden or not road.lanes:
        return RoadCut(road, road.line_order(), {}, [])
    order = road.line_order()
    index = {name: i for i, name in enumerate(order)}
    # lane -> [(back line, space, front line)], in driving order
    runs: dict[int, list[tuple[str, str, str]]] = {
        lane: _runs(road, items, index, f"lane {lane}")
        for lane, items in sorted(road.lanes.items())
    }
    lanes_of: dict[str, list[int]] = {}
    interval: dict[str, tuple[str, str]] = {}
    for lane, run in runs.items():
        for back, sid, front in run:
            lanes_of.setdefault(sid, []).append(lane)
            if interval.setdefault(sid, (back, front)) != (back, front):
                raise LaneError(
                    f"road {road.id}: merged space {sid} lies between other lines in lane {lane}"
                )
    crossing: dict[str, list[int]] = {}
    for lane, run in runs.items():
        for back, _sid, front in run:
            for line in (back, front):
                if lane not in crossing.setdefault(line, []):
                    crossing[line].append(lane)
    over: list[tuple[list[int], list[tuple[str, str, str]]]] = []
    for n, overlay in enumerate(road.overlays, start=1):
        run = _runs(road, overlay.spaces, index, f"overlay {n}")
        over.append((sorted(overlay.lanes), run))
        for back, sid, front in run:
            if sid in lanes_of:
                raise LaneError(f"road {road.id}: overlay space {sid} is also a lane space")
            lanes_of[sid] = sorted(overlay.lanes)
            interval[sid] = (back, front)
            for line in (back, front):
                crossing.setdefault(line, sorted(overlay.lanes))
    for line in crossing:
        crossing[line].sort()

    spaces: dict[str, RoadSpace] = {}
    overlay_ids = {sid for _lanes, run in over for _b, sid, _f in run}
    for sid, lanes in lanes_of.items():
        if lanes != list(range(lanes[0], lanes[-1] + 1)):
            raise LaneError(
                f"road {road.id}: space {sid} spans lanes {lanes} that are not side by side"
            )
        back, front = interval[sid]
        back_at = tuple(_at(road, back, k, crossing[back]) for k in lanes)
        front_at = tuple(_at(road, front, k, crossing[front]) for k in lanes)
        if any(f <= b for b, f in zip(back_at, front_at, strict=True)):
            raise LaneError(f"road {road.id}: space {sid} ends before it begins")
        spaces[sid] = RoadSpace(
            sid,
            road.id,
            tuple(lanes),
            index[back],
            index[front],
            back_at,
            front_at,
            "overlay" if sid in overlay_ids else "lane",
        )
    for shortcut in road.shortcuts:
        n = len(shortcut.spaces)
        begin, end = shortcut.at
        for k, sid in enumerate(shortcut.spaces):
            if sid in spaces:
                raise LaneError(f"road {road.id}: shortcut space {sid} is also a road space")
            lo = begin + (end - begin) * k / n
            hi = begin + (end - begin) * (k + 1) / n
            spaces[sid] = RoadSpace(sid, road.id, (), -1, -1, (lo,), (hi,), "side")
    if space_order is not None:
        rank = {sid: i for i, sid in enumerate(space_order)}
        spaces = dict(sorted(spaces.items(), key=lambda kv: rank.get(kv[0], len(rank))))

    steps: list[LaneStep] = []
    for line in order[1:-1]:
        spec = road.lines.get(line)
        if spec is not None and spec.links is not None:
            for a, b, kind in spec.links:
                if a not in spaces or b not in spaces:
                    raise LaneError(f"road {road.id}: line {line} links a space of another road")
                steps.append(LaneStep(a, b, kind, line))
            continue
        before: dict[int, list[str]] = {}
        after: dict[int, list[str]] = {}
        for lane, run in runs.items():
            for b, sid, f in run:
                if f == line:
                    before.setdefault(lane, []).append(sid)
                if b == line:
                    after.setdefault(lane, []).append(sid)
        for lanes, run in over:
            for b, sid, f in run:
                for lane in lanes:
                    if f == line:
                        before.setdefault(lane, []).append(sid)
                    if b == line:
                        after.setdefault(lane, []).append(sid)
        if set(before) != set(after):
            raise LaneError(f"road {road.id}: line {line} starts or ends a lane without links")
        steps += cross_line(line, before, after, spec.dotted if spec is not None else {})
    if space_order is not None:
        place = {sid: i for i, sid in enumerate(spaces)}
        steps.sort(key=lambda s: (index[s.line], place[s.source], place[s.target]))
    for shortcut in road.shortcuts:
        ids = shortcut.spaces
        for sid in (*shortcut.into, *shortcut.out):
            if sid not in spaces or spaces[sid].layer == "side":
                raise LaneError(f"road {road.id}: a shortcut links {sid}, not a road space")
        steps += [LaneStep(a, b, "straight", "") for a, b in itertools.pairwise(ids)]
        steps += [LaneStep(sid, ids[0], "link", "") for sid in shortcut.into]
        steps += [LaneStep(ids[-1], sid, "link", "") for sid in shortcut.out]

    ranks = _ranks(road, order)
    beside: set[frozenset[str]] = set()
    for lane, run in runs.items():
        for b1, s, f1 in run:
            for b2, t, f2 in runs.get(lane + 1, []):
                if s != t and max(ranks[b1], ranks[b2]) < min(ranks[f1], ranks[f2]):
                    beside.add(frozenset((s, t)))
    for shortcut in road.shortcuts:  # rule: SHORTCUT-3 (beside the spaces it is linked to)
        beside |= {frozenset((shortcut.spaces[0], sid)) for sid in shortcut.into}
        beside |= {frozenset((shortcut.spaces[-1], sid)) for sid in shortcut.out}
    overlaps: set[frozenset[str]] = set()
    for lanes, run in over:  # an overlay covers the lane spaces under it
        for b1, s, f1 in run:
            for lane in lanes:
                for b2, t, f2 in runs.get(lane, []):
                    if max(ranks[b1], ranks[b2]) < min(ranks[f1], ranks[f2]):
                        overlaps.add(frozenset((s, t)))
    return RoadCut(road, order, spaces, steps, beside, overlaps=overlaps)


def cross_line(
    line: str,
    before: Mapping[int, Sequence[str]],
    after: Mapping[int, Sequence[str]],
    dotted: Mapping[int, DottedMark] | None = None,
) -> list[LaneStep]:
    """The steps across one line: from the spaces ``before`` it to those ``after`` it.

    ``before``/``after`` map each lane (or, across a tile edge, each slot) to the spaces
    that end/begin at the line there; a space in several lanes spans them. A step is
    straight within a lane and diagonal into a neighbouring lane, unless one of the two
    spaces spans both lanes (then the straight step covers it, MOVE-1). ``dotted`` gives
    the sharp-corner marks of the line per lane (CORNER-4).
    """
    marks = dotted or {}
    span: dict[str, set[int]] = {}
    for lane, ids in (*before.items(), *after.items()):
        for sid in ids:
            span.setdefault(sid, set()).add(lane)
    steps: dict[tuple[str, str], LaneStep] = {}

    def add(step: LaneStep) -> None:
        old = steps.get((step.source, step.target))
        if old is None or (old.kind == "diagonal" and step.kind == "straight"):
            steps[(step.source, step.target)] = step

    for lane in sorted(before):
        for a in before[lane]:
            for b in after.get(lane, ()):
                if b != a:
                    add(_straight(a, b, line, span, marks))
            for side in (lane - 1, lane + 1):
                for c in after.get(side, ()):
                    if c == a or lane in span[c] or side in span[a]:
                        continue  # one of them spans both lanes: the straight step covers it
                    add(LaneStep(a, c, "diagonal", line))
    return list(steps.values())


def _straight(
    a: str, b: str, line: str, span: Mapping[str, set[int]], dotted: Mapping[int, DottedMark]
) -> LaneStep:
    """A straight step, limited when the line is dotted in every lane the step crosses it."""
    crossed = sorted(span[a] & span[b])
    marks = [dotted[k] for k in crossed if k in dotted]
    if not crossed or len(marks) < len(crossed):
        return LaneStep(a, b, "straight", line)
    numbers = [m for m in marks if isinstance(m, int)]
    if numbers:
        return LaneStep(a, b, "straight", line, limit=max(numbers))
    return LaneStep(a, b, "straight", line, hazard=True)
