"""Validation reports and stage summaries as readable text.

One writer per output, for both series: :func:`summary_text` (what ``trackkit validate``
prints under the findings, the map's ``<desc>``, the studio's summary, a generated
stage's report) and :func:`title_lines` (the lines of a map's title block). What both
series have is written once; what only one has comes from the summary's part
(:attr:`~trackkit.models.summary.StageSummary.dirt`, ``.gt``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from trackkit.models.findings import Severity
from trackkit.models.summary import (
    DirtStage,
    GtCorner,
    GtTrack,
    Simulated,
    StageSummary,
)
from trackkit.words import plural

if TYPE_CHECKING:
    from trackkit.checks.pipeline import Report

__all__ = ["report_text", "summary_text", "title_lines"]

_MARK = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _counts(counts: Mapping[str, int]) -> str:
    """``asphalt 3, gravel 2``."""
    return ", ".join(f"{k} {v}" for k, v in counts.items())


def _boxes(boxes: Mapping[str, int], times: str) -> str:
    """``dirt-core, dirt-climb x2`` (``times``: the sign before a count)."""
    return ", ".join(f"{box}" + (f" {times}{n}" if n > 1 else "") for box, n in boxes.items())


def _road(mm: float) -> str:
    return f"{mm / 1000:.2f} m of road"


def summary_text(summary: StageSummary) -> list[str]:
    """The summary in a few lines.

    Examples
    --------
    >>> from trackkit.models import Stage
    >>> from trackkit.checks.pipeline import validate
    >>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
    ...     {"tile": "202a"}, {"tile": "203a"}]})
    >>> summary_text(validate(stage).summary)[:2]
    ['2 tiles, 12 spaces, 4 moves start to finish (0.24 m of road)', 'surfaces: gravel 2']
    """
    dirt, gt = summary.dirt, summary.gt
    head = plural(summary.tiles, "tile")
    if summary.tiles_not_driven:
        head += f" (+{summary.tiles_not_driven} not driven)"
    head += f", {plural(summary.spaces, 'space')}"
    length = summary.length_spaces
    moves = f"{plural(length, 'move')} start to finish" if length is not None else ""
    mm = f" ({_road(summary.length_mm)})" if summary.length_mm else ""
    if gt is None:
        lines = [head + (f", {moves}" if moves else "") + mm]
    else:  # the lap, or the length, on a line of its own under the kind
        lines = [f"{summary.kind}: {head}", *_gt_course(summary, gt, moves + mm if moves else "")]
    if gt is not None and gt.lanes:
        widths = (f"{k} on {plural(v, 'tile')}" for k, v in gt.lanes.items())
        lines.append("lanes: " + ", ".join(widths))
    if summary.surfaces:
        lines.append("surfaces: " + _counts(summary.surfaces))
    if summary.danger:
        lines.append("danger: " + _counts(summary.danger))
    if summary.corners:
        words = _gt_corners(gt.corners) if gt is not None else _dirt_corners(dirt)
        lines.append(f"corners ({len(summary.corners)}): " + words)
    if gt is not None and gt.sharp_corners:
        lines.append(_gt_sharp(gt))
    features = _gt_features(gt) if gt is not None else _dirt_features(dirt)
    if features:
        lines.append("features: " + ", ".join(features))
    if dirt is not None and dirt.par_time is not None:
        lines.append(f"par {dirt.par_time} s: {dirt.par_time_note or 'no dice risk'}")
    if summary.simulation is not None:
        lines.append(_simulated(summary.simulation))
    if summary.tokens:
        lines.append(
            "tokens: "
            + ", ".join(
                f"{t.token} {t.count}" + (f" ({t.box})" if t.box else "") for t in summary.tokens
            )
        )
    if summary.boxes:
        lines.append("boxes: " + _boxes(summary.boxes, "x"))
    return lines


def _gt_course(summary: StageSummary, gt: GtTrack, length: str) -> list[str]:
    """A GT circuit's lap and laps, or a point-to-point track's length."""
    if gt.laps is None:
        return [length] if length else []
    lap = []
    if gt.lap_length_spaces is not None:
        lap.append(plural(gt.lap_length_spaces, "move"))
    if gt.lap_length_mm:
        lap.append(_road(gt.lap_length_mm))
    if gt.closed is False:
        lap = ["not closed", *(f"{m} so far" for m in lap if m.endswith("road"))]
    return [f"lap: {', '.join(lap)}; race of {plural(gt.laps, 'lap')}"]


def _dirt_corners(dirt: DirtStage | None) -> str:
    """One entry per tile: a tile with two corners shows both limits, in driving order
    (the JSON keeps one entry per corner)."""
    by_tile: dict[int | None, list[str]] = {}
    names: dict[int | None, str] = {}
    for c in dirt.corners if dirt is not None else []:
        limits = f"{c.inner}/{c.outer}" if c.inner != c.outer else f"{c.inner}"
        by_tile.setdefault(c.tile_index, []).append(limits)
        names[c.tile_index] = c.tile
    return ", ".join(f"{names[i]} {' + '.join(limits)}" for i, limits in by_tile.items())


def _gt_corners(corners: list[GtCorner]) -> str:
    """Each corner's limits (CORNER-5: ``N!`` in a warning triangle) and turn."""
    parts = [f"{c.tile} {c.limits}" + (f" {c.turn}" if c.turn else "") for c in corners]
    triangle = any("!" in c.limits for c in corners)
    return ", ".join(parts) + (" (N!: in a warning triangle)" if triangle else "")


