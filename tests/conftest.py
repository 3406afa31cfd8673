"""Settings and shared fixtures of the whole suite.

No test reads or writes the user's real settings (the autouse ``_own_config_folder``). The
tracks many test files race on are fixtures here, validated once per process by
:func:`stagekit.example_track`: the GT example circuits (``gt_core``, ``gt_eight``, or both
as ``gt_circuit``), the DIRT rally stage ``turini``, and each series' ruleset.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from stagekit import EXAMPLES, example_prepared, example_track

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


@pytest.fixture
def examples() -> Path:
    """The folder of the shipped example stages and tracks."""
    return EXAMPLES


@pytest.fixture(scope="session")
def gt_rules() -> Ruleset:
    """The Rallyman: GT ruleset."""
    return load_ruleset("gt")


@pytest.fixture(scope="session")
def dirt_rules() -> Ruleset:
    """The Rallyman: DIRT ruleset."""
    return load_ruleset("dirt")


@pytest.fixture(scope="session")
def gt_core() -> Track:
    """The track of ``examples/gt-core-circuit.yaml``: a circuit of core-box tiles."""
    return example_track("gt-core-circuit.yaml")


@pytest.fixture(scope="session")
def gt_eight() -> Track:
    """The track of ``examples/gt-figure-eight.rekee.json``: a Rekee figure of eight."""
    return example_track("gt-figure-eight.rekee.json")


@pytest.fixture(
    params=["gt-core-circuit.yaml", "gt-figure-eight.rekee.json"], ids=["core", "eight"]
)
def gt_circuit(request: pytest.FixtureRequest) -> Prepared:
    """Each GT example circuit made ready for races (a fresh plan memo per test)."""
    name: str = request.param
    return example_prepared(name)


@pytest.fixture
def turini() -> Prepared:
    """The DIRT rally stage ``examples/col-de-turini.yaml`` made ready for races."""
    return example_prepared("col-de-turini.yaml")
