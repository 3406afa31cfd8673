"""The optional compiled build (issue 22): the race loop's modules compiled by mypyc.

``pip install .`` (and every editable install) builds the pure-Python package, as
``pyproject.toml`` declares it. With ``TRACKKIT_COMPILE=1`` set, a wheel or a regular install
compiles :data:`COMPILED` to C extension modules with mypyc (a C compiler and the Python
headers are then needed; ``build_backend/trackkit_build.py`` adds mypy and the libraries it
reads to the build's requirements). The compiled build plays the same races, byte for byte,
in fewer CPU seconds (``make bench`` measures both side by side).
"""

from __future__ import annotations

from typing import cast

from setuptools import Extension, setup

# the build backend (pyproject.toml's backend-path) owns the switch and the build folder
from trackkit_build import BUILD_DIR, compiling

#: What mypyc compiles: the race loop, its bots and the rules of a turn. ``sim/loop.py``'s
#: ``RaceLoop`` is subclassed by ``rally.py`` and ``gt_race.py`` (compiled together or not at
#: all); ``rules/track.py`` stays interpreted (a ``Track`` is pickled to worker processes).
COMPILED = [
    "trackkit/rules/steps.py",
    "trackkit/rules/resolve.py",
    "trackkit/rules/plans.py",
    "trackkit/rules/risk.py",
    "trackkit/rules/order.py",
    "trackkit/rules/reorder.py",
    "trackkit/sim/bots.py",
    "trackkit/sim/roads.py",
    "trackkit/sim/memo.py",
    "trackkit/sim/loop.py",
    "trackkit/sim/rally.py",
    "trackkit/sim/gt_race.py",
]


def ext_modules() -> list[Extension]:
    """mypyc's extension modules when compiling, else none (the pure package)."""
    if not compiling():
        return []
    from mypyc.build import mypycify

    # group_name: the modules share one library, trackkit__mypyc (not a hash's name)
    built = mypycify(COMPILED, opt_level="3", group_name="trackkit", target_dir=f"{BUILD_DIR}/c")
    return cast("list[Extension]", built)  # setuptools' Extension, as setuptools is imported


# compiled, setuptools builds in BUILD_DIR (its lib.*, temp.* and bdist.* folders), apart
# from the pure build's build/lib
setup(
    ext_modules=ext_modules(),
    options={"build": {"build_base": BUILD_DIR}} if compiling() else {},
)
