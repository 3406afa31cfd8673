"""Fixes of GT races after a user review (issue 12): the plan memo, point-to-point races,
long races, one-lap races, where losses are charged, replay messages, small wording.

Positions are taken on the example circuit ``examples/gt-core-circuit.yaml`` and the Rekee
figure of eight, as in ``tests/test_gt_race.py``.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
from stagekit import sim_report
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.rules import CarState, Damage, load_ruleset
from trackkit.rules.plans import GtTurn, PlanContext
from trackkit.rules.state import OtherCar
from trackkit.rules.track import Track
from trackkit.sim.bots import BOTS, Bot, Wish, make_bot
from trackkit.sim.gt_race import GtOptions, tyre_boards
from trackkit.sim.memo import PlanMemo
from trackkit.sim.race import Prepared, Settings, prepare, run_race
from trackkit.sim.roads import GtRoad
from trackkit.sim.stats import race_seed
from trackkit.sim.stats import race_summary as _summary

REPO = Path(__file__).resolve().parents[1]
GT = load_ruleset("gt")
runner = CliRunner()


def _prepared(name: str) -> Prepared:
    report = validate(load_stage(REPO / "examples" / name))
    return prepare(Track.from_graph(report.graph, report.layout), GT)


def gt_bot(name: str, memo: PlanMemo | None = None) -> Bot:
    """A bot reading the road as a GT race's bots do."""
    return make_bot(name, memo, road=GtRoad)


CORE = _prepared("gt-core-circuit.yaml")
EIGHT = _prepared("gt-figure-eight.rekee.json")


# --- 1. the plan memo is exact on GT ----------------------------------------------------


@pytest.mark.parametrize("stage", [CORE, EIGHT], ids=["core", "eight"])
def test_gt_plan_memo_equals_a_fresh_search_on_random_positions(stage: Prepared):
    """Random cars close around (beside, in other lanes just ahead, off the road), gears
    0-6, damage, right or wrong tyres, last lap, flying start, a yellow flag, a pit wish,
    focus tokens and laps driven: a plan from a warm memo is the plan a fresh search finds."""
    track = stage.track
    rng = random.Random(12)  # seeded: the same positions every run
    order = sorted(track.spaces, key=lambda n: (track.spaces[n].progress, n))
    starts = rng.sample([s for s in order if track.successors[s]], 12)
    boards = [b for car in ("gt4", "gt5", "gt6") for b in tyre_boards(stage, car).values()]
    memo = PlanMemo(track, GT, moves=6)
    remembered = {b: gt_bot(b, memo) for b in BOTS}
    fresh = {b: gt_bot(b) for b in BOTS}
    for _ in range(300):
        me = rng.choice(starts)
        taken = {me} | set(track.overlaps.get(me, ()))
        others = []
        for _ in range(rng.randint(0, 5)):
            i = order.index(me) + rng.randint(-4, 24)
            space = order[i % len(order)]  # round the lap
            if space not in taken:
                taken |= {space} | set(track.overlaps.get(space, ()))
                others.append(OtherCar(space, rng.randint(0, 6), rng.random() < 0.85))
        rng.shuffle(others)
        car = CarState(
            car_id=0,
            space=me,
            gear=rng.randint(0, 6),
            damage=Damage(gear=rng.choice([0, 0, 1]), brake=rng.choice([0, 0, 1])),
            second_tokens=rng.randint(0, 6),  # focus tokens: no plan reads them (GT-5)
            crossings=rng.randint(1, 3),
        )
        gt = GtTurn(
            final_lap=rng.random() < 0.3, yellow=rng.random() < 0.1, flying=rng.random() < 0.5
        )
        ctx = PlanContext(track, rng.choice(boards), GT, car, tuple(others), gt=gt)
        # the same car with the other cars listed the other way round, or one of them
        # gone: the memo holds one own part with several neighbourhoods
        variants = [ctx, replace(ctx, others=tuple(reversed(others)))]
        variants += [
            replace(ctx, others=tuple(others[:k] + others[k + 1 :])) for k in range(len(others))
        ]
        wish = Wish(pit=rng.random() < 0.2)
        for b in BOTS:
            remembered[b].wish = fresh[b].wish = wish
            for pos in variants:
                assert remembered[b].plan(pos) == fresh[b].plan(pos), (b, me, car, pos.others, gt)
    assert memo.hits > 300  # the repeated positions were answered from the memo


