"""Race statistics that tell the truth (issue 19, item 2).

Losses of control are charged where the danger limit broke (one rule for both series), the
heat scale says when there were none; tied races share their win and the fairness findings
P604/P606 use a significance test; a hillclimb's default drivers make races that vary; a
race in the rain is the race in the dry (GT-3), as the help says.
"""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from stagekit import REPO
from typer.testing import CliRunner

from trackkit.cli import app
from trackkit.formats import load_stage
from trackkit.rules import CarState, Mode, ScriptedDice, legal_plans, new_table, position, resolve
from trackkit.rules.blame import loss_space
from trackkit.rules.plans import Plan
from trackkit.rules.track import Track
from trackkit.sim import DriverSpec, RacePosition, Script, Settings, prepare, run_race
from trackkit.sim.stats import race_seed
from trackkit.validate import validate

EXAMPLES = REPO / "examples"
NS = "{http://www.w3.org/2000/svg}"
runner = CliRunner()


def _turini() -> Track:
    report = validate(load_stage(EXAMPLES / "col-de-turini.yaml"))
    return Track.from_graph(report.graph, report.layout)


# --- losses of control are charged where the limit broke ------------------------------------

#: Col de Turini's finish: 203a is tile 12, its line between rows 2 and 3 (12:1.3 is past it).
FINISHING = "11:1.2L G4 > 12:1.1L G5 > 12:1.2L G6 > 12:1.3L L"  # L: alone, it leads


def _finish_turn(dice: list[str]) -> tuple[list[tuple[int, str]], str | None, bool]:
    """A car on 11:1.1L in gear 3 throws FINISHING flat out with ``dice``: its losses as
    the race charges them, the loss event's space and whether it finished."""
    track = _turini()
    me = DriverSpec("me", bot=Script.of([FINISHING], then="cautious"))
    result = run_race(
        prepare(track),
        Settings((me,)),
        seed=1,
        start=RacePosition((CarState(0, "11:1.1L", 3),)),
        dice=ScriptedDice(dice),
    )
    turn = result.log[0]
    assert turn.plan == FINISHING
    loss = next((e for e in turn.events if e.kind == "loss-of-control"), None)
    return result.drivers[0].losses, loss.space if loss else None, result.drivers[0].finished


def test_a_dirt_flat_out_loss_is_charged_where_the_limit_broke_not_past_the_finish_line():
    # rule: TURN-4 (DIRT, flat out: the dice are placed again and control is lost on the
    # furthest step they allow, DEFAULT), TURN-6 (DIRT: reaching the limit of 3),
    # LOC-1..4 DEFAULT (a loss on the move over the finish line: the car finishes)
    losses, event, finished = _finish_turn(["danger", "danger", "danger", "safe"])
    assert finished and event == "12:1.3L"  # the car rolled over the line, out of control
    assert losses == [(12, "12:1.2L")]  # the third danger, on 12:1.2L, reached the limit
    # the die on the space past the line broke the limit: charged there, where it happened
    losses, event, finished = _finish_turn(["danger", "danger", "safe", "danger"])
    assert finished and losses == [(12, "12:1.3L")] and event == "12:1.3L"


def test_loss_space_is_one_rule_for_dirt_and_gt_reach_and_exceed():
    # rule: TURN-6 (DIRT reaches the limit, GT exceeds it), LOC-7 (SISU cancels the dice)
    from trackkit.rules.ruleset import load_ruleset

    ctx = position(["202a", "205a", "206a", "204a", "203a"], space="2:1.1L", gear=3)
    plan = next(
        p for p in legal_plans(ctx) if str(p) == "2:1.2L G4 > 2:1.3L G5 > 3:1.1L G6 > 3:1.2L C"
    )
    rng = random.Random(1)
    dice = ["danger", "danger", "danger", "danger"]
    out = resolve(
        ctx, plan, Mode.FLAT_OUT, rng, table=new_table(ctx.ruleset, rng), dice=ScriptedDice(dice)
    )
    assert out.lost_control and out.car.space == "3:1.2L"
    assert loss_space(ctx.ruleset, plan, Mode.FLAT_OUT, out.events) == "3:1.1L"  # 3 reached
    exceed = load_ruleset("dirt").model_copy(update={"danger_limit_rule": "exceed"})
    assert loss_space(exceed, plan, Mode.FLAT_OUT, out.events) == "3:1.2L"  # 4 > 3
    # one by one, control is lost on the die that reached the limit: charged there
    one = resolve(
        ctx, plan, Mode.ONE_BY_ONE, rng, table=new_table(ctx.ruleset, rng), dice=ScriptedDice(dice)
    )
    assert one.lost_control and one.car.space == "3:1.1L"
    assert loss_space(ctx.ruleset, plan, Mode.ONE_BY_ONE, one.events) == "3:1.1L"
    assert loss_space(ctx.ruleset, plan, Mode.FLAT_OUT, []) is None  # no loss, no space


