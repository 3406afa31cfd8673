"""Shared pydantic base: unknown keys are an error, every field is documented."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """Base of every trackkit data model: unknown keys are rejected."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, defer_build=True)