def test_gt_planner_memo_keys_on_a_car_ahead_in_a_lane_it_cannot_reach():
    """The planner counts the cars it gets past (OVERTAKE_MM, weighed by the risk), also a
    car in the third lane just ahead that no plan from the first lane can reach: the memo
    must tell the position with that car from the one without it."""
    board = tyre_boards(CORE, "gt6")["right"]
    car = CarState(car_id=0, space="9:A1a", gear=2)
    alone = PlanContext(CORE.track, board, GT, car, gt=GtTurn())
    ahead = replace(alone, others=(OtherCar("9:A3a", 1),))
    fresh = gt_bot("planner")
    assert fresh.plan(alone) != fresh.plan(ahead)  # the car ahead changes the plan
    memo = PlanMemo(CORE.track, GT, moves=6)
    remembered = gt_bot("planner", memo)
    assert remembered.plan(alone) == fresh.plan(alone)
    assert remembered.plan(ahead) == fresh.plan(ahead)
    assert remembered.plan(alone) == fresh.plan(alone) and memo.hits == 1


def test_gt_plan_memo_equals_a_fresh_search_on_race_positions(monkeypatch: pytest.MonkeyPatch):
    """Positions as races make them (four and six cars wheel to wheel, seeded), asked of
    one warm memo in a shuffled order: each plan is the plan a fresh search finds."""
    seen: list[tuple[str, Wish, PlanContext]] = []
    search = Bot.search

    def record(self: Bot, ctx: PlanContext) -> object:
        seen.append((self.name, self.wish, ctx))
        return search(self, ctx)

    monkeypatch.setattr(Bot, "search", record)
    for players, bots, races in ((4, ("planner",), 14), (6, ("planner", "aggressive"), 4)):
        settings = Settings.default(players, bots=bots, gt=GtOptions(laps=3))
        for i in range(races):
            run_race(replace(CORE, memo=None), settings, race_seed(1, i))
    monkeypatch.setattr(Bot, "search", search)
    memo = PlanMemo(CORE.track, GT, moves=6)
    remembered = {b: gt_bot(b, memo) for b in BOTS}
    fresh = {b: gt_bot(b) for b in BOTS}
    for name, wish, ctx in seen:
        remembered[name].wish = fresh[name].wish = wish
        assert remembered[name].plan(ctx) == fresh[name].plan(ctx), (name, ctx.car, ctx.others)
    assert memo.hits > len(seen) // 10


def test_gt_races_after_others_in_one_process_are_the_races_alone():
    """The reviewer's case: with seed 1, races 11 and 13 of four planners came out
    differently after races 0-10 had warmed the shared memo."""
    settings = Settings.default(4, bots=("planner",), gt=GtOptions(laps=3))
    warm = prepare(CORE.track, GT)
    for i in range(11):
        run_race(warm, settings, race_seed(1, i))
    for i in (11, 13):
        alone = run_race(prepare(CORE.track, GT), settings, race_seed(1, i))
        assert _summary(run_race(warm, settings, race_seed(1, i))) == _summary(alone)


def _simulate(*args: str) -> str:
    out = runner.invoke(app, ["simulate", *args, "--format", "json"])
    assert out.exit_code == 0, out.output
    return out.output


def test_simulate_gt_planner_jobs_1_and_2_give_the_same_document():
    core = str(REPO / "examples/gt-core-circuit.yaml")
    args = (core, "--races", "24", "--bot", "planner", "--seed", "1")
    one = _simulate(*args, "--jobs", "1")
    assert one == _simulate(*args, "--jobs", "2")
    mixed = (core, "--races", "12", "--players", "6", "--bot", "planner", "--bot", "aggressive")
    assert _simulate(*mixed, "--seed", "7", "--jobs", "1") == _simulate(
        *mixed, "--seed", "7", "--jobs", "2"
    )


