"""Shared option types and helpers of the commands."""

from __future__ import annotations

import contextlib
import json
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from trackkit.models.findings import Finding
    from trackkit.models.stage import Kind

__all__ = [
    "FLAG",
    "MAX_SEED",
    "SCHEDULER_ENV",
    "FileSetForceOption",
    "ForceOption",
    "KindOption",
    "OutputFormat",
    "SchedulerOption",
    "SeedOption",
    "StageKind",
    "echo_kind_note",
    "fail",
    "fail_json",
    "jobs_on",
    "kind_of",
]


class OutputFormat(StrEnum):
    """Output formats of reports."""

    text = "text"
    json = "json"


class StageKind(StrEnum):
    """Event kinds a stage is checked for."""

    rally = "rally"
    hillclimb = "hillclimb"
    circuit = "circuit"
    point_to_point = "point-to-point"


KindOption = Annotated[
    StageKind | None,
    typer.Option(
        "--kind",
        help="Treat the stage as this event kind (rally and hillclimb for DIRT stages, circuit "
        "and point-to-point for GT tracks). Default: the file's 'kind'; a file without one "
        "(Rekee and .rgt files never have one) is a hillclimb when it holds a climb tile or a "
        "climb token, a circuit when it is a GT track, else a rally.",
    ),
]

#: The ``metavar`` of an on/off option: no value hint in the help (typer's rich help
#: would show ``<bool>`` beside a flag, which takes no value).
FLAG = ""

ForceOption = Annotated[
    bool,
    typer.Option(
        "--force",
        metavar=FLAG,
        help="Replace an output file that is read-only (its mode bits deny you writing it; "
        "root counts as the owner). Never replaces a folder, a device, a FIFO or a link "
        "that leads nowhere.",
    ),
]

FileSetForceOption = Annotated[
    bool,
    typer.Option(
        "--force",
        metavar=FLAG,
        help="Also replace files in the way: files with the names this run writes that "
        "trackkit did not write (or that changed since it wrote them), and read-only "
        "files. Even with --force, a file trackkit did not write is never removed, and a "
        "folder, a device, a FIFO or a link is never replaced.",
    ),
]


#: ``--seed`` runs from -MAX_SEED to MAX_SEED (trackkit.sim.replay.MAX_SEED, repeated here
#: so that ``--help`` does not import the simulator): every seed given makes a replay file
#: that ``trackkit replay`` reads back.
MAX_SEED = 2**63 - 1

SeedOption = Annotated[
    int,
    typer.Option(
        min=-MAX_SEED,
        max=MAX_SEED,
        help="Seed: the same seed gives the same result (a whole number, |seed| < 2^63).",
    ),
]


#: The environment variable that gives ``--scheduler`` when the option is not given.
SCHEDULER_ENV = "TRACKKIT_SCHEDULER"

SchedulerOption = Annotated[
    str | None,
    typer.Option(
        metavar="ADDRESS",
        envvar=SCHEDULER_ENV,
        show_envvar=True,
        help="Run the races on a Dask cluster: the address of its scheduler, "
        "tcp://HOST:PORT ('dask scheduler' listens on 8786). Its workers run the races, with "
        "the same result as --jobs 1 (--jobs is not used). Default: the environment "
        f"variable {SCHEDULER_ENV}; empty: this machine. Needs the package distributed "
        "(pip install 'trackkit[dask]'), and the same trackkit on every worker.",
        show_default=False,
    ),
]


def kind_of(option: StageKind | None) -> Kind | None:
    """The model's kind for a ``--kind`` option value."""
    from trackkit.models.stage import Kind

    return None if option is None else Kind(option.value)


def echo_kind_note(findings: Iterable[Finding], file: object) -> None:
    """Say on stderr how the stage's kind was inferred (H404 a hillclimb, S134 a GT track
    point to point), for commands that are not ``validate`` (whose report lists it)."""
    for f in findings:
        if f.code in ("H404", "S134"):
            typer.echo(f"trackkit: note: {file}: {f.message}", err=True)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print an error to stderr; the caller raises the returned Exit."""
    typer.echo(f"trackkit: error: {message}", err=True)
    return typer.Exit(code)


def fail_json(
    message: str, *, file: object = None, code: int = 2, extra: dict[str, Any] | None = None
) -> typer.Exit:
    """:func:`fail` for a ``--format json`` run: the error is also the run's one JSON
    document on stdout, ``{"error": {"file", "message", "exit_status"}, **extra}``, so that
    a script reading stdout always gets a document. The caller raises the returned Exit."""
    where = None if file is None else str(file)
    doc = {"error": {"file": where, "message": message, "exit_status": code}, **(extra or {})}
    typer.echo(json.dumps(doc, indent=2, ensure_ascii=False))
    return fail(f"{where}: {message}" if where is not None else message, code)


@contextlib.contextmanager
def jobs_on(
    scheduler: str | None, jobs: int, failed: Callable[[str], typer.Exit] = fail
) -> Iterator[int]:
    """The jobs of a run: ``jobs`` (``--jobs``) on this machine, or, given a ``--scheduler``
    address, the Dask cluster there (:func:`trackkit.parallel.cluster`), connected for the
    ``with`` block. A scheduler that cannot be used, or is lost during the run, is an
    error (exit 2) through ``failed``, which returns the Exit to raise."""
    address = (scheduler or "").strip()
    if not address:
        yield jobs
        return
    import logging

    from trackkit.parallel import SchedulerError, cluster

    try:
        with cluster(address) as on:
            # Dask's client (imported now: it sets its logging up) logs a lost connection
            # with a traceback, on its own thread and until it is closed: the error below
            # says it, once (the command's process ends after it)
            for name in ("distributed", "distributed.client"):
                logging.getLogger(name).setLevel(logging.CRITICAL)
            yield on
    except SchedulerError as exc:
        raise failed(f"--scheduler: {exc}") from None
