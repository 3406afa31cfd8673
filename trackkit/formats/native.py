"""Native stage files (``format: trackkit-stage/1``), YAML or JSON.

Examples
--------
>>> from trackkit.formats.source import parse_document
>>> text = "format: trackkit-stage/1\\ntiles: [{tile: 202a}, {tile: 205a, at: [1, 0], dir: 0}]"
>>> stage = read_native(parse_document(text, file="s.yaml"))
>>> print(dump_native(stage, "yaml"), end="")
format: trackkit-stage/1
name: Untitled stage
tiles:
- tile: 202a
- tile: 205a
  at: [1, 0]
  dir: 0
"""

from __future__ import annotations

import json
from typing import Any, Literal

import yaml
from pydantic import ValidationError

from trackkit.errors import InputError
from trackkit.formats.source import Document
from trackkit.formats.tokens import short_place, short_turn
from trackkit.formats.validation_messages import validation_message
from trackkit.models.stage import Stage

__all__ = ["FORMAT_ID", "dump_native", "read_native", "represent_text"]

FORMAT_ID = "trackkit-stage/1"


def read_native(doc: Document) -> Stage:
    """Validate a parsed native stage file."""
    try:
        return Stage.model_validate(doc.data)
    except ValidationError as exc:
        raise InputError(doc.file, validation_message(exc, doc.line_of, Stage)) from None


class _Flow(list[Any]):
    """A list written on one line in YAML (``at: [q, r]``, tokens, boxes)."""


class _Dumper(yaml.SafeDumper):
    """The safe dumper, with short lists in flow style."""


def _represent_flow(dumper: yaml.SafeDumper, data: _Flow) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=True)


_Dumper.add_representer(_Flow, _represent_flow)

#: Characters YAML reads as line breaks: in a plain or single-quoted scalar they come back
#: as a space, so a text holding one is written double-quoted, where they are escaped.
_BREAKS = ("\x85", "\u2028", "\u2029")


def represent_text(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    """A YAML representer of text that reads back the same (register it for ``str``)."""
    if any(ch in data for ch in _BREAKS):
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
    return dumper.represent_str(data)


_Dumper.add_representer(str, represent_text)


def _number(x: float) -> float | int:
    """``x`` as an int when whole (``3.0`` -> ``3``)."""
    return int(x) if x.is_integer() else x


def _plain(stage: Stage) -> dict[str, Any]:
    data: dict[str, Any] = stage.model_dump(mode="json", by_alias=True, exclude_none=True)
    if not data.get("author"):
        data.pop("author", None)
    for tile in data["tiles"]:
        if not tile.get("tokens"):
            tile.pop("tokens", None)
        for token in tile.get("tokens", ()):
            # editor files carry float noise (0.3300000193425449): the shortest numbers
            # that keep the place and turn to the editors' precision
            if "at" in token:
                token["at"] = [_number(x) for x in short_place(tuple(token["at"]))]
            if "dir" in token:
                token["dir"] = _number(short_turn(token["dir"]))
        if tile.get("driven") is True:
            tile.pop("driven")  # the default: only 'driven: false' is written
    return data


def _flowed(data: dict[str, Any]) -> dict[str, Any]:
    if "boxes" in data:
        data["boxes"] = _Flow(data["boxes"])
    for tile in data["tiles"]:
        for key in ("at", "tokens"):
            if key in tile:
                tile[key] = _Flow(tile[key])
    return data


def dump_native(stage: Stage, syntax: Literal["yaml", "json"]) -> str:
    """A native stage file: None and empty fields left out, keys in model order."""
    data = _plain(stage)
    if syntax == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return yaml.dump(
        _flowed(data),
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
