"""Shared option types and helpers of the commands."""

from __future__ import annotations

from enum import StrEnum

import typer

__all__ = ["OutputFormat", "StageKind", "fail"]


class OutputFormat(StrEnum):
    """Output formats of reports."""

    text = "text"
    json = "json"


class StageKind(StrEnum):
    """Event kinds a stage is checked for."""

    rally = "rally"
    hillclimb = "hillclimb"


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print an error to stderr; the caller raises the returned Exit."""
    typer.echo(f"trackkit: error: {message}", err=True)
    return typer.Exit(code)
