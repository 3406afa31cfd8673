"""The studio's one way into trackkit's core: every call it makes to read, lay out, check,
draw, race, print and write a stage goes through this module.

The rest of :mod:`trackkit.studio` sees only these functions and the models
(:class:`~trackkit.models.Stage`, :class:`~trackkit.models.findings.FixEdit`), so when the
core changes only this module does; it checks, draws and races through the public
scripting API (:mod:`trackkit.api`: ``validate``, ``render_map``, ``simulate``).

Examples
--------
>>> checked = check(new_stage("dirt"))
>>> [f.code for f in checked.report.findings], [t["hex"] for t in targets(checked)]
(['S100'], [[0, 0]])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from trackkit.checks.pipeline import Report
from trackkit.formats import StageSource
from trackkit.formats.files import StageFormat
from trackkit.models.findings import Finding
from trackkit.models.simreport import SimReport
from trackkit.models.stage import Kind, Stage
from trackkit.models.tile import FaceKind, TileFace
from trackkit.stage.assemble import Layout, PlacedTile
from trackkit.tiles.library import TileLibrary

__all__ = [
    "EXPORT_FORMATS",
    "Checked",
    "Series",
    "bots",
    "check",
    "copies_left",
    "dump",
    "editor_losses",
    "face_palette",
    "face_picture",
    "face_roads",
    "finding_marks",
    "flip_face",
    "format_of",
    "heat_map",
    "lay_out",
    "library",
    "load",
    "new_stage",
    "parse",
    "parse_bytes",
    "print_pdf",
    "read_file",
    "rewalk",
    "rewrite",
    "simulate",
    "simulation_text",
    "space_facts",
    "targets",
    "tile_facts",
    "write_atomic",
]

Series = Literal["dirt", "gt"]

#: What *Export* writes, by name, and the file name ending of each.
EXPORT_FORMATS: dict[str, tuple[StageFormat, str]] = {
    "rekee": ("rekee", ".rekee.json"),
    "rgt": ("rgt", ".rgt"),
    "yaml": ("native-yaml", ".yaml"),
    "json": ("native-json", ".json"),
}


def library() -> TileLibrary:
    """The tile library the studio builds with (the shipped one)."""
    from trackkit.tiles.library import default_library

    return default_library()


# --- reading and writing ---------------------------------------------------------------


def load(path: str | Path) -> StageSource:
    """A stage file in any format the command line reads, with its source text.

    Raises
    ------
    trackkit.errors.InputError
        For a file that cannot be used.
    """
    from trackkit.formats import load_source

    return load_source(path)


def parse(text: str, file: str) -> StageSource:
    """A stage from the text of a stage file (see :func:`load`)."""
    from trackkit.formats import parse_source

    return parse_source(text, file=file)


def read_file(path: Path) -> bytes:
    """A stage file's bytes, read as every stage file is (size cap, clear errors).

    Raises
    ------
    trackkit.errors.InputError
        For a file that is missing, unreadable, not a regular file or too large.
    """
    from trackkit.formats.source import read_bytes

    return read_bytes(path)[1]


def parse_bytes(raw: bytes, path: Path) -> StageSource:
    """A stage from a stage file's bytes (:func:`read_file`).

    Raises
    ------
    trackkit.errors.InputError
        For bytes that are not a stage file.
    """
    from trackkit.formats.source import decode_bytes

    return parse(decode_bytes(raw, file=str(path)), str(path))


def new_stage(series: Series) -> Stage:
    """An empty stage of ``series`` (its ruleset written, so it stays that series)."""
    return Stage.model_validate(
        {"format": "trackkit-stage/1", "name": "Untitled stage", "ruleset": series, "tiles": []}
    )


def format_of(source: StageSource | None, path: Path | None) -> StageFormat:
    """The format a stage is saved in: its file's own, else the one its name asks for."""
    from trackkit.formats import format_for_path

    if source is not None:
        if source.format == "native":
            return "native-json" if source.document.syntax == "json" else "native-yaml"
        return source.format
    return format_for_path(path) if path is not None else "native-yaml"


