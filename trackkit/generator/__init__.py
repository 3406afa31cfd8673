"""``trackkit generate``: stages from the boxes a player owns, valid by construction.

The generator sits above the simulator and below rendering and the command line
(DESIGN.md): it lays roads out with :func:`trackkit.stage.assemble.lay_out`, checks them with
:func:`trackkit.checks.pipeline.validate` and races them with :mod:`trackkit.sim`; the command
draws the maps and writes the files.

Modules
-------
request
    What is asked for (:class:`Request`) and the words of the options.
pieces
    What the boxes hold, and the checks that stop an impossible DIRT request.
gt_pieces
    What the GT boxes hold, the checks of a GT request, the pit beside a track.
circuit
    The goal that closes a GT circuit, and why some boxes cannot.
search
    The road built tile by tile, with backtracking.
score
    The difficulty measure and the structural score.
decorate
    Tokens on the road, fillers beside it.
refine
    Races of the best candidates and the simulation score.
series
    What a run does per series (DIRT stages, GT tracks), behind one interface, and
    :func:`~trackkit.generator.series.check_request`, where an impossible request stops.
run
    One run: candidates, finalists, the stages chosen (:func:`generate`).
report
    The report of each stage and the index, as text and JSON.
"""

from trackkit.generator.request import Difficulty, GenerateError, Request
from trackkit.generator.run import Generation, Outcome, generate

__all__ = ["Difficulty", "GenerateError", "Generation", "Outcome", "Request", "generate"]
