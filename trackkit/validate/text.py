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
