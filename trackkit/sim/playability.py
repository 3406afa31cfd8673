"""Playability findings from simulated races (``trackkit validate --simulate N``)."""

from __future__ import annotations

import statistics
from dataclasses import replace
from typing import Any

from trackkit.catalogue import finding
from trackkit.models.findings import Finding, Location
from trackkit.models.stage import Kind
from trackkit.rules.track import Track
from trackkit.sim.garage import stage_profile, unlimited_bound
from trackkit.sim.par import par_time
from trackkit.sim.race import Settings, prepare
from trackkit.sim.stats import run_many, summarize_races
from trackkit.validate import Report
from trackkit.words import plural

__all__ = ["PAR_TIME_NOTE", "findings_from", "playability"]

#: What the par time is (the summary says it beside the figure).
PAR_TIME_NOTE = "lower bound, fastest legal line with no dice risk"

#: Thresholds of the playability findings.
UNFINISHED_RATE = 0.05
BLOCKED_PER_RACE = 1.0
DANGEROUS_FACTOR = 3.0
DANGEROUS_MIN_PER_RACE = 0.3
WIN_SHARE = 0.6


def playability(
    report: Report,
    *,
    races: int,
    seed: int = 1,
    players: int = 4,
    jobs: int = 1,
    max_rounds: int = 200,
) -> tuple[list[Finding], dict[str, Any]]:
    """Race a valid stage ``races`` times with cautious bots; findings and summary extras."""
    prepared = prepare(Track.from_graph(report.graph, report.layout))
    settings = replace(
        Settings.default(players, hillclimb=report.kind is Kind.HILLCLIMB), max_rounds=max_rounds
    )
    results = run_many(prepared, settings, races=races, seed=seed, jobs=jobs)
    tiles = {t.index: t.face_id for t in report.layout.chain if t.index is not None}
    doc = summarize_races(results, settings, seed=seed, tiles=tiles)
    rates = {int(k): v["per_race"] for k, v in doc["loss_of_control"]["by_tile"].items()}
    dnf = {
        reason: sum(d["dnf"][reason] for d in doc["time"]["drivers"])
        for reason in doc["time"]["drivers"][0]["dnf"]
    }
    hillclimb = report.kind is Kind.HILLCLIMB
    # a hillclimb is raced with Unlimited dashboards: its par is that of the richest one
    par_car = unlimited_bound(stage_profile(prepared.track)) if hillclimb else "dirt"
    extras = {
        "par_time": par_time(prepared, car=par_car),
        "par_time_note": PAR_TIME_NOTE,
        "simulation": {
            "races": races,
            "seed": seed,
            "players": players,
            "max_rounds": max_rounds,
            "finish_rate": doc["finish_rate"],
            "dnf": dnf,
            "mean_time": doc["time"]["overall"]["mean"],
            "losses_per_race": doc["loss_of_control"]["per_race"],
            "most_dangerous_tiles": [
                {"tile_index": t, "tile": tiles[t], "per_race": r}
                for t, r in sorted(rates.items(), key=lambda kv: -kv[1])[:3]
            ],
        },
    }
    return findings_from(doc, report, races=races, players=players), extras


def findings_from(
    doc: dict[str, Any], report: Report, *, races: int, players: int
) -> list[Finding]:
    """Playability findings (P6xx) from a ``simulate`` document of the stage."""
    by_index = {t.index: t for t in report.layout.chain if t.index is not None}
    out: list[Finding] = []
    unfinished = 1.0 - doc["finish_rate"]
    if unfinished > UNFINISHED_RATE:
        where = ", ".join(f"{k} x{v}" for k, v in list(doc["stuck"].items())[:3])
        dnf = [d.get("dnf", {}) for d in doc.get("time", {}).get("drivers", [])]
        why = ", ".join(
            f"{sum(d.get(reason, 0) for d in dnf)} {reason}" for reason in ("stuck", "round cap")
        )
        out.append(
            finding(
                "P601",
                f"{unfinished:.0%} of drivers did not finish"
                + (f" ({why})" if dnf else "")
                + f"; cars stopped at {where or 'start'}",
                Location(path="simulation"),
            )
        )
    for spot in doc.get("stuck_spots", []):  # no legal way on, ever (sim/stuck.py)
        tile = by_index.get(spot["tile_index"])
        space = spot["space"] if spot["space"] != "start" else None
        loc = tile.location(space=space) if tile else Location(path="simulation", space=space)
        out.append(
            finding(
                "P605",
                f"{plural(spot['count'], 'car')} in {races} races got stuck "
                f"{'at the start' if space is None else 'on ' + space}: {spot['cause']}",
                loc,
            )
        )
    for space, count in doc["blocked_turns"]["by_space"].items():
        if count / races >= BLOCKED_PER_RACE and space != "start":
            tile = by_index.get(int(space.split(":")[0])) if ":" in space else None
            loc = tile.location(space=space) if tile else Location(space=space)
            out.append(
                finding(
                    "P602",
                    f"cars were blocked {count} times in {races} races on space {space}",
                    loc,
                )
            )
    rates = {int(k): v["per_race"] for k, v in doc["loss_of_control"]["by_tile"].items()}
    for t, rate in rates.items():
        rest = [rates.get(i, 0.0) for i in by_index if i != t]
        typical = statistics.median(rest) if rest else 0.0
        if rate >= DANGEROUS_MIN_PER_RACE and rate > DANGEROUS_FACTOR * max(typical, 0.05):
            tile = by_index[t]
            out.append(
                finding(
                    "P603",
                    f"tile {t} ({tile.face_id}) causes {rate:.2f} losses "
                    f"of control per race (typical tile: {typical:.2f})",
                    tile.location(),
                )
            )
    wins = doc["wins_by_start_position"]
    total = sum(wins.values())
    if total >= 10 and players > 1:
        pos, most = max(wins.items(), key=lambda kv: kv[1])
        if most / total > WIN_SHARE:
            out.append(
                finding(
                    "P604",
                    f"start position {pos} won {most} of {total} races",
                    Location(path="simulation"),
                )
            )
    return out
