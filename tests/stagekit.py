"""Shared helpers for the tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from trackkit.models import Stage

REPO = Path(__file__).resolve().parents[1]


def load_script(name: str) -> Any:
    """A script of ``scripts/`` as a module (the regeneration scripts hold the test data)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_stage(*tiles: str | dict[str, Any], **fields: Any) -> Stage:
    """A native stage from face ids or tile dicts, in driving order."""
    specs = [t if isinstance(t, dict) else {"tile": t} for t in tiles]
    return Stage.model_validate({"format": "trackkit-stage/1", "tiles": specs, **fields})


@pytest.fixture
def examples() -> Path:
    return REPO / "examples"
