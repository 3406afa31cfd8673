"""trackkit: design, validate, print, simulate and generate stages and tracks for the
Rallyman board games: Rallyman: DIRT rally stages (and The Climb's hillclimbs) and
Rallyman: GT circuits.

The scripting API is five functions (:mod:`trackkit.api`): :func:`load` a stage file of any
format, :func:`validate` it (every problem at once, as coded findings), :func:`render_map`
(SVG), :func:`simulate` races with bots (a :class:`SimReport`) and :func:`generate` new
stages from owned boxes; beside them the models (:class:`Stage`, :class:`StageSummary`,
:class:`Finding`) and the one exception tree (:class:`TrackkitError`). Lower layers are
public too (``trackkit.rules`` to script a position and its dice, ``trackkit.sim`` to race
from it). Names are imported on first use, so that ``trackkit --help`` starts fast.

>>> import trackkit
>>> stage = trackkit.Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "203a"}]})
>>> report = trackkit.validate(stage)
>>> report.valid, report.summary.series
(True, 'dirt')
>>> typo = trackkit.Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "999z"}]})
>>> trackkit.validate(typo).codes[0]
'S101'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trackkit.lazy import lazy_exports

__version__ = "0.1.0"

_EXPORTS = {
    "generate": "trackkit.api",
    "load": "trackkit.api",
    "render_map": "trackkit.api",
    "simulate": "trackkit.api",
    "validate": "trackkit.api",
    "Layout": "trackkit.stage.assemble",
    "PlacedTile": "trackkit.stage.assemble",
    "lay_out": "trackkit.stage.assemble",
    "InputError": "trackkit.errors",
    "LayoutError": "trackkit.errors",
    "PositionError": "trackkit.errors",
    "TileLibraryError": "trackkit.errors",
    "TrackkitError": "trackkit.errors",
    "build_graph": "trackkit.stage.graph",
    "has_path_to_finish": "trackkit.stage.graph",
    "TileLibrary": "trackkit.tiles.library",
    "default_library": "trackkit.tiles.library",
    "Finding": "trackkit.models",
    "Severity": "trackkit.models",
    "SimReport": "trackkit.models",
    "Stage": "trackkit.models",
    "StageSummary": "trackkit.models",
    "StageTile": "trackkit.models",
    "TileFace": "trackkit.models",
    "TileToken": "trackkit.models",
    "Report": "trackkit.checks.pipeline",
    "validate_stage": "trackkit.checks.pipeline",
    "load_stage": "trackkit.formats",
}

__all__ = [
    "Finding",
    "InputError",
    "Layout",
    "LayoutError",
    "PlacedTile",
    "PositionError",
    "Report",
    "Severity",
    "SimReport",
    "Stage",
    "StageSummary",
    "StageTile",
    "TileFace",
    "TileLibrary",
    "TileLibraryError",
    "TileToken",
    "TrackkitError",
    "build_graph",
    "default_library",
    "generate",
    "has_path_to_finish",
    "lay_out",
    "load",
    "load_stage",
    "render_map",
    "simulate",
    "validate",
    "validate_stage",
]

if TYPE_CHECKING:
    from trackkit.api import generate, load, render_map, simulate, validate
    from trackkit.checks.pipeline import Report, validate_stage
    from trackkit.errors import (
        InputError,
        LayoutError,
        PositionError,
        TileLibraryError,
        TrackkitError,
    )
    from trackkit.formats import load_stage
    from trackkit.models import (
        Finding,
        Severity,
        SimReport,
        Stage,
        StageSummary,
        StageTile,
        TileFace,
        TileToken,
    )
    from trackkit.stage.assemble import Layout, PlacedTile, lay_out
    from trackkit.stage.graph import build_graph, has_path_to_finish
    from trackkit.tiles.library import TileLibrary, default_library


__getattr__ = lazy_exports("trackkit", _EXPORTS)
