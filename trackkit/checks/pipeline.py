"""Validation: every problem of a stage in one pass, as coded findings.

Examples
--------
>>> from trackkit.models import Stage
>>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "205a"}, {"tile": "999z"}]})
>>> report = validate(stage)
>>> report.valid, sorted(f.code for f in report.findings)
(False, ['S101', 'S107'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from trackkit.checks.catalogue import CATALOGUE
from trackkit.checks.gt_track import check_kind, check_track
from trackkit.checks.hillclimb import check_hillclimb, stage_kind
from trackkit.checks.inventory import check_inventory
from trackkit.checks.rules import check_rules
from trackkit.checks.structure import check_series, check_structure
from trackkit.checks.summary import summarize
from trackkit.checks.tiles import check_face, uncertain_faces
from trackkit.formats.source import StageSource
from trackkit.models.findings import Finding, Severity
from trackkit.models.stage import Kind, Stage
from trackkit.models.summary import StageSummary
from trackkit.stage.assemble import Layout, lay_out
from trackkit.stage.graph import build_graph
from trackkit.tiles.library import TileLibrary, default_library

__all__ = ["Report", "check_face", "validate", "validate_stage"]


@dataclass(slots=True)
class Report:
    """The outcome of validating one stage."""

    file: str | None
    findings: list[Finding]
    summary: StageSummary
    """What the stage is made of (``validate --simulate``: and how its races went)."""
    layout: Layout
    graph: nx.DiGraph = field(repr=False)
    source: StageSource | None = field(default=None, repr=False)
    """The file the stage was read from, when known: findings name its paths and lines."""
    kind: Kind = Kind.RALLY
    """The event the stage was checked as (``--kind``, the file's ``kind``, or inferred)."""

    @property
    def errors(self) -> int:
        """Number of error findings."""
        return sum(1 for f in self.findings if f.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        """Number of warning findings."""
        return sum(1 for f in self.findings if f.severity is Severity.WARNING)

    @property
    def valid(self) -> bool:
        """Whether the stage has no errors (warnings allowed)."""
        return self.errors == 0

    @property
    def clean(self) -> bool:
        """Whether the stage has neither errors nor warnings (what ``generate`` keeps)."""
        return self.errors == 0 and self.warnings == 0

    def add(self, findings: list[Finding], summary: StageSummary | None = None) -> None:
        """Add findings made after validation (playability), and the summary completed
        with what they found (:func:`trackkit.sim.playability.playability`)."""
        self.findings += _placed_in_file(findings, self.file, self.source)
        if summary is not None:
            self.summary = summary

    @property
    def codes(self) -> list[str]:
        """Finding codes, in report order."""
        return [f.code for f in self.findings]

    def to_json(self) -> dict[str, Any]:
        """The per-file entry of ``validate --format json`` (DESIGN.md)."""
        return {
            "file": self.file,
            "valid": self.valid,
            "errors": self.errors,
            "warnings": self.warnings,
            "findings": [
                {
                    "code": f.code,
                    "severity": f.severity.value,
                    "message": f.message,
                    "location": f.location.model_dump(exclude_none=True),
                    "fix": f.fix,
                    "edits": [e.model_dump(mode="json") for e in f.edits],
                }
                for f in self.findings
            ],
            "summary": self.summary.to_json(),
        }


def validate(
    stage: Stage,
    *,
    kind: Kind | None = None,
    library: TileLibrary | None = None,
    file: str | None = None,
    source: StageSource | None = None,
    players: int | None = None,
) -> Report:
    """Lay out ``stage``, build its graph and report every problem found.

    Raises nothing for a bad stage: problems are findings.

    Parameters
    ----------
    stage : Stage
        The stage.
    kind : Kind, optional
        Check as this event kind (default: the stage's own).
    library : TileLibrary, optional
        The faces (default: the shipped library).
    file : str, optional
        The file named in every finding's location (default: ``source``'s file).
    source : StageSource, optional
        Where ``stage`` was read from (:func:`trackkit.formats.load_source`): findings then
        name the file's own key paths and lines (``location.path``, ``location.line``).
    players : int, optional
        GT tracks: the players the grid must hold (default
        :data:`~trackkit.checks.gt_track.DEFAULT_PLAYERS`).
    """
    lib = library or default_library()
    layout = lay_out(stage, lib)
    event, notes = stage_kind(layout, kind)
    if layout.series == "gt" == event.series and layout.circuit != (event is Kind.CIRCUIT):
        # the kind (--kind, or inferred) decides how a GT track is laid out: a circuit
        # closes its lap, a point-to-point track ends at its finish line
        layout = lay_out(stage.model_copy(update={"kind": event}), lib)
    graph = build_graph(layout)
    findings = list(layout.findings)
    findings += check_series(layout)
    findings += check_structure(layout, graph, lib)
    findings += check_rules(layout, graph)
    findings += check_inventory(layout, lib)
    findings += notes
    findings += check_kind(layout, event)
    findings += check_track(layout, graph, event, players)
    findings += check_hillclimb(layout, graph, event)
    findings += uncertain_faces(layout)
    for face in sorted(
        {t.face.id: t.face for t in layout.tiles if t.face}.values(), key=lambda f: f.id
    ):
        if default_library().faces.get(face.id) is not face:
            findings += check_face(face)  # user tiles get the shipped tiles' own checks
    file = file or (source.file if source else None)
    if source is not None and source.format != "native":
        findings = [_for_editor(f) for f in findings]
    findings = _placed_in_file(findings, file, source)
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    # a finding that follows from others (S114: "fix the structural errors above") comes
    # after the others of its severity
    findings.sort(
        key=lambda f: (
            order[f.severity],
            CATALOGUE[f.code].follows,
            f.location.tile_index or 0,
            f.code,
        )
    )
    summary = summarize(layout, graph, lib, event)
    return Report(file, findings, summary, layout, graph, source, event)


def _for_editor(f: Finding) -> Finding:
    """The finding with the fix for an editor file, if its general fix asks for what such
    a file cannot hold (``kind``, ``road``)."""
    entry = CATALOGUE[f.code]
    if entry.editor_fix is None or f.fix != entry.fix:
        return f
    return f.model_copy(update={"fix": entry.editor_fix})


def _placed_in_file(
    findings: list[Finding], file: str | None, source: StageSource | None
) -> list[Finding]:
    """Findings whose locations name ``file``, and the file's key paths and lines."""
    out = []
    for f in findings:
        update: dict[str, Any] = {"file": file} if file else {}
        if source is not None and f.location.path:
            update["path"], update["line"] = source.locate(f.location.path)
        out.append(
            f.model_copy(update={"location": f.location.model_copy(update=update)}) if update else f
        )
    return out


#: The same as :func:`validate`, under the name the top-level package exports.
validate_stage = validate
