"""Ctrl-C: one exception, and a flag for the places a native library swallows it.

The command line turns SIGINT into :class:`Interrupted` (exit status 130, no traceback).
Python code sees the exception at once; but when the signal lands inside a C library's
callback into Python (CairoSVG writing a PNG or PDF through cffi), the exception is lost
there and the library fails with an error of its own, or carries on. So such calls run
inside :func:`deferred`: there :func:`request` only sets a flag, and :func:`check` raises
the interruption once the call is back — after each conversion, and before any output
file is replaced.

Examples
--------
>>> check()  # nothing asked for
>>> try:
...     request()
... except Interrupted:
...     print("stopped")
stopped
>>> reset()
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Interrupted", "check", "deferred", "request", "requested", "reset"]


class Interrupted(BaseException):
    """The user pressed Ctrl-C. A BaseException of its own, so that nothing on the way
    turns it into a message of its own or a traceback; outputs are written atomically, so
    an interrupted run leaves the old file in place."""


_requested = False
_deferred = 0


def request() -> None:
    """Ask the run to stop (the SIGINT handler): raise :class:`Interrupted` now, or, inside
    :func:`deferred`, when the native call is back."""
    global _requested
    _requested = True
    if not _deferred:
        raise Interrupted


@contextmanager
def deferred() -> Iterator[None]:
    """Run a native call (that calls back into Python) without raising in its middle;
    an interruption asked for meanwhile is raised when the block ends."""
    global _deferred
    _deferred += 1
    try:
        yield
    finally:
        _deferred -= 1
    check()


def requested() -> bool:
    """Whether Ctrl-C was pressed during this run."""
    return _requested


def check() -> None:
    """Raise :class:`Interrupted` if Ctrl-C was pressed, even where it was swallowed."""
    if _requested:
        raise Interrupted


def reset() -> None:
    """Forget an earlier Ctrl-C (a new run in the same process: tests, the REPL)."""
    global _requested
    _requested = False
