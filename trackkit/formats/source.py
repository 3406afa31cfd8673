"""Stage text into data: safe YAML and JSON parsing, and the way back from a place to a line.

:func:`parse_document` parses stage text (:class:`Document`: the data, and the line of a key
path); :class:`StageSource` is a stage as read from a file, with the way back from its parts
to the file's lines; :func:`read_json` reads and parses a JSON input that is not a stage.
Alias bombs, duplicate keys, deep nesting and values Python cannot convert are refused.
The bytes are read by :mod:`trackkit.formats.reading`; pydantic's errors become messages in
:mod:`trackkit.formats.validation_messages`.

Everything here raises :class:`~trackkit.errors.InputError` (never anything else) for input
that cannot be used: the message names the file and, when it can, the line.

Examples
--------
>>> doc = parse_document("format: trackkit-stage/1\\ntiles:\\n  - tile: 202a\\n", file="s.yaml")
>>> doc.syntax, doc.data["tiles"][0]["tile"]
('yaml', '202a')
>>> doc.line_of(("tiles", 0, "tile"))
3
>>> parse_document("[1, 2", file="s.json")
Traceback (most recent call last):
...
trackkit.errors.InputError: s.json: not valid JSON: Expecting ',' delimiter (line 1, column 6)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, cast

import yaml

from trackkit.errors import InputError
from trackkit.formats.reading import MAX_FILE_BYTES, decode_bytes, format_size, read_input
from trackkit.formats.validation_messages import Loc, format_loc
from trackkit.models.stage import MAX_STAGE_TILES, MAX_TILE_TOKENS, Stage
from trackkit.tiles.library import yaml_loader

__all__ = [
    "MAX_DEPTH",
    "MAX_YAML_EVENTS",
    "MAX_YAML_NODES",
    "Document",
    "StageSource",
    "parse_document",
    "read_json",
]

#: JSON and YAML nested deeper than this (lists or mappings inside each other) are refused:
#: trackkit's own files nest 7 levels at most.
MAX_DEPTH = 64
#: Parser events of the largest stage trackkit accepts: a tile item with every key takes
#: about 30, a token with every key about 16 (MAX_TILE_TOKENS of them per tile).
_EVENTS_PER_TILE = 32 + 16 * MAX_TILE_TOKENS
#: YAML with more parser events than this is refused before it is built: the largest stage
#: trackkit accepts (MAX_STAGE_TILES tiles, each with MAX_TILE_TOKENS tokens) fits, as it
#: does in JSON.
MAX_YAML_EVENTS = MAX_STAGE_TILES * _EVENTS_PER_TILE + 1_000
#: A YAML document whose aliases expand to more nodes than this is refused (alias bombs):
#: no more than the largest stage holds, so anchors for repeated token lists still work.
MAX_YAML_NODES = MAX_YAML_EVENTS
#: JSON bigger than this gets no line numbers in validation messages (finding them is slow).
MAX_JSON_LINES_CHARS = 200_000


def read_json(path: str | Path, *, what: str, limit: int) -> Any:
    """The parsed JSON of an input file that is not a stage (replay, simulation, theme).

    Read with :func:`read_input`; a key given twice in one object and nesting deeper than
    :data:`MAX_DEPTH` are refused like in stage files.

    Raises
    ------
    InputError
        For anything unusable, naming the file and, when it can, the line.
    """
    file, raw = read_input(path, what=what, limit=limit)
    text = decode_bytes(raw, file=file, what=what)
    del raw  # the text is all that is needed now: a 16 MB file is held once, not twice
    if not text.strip():
        raise InputError(file, "the file is empty")
    return _parse_json(text, file)


@dataclass(slots=True)
class Document:
    """A parsed stage file: its data, and a way back from a key path to a line."""

    file: str
    text: str
    data: Any
    syntax: Literal["yaml", "json"]
    node: yaml.Node | None = None
    _composed: bool = field(default=False, repr=False)

    def line_of(self, loc: Loc) -> int | None:
        """Line (from 1) of the deepest key or item of ``loc`` found in the file."""
        if self.node is None and not self._composed:
            # JSON: compose it as YAML (JSON is nearly a YAML subset) just for the lines.
            self._composed = True
            if len(self.text) > MAX_JSON_LINES_CHARS:
                return None
            try:
                self.node = _compose(self.text)
            except (yaml.YAMLError, RecursionError, ValueError):
                self.node = None
        if self.node is None:
            return None
        return _node_line(self.node, loc)


_TILE_PATH = re.compile(r"^tiles\[(\d+)\]((?:\.\w+|\[\d+\])*)$")
_PATH_PART = re.compile(r"\.(\w+)|\[(\d+)\]")


@dataclass(frozen=True, slots=True)
class StageSource:
    """A stage as read from a file, and the way back from its parts to the file's lines.

    Findings name places in the stage (``tiles[3].tokens[0]``); an editor file lists its
    tiles in another order and under other keys, so :meth:`locate` turns such a place into
    the file's own key path and line.

    Examples
    --------
    >>> from trackkit.formats import parse_source
    >>> text = '''{"title": "t", "tiles": [
    ...   {"q": 1, "r": 0, "id": "205a", "dir": 0},
    ...   {"q": 0, "r": 0, "id": "202a", "dir": 0}]}'''
    >>> source = parse_source(text, file="t.json")
    >>> [t.tile for t in source.stage.tiles], source.locate("tiles[1].tokens[0]")
    (['202a', '205a'], ('tiles[0].tokens[0]', 2))
    """

    stage: Stage
    document: Document = field(repr=False)
    format: Literal["native", "rekee", "rgt"]
    items: tuple[int, ...] | None = None
    """The file's item of each stage tile, in stage order (None: the same order)."""
    tiles_key: str = "tiles"
    """The key of the file's tile list (``Tuiles`` in ``.rgt`` files)."""
    tokens_key: str = "tokens"
    """The key of a tile's token list in the file (``Tokens`` in ``.rgt`` files)."""
    origin: tuple[int, int] | None = None
    """``.rgt`` files: the file's axial hex of the stage's ``[0, 0]`` (its first tile), whose
    places are read relative to it; writing the stage back as ``.rgt`` puts it there again.
    None: the places are the file's own."""

    @property
    def file(self) -> str:
        """The file's name as messages show it."""
        return self.document.file

    def locate(self, path: str) -> tuple[str, int | None]:
        """The file's key path and line (None: unknown) of a place named in the stage."""
        loc: Loc
        match = _TILE_PATH.match(path)
        if path == "tiles":
            loc = (self.tiles_key,)
        elif match is not None:
            n = int(match.group(1))
            if self.items is not None:
                if n >= len(self.items):
                    return path, None
                n = self.items[n]
            rest: Loc = tuple(
                int(index) if index else key for key, index in _PATH_PART.findall(match.group(2))
            )
            if rest and rest[0] == "tokens":
                rest = (self.tokens_key, *rest[1:])
            elif self.format != "native":
                rest = ()  # other keys are the stage's own (enter, driven): the tile's line
            loc = (self.tiles_key, n, *rest)
        elif self.format == "native":
            loc = tuple(
                int(index) if index else key for key, index in _PATH_PART.findall("." + path)
            )
        else:
            return path, None
        return format_loc(loc), self.document.line_of(loc)


