"""What a designer asks ``trackkit generate`` for, and the words of the options.

A :class:`Request` is plain data: the boxes owned, the size of the stage (tiles or road
length), its kind, the surface mix, the difficulty, the par time, the tokens and fillers,
and how hard to search. :func:`trackkit.generator.pieces.palette` checks it against what
the boxes hold; every impossible request is a :class:`GenerateError` that names the
option and says what would work.

Examples
--------
>>> parse_surface_mix("gravel=0.7, asphalt=0.3")
(('asphalt', 0.3), ('gravel', 0.7))
>>> parse_tokens("oxygen=2,cloud")
(('cloud', 1), ('oxygen', 2))
>>> parse_surface_mix("gravel=70%")
Traceback (most recent call last):
...
trackkit.generator.request.GenerateError: --surface: 'gravel=70%': a share is a number \
from 0 to 1, e.g. gravel=0.7
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from trackkit.errors import TrackkitError
from trackkit.models.stage import Kind

__all__ = [
    "SURFACES",
    "TOKEN_KINDS",
    "Difficulty",
    "GenerateError",
    "Request",
    "parse_surface_mix",
    "parse_tokens",
]

#: The surfaces a mix may name (BOARD-4).
SURFACES = ("gravel", "asphalt", "snow")
#: The tokens ``--tokens`` places: The Climb's climb, oxygen and cloud tokens.
TOKEN_KINDS = ("climb", "oxygen", "cloud")


class GenerateError(TrackkitError):
    """A request that cannot be met: the message names the option and what would work.

    Parameters
    ----------
    option : str
        The command-line option at fault, e.g. ``--tiles``.
    message : str
        Why, and what would work instead.
    """

    def __init__(self, option: str, message: str) -> None:
        self.option = option
        self.message = message
        super().__init__(f"{option}: {message}")


class Difficulty(StrEnum):
    """How hard a stage should be to drive (:mod:`trackkit.generator.score`)."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


@dataclass(frozen=True, slots=True)
class Request:
    """What to generate. Sizes left out: 12 tiles (or as many as ``par`` asks for).

    Attributes
    ----------
    boxes : tuple of str
        Boxes owned; a box named twice counts twice.
    tiles : int, optional
        Road tiles, start and finish included.
    length_mm : float, optional
        Length of road from the start line to the finish line, in mm (instead of tiles).
    kind : Kind
        Rally or hillclimb (DIRT), circuit or point-to-point (GT); left out, a rally or a
        circuit.
    surfaces : tuple of (surface, share)
        Wanted share of the road tiles per surface; surfaces not named share the rest.
    difficulty : Difficulty
        The difficulty band aimed at.
    par : float, optional
        Wanted stage time of a careful driver (the cautious bot's median), in seconds.
    count : int
        Stages to write.
    seed : int
        The seed of the one random generator every choice draws from.
    tokens : tuple of (token, count)
        Climb (-1, ascent), oxygen and cloud tokens to put on the road tiles.
    fillers : int
        Scenery tiles (fillers) to put beside the road.
    ruleset : str
        ``dirt`` (rallies and hillclimbs) or ``gt`` (Rallyman: GT circuits, closed on their
        start/finish tile, and point-to-point tracks; :mod:`trackkit.generator.circuit`).
        DIRT options (surfaces, tokens, fillers, par) are refused with ``gt``, GT ones
        (laps, players, pit, crossings) with ``dirt``.
    laps : int, optional
        GT circuits: the laps of the race (the stage file's ``laps``; default 3).
    players : int, optional
        GT: the cars the grid of the start/finish tile must hold (default 4, S127).
    pit : bool
        GT: lay the pit tile 101 beside the road (GT-2).
    crossings : int
        GT circuits: tiles the track drives twice (a crossing such as 141b, a bridge, or
        parallel roads): 0, 1 or 2.
    candidates : int
        Roads built and scored by structure for each stage.
    finalists : int
        Of those, how many are raced before one is chosen.
    races : int
        Races per finalist (0: no simulation; the structure alone decides).
    tries : int
        Searches per stage at most: a stage that misses what was asked for
        (:mod:`trackkit.generator.fit`) is searched again, ``candidates`` new roads and
        their finalists raced, until it fits or it has had ``tries`` searches.
    """

    boxes: tuple[str, ...]
    tiles: int | None = None
    length_mm: float | None = None
    kind: Kind = None  # type: ignore[assignment]  # settled in __post_init__
    surfaces: tuple[tuple[str, float], ...] = ()
    difficulty: Difficulty = Difficulty.MEDIUM
    par: float | None = None
    count: int = 1
    seed: int = 1
    tokens: tuple[tuple[str, int], ...] = ()
    fillers: int = 0
    ruleset: str = "dirt"
    candidates: int = 24
    finalists: int = 3
    races: int = 30
    laps: int | None = None
    players: int | None = None
    pit: bool = False
    crossings: int = 0
    tries: int = 1

    def __post_init__(self) -> None:
        if self.kind is None:
            # left out: a rally for DIRT, a circuit for GT
            default = Kind.CIRCUIT if self.ruleset == "gt" else Kind.RALLY
            object.__setattr__(self, "kind", default)

    def token_count(self, kind: str) -> int:
        """How many tokens of ``kind`` are asked for."""
        return sum(n for k, n in self.tokens if k == kind)


