"""The ``trackkit`` console command and ``python -m trackkit``, before anything is imported.

Loading the command line takes a good part of a second (typer, pydantic, networkx...). A
Ctrl-C in that time would show a ``KeyboardInterrupt`` traceback from deep inside an import,
so the very first thing is a SIGINT handler that stops at once: nothing has been read or
written yet. :func:`trackkit.cli.app.main` then installs its own.

The imports run with the cyclic garbage collector off (:func:`trackkit.cli.startup.loading`).
"""

from __future__ import annotations

import os
import signal
import sys

from trackkit.cli import startup

__all__ = ["main"]


def _stop_while_loading(signum: int, frame: object) -> None:
    try:
        sys.stderr.write("trackkit: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(130)  # imports have no side effects to undo


def main() -> None:
    """Run the command line (exit 0, 1, 2, or 130 on Ctrl-C; never a traceback)."""
    signal.signal(signal.SIGINT, _stop_while_loading)
    startup.begin()
    with startup.loading():
        from trackkit.cli.app import main as cli_main

    cli_main()
