"""Heat maps: losses of control per space, read from a ``trackkit simulate`` document; on a
Rallyman: GT track the overtakes per space too.

A simulation document names its stage by the face ids in driving order
(``"stage": {"tiles": [...]}``); a document of another stage is refused, and so is one
that counts losses on spaces the stage does not have (documents written before the
``stage`` field are checked by their spaces alone). A rally's document holds one
document per stage (``"stages"``): the one of the stage drawn is used. A GT race's
document holds ``overtakes.by_space`` besides ``loss_of_control.by_space``, checked the
same way, and its ``by_tile`` counts must name the track's tiles (number in driving order
and face id).

Examples
--------
>>> from trackkit.models import Stage
>>> from trackkit.checks.pipeline import validate
>>> report = validate(Stage.model_validate({"format": "trackkit-stage/1",
...     "tiles": [{"tile": "202a"}, {"tile": "203a"}]}))
>>> doc = {"settings": {"races": 4}, "stage": {"tiles": ["202a", "203a"]},
...        "loss_of_control": {"by_space": {"2:1.1L": 2}}}
>>> heat = read_heat(doc, report, source="sim.json")
>>> heat.by_space, heat.races, heat.worst_per_race
({'2:1.1L': 2}, 4, 0.5)
>>> read_heat({**doc, "stage": {"tiles": ["202a", "205a", "203a"]}}, report,
...           source="sim.json")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
trackkit.errors.InputError: sim.json: a simulation of another stage ...
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from trackkit.checks.pipeline import Report
from trackkit.errors import InputError
from trackkit.formats.source import MAX_SIMULATION_BYTES, read_json
from trackkit.words import plural

__all__ = ["HEAT_SHOW", "Heat", "load_simulation", "read_heat"]

_NOT_SIM = "not a 'trackkit simulate --format json' document (no loss_of_control.by_space)"
_NOT_GT_SIM = (
    "not the 'trackkit simulate --format json' document of a GT race (no overtakes.by_space); "
    "simulate the track again, or draw only the losses of control (--heat-show loss)"
)


#: What a heat map shows (``render --heat-show``): losses of control, overtakes (Rallyman:
#: GT races only) or both.
HEAT_SHOW = ("loss", "overtakes", "both")


@dataclass(frozen=True, slots=True)
class Heat:
    """Losses of control per space (graph node id -> count) over ``races`` races, and the
    overtakes per space of a Rallyman: GT race."""

    by_space: Mapping[str, int]
    races: int | None = None
    """Races simulated (None: the document does not say; counts are then totals)."""
    overtakes: Mapping[str, int] | None = None
    """Overtakes per space (graph node id -> count, GT races); None: none shown (a DIRT
    stage's simulation has none)."""
    losses: bool = True
    """Whether the losses of control are shown (False: only the overtakes)."""

    @property
    def worst(self) -> int:
        """The most losses of control on one space."""
        return max(self.by_space.values(), default=0)

    @property
    def worst_per_race(self) -> float:
        """The most losses of control on one space, per race (or in total)."""
        return self.worst / (self.races or 1)

    @property
    def most_overtakes(self) -> int:
        """The most overtakes on one space (0 when none are shown)."""
        return max((self.overtakes or {}).values(), default=0)

    @property
    def most_overtakes_per_race(self) -> float:
        """The most overtakes on one space, per race (or in total)."""
        return self.most_overtakes / (self.races or 1)


def _tiles_of(doc: Mapping[str, Any]) -> list[str] | None:
    stage = doc.get("stage")
    tiles = stage.get("tiles") if isinstance(stage, dict) else None
    if isinstance(tiles, list) and all(isinstance(t, str) for t in tiles):
        return tiles
    return None


def _short(tiles: Sequence[str]) -> str:
    shown = ", ".join(tiles[:6]) + (", ..." if len(tiles) > 6 else "")
    return f"{plural(len(tiles), 'tile')}: {shown}"


def _pick_stage(doc: Any, tiles: list[str], source: str) -> dict[str, Any]:
    """The document of the stage drawn: ``doc`` itself, or one of a rally's ``stages``."""
    if not isinstance(doc, dict):
        raise InputError(source, _NOT_SIM)
    stages = doc.get("stages")
    if stages is None:
        return cast(dict[str, Any], doc)
    if not isinstance(stages, list) or not all(isinstance(s, dict) for s in stages):
        raise InputError(source, "'stages' is a list of simulation documents, one per stage")
    named: list[dict[str, Any]] = [s for s in stages if _tiles_of(s) is not None]
    for s in named:
        if _tiles_of(s) == tiles:
            return s
    if named or not stages:
        raise InputError(
            source,
            f"no stage of this rally's simulation ({plural(len(stages), 'stage')}) is the stage "
            f"drawn ({_short(tiles)})",
        )
    return cast(dict[str, Any], stages[0])  # written before the "stage" field: the first


def load_simulation(path: str | Path) -> Any:
    """The parsed JSON of a ``trackkit simulate --format json`` file (for :func:`read_heat`).

    Raises
    ------
    InputError
        Missing, not a regular file, over 16 MB, not JSON, or nested too deeply.
    """
    return read_json(path, what="simulation file", limit=MAX_SIMULATION_BYTES)


def _counts(
    by_space: dict[Any, Any], report: Report, *, where: str, what: str, source: str
) -> dict[str, int]:
    """The counts of ``where`` (``loss_of_control.by_space``...) checked: whole numbers
    >= 0 on spaces of the stage drawn."""
    out: dict[str, int] = {}
    for key, value in by_space.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**9:
            raise InputError(
                source,
                f"{where}[{key!r}]: a count of {what} is a whole number >= 0, not {value!r}",
            )
        out[str(key)] = value
    nodes = report.graph.nodes
    strangers = sorted(k for k in out if k not in nodes)
    if strangers:
        raise InputError(
            source,
            f"{where} names {plural(len(strangers), 'space')} this stage does not "
            f"have ({', '.join(strangers[:3])}): a simulation of another stage",
        )
    return out


def _check_by_tile(block: dict[str, Any], tiles: Sequence[str], *, where: str, source: str) -> None:
    """A GT document's ``by_tile`` (tile number in driving order -> its face and count)
    names this track's tiles: a document of another track is refused even without the
    ``stage`` field."""
    by_tile = block.get("by_tile")
    if by_tile is None:
        return
    if not isinstance(by_tile, dict):
        raise InputError(source, f"{where}.by_tile maps tile numbers to their counts")
    for key, entry in by_tile.items():
        number = int(key) if isinstance(key, str) and key.isdigit() else 0
        face = entry.get("tile") if isinstance(entry, dict) else None
        if not 1 <= number <= len(tiles) or not isinstance(face, str):
            raise InputError(
                source,
                f"{where}.by_tile[{key!r}]: a tile number of this track (1 to {len(tiles)}) "
                "with its face id ('tile')",
            )
        if face != tiles[number - 1]:
            raise InputError(
                source,
                f"{where}.by_tile[{key!r}] is face {face!r}, but tile {number} of the track "
                f"drawn is {tiles[number - 1]}: a simulation of another track",
            )


def read_heat(doc: Any, report: Report, *, source: str, show: str = "both") -> Heat:
    """The losses of control (and on a GT track the overtakes) of ``report``'s stage in a
    simulation document.

    Parameters
    ----------
    doc : object
        The parsed JSON of ``trackkit simulate --format json``.
    report : Report
        The validated stage to be drawn.
    source : str
        The document's file name, for messages.
    show : {"both", "loss", "overtakes"}
        What the heat map shows: losses of control, overtakes or both (a DIRT stage's
        simulation has no overtakes: "both" shows its losses of control).

    Raises
    ------
    InputError
        If ``doc`` is not a simulation document, is a simulation of another stage, holds a
        count that is not a whole number >= 0, or (a GT track) has no overtakes to show;
        if ``show`` asks for overtakes of a DIRT stage.
    """
    if show not in HEAT_SHOW:
        raise ValueError(f"show is one of {', '.join(HEAT_SHOW)}, not {show!r}")
    gt = report.layout.series == "gt"
    if show == "overtakes" and not gt:
        raise InputError(
            source,
            "overtakes are counted in Rallyman: GT races only; a DIRT stage's heat map "
            "shows losses of control (--heat-show loss)",
        )
    tiles = [t.face_id for t in report.layout.chain]
    doc = _pick_stage(doc, tiles, source)
    theirs = _tiles_of(doc)
    if "stage" in doc and theirs is None:
        raise InputError(source, "'stage.tiles' is a list of face ids in driving order")
    if theirs is not None and theirs != tiles:
        raise InputError(
            source,
            f"a simulation of another stage ({_short(theirs)}), not of the stage drawn "
            f"({_short(tiles)}): simulate this stage first",
        )
    losses = doc.get("loss_of_control")
    by_space = losses.get("by_space") if isinstance(losses, dict) else None
    if not isinstance(losses, dict) or not isinstance(by_space, dict):
        raise InputError(source, _NOT_SIM)
    out = _counts(
        by_space,
        report,
        where="loss_of_control.by_space",
        what="losses of control",
        source=source,
    )
    passes: dict[str, int] | None = None
    if gt:
        _check_by_tile(losses, tiles, where="loss_of_control", source=source)
        block = doc.get("overtakes")
        ahead = block.get("by_space") if isinstance(block, dict) else None
        if isinstance(block, dict) and isinstance(ahead, dict):
            _check_by_tile(block, tiles, where="overtakes", source=source)
            passes = _counts(
                ahead, report, where="overtakes.by_space", what="overtakes", source=source
            )
        elif block is not None or show != "loss":
            raise InputError(source, _NOT_GT_SIM)
    settings = doc.get("settings")
    races = settings.get("races") if isinstance(settings, dict) else None
    if isinstance(races, bool) or not isinstance(races, int) or races < 1:
        races = None
    return Heat(
        out if show != "overtakes" else {},
        races,
        overtakes=passes if show != "loss" else None,
        losses=show != "overtakes",
    )