def _gt_sharp(gt: GtTrack) -> str:
    """The sharp corners (CORNER-4), one entry per tile: its numbers (a warning sign as
    'sign'), and how many lines."""
    by_tile: dict[int | None, tuple[str, list[str], int]] = {}
    for d in gt.sharp_corners:
        name, marks, count = by_tile.get(d.tile_index, (d.tile, [], 0))
        for m in d.marks.values():
            text = "sign" if m == "hazard" else str(m)
            if text not in marks:
                marks.append(text)
        by_tile[d.tile_index] = (name, marks, count + 1)
    parts = [
        f"{name} {'/'.join(marks)}" + (f" ({count} lines)" if count > 1 else "")
        for name, marks, count in by_tile.values()
    ]
    dotted = plural(len(gt.sharp_corners), "dotted line")
    return f"sharp corners ({dotted}): " + ", ".join(parts)


def _dirt_features(dirt: DirtStage | None) -> list[str]:
    """Shortcuts, jumps, fords and climb tiles."""
    if dirt is None:
        return []
    extras = [
        plural(n, name)
        for n, name in ((dirt.shortcuts, "shortcut"), (dirt.jumps, "jump"), (dirt.fords, "ford"))
        if n
    ]
    if dirt.climb.up or dirt.climb.down:
        extras.append(f"climb tiles {dirt.climb.up} up / {dirt.climb.down} down")
    return extras


def _gt_features(gt: GtTrack) -> list[str]:
    """The grid, the pit, crossings, bridges and skew edges."""
    extras = []
    if gt.grid_slots:
        extras.append(f"grid of {plural(gt.grid_slots, 'slot')} on tile {gt.start_finish[0]}")
    for pit in gt.pit:
        if pit.access:
            extras.append(f"pit beside the road ({plural(pit.access, 'space')} give access)")
        else:
            extras.append("a pit beside no road")
    if gt.crossings:
        extras.append(f"{plural(gt.crossings, 'tile')} where the track crosses itself")
    if gt.bridges:
        extras.append(plural(gt.bridges, "bridge"))
    if gt.skew_edges:
        extras.append(f"{plural(gt.skew_edges, 'skew edge')} (spaces split across two tiles)")
    return extras


def _simulated(sim: Simulated) -> str:
    """``validate --simulate``'s races in a line (GT: trackkit.sim.playability)."""
    if sim.gt is None:
        worst = ", ".join(f"{t.tile} {t.per_race:.2f}/race" for t in sim.most_dangerous_tiles)
        mean = sim.dirt.mean_time if sim.dirt is not None else None
        return (
            f"simulated {sim.races} races: finish rate {sim.finish_rate:.0%}, "
            f"mean time {mean} s, most dangerous tiles: {worst or 'none'}"
        )
    gt = sim.gt
    slots = ", ".join(f"{k} {v:.0%}" for k, v in gt.win_rate_by_grid_slot.items())
    per_lap, decided = gt.overtakes_per_lap, gt.decided_on_lap_1
    return (  # a point-to-point track has no laps; lap 1 is asked where it can be
        f"simulated {sim.races} races "
        + ("point to point" if gt.laps is None else f"of {plural(gt.laps, 'lap')}")
        + f": finish rate {sim.finish_rate:.0%}, win rate by grid slot {slots}; "
        + (
            f"overtakes per lap {per_lap:.2f}"
            if per_lap is not None
            else f"overtakes per race {gt.overtakes_per_race:.2f}"
        )
        + (f"; decided on lap 1: {decided:.0%}" if decided is not None else "")
    )


