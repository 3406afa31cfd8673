"""Tile faces described in words, for ``trackkit tiles`` and ``trackkit tiles show``.

Examples
--------
>>> from trackkit.tiles.library import default_library
>>> lib = default_library()
>>> print(face_line(lib.get("217b")))
217b  dirt-core          gravel   low     bend            corner 2/3, shortcut 3
>>> [f.id for f in select_faces(lib, surface="snow", shape="hairpin", limit=1)][:4]
['310b', '311b', '312b', '313b']
>>> print(face_line(lib.get("117a")))
117a  gt-core            asphalt  low     bend            3 lanes, corner 4/4!, dotted 3

Rallyman: GT faces are described from their lane layout (:mod:`trackkit.road.lanes`): lanes,
roads, corners with circled and triangle limits, dotted lines, skew ends, crossings,
junctions, the start/finish line with its grid, and the pit board of 101.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trackkit.models.lanes import LaneLayout, LaneRoad
from trackkit.models.tile import ChicaneSection, CornerSection, FaceKind, SlideSection, TileFace
from trackkit.road.lanes import RoadCut, cut_road
from trackkit.road.spaces import drive
from trackkit.words import plural

__all__ = [
    "SHAPES",
    "SURFACES",
    "corner_limits",
    "describe_face",
    "face_details",
    "face_facts",
    "face_line",
    "face_shapes",
    "gt_shape",
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
    "crossing",
    "junction",
    "bridge",
    "two-roads",
    "pit",
)
#: What ``trackkit tiles --surface`` accepts.
SURFACES = ("gravel", "asphalt", "snow")


def face_shapes(face: TileFace) -> set[str]:
    """The ``--shape`` values a face matches: its road's shape, its line, or its kind.

    A start or finish face matches ``start``/``finish`` and its road's shape (``straight``);
    a face without a road matches ``service`` or ``scenery``.
    """
    road = face.road
    if face.layout is not None and face.layout.roads:
        shapes = {gt_shape(face)}
        if "kink" in shapes:
            shapes.add("s-bend")
        for line in face.layout.start_finish:
            shapes |= {"start", "finish"} if line.kind == "start-finish" else {line.kind}
        return shapes
    if road is None or face.kind is not FaceKind.ROAD:
        return {face.kind.value}
    shapes = {road.shape.value}
    if road.shape.value == "kink":
        shapes.add("s-bend")
    if road.start_finish is not None:
        shapes.add(road.start_finish.kind)
    return shapes


def corner_limits(face: TileFace) -> set[int]:
    """Every limit printed in the face's corners and chicanes, on either lane.

    On a GT face: every circled or triangle limit of its spaces and every number beside a
    dotted sharp-corner line (as the csv's ``corner_limits`` count them).
    """
    road = face.road
    if face.layout is not None:
        dotted = {m for *_rest, m in _dotted_marks(face.layout) if isinstance(m, int)}
        return dotted | {s.limit for s in face.layout.spaces.values() if s.limit is not None}
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
    if face.layout is not None and face.layout.roads:
        return facts | _gt_facts(face, face.layout)
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
            lanes["left" if sp.lanes == (1,) else "right"] += 1
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
    if face.layout is not None:
        return details | _gt_details(face, face.layout)
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
    if face.layout is not None and face.layout.roads:
        features.append(_lanes_text(face))
    features += [f"corner {c}" for c in f.get("corners", [])]
    if f.get("dotted"):
        features.append("dotted " + "/".join(f["dotted"]))
    if f.get("skews"):
        features.append("skew " + " ".join(f"{e}{h[-1]}" for e, h in f["skews"].items()))
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


#: What a face without a road is, in the first line of :func:`describe_face`.
_NO_ROAD = {"scenery": "scenery", "service": "service area", "pit": "pit board"}


def describe_face(face: TileFace) -> str:
    """A face in words: roads, sections, spaces per lane and features."""
    if face.surface.value == "none" and face.danger.value == "none":  # no road to drive
        what = _NO_ROAD.get(face.kind.value, face.kind.value)
        facts = f"{what}, no road"
    else:
        facts = f"{face.surface.value}, {face.danger.value} danger"
    lines = [
        f"{face.id}: {face.box}, piece {face.number} side {face.face or '-'} "
        f"({face.copies} in the box); {facts}"
    ]
    if face.also_in:
        others = ", ".join(f"{n} in {box}" for box, n in sorted(face.also_in.items()))
        lines[0] += f"; also {others}"
    if face.layout is not None:
        lines += _describe_gt(face, face.layout)
        return "\n".join(lines)
    road = face.road
    if road is None:
        what = (
            "a service area (dead end, cars never on it); stands"
            if face.kind.value == "service"
            else "stands"
        )
        lines.append(f"  {what} beside the road")
        return "\n".join(lines)
    lines.append(
        f"  road from edge {road.from_edge} to edge {road.to_edge} "
        f"({road.shape.value}); drivable both ways"
    )
    for n, sec in enumerate(road.sections, start=1):
        if isinstance(sec, CornerSection):
            text = (
                f"corner turning {sec.turn.value}: inner lane {plural(sec.inner.spaces, 'space')} "
                f"limit {sec.inner.limit}, outer lane {plural(sec.outer.spaces, 'space')} "
                f"limit {sec.outer.limit}"
            )
        elif isinstance(sec, ChicaneSection):
            text = f"chicane: {plural(sec.spaces, 'space')} across both lanes, limit {sec.limit}"
        elif isinstance(sec, SlideSection):
            text = f"{plural(sec.rows, 'slide row')} (2 lane spaces, or 2 full-width slide spaces)"
        else:
            text = (
                f"{plural(sec.rows, 'row')} of 2 lane spaces"
                if sec.lanes == 2
                else f"{plural(sec.rows, 'full-width space')}"
            )
        lines.append(f"  section {n}: {text}")
    for sc in road.shortcuts:
        entry = ", ".join(f"{r.section}.{r.row}" for r in sc.entry)
        exit_ = ", ".join(f"{r.section}.{r.row}" for r in sc.exit)
        lines.append(
            f"  shortcut: {plural(sc.spaces, 'space')}, limit {sc.limit}, "
            f"from {'row' if len(sc.entry) == 1 else 'rows'} {entry} "
            f"to {'row' if len(sc.exit) == 1 else 'rows'} {exit_}"
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


# ----------------------------------------------------------------- Rallyman: GT faces


def _visible(layout: LaneLayout) -> list[LaneRoad]:
    return [r for r in layout.roads if not r.hidden]


def _shared_spaces(layout: LaneLayout) -> dict[str, list[str]]:
    """Spaces named by several roads (a junction): space -> road ids."""
    owners: dict[str, list[str]] = {}
    for road in _visible(layout):
        lines = set(road.line_order())
        for sid in sorted({x for items in (road.lanes or {}).values() for x in items} - lines):
            owners.setdefault(sid, []).append(road.id)
    return {sid: ids for sid, ids in owners.items() if len(ids) > 1}


def _road_shape(face: TileFace, road: LaneRoad) -> str:
    """straight, bend, hairpin or kink, from the road's edges, skews and corners."""
    step = (road.to_edge - road.from_edge - 3) % 6
    skew_ends = road.from_edge in face.skews and road.to_edge in face.skews
    if step in (1, 5) and skew_ends:
        return "straight"  # between two slanted edges (csv straight+1/-1)
    if step == 0:
        return "kink" if road.corners else "straight"
    return "bend" if step in (1, 5) else "hairpin"


def gt_shape(face: TileFace) -> str:
    """One word for a GT face's roads: a road's shape, or what several roads make.

    ``junction`` (roads sharing spaces), ``bridge`` (a road under another), ``crossing``
    (roads over common ground), ``two-roads`` (roads that do not touch), ``pit`` (101).
    """
    layout = face.layout
    if layout is None or not layout.roads:
        return face.kind.value
    if _shared_spaces(layout):
        return "junction"
    if any(r.hidden for r in layout.roads):
        return "bridge"
    if layout.overlaps:
        return "crossing"
    if len(layout.roads) > 1:
        return "two-roads"
    return _road_shape(face, layout.roads[0])


def _limit_text(layout: LaneLayout, sid: str) -> str:
    space = layout.spaces[sid]
    return f"{space.limit}!" if space.triangle else str(space.limit)


def _corner_texts(layout: LaneLayout) -> list[str]:
    """Each corner's limits, each value once in lane order, a triangle marked ``!``.

    117a: ``4/4!`` (a circled 4 in lane 1, a 4 in a triangle over lanes 2-3).
    """
    out = []
    for road in _visible(layout):
        cut = cut_road(road)
        for corner in road.corners:
            ordered = sorted(
                (s for s in corner.spaces if layout.spaces[s].limit is not None),
                key=lambda s: cut.spaces[s].lanes,
            )
            texts = list(dict.fromkeys(_limit_text(layout, s) for s in ordered))
            out.append("/".join(texts))
    return out


def _dotted_marks(layout: LaneLayout) -> list[tuple[str, str, int, int | str]]:
    """(road, line, lane, number or 'hazard') of every dotted sharp-corner line."""
    return [
        (road.id, name, lane, mark)
        for road in _visible(layout)
        for name, line in road.lines.items()
        for lane, mark in sorted(line.dotted.items())
    ]


def _dotted_texts(layout: LaneLayout) -> list[str]:
    """The dotted lines' numbers (a warning sign as ``sign``), each once, low to high."""
    marks = {m for *_rest, m in _dotted_marks(layout)}
    numbers = sorted(m for m in marks if isinstance(m, int))
    return [str(n) for n in numbers] + (["sign"] if "hazard" in marks else [])


def _lanes_text(face: TileFace) -> str:
    counts = sorted(set(face.lanes.values()))
    return f"{'/'.join(map(str, counts))} lanes" if counts else "no lanes"


def _gt_facts(face: TileFace, layout: LaneLayout) -> dict[str, Any]:
    roads = _visible(layout)
    spaces = sum(1 for _ in layout.spaces)
    lines = [sf.kind for sf in layout.start_finish]
    return {
        "edges": sorted({e for r in layout.roads for e in (r.from_edge, r.to_edge)}),
        "shape": gt_shape(face),
        "roads": [f"{r.from_edge}-{r.to_edge}" for r in layout.roads],
        "lanes": {str(e): n for e, n in sorted(face.lanes.items())},
        "skews": {str(e): h.value for e, h in sorted(face.skews.items())},
        "corners": _corner_texts(layout),
        "dotted": _dotted_texts(layout),
        "line": lines[0] if lines else None,
        "grid": sum(len(row) for sf in layout.start_finish for row in sf.grid),
        "crossing": bool(layout.overlaps) and not _shared_spaces(layout),
        "spaces": spaces if roads else 0,
    }


def _cut_summary(cut: RoadCut) -> dict[str, Any]:
    return {
        "spaces": {
            sid: {"lanes": list(sp.lanes), "progress": round(sp.progress, 4)}
            for sid, sp in cut.spaces.items()
        },
        "entries": {
            str(cut.road.from_edge): cut.entries(),
            str(cut.road.to_edge): cut.reversed().entries(),
        },
        "steps": [
            {
                "from": st.source,
                "to": st.target,
                "kind": st.kind,
                "line": st.line,
                **({"limit": st.limit} if st.limit is not None else {}),
                **({"hazard": True} if st.hazard else {}),
            }
            for st in cut.steps
        ],
        "beside": sorted(sorted(pair) for pair in cut.beside),
    }


def _gt_details(face: TileFace, layout: LaneLayout) -> dict[str, Any]:
    return {
        "number": face.number,
        "side": face.face or None,
        "series": face.series,
        "also_in": dict(face.also_in),
        "shapes": sorted(face_shapes(face)),
        "road": None,
        "layout": layout.model_dump(mode="json", by_alias=True, exclude_defaults=True),
        "derived": {r.id: _cut_summary(cut_road(r)) for r in _visible(layout)},
        "shared": _shared_spaces(layout),
        "confidence": face.confidence.value,
        "notes": face.notes,
        "sources": face.sources,
    }


def _lane_list(road: LaneRoad) -> list[str]:
    """Each lane's spaces in driving order, ``|`` for a cross line, ``┆N`` for a dotted one."""
    out = []
    names = set(road.line_order())
    for lane, items in sorted((road.lanes or {}).items()):
        parts = []
        for item in items:
            if item in names:
                if item in (items[0], items[-1]):
                    continue  # a lane beginning or ending on a line: said after the list
                mark = road.lines[item].dotted.get(lane) if item in road.lines else None
                parts.append("|" if mark is None else f"┆{'!' if mark == 'hazard' else mark}")
            else:
                parts.append(item)
        first, last = items[0] in names, items[-1] in names
        text = " ".join(parts)
        head = road.lines.get(f"E{road.from_edge}")
        tail = road.lines.get(f"E{road.to_edge}")
        if not first and head is not None and lane in head.dotted:
            text = f"┆{_mark(head.dotted[lane])} {text}"
        if not last and tail is not None and lane in tail.dotted:
            text = f"{text} ┆{_mark(tail.dotted[lane])}"
        begins = " (begins on line " + items[0] + ")" if first else ""
        ends = " (ends on line " + items[-1] + ")" if last else ""
        out.append(f"lane {lane}: {text}{begins}{ends}")
    return out


def _mark(mark: int | str) -> str:
    return "!" if mark == "hazard" else str(mark)


def _lanes_of(cut: RoadCut, sid: str) -> str:
    lanes = cut.spaces[sid].lanes
    return f"lane {lanes[0]}" if len(lanes) == 1 else f"lanes {lanes[0]}-{lanes[-1]}"


def _describe_road(face: TileFace, layout: LaneLayout, road: LaneRoad) -> list[str]:
    if road.hidden:
        return [
            f"  road {road.id}: edge {road.from_edge} -> edge {road.to_edge}, passes under "
            f"the other road (a bridge): not drawn, no spaces; {face.lanes.get(road.from_edge)} "
            "lanes at its edges"
        ]
    cut = cut_road(road)
    lanes = sorted(road.lanes or {})
    out = [
        f"  road {road.id}: edge {road.from_edge} -> edge {road.to_edge}, "
        f"{_road_shape(face, road)}, {_count(len(lanes), 'lane')} (lane 1 on the left "
        f"driving {road.from_edge}->{road.to_edge}), {_count(len(cut.spaces), 'space')}"
    ]
    out += [f"    {text}" for text in _lane_list(road)]
    for corner in road.corners:
        inner = 1 if corner.turn == "left" else max(lanes)
        parts = []
        for sid in sorted(corner.spaces, key=lambda s: cut.spaces[s].lanes):
            space = layout.spaces[sid]
            if space.limit is None:
                continue
            kind = "in a triangle (dangerous corner, CORNER-5)" if space.triangle else "circled"
            parts.append(f"{sid} ({_lanes_of(cut, sid)}) {space.limit} {kind}")
        out.append(f"    corner turning {corner.turn} (inner lane {inner}): " + "; ".join(parts))
    loose = [
        sid
        for sid in cut.spaces
        if layout.spaces[sid].limit is not None and not any(sid in c.spaces for c in road.corners)
    ]
    if loose:
        out.append("    limits outside a corner entry: " + ", ".join(loose))
    for name, line in road.lines.items():
        for lane, mark in sorted(line.dotted.items()):
            what = (
                "a warning sign (a straight move across it gives a danger result)"
                if mark == "hazard"
                else f"{mark} (a straight move across it at most in gear {mark}; diagonal is safe)"
            )
            where = "the tile edge " if name.startswith("E") else ""
            out.append(f"    dotted line on {where}{name} over lane {lane}: {what}")
        if line.links is not None:
            steps = ", ".join(
                f"{a}>{b}" + (" diagonal" if kind == "diagonal" else "")
                for a, b, kind in line.links
            )
            out.append(f"    lane-count change on {name}: its steps are {steps}")
    for edge in (road.from_edge, road.to_edge):
        hand = face.skews.get(edge)
        if hand is not None:
            halves = [s for s in cut.spaces if layout.spaces[s].joins == edge]
            out.append(
                f"    skew end at edge {edge} ({hand.value}): {', '.join(halves)} are halves "
                f"completed by the next tile's {hand.value} edge"
            )
    if road.slots:
        slots = "; ".join(
            f"edge {e}: {'slot' if len(s) == 1 else 'slots'} {', '.join(map(str, s))}"
            for e, s in sorted(road.slots.items())
        )
        out.append(f"    uses edge lanes (clockwise slots) {slots}")
    diagonal = sum(1 for st in cut.steps if st.kind == "diagonal")
    out.append(
        f"    {_count(len(cut.steps), 'step')} each way ({diagonal} diagonal), "
        f"{_count(len(cut.beside), 'side-by-side pair')}"
    )
    return out


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _describe_gt(face: TileFace, layout: LaneLayout) -> list[str]:
    """The body of :func:`describe_face` for a Rallyman: GT face."""
    out: list[str] = []
    if layout.pit is not None:
        out.append("  pit board (tile 101): no road; it stands beside the track (GT-2)")
        for spot in layout.pit.spots:
            out.append(f"    {spot.id}: gear {spot.gear}, {' and '.join(spot.services)}")
    if layout.roads:
        lanes = ", ".join(f"{n} at edge {e}" for e, n in sorted(face.lanes.items()))
        out.append(f"  Rallyman: GT face, {gt_shape(face)}; lanes {lanes}")
    for road in layout.roads:
        out += _describe_road(face, layout, road)
    for sid, roads in sorted(_shared_spaces(layout).items()):
        out.append(f"  junction: {sid} is one space of roads {' and '.join(roads)}")
    if layout.overlaps:
        pairs = ", ".join(f"{a}/{b}" for a, b in layout.overlaps)
        out.append(f"  overlapping spaces (a car on one blocks the other): {pairs}")
    for sf in layout.start_finish:
        out.append(
            f"  {sf.kind} line: road {sf.road} line {sf.line}; the race runs toward edge "
            f"{sf.race_toward}"
        )
        for n, row in enumerate(sf.grid, start=1):
            out.append(f"    grid row {n}: {', '.join(row)}")
    if face.confidence.value != "high":
        out.append(f"  reading confidence: {face.confidence.value}")
    if face.sources:
        out.append(f"  sources: {face.sources}")
    return out
