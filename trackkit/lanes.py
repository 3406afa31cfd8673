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
  printed number or sign (CORNER-4); diagonal steps never are.

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

from dataclasses import dataclass, field, replace
from typing import Literal

from trackkit.models.lanes import DottedMark, LaneRoad

__all__ = ["LaneError", "LaneStep", "RoadCut", "RoadSpace", "cut_road"]

StepKind = Literal["straight", "diagonal"]


class LaneError(ValueError):
    """A road's lane lists contradict themselves (a face the library must not ship)."""


@dataclass(frozen=True, slots=True)
class RoadSpace:
    """A space of one road: its lanes, its back and front lines, and where they lie.

    ``back``/``front`` index the road's line order; ``back_at``/``front_at`` give the
    progress of those lines (0..1 along the road, ``from -> to``) in each of ``lanes``.
    """

    id: str
    road: str
    lanes: tuple[int, ...]
    back: int
    front: int
    back_at: tuple[float, ...]
    front_at: tuple[float, ...]

    @property
    def progress(self) -> float:
        """Front edge along the road (0..1), the mean over the space's lanes (BOARD-5)."""
        return sum(self.front_at) / len(self.front_at)


@dataclass(frozen=True, slots=True)
class LaneStep:
    """A forward step across one cross line.

    ``limit`` is the highest gear a straight step may take across a dotted line (CORNER-4),
    ``hazard`` that crossing it adds a danger result (a warning sign instead of a number).
    """

    source: str
    target: str
    kind: StepKind
    line: str
    limit: int | None = None
    hazard: bool = False


@dataclass(slots=True)
class RoadCut:
    """A road cut into spaces, with its steps and side-by-side pairs."""

    road: LaneRoad
    order: list[str]
    """Cross lines in driving order, end edges first and last."""
    spaces: dict[str, RoadSpace]
    steps: list[LaneStep]
    beside: set[frozenset[str]] = field(default_factory=set)
    reverse: bool = False
    """Driven ``to -> from``: ``order`` and ``steps`` are turned round."""

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

    def reversed(self) -> RoadCut:
        """The same road driven the other way."""
        steps = [replace(s, source=s.target, target=s.source) for s in self.steps]
        return RoadCut(self.road, self.order, self.spaces, steps, self.beside, not self.reverse)


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


def cut_road(road: LaneRoad) -> RoadCut:
    """Spaces, steps and side-by-side pairs of ``road``, driven ``from -> to``.

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
    runs: dict[int, list[tuple[str, str, str]]] = {}
    for lane, items in sorted(road.lanes.items()):
        full = list(items)
        if full[0] not in index:
            full.insert(0, order[0])
        if full[-1] not in index:
            full.append(order[-1])
        runs[lane] = [(full[k - 1], full[k], full[k + 1]) for k in range(1, len(full), 2)]
        for back, sid, front in runs[lane]:
            if index[front] <= index[back]:
                raise LaneError(
                    f"road {road.id} lane {lane}: {sid} lies between lines out of order"
                )

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
    for line in crossing:
        crossing[line].sort()

    spaces: dict[str, RoadSpace] = {}
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
            sid, road.id, tuple(lanes), index[back], index[front], back_at, front_at
        )

    steps: dict[tuple[str, str], LaneStep] = {}

    def add(step: LaneStep) -> None:
        old = steps.get((step.source, step.target))
        if old is None or (old.kind == "diagonal" and step.kind == "straight"):
            steps[(step.source, step.target)] = step

    for line in order[1:-1]:
        spec = road.lines.get(line)
        if spec is not None and spec.links is not None:
            for a, b, kind in spec.links:
                if a not in spaces or b not in spaces:
                    raise LaneError(f"road {road.id}: line {line} links a space of another road")
                add(LaneStep(a, b, kind, line))
            continue
        before = {lane: sid for lane, run in runs.items() for _b, sid, f in run if f == line}
        after = {lane: sid for lane, run in runs.items() for b, sid, _f in run if b == line}
        if set(before) != set(after):
            raise LaneError(f"road {road.id}: line {line} starts or ends a lane without links")
        dotted = spec.dotted if spec is not None else {}
        for lane, a in before.items():
            b = after[lane]
            if b != a:
                add(_straight(a, b, line, lanes_of, dotted))
            for side in (lane - 1, lane + 1):
                c = after.get(side)
                if c is None or c == a:
                    continue
                if lane in lanes_of[c] or side in lanes_of[a]:
                    continue  # one of them spans both lanes: the straight step covers it
                add(LaneStep(a, c, "diagonal", line))

    beside: set[frozenset[str]] = set()
    for lane, run in runs.items():
        for b1, s, f1 in run:
            for b2, t, f2 in runs.get(lane + 1, []):
                if s != t and max(index[b1], index[b2]) < min(index[f1], index[f2]):
                    beside.add(frozenset((s, t)))
    return RoadCut(road, order, spaces, list(steps.values()), beside)


def _straight(
    a: str, b: str, line: str, lanes_of: dict[str, list[int]], dotted: dict[int, DottedMark]
) -> LaneStep:
    """A straight step, limited when the line is dotted in every lane the step crosses it."""
    crossed = sorted(set(lanes_of[a]) & set(lanes_of[b]))
    marks = [dotted[k] for k in crossed if k in dotted]
    if not crossed or len(marks) < len(crossed):
        return LaneStep(a, b, "straight", line)
    numbers = [m for m in marks if isinstance(m, int)]
    if numbers:
        return LaneStep(a, b, "straight", line, limit=max(numbers))
    return LaneStep(a, b, "straight", line, hazard=True)
