"""``trackkit validate``: check stages and report findings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from trackkit import limits
from trackkit.cli.commands.common import (
    FLAG,
    KindOption,
    OutputFormat,
    SchedulerOption,
    SeedOption,
    fail,
    fail_json,
    jobs_on,
    kind_of,
)
from trackkit.cli.startup import loading
from trackkit.errors import InputError, TrackkitError


def validate(
    ctx: typer.Context,
    files: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILES",
            help="Stage files (native YAML/JSON, Rekee JSON or .rgt).",
            show_default=False,
            readable=False,  # an unreadable file is reported in the report, not as usage
        ),
    ],
    kind: KindOption = None,
    output: Annotated[
        OutputFormat, typer.Option("--format", help="text for people, json for scripts.")
    ] = OutputFormat.text,
    simulate: Annotated[
        int,
        typer.Option(
            metavar="N",
            min=0,
            max=10_000,
            help="Also race a valid stage N times with bots: playability findings (P6xx), and "
            "the races in the summary. A DIRT stage adds its par time (the fastest legal line "
            "with no dice risk, a lower bound); a GT race is for places, not time, so a GT "
            "track gets no par time but its win rate by grid slot, overtakes per lap and the "
            "races decided on lap 1.",
        ),
    ] = 0,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            metavar=FLAG,
            help="First apply the findings' mechanical fixes to each FILE (a tile turned so "
            "that its road meets, a mistyped tile id with one likely meaning, the kind "
            "that was inferred) and write it back atomically in its own format (native "
            "YAML keeps its comments and key order); then report what is left. Findings "
            "with several possible fixes are left for you (trackkit studio offers each).",
        ),
    ] = False,
    seed: SeedOption = 1,
    players: Annotated[
        int | None,
        typer.Option(
            min=limits.MIN_PLAYERS,
            max=limits.MAX_PLAYERS,
            help=f"Drivers of the simulated races, {limits.players_words()} (default "
            f"{limits.DEFAULT_PLAYERS}); a GT track's grid must hold them (S127).",
            show_default=False,
        ),
    ] = None,
    boxes: Annotated[
        list[str] | None,
        typer.Option(
            "--boxes",
            metavar="BOX",
            help="A box you own (dirt-core, dirt-monte-carlo, dirt-climb, dirt-copilot, gt-core, "
            "gt-championship, gt-world-tour, gt-team-challenge, gt-adrenaline); repeat it for "
            "each box, a box named twice counts twice. Every file's tiles, copies and tokens are "
            "checked against these boxes (I301-I304), in place of a native file's 'boxes'.",
            show_default=False,
        ),
    ] = None,
    scheduler: SchedulerOption = None,
) -> None:
    """Check stages against the rules and report every problem with a code and a place.

    With --format json, stdout is one JSON document whatever the files hold: a file that
    cannot be used at all (missing, unreadable, not YAML/JSON...) is an entry with its
    "error" (also on stderr), and the exit status is 2.
    """
    with loading():
        from trackkit.checks.pipeline import validate as run_validate
        from trackkit.checks.text import report_text
        from trackkit.formats import load_source

    if boxes:
        from trackkit.api import check_boxes

        try:
            check_boxes(boxes)
        except InputError as exc:
            message = f"--boxes: {exc.message}"
            raise fail_json(message) if output is OutputFormat.json else fail(message) from None
    jobs = 1
    if simulate:  # --scheduler: the races on a Dask cluster, connected for the command
        failed = fail_json if output is OutputFormat.json else fail
        jobs = ctx.with_resource(jobs_on(scheduler, jobs, failed))
    status = 0
    entries: list[dict[str, object]] = []
    for path in files:
        fixed: list[dict[str, object]] | None = None
        try:
            source = load_source(path)
            if fix:
                from trackkit.formats.rewrite import fix_file

                done = fix_file(path, source, kind=kind_of(kind), players=players)
                fixed = [
                    {"code": code, **edit.model_dump(mode="json")}
                    for code, edit in done.outcome.applied
                ]
                for item in done.losses:
                    typer.echo(f"trackkit: warning: {path} {item}", err=True)
                if output is OutputFormat.text:
                    typer.echo(_fixed_text(path, fixed))
                if done.outcome.changed:
                    source = load_source(path)  # the findings name the new file's lines
            stage = source.stage
            if boxes:
                stage = stage.model_copy(update={"boxes": list(boxes)})
            report = run_validate(
                stage, kind=kind_of(kind), file=str(path), source=source, players=players
            )
            if simulate and report.valid:
                from trackkit.sim.playability import playability

                found, extras = playability(
                    report,
                    races=simulate,
                    seed=seed,
                    players=players or limits.DEFAULT_PLAYERS,
                    jobs=jobs,
                )
                report.add(found, extras)
        except TrackkitError as exc:  # unusable input, or a broken tile library
            status = 2
            typer.echo(f"trackkit: error: {exc}", err=True)
            message = exc.message if isinstance(exc, InputError) else str(exc)
            # the keys of every entry (DESIGN.md), empty: scripts read them all the same
            entries.append(
                {
                    "file": str(path),
                    "valid": False,
                    "errors": 0,
                    "warnings": 0,
                    "findings": [],
                    "summary": {},
                    "error": message,
                }
            )
            continue
        if not report.valid:
            status = max(status, 1)
        if output is OutputFormat.json:
            entry = report.to_json()
            if fixed is not None:
                entry["fixes"] = fixed
            entries.append(entry)
        else:
            typer.echo(report_text(report))
    if output is OutputFormat.json:
        typer.echo(json.dumps({"files": entries}, indent=2, ensure_ascii=False))
    raise typer.Exit(status)


def _fixed_text(path: Path, fixed: list[dict[str, object]]) -> str:
    """``--fix``: what was applied to a file, one line per edit."""
    if not fixed:
        return f"{path}: no mechanical fix to apply"
    lines = [f"{path}: applied {len(fixed)} fix{'es' if len(fixed) != 1 else ''}"]
    lines += [f"  {f['code']}: {f['label']}" for f in fixed]
    return "\n".join(lines)
