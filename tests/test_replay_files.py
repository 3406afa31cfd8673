"""Replay files of GT races: a mismatch counts drivers from 1 and shows the first event that
differs; the log keeps focus events, not seconds, and older files still replay.
"""

from __future__ import annotations

import json
from pathlib import Path

from stagekit import REPO
from typer.testing import CliRunner

from trackkit.cli.app import app
from trackkit.rules import load_ruleset

GT = load_ruleset("gt")
runner = CliRunner()


# --- 6. replay mismatch messages --------------------------------------------------------


def _gt_replay(tmp_path: Path, bot: str = "aggressive") -> dict[str, object]:
    path = tmp_path / "race.json"
    out = runner.invoke(
        app,
        [
            "simulate",
            str(REPO / "examples/gt-core-circuit.yaml"),
            "--races",
            "1",
            "--bot",
            bot,
            "--replay",
            str(path),
        ],
    )
    assert out.exit_code == 0, out.output
    doc: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def test_replay_mismatch_counts_drivers_from_1_and_shows_the_first_differing_event(
    tmp_path: Path,
):
    from trackkit.sim.replay import check_replay

    doc = _gt_replay(tmp_path)
    assert check_replay(doc)[0]
    log = doc["log"]
    assert isinstance(log, list)
    k = next(i for i in range(1, len(log)) if log[i]["driver"] != log[i - 1]["driver"])
    gone = {**doc, "log": log[:k] + log[k + 1 :]}  # one turn deleted: the next is another's
    ok, message = check_replay(gone)
    recorded, replayed = log[k + 1]["driver"] + 1, log[k]["driver"] + 1
    assert not ok and f"driver {replayed})" in message
    assert f"recorded driver {recorded}, replayed driver {replayed}" in message
    last = json.loads(json.dumps(doc))
    turn = last["log"][5]
    events = turn["events"]
    where = next(i for i in range(len(events) - 1, -1, -1) if events[i].get("space"))
    events[where]["space"] = "7:A1a" if events[where]["space"] != "7:A1a" else "8:A1a"
    ok, message = check_replay(last)
    assert not ok and f"event {where + 1} of {len(events)}" in message
    assert f"space='{events[where]['space']}'" in message  # the event itself, whole
    assert f"space='{doc['log'][5]['events'][where]['space']}'" in message


# --- 7. small things --------------------------------------------------------------------


def test_gt_replays_have_focus_events_not_seconds_and_old_ones_still_replay(tmp_path: Path):
    from trackkit.sim.replay import check_replay

    doc = _gt_replay(tmp_path)
    kinds = {e["kind"] for t in doc["log"] for e in t["events"]}  # type: ignore[attr-defined]
    assert "focus" in kinds and "seconds" not in kinds  # GT-5: focus tokens, no time
    old = json.loads(json.dumps(doc).replace('"kind": "focus"', '"kind": "seconds"'))
    assert check_replay(old)[0]  # written before: still checked event by event
    tampered = json.loads(json.dumps(doc))
    focus = next(e for t in tampered["log"] for e in t["events"] if e["kind"] == "focus")
    focus["value"] += 1
    assert not check_replay(tampered)[0]
