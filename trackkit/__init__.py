"""trackkit: design, validate, print and simulate stages for Rallyman: DIRT.

The public API: read a stage, lay it out, build its space graph, validate it.

>>> import trackkit
>>> stage = trackkit.Stage.model_validate({"format": "trackkit-stage/1", "tiles": [
...     {"tile": "202a"}, {"tile": "203a"}]})
>>> trackkit.validate(stage).valid
True
"""

from trackkit.assemble import Layout, PlacedTile, lay_out
from trackkit.errors import InputError, LayoutError, TileLibraryError, TrackkitError
from trackkit.graph import build_graph, has_path_to_finish
from trackkit.library import TileLibrary, default_library
from trackkit.models import Finding, Severity, Stage, StageTile, TileFace, TileToken
from trackkit.validate import Report, validate

__version__ = "0.1.0"

__all__ = [
    "Finding",
    "InputError",
    "Layout",
    "LayoutError",
    "PlacedTile",
    "Report",
    "Severity",
    "Stage",
    "StageTile",
    "TileFace",
    "TileLibrary",
    "TileLibraryError",
    "TileToken",
    "TrackkitError",
    "build_graph",
    "default_library",
    "has_path_to_finish",
    "lay_out",
    "validate",
]
