"""JSON Schemas generated from the models (never written by hand)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from trackkit.models.car import CarFile
from trackkit.models.stage import Stage
from trackkit.models.tile import TileSet

__all__ = ["SCHEMA_FILES", "schemas", "write_schemas"]

SCHEMA_FILES: dict[str, type[BaseModel]] = {
    "trackkit-car.schema.json": CarFile,
    "trackkit-stage.schema.json": Stage,
    "trackkit-tiles.schema.json": TileSet,
}


def schemas() -> dict[str, str]:
    """File name -> schema text, as committed in ``schemas/``."""
    out = {}
    for name, model in SCHEMA_FILES.items():
        schema: dict[str, Any] = model.model_json_schema(by_alias=True)
        schema = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": f"https://trackkit.invalid/schemas/{name}",
            **schema,
        }
        out[name] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return out


def write_schemas(folder: Path) -> list[Path]:
    """Write every schema into ``folder``; returns the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in schemas().items():
        path = folder / name
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        written.append(path)
    return written
