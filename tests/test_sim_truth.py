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

import pytest
from stagekit import REPO, sim_report
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.rules import CarState, Mode, ScriptedDice, legal_plans, new_table, position, resolve
from trackkit.rules.blame import loss_space
from trackkit.rules.plans import Plan
from trackkit.rules.track import Track
from trackkit.sim import DriverSpec, RacePosition, Script, Settings, prepare, run_race
from trackkit.sim.stats import race_seed

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


# --- tied races share their win; P604 and P606 test against chance --------------------------


def _summaries(times: list[tuple[int | None, ...]]) -> list[Any]:
    """Race summaries with these best times (the rest of a race left empty)."""
    from trackkit.sim.figures import RaceSummary

    return [
        RaceSummary(
            times=t,
            attempts=tuple((x,) if x is not None else () for x in t),
            finished=tuple(x is not None for x in t),
            losses=(),
            blocked=(),
            stuck=(),
            rounds=20,
            start_positions=tuple(range(len(t))),
        )
        for t in times
    ]


def _doc(times: list[tuple[int | None, ...]], bots: tuple[str, ...] = ("cautious",)) -> Any:
    from trackkit.sim.stats import summarize_races

    settings = Settings.default(len(times[0]), bots=bots)
    return summarize_races(_summaries(times), settings, seed=1, tiles={})


def _p604(doc: Any, races: int) -> list[str]:
    from trackkit.sim.playability import findings_from

    report = validate(load_stage(EXAMPLES / "col-de-turini.yaml"))
    players = doc.settings.players
    return [
        f.message
        for f in findings_from(doc, report, races=races, players=players)
        if f.code == "P604"
    ]


def test_a_tied_race_shares_its_win_and_p604_does_not_count_ties_for_position_1():
    # rule: TIME-2 (the best time wins: a best time shared is a tie), TURN-1 (a driver's
    # number is its start position). Pikes with four cautious drivers: 170 s nearly always.
    times = [(170, 170, 170, 170)] * 46 + [(165, 170, 170, 170)] * 4
    doc = _doc(times)
    assert doc.dirt.tied_races == 46
    assert doc.dirt.wins_by_start_position == {"1": 15.5, "2": 11.5, "3": 11.5, "4": 11.5}
    assert doc.dirt.outright_wins_by_start_position == {"1": 4, "2": 0, "3": 0, "4": 0}
    (group,) = doc.dirt.start_position_test.groups
    assert (group.most, group.most_wins, group.races, group.tied) == ("1", 4, 4, 46)
    assert not group.significant  # 4 races with one winner: too few to tell
    assert _p604(doc, 50) == []  # (giving every tie to position 1 made it "46 of 50")
    # a driver with no time shares nothing; a race nobody finished has no winner
    doc = _doc([(None, 170, 170), (None, None, None), (150, None, 151)])
    assert doc.dirt.wins_by_start_position == {"1": 1.0, "2": 0.5, "3": 0.5}
    assert doc.dirt.tied_races == 1


def test_p604_is_an_exact_binomial_test_against_an_equal_share_at_p_below_0_01():
    from fractions import Fraction
    from math import comb

    def tail(k: int, n: int, p: Fraction) -> float:
        return float(sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)))

    # 40 of 100 races for position 1 of 4: p = 4 x P(X >= 40), X ~ B(100, 1/4)
    wins = [0] * 40 + [1] * 20 + [2] * 20 + [3] * 20
    times = [tuple(150 if i == w else 160 for i in range(4)) for w in wins]
    doc = _doc(times)
    (group,) = doc.dirt.start_position_test.groups
    assert group.p_value == pytest.approx(4 * tail(40, 100, Fraction(1, 4)), rel=1e-3)
    assert group.significant and group.p_value < 0.01
    (message,) = _p604(doc, 100)
    assert "binomial" in message and "0.01" in message  # it names the test and threshold
    # 30 of 100: chance does that often enough (p > 0.01): no finding
    wins = [0] * 30 + [1] * 25 + [2] * 25 + [3] * 20
    doc = _doc([tuple(150 if i == w else 160 for i in range(4)) for w in wins])
    assert doc.dirt.start_position_test.groups[0].p_value > 0.01
    assert _p604(doc, 100) == []
    # 9 of 10 with two drivers (the old rule's "more than 60 %"): p = 2 x 11/1024 > 0.01
    doc = _doc([(150, 160)] * 9 + [(160, 150)])
    assert doc.dirt.start_position_test.groups[0].p_value == pytest.approx(2 * 11 / 1024, rel=1e-3)
    assert _p604(doc, 10) == []
    assert len(_p604(_doc([(150, 160)] * 10), 10)) == 1  # 10 of 10: p = 2/1024