def test_validate_simulate_on_gt_is_the_same_with_any_jobs():
    from trackkit.sim.playability import playability

    report = validate(load_stage(REPO / "examples/gt-core-circuit.yaml"))
    one = playability(report, races=16, seed=1, jobs=1)
    two = playability(report, races=16, seed=1, jobs=2)
    assert one[1].to_json() == two[1].to_json()
    assert [(f.code, f.message) for f in one[0]] == [(f.code, f.message) for f in two[0]]
    cli = runner.invoke(
        app,
        [
            "validate",
            str(REPO / "examples/gt-core-circuit.yaml"),
            "--simulate",
            "16",
            "--format",
            "json",
        ],
    )
    assert cli.exit_code == 0, cli.output
    summary = json.loads(cli.output)["files"][0]["summary"]
    assert summary["simulation"] == one[1].to_json()["simulation"]


# --- 2. a point-to-point GT track has no laps -------------------------------------------

SPRINT = """format: trackkit-stage/1
name: Short sprint
kind: point-to-point
tiles:
  - tile: 144b
    road: A
    enter: 1
  - tile: 121b
  - tile: 143b
    road: B
    enter: 4
"""


@pytest.fixture()
def sprint(tmp_path: Path) -> Path:
    path = tmp_path / "sprint.yaml"
    path.write_text(SPRINT, encoding="utf-8")
    return path


def test_point_to_point_gt_races_report_no_laps(sprint: Path):
    doc = json.loads(_simulate(str(sprint), "--races", "6"))
    assert doc["settings"]["laps"] is None and doc["settings"]["point_to_point"] is True
    assert doc["overtakes"]["per_lap"] is None and doc["overtakes"]["by_lap"] == {}
    assert doc["overtakes"]["per_race"] == round(doc["overtakes"]["total"] / 6, 4)
    assert doc["decided_on_lap_1"] is None and doc["laps_led"] is None
    assert all(d["laps_led_per_race"] is None for d in doc["drivers"])
    assert doc["finish_rate"] == 1.0 and sum(doc["wins_by_grid_slot"].values()) == 6
    text = runner.invoke(app, ["simulate", str(sprint), "--races", "6"])
    assert text.exit_code == 0, text.output
    head = text.output.splitlines()
    assert head[0].startswith("6 races point to point, 4 drivers")
    assert "overtakes per race" in head[1] and "lap" not in head[1]
    assert " led " not in head[3] and "passes" in head[3]
    circuit = json.loads(_simulate(str(REPO / "examples/gt-core-circuit.yaml"), "--races", "2"))
    assert circuit["settings"]["point_to_point"] is False and circuit["settings"]["laps"] == 3


def test_point_to_point_gt_refuses_laps(sprint: Path):
    for args in ([], ["--format", "json"]):
        out = runner.invoke(app, ["simulate", str(sprint), "--laps", "3", *args])
        assert out.exit_code == 2
        assert "--laps" in out.output and "point-to-point" in out.output


def test_point_to_point_gt_playability_counts_per_race(sprint: Path):
    from trackkit.sim.playability import gt_findings, playability

    report = validate(load_stage(sprint))
    found, extras = playability(report, races=12, seed=1)
    sim = extras.simulation.gt
    assert sim.laps is None and sim.overtakes_per_lap is None
    assert sim.decided_on_lap_1 is None and sim.overtakes_per_race > 0
    assert "P610" not in [f.code for f in found]
    p607 = next(f for f in found if f.code == "P607")
    assert f"{sim.overtakes_per_race:.2f} overtakes per race" in p607.message
    # P608 on a point-to-point track: overtakes per race (one drive of the track, a lap's)
    doc = sim_report(
        gt=True,
        players=4,
        settings={"laps": None, "point_to_point": True, "races": 12},
        wins_by_grid_slot={},
        overtakes={"per_lap": None, "per_race": 0.3},
        decided_on_lap_1=None,
    )
    assert "P608" in [f.code for f in gt_findings(doc, report, races=12, players=4)]
    busy = sim_report(
        gt=True,
        players=4,
        settings={"laps": None, "point_to_point": True, "races": 12},
        wins_by_grid_slot={},
        overtakes={"per_lap": None, "per_race": 0.8},
    )
    assert "P608" not in [f.code for f in gt_findings(busy, report, races=12, players=4)]
    text = runner.invoke(app, ["validate", str(sprint), "--simulate", "12"])
    assert text.exit_code == 0, text.output
    line = next(x for x in text.output.splitlines() if "simulated" in x)
    assert "point to point" in line and "lap" not in line