def rewrite(source: StageSource | None, stage: Stage, fmt: StageFormat) -> str:
    """The text to save: ``source``'s file changed to hold ``stage`` (its comments and key
    order kept), or, for a new file, ``stage`` in ``fmt``."""
    if source is None:
        return dump(stage, fmt)
    from trackkit.formats.rewrite import rewrite_text

    return rewrite_text(source, stage)


def editor_losses(source: StageSource | None, stage: Stage, text: str) -> list[str]:
    """What an editor file written from ``stage`` does not keep (the kind, boxes...)."""
    if source is None or source.format == "native":
        return []
    from trackkit.formats.rewrite import editor_losses as losses

    return losses(source, stage, text)


def dump(stage: Stage, fmt: StageFormat) -> str:
    """``stage`` as a file of ``fmt`` (*Export*; a new file's first save)."""
    from trackkit.formats.write import dump_stage

    return dump_stage(stage, fmt)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (never a half-written file).

    Raises
    ------
    trackkit.errors.InputError
        If the file may not or cannot be written.
    """
    from trackkit.formats import write_text_atomic

    write_text_atomic(path, text)


def rewalk(stage: Stage) -> Stage:
    """An editor file's stage after an edit, its driving order walked again."""
    from trackkit.checks.fixes import rewalk as walk

    return walk(stage)


# --- checking --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Checked:
    """A stage as validated: the report (findings, summary, layout, graph) and its map."""

    stage: Stage
    report: Report
    svg: str
    summary_lines: list[str]

    @property
    def layout(self) -> Layout:
        """The stage laid out."""
        return self.report.layout


def check(stage: Stage, kind: Kind | None = None, *, file: str | None = None) -> Checked:
    """Validate ``stage`` and draw its map (the SVG ``trackkit render`` draws, without the
    title card: the page shows the summary beside it)."""
    from trackkit.api import render_map, validate
    from trackkit.checks.text import summary_text

    report = validate(stage, kind=kind, file=file)
    svg = render_map(report, legend=False)
    return Checked(stage, report, svg, summary_text(report.summary))


def lay_out(stage: Stage) -> Layout:
    """``stage`` laid out (no graph, no checks): to try where a new tile fits."""
    from trackkit.stage.assemble import lay_out as place

    return place(stage)


def face_roads(face: TileFace) -> list[tuple[str, int, int]]:
    """A face's roads: (road id, local end edge, local end edge)."""
    from trackkit.road.spaces import face_roads as roads

    return list(roads(face))


def _svg_id(layout: Layout, tile: PlacedTile) -> str:
    """The id of the tile's group in the map (:func:`trackkit.render.svg.stage_arts`)."""
    if tile.visit_of is not None:
        return _svg_id(layout, tile.visit_of)
    if tile.index is not None:
        return f"tile-{tile.index}"
    return f"tile-{'u' if any(t is tile for t in layout.undriven) else 's'}{tile.position}"


def _corners(hex_: tuple[int, int], size: float) -> list[list[float]]:
    from trackkit.road import hexgrid

    return [[round(x, 2), round(y, 2)] for x, y in hexgrid.corners_mm(hex_, size)]


def _edge_line(hex_: tuple[int, int], edge: int, size: float) -> list[float]:
    """The segment of ``hex_``'s side in world direction ``edge`` (pointy-top, y down)."""
    from trackkit.road import hexgrid

    cx, cy = hexgrid.centre_mm(hex_, size)
    r = size / math.sqrt(3.0)
    pts = []
    for da in (-30.0, 30.0):
        a = math.radians(60.0 * edge + da)
        pts += [round(cx + r * math.cos(a), 2), round(cy + r * math.sin(a), 2)]
    return pts