def _compose(text: str) -> yaml.Node | None:
    loader = yaml_loader()(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _node_line(node: yaml.Node, loc: Loc) -> int | None:
    line: int | None = None
    cur = node
    for part in loc:
        if isinstance(cur, yaml.MappingNode):
            match = next(
                (
                    (k, v)
                    for k, v in cur.value
                    if isinstance(k, yaml.ScalarNode) and k.value == str(part)
                ),
                None,
            )
            if match is None:
                break
            line = match[0].start_mark.line + 1
            cur = match[1]
        elif isinstance(cur, yaml.SequenceNode) and isinstance(part, int):
            if not 0 <= part < len(cur.value):
                break
            cur = cur.value[part]
            line = cur.start_mark.line + 1
        else:
            break
    return line


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            yield k
            yield v
    elif isinstance(node, yaml.SequenceNode):
        yield from node.value


def _path_to(root: yaml.Node, target: yaml.Node) -> Loc:
    """Key path of ``target`` below ``root`` (for naming the place of a problem)."""
    stack: list[tuple[yaml.Node, Loc]] = [(root, ())]
    seen: set[int] = set()
    while stack:
        node, loc = stack.pop()
        if node is target:
            return loc
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            stack.extend(
                (v, (*loc, k.value)) for k, v in node.value if isinstance(k, yaml.ScalarNode)
            )
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((c, (*loc, n)) for n, c in enumerate(node.value))
    return ()


def _check_keys(root: yaml.Node, file: str) -> None:
    """Refuse a mapping that gives one key twice (YAML would keep the last one silently)."""
    stack = [root]
    seen_nodes: set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode) or id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
            continue
        keys: dict[str, int] = {}
        for k, v in node.value:
            stack.append(v)
            if not isinstance(k, yaml.ScalarNode):
                stack.append(k)
                continue
            line = k.start_mark.line + 1
            if k.value in keys:
                loc = _path_to(root, node)
                where = f"{format_loc(loc)}: " if loc else ""
                raise InputError(
                    file,
                    f"{where}key {k.value!r} is given twice (lines {keys[k.value]} and {line})",
                )
            keys[k.value] = line


