"""The committed JSON Schemas are generated from the models and must not drift."""

from __future__ import annotations

import json
from pathlib import Path

from trackkit.schema import schemas

REPO = Path(__file__).resolve().parents[1]


def test_committed_schemas_match_the_models():
    for name, text in schemas().items():
        committed = (REPO / "schemas" / name).read_text(encoding="utf-8")
        assert committed == text, f"schemas/{name} is stale: run 'make schema'"


def test_stage_schema_forbids_unknown_keys_and_documents_fields():
    stage = json.loads(schemas()["trackkit-stage.schema.json"])
    assert stage["additionalProperties"] is False
    assert all("description" in p for p in stage["properties"].values())
    tile = stage["$defs"]["StageTile"]
    assert tile["additionalProperties"] is False and "turn" in tile["properties"]