def test_p604_compares_start_positions_only_among_drivers_alike():
    # the aggressive driver (start position 2) wins every race: that is its bot, not the
    # stage; the two cautious drivers (1 and 4) are compared with each other
    bots = ("cautious", "aggressive", "planner")
    doc = _doc([(170, 100, 150, 171)] * 30, bots=bots)
    assert doc.dirt.wins_by_start_position["2"] == 30
    (group,) = doc.dirt.start_position_test.groups
    assert group.start_positions == [1, 4] and group.bot == "cautious"
    assert group.won_alone == {"1": 30, "4": 0}
    (message,) = _p604(doc, 30)  # of the cautious two, position 1 was first every time
    assert "start position 1" in message
    doc = _doc([(170, 100, 150, 170)] * 30, bots=bots)  # the cautious two always tie
    assert doc.dirt.start_position_test.groups[0].tied == 30 and _p604(doc, 30) == []


def test_p606_is_the_same_test_for_gt_grid_slots():
    # rule: BOARD-3 (the grid slots, drawn anew each race)
    from trackkit.sim.playability import gt_findings

    report = validate(load_stage(EXAMPLES / "gt-core-circuit.yaml"))

    def p606(wins: dict[str, int]) -> list[str]:
        doc = sim_report(
            gt=True,
            players=len(wins),
            settings={"races": sum(wins.values())},
            wins_by_grid_slot=wins,
            win_rate_by_grid_slot={k: v / sum(wins.values()) for k, v in wins.items()},
            overtakes={"per_lap": 2.0, "per_race": 6.0},
            decided_on_lap_1=0.5,
        )
        found = gt_findings(doc, report, races=sum(wins.values()), players=len(wins))
        return [f.message for f in found if f.code == "P606"]

    # pole 11 of 20 (the old rule's "more than half"): 4 x P(X >= 11) = 0.016, chance
    assert p606({"1": 11, "2": 3, "3": 3, "4": 3}) == []
    (message,) = p606({"1": 15, "2": 3, "3": 1, "4": 1})
    assert "binomial" in message and "0.01" in message


def test_simulate_text_and_json_say_how_many_races_were_tied():
    pikes = str(EXAMPLES / "hillclimb-pikes.yaml")
    args = ["simulate", pikes, "--races", "10", "--bot", "cautious"]
    doc = json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)
    assert doc["tied_races"] >= 5  # four cautious drivers: 170 s, race after race
    assert sum(doc["wins_by_start_position"].values()) == 10
    assert doc["wins_by_start_position"]["1"] < doc["tied_races"]
    text = runner.invoke(app, args).stdout
    line = next(ln for ln in text.splitlines() if ln.startswith("wins by start position"))
    assert f"{doc['tied_races']} of 10 races tied" in line


# --- the default drivers make races that vary ------------------------------------------------


def _help() -> str:
    """``simulate --help`` as words, without the boxes' borders."""
    out = runner.invoke(app, ["simulate", "--help"], terminal_width=200).output
    return " ".join(out.replace("\u2502", " ").split())


