"""Tile faces described in words, for ``trackkit tiles`` and ``trackkit tiles show``.

Examples
--------
>>> from trackkit.library import default_library
>>> lib = default_library()
>>> print(face_line(lib.get("217b")))
217b  dirt-core          gravel   low     bend            corner 2/3, shortcut 3
>>> [f.id for f in select_faces(lib, surface="snow", shape="hairpin", limit=1)][:4]
['310b', '311b', '312b', '313b']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trackkit.models.tile import ChicaneSection, CornerSection, FaceKind, SlideSection, TileFace
from trackkit.spaces import drive

__all__ = [
    "SHAPES",
    "SURFACES",
    "corner_limits",
    "describe_face",
    "face_details",
    "face_facts",
    "face_line",
    "face_shapes",
    "select_faces",
]

#: What ``trackkit tiles --shape`` accepts: the road shapes of the face data, the start and
#: finish lines, and the faces without a road (``s-bend`` is another name for ``kink``).
SHAPES = (
    "straight",
    "bend",
    "hairpin",
    "kink",
    "s-bend",
    "double-hairpin",
    "chicane",
    "start",
    "finish",
    "service",
    "scenery",
)
#: What ``trackkit tiles --surface`` accepts.
SURFACES = ("gravel", "asphalt", "snow")


def face_shapes(face: TileFace) -> set[str]:
    """The ``--shape`` values a face matches: its road's shape, its line, or its kind.

    A start or finish face matches ``start``/``finish`` and its road's shape (``straight``);
    a face without a road matches ``service`` or ``scenery``.
    """
    road = face.road
    if road is None or face.kind is not FaceKind.ROAD:
        return {face.kind.value}
    shapes = {road.shape.value}
    if road.shape.value == "kink":
        shapes.add("s-bend")
    if road.start_finish is not None:
        shapes.add(road.start_finish.kind)
    return shapes


def corner_limits(face: TileFace) -> set[int]:
    """Every limit printed in the face's corners and chicanes, on either lane."""
    road = face.road
    out: set[int] = set()
    for sec in road.sections if road else ():
        if isinstance(sec, CornerSection):
            out |= {sec.inner.limit, sec.outer.limit}
        elif isinstance(sec, ChicaneSection):
            out.add(sec.limit)
    return out


def select_faces(
    faces: Iterable[TileFace],
    *,
    surface: str | None = None,
    shape: str | None = None,
    limit: int | None = None,
) -> list[TileFace]:
    """The faces that pass every filter given (None: no filter).

    Parameters
    ----------
    faces : iterable of TileFace
        The faces to choose from, in the order kept.
    surface : str, optional
        One of :data:`SURFACES`.
    shape : str, optional
        One of :data:`SHAPES` (see :func:`face_shapes`).
    limit : int, optional
        Faces with a corner or chicane whose printed limit is ``limit`` on either lane.

    Raises
    ------
    ValueError
        For a surface or shape not in the lists, naming the accepted values.
    """
    if surface is not None and surface not in SURFACES:
        raise ValueError(f"unknown surface {surface!r}; surfaces: {', '.join(SURFACES)}")
    if shape is not None and shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}; shapes: {', '.join(SHAPES)}")
    return [
        f
        for f in faces
        if (surface is None or f.surface.value == surface)
        and (shape is None or shape in face_shapes(f))
        and (limit is None or limit in corner_limits(f))
    ]


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


def _lane_spaces(face: TileFace) -> dict[str, int]:
    """Spaces of the road per lane (driving from -> to): left, right, full width."""
    road = face.road
    lanes = {"left": 0, "right": 0, "full": 0}
    if road is None:
        return lanes
    for sp in drive(face, road.from_edge).spaces.values():
        if sp.kind in ("lane", "corner"):
            lanes["left" if next(iter(sp.sides)) == "L" else "right"] += 1
        elif sp.kind in ("full", "chicane"):
            lanes["full"] += 1
    return lanes


def face_details(face: TileFace) -> dict[str, Any]:
    """Everything ``trackkit tiles show --format json`` prints about a face.

    The facts of :func:`face_facts`, the piece and its side, lanes at each road edge, the
    road as the library describes it (sections, shortcuts, jumps, ...), the spaces per lane
    and how sure the reading of the picture is.
    """
    details = face_facts(face)
    details.update(
        {
            "number": face.number,
            "side": face.face or None,
            "series": face.series,
            "shapes": sorted(face_shapes(face)),
            "lanes": {str(edge): n for edge, n in sorted(face.lanes.items())},
            "road": face.road.model_dump(mode="json", by_alias=True) if face.road else None,
            "lane_spaces": _lane_spaces(face) if face.road else None,
            "confidence": face.confidence.value,
            "notes": face.notes,
            "sources": face.sources,
        }
    )
    return details


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
    lanes = _lane_spaces(face)
    total = len(drive(face, road.from_edge).spaces)
    lines.append(
        f"  spaces: {total} in all; left lane {lanes['left']}, right lane "
        f"{lanes['right']}, full width {lanes['full']} (driving {road.from_edge}->"
        f"{road.to_edge})"
    )
    if face.confidence.value != "high":
        lines.append(f"  reading confidence: {face.confidence.value}")
    if face.sources:
        lines.append(f"  sources: {face.sources}")
    return "\n".join(lines)
