"""Tile faces described in words, for ``trackkit tiles`` and ``trackkit tiles show``.

Examples
--------
>>> from trackkit.library import default_library
>>> print(face_line(default_library().get("217b")))
217b  dirt-core          gravel   low     bend            corner 2/3, shortcut 3
"""

from __future__ import annotations

from typing import Any

from trackkit.models.tile import ChicaneSection, CornerSection, SlideSection, TileFace
from trackkit.spaces import drive

__all__ = ["describe_face", "face_facts", "face_line"]


def face_facts(face: TileFace) -> dict[str, Any]:
    """A face's main facts as a JSON-ready dict."""
    road = face.road
    facts: dict[str, Any] = {
        "id": face.id,
        "box": face.box,
        "kind": face.kind.value,
        "copies": face.copies,
        "surface": face.surface.value,
        "danger": face.danger.value,
    }
    if road is None:
        return facts
    corners = []
    for sec in road.sections:
        if isinstance(sec, CornerSection):
            corners.append(f"{sec.inner.limit}/{sec.outer.limit}")
        elif isinstance(sec, ChicaneSection):
            corners.append(f"{sec.limit}")
    facts.update(
        {
            "edges": [road.from_edge, road.to_edge],
            "shape": road.shape.value,
            "corners": corners,
            "shortcuts": [s.limit for s in road.shortcuts],
            "jumps": [j.value for j in road.jumps],
            "ford": bool(road.fords),
            "climb": road.climb.forward if road.climb else None,
            "line": road.start_finish.kind if road.start_finish else None,
            "spaces": len(drive(face, road.from_edge).spaces),
        }
    )
    return facts


def face_line(face: TileFace) -> str:
    """One line of the ``trackkit tiles`` listing."""
    f = face_facts(face)
    features = []
    if f.get("line"):
        features.append(str(f["line"]))
    features += [f"corner {c}" for c in f.get("corners", [])]
    features += [f"shortcut {s}" for s in f.get("shortcuts", [])]
    features += [f"jump {j}" for j in f.get("jumps", [])]
    if f.get("ford"):
        features.append("ford")
    if f.get("climb"):
        features.append("climb")
    shape = f.get("shape", face.kind.value)
    return (
        f"{face.id:<5} {face.box:<18} {face.surface.value:<8} {face.danger.value:<7} "
        f"{shape:<15} {', '.join(features)}"
    ).rstrip()


def describe_face(face: TileFace) -> str:
    """A face in words: roads, sections, spaces per lane and features."""
    lines = [
        f"{face.id}: {face.box}, piece {face.number} side {face.face or '-'} "
        f"({face.copies} in the box); {face.surface.value}, {face.danger.value} danger"
    ]
    road = face.road
    if road is None:
        what = (
            "a service area (dead end, cars never on it)"
            if face.kind.value == "service"
            else "scenery: no road"
        )
        lines.append(f"  {what}; stands beside the road")
        return "\n".join(lines)
    lines.append(
        f"  road from edge {road.from_edge} to edge {road.to_edge} "
        f"({road.shape.value}); drivable both ways"
    )
    for n, sec in enumerate(road.sections, start=1):
        if isinstance(sec, CornerSection):
            text = (
                f"corner turning {sec.turn.value}: inner lane {sec.inner.spaces} space(s) "
                f"limit {sec.inner.limit}, outer lane {sec.outer.spaces} space(s) "
                f"limit {sec.outer.limit}"
            )
        elif isinstance(sec, ChicaneSection):
            text = f"chicane: {sec.spaces} space(s) across both lanes, limit {sec.limit}"
        elif isinstance(sec, SlideSection):
            text = f"{sec.rows} slide row(s) (2 lane spaces, or 2 full-width slide spaces)"
        else:
            text = (
                f"{sec.rows} row(s) of 2 lane spaces"
                if sec.lanes == 2
                else f"{sec.rows} full-width space(s)"
            )
        lines.append(f"  section {n}: {text}")
    for sc in road.shortcuts:
        entry = ", ".join(f"{r.section}.{r.row}" for r in sc.entry)
        exit_ = ", ".join(f"{r.section}.{r.row}" for r in sc.exit)
        lines.append(
            f"  shortcut: {sc.spaces} space(s), limit {sc.limit}, from row(s) {entry} "
            f"to row(s) {exit_}"
        )
    for j in road.jumps:
        lines.append(f"  jump {j.value} on section {j.section} row {j.row} ({j.chevron})")
    for fd in road.fords:
        lines.append(f"  ford on section {fd.section} row {fd.row}")
    if road.climb:
        lines.append(
            f"  climb arrows on every line: {road.from_edge}->{road.to_edge} is "
            f"{road.climb.forward}"
        )
    if road.start_finish:
        sf = road.start_finish
        lines.append(f"  {sf.kind} line after section {sf.after.section} row {sf.after.row}")
    driven = drive(face, road.from_edge)
    lanes = {"L": 0, "R": 0, "full": 0}
    for sp in driven.spaces.values():
        if sp.kind in ("lane", "corner"):
            lanes[next(iter(sp.sides))] += 1
        elif sp.kind in ("full", "chicane"):
            lanes["full"] += 1
    lines.append(
        f"  spaces: {len(driven.spaces)} in all; left lane {lanes['L']}, right lane "
        f"{lanes['R']}, full width {lanes['full']} (driving {road.from_edge}->"
        f"{road.to_edge})"
    )
    if face.confidence.value != "high":
        lines.append(f"  reading confidence: {face.confidence.value}")
    if face.sources:
        lines.append(f"  sources: {face.sources}")
    return "\n".join(lines)
