"""Write a changed stage back into the file it was read from, in the file's own format.

A native YAML file keeps what the user wrote around the change: comments, key order,
quotes, indentation and the flow lists (``at: [q, r]``). It is edited as a round-trip
document with `ruamel.yaml <https://yaml.dev/doc/ruamel.yaml/>`_ (PyYAML, which reads
stages everywhere else, drops comments): only the keys and tile items that changed are
written, so a tile that did not change keeps its text, and a new tile comes in where it
goes in the list. A native JSON file keeps its key order and indentation. An editor file
(Rekee, ``.rgt``) is written whole from the laid-out stage
(:func:`trackkit.formats.write.dump_stage`):
those formats hold positions, not the file's own layout.

Examples
--------
>>> from trackkit.checks.fixes import set_values
>>> from trackkit.formats import parse_source
>>> source = parse_source('''# my stage
... format: trackkit-stage/1
... tiles:
...   - tile: 202a     # start
...   - tile: 205a
...     at: [1, 0]
...     dir: 1         # turned by hand
...   - tile: 203a
... ''', file="s.yaml")
>>> print(rewrite_text(source, set_values(source.stage, "tiles[1]", {"dir": 0})), end="")
# my stage
format: trackkit-stage/1
tiles:
  - tile: 202a     # start
  - tile: 205a
    at: [1, 0]
    dir: 0         # turned by hand
  - tile: 203a
"""

from __future__ import annotations

import difflib
import io
import json
import re
from collections.abc import MutableMapping, MutableSequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from trackkit.checks.fixes import FixOutcome, fix_stage
from trackkit.formats.files import write_text_atomic
from trackkit.formats.source import StageSource
from trackkit.models.stage import Kind, Stage, StageTile, TileToken
from trackkit.tiles.library import TileLibrary

__all__ = ["FileFix", "editor_losses", "fix_file", "rewrite_text"]

#: Keys whose lists a native YAML file writes on one line (as ``dump_native`` does).
_FLOW_KEYS = frozenset({"at", "boxes", "tokens"})


def rewrite_text(source: StageSource, stage: Stage, *, library: TileLibrary | None = None) -> str:
    """The text of ``source``'s file, changed to hold ``stage``, in the file's own format.

    ``stage`` is ``source.stage`` as changed (by the studio, or ``validate --fix``): keys
    it does not hold (``model_fields_set``) are left out of the file, keys and tiles that
    did not change keep the file's text.
    """
    if source.format != "native":
        from trackkit.formats.write import dump_stage

        return dump_stage(stage, source.format, library=library)
    new = stage.model_dump(mode="json", exclude_unset=True, by_alias=True)
    old_tiles = list(source.stage.tiles)
    text = source.document.text
    if source.document.syntax == "json":
        data = json.loads(text)
        _merge_map(data, new, old_tiles, stage.tiles, _Plain())
        return json.dumps(data, indent=_json_indent(text), ensure_ascii=False) + "\n"
    return _rewrite_yaml(text, new, old_tiles, list(stage.tiles))


def editor_losses(
    source: StageSource, stage: Stage, text: str, *, library: TileLibrary | None = None
) -> list[str]:
    """What an editor file written from ``stage`` (``text``) does not keep (none for a
    native file, which keeps everything): :func:`trackkit.formats.roundtrip.conversion_losses`.

    Raises
    ------
    InputError
        If ``text`` cannot be read back.
    """
    if source.format == "native":
        return []
    from trackkit.formats.roundtrip import conversion_losses

    return conversion_losses(source, stage, source.format, text, library=library)


@dataclass(slots=True)
class FileFix:
    """What ``validate --fix`` did to one file."""

    outcome: FixOutcome
    losses: list[str]
    """What the file's format could not keep (an editor file is written whole)."""


def fix_file(
    path: str | Path,
    source: StageSource,
    *,
    kind: Kind | None = None,
    players: int | None = None,
    library: TileLibrary | None = None,
) -> FileFix:
    """Apply the mechanical fixes of ``source``'s findings (:func:`trackkit.checks.fixes.fix_stage`)
    and write the file back atomically in its own format, if anything changed.

    Raises
    ------
    InputError
        If the file cannot be written.
    """
    outcome = fix_stage(
        source.stage,
        kind=kind,
        players=players,
        library=library,
        placed=source.format != "native",
    )
    losses: list[str] = []
    if outcome.changed:
        text = rewrite_text(source, outcome.stage, library=library)
        losses = editor_losses(source, outcome.stage, text, library=library)
        if text != source.document.text:
            write_text_atomic(path, text)
    return FileFix(outcome, losses)


def _json_indent(text: str) -> int:
    m = re.search(r"\n( +)\S", text)
    return len(m.group(1)) if m else 2


class _Plain:
    """How new values are made in a plain (JSON) document."""

    def value(self, key: str, value: Any) -> Any:
        return value


