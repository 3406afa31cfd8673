"""One set of player and lap limits for every command and for stage files (issue 19 item 5).

``validate``, ``simulate`` and ``car suggest`` took 1-6 players and ``generate`` 1-8;
``laps: 200`` validated while ``simulate --laps`` stopped at 100 and ``generate --laps``
at 20. The limits now live in :mod:`trackkit.limits` and every option and the stage
model read them from there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from stagekit import REPO
from typer.testing import CliRunner

from trackkit import limits
from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.errors import InputError
from trackkit.formats import parse_stage

runner = CliRunner()
TURINI = REPO / "examples" / "col-de-turini.yaml"
CIRCUIT = REPO / "examples" / "gt-core-circuit.yaml"


#: Every command with ``--players`` or ``--laps``, with arguments that stop it at once
#: after its options are read (a file that does not exist): an option out of range is
#: refused before that, naming the option.
TAKING = {
    "validate": (["validate", "missing.yaml"], ("--players",)),
    "simulate": (["simulate", "missing.yaml"], ("--players", "--laps")),
    "car suggest": (["car", "suggest", "missing.yaml"], ("--players",)),
    "generate": (
        ["generate", "--ruleset", "gt", "--boxes", "no-such-box", "-o", "out"],
        ("--players", "--laps"),
    ),
}


@pytest.mark.parametrize("command", list(TAKING))
def test_board_3_default_every_players_and_laps_option_has_the_one_range(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args, options = TAKING[command]
    ranges = {"--players": (limits.MIN_PLAYERS, limits.MAX_PLAYERS)}
    ranges["--laps"] = (limits.MIN_LAPS, limits.MAX_LAPS)
    for option in options:
        low, high = ranges[option]
        for value in (low, high):
            result = runner.invoke(app, [*args, option, str(value)])
            assert result.exit_code == 2 and option not in result.output, (value, result.output)
        for value in (low - 1, high + 1):
            result = runner.invoke(app, [*args, option, str(value)])
            assert result.exit_code == 2 and option in result.output, (value, result.output)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_board_3_default_the_most_players_race_a_dirt_stage_and_one_more_is_refused(
    command: str,
) -> None:
    extra = ["--simulate", "2"] if command == "validate" else ["--races", "2"]
    most = runner.invoke(app, [command, str(TURINI), *extra, "--players", str(limits.MAX_PLAYERS)])
    assert most.exit_code == 0, most.output
    too_many = runner.invoke(
        app, [command, str(TURINI), *extra, "--players", str(limits.MAX_PLAYERS + 1)]
    )
    assert too_many.exit_code == 2 and "--players" in too_many.output


def _circuit_with_laps(laps: int) -> str:
    doc = yaml.safe_load(CIRCUIT.read_text(encoding="utf-8"))
    doc["laps"] = laps
    return yaml.safe_dump(doc, sort_keys=False)


def test_board_3_default_a_files_laps_go_as_far_as_the_option() -> None:
    stage = parse_stage(_circuit_with_laps(limits.MAX_LAPS), file="c.yaml")
    report = validate(stage)
    assert report.valid and stage.laps == limits.MAX_LAPS
    with pytest.raises(InputError, match="laps") as err:
        parse_stage(_circuit_with_laps(limits.MAX_LAPS + 1), file="c.yaml")
    assert "line" in err.value.message
    # below one lap stays a finding the validator places (S131), not unusable input
    zero = validate(parse_stage(_circuit_with_laps(0), file="c.yaml"))
    assert "S131" in {f.code for f in zero.findings}


def test_board_3_default_a_file_with_too_many_laps_exits_2_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(_circuit_with_laps(limits.MAX_LAPS + 1), encoding="utf-8")
    for args in (["validate", str(path)], ["simulate", str(path), "--races", "1"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and str(path) in result.stderr, result.output
        assert "laps" in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--laps", limits.MAX_LAPS + 1),
        ("--laps", limits.MIN_LAPS - 1),
        ("--players", limits.MAX_PLAYERS + 1),
        ("--players", limits.MIN_PLAYERS - 1),
    ],
)
def test_board_3_default_generate_refuses_what_the_other_commands_refuse(
    option: str, value: int, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["generate", "--ruleset", "gt", "--boxes", "gt-core", option, str(value), "-o", out]
    )
    assert result.exit_code == 2 and option in result.output, result.output
    assert not out.exists()
