"""Build rules positions quickly, for tests, doctests, perft files and benchmarks.

The same functions as :mod:`trackkit.rules.positions` (the public home of
:func:`position` and :func:`track_of`), kept here for the code that imports them from here.
"""

from __future__ import annotations

from trackkit.rules.positions import position, track_of

__all__ = ["position", "track_of"]