def tile_facts(checked: Checked) -> list[dict[str, Any]]:
    """Every stage tile as placed: its place in the file's list, map group, hex, turn."""
    from trackkit.road import hexgrid
    from trackkit.road.geometry import road_turn

    layout = checked.layout
    explicit = {i for i, t in enumerate(checked.stage.tiles) if t.at is not None}
    out = []
    placed = [*layout.chain, *layout.scenery, *layout.undriven]
    for t in placed:
        role = "road" if t.index is not None else ("undriven" if t in layout.undriven else "beside")
        out.append(
            {
                "tile": t.position - 1,
                "face": t.face_id,
                "known": t.face is not None,
                "index": t.index,
                "svg": _svg_id(layout, t),
                "hex": list(t.hex),
                "dir": t.rotation,
                "centre": [round(v, 2) for v in hexgrid.centre_mm(t.hex, layout.size)],
                "corners": _corners(t.hex, layout.size),
                "explicit": t.position - 1 in explicit,
                "role": role,
                "again": t.visit_of is not None,
                "turn": road_turn(t.road.entry, t.road.exit) if t.road is not None else None,
                "tokens": [tok.model_dump(mode="json", exclude_none=True) for tok in t.tokens],
            }
        )
    return sorted(out, key=lambda d: d["tile"])


def targets(checked: Checked) -> list[dict[str, Any]]:
    """Where a tile can go: the open road ends (``end``: ``exit`` or ``entry``) and the
    empty hexes around the tiles (``free``), each with its hexagon on the map."""
    from trackkit.road import hexgrid

    layout = checked.layout
    size = layout.size
    taken = {t.hex for t in layout.tiles}
    out: list[dict[str, Any]] = []
    ends: dict[tuple[int, int], dict[str, Any]] = {}
    chain = layout.chain
    if not chain and not taken:
        ends[(0, 0)] = {"end": "exit", "edge": None}
    elif chain:
        gt = layout.series == "gt"
        closed = gt and layout.circuit and layout.closes
        last, first = chain[-1], chain[0]
        line = last.face.road.start_finish if last.face and last.face.road else None
        if not closed and last.exit_world is not None and not (line and line.kind == "finish"):
            h = hexgrid.neighbour(last.hex, last.exit_world)
            if h not in taken:
                ends[h] = {"end": "exit", "edge": hexgrid.opposite(last.exit_world)}
        line = first.face.road.start_finish if first.face and first.face.road else None
        if (
            not closed
            and first.entry_world is not None
            and not (line and line.kind == "start")
            and not (gt and len(chain) == 1)
        ):
            h = hexgrid.neighbour(first.hex, first.entry_world)
            if h not in taken and h not in ends:
                ends[h] = {"end": "entry", "edge": hexgrid.opposite(first.entry_world)}
    for h, info in ends.items():
        out.append({"kind": "end", "hex": list(h), "corners": _corners(h, size), **info})
    free: set[tuple[int, int]] = set()
    for h in taken:
        for d in range(6):
            n = hexgrid.neighbour(h, d)
            if n not in taken and n not in ends:
                free.add(n)
    for h in sorted(free):
        out.append({"kind": "free", "hex": list(h), "corners": _corners(h, size)})
    return out


def finding_marks(checked: Checked, f: Finding) -> dict[str, Any]:
    """Where a finding is on the map: a tile group, a space node, a hexagon, an edge."""
    layout = checked.layout
    loc = f.location
    mark: dict[str, Any] = {}
    by_index = {t.index: t for t in layout.chain if t.index is not None}
    tile = by_index.get(loc.tile_index) if loc.tile_index is not None else None
    if tile is None and loc.path and loc.path.startswith("tiles["):
        n = int(loc.path[6 : loc.path.index("]")])
        tile = next((t for t in layout.tiles if t.position - 1 == n), None)
    if tile is not None:
        mark["svg"] = _svg_id(layout, tile)
        mark["tile"] = tile.position - 1
    if loc.space:
        mark["node"] = loc.space
    hex_ = loc.hex if loc.hex is not None else (tile.hex if tile is not None else None)
    if hex_ is not None:
        mark["corners"] = _corners(hex_, layout.size)
        if loc.edge is not None:
            mark["edge"] = _edge_line(hex_, loc.edge, layout.size)
    return mark


# --- spaces, as the rules see them -------------------------------------------------------


