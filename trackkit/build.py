"""Which build of trackkit runs: the pure-Python package, or the opt-in compiled build.

``setup.py`` compiles the race loop's modules with mypyc when ``TRACKKIT_COMPILE=1`` is set;
``trackkit --version`` says which build it is. The module's form tells, without importing
it: an extension module, or a ``.py`` file.

Examples
--------
>>> from trackkit.build import build_name
>>> build_name() in ("pure", "compiled")
True
"""

from __future__ import annotations

import importlib.util

#: A module that ``setup.py`` compiles (with the rest of the race loop).
PROBE = "trackkit.sim.loop"


def compiled() -> bool:
    """Whether the race loop runs compiled (its modules are extension modules)."""
    spec = importlib.util.find_spec(PROBE)
    return spec is not None and spec.origin is not None and not spec.origin.endswith(".py")


def build_name() -> str:
    """``compiled`` or ``pure``, as ``trackkit --version`` writes it."""
    return "compiled" if compiled() else "pure"
