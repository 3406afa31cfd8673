"""Settings of the whole suite: no test reads or writes the user's real settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from trackkit.config import CONFIG_DIR_ENV


@pytest.fixture(autouse=True)
def _own_config_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test (and every process it starts) sees an empty settings folder of its own
    instead of the user's config folder (``$TRACKKIT_CONFIG_DIR``)."""
    folder = tmp_path_factory.mktemp("config")
    monkeypatch.setenv(CONFIG_DIR_ENV, str(folder))
    return folder
