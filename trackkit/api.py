"""The scripting API: trackkit's five jobs as plain functions, for both series.

:func:`load` reads a stage file of any format the command line reads, :func:`validate`
checks a stage against the rules, :func:`render_map` draws its map, :func:`simulate` races
it with bots and :func:`generate` designs new stages from the boxes a player owns. Each
takes a :class:`~trackkit.models.Stage` (or, for the first four, a file path) and returns a
typed result: a :class:`~trackkit.checks.pipeline.Report` (findings and a
:class:`~trackkit.models.StageSummary`), the SVG text, a
:class:`~trackkit.models.SimReport`, a :class:`~trackkit.generator.run.Generation`. They
are what the command line and the studio call; nothing here exits or prints.

Examples
--------
>>> import trackkit
>>> stage = trackkit.Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "205a"}, {"tile": "217b", "turn": "left"},
...     {"tile": "203a"}]})
>>> report = trackkit.validate(stage)
>>> report.valid, report.summary.tiles
(True, 4)
>>> result = trackkit.simulate(stage, races=4, players=2, seed=7)
>>> result.settings.races, 0.0 <= result.finish_rate <= 1.0
(4, True)
>>> trackkit.render_map(stage).startswith("<svg")
True
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from trackkit.errors import InputError
from trackkit.models.stage import Kind, Stage

if TYPE_CHECKING:
    from trackkit.checks.pipeline import Report
    from trackkit.formats.source import StageSource
    from trackkit.generator.request import Request
    from trackkit.generator.run import Generation, Progress
    from trackkit.models.simreport import SimReport
    from trackkit.render.theme import Theme
    from trackkit.tiles.library import TileLibrary

__all__ = ["check_boxes", "generate", "load", "render_map", "simulate", "validate"]

#: A stage, or the path of a stage file (native YAML/JSON, Rekee JSON or ``.rgt``).
StageLike = Stage | str | os.PathLike[str]


def load(path: str | os.PathLike[str], *, library: TileLibrary | None = None) -> Stage:
    """Read a stage file in any format the command line reads.

    Parameters
    ----------
    path : str or path-like
        A native stage (``.yaml``/``.json``), a Rekee editor file or an official editor
        ``.rgt`` file; the format is read from the content.
    library : TileLibrary, optional
        The faces editor files are read against (default: the shipped library).

    Returns
    -------
    Stage
        The stage, its tiles in driving order.

    Raises
    ------
    trackkit.errors.InputError
        For a file that is missing, unreadable, not a stage file or of wrong types, naming
        the file and the place.

    Examples
    --------
    >>> import tempfile, trackkit
    >>> path = Path(tempfile.mkdtemp()) / "mini.yaml"
    >>> _ = path.write_text("format: trackkit-stage/1\\ntiles: [{tile: 202a}, {tile: 203a}]\\n")
    >>> [t.tile for t in trackkit.load(path).tiles]
    ['202a', '203a']
    """
    from trackkit.formats import load_stage

    return load_stage(Path(path), library=library)


def _source(stage: StageLike) -> tuple[Stage, StageSource | None]:
    if isinstance(stage, Stage):
        return stage, None
    from trackkit.formats import load_source

    source = load_source(Path(stage))
    return source.stage, source


def _kind(kind: Kind | str | None) -> Kind | None:
    if kind is None or isinstance(kind, Kind):
        return kind
    try:
        return Kind(kind)
    except ValueError:
        kinds = ", ".join(k.value for k in Kind)
        raise InputError("kind", f"{kind!r} is not an event kind (one of {kinds})") from None


def check_boxes(boxes: Sequence[str], library: TileLibrary | None = None) -> None:
    """Refuse a box name the library does not know, with the name probably meant.

    Raises
    ------
    trackkit.errors.InputError
        Naming the box (``file`` is ``boxes``) and the boxes there are.

    Examples
    --------
    >>> check_boxes(["dirt-core", "gt-core"])
    >>> check_boxes(["gt-core-box"])
    Traceback (most recent call last):
    ...
    trackkit.errors.InputError: boxes: ...
    """
    from trackkit.formats.suggest import unknown_box
    from trackkit.tiles.library import default_library

    lib = library or default_library()
    for box in boxes:
        unknown = unknown_box(box, lib)
        if unknown is not None:
            raise InputError("boxes", f"{unknown} (the boxes: {', '.join(lib.boxes())})")


def validate(
    stage: StageLike,
    *,
    kind: Kind | str | None = None,
    players: int | None = None,
    boxes: Sequence[str] | None = None,
    library: TileLibrary | None = None,
    file: str | None = None,
) -> Report:
    """Check a stage against the rules: every problem at once, as coded findings.

    A bad stage raises nothing: its problems are the report's findings (each with a code of
    the catalogue, a location and a fix). Only input that cannot be read raises.

    Parameters
    ----------
    stage : Stage, str or path-like
        The stage, or its file (then findings name the file's lines).
    kind : Kind or str, optional
        Check as this event kind (``rally``, ``hillclimb``, ``circuit``,
        ``point-to-point``); default: the stage's own, or inferred.
    players : int, optional
        GT tracks: the cars the grid must hold (default 4).
    boxes : sequence of str, optional
        Check the tiles' copies against these boxes (I301-I304) instead of the stage's own
        ``boxes``.
    library : TileLibrary, optional
        The faces (default: the shipped library).
    file : str, optional
        The file named in every finding's location (default: ``stage``'s path, if a path).

    Returns
    -------
    Report
        ``valid``, ``findings``, ``summary`` (a :class:`~trackkit.models.StageSummary`),
        the layout and the space graph; ``to_json()`` is ``validate --format json``'s entry.

    Raises
    ------
    trackkit.errors.InputError
        For a file that cannot be read, an unknown box name or event kind.

    Examples
    --------
    >>> import trackkit
    >>> broken = trackkit.Stage.model_validate({"format": "trackkit-stage/1",
    ...     "tiles": [{"tile": "202a"}, {"tile": "999z"}, {"tile": "203a"}]})
    >>> trackkit.validate(broken).codes
    ['S101']
    """
    from trackkit.checks.pipeline import validate as run

    value, source = _source(stage)
    if boxes is not None:
        check_boxes(boxes, library)
        value = value.model_copy(update={"boxes": list(boxes)})
    event = _kind(kind)
    return run(value, kind=event, library=library, file=file, source=source, players=players)


def render_map(
    stage: StageLike | Report,
    *,
    heat: SimReport | None = None,
    legend: bool = True,
    tile_size: float | None = None,
    theme: Theme | None = None,
) -> str:
    """Draw a stage's map: SVG text in millimetres, every space and feature with an id.

    A stage with errors is drawn all the same (what can be placed is shown).

    Parameters
    ----------
    stage : Stage, str, path-like or Report
        The stage, its file, or a report of :func:`validate` (not validated again).
    heat : SimReport, optional
        A simulation of the same stage (:func:`simulate`): spaces tinted by losses of
        control, and on a GT track rings where cars overtook.
    legend : bool
        Add the title block and the legend.
    tile_size : float, optional
        Tile size in mm, flat edge to flat edge (default: the shipped 240 mm; the
        command line reads the user's ``trackkit config tile-size``).
    theme : dict, optional
        Colour overrides (:func:`trackkit.render.theme.make_theme`).

    Raises
    ------
    trackkit.errors.InputError
        For a file that cannot be read, or a ``heat`` of another stage.

    Examples
    --------
    >>> import trackkit
    >>> stage = trackkit.Stage.model_validate({"format": "trackkit-stage/1",
    ...     "tiles": [{"tile": "202a"}, {"tile": "203a"}]})
    >>> svg = trackkit.render_map(stage, legend=False)
    >>> 'data-node="1:1.1L"' in svg
    True
    """
    from trackkit.checks.pipeline import Report
    from trackkit.render.heat import read_heat
    from trackkit.render.svg import map_svg
    from trackkit.stage.assemble import lay_out

    report = stage if isinstance(stage, Report) else validate(stage)
    layout = None
    if tile_size is not None and tile_size != report.layout.size:
        layout = lay_out(report.layout.stage, size=tile_size)
    drawn_heat = (
        read_heat(heat.to_json(), report, source="the simulation") if heat is not None else None
    )
    return map_svg(report, layout, theme=theme, legend=legend, heat=drawn_heat).svg


def simulate(
    stage: StageLike,
    *,
    races: int = 20,
    players: int = 4,
    seed: int = 0,
    bots: Sequence[str] = (),
    cars: Sequence[str] | None = None,
    kind: Kind | str | None = None,
    laps: int | None = None,
    weather: Literal["dry", "rain"] | None = None,
    max_rounds: int | None = None,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> SimReport:
    """Race a stage ``races`` times with bots: times or places, losses of control and where.

    The same seed gives the same report, with any ``jobs``. A DIRT rally or hillclimb (three
    attempts) is raced for time, a GT track for places over its laps.

    Parameters
    ----------
    stage : Stage, str or path-like
        The stage, or its file.
    races, players, seed : int
        How many races, how many drivers (1-8), the seed of the one generator.
    bots : sequence of str
        ``cautious``, ``aggressive``, ``planner``, cycled over the drivers; empty: the
        command line's default (a mix on a hillclimb, cautious ones elsewhere).
    cars : sequence of str, optional
        Ruleset car ids (``dirt``, ``r5``...; ``gt4``, ``gt5``, ``gt6``) or ``unlimited``,
        cycled over the drivers; None: the series' default.
    kind : Kind or str, optional
        Race as this event kind (default: the stage's own, or inferred).
    laps : int, optional
        GT circuits: laps of the race (default: the file's).
    weather : {"dry", "rain"}, optional
        GT tracks: the weather at the start (default: the ruleset's).
    max_rounds : int, optional
        The round cap (default: 200, more for long GT races).
    jobs : int
        Worker processes (the result is the same for any number).
    progress : callable, optional
        Told how many races were just finished.

    Returns
    -------
    SimReport
        ``to_json()`` is ``simulate --format json``'s document.

    Raises
    ------
    trackkit.sim.simulate.SimulationError
        If the stage has errors (see :func:`validate`).
    trackkit.errors.InputError
        For a file that cannot be read, or options that do not fit the stage.
    """
    from trackkit.sim.simulate import simulate_files

    value, source = _source(stage)
    event = _kind(kind)
    report, _replay = simulate_files(
        [value],
        [str(stage) if source is not None else value.name or "stage"],
        players=players,
        races=races,
        seed=seed,
        cars=tuple(cars) if cars is not None else None,
        bots=tuple(bots),
        jobs=jobs,
        progress=progress,
        max_rounds=max_rounds,
        kind=event,
        sources=[source],
        laps=laps,
        weather=weather,
    )
    return report


def generate(
    boxes: Sequence[str] | Request,
    *,
    count: int = 1,
    seed: int = 1,
    ruleset: Literal["dirt", "gt"] = "dirt",
    kind: Kind | str | None = None,
    tiles: int | None = None,
    races: int = 30,
    jobs: int = 1,
    progress: Progress | None = None,
) -> Generation:
    """Design new stages from the boxes a player owns, valid by construction.

    Parameters
    ----------
    boxes : sequence of str, or Request
        The boxes owned (a box named twice counts twice); or a full
        :class:`~trackkit.generator.request.Request` (every option of ``trackkit
        generate``), when the other parameters are not used.
    count, seed : int
        How many stages; the seed of the one generator every choice draws from.
    ruleset : {"dirt", "gt"}
        Rally stages and hillclimbs, or Rallyman: GT tracks.
    kind : Kind or str, optional
        ``rally`` / ``hillclimb`` (DIRT), ``circuit`` / ``point-to-point`` (GT).
    tiles : int, optional
        Road tiles per stage (default 12).
    races : int
        Races per finalist (0: the structure alone decides).
    jobs : int
        Worker processes for the races (the result is the same for any number).
    progress : callable, optional
        Told ``(phase, done, total)``.

    Returns
    -------
    Generation
        Its ``outcomes``, one per stage, each with the stage (``chosen.candidate.stage``),
        its report and how well it fits what was asked.

    Raises
    ------
    trackkit.generator.request.GenerateError
        For a request the boxes cannot meet, naming the option.

    Examples
    --------
    >>> import trackkit
    >>> run = trackkit.generate(["dirt-core"], tiles=6, races=0, seed=3)
    >>> stage = run.outcomes[0].chosen.candidate.stage
    >>> len(stage.tiles) >= 6, trackkit.validate(stage).valid
    (True, True)
    """
    from trackkit.generator.request import Request
    from trackkit.generator.run import generate as run

    if isinstance(boxes, Request):
        request = boxes
    else:
        check_boxes(boxes)
        event = _kind(kind)
        request = Request(
            boxes=tuple(boxes),
            count=count,
            seed=seed,
            ruleset=ruleset,
            kind=event,  # type: ignore[arg-type]  # None: the series' default
            tiles=tiles,
            races=races,
        )
    return run(request, jobs=jobs, progress=progress)
