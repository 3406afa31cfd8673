"""The tile library: published faces loaded from ``tile_library/*.yaml``.

Examples
--------
>>> lib = default_library()
>>> lib.get("217A").surface.value
'gravel'
>>> normalize_tile_id("103a-2")
'103a'
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import ValidationError

from trackkit.errors import TileLibraryError
from trackkit.models.tile import TileFace, TileSet

__all__ = ["TileLibrary", "default_library", "library_dir", "normalize_tile_id"]

_ART_SUFFIX = re.compile(r"-\d+$")


def normalize_tile_id(raw: str) -> str:
    """Face id as the library spells it: lower case, art-variant suffix dropped."""
    return _ART_SUFFIX.sub("", raw.strip().lower())


def library_dir() -> Path:
    """Folder of the shipped library (``$TRACKKIT_TILE_LIBRARY`` overrides it)."""
    env = os.environ.get("TRACKKIT_TILE_LIBRARY")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "tile_library"


def _loader() -> type[yaml.SafeLoader]:
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
    def load(cls, folder: Path | None = None, *, cache: bool = True) -> TileLibrary:
        """Read every ``*.yaml`` tile file of a folder.

        The parsed files are cached as JSON under the user's cache folder, keyed by a hash
        of their bytes, because parsing YAML dominates a short command's run time. Set
        ``TRACKKIT_NO_CACHE=1`` (or ``cache=False``) to read the YAML every time.
        """
        folder = folder or library_dir()
        paths = sorted(folder.glob("*.yaml"))
        use_cache = cache and not os.environ.get("TRACKKIT_NO_CACHE")
        cache_file = _cache_file(paths) if use_cache else None
        if cache_file is not None and cache_file.is_file():
            try:
                raw = json.loads(cache_file.read_text(encoding="utf-8"))
                return cls(TileSet.model_validate(ts) for ts in raw)
            except (OSError, ValueError, ValidationError, TileLibraryError):
                pass  # a stale or broken cache is rebuilt below
        tilesets = cls._read_yaml(paths, folder)
        if cache_file is not None:
            _write_cache(cache_file, tilesets)
        return cls(tilesets)

    @staticmethod
    def _read_yaml(paths: list[Path], folder: Path) -> list[TileSet]:
        tilesets: list[TileSet] = []
        for path in paths:
            try:
                data = yaml.load(path.read_text(encoding="utf-8"), Loader=_loader())
            except (OSError, yaml.YAMLError) as exc:
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


def _cache_file(paths: list[Path]) -> Path | None:
    try:
        digest = hashlib.sha256()
        for path in paths:
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    except OSError:
        return None
    digest.update(f"{TileSet.__module__}/{_schema_version()}".encode())
    try:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    except RuntimeError:  # no home folder: no cache
        return None
    return Path(base) / "trackkit" / f"tiles-{digest.hexdigest()[:20]}.json"


def _schema_version() -> str:
    import pydantic

    from trackkit import __version__

    return f"{__version__}/{pydantic.VERSION}"


def _write_cache(cache_file: Path, tilesets: list[TileSet]) -> None:
    """Best effort: a cache that cannot be written is simply not used."""
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache_file.with_suffix(f".{os.getpid()}.tmp")
        data = [ts.model_dump(mode="json", by_alias=True) for ts in tilesets]
        tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        tmp.replace(cache_file)
    except OSError:
        pass


@lru_cache(maxsize=1)
def default_library() -> TileLibrary:
    """The shipped library, loaded once per process."""
    return TileLibrary.load()
