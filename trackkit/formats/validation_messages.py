"""Pydantic validation errors as messages: one line per problem, with its key path and line.

:func:`validation_message` is what every format reader shows for a file whose data does not
fit its model; :func:`format_loc` writes a key path the way messages name places
(``tiles[3].turn``).
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

__all__ = ["MAX_ERRORS_SHOWN", "Loc", "format_loc", "validation_message"]

#: At most this many validation problems are listed in one message.
MAX_ERRORS_SHOWN = 20

#: A key path into parsed data: mapping keys and list indexes (``("tiles", 3, "turn")``).
Loc = tuple[int | str, ...]


def format_loc(loc: Loc) -> str:
    """``('tiles', 3, 'turn')`` -> ``tiles[3].turn``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _models_in(annotation: object) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    origin = typing.get_origin(annotation)
    if origin is not None or isinstance(annotation, types.UnionType):
        for arg in typing.get_args(annotation):
            yield from _models_in(arg)


def _model_at(root: type[BaseModel] | None, loc: Loc) -> type[BaseModel] | None:
    """The model that validates the mapping at ``loc`` (for listing its keys)."""
    model = root
    for part in loc:
        if model is None:
            return None
        if isinstance(part, int):
            continue
        info = next((f for n, f in model.model_fields.items() if part in (n, f.alias)), None)
        if info is None:
            return None
        model = next(_models_in(info.annotation), None)
    return model


def _keys_of(model: type[BaseModel]) -> list[str]:
    return [f.alias or n for n, f in model.model_fields.items()]


def _short(value: object) -> str | None:
    if not isinstance(value, str | int | float | bool) and value is not None:
        return None
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _one_error(err: Any, where: Callable[[Loc], int | None], model: type[BaseModel] | None) -> str:
    loc: Loc = tuple(err["loc"])
    kind = err["type"]
    line = where(loc)
    at = f" (line {line})" if line else ""
    if kind == "extra_forbidden" and loc:
        parent, key = format_loc(loc[:-1]), loc[-1]
        text = f"unknown key {str(key)!r}"
        owner = _model_at(model, loc[:-1])
        if owner is not None:
            keys = _keys_of(owner)
            close = difflib.get_close_matches(str(key), keys, n=1)
            text += f": did you mean {close[0]!r}?" if close else f" (keys: {', '.join(keys)})"
        return f"{parent}: {text}{at}" if parent else f"{text}{at}"
    if kind == "missing" and loc:
        parent = format_loc(loc[:-1])
        text = f"missing key {str(loc[-1])!r}"
        return f"{parent}: {text}{at}" if parent else f"{text}{at}"
    ctx = err.get("ctx") or {}
    if kind == "too_long" and "actual_length" in ctx:
        what = "tiles" if loc and str(loc[-1]).lower() in ("tiles", "tuiles") else "items"
        text = f"too many {what}: {ctx['actual_length']}, at most {ctx['max_length']} allowed"
        return f"{format_loc(loc)}: {text}{at}" if loc else f"{text}{at}"
    msg = str(err["msg"]).removeprefix("Value error, ")
    got = _short(err.get("input")) if kind not in ("value_error", "too_long") else None
    if got is not None:
        msg += f", got {got}"
    path = format_loc(loc)
    return f"{path}: {msg}{at}" if path else f"{msg}{at}"


def validation_message(
    exc: ValidationError,
    where: Callable[[Loc], int | None] = lambda loc: None,
    model: type[BaseModel] | None = None,
) -> str:
    """One line per pydantic error: key path, what is wrong, and the line when known."""
    errors = exc.errors()
    lines = [_one_error(e, where, model) for e in errors[:MAX_ERRORS_SHOWN]]
    if len(errors) > MAX_ERRORS_SHOWN:
        lines.append(f"... and {len(errors) - MAX_ERRORS_SHOWN} more problems")
    if len(errors) == 1:
        return lines[0]
    return f"{len(errors)} problems:\n  " + "\n  ".join(lines)