def _lane_words(node: dict[str, Any]) -> str:
    lanes = node.get("lanes") or ()
    if not lanes:
        return "no lane"
    if len(lanes) > 1:
        return f"lanes {', '.join(str(n) for n in lanes)} (road-wide)"
    return f"lane {lanes[0]}"


def space_facts(checked: Checked) -> dict[str, dict[str, Any]]:
    """What each space of the stage graph is, and what the rules say about it, by node id
    (the ``data-node`` of the map's spaces)."""
    graph = checked.report.graph
    out: dict[str, dict[str, Any]] = {}
    climbs: dict[str, str] = {}
    for u, _v, data in graph.edges(data=True):
        if data.get("climb"):
            climbs.setdefault(u, str(data["climb"]))
    for node, d in graph.nodes(data=True):
        rules: list[str] = []
        limit = d.get("limit")
        kind = d.get("kind")
        if limit is not None and kind != "shortcut":
            printed = d.get("printed_limit")
            if printed is not None and printed != limit:
                text = f"limit {limit} (printed {printed}, lowered by mud)"
            else:
                text = f"limit {limit}"
            rules.append(f"{text}: enter it in a higher gear and the car loses control (CORNER-1)")
            if d.get("triangle"):
                rules.append(
                    f"warning triangle: entering in exactly gear {limit} takes one danger "
                    "result (CORNER-5)"
                )
        if limit is not None and limit <= 0:
            rules.append("closed: mud pushed its limit to 0 (CORNER-1)")
        if d.get("corner_lane"):
            rules.append(
                f"{d['corner_lane']} lane of a corner: the car keeps to it until the corner "
                "ends (CORNER-2)"
            )
        if kind == "slide":
            rules.append("slide space, road-wide: decided on the way in (CORNER-3)")
        if kind == "shortcut":
            rules.append(
                f"shortcut, limit {limit}: driving onto it draws a damage token (SHORTCUT-1, "
                "SHORTCUT-2)"
            )
        if d.get("jump") is not None:
            rules.append(f"jump {d['jump']}: a die at {d['jump']} or faster takes off (JUMP-1)")
        if d.get("ford"):
            rules.append("ford: only a coast or leader die, or gear 1 alone, goes through (FORD-1)")
        if node in climbs:
            rules.append(f"a climb line after it, driven {climbs[node]} (CLIMB-1)")
        if d.get("start_grid"):
            rules.append("start space (BOARD-3)")
        if d.get("pit"):
            rules.append("pit space: a car ending its turn here in first gear may stop (GT-2)")
        out[str(node)] = {
            "space": d.get("space"),
            "tile": d.get("tile"),
            "face": d.get("face"),
            "lane": _lane_words(d),
            "kind": kind,
            "limit": limit,
            "surface": d.get("surface"),
            "danger": d.get("danger"),
            "rules": rules,
        }
    return out


# --- the palette -----------------------------------------------------------------------


def face_palette() -> list[dict[str, Any]]:
    """Every face of the library with what the palette filters on."""
    return list(_palette())


@lru_cache(maxsize=1)
def _palette() -> tuple[dict[str, Any], ...]:
    from trackkit.tiles.describe import corner_limits, face_facts, face_shapes

    out = []
    faces = sorted(
        library(),
        key=lambda f: (f.series, not f.box.endswith("-core"), f.box, f.number, f.face or "", f.id),
    )
    for face in faces:
        facts = face_facts(face)
        out.append(
            {
                "id": face.id,
                "number": face.number,
                "series": face.series,
                "box": face.box,
                "also_in": dict(face.also_in),
                "copies": face.copies,
                "kind": face.kind.value,
                "surface": face.surface.value,
                "danger": face.danger.value,
                "shapes": sorted(face_shapes(face)),
                "limits": sorted(corner_limits(face)),
                "corners": facts.get("corners", []),
                "other": flip_face(face.id),
                "road": face.kind is FaceKind.ROAD,
            }
        )
    return tuple(out)


