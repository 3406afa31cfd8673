"""Validation reports as readable text."""

from __future__ import annotations

from typing import Any

from trackkit.models.findings import Severity
from trackkit.validate import Report
from trackkit.words import plural

__all__ = ["report_text", "summary_text"]

_MARK = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def summary_text(summary: dict[str, Any]) -> list[str]:
    """The summary in a few lines."""
    if summary.get("series") == "gt":
        return _gt_text(summary)
    lines = []
    length = summary.get("length_spaces")
    mm = summary.get("length_mm")
    lines.append(
        f"{plural(summary['tiles'], 'tile')}"
        + (
            f" (+{summary['tiles_not_driven']} not driven)"
            if summary.get("tiles_not_driven")
            else ""
        )
        + f", {plural(summary['spaces'], 'space')}"
        + (f", {plural(length, 'move')} start to finish" if length is not None else "")
        + (f" ({mm / 1000:.2f} m of road)" if mm else "")
    )
    if summary["surfaces"]:
        lines.append("surfaces: " + ", ".join(f"{k} {v}" for k, v in summary["surfaces"].items()))
    if summary["danger"]:
        lines.append("danger: " + ", ".join(f"{k} {v}" for k, v in summary["danger"].items()))
    if summary["corners"]:
        # one entry per tile: a tile with two corners shows both limits, in driving order
        by_tile: dict[int, list[str]] = {}
        names: dict[int, str] = {}
        for c in summary["corners"]:
            limits = f"{c['inner']}/{c['outer']}" if c["inner"] != c["outer"] else f"{c['inner']}"
            by_tile.setdefault(c["tile_index"], []).append(limits)
            names[c["tile_index"]] = c["tile"]
        parts = [f"{names[i]} {' + '.join(limits)}" for i, limits in by_tile.items()]
        lines.append(f"corners ({len(summary['corners'])}): " + ", ".join(parts))
    extras = [plural(summary[k], k[:-1]) for k in ("shortcuts", "jumps", "fords") if summary.get(k)]
    climb = summary.get("climb", {})
    if climb.get("up") or climb.get("down"):
        extras.append(f"climb tiles {climb['up']} up / {climb['down']} down")
    if extras:
        lines.append("features: " + ", ".join(extras))
    if summary.get("par_time") is not None:
        note = summary.get("par_time_note", "no dice risk")
        lines.append(f"par {summary['par_time']} s: {note}")
    sim = summary.get("simulation")
    if sim:
        worst = (
            ", ".join(f"{t['tile']} {t['per_race']:.2f}/race" for t in sim["most_dangerous_tiles"])
            or "none"
        )
        lines.append(
            f"simulated {sim['races']} races: finish rate {sim['finish_rate']:.0%}, "
            f"mean time {sim['mean_time']} s, most dangerous tiles: {worst}"
        )
    if summary.get("tokens"):
        lines.append(
            "tokens: "
            + ", ".join(
                f"{t['token']} {t['count']}" + (f" ({t['box']})" if t["box"] else "")
                for t in summary["tokens"]
            )
        )
    if summary["boxes"]:
        lines.append(
            "boxes: "
            + ", ".join(
                f"{box}" + (f" x{n}" if n > 1 else "") for box, n in summary["boxes"].items()
            )
        )
    return lines


