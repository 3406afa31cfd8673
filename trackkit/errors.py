"""One exception tree. Every error says what went wrong and where.

Validation never raises for problems in a stage (it returns findings); these exceptions
are for input trackkit cannot use at all (exit status 2 at the command line).
"""

from __future__ import annotations


class TrackkitError(Exception):
    """Base of every trackkit error."""


class InputError(TrackkitError, ValueError):
    """Unusable input: missing, unreadable, not YAML/JSON, wrong types, unknown format.

    Parameters
    ----------
    file : str
        The file (or ``<stdin>``) the input came from.
    message : str
        What is wrong, with the place inside the file when known.
    """

    def __init__(self, file: str, message: str) -> None:
        self.file = file
        self.message = message
        super().__init__(f"{file}: {message}")


class TileLibraryError(TrackkitError):
    """The tile library itself is broken (a packaging or user-tile problem)."""


class LayoutError(TrackkitError, ValueError):
    """A stage cannot be laid out at all (used by callers that want an exception)."""


class PositionError(TrackkitError, ValueError):
    """A position the rules do not allow: a race start or a planning position.

    The message names the car and, where one is to blame, the space, and says what the
    rules allow instead.

    Parameters
    ----------
    message : str
        What is wrong, naming the car (``driver 2 (Bob)``) and the space.
    car : str, optional
        The car to blame, as the message names it.
    space : str, optional
        The space to blame (None: no space is, e.g. a negative round).
    """

    def __init__(self, message: str, *, car: str | None = None, space: str | None = None) -> None:
        self.car = car
        self.space = space
        super().__init__(message)
