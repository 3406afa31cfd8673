"""The limits of a race, one set for every command: how many players, how many laps.

``validate --players``, ``simulate --players``, ``car suggest --players`` and ``generate
--players`` take :data:`MIN_PLAYERS` to :data:`MAX_PLAYERS` cars; ``simulate --laps``,
``generate --laps`` and a stage file's ``laps`` go up to :data:`MAX_LAPS` (a file's
``laps`` below :data:`MIN_LAPS` is a finding, S131, so that the validator can say where
it is). A GT track's grid must also hold the players (S127): the limit here is what
trackkit races at all, not what every grid holds.

This module imports nothing, so that the command line's options can use it without
loading the models (``--help`` stays fast).

Examples
--------
>>> players_words(), laps_words()
('1 to 8', '1 to 100')
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_PLAYERS",
    "MAX_LAPS",
    "MAX_PLAYERS",
    "MIN_LAPS",
    "MIN_PLAYERS",
    "laps_words",
    "players_words",
]

#: The fewest cars of a race: one car against the clock.
MIN_PLAYERS = 1
#: The most cars of a race, DIRT or GT: eight (a GT grid of 8 slots or more holds them,
#: S127; a DIRT stage is started one car after another, TURN-1).
MAX_PLAYERS = 8
#: Cars of a race when no ``--players`` is given (and the cars a GT grid must hold, S127).
DEFAULT_PLAYERS = 4
#: The fewest laps of a GT circuit's race (S131 below it).
MIN_LAPS = 1
#: The most laps of a GT circuit's race, in a file (``laps``) or an option (``--laps``).
MAX_LAPS = 100


def players_words() -> str:
    """``1 to 8``: the players every command takes."""
    return f"{MIN_PLAYERS} to {MAX_PLAYERS}"


def laps_words() -> str:
    """``1 to 100``: the laps every command and file takes."""
    return f"{MIN_LAPS} to {MAX_LAPS}"