# --- 3. long races: the round cap scales with the laps ----------------------------------


def test_the_default_round_cap_lets_a_long_gt_race_finish():
    from trackkit.sim.gt_race import gt_round_cap

    track = CORE.track
    assert gt_round_cap(track, 3) == 200  # a race of the usual laps keeps DIRT's cap
    assert gt_round_cap(track, 100) > gt_round_cap(track, 50) > 200
    doc = json.loads(
        _simulate(str(REPO / "examples/gt-core-circuit.yaml"), "--races", "1", "--laps", "100")
    )
    assert doc["settings"]["max_rounds"] == gt_round_cap(track, 100)
    assert doc["finish_rate"] == 1.0 and doc["overtakes"]["laps_driven"] == 100
    assert doc["rounds"]["mean"] < doc["settings"]["max_rounds"]


def test_a_gt_race_stopped_by_the_cap_counts_the_laps_driven_and_decides_nothing():
    doc = json.loads(
        _simulate(
            str(REPO / "examples/gt-core-circuit.yaml"),
            *("--races", "2", "--laps", "100", "--max-rounds", "60"),
        )
    )
    assert doc["finish_rate"] == 0.0 and doc["settings"]["max_rounds"] == 60
    driven = doc["overtakes"]["laps_driven"]
    assert 2 <= driven < 20  # the leaders began a handful of laps each, not 100
    assert doc["overtakes"]["per_lap"] == round(doc["overtakes"]["total"] / driven, 4)
    assert doc["decided_on_lap_1"] is None  # nobody won
    text = runner.invoke(
        app,
        [
            "simulate",
            str(REPO / "examples/gt-core-circuit.yaml"),
            "--races",
            "2",
            "--laps",
            "100",
            "--max-rounds",
            "60",
        ],
    )
    assert "decided on lap 1" not in text.output and "(60 rounds)" in text.output


# --- 4. lap 1 of a one-lap race, or of one car -------------------------------------------


def test_no_decided_on_lap_1_figure_nor_p610_for_one_lap_or_one_car():
    from trackkit.sim.playability import gt_findings

    core = str(REPO / "examples/gt-core-circuit.yaml")
    one_lap = json.loads(_simulate(core, "--races", "3", "--laps", "1"))
    assert one_lap["decided_on_lap_1"] is None
    alone = json.loads(_simulate(core, "--races", "2", "--laps", "2", "--players", "1"))
    assert alone["decided_on_lap_1"] is None
    two = json.loads(_simulate(core, "--races", "3", "--laps", "2"))
    assert two["decided_on_lap_1"] is not None  # asked where it means something
    text = runner.invoke(app, ["simulate", core, "--races", "3", "--laps", "1"])
    assert "decided on lap 1" not in text.output
    report = validate(load_stage(REPO / "examples/gt-core-circuit.yaml"))
    given = {
        "wins_by_grid_slot": {},
        "overtakes": {"per_lap": 2.0, "per_race": 2.0},
        "decided_on_lap_1": 0.9,
    }
    doc = sim_report(gt=True, players=4, settings={"laps": 1, "races": 20}, **given)
    assert "P610" not in [f.code for f in gt_findings(doc, report, races=20, players=4)]
    doc = sim_report(gt=True, players=4, settings={"laps": 3, "races": 20}, **given)
    assert "P610" in [f.code for f in gt_findings(doc, report, races=20, players=4)]