def _gt_text(summary: dict[str, Any]) -> list[str]:
    """A GT track's summary: the lap, lanes, corners, sharp corners, grid, pit, crossings."""
    head = f"{summary['kind']}: {plural(summary['tiles'], 'tile')}"
    if summary.get("tiles_not_driven"):
        head += f" (+{summary['tiles_not_driven']} not driven)"
    head += f", {plural(summary['spaces'], 'space')}"
    lines = [head]
    if summary.get("laps") is not None:
        lap = []
        if summary.get("lap_length_spaces") is not None:
            lap.append(plural(summary["lap_length_spaces"], "move"))
        if summary.get("lap_length_mm"):
            lap.append(f"{summary['lap_length_mm'] / 1000:.2f} m of road")
        if summary.get("closed") is False:
            lap = ["not closed", *(f"{m} so far" for m in lap if m.endswith("road"))]
        lines.append(f"lap: {', '.join(lap)}; race of {plural(summary['laps'], 'lap')}")
    elif summary.get("length_spaces") is not None:
        mm = summary.get("length_mm")
        lines.append(
            f"{plural(summary['length_spaces'], 'move')} start to finish"
            + (f" ({mm / 1000:.2f} m of road)" if mm else "")
        )
    if summary["lanes"]:
        lines.append(
            "lanes: "
            + ", ".join(f"{k} on {plural(v, 'tile')}" for k, v in summary["lanes"].items())
        )
    if summary["surfaces"]:
        lines.append("surfaces: " + ", ".join(f"{k} {v}" for k, v in summary["surfaces"].items()))
    if summary["danger"]:
        lines.append("danger: " + ", ".join(f"{k} {v}" for k, v in summary["danger"].items()))
    if summary["corners"]:
        parts = [
            f"{c['tile']} {c['limits']}" + (f" {c['turn']}" if c["turn"] else "")
            for c in summary["corners"]
        ]
        triangle = any("!" in c["limits"] for c in summary["corners"])
        note = " (N!: in a warning triangle)" if triangle else ""
        lines.append(f"corners ({len(summary['corners'])}): " + ", ".join(parts) + note)
    if summary["sharp_corners"]:
        # one entry per tile: its numbers (a warning sign as 'sign'), and how many lines
        by_tile: dict[int, tuple[str, list[str], int]] = {}
        for d in summary["sharp_corners"]:
            name, marks, count = by_tile.get(d["tile_index"], (d["tile"], [], 0))
            for m in d["marks"].values():
                text = "sign" if m == "hazard" else str(m)
                if text not in marks:
                    marks.append(text)
            by_tile[d["tile_index"]] = (name, marks, count + 1)
        parts = [
            f"{name} {'/'.join(marks)}" + (f" ({count} lines)" if count > 1 else "")
            for name, marks, count in by_tile.values()
        ]
        lines.append(
            f"sharp corners ({plural(len(summary['sharp_corners']), 'dotted line')}): "
            + ", ".join(parts)
        )
    extras = []
    if summary.get("grid_slots"):
        extras.append(
            f"grid of {plural(summary['grid_slots'], 'slot')} on tile {summary['start_finish'][0]}"
        )
    for pit in summary.get("pit", []):
        if pit["access"]:
            extras.append(f"pit beside the road ({plural(pit['access'], 'space')} give access)")
        else:
            extras.append("a pit beside no road")
    if summary.get("crossings"):
        extras.append(f"{plural(summary['crossings'], 'tile')} where the track crosses itself")
    if summary.get("bridges"):
        extras.append(plural(summary["bridges"], "bridge"))
    if summary.get("skew_edges"):
        extras.append(
            f"{plural(summary['skew_edges'], 'skew edge')} (spaces split across two tiles)"
        )
    if extras:
        lines.append("features: " + ", ".join(extras))
    sim = summary.get("simulation")
    if sim:  # validate --simulate: GT races (trackkit.sim.playability.gt_playability)
        slots = ", ".join(f"{k} {v:.0%}" for k, v in sim["win_rate_by_grid_slot"].items())
        laps, per_lap, decided = sim["laps"], sim["overtakes_per_lap"], sim["decided_on_lap_1"]
        lines.append(  # a point-to-point track has no laps; lap 1 is asked where it can be
            f"simulated {sim['races']} races "
            + ("point to point" if laps is None else f"of {plural(laps, 'lap')}")
            + f": finish rate {sim['finish_rate']:.0%}, win rate by grid slot {slots}; "
            + (
                f"overtakes per lap {per_lap:.2f}"
                if per_lap is not None
                else f"overtakes per race {sim['overtakes_per_race']:.2f}"
            )
            + (f"; decided on lap 1: {decided:.0%}" if decided is not None else "")
        )
    if summary["boxes"]:
        lines.append(
            "boxes: "
            + ", ".join(
                f"{box}" + (f" x{n}" if n > 1 else "") for box, n in summary["boxes"].items()
            )
        )
    return lines


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
