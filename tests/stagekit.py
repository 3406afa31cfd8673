"""Shared helpers for the tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from trackkit.models import Stage

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def make_stage(*tiles: str | dict[str, Any], **fields: Any) -> Stage:
    """A native stage from face ids or tile dicts, in driving order."""
    specs = [t if isinstance(t, dict) else {"tile": t} for t in tiles]
    return Stage.model_validate({"format": "trackkit-stage/1", "tiles": specs, **fields})


@pytest.fixture
def examples() -> Path:
    return REPO / "examples"
