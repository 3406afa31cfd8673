"""The ``trackkit`` console command and ``python -m trackkit``, before anything is imported.

Loading the command line takes a good part of a second (typer, pydantic, networkx...). A
Ctrl-C in that time would show a ``KeyboardInterrupt`` traceback from deep inside an import,
so the very first thing is a SIGINT handler that stops at once: nothing has been read or
written yet. :func:`trackkit.cli.app.main` then installs its own.

The imports run with the cyclic garbage collector off (:func:`loading`).
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["loading", "main"]

#: Whether this process is the ``trackkit`` command (:func:`main` ran), not a test's or a
#: script's process that calls the command line.
_command_process = False


@contextmanager
def loading() -> Iterator[None]:
    """Imports with the cyclic garbage collector off, and what they made frozen after.

    Modules, classes and pydantic's schemas live as long as the process, yet the collector
    walks them again and again while they are made: a sixth of a plain ``validate``'s CPU
    (issue 22). Frozen (``gc.freeze``), later collections pass them by. Only the
    ``trackkit`` process does this; in another process the imports run as usual (frozen,
    its own objects could never be collected).
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


def _stop_while_loading(signum: int, frame: object) -> None:
    try:
        sys.stderr.write("trackkit: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(130)  # imports have no side effects to undo


def main() -> None:
    """Run the command line (exit 0, 1, 2, or 130 on Ctrl-C; never a traceback)."""
    global _command_process
    signal.signal(signal.SIGINT, _stop_while_loading)
    _command_process = True
    with loading():
        from trackkit.cli.app import main as cli_main

    cli_main()
