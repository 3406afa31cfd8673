"""The tile library: published faces loaded from ``tile_library/*.yaml``.

The files ship inside the package (``trackkit.tile_library``) and are read with
:mod:`importlib.resources`, so an installed wheel finds them wherever it runs.

Examples
--------
>>> lib = default_library()
>>> lib.get("217A").surface.value
'gravel'
>>> normalize_tile_id("103a-2"), art_variant("103a-2"), art_variant("103A")
('103a', '-2', '')
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from trackkit.errors import TileLibraryError
from trackkit.models.tile import TileFace, TileSet

__all__ = [
    "TileLibrary",
    "art_variant",
    "cache_dir",
    "default_library",
    "library_dir",
    "normalize_tile_id",
    "ruleset_data",
    "yaml_loader",
]

_ART_SUFFIX = re.compile(r"-\d+$")
_TILESET_MARK = re.compile(rb"^format: trackkit-tiles/1\s*$", re.MULTILINE)


def normalize_tile_id(raw: str) -> str:
    """Face id as the library spells it: lower case, art-variant suffix dropped."""
    return _ART_SUFFIX.sub("", raw.strip().lower())


def art_variant(raw: str) -> str:
    """The art-variant suffix of a face id as written (``-2`` of ``103a-2``), or ''.

    It changes nothing for play; the editors' files carry it, so conversions keep it.
    """
    match = _ART_SUFFIX.search(raw.strip())
    return match.group(0) if match else ""


def library_dir() -> Traversable:
    """Folder of the shipped tile and ruleset files (``$TRACKKIT_TILE_LIBRARY`` overrides it).

    The package data ``trackkit.tile_library``: in a source checkout, the top-level
    ``tile_library/`` folder.
    """
    env = os.environ.get("TRACKKIT_TILE_LIBRARY")
    if env:
        return Path(env)
    return resources.files("trackkit.tile_library")


def cache_dir() -> Path | None:
    """trackkit's folder in the platform's user cache folder (``platformdirs``), or None.

    ``$XDG_CACHE_HOME`` is honoured where the platform uses it. None when the platform
    has no usable home folder: trackkit then works without a cache.
    """
    import platformdirs

    try:
        return Path(platformdirs.user_cache_dir("trackkit", appauthor=False))
    except (OSError, RuntimeError, KeyError):  # no home folder
        return None


def yaml_loader() -> type[yaml.SafeLoader]:
    """The fastest safe YAML loader PyYAML has: libyaml's where it is built, never an
    unsafe one. The tile files, the stage files (:mod:`trackkit.formats.source`) and the
    tests read YAML with it."""
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class TileLibrary:
    """Faces by id, with the boxes they come from."""

    def __init__(self, tilesets: Iterable[TileSet]) -> None:
        self.tilesets: dict[str, TileSet] = {}
        self.faces: dict[str, TileFace] = {}
        for ts in tilesets:
            self.tilesets[ts.box] = ts
            for face in ts.faces:
                if face.id in self.faces:
                    raise TileLibraryError(f"face {face.id} is defined twice")
                self.faces[face.id] = face

    def __repr__(self) -> str:
        return f"TileLibrary(<{len(self.faces)} faces in {sorted(self.tilesets)}>)"

    def __len__(self) -> int:
        return len(self.faces)

    def __iter__(self) -> Iterator[TileFace]:
        return iter(self.faces.values())

    def __contains__(self, face_id: object) -> bool:
        return isinstance(face_id, str) and normalize_tile_id(face_id) in self.faces

    def get(self, face_id: str) -> TileFace | None:
        """The face with this id (any case, art suffix allowed), or None."""
        return self.faces.get(normalize_tile_id(face_id))

    def boxes(self) -> list[str]:
        """Box ids, sorted."""
        return sorted(self.tilesets)

    def in_box(self, box: str) -> list[TileFace]:
        """Faces of one box, in catalogue order."""
        return [f for f in self.faces.values() if f.box == box]

    @classmethod
    def load(cls, folder: Traversable | None = None, *, cache: bool = True) -> TileLibrary:
        """Read every ``*.yaml`` tile file of a folder (default: the shipped library).

        The parsed files are cached as JSON in trackkit's user cache folder
        (:func:`cache_dir`), one tile set a line, keyed by a hash of their bytes, because
        parsing YAML dominates a short command's run time. Set ``TRACKKIT_NO_CACHE=1`` (or
        ``cache=False``) to read the YAML every time. A cache folder that cannot be read or
        written is not used.
        """
        folder = folder or library_dir()
        try:
            paths = sorted(
                (p for p in folder.iterdir() if p.name.endswith(".yaml") and p.is_file()),
                key=lambda p: p.name,
            )
            texts = [(p, p.read_bytes()) for p in paths]
        except OSError as exc:
            raise TileLibraryError(f"{folder}: cannot read the tile library: {exc}") from exc
        use_cache = cache and not os.environ.get("TRACKKIT_NO_CACHE")
        cache_file = _cache_file(texts) if use_cache else None
        if cache_file is not None:
            # one cached tile set per tile file (the marker line says which files are
            # tile files; rulesets lie beside them), else the cache is not ours: read the YAML
            expected = sum(1 for _p, raw in texts if _TILESET_MARK.search(raw))
            try:
                # pydantic reads each line's JSON itself: faster than json.loads, then
                # validating the Python objects
                lines = _read_cache(cache_file).splitlines()
                if len(lines) == expected and expected:
                    return cls(TileSet.model_validate_json(line) for line in lines)
            except (ValueError, TypeError, RecursionError, ValidationError, TileLibraryError):
                pass  # no cache yet, or a stale, broken or unreadable one: read the YAML
        tilesets = cls._read_yaml(texts, folder)
        if cache_file is not None:
            _write_cache(cache_file, tilesets)
        return cls(tilesets)

    @staticmethod
    def _read_yaml(texts: list[tuple[Traversable, bytes]], folder: Traversable) -> list[TileSet]:
        tilesets: list[TileSet] = []
        for path, raw in texts:
            try:
                data = yaml.load(raw.decode("utf-8"), Loader=yaml_loader())
            except (UnicodeDecodeError, yaml.YAMLError) as exc:
                raise TileLibraryError(f"{path}: cannot read tile file: {exc}") from exc
            if not isinstance(data, dict) or data.get("format") != "trackkit-tiles/1":
                continue  # rulesets and other data files live beside the tiles
            try:
                tilesets.append(TileSet.model_validate(data))
            except ValidationError as exc:
                raise TileLibraryError(f"{path}: invalid tile file:\n{exc}") from exc
        if not tilesets:
            raise TileLibraryError(f"no tile files found in {folder}")
        return tilesets


def _cache_file(texts: list[tuple[Traversable, bytes]]) -> Path | None:
    base = cache_dir()
    if base is None:
        return None
    digest = hashlib.sha256()
    for path, raw in texts:
        digest.update(path.name.encode())
        digest.update(raw)
    digest.update(f"{TileSet.__module__}/{_schema_version()}/lines".encode())
    return base / f"tiles-{digest.hexdigest()[:20]}.json"


def _schema_version() -> str:
    import pydantic

    from trackkit import __version__

    return f"{__version__}/{pydantic.VERSION}"


#: A cache file bigger than this is not read (the whole library is about 100 kB).
_MAX_CACHE_BYTES = 16 * 1024 * 1024


def _read_cache(cache_file: Path) -> bytes:
    """The cache file's bytes, read as any input file is: a FIFO or a device put in its
    place (the cache folder may be another user's) is not read, so it cannot hang us.

    Raises
    ------
    ValueError
        (an InputError) if it is missing, unreadable, not a regular file or too big.
    """
    from trackkit.formats.reading import read_input  # formats import the library

    return read_input(cache_file, what="cache file", limit=_MAX_CACHE_BYTES)[1]


def _write_cache(cache_file: Path, tilesets: list[TileSet]) -> None:
    """Best effort: a cache that cannot be written (a read-only or foreign home folder) is
    simply not used, without a word."""
    folder = cache_file.parent
    tmp: str | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        data = "".join(ts.model_dump_json(by_alias=True) + "\n" for ts in tilesets)
        # a new file of our own (O_EXCL): never through a link someone put in the folder
        fd, tmp = tempfile.mkstemp(prefix=f".{cache_file.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(data)
        os.replace(tmp, cache_file)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


@lru_cache(maxsize=8)
def ruleset_data(ruleset_id: str = "dirt") -> dict[str, Any]:
    """The parsed ruleset file ``tile_library/ruleset-<id>.yaml`` (shipped data), read once.

    Both the rules engine (:func:`trackkit.rules.ruleset.load_ruleset`) and the layout of
    track tokens (:mod:`trackkit.stage.track_tokens`, a layer before the rules) read it here.

    Raises
    ------
    TileLibraryError
        If the file is missing or is not a YAML mapping.
    """
    path = library_dir() / f"ruleset-{ruleset_id}.yaml"
    try:
        data = yaml.safe_load(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise TileLibraryError(f"no ruleset '{ruleset_id}' ({path} is missing)") from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TileLibraryError(f"{path}: cannot read the ruleset: {exc}") from exc
    if not isinstance(data, dict):
        raise TileLibraryError(f"{path}: a ruleset file is a mapping")
    return data


@lru_cache(maxsize=1)
def default_library() -> TileLibrary:
    """The shipped library, loaded once per process."""
    return TileLibrary.load()
