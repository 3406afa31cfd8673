"""Settings and shared fixtures of the whole suite.

No test reads or writes the user's real settings (the autouse ``_own_config_folder``). The
tracks many test files race on are fixtures here, validated once per process by
:func:`stagekit.example_track`: the GT example circuit ``gt_core``, both GT example circuits
as ``gt_circuit`` (ids ``core`` and ``eight``) and the GT ruleset ``gt_rules``; more shared
set-ups (example tracks, races, simulation documents, SVG readers) are in ``stagekit``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from stagekit import example_prepared, example_track

from trackkit.config import CONFIG_DIR_ENV
from trackkit.rules import Ruleset, load_ruleset
from trackkit.rules.track import Track
from trackkit.sim.race import Prepared


@pytest.fixture(autouse=True)
def _own_config_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test (and every process it starts) sees an empty settings folder of its own
    instead of the user's config folder (``$TRACKKIT_CONFIG_DIR``)."""
    folder = tmp_path_factory.mktemp("config")
    monkeypatch.setenv(CONFIG_DIR_ENV, str(folder))
    return folder


@pytest.fixture(scope="session")
def gt_rules() -> Ruleset:
    """The Rallyman: GT ruleset."""
    return load_ruleset("gt")


@pytest.fixture(scope="session")
def gt_core() -> Track:
    """The track of ``examples/gt-core-circuit.yaml``: a circuit of core-box tiles."""
    return example_track("gt-core-circuit.yaml")


@pytest.fixture(
    params=["gt-core-circuit.yaml", "gt-figure-eight.rekee.json"], ids=["core", "eight"]
)
def gt_circuit(request: pytest.FixtureRequest) -> Prepared:
    """Each GT example circuit made ready for races (a fresh plan memo per test)."""
    name: str = request.param
    return example_prepared(name)
