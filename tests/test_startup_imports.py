"""Start-up cost (issue 22): a plain ``validate`` imports only the modules it uses."""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import trackkit.models

ROOT = Path(__file__).resolve().parents[1]


def _imported(*args: str) -> set[str]:
    """The modules ``python -X importtime -m trackkit ARGS`` imports."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "trackkit", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S+)$", done.stderr, re.M))


def test_plain_validate_does_not_import_the_simulation_or_car_models() -> None:
    modules = _imported("validate", "examples/col-de-turini.yaml")
    assert "trackkit.checks.pipeline" in modules  # the parse sees real imports
    assert "trackkit.models.simreport" not in modules
    assert "trackkit.models.car" not in modules


def test_help_imports_no_model_at_all() -> None:
    modules = _imported("--help")
    assert "typer" in modules
    assert not {m for m in modules if m.startswith("trackkit.models")}


def test_lazy_model_names_are_the_modules_own() -> None:
    from trackkit.models.car import CarFile
    from trackkit.models.simreport import SimReport

    assert trackkit.models.SimReport is SimReport
    assert trackkit.models.CarFile is CarFile
    assert set(trackkit.models.__all__) <= set(dir(trackkit.models)) | set(trackkit.models._EXPORTS)
    with pytest.raises(AttributeError, match="NoSuchModel"):
        _ = trackkit.models.NoSuchModel


@pytest.mark.parametrize(
    "args",
    [
        ["validate"],
        ["validate", "--help"],
        ["validate", "--bogus"],
        ["validate", "--format", "json", "examples/col-de-turini.yaml"],
        ["tiles", "show"],
        ["car", "--help"],
        ["config"],
    ],
)
def test_the_app_of_one_command_answers_as_the_whole_app(
    args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from trackkit.cli.app import app, app_for

    monkeypatch.chdir(ROOT)
    one = app_for(args)
    assert one is not app
    assert [c.name for c in one.registered_commands + one.registered_groups] == [args[0]]
    runner = CliRunner()
    whole, alone = runner.invoke(app, args), runner.invoke(one, args)
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)
    assert app_for(["--help"]) is app
    assert app_for([]) is app
    monkeypatch.setenv("_TRACKKIT_COMPLETE", "complete_bash")
    assert app_for(args) is app  # shell completion lists every command


def test_imports_freeze_what_they_made_only_in_the_trackkit_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from trackkit.cli import startup

    frozen = gc.get_freeze_count()
    with startup.loading():  # a test's process: imports as usual
        assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
    monkeypatch.setattr(startup, "_command_process", True)
    try:
        with startup.loading():
            assert not gc.isenabled()
            made = [[] for _ in range(10)]
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + len(made)
    finally:
        gc.unfreeze()


def test_the_trackkit_process_collects_seldom_and_a_library_user_keeps_its_thresholds() -> None:
    """Issue 22: the command sets the collector's thresholds; importing and using trackkit
    as a library (here: validating and racing a stage) leaves the process's alone."""
    script = (
        "import gc, os, trackkit\n"
        "from trackkit.cli import startup\n"
        "before = gc.get_threshold()\n"
        "stage = trackkit.load('examples/gt-core-circuit.yaml')\n"
        "trackkit.validate(stage)\n"
        "trackkit.simulate(stage, races=1, seed=1)\n"
        "used = gc.get_threshold()\n"
        "plugins = os.environ.get('PYDANTIC_DISABLE_PLUGINS', 'unset')\n"
        "startup.begin()\n"
        "print(before == used, gc.get_threshold() == startup.THRESHOLDS)\n"
        "print(repr(plugins), repr(os.environ['PYDANTIC_DISABLE_PLUGINS']))\n"
    )

    def run(**env: str) -> list[str]:
        environ = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
        done = subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env=environ | env,
        )
        return done.stdout.split()

    # the command turns pydantic's plugins off (a library user keeps them) ...
    assert run() == ["True", "True", "'unset'", "'__all__'"]
    # ... unless its user says otherwise
    assert run(PYDANTIC_DISABLE_PLUGINS="") == ["True", "True", "''", "''"]
