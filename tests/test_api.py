"""The scripting API (``trackkit.load``, ``validate``, ``render_map``, ``simulate``,
``generate``) gives what the command line gives, and bad input raises the one exception tree
with the place named, never a bare ValueError or a traceback of another library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from stagekit import REPO
from typer.testing import CliRunner

import trackkit
from trackkit.cli.app import app
from trackkit.errors import InputError

TURINI = REPO / "examples" / "col-de-turini.yaml"
GT_CORE = REPO / "examples" / "gt-core-circuit.yaml"


@pytest.mark.parametrize("path", [TURINI, GT_CORE], ids=["dirt", "gt"])
def test_simulate_of_a_path_is_the_json_simulate_prints(path: Path) -> None:
    cli = CliRunner().invoke(
        app, ["simulate", str(path), "--races", "4", "--seed", "3", "--format", "json"]
    )
    assert cli.exit_code == 0, cli.output
    report = trackkit.simulate(path, races=4, seed=3)
    assert report.to_json() == json.loads(cli.stdout)


@pytest.mark.parametrize(
    "path",
    [TURINI, GT_CORE, REPO / "examples" / "turini-typo.rekee.json"],
    ids=["dirt", "gt", "typo"],
)
def test_validate_of_a_path_is_the_entry_validate_prints(path: Path) -> None:
    cli = CliRunner().invoke(app, ["validate", str(path), "--format", "json"])
    (entry,) = json.loads(cli.stdout)["files"]
    assert json.loads(json.dumps(trackkit.validate(path).to_json())) == entry


def test_an_unknown_kind_is_an_input_error_naming_the_kinds() -> None:
    with pytest.raises(InputError, match="one of rally, hillclimb"):
        trackkit.validate(TURINI, kind="sprint")


def test_a_missing_file_is_an_input_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "none.yaml"
    with pytest.raises(InputError, match=r"none\.yaml"):
        trackkit.load(missing)


def test_a_heat_map_of_another_stage_is_refused() -> None:
    other = trackkit.simulate(GT_CORE, races=2, seed=1)
    with pytest.raises(InputError):
        trackkit.render_map(TURINI, heat=other)


def test_generate_refuses_an_unknown_box_with_the_name_meant() -> None:
    with pytest.raises(InputError, match="dirt-core"):
        trackkit.generate(["dirt-cor"], races=0)
