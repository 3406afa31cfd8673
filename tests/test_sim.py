"""Races: pinned seeded summaries, invariants over many races, jobs, replays, hillclimbs."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from stagekit import COMPILED, EXAMPLES, REPO, example_prepared, sim_report
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.models.car import CarFile
from trackkit.rules.cars import load_car
from trackkit.rules.dashboard import UnlimitedDashboard, check_unlimited, dashboard
from trackkit.rules.plans import Plan, PlanContext, legal_plans
from trackkit.rules.state import CarState, Damage, OtherCar
from trackkit.rules.testing import track_of
from trackkit.rules.track import Track
from trackkit.sim.bots import BOTS, MAX_STEPS, Cautious, make_bot
from trackkit.sim.garage import (
    BUILDS,
    build_unlimited,
    next_level,
    stage_profile,
    unlimited_bound,
    unlimited_dashboard,
)
from trackkit.sim.memo import PlanMemo
from trackkit.sim.race import (
    MAX_ROUNDS,
    Dnf,
    DriverSpec,
    Prepared,
    RaceResult,
    Settings,
    prepare,
    run_race,
)
from trackkit.sim.replay import check_replay, replay_document
from trackkit.sim.stats import run_many, summarize_races
from trackkit.sim.stuck import StuckSpot, reach_of, stuck_spot

RALLY = example_prepared("col-de-turini.yaml")


def position_on(stage: Prepared, space: str, gear: int) -> PlanContext:
    """A lone DIRT car on ``space`` in ``gear``."""
    car = CarState(car_id=0, space=space, gear=gear)
    return PlanContext(stage.track, dashboard("dirt", stage.ruleset), stage.ruleset, car)


def test_seeded_race_summaries_match_the_golden_file():
    # regenerate with scripts/regen_golden.py and review the diff
    pinned = json.loads((REPO / "tests/golden/sim-summary.json").read_text())
    from regen_sim import sim_summaries

    assert sim_summaries() == pinned


@pytest.mark.parametrize("bot", ["cautious", "aggressive", "planner"])
def test_invariants_over_many_races(bot: str):
    """No car moves backwards, no two cars share a space, time only grows (TURN, TIME-2)."""
    spaces = RALLY.track.spaces
    finished = 0
    for seed in range(3):
        last: dict[int, CarState] = {}

        def observe(
            rnd: int, driver: int, cars: tuple[CarState, ...], last: dict[int, CarState] = last
        ) -> None:
            placed = [c.space for c in cars if c.space and c.on_track and not c.finished]
            assert len(placed) == len(set(placed)), f"two cars share a space: {placed}"
            for c in cars:
                before = last.get(c.car_id)
                if before is not None:
                    assert c.time_seconds >= before.time_seconds
                    if before.space and c.space and before.on_track and c.on_track:
                        assert spaces[c.space].progress >= spaces[before.space].progress
                last[c.car_id] = c

        result = run_race(RALLY, Settings.default(4, bots=(bot,)), seed, observe=observe)
        finished += sum(d.finished for d in result.drivers)
        # a car that never finishes is reported where it got stuck (turn cap)
        assert all(d.finished or d.stuck_at for d in result.drivers)
        for turn in result.log:  # a gear die sets the speed to its value (MOVE-2)
            for e in turn.events:
                dice = (e.die or "").split("+")
                if e.kind == "move" and dice[0].startswith("G"):
                    assert int(dice[0][1:]) == e.value
    assert finished >= 10  # of 12 drivers


def test_gear_changes_follow_the_dice_in_the_log():
    # rule: MOVE-2, MOVE-3, MOVE-4 checked on the resolved plans of real races
    result = run_race(RALLY, Settings.default(4, bots=("planner", "cautious")), 5)
    gear: dict[int, int] = {}
    for turn in result.log:
        speed = gear.get(turn.driver, 0)
        for e in turn.events:
            if e.kind == "move":
                dice = (e.die or "free").split("+")
                if dice[0] == "free" or dice[0] in ("C", "L"):
                    assert e.value == speed
                else:
                    v = int(dice[0][1:])
                    brakes, boosts = dice.count("B"), dice.count("Bo")
                    if brakes:  # MOVE-4: each brake skips one more gear down
                        assert v == speed - 1 - brakes
                    elif boosts:  # MOVE-5: the boost die skips one gear up
                        assert v == speed + 2
                    else:  # MOVE-2 (and CLIMB-2): one above or one below
                        assert v in (speed + 1, speed - 1)
                speed = e.value or 0
            elif e.kind == "loss-of-control":
                speed = 0
        gear[turn.driver] = speed
        if (
            turn.events
            and turn.events[-1].kind == "time"
            and any(e.kind == "loss-of-control" for e in turn.events)
        ):
            gear[turn.driver] = 0


@pytest.mark.parametrize(
    ("stage", "hillclimb"), [("col-de-turini.yaml", False), ("hillclimb-pikes.yaml", True)]
)
def test_plan_memo_replays_the_races_played_without_it(stage: str, hillclimb: bool):
    """The memo is exact: the same turns, events and times as searching every position."""
    with_memo = example_prepared(stage)
    without = replace(with_memo, memo=None)
    cars: list[tuple[str | CarFile, str]] = [
        ("dirt", "cautious"),
        ("r5", "aggressive"),
        ("dirt", "planner"),
        ("r5", "cautious"),
        ("dirt", "aggressive"),
    ]
    if hillclimb:  # Unlimited boards the bots build and rebuild, and car files
        cars[1:4] = [
            ("unlimited", "aggressive"),
            (load_car(EXAMPLES / "cars" / "pikes-snow-safe.yaml"), "planner"),
            ("unlimited", "cautious"),
        ]
    settings = Settings(
        tuple(DriverSpec(f"d{i}", car, bot) for i, (car, bot) in enumerate(cars)),
        hillclimb=hillclimb,
    )
    for seed in range(4):
        a, b = run_race(with_memo, settings, seed), run_race(without, settings, seed)
        assert [(t.driver, t.plan, t.events) for t in a.log] == [
            (t.driver, t.plan, t.events) for t in b.log
        ]
        assert [d.times for d in a.drivers] == [d.times for d in b.drivers]
    memo = with_memo.memo
    assert memo is not None and memo.hits > 0 and memo.misses > 0  # it was used


def test_plan_memo_zone_holds_every_space_a_plan_can_reach():
    memo = RALLY.memo
    assert memo is not None
    track = RALLY.track
    for space in list(track.spaces)[::7]:
        zone = memo.zone(space)
        ctx = position_on(RALLY, space, gear=3)
        for plan in legal_plans(ctx, max_steps=memo.moves):
            for step in plan.steps:
                assert step.space in zone and step.placed_on in zone
                assert track.beside.get(step.space, frozenset()) <= zone


def test_summary_document_and_staggered_start():
    settings = Settings.default(4)
    races = run_many(RALLY, settings, races=3, seed=2)
    doc = summarize_races(races, settings, seed=2, tiles={1: "202a"}).to_json()
    assert doc["settings"] == {
        "players": 4,
        "races": 3,
        "seed": 2,
        "cars": ["dirt"] * 4,
        "bots": ["cautious"] * 4,
        "hillclimb": False,
        "max_rounds": 200,
    }
    assert set(doc["time"]["overall"]) == {"n", "mean", "p10", "p50", "p90"}
    first = run_race(RALLY, settings, 3)
    # rule: TURN-1 (round 1: player 1 alone; each round one more driver)
    assert [t.driver for t in first.log if t.round == 1] == [0]
    assert sorted(t.driver for t in first.log if t.round == 2) == [0, 1]


def test_hillclimb_three_attempts_best_time_wins():
    # rule: HILLCLIMB-2, HILLCLIMB-4
    hill = example_prepared("hillclimb-pikes.yaml")
    result = run_race(hill, Settings.default(2, hillclimb=True), 4)
    for d in result.drivers:
        assert len(d.times) == 3 and d.best == min(d.times)
    reentries: dict[int, int] = {}
    seen: set[tuple[int, int]] = set()
    for k, t in enumerate(result.log):
        if t.attempt > 0 and (t.driver, t.attempt) not in seen:
            reentries[t.round] = reentries.get(t.round, 0) + 1
            # the re-entering driver plays last in that round's order
            rest = [u for u in result.log[k + 1 :] if u.round == t.round]
            assert rest == [], (t.round, t.driver)
        seen.add((t.driver, t.attempt))
    assert reentries and max(reentries.values()) == 1  # one re-entry per round
    # first finisher first: attempts start in the order the previous ones finished
    finish_rounds: dict[int, list[int]] = {}
    for t in result.log:
        if any(e.kind == "finish" for e in t.events):
            finish_rounds.setdefault(t.attempt + 1, []).append(t.driver)
    starts: dict[int, list[int]] = {}
    for t in result.log:
        order = starts.setdefault(t.attempt, [])
        if t.driver not in order:
            order.append(t.driver)
    for attempt in (1, 2):
        finished_order = finish_rounds.get(attempt, [])
        assert [d for d in starts.get(attempt, []) if d in finished_order] == finished_order


def test_replay_file_replays_and_a_tampered_one_fails(tmp_path: Path):
    stage = load_stage(EXAMPLES / "col-de-turini.yaml")
    settings = Settings.default(2)
    result = run_race(RALLY, settings, 21)
    doc = json.loads(replay_document(stage, settings, 21, result))
    ok, message = check_replay(doc)
    assert ok, message
    doc["log"][3]["events"][0]["value"] = 99
    bad, why = check_replay(doc)
    assert not bad and "turn 4" in why


def test_simulate_command_json_is_deterministic_and_replay_command(tmp_path: Path):
    runner = CliRunner()
    args = [
        "simulate",
        str(EXAMPLES / "col-de-turini.yaml"),
        "--races",
        "2",
        "--players",
        "2",
        "--seed",
        "5",
        "--format",
        "json",
        "--replay",
        str(tmp_path / "r.json"),
    ]
    a = runner.invoke(app, args)
    b = runner.invoke(app, args)
    assert a.exit_code == 0, a.output
    assert a.stdout == b.stdout
    doc = json.loads(a.stdout)
    assert doc["settings"]["races"] == 2 and doc["finish_rate"] == 1.0
    rep = runner.invoke(app, ["replay", str(tmp_path / "r.json")])
    assert rep.exit_code == 0 and "every event matches" in rep.stdout
    assert "re-runs this trackkit's rules engine" not in rep.stdout
    recorded = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    recorded["log"][3]["events"][0]["value"] = 99
    (tmp_path / "edited.json").write_text(json.dumps(recorded), encoding="utf-8")
    edited = runner.invoke(app, ["replay", str(tmp_path / "edited.json")])
    assert edited.exit_code == 1 and "turn 4" in edited.stdout
    assert "re-runs this trackkit's rules engine" in edited.stdout  # the likely cause, said
    broken = runner.invoke(app, ["simulate", str(EXAMPLES / "broken-stage.yaml")])
    assert broken.exit_code == 1 and "has errors" in broken.stderr


def test_validate_simulate_adds_playability_and_par_time():
    runner = CliRunner()
    out = runner.invoke(
        app,
        ["validate", str(EXAMPLES / "col-de-turini.yaml"), "--simulate", "4", "--format", "json"],
    )
    assert out.exit_code == 0, out.output
    summary = json.loads(out.stdout)["files"][0]["summary"]
    assert summary["par_time"] > 0 and summary["simulation"]["races"] == 4


def test_p601_drivers_cannot_finish_within_the_turn_cap():
    from trackkit.sim.playability import playability

    report = validate(load_stage(EXAMPLES / "col-de-turini.yaml"))
    found, extras = playability(report, races=2, players=2, max_rounds=3)
    assert [f.code for f in found if f.code == "P601"] == ["P601"]
    assert extras.simulation.finish_rate == 0.0


def _doc(**over: object) -> object:
    return sim_report(finish_rate=1.0, **over)


def test_p602_p603_p604_from_a_simulation_document():
    from trackkit.sim.playability import findings_from

    report = validate(load_stage(EXAMPLES / "col-de-turini.yaml"))
    codes = [f.code for f in findings_from(_doc(), report, races=10, players=2)]
    assert codes == []
    blocked = _doc(blocked_turns={"by_space": {"7:1.1L": 12, "5:1.1R": 2}})
    found = findings_from(blocked, report, races=10, players=2)
    assert [(f.code, f.location.space) for f in found] == [("P602", "7:1.1L")]
    risky = _doc(
        loss_of_control={
            "by_tile": {
                "8": {"tile": "222a", "count": 14, "per_race": 1.4},
                "3": {"tile": "203a", "count": 1, "per_race": 0.1},
            }
        }
    )
    found = findings_from(risky, report, races=10, players=2)
    assert [(f.code, f.location.tile) for f in found] == [("P603", "222a")]
    # P604 reads the start position test (tests/test_fairness_findings.py): its significant sets
    from trackkit.sim.fairness import win_test

    for wins, fires in (({"1": 9, "2": 1}, False), ({"1": 10, "2": 0}, True)):
        test = win_test(wins)
        assert test is not None
        group = {"car": "dirt", "bot": "cautious", "start_positions": [1, 2], "tied": 0}
        group["won_alone"] = wins
        unfair = _doc(start_position_test={"groups": [{**group, **test.to_json()}]})
        found = [f.code for f in findings_from(unfair, report, races=10, players=2)]
        assert found == (["P604"] if fires else [])


def test_render_heat_tints_the_spaces_where_control_was_lost(tmp_path: Path):
    runner = CliRunner()
    sim = tmp_path / "sim.json"
    sim.write_text(json.dumps({"loss_of_control": {"by_space": {"8:1.1L": 4, "6:2.I1": 2}}}))
    out = tmp_path / "heat.svg"
    done = runner.invoke(
        app, ["render", str(EXAMPLES / "col-de-turini.yaml"), "-o", str(out), "--heat", str(sim)]
    )
    assert done.exit_code == 0, done.output
    import re

    svg = out.read_text()
    tinted = {
        m.group(2): m.group(3)
        for m in re.finditer(
            r'<path class="space [^"]*(heat)"[^>]*data-node="([^"]+)"[^>]*style="fill:([^"]+)"', svg
        )
    }
    assert set(tinted) == {"8:1.1L", "6:2.I1"}
    assert tinted["8:1.1L"] == "#ff2314"  # the worst space: deepest red
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    refused = runner.invoke(
        app,
        [
            "render",
            str(EXAMPLES / "col-de-turini.yaml"),
            "-o",
            str(tmp_path / "x.svg"),
            "--heat",
            str(bad),
        ],
    )
    assert refused.exit_code == 2 and "bad.json" in refused.stderr


# --- review follow-ups: TURN-2, LOC-4, HILLCLIMB-3/5, re-entry -----------------------


def test_turn_2_play_order_distance_then_speed_then_inner_lane():
    # rule: TURN-2 (DIRT): furthest first; level: higher gear; level: inner lane of the
    # current or next corner (217b turns left: its inner lane is on the left)
    from trackkit.sim.race import RacePosition
    from trackkit.sim.rally import RallyLoop

    def order(cars: list[CarState]) -> list[int]:  # the race's own order of a round
        start = RacePosition(tuple(cars), round=5)
        return RallyLoop(RALLY, Settings.default(len(cars)), 1, start=start).order(6)

    three = [CarState(0, "2:1.1L", 3), CarState(1, "2:1.2R", 2), CarState(2, "2:1.1R", 4)]
    assert order(three) == [1, 2, 0]
    assert "2:1.3L" in RALLY.inner and "2:1.3R" not in RALLY.inner
    assert order([CarState(0, "2:1.3R", 3), CarState(1, "2:1.3L", 3)]) == [1, 0]


def test_loc_4_crashed_car_comes_back_on_its_space_or_the_nearest_free_one_behind():
    # rule: LOC-4 DEFAULT
    from trackkit.sim.loop import back_on

    assert back_on(RALLY.track, "3:2.O2", set()) == "3:2.O2"
    behind = back_on(RALLY.track, "3:2.O2", {"3:2.O2"})
    assert behind is not None and behind != "3:2.O2"
    assert RALLY.track.spaces[behind].progress < RALLY.track.spaces["3:2.O2"].progress
    everything = set(RALLY.track.spaces)
    assert back_on(RALLY.track, "3:2.O2", everything) is None  # never onto a taken space


def test_hillclimb_3_and_5_tokens_go_back_and_mud_stays_for_everyone_next_attempt():
    # rule: HILLCLIMB-3, HILLCLIMB-5, SHORTCUT-2
    from trackkit.sim.rally import DAMAGE_TOKENS

    assert DAMAGE_TOKENS["coast"] == ("coast", "coast")  # the token really in the bag
    hill = example_prepared("hillclimb-pikes.yaml")
    seen: list[tuple[int, tuple[CarState, ...]]] = []
    result = run_race(
        hill,
        Settings.default(2, hillclimb=True),
        4,
        observe=lambda r, i, cars: seen.append((r, cars)),
    )
    # a driver starting a new attempt has no second tokens and no damage left
    for d in range(2):
        attempts = [t.attempt for t in result.log if t.driver == d]
        assert attempts == sorted(attempts) and attempts[-1] == 2
    restarts = [cars for _, cars in seen for c in cars if c.space is None and c.turns == 0]
    assert all(
        c.second_tokens == 0 and c.damage.gear == 0
        for cars in restarts
        for c in cars
        if c.space is None
    )


@pytest.mark.skipif(COMPILED, reason="patches rally.free, which the compiled loop calls directly")
def test_hillclimb_4_a_blocked_re_entry_is_tried_again(monkeypatch: pytest.MonkeyPatch):
    # rule: HILLCLIMB-4 (the waiting driver keeps its place in the queue)
    import trackkit.sim.rally as rally

    real_free = rally.free
    state = {"armed": False, "refused": 0}
    hill = example_prepared("hillclimb-pikes.yaml")

    def grid_full_once(track: Track, space: str, taken: set[str]) -> bool:
        if state["armed"] and space in hill.start:
            state["refused"] += 1
            return False  # the start grid is full for this re-entry turn
        return real_free(track, space, taken)

    def observe(rnd: int, driver: int, cars: tuple[CarState, ...]) -> None:
        if state["armed"]:
            state["armed"] = False  # full for one turn only
        elif state["refused"] == 0 and any(c.finished for c in cars):
            state["armed"] = True  # a driver finished an attempt and waits to re-enter

    monkeypatch.setattr(rally, "free", grid_full_once)
    result = run_race(hill, Settings.default(1, hillclimb=True), 2, observe=observe)
    assert state["refused"] >= 1
    assert "start" in result.drivers[0].blocked
    assert len(result.drivers[0].times) == 3  # all three attempts were still driven


def test_replay_broken_documents_are_unusable_input_and_times_are_checked(tmp_path: Path):
    from trackkit.sim.replay import ReplayError

    stage = load_stage(EXAMPLES / "col-de-turini.yaml")
    result = run_race(RALLY, Settings.default(2), 8)
    doc = json.loads(replay_document(stage, Settings.default(2), 8, result))
    doc["times"][0] = 1
    ok, why = check_replay(doc)
    assert not ok and "times" in why
    for broken in (
        [],
        {},
        {"format": "trackkit-replay/9"},
        {**doc, "seed": 1e400},
        {**doc, "stage": 5},
    ):
        with pytest.raises(ReplayError):
            check_replay(broken)
    runner = CliRunner()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "trackkit-replay/1", "seed": 1e400}))
    out = runner.invoke(app, ["replay", str(bad)])
    assert out.exit_code == 2 and "bad.json" in out.stderr


def test_unknown_car_and_bad_heat_values_are_unusable_input(tmp_path: Path):
    runner = CliRunner()
    car = runner.invoke(app, ["simulate", str(EXAMPLES / "col-de-turini.yaml"), "--car", "gt"])
    assert car.exit_code == 2 and "unknown car" in car.stderr
    for content in (
        '{"stages": 5}',
        '{"loss_of_control": {"by_space": {"1:1.1L": 1e400}}}',
        '{"loss_of_control": {"by_space": {"1:1.1L": true}}}',
    ):
        heat = tmp_path / "h.json"
        heat.write_text(content)
        out = runner.invoke(
            app,
            [
                "render",
                str(EXAMPLES / "col-de-turini.yaml"),
                "-o",
                str(tmp_path / "m.svg"),
                "--heat",
                str(heat),
            ],
        )
        assert out.exit_code == 2, (content, out.output)


def test_traffic_3_cars_in_both_lanes_of_a_corner_close_it_whatever_their_order():
    """Order of the other cars never matters (and so the plan memo may sort them)."""
    from trackkit.rules.state import OtherCar
    from trackkit.sim.bots import make_bot

    inner, outer = OtherCar("10:2.I1", 2), OtherCar("10:2.O3", 2)  # after a crash re-entry
    base = position_on(RALLY, "10:1.1R", gear=3)
    orders = [replace(base, others=(inner, outer)), replace(base, others=(outer, inner))]
    for ctx in orders:
        entered = {s.space for p in legal_plans(ctx) for s in p.steps}
        assert not any(s.startswith("10:2.") for s in entered)  # rule: TRAFFIC-3
    alone = {s.space for p in legal_plans(replace(base, others=(outer,))) for s in p.steps}
    assert "10:2.O1" in alone and not any(s.startswith("10:2.I") for s in alone)
    for bot_name in ("cautious", "aggressive", "planner"):
        fresh = [str(make_bot(bot_name).plan(ctx)) for ctx in orders]
        memo = PlanMemo(RALLY.track, RALLY.ruleset)
        remembered = [str(make_bot(bot_name, memo).plan(ctx)) for ctx in orders]
        assert fresh[0] == fresh[1] == remembered[0] == remembered[1]
        assert memo.hits == 1


def test_a_variant_ruleset_is_never_served_the_plans_of_another():
    variant = RALLY.ruleset.model_copy(
        update={"danger_faces": RALLY.ruleset.danger_faces.model_copy(update={"coast": 6})}
    )
    assert variant.danger_counts["coast", 0] == 6 != RALLY.ruleset.danger_counts["coast", 0]
    with_memo = replace(RALLY, ruleset=variant)
    without = replace(RALLY, ruleset=variant, memo=None)
    settings = Settings.default(3, bots=("cautious", "aggressive", "planner"))
    run_race(RALLY, settings, 5)  # fills the memo with the plain ruleset's plans
    a, b = run_race(with_memo, settings, 5), run_race(without, settings, 5)
    assert [(t.plan, t.events) for t in a.log] == [(t.plan, t.events) for t in b.log]


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["col-de-turini.yaml", "hillclimb-pikes.yaml"])
def test_plan_memo_equals_a_fresh_search_on_random_positions(stage: str):
    """Random cars nearby (some crashed), gears, damage, SISU, leader, mud, car, bot:
    a plan from a warm memo is the plan a fresh search finds (the memo is exact)."""
    import random

    from trackkit.rules.state import Damage, OtherCar
    from trackkit.sim.bots import make_bot

    stage_ = example_prepared(stage)
    track, rules = stage_.track, stage_.ruleset
    rng = random.Random(7)  # seeded: the same positions every run
    order = sorted(track.spaces, key=lambda n: track.spaces[n].progress)
    starts = rng.sample([s for s in order if track.successors[s]], 10)
    boards = {car: dashboard(car, rules) for car in ("dirt", "r5")}
    if stage == "hillclimb-pikes.yaml":  # Unlimited boards, SISU and tyres included
        profile = stage_profile(track)
        for bot in ("cautious", "aggressive", "planner"):
            for level in (-1, 2):
                boards[f"{bot}{level}"] = unlimited_dashboard(
                    build_unlimited(profile, bot, level=level)
                )
    memo = PlanMemo(track, rules)
    bots = ("cautious", "aggressive", "planner")
    remembered = {b: make_bot(b, memo) for b in bots}
    fresh = {b: make_bot(b) for b in bots}
    for _ in range(250):
        me = rng.choice(starts)
        taken = {me} | set(track.overlaps.get(me, ()))
        others = []
        for _ in range(rng.randint(0, 5)):
            i = order.index(me) + rng.randint(-6, 30)
            space = order[max(0, min(len(order) - 1, i))]
            if space not in taken:
                taken |= {space} | set(track.overlaps.get(space, ()))
                others.append(OtherCar(space, rng.choice([0, 1, 2, 3, 4]), rng.random() < 0.85))
        rng.shuffle(others)
        car = CarState(
            car_id=0,
            space=me,
            gear=rng.choice([0, 2, 3, 4]),
            damage=Damage(gear=rng.choice([0, 0, 1]), coast=rng.choice([0, 0, 1])),
            sisu_token=rng.random() < 0.2,
        )
        mud = {track.spaces[rng.choice(order)].tile: 1} if rng.random() < 0.2 else {}
        ctx = PlanContext(
            track,
            boards[rng.choice(sorted(boards))],
            rules,
            car,
            tuple(others),
            leader=rng.random() < 0.3,
            mud=mud,
        )
        # the same position, the cars listed the other way round and one more far behind
        far = order[max(0, order.index(me) - 40)]
        behind = [OtherCar(far, 3)] if far not in taken else []
        again = replace(ctx, others=(*reversed(others), *behind))
        for b in bots:
            assert remembered[b].plan(ctx) == fresh[b].plan(ctx), (b, me, car, others)
            assert remembered[b].plan(again) == fresh[b].plan(again), (b, me, car, others)
    assert memo.hits > 500  # the repeated positions were answered from the memo


def test_plan_memo_tells_apart_a_car_beside_a_space_the_search_could_not_enter():
    """From 10:1.1S1 the bots take the shortcut; a car in gear 5 on 10:3.1L, beside the
    shortcut's second space (SHORTCUT-3), stops them there (TRAFFIC-1). The search never
    reads 10:3.1L itself, yet the memo must not give that plan once the car is gone."""
    from trackkit.rules.state import OtherCar
    from trackkit.sim.bots import make_bot

    alone = position_on(RALLY, "10:1.1S1", gear=1)
    blocked = replace(alone, others=(OtherCar("10:3.1L", 5),))
    for name in ("cautious", "aggressive"):
        memo = PlanMemo(RALLY.track, RALLY.ruleset)
        bot = make_bot(name, memo)
        stopped, free = str(bot.plan(blocked)), str(bot.plan(alone))
        assert stopped == "10:X1.1 G2"  # rule: TRAFFIC-1 (G3 on 10:X1.2 is below gear 5)
        assert free.startswith("10:X1.1 G2 > 10:X1.2 G3") and free == str(
            make_bot(name).plan(alone)
        )
        assert memo.misses == 2


def test_plan_memo_keys_a_cars_gear_only_where_the_search_could_come_beside_it():
    """A car on the shortcut 3:1.1S1 (over the road ahead) changes the bots' plan from
    2:1.1R, whatever its gear: no space the search enters is beside it (TRAFFIC-1 reads a
    car's gear only there), so its gear in 1 or 5 is one search, and the memo's plan is the
    fresh one for both. The same car gone is another search (TRAFFIC-3: it blocked)."""
    from trackkit.rules.state import OtherCar
    from trackkit.sim.bots import make_bot

    alone = position_on(RALLY, "2:1.1R", gear=2)
    slow, fast = (replace(alone, others=(OtherCar("3:1.1S1", g),)) for g in (1, 5))
    for name in ("cautious", "aggressive", "planner"):
        memo = PlanMemo(RALLY.track, RALLY.ruleset)
        bot, fresh = make_bot(name, memo), make_bot(name)
        assert bot.plan(slow) == fresh.plan(slow)
        assert bot.plan(fast) == fresh.plan(fast) == fresh.plan(slow)
        assert (memo.hits, memo.misses) == (1, 1)
        assert bot.plan(alone) == fresh.plan(alone)
        assert memo.misses == 2
    assert str(make_bot("cautious").plan(slow)) != str(make_bot("cautious").plan(alone))


def test_traffic_3_default_a_car_in_a_corner_waits_for_a_car_in_the_other_lane():
    # rule: TRAFFIC-3 DEFAULT (docs/rules.md): it may not pass it, so it waits
    from trackkit.rules.state import OtherCar

    ctx = replace(position_on(RALLY, "10:2.O1", gear=2), others=(OtherCar("10:2.I2", 2),))
    assert list(legal_plans(ctx)) == []
    gone = replace(ctx, others=())
    assert any(p.steps[0].space == "10:2.O2" for p in legal_plans(gone))


# --- stuck cars: DNF with a reason, not the round cap ------------------------------------

MUD = {"token": "mud", "value": -1}
#: A hairpin with no shortcut closed by two mud tokens: no car can ever finish.
CLOSED = ["202a", "205a", {"tile": "210a", "tokens": [MUD, MUD]}, "203a"]
#: 314a (a double hairpin with a shortcut from the right lane) under two mud tokens: the
#: shortcut still goes round, but from its left lane 3:1.1L there is no way on.
MUDDY_314 = ["202a", "204a", {"tile": "314a", "tokens": [MUD, MUD]}, "206a", "203a"]
#: The same road with no mud in the stage file (drawn mud is given to the car instead).
CLEAN_314 = ["202a", "204a", "314a", "206a", "203a"]


def _prepared_tiles(tiles: list[str | dict[str, object]]) -> Prepared:
    return prepare(track_of(tiles))


def test_a_car_that_can_never_finish_is_dnf_stuck_at_once_not_at_the_round_cap():
    # rule: CORNER-1, SHORTCUT-2 (two mud tokens: inner 1 -> -1, outer 2 -> 0, both closed)
    settings = Settings.default(3)
    result = run_race(_prepared_tiles(CLOSED), settings, 1)
    assert result.rounds < 5 < settings.max_rounds  # today's race waited for round 200
    for d in result.drivers:
        assert not d.finished and d.out is Dnf.STUCK
        assert d.stuck is not None and (d.stuck.tile, d.stuck.face) == (3, "210a")
        assert d.stuck.cause == "two mud tokens on tile 3 (210a) closed both lanes of its hairpin"
    # the log says so too (replays carry it)
    assert [e.kind for t in result.log for e in t.events if e.kind == "stuck"] == ["stuck"] * 3


class _IntoTheLeftLane(Cautious):
    """Drives onto 3:1.1L whenever a plan ends there (the way a careless player might)."""

    name = "into-the-left-lane"

    def search(self, ctx: PlanContext) -> tuple[Plan, set[str] | None]:
        for plan in legal_plans(ctx, max_steps=MAX_STEPS):
            if plan.end == "3:1.1L" and not any(s.loc for s in plan.steps):
                return plan, None
        return super().search(ctx)


def test_a_car_in_a_dead_end_made_by_mud_is_stuck_and_the_text_names_spot_and_cause(
    monkeypatch: pytest.MonkeyPatch,
):
    # rule: CORNER-1, SHORTCUT-2, MOVE-1 (3:1.1L leads only into the closed hairpin; the
    # shortcut starts from the right lane, and no car moves sideways within a row)
    monkeypatch.setitem(BOTS, _IntoTheLeftLane.name, _IntoTheLeftLane)
    stage = _prepared_tiles(MUDDY_314)
    careless = Settings((DriverSpec("careless", bot=_IntoTheLeftLane.name),))
    result = run_race(stage, careless, 1)
    (d,) = result.drivers
    assert d.out is Dnf.STUCK and d.stuck_at == "3:1.1L" and result.rounds < 10
    assert d.stuck == StuckSpot(
        3,
        "314a",
        "3:1.1L",
        "two mud tokens on tile 3 (314a) closed both lanes of its first hairpin",
    )
    # a car that keeps to the right lane takes the shortcut round it and finishes
    for bot in BOTS_SHIPPED:
        ok = run_race(stage, Settings((DriverSpec("d", bot=bot),)), 1)
        assert ok.drivers[0].finished and ok.drivers[0].out is None, bot


BOTS_SHIPPED = ("cautious", "aggressive", "planner")


def test_reach_follows_the_graph_without_closed_spaces():
    # rule: CORNER-1, SHORTCUT-2 (drawn mud counts only for the other cars)
    reach = reach_of(track_of(CLEAN_314))
    assert reach.closed({}) == frozenset()
    assert reach.closed({3: 1}) == {"3:2.I1", "3:4.I1"}  # inner lanes: limit 1 -> 0
    assert reach.can_finish("3:1.1L", {3: 1})  # the outer lane, limit 1, is still open
    assert not reach.can_finish("3:1.1L", {3: 2}) and reach.can_finish("3:1.1R", {3: 2})
    assert reach.can_finish(None, {3: 2})  # from the start grid: by the shortcut
    assert "3:1.1L" in reach.dead({3: 2}) and "3:1.1R" not in reach.dead({3: 2})
    # a car already in the outer lane of the first hairpin when it closes: no way on
    assert not reach.can_finish("3:2.O2", {3: 2})


def test_a_car_blocked_only_by_traffic_is_not_stuck():
    # rule: TRAFFIC-3 (231a: the chicane 9:2.C1 spans both lanes; a car on it blocks the road)
    board = dashboard("dirt", RALLY.ruleset)
    car = CarState(car_id=0, space="9:1.1L", gear=3)
    blocked = PlanContext(
        RALLY.track, board, RALLY.ruleset, car, (OtherCar("9:2.C1", 3),), leader=True
    )
    assert list(legal_plans(blocked)) == []  # no legal move this turn
    assert stuck_spot(RALLY.track, board, RALLY.ruleset, car, {}, stayed=True) is None
    # and in whole races: cars are blocked again and again, none is called stuck
    hill = example_prepared("hillclimb-pikes.yaml")
    # (DIRT cars crawl up the climbs: blocked turns galore)
    crawl = Settings.default(6, cars=("dirt",), hillclimb=True)
    races = run_many(hill, crawl, races=4, seed=3)
    assert sum(len(r.blocked) for r in races) > 0
    assert all(reason != Dnf.STUCK.value for r in races for reason in r.dnf)


def test_a_car_that_lost_the_dice_a_ford_takes_is_stuck_before_it():
    # rule: FORD-1, DAMAGE-3 (207b, tile 7: row 2 is a ford; without coast dice only gear 1
    # from gear 2 crosses it, and a car in gear 4 that cannot move keeps its gear)
    board = dashboard("dirt", RALLY.ruleset)
    car = CarState(car_id=0, space="7:1.1L", gear=4, damage=Damage(coast=2))
    spot = stuck_spot(RALLY.track, board, RALLY.ruleset, car, {}, stayed=True)
    assert spot is not None and (spot.tile, spot.face, spot.space) == (7, "207b", "7:1.1L")
    assert "ford on tile 7" in spot.cause and "two coast dice lost" in spot.cause
    # judged only once it could not move; and with gear 2 or a coast die left it can cross
    assert stuck_spot(RALLY.track, board, RALLY.ruleset, car, {}, stayed=False) is None
    for able in (replace(car, gear=2), replace(car, damage=Damage(coast=1))):
        assert stuck_spot(RALLY.track, board, RALLY.ruleset, able, {}, stayed=True) is None


def test_a_car_too_fast_for_the_only_way_left_is_stuck():
    # rule: SHORTCUT-1, CORNER-1, MOVE-4 (hairpins of 314a closed; its shortcut takes at most
    # gear 3: from gear 5, G3 with the one brake die; from gear 6 no die gets there)
    track = track_of(CLEAN_314)
    rules = RALLY.ruleset
    board = dashboard("dirt", rules)
    for gear, stuck in ((5, False), (6, True)):
        car = CarState(car_id=0, space="3:1.1R", gear=gear)
        spot = stuck_spot(track, board, rules, car, {3: 2}, stayed=True)
        assert (spot is not None) is stuck
    assert spot is not None and "shortcut on tile 3 (314a, limit 3)" in spot.cause
    assert "closed both lanes of its first hairpin" in spot.cause


@pytest.mark.slow
@pytest.mark.parametrize("where", ["rally", "hillclimb", "muddy 314a"])
def test_traps_agree_with_the_rules_engine_on_every_space_and_gear(where: str):
    # the fast answers (a plain step on: no need to ask) equal asking legal_plans every time
    stage = {
        "rally": RALLY,
        "hillclimb": example_prepared("hillclimb-pikes.yaml"),
        "muddy 314a": _prepared_tiles(CLEAN_314),
    }[where]
    track, rules = stage.track, stage.ruleset
    muds: list[dict[int, int]] = [{}, {3: 1}, {3: 2}] if where == "muddy 314a" else [{}]
    for car in ("dirt", "r5"):
        board = dashboard(car, rules)
        for damage in (Damage(), Damage(coast=2), Damage(gear=5, brake=1)):
            for mud in muds:
                ctx = PlanContext(track, board, rules, CarState(0, None, damage=damage), mud=mud)
                trapped = reach_of(track).traps(ctx)
                dead = reach_of(track).dead(mud)
                for space in track.spaces:
                    for gear in range(7):
                        alone = replace(ctx, car=CarState(0, space, gear, damage=damage))
                        none = next(legal_plans(alone, max_steps=1), None) is None
                        assert trapped(space, gear) == (space in dead or none), (space, gear)


def _ends_stuck(ctx: PlanContext, plan: Plan) -> bool:
    last = plan.steps[-1]
    return not last.finishes and reach_of(ctx.track).traps(ctx)(last.space, last.speed)


@pytest.mark.slow
@pytest.mark.parametrize("bot", BOTS_SHIPPED)
def test_bots_never_stop_where_they_would_be_stuck_if_another_plan_exists(bot: str):
    # rule: CORNER-1, SHORTCUT-2 (drawn mud: two tokens on 314a close both of its hairpins
    # for this car), FORD-1 (no coast dice left before the ford of col-de-turini's 207b)
    muddy = _prepared_tiles(CLEAN_314)
    board = dashboard("dirt", muddy.ruleset)
    cases = [
        PlanContext(muddy.track, board, muddy.ruleset, CarState(0, s, g), mud={3: 2})
        for s in muddy.track.spaces
        if muddy.track.spaces[s].tile in (1, 2)
        for g in range(0, 7)
    ] + [
        PlanContext(RALLY.track, board, RALLY.ruleset, CarState(0, s, g, damage=Damage(coast=2)))
        for s in RALLY.track.spaces
        if RALLY.track.spaces[s].tile == 6
        for g in range(0, 7)
    ]
    chooser = make_bot(bot)  # no memo: every position searched
    checked = 0
    for ctx in cases:
        plans = list(legal_plans(ctx, max_steps=MAX_STEPS))
        if not plans or all(_ends_stuck(ctx, p) for p in plans):
            continue  # no choice to make
        if not any(_ends_stuck(ctx, p) for p in plans):
            continue  # no trap to avoid
        checked += 1
        plan = chooser.plan(ctx)
        assert plan.steps and not _ends_stuck(ctx, plan), (ctx.car, str(plan))
    assert checked >= 20  # positions with a trap and a way round it


def test_simulate_json_names_the_stuck_spots_and_dnf_reasons_the_same_with_any_jobs(
    tmp_path: Path,
):
    # rule: SHORTCUT-2 (mud drawn on 314a's shortcuts closes its hairpins for later cars);
    # seed 1 of these bots has planners sitting in 3:1.1L when the second mud token comes
    stage = tmp_path / "muddy.yaml"
    stage.write_text(
        "format: trackkit-stage/1\ntiles: [{tile: 202a}, {tile: 204a}, {tile: 314a}, "
        "{tile: 206a}, {tile: 203a}]\n"
    )
    runner = CliRunner()
    args = ["simulate", str(stage), "--races", "60", "--seed", "1"]
    args += ["--bot", "cautious", "--bot", "aggressive", "--bot", "planner"]
    one = runner.invoke(app, [*args, "--format", "json"])
    two = runner.invoke(app, [*args, "--format", "json", "--jobs", "2"])
    assert one.exit_code == 0, one.output
    assert one.stdout == two.stdout  # byte for byte
    doc = json.loads(one.stdout)
    spots = doc["stuck_spots"]
    assert spots and all(set(s) == {"tile_index", "tile", "space", "cause", "count"} for s in spots)
    assert {(s["tile_index"], s["tile"]) for s in spots} == {(3, "314a")}
    stuck = sum(d["dnf"]["stuck"] for d in doc["time"]["drivers"])
    assert stuck == sum(s["count"] for s in spots) > 0
    assert all(d["dnf"]["round cap"] == 0 for d in doc["time"]["drivers"])
    assert doc["stuck"] == {s["space"]: s["count"] for s in spots}  # where they stopped
    for d in doc["time"]["drivers"]:  # a DNF is stuck or round cap, nothing else
        assert d["finish_rate"] == pytest.approx(1 - sum(d["dnf"].values()) / 60, abs=1e-4)
    text = runner.invoke(app, args)
    assert text.exit_code == 0
    assert f"did not finish: {stuck} stuck, 0 at the round cap (200 rounds)" in text.stdout
    assert "closed both lanes of its first hairpin" in text.stdout and "on 3:1.1L" in text.stdout


def test_max_rounds_is_the_round_cap_and_cars_still_racing_then_are_dnf_round_cap():
    runner = CliRunner()
    args = ["simulate", str(EXAMPLES / "col-de-turini.yaml"), "--races", "2", "--players", "2"]
    out = runner.invoke(app, [*args, "--max-rounds", "3", "--format", "json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["settings"]["max_rounds"] == 3 and doc["rounds"]["p90"] <= 3
    assert doc["finish_rate"] == 0.0
    assert [d["dnf"] for d in doc["time"]["drivers"]] == [{"stuck": 0, "round cap": 2}] * 2
    assert doc["stuck_spots"] == []
    text = runner.invoke(app, [*args, "--max-rounds", "3"])
    assert "0 stuck, 4 at the round cap (3 rounds)" in text.stdout
    default = json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)
    assert default["settings"]["max_rounds"] == MAX_ROUNDS and default["finish_rate"] == 1.0
    helped = runner.invoke(app, ["simulate", "--help"], terminal_width=200)
    assert "--max-rounds" in helped.stdout and "round cap" in helped.stdout
    bad = runner.invoke(app, [*args, "--max-rounds", "0"])
    assert bad.exit_code == 2


def test_simulate_refuses_an_invalid_stage_with_exit_1_and_its_findings_on_stderr(
    tmp_path: Path,
):
    # rule: CORNER-1 (mud laid in the stage file closes the hairpin: R206, an error)
    stage = tmp_path / "closed.yaml"
    stage.write_text(
        "format: trackkit-stage/1\ntiles: [{tile: 202a}, {tile: 205a}, "
        "{tile: 210a, tokens: [{token: mud, value: -1}, {token: mud, value: -1}]}, "
        "{tile: 203a}]\n"
    )
    runner = CliRunner()
    out = runner.invoke(app, ["simulate", str(stage), "--format", "json"])
    assert out.exit_code == 1
    assert "INVALID" in out.stderr and "R206" in out.stderr
    # stdout stays one JSON document: the error, and the findings as validate lists them
    doc = json.loads(out.stdout)
    assert doc["error"]["exit_status"] == 1 and "time" not in doc
    assert "R206" in [f["code"] for f in doc["files"][0]["findings"]]
    valid = runner.invoke(app, ["validate", str(stage)])
    assert valid.exit_code == 1  # the same status as validate
    # a rally with one bad stage races none of them
    both = runner.invoke(app, ["simulate", str(EXAMPLES / "col-de-turini.yaml"), str(stage)])
    assert both.exit_code == 1 and both.stdout == "" and "R206" in both.stderr


def test_validate_simulate_explains_the_par_time():
    runner = CliRunner()
    stage = str(EXAMPLES / "col-de-turini.yaml")
    text = runner.invoke(app, ["validate", stage, "--simulate", "2"])
    assert text.exit_code == 0, text.output
    doc = json.loads(
        runner.invoke(app, ["validate", stage, "--simulate", "2", "--format", "json"]).stdout
    )
    summary = doc["files"][0]["summary"]
    assert summary["par_time_note"] == "lower bound, fastest legal line with no dice risk"
    line = f"par {summary['par_time']} s: lower bound, fastest legal line with no dice risk"
    assert line in text.stdout
    assert summary["simulation"]["dnf"] == {"stuck": 0, "round cap": 0}


# --- Unlimited dashboards in races (issue 11) ------------------------------------------------


def _has(board: UnlimitedDashboard | None, token: str) -> bool:
    return board is not None and any(t == token for _r, _i, t in board.tokens())


def _per_attempt(result: RaceResult, driver: int, kind: str) -> list[int]:
    """Events of ``kind`` in each attempt of a driver, read from the turn log."""
    out: dict[int, int] = {}
    for t in result.log:
        if t.driver == driver:
            out[t.attempt] = out.get(t.attempt, 0) + sum(1 for e in t.events if e.kind == kind)
    return [out.get(a, 0) for a in range(max(out) + 1)]


def test_dash_3_hillclimbs_are_raced_with_unlimited_dashboards_built_for_the_stage():
    # rule: DASH-3, HILLCLIMB-2, HILLCLIMB-3 (built before the first turn, rebuilt after)
    hill = example_prepared("hillclimb-pikes.yaml")
    settings = Settings.default(3, bots=("cautious", "aggressive", "planner"), hillclimb=True)
    assert [d.car for d in settings.drivers] == ["unlimited"] * 3
    assert Settings.default(3).drivers[0].car == "dirt"  # a rally keeps the DIRT car
    surfaces = {info.surface for info in hill.track.spaces.values()}
    profile = stage_profile(hill.track)
    assert profile.surfaces == ("asphalt", "snow")  # the most road first: the best surface
    for seed in range(3):
        result = run_race(hill, settings, seed)
        for i, d in enumerate(result.drivers):
            assert len(d.times) == 3 and len(d.boards) == 3
            level, flipped = 0, False
            losses = _per_attempt(result, i, "loss-of-control")
            flips = _per_attempt(result, i, "sisu")
            for board, lost, flip in zip(d.boards, losses, flips, strict=True):
                assert board is not None and check_unlimited(board, surfaces) == []
                assert board.surfaces == ("snow", "asphalt")  # asphalt rightmost
                # the bot's own rule, from the attempt before (HILLCLIMB-3; LOC-7: a token
                # flipped for the rally is left off)
                assert board == build_unlimited(profile, d.bot, level=level, sisu=not flipped)
                level, flipped = next_level(level, lost), flipped or bool(flip)


def test_garage_rules_each_bot_builds_by_its_own_wish_list_and_limit():
    # rule: DASH-3, DASH-4 (the board of each bot on Pikes: two surfaces, climbs, a shortcut)
    profile = stage_profile(example_prepared("hillclimb-pikes.yaml").track)
    limits = {bot: build_unlimited(profile, bot).danger_limit() for bot in BUILDS}
    assert limits == {"cautious": 5, "planner": 4, "aggressive": 3}
    for bot in BUILDS:
        board = build_unlimited(profile, bot)
        assert board.column("snow").boost == 1  # climbs: the boost is wanted early (CLIMB-3)
        assert board.column("snow").gears == [1, 2, 3, 4, 5, 6]
        assert "sisu" in board.top and "sisu" not in build_unlimited(profile, bot, sisu=False).top
        more, fewer = (build_unlimited(profile, bot, level=lv) for lv in (1, -1))
        assert more.danger_limit() == board.danger_limit() - 1
        assert fewer.danger_limit() == board.danger_limit() + 1
    # two losses or more: one token fewer next time; a clean attempt: back to its own build
    assert [next_level(0, n) for n in (0, 1, 2, 5)] == [0, 0, -1, -1]
    assert [next_level(-1, n) for n in (0, 1, 2)] == [0, -1, -1]


def test_hillclimb_par_is_a_lower_bound_for_the_bots_unlimited_boards():
    # the par of a hillclimb: the richest boards the bots may build, every die at once
    from trackkit.sim.par import par_time

    hill = example_prepared("hillclimb-pikes.yaml")
    profile = stage_profile(hill.track)
    bound = unlimited_bound(profile)
    for bot in BUILDS:
        for level in (-1, 0):
            for sisu in (True, False):
                board = build_unlimited(profile, bot, level=level, sisu=sisu)
                for surface in profile.surfaces:
                    have, most = board.column(surface), bound.column(surface)
                    assert set(have.gears) <= set(most.gears)
                    assert all(
                        getattr(have, k) <= getattr(most, k) for k in ("brake", "coast", "boost")
                    )
    par = par_time(hill, car=bound)
    races = run_many(hill, Settings.default(4, hillclimb=True), races=6, seed=5)
    best = min(t for r in races for t in r.times if t is not None)
    assert par is not None and par <= best


@pytest.mark.parametrize("once_per", ["rally", "stage"])
def test_loc_7_sisu_once_per_rally_or_given_back_at_each_stage_attempt(once_per: str):
    # rule: LOC-7 (sisu_once_per: a flipped token stays flipped for the rally, or comes
    # back at each stage: every attempt of a hillclimb is a run of the stage)
    base = example_prepared("hillclimb-pikes.yaml")
    hill = replace(base, ruleset=base.ruleset.model_copy(update={"sisu_once_per": once_per}))
    settings = Settings.default(4, bots=("aggressive",), hillclimb=True)
    twice = 0  # drivers who flipped it in two attempts of one race
    for seed in range(6):
        result = run_race(hill, settings, seed)
        for i, d in enumerate(result.drivers):
            flips = _per_attempt(result, i, "sisu")
            assert all(n <= 1 for n in flips)  # once a turn at most, and then it is down
            twice += sum(1 for n in flips if n) >= 2
            if once_per == "rally" and d.sisu_spent:
                # the rebuilt boards leave the spent token out (the space goes to a die)
                first = flips.index(1)
                assert all(not _has(b, "sisu") for b in d.boards[first + 1 :])
            if once_per == "stage":
                assert all(_has(b, "sisu") for b in d.boards)
    assert (twice > 0) == (once_per == "stage")


def test_loc_7_a_token_flipped_on_an_earlier_stage_of_the_rally_stays_flipped():
    # rule: LOC-7 (sisu_once_per: rally, across the stage files of a rally)
    hill = example_prepared("hillclimb-pikes.yaml")
    settings = Settings.default(2, bots=("aggressive",), hillclimb=True)
    seen: list[CarState] = []
    result = run_race(
        hill, settings, 3, sisu_spent=(True, False), observe=lambda r, i, c: seen.extend(c)
    )
    assert result.drivers[0].sisu_spent and not any(
        e.kind == "sisu" for t in result.log if t.driver == 0 for e in t.events
    )
    assert not any(_has(b, "sisu") for b in result.drivers[0].boards)
    assert not any(c.sisu_token for c in seen if c.car_id == 0)
    assert any(c.sisu_token for c in seen if c.car_id == 1)  # the other one still has its own


def test_a_car_file_drives_its_own_dashboard_every_attempt():
    # rule: DASH-3, DASH-4 (the car file's board: never rebuilt by the bot)
    hill = example_prepared("hillclimb-pikes.yaml")
    car = load_car(EXAMPLES / "cars" / "pikes-asphalt-attack.yaml")
    settings = Settings((DriverSpec("me", car, "aggressive"),), hillclimb=True)
    result = run_race(hill, settings, 2)
    boards = result.drivers[0].boards
    assert len(boards) == 3 and len(set(boards)) == 1 and boards[0] is not None
    assert boards[0].right == ("boost", "coast") and result.drivers[0].car == car.name


def test_simulate_report_says_which_dashboard_each_driver_used(tmp_path: Path):
    car = EXAMPLES / "cars" / "pikes-snow-safe.yaml"
    args = ["simulate", str(EXAMPLES / "hillclimb-pikes.yaml"), "--races", "3", "--players", "2"]
    runner = CliRunner()
    out = runner.invoke(app, [*args, "--car", "unlimited", "--car", str(car), "--format", "json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["settings"]["cars"] == ["unlimited", "Pikes snow safe"]
    mine = doc["time"]["drivers"][1]["dashboards"]
    assert [e["attempts"] for e in mine] == [9]
    assert mine[0]["layout"] == {"unlimited": load_car(car).unlimited.model_dump()}
    assert mine[0]["dashboard"].startswith("asphalt|snow: ")
    built = doc["time"]["drivers"][0]["dashboards"]
    assert sum(e["attempts"] for e in built) == 9 and all("unlimited" in e["layout"] for e in built)
    text = runner.invoke(app, [*args, "--car", str(car)])
    assert text.exit_code == 0 and "dashboards (attempts):" in text.output
    assert "Pikes snow safe" in text.output and "limit 6 x9" in text.output
    # a rally's fixed car says so too
    rally = runner.invoke(
        app,
        [
            "simulate",
            str(EXAMPLES / "col-de-turini.yaml"),
            "--races",
            "1",
            "--players",
            "1",
            "--format",
            "json",
        ],
    )
    entry = json.loads(rally.output)["time"]["drivers"][0]["dashboards"]
    assert entry[0]["layout"]["fixed"]["snow"]["danger_limit"] == 2


def test_simulate_car_files_that_cannot_be_used_are_exit_2_naming_the_file(tmp_path: Path):
    runner = CliRunner()
    stage = str(EXAMPLES / "hillclimb-pikes.yaml")
    snow_only = tmp_path / "snow.yaml"
    snow_only.write_text(
        "format: trackkit-car/1\nname: Snow\nunlimited:\n  top: [null, null, snow]\n"
        "  left: [gear-1, gear-2, gear-3]\n",
        encoding="utf-8",
    )
    out = runner.invoke(app, ["simulate", stage, "--races", "1", "--car", str(snow_only)])
    assert out.exit_code == 2 and str(snow_only) in out.output and "unlimited.top" in out.output
    assert "Traceback" not in out.output
    broken = tmp_path / "broken.yaml"
    broken.write_text("format: trackkit-car/1\nname: B\nunlimited:\n  top: [snow]\n")
    out = runner.invoke(app, ["simulate", stage, "--races", "1", "--car", str(broken)])
    assert out.exit_code == 2 and f"{broken}: unlimited.top" in out.output
    out = runner.invoke(app, ["simulate", stage, "--races", "1", "--car", "banana"])
    assert out.exit_code == 2 and "unknown car 'banana'" in out.output


def test_a_replay_of_a_race_with_car_files_and_unlimited_boards_replays(tmp_path: Path):
    stage = load_stage(EXAMPLES / "hillclimb-pikes.yaml")
    hill = example_prepared("hillclimb-pikes.yaml")
    car = load_car(EXAMPLES / "cars" / "pikes-asphalt-attack.yaml")
    settings = Settings(
        (DriverSpec("a", car, "aggressive"), DriverSpec("b", "unlimited", "cautious")),
        hillclimb=True,
    )
    result = run_race(hill, settings, 8)
    doc = json.loads(replay_document(stage, settings, 8, result))
    assert doc["settings"]["drivers"][0]["car"]["name"] == car.name
    assert check_replay(doc)[0]
    doc["settings"]["drivers"][0]["car"]["unlimited"]["right"] = ["gear-6", "gear-6"]
    with pytest.raises(ValueError, match=r"unlimited\.right"):
        check_replay(doc)


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["col-de-turini.yaml", "hillclimb-pikes.yaml"])
def test_the_planners_bounded_search_picks_what_weighing_every_plan_picks(stage: str):
    """The planner walks fewer plans (branch and bound), never to another choice."""
    import random

    from trackkit.rules.resolve import sisu_ready
    from trackkit.rules.risk import flat_out_risk
    from trackkit.sim.bots import LOC_COST_MM, Planner
    from trackkit.sim.roads import DirtRoad

    stage_ = example_prepared(stage)
    track, rules = stage_.track, stage_.ruleset
    profile = stage_profile(track)
    boards = [dashboard("dirt", rules), dashboard("r5", rules)]
    if stage == "hillclimb-pikes.yaml":
        boards += [unlimited_dashboard(build_unlimited(profile, b, level=1)) for b in BUILDS]
    rng = random.Random(5)
    order = sorted(track.spaces, key=lambda n: track.spaces[n].progress)
    for _ in range(120):
        me = rng.choice([s for s in order if track.successors[s]])
        others = tuple(
            OtherCar(space, rng.choice([1, 3, 5]))
            for space in rng.sample(order, rng.randint(0, 3))
            if space != me
        )
        ctx = PlanContext(
            track,
            rng.choice(boards),
            rules,
            CarState(0, me, rng.choice([0, 2, 3, 5]), sisu_token=rng.random() < 0.3),
            others,
            leader=rng.random() < 0.3,
        )
        every: tuple[float, Plan] | None = None
        for score, plan in DirtRoad.of(track).candidates(ctx):
            risk = flat_out_risk(ctx, plan, sisu=sisu_ready(ctx))
            value = (1 - risk) * score - risk * LOC_COST_MM
            if every is None or value > every[0]:
                every = (value, plan)
        assert Planner().search(ctx)[0] == (every[1] if every else Plan(())), (me, ctx.car)


def test_a_rallys_later_stage_starts_with_the_tokens_flipped_earlier_with_any_jobs():
    # rule: LOC-7 (sisu_once_per: rally, carried from stage to stage, race by race)
    hill = example_prepared("hillclimb-pikes.yaml")
    settings = Settings.default(3, bots=("aggressive",), hillclimb=True)
    first = run_many(hill, settings, races=4, seed=2)
    spent = [r.sisu_spent for r in first]
    assert any(any(s) for s in spent)
    one = run_many(
        example_prepared("hillclimb-pikes.yaml"), settings, races=4, seed=2, sisu_spent=spent
    )
    two = run_many(
        example_prepared("hillclimb-pikes.yaml"),
        settings,
        races=4,
        seed=2,
        sisu_spent=spent,
        jobs=2,
    )
    assert one == two
    for before, after in zip(spent, one, strict=True):
        for i, flipped in enumerate(before):
            if flipped:  # no SISU on any board of the later stage, and no flip
                assert not any(_has(b, "sisu") for b in after.boards[i]) and after.sisu_spent[i]


@pytest.mark.parametrize(
    ("stage", "car"), [("col-de-turini.yaml", "dirt"), ("hillclimb-pikes.yaml", "bound")]
)
def test_par_time_is_that_of_weighing_every_plan_of_every_turn(stage: str, car: str):
    """The par search merges plans that meet inside a turn; the par is unchanged."""
    import heapq

    from trackkit.rules.dice import DieKind
    from trackkit.sim.par import par_time
    from trackkit.sim.roads import DirtRoad

    hill = example_prepared(stage)
    rules = hill.ruleset
    board = unlimited_bound(stage_profile(hill.track)) if car == "bound" else dashboard(car)
    best = {(hill.start[0], 0): 0}
    queue = [(0, hill.start[0], 0)]
    reference = None
    while queue:
        cost, space, gear = heapq.heappop(queue)
        if space == "<finished>":
            reference = cost
            break
        if best.get((space, gear), 1 << 30) < cost:
            continue
        ctx = PlanContext(hill.track, board, rules, CarState(0, space, gear))
        keep, keep_move = DirtRoad.of(hill.track).pruners()
        for plan in legal_plans(ctx, max_steps=MAX_STEPS, keep=keep, keep_move=keep_move):
            last = plan.steps[-1]
            gears = any(d.kind is DieKind.GEAR for d in plan.dice)
            card = rules.time_cards[max(1, min(last.speed if gears else gear, 6))]
            new = cost + max(0, card - sum(1 for d in plan.dice if d.earns_second))
            key = ("<finished>", 0) if last.finishes else (last.space, last.speed)
            if new < best.get(key, 1 << 30):
                best[key] = new
                heapq.heappush(queue, (new, *key))
    assert reference is not None and par_time(hill, car=board) == reference


def test_a_worker_stops_its_task_on_ctrl_c_and_ignores_it_between_tasks():
    """Ctrl-C reaches every process: a worker between tasks must not die with a traceback."""
    import signal

    from trackkit.parallel import worker_signals, worker_task

    calls: list[int] = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: calls.append(signum))
    try:
        worker_signals()
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler)
        handler(signal.SIGINT, None)  # between tasks: ignored
        assert calls == []
        with worker_task():
            handler(signal.SIGINT, None)  # at work: the interrupt it had before
        assert calls == [signal.SIGINT]
        handler(signal.SIGINT, None)
        assert calls == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("seconds", [2, 3])
def test_the_guided_par_search_bounds_by_the_rulesets_second_tokens(
    seconds: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rule: TIME-2 -- a ruleset whose second tokens are worth more makes a turn cheaper;
    A*'s bound takes that off too (else it overestimates and misses the cheapest run).
    The cards are 20 s dearer, so that the bound stays above 0 and guides the search."""
    import dataclasses

    import trackkit.sim.par as par

    turini = example_prepared("col-de-turini.yaml")
    cards = {gear: card + 20 for gear, card in turini.ruleset.time_cards.items()}
    dear = turini.ruleset.model_copy(update={"time_cards": cards})
    rules = dear.model_copy(update={"second_token_seconds": seconds})
    rich = dataclasses.replace(turini, ruleset=rules)
    calls = [0]
    turn_ends = par.turn_ends

    def counted(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        return turn_ends(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(par, "turn_ends", counted)
    plain = par.par_time(rich, guided=False)
    plain_calls, calls[0] = calls[0], 0
    base = par.par_time(dataclasses.replace(turini, ruleset=dear), guided=False)
    assert plain is not None and base is not None and plain < base
    calls[0] = 0
    assert par.par_time(rich) == plain
    assert calls[0] < plain_calls  # the bound guides the search: fewer turn ends


@pytest.mark.parametrize(
    ("stage", "car"), [("col-de-turini.yaml", "dirt"), ("hillclimb-pikes.yaml", "bound")]
)
def test_the_guided_par_search_finds_the_same_par_from_fewer_turn_ends(
    stage: str, car: str, monkeypatch: pytest.MonkeyPatch
):
    """A* (the turns still needed times a turn's least cost) against plain Dijkstra."""
    import trackkit.sim.par as par

    hill = example_prepared(stage)
    board = unlimited_bound(stage_profile(hill.track)) if car == "bound" else dashboard(car)
    calls = [0]
    turn_ends = par.turn_ends

    def counted(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        return turn_ends(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(par, "turn_ends", counted)
    plain = par.par_time(hill, car=board, guided=False)
    plain_calls, calls[0] = calls[0], 0
    guided = par.par_time(hill, car=board)
    assert guided is not None and guided == plain
    assert calls[0] < plain_calls
    # the bound: a turn takes at most MAX_STEPS steps, and no space is nearer the finish
    # than the spaces it leads to less one step
    turns = par._turns_bound(hill.track, MAX_STEPS)
    assert all(turns[s] == 0 for s, info in hill.track.spaces.items() if info.finished)
    for space, n in turns.items():
        for succ, _climb in hill.track.successors[space]:
            assert n <= turns.get(succ, n) + 1
