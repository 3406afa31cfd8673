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
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # type: ignore[no-any-return]


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
    def load(cls, folder: Path | None = None) -> TileLibrary:
        """Read every ``*.yaml`` tile file of a folder."""
        folder = folder or library_dir()
        tilesets: list[TileSet] = []
        for path in sorted(folder.glob("*.yaml")):
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
        return cls(tilesets)


@lru_cache(maxsize=1)
def default_library() -> TileLibrary:
    """The shipped library, loaded once per process."""
    return TileLibrary.load()