def _check_aliases(root: yaml.Node, file: str) -> None:
    """Refuse recursive aliases and aliases that expand to too many values (alias bombs)."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        nid = id(node)
        if done:
            on_path.discard(nid)
            sizes[nid] = 1 + sum(sizes[id(c)] for c in _children(node))
            continue
        if nid in sizes:
            continue
        if nid in on_path:
            raise InputError(file, f"an alias refers to itself (line {node.start_mark.line + 1})")
        on_path.add(nid)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in sizes)
    if sizes[id(root)] > MAX_YAML_NODES:
        raise InputError(
            file,
            f"YAML aliases expand this document to {sizes[id(root)]:,} values (at most "
            f"{MAX_YAML_NODES:,} allowed): refusing a possible alias bomb",
        )


def _count_events(text: str, file: str) -> bool:
    """Scan the YAML events, refusing documents with too many values or nested too deeply;
    True if aliases occur."""
    aliases = False
    depth = 0
    for n, event in enumerate(yaml.parse(text, Loader=yaml_loader())):
        if n > MAX_YAML_EVENTS:
            raise InputError(
                file,
                f"too many values (over {MAX_YAML_EVENTS:,}): a stage has at most "
                f"{MAX_STAGE_TILES} tiles with at most {MAX_TILE_TOKENS} tokens each",
            )
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
                raise InputError(
                    file,
                    f"not usable YAML: lists and mappings nested more than {MAX_DEPTH} "
                    f"levels deep{where}",
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases = True
    return aliases


class _BadValue(Exception):
    """A YAML scalar that its tag cannot turn into a value (``!!int abc``, 2020-02-30 ...)."""

    def __init__(self, node: yaml.Node, what: str) -> None:
        super().__init__(what)
        self.node = node
        self.what = what


_VALUE_NAMES = {
    "tag:yaml.org,2002:int": "an integer",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "true or false",
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:binary": "base64 binary data",
}


def _checked(
    tag: str, build: Callable[[yaml.SafeLoader, yaml.Node], Any]
) -> Callable[[yaml.SafeLoader, yaml.Node], Any]:
    """``build``, with the errors of Python's conversions turned into a located _BadValue."""

    def construct(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        try:
            return build(loader, node)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError):
            raise _BadValue(node, _VALUE_NAMES.get(tag, f"a value of tag {tag}")) from None

    return construct


