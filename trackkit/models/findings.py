"""Findings: what the validator reports, each with a stable code and a place."""

from collections.abc import Iterable
from enum import StrEnum

from pydantic import Field, JsonValue

from trackkit.models.base import StrictModel, empty_list


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


class FixEdit(StrictModel):
    """A mechanical fix: values to write on one tile of the stage, or on the stage itself.

    The studio's *Apply* button sends it; ``trackkit validate --fix`` writes it into the
    file (:func:`trackkit.checks.fixes.apply_edit`).
    """

    label: str = Field(description="What the edit does, in words (the Apply button's text).")
    path: str = Field(
        default="",
        pattern=r"^(tiles\[\d{1,4}\])?$",
        description="Where: '' for the stage itself, 'tiles[N]' for the tile at place N of "
        "the stage's tile list (from 0), as a finding's location.path names it.",
    )
    values: dict[str, JsonValue] = Field(
        description="Keys to set there and their new values (null removes the key), as a "
        'native stage file writes them, e.g. {"tile": "224a"} or {"kind": "hillclimb"}.'
    )


class Fix(str):
    """A fix in words that carries its mechanical edits (:class:`FixEdit`).

    It is a ``str``, so the functions that make a fix's words for a finding (a turn that
    makes two roads meet, the ids probably meant) can hand its edits along unchanged to
    :func:`trackkit.checks.catalogue.finding`, which moves them onto the finding.

    Examples
    --------
    >>> fix = Fix("Use 224a.", [FixEdit(label="use 224a", path="tiles[5]",
    ...                                 values={"tile": "224a"})])
    >>> fix, [e.values for e in fix.edits]
    ('Use 224a.', [{'tile': '224a'}])
    """

    edits: tuple[FixEdit, ...]

    def __new__(cls, text: str, edits: Iterable[FixEdit] = ()) -> "Fix":
        obj = super().__new__(cls, text)
        obj.edits = tuple(edits)
        return obj


class Finding(StrictModel):
    """One problem or remark about a stage."""

    code: str = Field(description="Stable code from the catalogue, e.g. S105.")
    severity: Severity = Field(description="error, warning or info.")
    message: str = Field(description="What is wrong, in words.")
    location: Location = Field(default_factory=Location, description="Where it is.")
    fix: str = Field(default="", description="How to fix it.")
    edits: list[FixEdit] = Field(
        default_factory=empty_list,
        description="Mechanical fixes, best first: each one alone mends the finding (several "
        "are choices, e.g. the tile ids probably meant). 'trackkit validate --fix' applies "
        "the edit of a finding that has exactly one.",
    )
