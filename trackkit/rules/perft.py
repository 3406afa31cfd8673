"""Perft counts of the legal-plan generator, pinned in golden files like chess perft.

A :class:`Suite` is the data of one golden file: fixed positions (plain dicts: a name,
the car's space and gear, its car, other cars, damage, the rule ids it ``covers``, and
what only its series has), how the series sets up a position (:attr:`Suite.setting`:
the stage, and for a DIRT position the leader and mud, for a GT one the ruleset and the
lap), and the marks whose plans are counted (:class:`Mark`, data). For each position the
file pins the number of legal plans (:func:`trackkit.rules.plans.legal_plans`), the
counts under each first step (:func:`trackkit.rules.plans.plans_by_first`) and the plans
carrying each mark; on a mismatch :meth:`Suite.mismatch` lists the counts under each
first step, pinned and now, so that the step that changed is found at once.

``scripts/regen_perft.py`` (DIRT) and ``scripts/regen_perft_gt.py`` (GT) are the two
suites; each writes its file with :meth:`Suite.main`.

Examples
--------
>>> from trackkit.rules.positions import position
>>> suite = Suite(
...     name="tiny",
...     repo=Path("."),
...     golden="perft-tiny.json",
...     regen="(no script)",
...     positions=[entry("gear0", "1:1.1L", 0, ["MOVE-2"], car="dirt", tiles=["202a", "203a"])],
...     marks={"loc": Mark("last", "loc")},
...     setting=lambda pos: {"tiles": pos["tiles"]},
... )
>>> result = suite.perft(suite.positions[0])
>>> result["count"] == sum(result["by_first"].values()), result["marks"]["loc"] >= 0
(True, True)
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from operator import attrgetter
from pathlib import Path
from typing import Any, Literal

from trackkit.rules.plans import Plan, PlanContext, PlanStep, legal_plans, plans_by_first
from trackkit.rules.positions import position
from trackkit.rules.state import Damage, OtherCar

__all__ = ["Mark", "Position", "Suite", "entry"]

#: A perft position: the keys :func:`entry` writes, and those of its series.
Position = dict[str, Any]

#: No value asked for: a mark's field need only be set (:class:`Mark`).
_SET = object()


@dataclass(frozen=True, slots=True)
class Mark:
    """A mark of plans the golden file counts: a plan carries it when ``field`` of the
    plan's ``step`` (``any`` step, the ``first`` or the ``last``) is set (true, non-zero,
    not None), or equals ``value`` when one is given.

    >>> from trackkit.rules.plans import PlanStep
    >>> first, last = PlanStep("1:1.2L", (), 1, "", 5), PlanStep("1:1.3L", (), 2, "", 5, loc="jump")
    >>> plan = Plan((first, last))
    >>> Mark("last", "loc").carried(plan), Mark("last", "loc", "sharp").carried(plan)
    (True, False)
    >>> Mark("first", "loc").carried(plan), Mark("any", "loc", "jump").carried(plan)
    (False, True)
    """

    step: Literal["any", "first", "last"]
    field: str
    value: object = _SET

    def carried(self, plan: Plan) -> bool:
        """Whether ``plan`` carries the mark."""
        return self.test()(plan.steps)

    def test(self) -> Callable[[Sequence[PlanStep]], bool]:
        """Whether a plan's steps carry the mark: a function made once, called for each
        of the many plans of a position."""
        read, value = attrgetter(self.field), self.value
        if self.step == "any":
            if value is _SET:
                return lambda steps: any(map(read, steps))
            return lambda steps: value in map(read, steps)
        at = 0 if self.step == "first" else -1
        if value is _SET:
            return lambda steps: bool(read(steps[at]))
        return lambda steps: bool(read(steps[at]) == value)


def entry(
    name: str,
    space: str,
    gear: int,
    covers: list[str],
    *,
    car: str,
    others: list[list[Any]] | None = None,
    damage: dict[str, int] | None = None,
    **series: Any,
) -> Position:
    """A perft position: the car on ``space`` in ``gear``, the rule ids it ``covers``.

    ``others`` are other cars as ``[space, gear]`` or ``[space, gear, blocks]`` (False:
    a car that blocks no one, TRAFFIC-4); ``damage`` counts damage tokens by die kind;
    ``series`` holds what only its series has (read by :attr:`Suite.setting`).

    >>> entry("x", "1:1.1L", 0, ["MOVE-2"], car="dirt", tiles=["202a", "203a"])["others"]
    []
    """
    return {
        "name": name,
        "space": space,
        "gear": gear,
        "car": car,
        "others": others or [],
        "damage": damage or {},
        **series,
        "covers": covers,
    }


@dataclass(frozen=True, slots=True)
class Suite:
    """The positions of one golden file, how to set them up and the marks counted."""

    name: str
    """What the suite pins (``DIRT``, ``GT``): for messages."""
    repo: Path
    """The checkout the golden file lies in."""
    golden: str
    """The golden file, relative to :attr:`repo`."""
    regen: str
    """The script that writes it, for messages (``scripts/regen_perft.py``)."""
    positions: Sequence[Position]
    marks: Mapping[str, Mark]
    """The marks counted, by the name the golden file gives them."""
    setting: Callable[[Position], dict[str, Any]]
    """The series' part of a position: keyword arguments of
    :func:`trackkit.rules.positions.position`, the stage (``tiles``) among them."""

    def context(self, pos: Position) -> PlanContext:
        """The planning position a perft entry describes."""
        others = [tuple(o) for o in pos["others"]]
        ctx = position(
            space=pos["space"],
            gear=pos["gear"],
            car=pos["car"],
            others=[(str(o[0]), int(o[1])) for o in others],
            damage=Damage(**pos["damage"]),
            **self.setting(pos),
        )
        if any(len(o) > 2 for o in others):  # a third item: whether the car blocks
            blocking = tuple(
                OtherCar(str(o[0]), int(o[1]), bool(o[2]) if len(o) > 2 else True) for o in others
            )
            ctx = replace(ctx, others=blocking)
        return ctx

    def tally(self, pos: Position) -> dict[str, Any]:
        """Plan count and counts per mark of one position (one pass over its plans)."""
        count = 0
        tests = [(name, mark.test()) for name, mark in self.marks.items()]
        marks = dict.fromkeys(self.marks, 0)
        for plan in legal_plans(self.context(pos)):
            count += 1
            steps = plan.steps
            for name, test in tests:
                marks[name] += test(steps)
        return {"count": count, "marks": marks}

    def perft(self, pos: Position) -> dict[str, Any]:
        """What the golden file pins for one position: count, counts per first step,
        marks."""
        return {**self.tally(pos), "by_first": plans_by_first(self.context(pos))}

    def data(self) -> dict[str, Any]:
        """Everything the golden file holds, by position name."""
        return {pos["name"]: self.perft(pos) for pos in self.positions}

    def by_name(self, name: str) -> Position:
        """The position called ``name``.

        Raises
        ------
        KeyError
            For a name no position has.
        """
        for pos in self.positions:
            if pos["name"] == name:
                return pos
        raise KeyError(name)

    def mismatch(self, name: str, pinned: Mapping[str, Any], now: Mapping[str, Any]) -> str:
        """Counts per first step of position ``name``, pinned vs now, changed rows
        marked: what a failing test prints."""
        by_first = plans_by_first(self.context(self.by_name(name)))
        old = pinned["by_first"]
        lines = [
            f"perft '{name}': pinned {pinned['count']} plans, now {now['count']}",
            f"  marks pinned {dict(sorted(pinned['marks'].items()))}",
            f"  marks now    {dict(sorted(now['marks'].items()))}",
            f"  {'first step':32s} {'pinned':>8s} {'now':>8s}",
        ]
        for key in sorted(set(old) | set(by_first)):
            a, b = old.get(key, 0), by_first.get(key, 0)
            flag = "" if a == b else "   <-- differs"
            lines.append(f"  {key:32s} {a:8d} {b:8d}{flag}")
        lines.append(f"(regenerate with {self.regen} once the change is understood)")
        return "\n".join(lines)

    def main(self, argv: Sequence[str] | None = None) -> None:
        """Write the golden file (``--show``: print the counts instead)."""
        args = sys.argv[1:] if argv is None else list(argv)
        data = self.data()
        if "--show" in args:
            for name, found in data.items():
                print(f"{name:26s} {found['count']:7d}  {found['marks']}")
            return
        path = self.repo / self.golden
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {self.golden} ({len(data)} positions)")
