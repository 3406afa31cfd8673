"""Car files: read them, check their dashboards, and turn them into :class:`Dashboard` s.

A car file (``format: trackkit-car/1``, :class:`~trackkit.models.car.CarFile`) is read
through the project's one input reader (:mod:`trackkit.formats.reading`: size limit,
regular files) and parser (:mod:`trackkit.formats.source`: YAML line numbers). What the file
model cannot say alone -- track-type tokens filling the top row from the right, one gear
token per value, room in each region, a gear die on every surface (DASH-3, DASH-4) -- is
checked here, and every problem names the file, the space and the line.

Examples
--------
>>> text = '''format: trackkit-car/1
... name: Gravel climber
... unlimited:
...   top: [sisu, asphalt, gravel]
...   right: [boost, coast]
...   left: [gear-1, gear-2, gear-3, gear-4, gear-5, brake, coast]
... '''
>>> car = parse_car(text, file="climber.yaml")
>>> board = unlimited_board(car)
>>> board.surfaces, board.top, board.column("asphalt").coast, board.danger_limit()
(('asphalt', 'gravel'), ('sisu',), 1, 6)
>>> parse_car(text.replace("[sisu, asphalt, gravel]", "[asphalt, sisu, gravel]"),
...           file="climber.yaml")
Traceback (most recent call last):
...
trackkit.errors.InputError: climber.yaml: unlimited.top[0] (top row, left space), line 4: \
track-type token 'asphalt' is out of place: the tokens fill the top row from the right, \
the best surface in the right space and the next just left of it (DASH-3)
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from trackkit.errors import InputError, TrackkitError
from trackkit.formats.native import represent_text
from trackkit.formats.reading import decode_bytes, read_bytes
from trackkit.formats.source import Document, parse_document
from trackkit.formats.validation_messages import format_loc, validation_message
from trackkit.models.car import CAR_FORMAT, REGION_SIZES, TRACK_TYPES, CarFile, UnlimitedLayout
from trackkit.rules.dashboard import (
    Dashboard,
    DashProblem,
    UnlimitedDashboard,
    surface_mismatch,
    unlimited_problems,
)

__all__ = [
    "CarMismatch",
    "car_dashboard",
    "car_file",
    "car_problems",
    "dump_car",
    "load_car",
    "parse_car",
    "stage_problems",
    "unlimited_board",
]

Loc = tuple[str | int, ...]


class CarMismatch(TrackkitError):
    """A car file that does not fit a stage (an Unlimited board for other surfaces).

    ``car`` is the car file's model, so that a caller that read it can name its file.
    """

    def __init__(self, car: CarFile, message: str) -> None:
        super().__init__(message)
        self.car = car
        self.message = message


def unlimited_board(car: CarFile | UnlimitedLayout) -> UnlimitedDashboard:
    """The rules' board of a car file's Unlimited dashboard (empty spaces left out)."""
    layout = car.unlimited if isinstance(car, CarFile) else car
    if layout is None:
        raise ValueError(f"car '{car.name}' has a fixed dashboard, not an Unlimited one")  # type: ignore[union-attr]
    surfaces = tuple(str(s) for s in layout.top if s in TRACK_TYPES)
    return UnlimitedDashboard(
        surfaces,
        top=tuple(str(s) for s in layout.top if s is not None and s not in TRACK_TYPES),
        right=tuple(str(s) for s in layout.right if s is not None),
        middle=tuple(str(s) for s in layout.middle if s is not None),
        left=tuple(str(s) for s in layout.left if s is not None),
    )


def car_dashboard(car: CarFile) -> Dashboard:
    """The :class:`Dashboard` a car file describes (named after the car)."""
    if car.fixed is not None:
        f = car.fixed
        return Dashboard(car.name, {"gravel": f.gravel, "asphalt": f.asphalt, "snow": f.snow})
    return unlimited_board(car).as_dashboard(car.name)


def car_file(board: UnlimitedDashboard, name: str, description: str | None = None) -> CarFile:
    """A car file of an Unlimited board (to write with :func:`dump_car`)."""
    return CarFile.model_validate(
        {
            "format": CAR_FORMAT,
            "name": name,
            "description": description,
            "unlimited": board.layout(),
        }
    )


class _Dumper(yaml.SafeDumper):
    """The safe dumper, writing a text that holds a line break YAML reads as one quoted."""


_Dumper.add_representer(str, represent_text)


def dump_car(car: CarFile) -> str:
    """A car file as YAML text (each region on one line); it reads back the same."""
    data: dict[str, Any] = car.model_dump(mode="json", exclude_none=True)
    text = yaml.dump(
        {k: v for k, v in data.items() if k not in ("fixed", "unlimited")},
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
    )
    if car.unlimited is not None:
        text += "unlimited:\n"
        for region, spaces in data["unlimited"].items():
            items = ", ".join("null" if s is None else s for s in spaces)
            text += f"  {region}: [{items}]\n"
    else:
        text += "fixed:\n"
        for surface, col in data["fixed"].items():
            body = ", ".join(f"{k}: {v}" for k, v in col.items()).replace("'", "")
            text += f"  {surface}: {{{body}}}\n"
    return text


def _space_words(loc: Loc) -> str:
    """``('unlimited', 'top', 0)`` -> ``top row, left space``."""
    if len(loc) < 2 or loc[0] != "unlimited":
        return ""
    region = str(loc[1])
    if region == "top":
        if len(loc) == 3 and isinstance(loc[2], int) and 0 <= loc[2] < 3:
            return f"top row, {('left', 'middle', 'right')[loc[2]]} space"
        return "top row"
    what = {"right": "right column", "middle": "middle column", "left": "left region"}[region]
    if len(loc) == 3 and isinstance(loc[2], int):
        return f"{what}, space {loc[2] + 1} of {REGION_SIZES[region]}"
    return what


def _file_index(spaces: list[Any], n: int, *, skip_surfaces: bool = False) -> int | None:
    """The list index of the ``n``-th token of a region (empty spaces not counted)."""
    seen = -1
    for i, s in enumerate(spaces):
        if s is None or (skip_surfaces and s in TRACK_TYPES):
            continue
        seen += 1
        if seen == n:
            return i
    return None


def _loc_of(layout: UnlimitedLayout, problem: DashProblem) -> Loc:
    """Where a board problem is in the car file."""
    if problem.region is None:
        return ("unlimited",)
    if problem.region == "surfaces":
        if problem.at is None:
            return ("unlimited", "top")
        at = [i for i, s in enumerate(layout.top) if s in TRACK_TYPES]
        return ("unlimited", "top", at[problem.at])
    spaces: list[Any] = getattr(layout, problem.region)
    if problem.at is None:
        return ("unlimited", problem.region)
    index = _file_index(spaces, problem.at, skip_surfaces=problem.region == "top")
    if index is None:  # past the tokens (a region over its room): name the first extra space
        index = len(spaces) - 1
    return ("unlimited", problem.region, index)


def car_problems(
    car: CarFile, stage_surfaces: Iterable[str] | None = None
) -> list[tuple[Loc, str]]:
    """Why a car file's dashboard is impossible (or unfit for a stage): place and words.

    Places are key paths in the file (``('unlimited', 'top', 0)``). With
    ``stage_surfaces``, an Unlimited board must have one track-type token per surface of
    the stage (DASH-3); a fixed dashboard fits every stage.
    """
    layout = car.unlimited
    if layout is None:
        return []
    out: list[tuple[Loc, str]] = []
    tokens = [s in TRACK_TYPES for s in layout.top]
    k = sum(tokens)
    for i, is_surface in enumerate(tokens):
        if is_surface and i < len(tokens) - k:  # rule: DASH-3 (tokens fill from the right)
            out.append(
                (
                    ("unlimited", "top", i),
                    f"track-type token '{layout.top[i]}' is out of place: the tokens fill the "
                    "top row from the right, the best surface in the right space and the "
                    "next just left of it (DASH-3)",
                )
            )
    board = unlimited_board(layout)
    for problem in unlimited_problems(board, stage_surfaces):
        if problem.region == "top" and problem.at is not None:
            continue  # the top row has room by construction: out of place is said above
        out.append((_loc_of(layout, problem), problem.message))
    return out


def _located(problems: list[tuple[Loc, str]], doc: Document | None) -> str:
    lines = []
    for loc, message in problems:
        words = _space_words(loc)
        line = doc.line_of(loc) if doc is not None else None
        where = format_loc(loc) + (f" ({words})" if words else "")
        lines.append(f"{where}" + (f", line {line}" if line else "") + f": {message}")
    if len(lines) == 1:
        return lines[0]
    return f"{len(lines)} problems:\n  " + "\n  ".join(lines)


def _read(doc: Document) -> CarFile:
    data = doc.data
    if data.get("format") != CAR_FORMAT:
        got = data.get("format")
        raise InputError(
            doc.file,
            f"not a car file (format {got!r}; expected {CAR_FORMAT})"
            if got is not None
            else f"not a car file: it needs 'format: {CAR_FORMAT}'",
        )
    try:
        car = CarFile.model_validate(data)
    except ValidationError as exc:
        raise InputError(doc.file, validation_message(exc, doc.line_of, CarFile)) from None
    problems = car_problems(car)
    if problems:
        raise InputError(doc.file, _located(problems, doc))
    return car


def parse_car(text: str, *, file: str = "<string>") -> CarFile:
    """A car from the text of a car file (YAML or JSON).

    Raises
    ------
    InputError
        Not YAML/JSON, not a car file, wrong types, unknown keys, or an impossible
        dashboard: the message names ``file``, the key path or space, and the line.
    """
    return _read(parse_document(text, file=file))


def load_car(path: str | Path) -> CarFile:
    """A car from a car file.

    Raises
    ------
    InputError
        Missing, unreadable, too large, binary, or anything :func:`parse_car` refuses.
    """
    file, raw = read_bytes(path)
    return parse_car(decode_bytes(raw, file=file), file=file)


def stage_problems(car: CarFile, stage_surfaces: Iterable[str]) -> str | None:
    """Why a car does not fit a stage with these surfaces, with the place (None: it fits).

    A fixed dashboard fits every stage; an Unlimited one needs a track-type token for each
    surface of the stage, and none for others (DASH-3).
    """
    if car.unlimited is None:
        return None
    mismatch = surface_mismatch(unlimited_board(car), stage_surfaces)
    if mismatch is None:
        return None
    return _located([(("unlimited", "top"), mismatch)], None)
