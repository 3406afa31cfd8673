"""Mechanical fixes: apply a finding's edit to a stage, and mend a stage as far as edits go.

A finding whose fix is mechanical (a tile turned to meet the road, a mistyped tile id, the
event kind the validator inferred) carries :class:`~trackkit.models.findings.FixEdit`
values: keys to write on one tile of the stage, or on the stage itself. The studio's
*Apply* button sends one; ``trackkit validate --fix`` applies every edit that is the only
one of its finding (:func:`fix_stage`) and writes the file back in its own format
(:mod:`trackkit.formats.rewrite`).

Examples
--------
>>> from trackkit.models import Stage
>>> stage = Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "205a", "at": [1, 0], "dir": 1}, {"tile": "203a"}]})
>>> outcome = fix_stage(stage)
>>> outcome.stage.tiles[1].dir, [(code, e.label) for code, e in outcome.applied]
(0, [('S102', 'turn tile 2 (205a) to dir 0')])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from trackkit.models.findings import Finding, FixEdit
from trackkit.models.stage import Kind, Stage
from trackkit.tiles.library import TileLibrary

__all__ = [
    "MAX_FIX_ROUNDS",
    "EditError",
    "FixOutcome",
    "apply_edit",
    "fix_stage",
    "rewalk",
    "set_values",
    "valid_stage",
]

#: ``validate --fix`` validates and applies edits at most this many times over: a fix can
#: bring out the next finding (a tile id mended, its road then needs a turn).
MAX_FIX_ROUNDS = 5

_TILE = re.compile(r"^tiles\[(\d+)\]$")


class EditError(ValueError):
    """An edit that cannot be applied to the stage: the message says why."""


def _problem(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"])
        parts.append(f"{where}: {err['msg']}" if where else str(err["msg"]))
    return "; ".join(parts)


def valid_stage(data: dict[str, Any], where: str = "stage") -> Stage:
    """A stage from its data as a native file holds it.

    Raises
    ------
    EditError
        Naming ``where`` and what is wrong, if the data is not a valid stage.
    """
    try:
        return Stage.model_validate(data)
    except ValidationError as exc:
        raise EditError(f"{where}: {_problem(exc)}") from None


def set_values(stage: Stage, path: str, values: dict[str, Any]) -> Stage:
    """``stage`` with ``values`` written at ``path`` ('' or 'tiles[N]'); None removes a key.

    The stage keeps the keys its file gave (``model_fields_set``), so that a file written
    from it holds what the user wrote and the change, not every default.

    Raises
    ------
    EditError
        If ``path`` names no tile of the stage, or the values are not valid there.
    """
    data = stage.model_dump(mode="json", exclude_unset=True, by_alias=True)
    if path == "":
        target: dict[str, Any] = data
    else:
        m = _TILE.match(path)
        n = int(m.group(1)) if m else -1
        if not m or n >= len(data["tiles"]):
            raise EditError(f"{path!r}: the stage has no such tile ({len(stage.tiles)} tiles)")
        target = data["tiles"][n]
    for key, value in values.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value
    return valid_stage(data, path or "stage")


def apply_edit(stage: Stage, edit: FixEdit) -> Stage:
    """``stage`` with one mechanical fix applied.

    Raises
    ------
    EditError
        If the edit does not fit the stage (another stage's fix, a tile since removed).
    """
    return set_values(stage, edit.path, dict(edit.values))


def rewalk(stage: Stage, library: TileLibrary | None = None) -> Stage:
    """An editor file's stage after an edit: its tiles where they lie, the driving order
    found again by walking the road, as reading the file written from it would
    (:func:`trackkit.formats.walk.placed_stage`).

    An editor file's tiles all have ``at``/``dir``; those the road did not reach are
    ``driven: false``. A tile turned so that the road now reaches them drives them again.
    The stage's own keys (kind, ruleset, laps, boxes) stay.
    """
    from trackkit.formats.walk import placed_stage
    from trackkit.formats.write import placements

    walked, _items = placed_stage(
        placements(stage, library), name=stage.name, author=stage.author, library=library
    )
    data = walked.model_dump(mode="json", exclude_unset=True)
    own = stage.model_dump(mode="json", exclude_unset=True)
    for key in ("name", "author", "kind", "ruleset", "laps", "boxes"):
        data.pop(key, None)
        if key in own:
            data[key] = own[key]
    return Stage.model_validate(data)


@dataclass(slots=True)
class FixOutcome:
    """What :func:`fix_stage` did: the mended stage, the edits applied, the choices left."""

    stage: Stage
    applied: list[tuple[str, FixEdit]] = field(default_factory=list)
    """(finding code, edit) in the order applied."""
    choices: list[Finding] = field(default_factory=list)
    """Findings left with several edits to choose from (no edit of theirs was applied)."""

    @property
    def changed(self) -> bool:
        """Whether any edit was applied."""
        return bool(self.applied)


def fix_stage(
    stage: Stage,
    *,
    kind: Kind | None = None,
    library: TileLibrary | None = None,
    players: int | None = None,
    rounds: int = MAX_FIX_ROUNDS,
    placed: bool = False,
) -> FixOutcome:
    """Apply every edit that is the only one of its finding, validating again after each
    round, until none is left (at most ``rounds`` rounds).

    In one round each place (the stage, one tile) takes one edit, the first finding's;
    an edit applied once is never applied again, so two fixes cannot undo each other
    for ever. Findings with several edits are choices for the user (the studio offers
    each): they are returned, not applied.
    """
    from trackkit.checks.pipeline import validate

    outcome = FixOutcome(stage)
    done: set[str] = set()
    for _ in range(rounds):
        report = validate(outcome.stage, kind=kind, library=library, players=players)
        outcome.choices = [f for f in report.findings if len(f.edits) > 1]
        taken: set[str] = set()
        progress = False
        for f in report.findings:
            if len(f.edits) != 1:
                continue
            edit = f.edits[0]
            key = edit.model_dump_json()
            if edit.path in taken or key in done or (placed and edit.path == ""):
                continue  # an editor file holds no stage keys (kind): nothing to write
            try:
                changed = apply_edit(outcome.stage, edit)
            except EditError:
                continue  # a fix that no longer fits once another was applied
            done.add(key)
            taken.add(edit.path)
            if changed != outcome.stage:
                outcome.stage = changed
                outcome.applied.append((f.code, edit))
                progress = True
        if not progress:
            break
        if placed:
            outcome.stage = rewalk(outcome.stage, library)
    return outcome