def test_dirt_races_charge_each_loss_to_its_step_and_some_are_not_where_the_car_stopped():
    prepared = prepare(_turini())
    settings = Settings.default(4, bots=("aggressive",))
    elsewhere = 0
    for i in range(4):
        result = run_race(prepared, settings, race_seed(1, i))
        for driver, d in enumerate(result.drivers):
            turns = [
                t
                for t in result.log
                if t.driver == driver and any(e.kind == "loss-of-control" for e in t.events)
            ]
            assert len(turns) == len(d.losses)
            for t, (tile, space) in zip(turns, d.losses, strict=True):
                loss = next(e for e in t.events if e.kind == "loss-of-control")
                rules = prepared.ruleset
                assert space == loss_space(rules, Plan(tuple(t.steps)), Mode(t.mode), t.events)
                assert tile == prepared.track.spaces[space].tile
                elsewhere += space != loss.space
    assert elsewhere > 0  # flat out, the car often stops past the step that broke the limit


def _heat_svg(tmp_path: Path, stage: Path, doc: dict[str, Any]) -> ET.Element:
    sim = tmp_path / "sim.json"
    sim.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "heat.svg"
    done = runner.invoke(app, ["render", str(stage), "-o", str(out), "--heat", str(sim)])
    assert done.exit_code == 0, done.output
    scale = ET.parse(out).getroot().find(f".//{NS}g[@id='heat-scale']")
    assert scale is not None
    return scale


def test_a_heat_scale_with_no_loss_of_control_says_so_instead_of_0_to_0(tmp_path: Path):
    pikes = EXAMPLES / "hillclimb-pikes.yaml"
    doc = {
        "settings": {"races": 7},
        "stage": {"tiles": [t.tile for t in load_stage(pikes).tiles]},
        "loss_of_control": {"by_space": {}},
    }
    scale = _heat_svg(tmp_path, pikes, doc)
    texts = {t.get("class"): t.text or "" for t in scale.iter(f"{NS}text")}
    assert "heat-tick" not in texts  # no 0.00 ... 0.00
    assert not [g for g in scale.iter(f"{NS}g") if g.get("class") == "heat-bar"]
    assert "7 races" in texts["heat-none"]
    # with losses, the bar and its ticks are back, and no such line
    doc["loss_of_control"] = {"by_space": {"4:1.1L": 7}}
    scale = _heat_svg(tmp_path, pikes, doc)
    ticks = [t.text for t in scale.iter(f"{NS}text") if t.get("class") == "heat-tick"]
    assert ticks == ["0.00", "0.50", "1.00"]
    assert not [t for t in scale.iter(f"{NS}text") if t.get("class") == "heat-none"]


def test_a_gt_heat_scale_with_no_loss_of_control_says_so(tmp_path: Path):
    core = EXAMPLES / "gt-core-circuit.yaml"
    done = runner.invoke(app, ["simulate", str(core), "--races", "2", "--format", "json"])
    doc = json.loads(done.stdout)
    doc["loss_of_control"]["by_space"] = {}
    doc["loss_of_control"]["by_tile"] = {}
    scale = _heat_svg(tmp_path, core, doc)
    none = [t.text or "" for t in scale.iter(f"{NS}text") if t.get("class") == "heat-none"]
    assert len(none) == 1 and "2 races" in none[0]
    assert not [g for g in scale.iter(f"{NS}g") if g.get("class") == "heat-bar"]
