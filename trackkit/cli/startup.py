"""The ``trackkit`` process's start-up settings: no cyclic garbage collector while the
imports run and seldom a full collection after, and no pydantic plugins (issue 22).

Its own module, apart from :mod:`trackkit.cli.entry` (which imports the whole command
line) so that the commands can use :func:`loading` without an import cycle.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["THRESHOLDS", "begin", "loading"]

#: The collector's thresholds in the ``trackkit`` process (CPython's are 700, 10, 10).
#: Races and the generator keep tables of moves and plans per track, a million objects in
#: a ``generate`` run: with CPython's thresholds the collector walks them all a dozen times
#: (measured: an eighth of a GT ``generate``'s CPU, 2.4 s of 19; these, 0.3 s), and
#: finds next to nothing, since that garbage is freed as it is dropped. A worker process
#: of the local pool is forked from this one and keeps them.
THRESHOLDS = (10_000, 10, 10)

#: Whether this process is the ``trackkit`` command (:func:`begin` was called), not a
#: test's or a script's process that calls the command line.
_command_process = False


def begin() -> None:
    """Mark this process as the ``trackkit`` command (:func:`trackkit.cli.entry.main`),
    set its collector's :data:`THRESHOLDS` and turn pydantic's plugins off (a library
    leaves the process's settings to it)."""
    global _command_process
    _command_process = True
    gc.set_threshold(*THRESHOLDS)
    # pydantic looks for plugins (a scan of every installed package's entry points) when it
    # builds its first validator: a fiftieth of a plain ``validate``'s CPU, and trackkit
    # uses none. pydantic's documented switch; a user's own setting is kept.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


@contextmanager
def loading() -> Iterator[None]:
    """Imports with the cyclic garbage collector off, and what they made frozen after.

    Modules, classes and pydantic's schemas live as long as the process, yet the collector
    walks them again and again while they are made: a sixth of a plain ``validate``'s CPU.
    Frozen (``gc.freeze``), later collections pass them by. Only the ``trackkit`` process
    does this; in another process the imports run as usual (frozen, its own objects could
    never be collected).
    """
    if not _command_process:
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