def copies_left(checked: Checked) -> dict[str, int] | None:
    """Pieces left in the boxes the stage owns, by face id (both faces of a piece share
    its copies); None when the stage names no boxes."""
    from collections import Counter

    from trackkit.checks.inventory import pieces_used

    owned = checked.stage.boxes
    if owned is None:
        return None
    count = Counter(owned)
    used = pieces_used(checked.layout)
    out: dict[str, int] = {}
    for face in library():
        have = face.copies * count[face.box] + sum(
            copies * count[b] for b, copies in face.also_in.items()
        )
        if have:
            out[face.id] = have - used.get((face.box, face.number), 0)
    return out


def flip_face(face_id: str) -> str | None:
    """The other face of the piece that ``face_id`` is one face of (None: none)."""
    lib = library()
    face = lib.get(face_id)
    if face is None:
        return None
    for other in lib.in_box(face.box):
        if other.number == face.number and other.id != face.id:
            return other.id
    return None


@lru_cache(maxsize=512)
def face_picture(face_id: str) -> str | None:
    """A face drawn on its own as the maps draw it (an SVG document), or None."""
    from trackkit.render.sheet import face_art
    from trackkit.render.svg import Box, new_drawing
    from trackkit.render.theme import make_theme
    from trackkit.render.tile import draw_tile
    from trackkit.road.geometry import DEFAULT_TILE_SIZE_MM

    face = library().get(face_id)
    if face is None:
        return None
    size = DEFAULT_TILE_SIZE_MM
    r = size / math.sqrt(3.0)
    box = Box(-size / 2 - 4, -r - 4, size + 8, 2 * r + 8)
    dwg = new_drawing(box, make_theme(), title=face.id, parts=("base", "map"))
    for group in draw_tile(dwg, face_art(face), size=size):
        dwg.add(group)
    return str(dwg.tostring())


# --- racing and printing ---------------------------------------------------------------


def simulate(
    checked: Checked,
    *,
    races: int,
    players: int,
    seed: int,
    bots: tuple[str, ...],
    weather: str | None,
    laps: int | None,
    progress: Callable[[int], None],
) -> SimReport:
    """Race the stage ``races`` times (``trackkit simulate``'s report; its ``to_json()``
    is the ``--format json`` document).

    Raises
    ------
    trackkit.errors.TrackkitError
        If the stage cannot be raced (its errors, cars or options that do not fit).
    """
    from trackkit.api import simulate as race

    gt = checked.layout.series == "gt"
    return race(
        checked.stage,
        races=races,
        players=players,
        seed=seed,
        bots=bots,
        progress=progress,
        kind=checked.report.kind,
        laps=laps if gt and checked.layout.circuit else None,
        weather=weather if gt else None,  # type: ignore[arg-type]  # the page sends dry|rain
    )


def simulation_text(report: SimReport) -> str:
    """The report ``trackkit simulate`` prints for a simulation."""
    from trackkit.sim.text_report import sim_text

    return sim_text(report)


def heat_map(checked: Checked, report: SimReport) -> str:
    """The map of the stage coloured by a simulation's losses of control (and overtakes)."""
    from trackkit.api import render_map

    return render_map(checked.report, heat=report, legend=False)


def print_pdf(checked: Checked, paper: str) -> bytes:
    """The stage at true scale over numbered pages (``trackkit print``), as a PDF.

    The tiles are drawn at the user's tile size (``trackkit config tile-size``).

    Raises
    ------
    ValueError
        For an unknown paper, or a print of more pages than ``trackkit print`` allows.
    trackkit.errors.InputError
        If the user's settings file is unusable (the message names it).
    """
    from trackkit.config import tile_size
    from trackkit.render.pages import print_pages
    from trackkit.stage.assemble import lay_out as place

    size = tile_size()  # the user's tiles (trackkit config tile-size), as print draws them
    layout = checked.layout if size == checked.layout.size else place(checked.stage, size=size)
    job = print_pages(checked.report, layout, paper=paper)
    return job.pdf()


def bots() -> tuple[str, ...]:
    """The bots a race may be driven by."""
    from trackkit.sim.bots import BOTS

    return tuple(BOTS)
