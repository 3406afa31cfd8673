"""Findings: what the validator reports, each with a stable code and a place."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from trackkit.models.base import StrictModel


class Severity(StrEnum):
    """How bad a finding is: errors make a stage invalid (exit 1)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Location(StrictModel):
    """Where a finding is: as much as is known."""

    file: str | None = Field(default=None, description="The stage file.")
    tile_index: int | None = Field(
        default=None, description="Tile number in driving order, from 1."
    )
    tile: str | None = Field(default=None, description="Face id of that tile.")
    hex: tuple[int, int] | None = Field(default=None, description="Hex position [q, r].")
    space: str | None = Field(default=None, description="Space id in the stage graph.")
    edge: int | None = Field(default=None, description="World edge (direction) 0..5.")
    path: str | None = Field(default=None, description="Place in the input file (key path).")
    line: int | None = Field(
        default=None, description="Line of that place in the input file, from 1 (when known)."
    )

    def describe(self) -> str:
        """Location in words, for text output."""
        parts: list[str] = []
        if self.tile_index is not None:
            parts.append(f"tile {self.tile_index}" + (f" ({self.tile})" if self.tile else ""))
        elif self.tile:
            parts.append(f"tile {self.tile}")
        if self.hex is not None:
            parts.append(f"hex [{self.hex[0]}, {self.hex[1]}]")
        if self.edge is not None:
            parts.append(f"edge {self.edge}")
        if self.space:
            parts.append(f"space {self.space}")
        if self.path:
            parts.append(self.path)
        if self.line is not None:
            parts.append(f"line {self.line}")
        return ", ".join(parts) or "stage"


class Finding(StrictModel):
    """One problem or remark about a stage."""

    code: str = Field(description="Stable code from the catalogue, e.g. S105.")
    severity: Severity = Field(description="error, warning or info.")
    message: str = Field(description="What is wrong, in words.")
    location: Location = Field(default_factory=Location, description="Where it is.")
    fix: str = Field(default="", description="How to fix it.")
