"""``--format json`` keeps its promise: stdout is one JSON document, whatever goes wrong.

Every error of a JSON run is reported inside the document (and on stderr, one line each),
never as a usage error instead of the document.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from regen_json import CASES
from stagekit import REPO
from typer.testing import CliRunner

from trackkit.cli.app import app

EXAMPLE = REPO / "examples" / "col-de-turini.yaml"
BROKEN = REPO / "examples" / "broken-stage.yaml"
runner = CliRunner()


def json_run(*args: str) -> tuple[int, Any, list[str]]:
    """Exit status, the one JSON document of stdout, and the lines of stderr."""
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    doc = json.loads(result.stdout)  # one document, nothing before or after it
    return result.exit_code, doc, result.stderr.strip().splitlines()


def test_validate_json_reports_every_unusable_file_in_the_document(tmp_path: Path) -> None:
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("format: trackkit-stage/1\ntiles: [\n", encoding="utf-8")
    through_a_file = EXAMPLE / "stage.yaml"
    missing = tmp_path / "missing.yaml"
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    files = [EXAMPLE, missing, through_a_file, bad_yaml, folder, BROKEN]
    code, doc, err = json_run("validate", "--format", "json", *map(str, files))
    assert code == 2
    entries = doc["files"]
    assert [e["file"] for e in entries] == [str(f) for f in files]
    assert entries[0]["valid"] is True and entries[5]["errors"] == 12
    for entry in entries[1:5]:
        assert entry["valid"] is False and entry["error"]
        # every entry has the keys DESIGN.md lists, empty for an unusable file
        assert {"errors", "warnings", "findings", "summary"} <= set(entry)
        assert entry["findings"] == [] and entry["errors"] == 0
    assert "no such file" in entries[1]["error"] and "no such file" in entries[2]["error"]
    assert "not valid YAML" in entries[3]["error"] and "folder" in entries[4]["error"]
    # and on stderr, one line per unusable file, naming it
    assert [line.split(": ")[2] for line in err] == [str(f) for f in files[1:5]]


def _unreadable_child(path: Path) -> subprocess.CompletedProcess[str] | None:
    """``validate --format json PATH`` as a user who cannot read it (None: no such user)."""
    args = [sys.executable, "-m", "trackkit", "validate", "--format", "json", str(path)]
    if os.geteuid() != 0:
        return subprocess.run(args, capture_output=True, text=True, timeout=60)
    setpriv = shutil.which("setpriv")  # root reads a 0000 file: ask 'nobody' instead
    if setpriv is None:
        return None
    done = subprocess.run(
        [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return None if "Traceback" in done.stderr and not done.stdout else done


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_validate_json_reports_a_file_without_read_permission_in_the_document() -> None:
    with tempfile.TemporaryDirectory() as folder:  # not below root's 0700 pytest folder
        Path(folder).chmod(0o755)
        secret = Path(folder) / "secret.yaml"
        shutil.copy(EXAMPLE, secret)
        secret.chmod(0o000)
        done = _unreadable_child(secret)
        if done is None:
            pytest.skip("running as root without a way to run as another user")
        doc = json.loads(done.stdout)
    assert done.returncode == 2, done.stderr
    (entry,) = doc["files"]
    assert entry["file"] == str(secret) and entry["valid"] is False
    assert "permission denied" in entry["error"]
    assert done.stderr.strip() == f"trackkit: error: {secret}: {entry['error']}"


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["nowhere.yaml"], 2, "no such file"),
        ([str(EXAMPLE), "--bot", "reckless"], 2, "unknown bot"),
        ([str(EXAMPLE), "--car", "gt"], 2, "unknown car"),
        ([str(EXAMPLE), "--replay", "/nowhere/race.json"], 2, "does not exist"),
        ([str(BROKEN)], 1, "the stage has errors"),
    ],
)
def test_simulate_json_reports_its_errors_in_the_document(
    args: list[str], code: int, words: str
) -> None:
    status, doc, err = json_run("simulate", "--format", "json", "--races", "2", *args)
    assert status == code
    assert doc["error"]["exit_status"] == code and words in doc["error"]["message"]
    assert "time" not in doc  # no half results
    assert err and words in err[-1]
    if code == 1:  # the findings, as validate --format json lists them
        assert doc["files"][0]["errors"] == 12


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["tiles", "--format", "json", "--box", "dirt-nothing"], "unknown box"),
        (["tiles", "--format", "json", "show", "999x"], "unknown tile"),
        (["tiles", "show", "999x", "--format", "json"], "unknown tile"),
    ],
)
def test_tiles_json_reports_its_errors_in_the_document(args: list[str], words: str) -> None:
    status, doc, err = json_run(*args)
    assert (
        status == 2
        and words in doc["error"]["message"]
        and err == [f"trackkit: error: {doc['error']['message']}"]
    )


def test_text_runs_print_nothing_on_stdout_when_they_fail() -> None:
    result = runner.invoke(app, ["simulate", "nowhere.yaml"])
    assert result.exit_code == 2 and result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["validate", str(EXAMPLE), "--format", "json", "--simulate", "-3"],
        ["validate", str(EXAMPLE), "--format=json", "--kind", "bogus"],
        ["simulate", str(EXAMPLE), "--format", "json", "--players", "0"],
        ["tiles", "--format", "json", "--surface", "lava"],
    ],
)
def test_a_refused_option_value_still_gives_one_json_document(args: list[str]) -> None:
    # click refuses these before the command runs: the entry point still keeps the promise
    done = subprocess.run(
        [sys.executable, "-m", "trackkit", *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    doc = json.loads(done.stdout)
    assert doc["error"]["exit_status"] == 2 and "Invalid value" in doc["error"]["message"]
    assert "│" not in doc["error"]["message"]
    assert "Invalid value" in done.stderr  # and the usage error as usual on stderr


def _pinned_json_documents() -> dict[str, str]:
    pinned: dict[str, str] = json.loads(
        (REPO / "tests/golden/json-output.json").read_text(encoding="utf-8")
    )
    return pinned


def test_json_documents_pinned_are_the_cases_run() -> None:
    assert set(CASES) == set(_pinned_json_documents())


@pytest.mark.parametrize("case", sorted(CASES))
def test_json_documents_are_byte_identical_to_the_pinned_ones(case: str) -> None:
    # the typed summaries and simulation reports (StageSummary, SimReport) print what the
    # untyped dicts before them printed, byte for byte and key for key (tests/regen_json.py)
    with contextlib.chdir(REPO):
        printed = runner.invoke(app, CASES[case]).stdout
    assert printed == _pinned_json_documents()[case]
    json.loads(printed)  # one document