def _text(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    return loader.construct_scalar(cast(yaml.ScalarNode, node))


@lru_cache(maxsize=1)
def _stage_loader() -> type[yaml.SafeLoader]:
    """The safe loader, with values Python cannot convert reported at their line.

    Dates and times stay the text they are written as: no stage key holds one, and PyYAML
    would fail on impossible ones (``2020-02-30``, an offset of ``+99:00``). Integers of
    more digits than Python converts, and ``!!int``/``!!float``/``!!bool`` tags on text that
    is none, are :class:`_BadValue`.
    """
    base = yaml_loader()
    loader = cast(type[yaml.SafeLoader], type("StageLoader", (base,), {}))
    for tag, build in list(base.yaml_constructors.items()):
        if tag is not None and tag != "tag:yaml.org,2002:timestamp":
            loader.add_constructor(tag, _checked(tag, build))
    loader.add_constructor("tag:yaml.org,2002:timestamp", _text)
    return loader


def _bad_value_error(file: str, root: yaml.Node, exc: _BadValue) -> InputError:
    node = exc.node
    value = node.value if isinstance(node, yaml.ScalarNode) else ""
    shown = repr(value) if len(value) <= 40 else f"{value[:30]!r}... ({len(value):,} characters)"
    loc = _path_to(root, node)
    where = f"{format_loc(loc)}: " if loc else ""
    mark = node.start_mark
    return InputError(
        file,
        f"{where}{shown} is not {exc.what}: quote it to keep it as text "
        f"(line {mark.line + 1}, column {mark.column + 1})",
    )


def _parse_yaml(text: str, file: str) -> tuple[Any, yaml.Node | None]:
    loader: yaml.SafeLoader | None = None
    node: yaml.Node | None = None
    try:
        aliases = _count_events(text, file)
        loader = _stage_loader()(text)
        node = loader.get_single_node()
        if node is None:
            return None, None
        if aliases:
            _check_aliases(node, file)
        _check_keys(node, file)
        return loader.construct_document(node), node
    except _BadValue as exc:
        assert node is not None
        raise _bad_value_error(file, node, exc) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = " ".join(str(exc.problem or exc.context or "syntax error").split())
        raise InputError(file, f"not valid YAML: {problem}{where}") from None
    except yaml.YAMLError as exc:
        raise InputError(file, f"not valid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise InputError(file, "not usable YAML: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()


class _DuplicateKeyError(ValueError):
    """A JSON object gives one key twice."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKeyError(key)
        out[key] = value
    return out


def nesting_depth(data: Any, limit: int = MAX_DEPTH) -> int:
    """How deep the lists and mappings of parsed data nest (0: a plain value).

    Counting stops past ``limit`` (the result is then ``limit + 1``). Level by level, with
    no recursion: a 16 MB replay file takes about 0.1 s.

    Examples
    --------
    >>> nesting_depth({"a": [1, {"b": "[[["}]}), nesting_depth(5), nesting_depth([[[[]]]], 2)
    (3, 0, 3)
    """
    depth = 0
    level = [data] if isinstance(data, dict | list) else []
    while level and depth <= limit:
        depth += 1
        level = [
            v
            for node in level
            for v in (node.values() if isinstance(node, dict) else node)
            if isinstance(v, dict | list)
        ]
    return depth


def _parse_json(text: str, file: str) -> Any:
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except _DuplicateKeyError as exc:
        raise InputError(file, f"key {exc.args[0]!r} is given twice in one JSON object") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            file, f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise InputError(file, _too_deep("JSON")) from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise InputError(file, _json_value_problem(text, exc)) from None
    if nesting_depth(data) > MAX_DEPTH:
        raise InputError(file, _too_deep("JSON"))
    return data


_LONG_NUMBER = re.compile(r"\d{1000,}")


def _json_value_problem(text: str, exc: ValueError) -> str:
    """A value json.loads could not convert: a number of too many digits (at its line)."""
    found = _LONG_NUMBER.search(text)
    if found is None:
        return f"not usable JSON: {exc}"
    line = text.count("\n", 0, found.start()) + 1
    return f"not usable JSON: a number of {len(found.group()):,} digits (line {line})"


def _too_deep(syntax: str) -> str:
    return f"not usable {syntax}: lists and objects nested more than {MAX_DEPTH} levels deep"


def _kind_of(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    return f"a {type(value).__name__}"


def parse_document(text: str, *, file: str) -> Document:
    """Parse stage text as JSON or YAML.

    Files named ``*.json`` or ``*.rgt`` must be JSON. Other text that starts with ``{`` or
    ``[`` is read as JSON, and if that fails, as YAML (YAML flow style also starts that way)
    before the JSON error is reported; anything else is YAML. The top level must be a mapping.
    """
    if len(text) > MAX_FILE_BYTES:
        raise InputError(
            file, f"text is too large: stage files are at most {format_size(MAX_FILE_BYTES)}"
        )
    text = text.removeprefix("\ufeff")
    if "\x00" in text:
        raise InputError(file, "binary data (a NUL character): not a stage file")
    if not text.strip():
        raise InputError(file, "the file is empty")
    doc: Document
    strict_json = file.lower().endswith((".json", ".rgt"))
    if strict_json or text.lstrip()[0] in "{[":
        try:
            doc = Document(file, text, _parse_json(text, file), "json")
        except InputError as json_error:
            if strict_json:
                raise
            try:
                data, node = _parse_yaml(text, file)
            except InputError:
                raise json_error from None
            doc = Document(file, text, data, "yaml", node)
    else:
        data, node = _parse_yaml(text, file)
        doc = Document(file, text, data, "yaml", node)
    if doc.data is None:
        raise InputError(file, "the file is empty (only comments)")
    if not isinstance(doc.data, dict):
        raise InputError(
            file,
            f"the top level must be a mapping of keys (like 'format:' and 'tiles:'), "
            f"found {_kind_of(doc.data)}",
        )
    return doc