def _pairs(text: str, option: str, example: str) -> list[tuple[str, str | None]]:
    """``a=1, b`` as [('a', '1'), ('b', None)], each name once."""
    out: list[tuple[str, str | None]] = []
    for part in text.split(","):
        item = part.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name = name.strip().lower()
        if any(name == seen for seen, _ in out):
            raise GenerateError(option, f"{name!r} is named twice (e.g. {example})")
        out.append((name, value.strip() if sep else None))
    if not out:
        raise GenerateError(option, f"give at least one entry, e.g. {example}")
    return out


def parse_surface_mix(text: str) -> tuple[tuple[str, float], ...]:
    """The shares of ``--surface gravel=0.7,asphalt=0.3``, sorted by surface.

    Raises
    ------
    GenerateError
        An unknown surface, a share that is not a number from 0 to 1, shares that add up
        to more than 1, or all three surfaces named with shares that add up to less.
    """
    option, example = "--surface", "gravel=0.7"
    shares: dict[str, float] = {}
    for name, value in _pairs(text, option, "gravel=0.7,asphalt=0.3"):
        if name not in SURFACES:
            raise GenerateError(
                option, f"unknown surface {name!r}: the surfaces are {', '.join(SURFACES)}"
            )
        try:
            share = float(value) if value is not None else float("nan")
        except ValueError:
            share = float("nan")
        if not 0.0 <= share <= 1.0:  # NaN fails both
            raise GenerateError(
                option,
                f"'{name}={value or ''}': a share is a number from 0 to 1, e.g. {example}",
            )
        shares[name] = share
    total = sum(shares.values())
    if total > 1.0 + 1e-9:
        raise GenerateError(
            option, f"the shares add up to {total:g}, more than 1: e.g. gravel=0.7,asphalt=0.3"
        )
    if len(shares) == len(SURFACES) and total < 1.0 - 1e-9:
        raise GenerateError(
            option,
            f"the shares of all three surfaces add up to {total:g}, not 1: leave one out to "
            "give it the rest",
        )
    return tuple(sorted(shares.items()))


def parse_tokens(text: str) -> tuple[tuple[str, int], ...]:
    """The counts of ``--tokens oxygen=2,cloud,climb=1`` (a name alone is one), sorted.

    Raises
    ------
    GenerateError
        An unknown token or a count that is not a whole number from 1 to 20.
    """
    option = "--tokens"
    out: dict[str, int] = {}
    for name, value in _pairs(text, option, "oxygen=2,cloud"):
        if name not in TOKEN_KINDS:
            raise GenerateError(
                option,
                f"unknown token {name!r}: generate places The Climb's "
                f"{', '.join(TOKEN_KINDS)} tokens",
            )
        try:
            count = int(value) if value is not None else 1
        except ValueError:
            count = 0
        if not 1 <= count <= 20:
            raise GenerateError(
                option, f"'{name}={value}': a count is a whole number from 1 to 20, e.g. oxygen=2"
            )
        out[name] = count
    return tuple(sorted(out.items()))