def _sim_json(*args: str) -> dict[str, Any]:
    done = runner.invoke(app, ["simulate", *args, "--format", "json"])
    assert done.exit_code == 0, done.output
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def test_a_hillclimb_raced_with_the_default_drivers_varies_and_says_something():
    # rule: DASH-3 (each bot builds its Unlimited board), HILLCLIMB-2 (best of the attempts)
    pikes = str(EXAMPLES / "hillclimb-pikes.yaml")
    doc = _sim_json(pikes, "--races", "20")
    assert doc["settings"]["bots"] == ["cautious", "aggressive", "planner", "cautious"]
    best = doc["hillclimb"]["best_of_attempts"]
    assert best["p10"] < best["p90"]  # the times vary from race to race
    assert doc["loss_of_control"]["per_race"] > 0 and doc["loss_of_control"]["by_tile"]
    # four cautious drivers (the old default) drive 170 s every race and never lose control
    cautious = _sim_json(pikes, "--races", "20", "--bot", "cautious")
    assert (
        cautious["hillclimb"]["best_of_attempts"]["p10"]
        == cautious["hillclimb"]["best_of_attempts"]["p90"]
    )
    assert cautious["loss_of_control"]["per_race"] == 0
    # validate --simulate races the same drivers
    done = runner.invoke(app, ["validate", pikes, "--simulate", "20", "--format", "json"])
    sim = json.loads(done.stdout)["files"][0]["summary"]["simulation"]
    assert sim["mean_time"] == doc["time"]["overall"]["mean"]
    assert sim["losses_per_race"] == doc["loss_of_control"]["per_race"]
    # and the help says what the default is
    assert "cautious, aggressive and planner in turn" in _help()


def test_a_rally_keeps_its_cautious_drivers_whose_races_vary_already():
    doc = _sim_json(str(EXAMPLES / "col-de-turini.yaml"), "--races", "20")
    assert doc["settings"]["bots"] == ["cautious"] * 4
    overall = doc["time"]["overall"]
    assert overall["p10"] < overall["p90"] and doc["loss_of_control"]["per_race"] > 0


# --- a race in the rain: the same race, on rain tyres (GT-3) ---------------------------------


def test_a_race_that_starts_in_the_rain_is_turn_for_turn_the_race_that_starts_in_the_dry():
    # rule: GT-3 (no rain side of the dashboards: only tyres that do not suit the weather
    # cost; every car starts on the tyres of the weather, DEFAULT), DASH-2, DAMAGE-4 (the
    # weather token turns the weather either way)
    from trackkit.sim.gt_race import GtOptions

    report = validate(load_stage(EXAMPLES / "gt-core-circuit.yaml"))
    prepared = prepare(Track.from_graph(report.graph, report.layout))

    def race(weather: str, seed: int) -> Any:
        settings = Settings.default(
            6, bots=("aggressive", "planner"), gt=GtOptions(laps=3, weather=weather)
        )
        return run_race(prepared, settings, seed)

    def turns(result: Any) -> list[Any]:  # every turn's plan, mode and dice, not the names
        return [
            (t.round, t.driver, t.plan, t.mode, [(e.kind, e.space, e.value) for e in t.events])
            for t in result.log
        ]

    other = {"dry": "rain", "rain": "dry"}
    changed = None
    for seed in range(1, 30):
        dry, rain = race("dry", seed), race("rain", seed)
        assert turns(dry) == turns(rain)
        assert [(r, other[w]) for r, _d, w in dry.gt.weather] == [
            (r, w) for r, _d, w in rain.gt.weather
        ]
        if rain.gt.weather and changed is None:
            changed = rain
    assert changed is not None, "no weather change in 30 races"
    # in the rain every car drives on rain tyres with the full limit of 3 (DASH-2) until a
    # weather token turns it dry: then rain tyres are the wrong ones, limit 2 (GT-3)
    turned = changed.gt.weather[0][0]
    before = [s.limit for t in changed.log if t.round < turned and t.steps for s in t.steps]
    after = [s.limit for t in changed.log if t.round > turned + 1 and t.steps for s in t.steps]
    assert set(before) == {3} and 2 in after
    # the help says so, naming the rule
    assert "GT-3" in _help() and "no rain side" in _help()