class _RoundTrip(_Plain):
    """How new values are made in a ruamel.yaml round-trip document: short lists in flow
    style, as ``dump_native`` writes them."""

    def value(self, key: str, value: Any) -> Any:
        from ruamel.yaml.comments import CommentedMap, CommentedSeq

        if isinstance(value, dict):
            out = CommentedMap()
            for k, v in value.items():
                out[k] = self.value(k, v)
            if key == "tokens":
                out.fa.set_flow_style()
            return out
        if isinstance(value, list):
            seq = CommentedSeq([self.value(key, v) for v in value])
            if key in _FLOW_KEYS:
                seq.fa.set_flow_style()
            return seq
        return value


def _rewrite_yaml(
    text: str, new: dict[str, Any], old: list[StageTile], tiles: list[StageTile]
) -> str:
    from ruamel.yaml import YAML
    from ruamel.yaml.util import load_yaml_guess_indent

    _data, indent, offset = load_yaml_guess_indent(text)
    yaml = YAML()  # round trip
    yaml.preserve_quotes = True
    yaml.width = 100
    yaml.indent(mapping=indent or 2, sequence=(indent or 2), offset=offset or 0)
    doc = yaml.load(text)
    _merge_map(doc, new, old, tiles, _RoundTrip())
    out = io.StringIO()
    yaml.dump(doc, out)
    return out.getvalue()


def _same(a: Any, b: Any, model: type[BaseModel] | None) -> bool:
    """Whether a value of the file and the new one mean the same (a model's fields read)."""
    if a == b:
        return True
    if model is None:
        return False
    try:
        return model.model_validate(a) == model.model_validate(b)
    except ValueError:
        return False


def _insert_at(target: MutableMapping[str, Any], key: str, order: list[str]) -> int:
    """Where a new ``key`` goes among ``target``'s keys: after the keys before it in
    ``order`` (the model's field order)."""
    keys = list(target)
    rank = order.index(key) if key in order else len(order)
    pos = 0
    for i, k in enumerate(keys):
        if (order.index(k) if k in order else len(order)) <= rank:
            pos = i + 1
    return pos


def _set(target: MutableMapping[str, Any], key: str, value: Any, order: list[str]) -> None:
    """Set ``key``; a new key goes where the model's field order puts it."""
    if key in target:
        target[key] = value
        return
    pos = _insert_at(target, key, order)
    insert = getattr(target, "insert", None)  # ruamel.yaml's CommentedMap keeps comments
    if insert is not None:
        insert(pos, key, value)
        return
    items = list(target.items())
    items.insert(pos, (key, value))
    target.clear()
    target.update(items)


def _merge_map(
    target: MutableMapping[str, Any],
    new: dict[str, Any],
    old_tiles: list[StageTile],
    tiles: list[StageTile],
    make: _Plain,
) -> None:
    """Make the file's top-level mapping hold ``new``, touching only what changed."""
    order = list(Stage.model_fields)
    for key in [k for k in target if k not in new]:
        del target[key]
    for key, value in new.items():
        if key == "tiles" and isinstance(target.get(key), MutableSequence):
            _merge_tiles(target[key], value, old_tiles, tiles, make)
        elif key not in target or not _same(target[key], value, None):
            _set(target, key, make.value(key, value), order)


def _merge_tiles(
    items: MutableSequence[Any],
    new: list[dict[str, Any]],
    old_tiles: list[StageTile],
    tiles: list[StageTile],
    make: _Plain,
) -> None:
    """Make the file's tile list hold ``new``: items whose tile did not change stay as
    written; inserted, removed and changed tiles are matched as a diff of the two lists."""
    if len(old_tiles) != len(items):  # not the list the stage was read from: write it anew
        items[:] = [make.value("tiles", t) for t in new]
        return
    a = [t.model_dump_json() for t in old_tiles]
    b = [t.model_dump_json() for t in tiles]
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    # from the end, so that the positions of earlier blocks stay right
    for tag, i1, i2, j1, j2 in reversed(ops):
        if tag == "equal":
            continue
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for k in range(paired):
            item = items[i1 + k]
            if isinstance(item, MutableMapping):
                _merge_tile(item, new[j1 + k], make)
            else:
                items[i1 + k] = make.value("tiles", new[j1 + k])
        del items[i1 + paired : i2]
        for k in range(j1 + paired, j2):
            items.insert(i1 + (k - j1), _new_tile(new[k], make))


def _new_tile(values: dict[str, Any], make: _Plain) -> Any:
    order = list(StageTile.model_fields)
    ordered = {k: values[k] for k in sorted(values, key=order.index)}
    return make.value("", ordered)


def _merge_tile(item: MutableMapping[str, Any], new: dict[str, Any], make: _Plain) -> None:
    order = list(StageTile.model_fields)
    for key in [k for k in item if k not in new]:
        del item[key]
    for key, value in new.items():
        if key in item and key == "tokens" and _same_tokens(item[key], value):
            continue
        if key in item and _same(item[key], value, None):
            continue
        _set(item, key, make.value(key, value), order)


def _same_tokens(a: Any, b: Any) -> bool:
    if not isinstance(a, list) or not isinstance(b, list) or len(a) != len(b):
        return False
    return all(_same(x, y, TileToken) for x, y in zip(a, b, strict=True))