def title_lines(summary: StageSummary, report: Report | None = None) -> list[str]:
    """The lines of a map's title block under the name and author (``report``: the
    shortcuts as the map draws them, and whether the stage is valid).

    Examples
    --------
    >>> from trackkit.models import Stage
    >>> from trackkit.checks.pipeline import validate
    >>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
    ...     {"tile": "202a"}, {"tile": "203a"}]})
    >>> title_lines(validate(stage).summary)[0]
    'Rally · 2 tiles · 0.24 m of road · 4 moves start to finish'
    """
    gt = summary.gt
    parts = [summary.kind.capitalize(), f"{summary.tiles} tiles"]
    danger = _counts(summary.danger) or "none"
    if gt is None:
        if summary.length_mm:
            parts.append(_road(summary.length_mm))
        if summary.length_spaces is not None:
            parts.append(f"{summary.length_spaces} moves start to finish")
        middle = [
            "Surfaces: " + (_counts(summary.surfaces) or "none"),
            f"Danger: {danger}",
            "Features: " + ", ".join(_dirt_title_features(summary, report)),
        ]
    else:
        if gt.lap_length_mm:
            parts.append(f"lap {gt.lap_length_mm / 1000:.2f} m")
        if gt.lap_length_spaces is not None:
            parts.append(f"{gt.lap_length_spaces} moves a lap")
        if gt.laps:
            parts.append(plural(gt.laps, "lap"))
        if summary.length_mm:
            parts.append(f"{summary.length_mm / 1000:.2f} m")
        if summary.length_spaces is not None:
            parts.append(f"{summary.length_spaces} moves")
        limits = ", ".join(c.limits for c in gt.corners)
        middle = [
            f"Lanes: {_lanes_text(gt.lanes)} · danger: {danger}",
            f"Corners: {len(gt.corners)}" + (f", limits {limits}" if limits else ""),
            ", ".join(_gt_title_features(gt)).capitalize(),
        ]
    lines = [" · ".join(parts), *middle]
    lines.append("Boxes needed: " + (_boxes(summary.boxes, "×") or "none"))
    if report is not None:
        counts = f"{plural(report.errors, 'error')}, {plural(report.warnings, 'warning')}"
        state = (
            f"valid ({plural(report.warnings, 'warning')})"
            if report.valid
            else f"{counts}: run 'trackkit validate'"
        )
        lines.append(f"Checked: {state}")
    return lines


def _dirt_title_features(summary: StageSummary, report: Report | None) -> list[str]:
    """Corners (always), jumps, fords, shortcuts (as the map shows them: the summary counts
    shortcut spaces) and climb tiles."""
    dirt = summary.dirt
    counts = {
        "corners": len(summary.corners),
        "jumps": dirt.jumps if dirt else 0,
        "fords": dirt.fords if dirt else 0,
    }
    if report is not None:
        counts["shortcuts"] = len(
            {
                (d["tile"], d["space"].split(".")[0])
                for _, d in report.graph.nodes(data=True)
                if d["kind"] == "shortcut"
            }
        )
    feats = [f"{n} {k if n != 1 else k[:-1]}" for k, n in counts.items() if n or k == "corners"]
    if dirt is not None and (dirt.climb.up or dirt.climb.down):
        feats.append(f"climb tiles {dirt.climb.up} up, {dirt.climb.down} down")
    return feats


def _gt_title_features(gt: GtTrack) -> list[str]:
    """Sharp corners (always), the grid, the pit, crossings and bridges."""
    feats = [f"sharp corners: {plural(len(gt.sharp_corners), 'dotted line')}"]
    if gt.grid_slots:
        feats.append(f"grid of {gt.grid_slots}")
    if gt.pit:
        feats.append("pit")
    if gt.crossings:
        feats.append(plural(gt.crossings, "crossing"))
    if gt.bridges:
        feats.append(plural(gt.bridges, "bridge"))
    return feats


def _lanes_text(lanes: Mapping[str, int]) -> str:
    """``3 on 9 tiles, 2 on 3, 2-3 on 2``: the most common width first, and a road that
    widens and one that narrows counted together (so that the line fits the card)."""
    merged: dict[str, int] = {}
    for key, n in lanes.items():
        ends = key.split("-")
        key = "-".join(sorted(ends, key=int)) if all(e.isdigit() for e in ends) else key
        merged[key] = merged.get(key, 0) + n
    ranked = sorted(merged.items(), key=lambda kv: (-kv[1], kv[0]))
    if not ranked:
        return "none"
    (first, n), rest = ranked[0], ranked[1:]
    return ", ".join([f"{first} on {plural(n, 'tile')}", *(f"{k} on {v}" for k, v in rest)])


def report_text(report: Report) -> str:
    """A report as the text ``trackkit validate`` prints."""
    name = report.file or "<stage>"
    state = "valid" if report.valid else "INVALID"
    counts = f"{plural(report.errors, 'error')}, {plural(report.warnings, 'warning')}"
    out = [f"{name}: {state} ({counts})"]
    for f in report.findings:
        out.append(f"  {_MARK[f.severity]} {f.code} at {f.location.describe()}: {f.message}")
        if f.fix and f.severity is not Severity.INFO:
            out.append(f"      fix: {f.fix}")
    out += [f"  {line}" for line in summary_text(report.summary)]
    return "\n".join(out)