# --- 5. a loss of control is charged to the step that broke the limit --------------------


def test_a_flat_out_loss_is_charged_to_the_step_that_broke_the_limit_not_the_moves_end():
    # rule: TURN-4 (flat out, the dice are placed again: control is lost as late as they
    # allow), TURN-6, CORNER-5 (the triangle of 117a in gear 4 adds a danger)
    from trackkit.rules import Mode, ScriptedDice, legal_plans, new_table, position, resolve
    from trackkit.rules.blame import loss_space

    ctx = position(CORE.track, space="10:A1c", gear=3, car="gt6", ruleset=GT)
    plan = next(
        p for p in legal_plans(ctx) if str(p) == "11:A1a G4 > 11:A23b C > 11:A2c G5 > 12:A1b G6"
    )
    rng = random.Random(1)
    out = resolve(
        ctx, plan, Mode.FLAT_OUT, rng, table=new_table(GT, rng), dice=ScriptedDice(["danger"] * 4)
    )
    assert out.lost_control and out.car.space == "12:A1b"  # the move ends on the straight
    # 1 die, then 1 + 1 + the triangle (3, the limit), then a fourth on 11:A2c: over it
    assert loss_space(GT, plan, Mode.FLAT_OUT, out.events) == "11:A2c"
    # one by one, the loss happens on the step that broke the limit: charged there
    one = resolve(
        ctx, plan, Mode.ONE_BY_ONE, rng, table=new_table(GT, rng), dice=ScriptedDice(["danger"] * 4)
    )
    assert one.lost_control and one.car.space == "11:A2c"
    assert loss_space(GT, plan, Mode.ONE_BY_ONE, one.events) == "11:A2c"


def test_gt_races_charge_each_loss_to_its_blame_and_some_are_not_where_the_car_stopped():
    from trackkit.rules.blame import loss_space
    from trackkit.rules.plans import Plan
    from trackkit.rules.resolve import Mode

    settings = Settings.default(6, bots=("aggressive",), gt=GtOptions(laps=2))
    elsewhere = 0
    for i in range(3):
        result = run_race(CORE, settings, race_seed(3, i))
        for driver, d in enumerate(result.drivers):
            turns = [
                t
                for t in result.log
                if t.driver == driver and any(e.kind == "loss-of-control" for e in t.events)
            ]
            assert len(turns) == len(d.losses)
            for t, (tile, space) in zip(turns, d.losses, strict=True):
                loss = next(e for e in t.events if e.kind == "loss-of-control")
                assert space == loss_space(GT, Plan(tuple(t.steps)), Mode(t.mode), t.events)
                assert tile == CORE.track.spaces[space].tile
                elsewhere += space != loss.space
    assert elsewhere > 0  # flat out, the car often stops past the step that broke the limit


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


def test_a_dirt_car_file_on_a_gt_track_is_named_by_its_path():
    car = "examples/cars/gravel-r5-plus.yaml"
    out = runner.invoke(
        app, ["simulate", str(REPO / "examples/gt-core-circuit.yaml"), "--car", str(REPO / car)]
    )
    assert out.exit_code == 2 and "--car" in out.output
    assert str(REPO / car) in out.output.replace("\n", "")


def test_weather_help_says_the_tyres_follow_it():
    out = runner.invoke(app, ["simulate", "--help"], terminal_width=200)
    assert "GT-3" in " ".join(out.output.split())  # the rule that makes it so
    core = str(REPO / "examples/gt-core-circuit.yaml")
    rain = json.loads(_simulate(core, "--races", "3", "--weather", "rain"))
    dry = json.loads(_simulate(core, "--races", "3", "--weather", "dry"))
    assert rain["settings"].pop("weather") == "rain" and dry["settings"].pop("weather") == "dry"
    assert rain == dry  # what the help says: a label, with the tyres for it
