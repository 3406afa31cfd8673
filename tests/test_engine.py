"""The scriptable engine, used the way a script sets up a position or a race (issue 11.4).

Play order (TURN-2), positions with every field a turn depends on, fixed dice and cards,
races started from a given position, scripted drivers, and the turn log as data.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from trackkit.checks.pipeline import validate
from trackkit.formats import load_stage
from trackkit.models.stage import Stage
from trackkit.rules import (
    CarState,
    Damage,
    DiceScriptError,
    Mode,
    OtherCar,
    ScriptedDice,
    SeededDice,
    legal_plans,
    load_ruleset,
    new_table,
    play_order,
    position,
    resolve,
    track_of,
)
from trackkit.rules.track import Track
from trackkit.sim import (
    DriverSpec,
    RacePosition,
    Script,
    ScriptError,
    Settings,
    prepare,
    run_race,
)
from trackkit.sim.replay import REPLAY_FORMAT_1, ReplayError, check_replay, replay_document

REPO = Path(__file__).resolve().parents[1]
#: A straight, then 217b turned left: a 2/3 corner (inner lane limit 2, outer 3), gravel.
CORNER = ["202a", "205a", {"tile": "217b", "turn": "left"}, "203a"]
RULES = load_ruleset("dirt")


def _events(log_turn: Any, kind: str) -> list[Any]:
    return [e for e in log_turn.events if e.kind == kind]


# --- play order (TURN-2) -------------------------------------------------------------


def test_turn_2_play_order_of_given_cars_distance_speed_inner_lane_then_player_order():
    # rule: TURN-2 (DIRT: furthest first; level: higher gear; level: the inner lane of the
    # current or next corner; DEFAULT: level on all three, the order the cars are given)
    track = track_of(CORNER)
    ahead, behind = CarState(0, "2:1.2R", 2), CarState(1, "2:1.1L", 6)
    assert [c.car_id for c in play_order([behind, ahead], track, RULES)] == [0, 1]
    slow, fast = CarState(0, "2:1.2L", 2), CarState(1, "2:1.2R", 5)
    assert [c.car_id for c in play_order([slow, fast], track, RULES)] == [1, 0]
    # 217b turns left: the left lane leads into the inner lane of its corner
    outer, inner = CarState(0, "2:1.3R", 4), CarState(1, "2:1.3L", 4)
    assert [c.car_id for c in play_order([outer, inner], track, RULES)] == [1, 0]
    # level on all three (side by side on the finish tile, no corner ahead): as given
    left, right = CarState(7, "4:1.2L", 3), CarState(3, "4:1.2R", 3)
    spaces = track.spaces
    assert spaces["4:1.2L"].progress == spaces["4:1.2R"].progress
    assert [c.car_id for c in play_order([left, right], track, RULES)] == [7, 3]
    assert [c.car_id for c in play_order([right, left], track, RULES)] == [3, 7]


def test_turn_2_gt_order_puts_speed_before_distance_and_cars_off_the_stage_last():
    # rule: TURN-2 (GT: speed first, then distance), TURN-1 (cars joining play last)
    track = track_of(CORNER)
    gt = RULES.model_copy(update={"play_order": "speed"})
    ahead, faster = CarState(0, "2:1.2R", 2), CarState(1, "2:1.1L", 6)
    joining = CarState(2, None)
    assert [c.car_id for c in play_order([joining, ahead, faster], track, RULES)] == [0, 1, 2]
    assert [c.car_id for c in play_order([joining, ahead, faster], track, gt)] == [1, 0, 2]
    with pytest.raises(ValueError, match=r"9:9\.9L"):
        play_order([CarState(0, "9:9.9L", 1)], track, RULES)


def test_the_race_plays_each_round_in_play_order():
    # rule: TURN-2 (every round of a race follows play_order on the cars as they stand)
    tiles = ["202a", "205a", {"tile": "217b", "turn": "left"}, "206a", "204a", "205b"]
    stage = prepare(track_of([*tiles, {"tile": "222a", "turn": "right"}, "206b", "203a"]))
    seen: list[tuple[int, int, tuple[CarState, ...]]] = []
    run_race(
        stage,
        Settings.default(4, bots=("cautious", "aggressive", "planner")),
        seed=3,
        observe=lambda rnd, i, cars: seen.append((rnd, i, cars)),
    )
    checked = 0
    for rnd in {r for r, _i, _cars in seen}:
        turns = [(i, cars) for r, i, cars in seen if r == rnd]
        before = [t for r, i, t in seen if r == rnd - 1]
        if not before:
            continue
        cars = before[-1]  # every car as the round began
        racing = [c for c in cars if c.space is not None and not c.finished]
        expected = [c.car_id for c in play_order(racing, stage.track, stage.ruleset)]
        played = [i for i, _cars in turns if cars[i].space is not None]
        assert played == [e for e in expected if e in played]
        checked += 1
    assert checked >= 8


# --- positions -----------------------------------------------------------------------


def test_position_sets_second_tokens_cards_time_sisu_and_cars_that_do_not_block():
    ctx = position(
        CORNER,
        space="2:1.1L",
        gear=3,
        second_tokens=5,
        cards=(40, 30),
        time=65,
        sisu=("snow",),
        others=[("2:1.2L", 2, False), OtherCar("2:1.3R", 4)],
        damage=Damage(brake=1),
    )
    car = ctx.car
    assert (car.second_tokens, car.cards, car.time_seconds, car.damage.brake) == (
        5,
        (40, 30),
        65,
        1,
    )
    assert car.sisu_token and ctx.dashboard.sisu == frozenset({"snow"})
    # a car off the road blocks no one (TRAFFIC-4): its space can be driven onto
    firsts = {p.steps[0].space for p in legal_plans(ctx, max_steps=1)}
    assert "2:1.2L" in firsts
    blocking = position(CORNER, space="2:1.1L", gear=3, others=[("2:1.2L", 2)])
    assert "2:1.2L" not in {p.steps[0].space for p in legal_plans(blocking, max_steps=1)}
    # the time defaults to the cards' sum; sisu=None follows the dashboard (the DIRT car: none)
    plain = position(CORNER, space="2:1.1L", gear=3, cards=(40, 30))
    assert plain.car.time_seconds == 70 and not plain.car.sisu_token


def test_position_cards_and_second_tokens_drive_the_turn_8_and_turn_5_rules():
    # rule: TURN-8 (a turn on coast or leader dice alone repeats the top card of the pile;
    # DEFAULT: a loss-of-control card on top: the gear's card)
    coast = position(CORNER, space="2:1.1L", gear=3, cards=(50, 25))
    plan = next(p for p in legal_plans(coast, max_steps=1) if str(p) == "2:1.2L C")
    out = resolve(
        coast,
        plan,
        Mode.FLAT_OUT,
        random.Random(1),
        table=new_table(RULES, random.Random(1)),
        dice=ScriptedDice(["safe"]),
    )
    assert out.car.cards[-1] == 25 and out.car.time_seconds == 75 + 25
    after_loc = position(CORNER, space="2:1.1L", gear=3, cards=(60,), top_card_loc=True)
    out = resolve(
        after_loc,
        plan,
        Mode.FLAT_OUT,
        random.Random(1),
        table=new_table(RULES, random.Random(1)),
        dice=ScriptedDice(["safe"]),
    )
    assert out.car.cards[-1] == RULES.time_cards[3]
    # rule: TURN-5 (one by one, securing a die costs second tokens the position gave)
    rich = position(CORNER, space="2:1.1L", gear=3, second_tokens=1)

    class SecureAll:
        def before_roll(self, view: Any) -> str:
            return "secure"

        def use_sisu(self, dangers: int, limit: int) -> bool:
            return False

        def choose_loc_step(self, candidates: list[int]) -> int:
            return candidates[-1]

    g4 = next(p for p in legal_plans(rich, max_steps=1) if str(p) == "2:1.2L G4")
    out = resolve(
        rich,
        g4,
        Mode.ONE_BY_ONE,
        random.Random(1),
        table=new_table(RULES, random.Random(1)),
        policy=SecureAll(),
        dice=ScriptedDice([]),
    )
    assert out.car.second_tokens == 0 and out.events[0].kind == "secure"


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"space": "2:1.9L"}, "no space '2:1.9L'"),
        ({"gear": 7}, "gear 7"),
        ({"others": [("2:1.1L", 3)]}, "other car 1 and the car both stand on 2:1.1L"),
        ({"others": [("8:1.1L", 3)]}, "other car 1: no space '8:1.1L'"),
        ({"sisu": ("mud",)}, "SISU on mud"),
        ({"second_tokens": -1}, "never negative"),
        ({"car": "rally-car"}, "unknown car 'rally-car'"),
    ],
)
def test_position_refuses_what_no_table_could_show_naming_it(kwargs: dict[str, Any], words: str):
    args: dict[str, Any] = {"space": "2:1.1L", "gear": 3, **kwargs}
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        position(CORNER, **args)


def test_position_takes_a_track_of_a_stage_file_and_a_car_file():
    from trackkit.rules.cars import load_car

    report = validate(load_stage(REPO / "examples/hillclimb-pikes.yaml"))
    track = Track.from_graph(report.graph, report.layout)
    car = load_car(REPO / "examples/cars/pikes-snow-safe.yaml")
    start = sorted(track.start)[0]
    ctx = position(track, space=start, gear=0, car=car)
    assert ctx.track is track and ctx.dashboard.name == car.name
    assert ctx.car.sisu_token == bool(ctx.dashboard.sisu)  # face up if the board has one
    assert next(legal_plans(ctx, max_steps=1), None) is not None


# --- dice -----------------------------------------------------------------------------


def test_scripted_dice_fail_loudly_when_they_run_out_or_meet_another_die():
    ctx = position(CORNER, space="2:1.1L", gear=3)
    plan = next(p for p in legal_plans(ctx) if str(p) == "2:1.2L G4 > 2:1.3L G5")
    table = new_table(RULES, random.Random(1))
    with pytest.raises(DiceScriptError, match="ran out: no result left for die G5"):
        resolve(
            ctx, plan, Mode.FLAT_OUT, random.Random(1), table=table, dice=ScriptedDice(["safe"])
        )
    with pytest.raises(DiceScriptError, match="for die G3, but die G4 is rolled"):
        resolve(
            ctx,
            plan,
            Mode.FLAT_OUT,
            random.Random(1),
            table=table,
            dice=ScriptedDice([("G3", "safe"), "safe"]),
        )
    with pytest.raises(DiceScriptError, match="'maybe' is no result"):
        ScriptedDice(["safe", "maybe"])
    dice = ScriptedDice([("G4", "safe"), ("G5", True), "danger"])
    resolve(ctx, plan, Mode.FLAT_OUT, random.Random(1), table=table, dice=dice)
    assert dice.rolled == [("G4", False), ("G5", True)] and dice.remaining == 1


def test_seeded_dice_roll_what_the_race_generator_rolls():
    """The dice hook changes nothing for seeded play: SeededDice on the turn's generator
    gives the same turn, event for event, as no hook (the golden races stay the same)."""
    track = track_of(["202a", "205a", {"tile": "217b", "turn": "left"}, "206a", "203a"])
    rng = random.Random(11)
    spaces = sorted(s for s in track.spaces if track.successors[s])
    compared = 0
    for _ in range(80):
        ctx = position(track, space=rng.choice(spaces), gear=rng.randint(0, 6), car="r5")
        plans = list(legal_plans(ctx, max_steps=4))
        if not plans:
            continue
        plan = rng.choice(plans)
        mode = rng.choice([Mode.FLAT_OUT, Mode.ONE_BY_ONE])
        seed = rng.randrange(10**6)
        a_rng, b_rng = random.Random(seed), random.Random(seed)
        a = resolve(ctx, plan, mode, a_rng, table=new_table(RULES, a_rng))
        b = resolve(ctx, plan, mode, b_rng, table=new_table(RULES, b_rng), dice=SeededDice(b_rng))
        assert (a.car, a.events, a.table) == (b.car, b.events, b.table)
        compared += 1
    assert compared > 60


# --- races from a position, scripted drivers, fixed dice ------------------------------


def test_a_car_before_a_corner_with_fixed_dice_loses_control_in_the_corner():
    """A script: the car in gear 5 before 217b's corner plans three dice into its outer
    lane; every die shows danger, so the count reaches the limit (3) on the third space;
    the gear-3 deck has a crash on top."""
    # rule: TURN-6 (flat out: the count reaches the limit), LOC-1 DEFAULT (the gear of the
    # die that caused it), LOC-4 (a crash: 60 s, off the road), TURN-4 DEFAULT (tokens paid)
    stage = prepare(track_of(CORNER))
    me = DriverSpec("me", bot=Script.of(["3:1.1L G4 > 3:2.O1 G3 > 3:2.O2 C"]))
    table = new_table(RULES, random.Random(0)).stack(3, ["crash"])
    start = RacePosition(
        (CarState(0, "2:1.3L", 5, second_tokens=2, cards=(20, 15), time_seconds=35),),
        round=3,
        table=table,
    )
    dice = ScriptedDice(["danger", "danger", "danger"])
    result = run_race(stage, Settings((me,), max_rounds=4), seed=1, start=start, dice=dice)
    (turn,) = result.log
    assert (turn.round, turn.start, turn.gear) == (4, "2:1.3L", 5)
    assert [(s.space, s.dice_label) for s in turn.steps] == [
        ("3:1.1L", "G4"),
        ("3:2.O1", "G3"),
        ("3:2.O2", "L"),  # the leader's coast die is a leader die (MOVE-3)
    ]
    assert [e.value for e in _events(turn, "roll")] == [1, 1, 1] and dice.remaining == 0
    (loss,) = _events(turn, "loss-of-control")
    assert (loss.space, loss.value, loss.note) == ("3:2.O2", 3, "dangers")
    assert [e.note for e in _events(turn, "card")] == ["crash"]
    assert result.drivers[0].losses == [(3, "3:2.O2")]
    assert result.drivers[0].turns == 1 and not result.drivers[0].finished
    # the same turn with a SISU token face up: flipped, every danger void (LOC-7)
    ctx = position(CORNER, space="2:1.3L", gear=5, sisu=True, leader=True)
    plan = next(p for p in legal_plans(ctx) if str(p) == "3:1.1L G4 > 3:2.O1 G3 > 3:2.O2 L")
    rng = random.Random(0)
    saved = resolve(ctx, plan, Mode.FLAT_OUT, rng, table=table, dice=ScriptedDice(["danger"] * 3))
    assert not saved.lost_control and not saved.car.sisu_token
    assert saved.car.space == "3:2.O2" and [e.kind for e in saved.events].count("sisu") == 1


def test_an_illegal_scripted_plan_is_refused_naming_the_driver_round_turn_and_step():
    stage = prepare(track_of(CORNER))
    script = Script.of(["2:1.2L G4", "2:1.3L G5 > 3:1.1L G5"])  # G5 twice in one turn
    start = RacePosition((CarState(0, "2:1.1L", 3),))
    with pytest.raises(ScriptError) as caught:
        run_race(stage, Settings((DriverSpec("Ann", bot=script),)), seed=2, start=start)
    message = str(caught.value)
    assert message.startswith("Ann (driver 1), round 2: turn 2 of the script: step 2")
    assert "'3:1.1L G5' is not a legal move after '2:1.3L G5' (in gear 5 on 2:1.3L)" in message
    assert "legal next steps: 3:1.1L G6" in message  # the moves that are legal there
    # the plan ends where control is lost whatever the dice: a step after it is refused
    past = Script.of(["2:1.2L G4 > 2:1.3L G5 > 3:1.1L G6 > 3:2.I1 C > 3:3.1L G5"])
    with pytest.raises(ScriptError, match=r"step 5 .*control is lost there"):
        run_race(stage, Settings((DriverSpec("Bo", bot=past),)), seed=2, start=start)
    with pytest.raises(ScriptError, match="write a step as SPACE DICE"):
        Script.of(["2:1.2L"])


def test_a_script_played_out_stops_the_race_or_hands_over_to_its_bot():
    stage = prepare(track_of(CORNER))
    start = RacePosition((CarState(0, "2:1.1L", 3),))
    short = Script.of(["2:1.2L G4 > 2:1.3L G5"])
    with pytest.raises(ScriptError, match="turn 2: the script has 1 turn and no bot"):
        run_race(stage, Settings((DriverSpec("Ann", bot=short),)), seed=1, start=start)
    handed = DriverSpec("Ann", bot=Script(short.turns, then="planner"))
    result = run_race(stage, Settings((handed,)), seed=1, start=start)
    assert result.log[0].plan == "2:1.2L G4 > 2:1.3L G5" and result.drivers[0].finished
    assert result.drivers[0].bot == "scripted"
    assert result.log[1].start == "2:1.3L" and result.log[1].gear == 5


def test_a_race_from_a_position_keeps_gears_damage_tokens_and_lets_later_drivers_in():
    # rule: TURN-1 (a driver behind the line joins in the rounds after the given one),
    # DAMAGE-3 (a car with gear damage has fewer gear dice a turn)
    stage = prepare(track_of(["202a", "205a", "206a", "204a", "205b", "203a"]))
    settings = Settings.default(3, bots=("cautious", "aggressive", "planner"))
    hurt = CarState(0, "3:1.2L", 4, damage=Damage(gear=4), second_tokens=3, cards=(30,) * 5)
    start = RacePosition((hurt, CarState(1, "2:1.3R", 2), None), round=5)
    seen: list[CarState] = []
    result = run_race(
        stage, settings, seed=4, start=start, observe=lambda r, i, cars: seen.append(cars[0])
    )
    first = [t for t in result.log if t.driver == 0]
    assert (first[0].round, first[0].start, first[0].gear) == (6, "3:1.2L", 4)
    # two gear dice a turn at most with four of six lost (DAMAGE-3)
    assert all(sum(1 for s in t.steps for d in s.dice if d.kind == "gear") <= 2 for t in first)
    assert seen[0].damage.gear >= 4 and seen[0].cards[:5] == (30,) * 5
    third = [t for t in result.log if t.driver == 2]
    assert third[0].round == 6 and third[0].start in stage.start  # it joins at once
    # every turn starts where the driver's last one ended (or the grid, or back on, LOC-4)
    ends: dict[int, str | None] = {}
    for t in result.log:
        moves = [e.space for e in t.events if e.kind == "move"]
        if t.driver in ends and not _events(t, "loss-of-control"):
            assert t.start == ends[t.driver] or t.start in stage.start
        if moves and not _events(t, "loss-of-control"):
            ends[t.driver] = moves[-1]
        else:
            ends.pop(t.driver, None)
    assert all(d.finished for d in result.drivers)


@pytest.mark.parametrize(
    ("start", "words"),
    [
        (RacePosition((CarState(0, "2:1.1L", 3), CarState(1, "2:1.1L", 4))), "both stand on"),
        (RacePosition((CarState(0, "2:9.1L", 3),)), "driver 1: no space '2:9.1L'"),
        (RacePosition((CarState(0, "2:1.1L", 3, finished=True),)), "a finished car"),
        (RacePosition((CarState(0, "2:1.1L", 8),)), "gear 8"),
        (RacePosition((None, None, None)), "3 cars for 2 driver"),
        (RacePosition((CarState(0, "2:1.1L", 3, sisu_token=True),)), "SISU token is face up"),
        (RacePosition((), mud=((9, -1),)), "no tile 9"),
        (RacePosition((), round=-1), "round -1"),
    ],
)
def test_a_race_start_that_cannot_be_is_refused_naming_the_driver(start: RacePosition, words: str):
    stage = prepare(track_of(CORNER))
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        run_race(stage, Settings.default(2), seed=1, start=start)


def test_mud_of_a_race_position_slows_every_car_but_its_drawer():
    # rule: SHORTCUT-2 (a mud token lowers the corner limits on its tile for the others)
    stage = prepare(track_of(CORNER))
    script = Script.of(["3:1.1L G4 > 3:2.O1 G3"])
    start = RacePosition((CarState(0, "2:1.3L", 5),), round=1, mud=((3, -1),))
    result = run_race(
        stage,
        Settings((DriverSpec("me", bot=script),), max_rounds=2),
        seed=1,
        start=start,
        dice=ScriptedDice(["safe", "safe"]),
    )
    # the outer lane's limit 3 is 2 with the mud: G3 there loses control whatever the dice
    (turn,) = result.log
    assert [e.note for e in _events(turn, "loss-of-control")] == ["corner"]
    mine = RacePosition((CarState(0, "2:1.3L", 5),), round=1, mud=((3, 0),))
    result = run_race(
        stage,
        Settings((DriverSpec("me", bot=script),), max_rounds=2),
        seed=1,
        start=mine,
        dice=ScriptedDice(["safe", "safe"]),
    )
    assert not _events(result.log[0], "loss-of-control")


# --- the turn log in replay files ------------------------------------------------------


def _replay_doc(settings: Settings, seed: int = 5) -> dict[str, Any]:
    stage = load_stage(REPO / "examples/col-de-turini.yaml")
    report = validate(stage)
    prepared = prepare(Track.from_graph(report.graph, report.layout))
    result = run_race(prepared, settings, seed)
    doc: dict[str, Any] = json.loads(replay_document(stage, settings, seed, result))
    return doc


def test_replay_files_hold_each_turns_start_and_plan_as_data_and_check_them():
    doc = _replay_doc(Settings.default(3, bots=("cautious", "aggressive", "planner")))
    assert doc["format"] == "trackkit-replay/2"
    turns = [t for t in doc["log"] if t["steps"]]
    assert turns and all(set(t) >= {"start", "gear", "steps"} for t in doc["log"])
    for t in turns:  # the text and the data say the same plan
        text = " > ".join(f"{s['space']} {'+'.join(s['dice']) or 'free'}" for s in t["steps"])
        assert t["plan"].replace(" !corner", "").replace(" !jump", "") == text
    assert check_replay(doc)[0]
    tampered = json.loads(json.dumps(doc))
    step = tampered["log"][3]["steps"][0]
    step["dice"] = ["G6"]
    ok, message = check_replay(tampered)
    assert not ok and "turn 4" in message
    assert "differs in its steps" in message  # the field that differs, not only the plan
    moved = json.loads(json.dumps(doc))
    moved["log"][5]["start"] = "1:1.1L" if moved["log"][5]["start"] != "1:1.1L" else "1:1.2L"
    assert not check_replay(moved)[0]


def test_replay_files_of_the_first_version_are_still_checked_on_what_they_hold():
    doc = _replay_doc(Settings.default(2))
    old = {**doc, "format": REPLAY_FORMAT_1}
    old["log"] = [
        {k: t[k] for k in ("round", "driver", "attempt", "plan", "mode", "events")}
        for t in doc["log"]
    ]
    assert check_replay(old) == (True, f"{len(old['log'])} turns replayed, every event matches")
    old["log"][2]["events"][0]["value"] = 99
    assert not check_replay(old)[0]
    with pytest.raises(ReplayError, match="trackkit-replay/2 and trackkit-replay/1 files"):
        check_replay({**doc, "format": "trackkit-replay/9"})
    with pytest.raises(ReplayError, match="not a replay file"):
        check_replay({**doc, "format": "trackkit-stage/1"})


def test_a_race_with_a_scripted_driver_replays_from_its_file():
    script = Script.of(
        ["1:1.2L G1 > 1:1.3L G2", ("2:1.1L G3 > 2:1.3L G4 via 2:1.2R", "one-by-one")],
        then="aggressive",
    )
    settings = Settings((DriverSpec("me", bot=script), DriverSpec("you", bot="planner")))
    doc = _replay_doc(settings)
    assert doc["settings"]["drivers"][0]["bot"]["script"][1] == {
        "plan": "2:1.1L G3 > 2:1.3L G4 via 2:1.2R",
        "mode": "one-by-one",
    }
    assert doc["log"][0]["plan"] == "1:1.2L G1 > 1:1.3L G2"
    assert check_replay(doc)[0]
    broken = json.loads(json.dumps(doc))
    broken["settings"]["drivers"][0]["bot"]["script"][0]["plan"] = "1:1.2L G3"
    ok, message = check_replay(broken)
    assert not ok and "step 1 '1:1.2L G3' is not a legal move" in message
    bad = json.loads(json.dumps(doc))
    bad["settings"]["drivers"][0]["bot"]["script"][0]["plan"] = "1:1.2L"
    with pytest.raises(ReplayError, match="broken script"):
        check_replay(bad)


def test_stage_models_are_what_replays_keep():
    """The stage of a replay is the stage raced (a sanity check on the helper above)."""
    doc = _replay_doc(Settings.default(1))
    assert Stage.model_validate(doc["stage"]).name == "Col de Turini"


def test_a_scripted_move_over_a_jump_names_the_jump_space_when_two_land_alike():
    # rule: JUMP-1 (a die at the jump's number lands one space beyond it)
    report = validate(load_stage(REPO / "examples/col-de-turini.yaml"))
    track = Track.from_graph(report.graph, report.layout)
    ctx = position(track, space="2:1.1L", gear=3)
    from trackkit.sim import ScriptedTurn

    right = ScriptedTurn.parse("2:1.3L G4 via 2:1.2R").plan_in(ctx)
    first = ScriptedTurn.parse("2:1.3L G4").plan_in(ctx)
    assert right.steps[0].placed_on == "2:1.2R" and first.steps[0].placed_on == "2:1.2L"
    with pytest.raises(ScriptError, match=re.escape("legal next steps: 2:1.3L G4 via 2:1.2L")):
        ScriptedTurn.parse("2:1.3L G4 via 2:1.1R").plan_in(ctx)
    # a plan found by code is a script turn as it is, the jump space kept
    assert Script.of([right]).turns[0].plan_in(ctx) == right
    assert str(Script.of([right]).turns[0]) == "2:1.3L G4 via 2:1.2R"
    with pytest.raises(ScriptError, match="'sideways' is no rolling mode"):
        ScriptedTurn.parse("2:1.3L G4", "sideways")


def test_a_scripted_driver_of_an_unlimited_car_gets_its_then_bots_board():
    # rule: DASH-3 (a hillclimb's Unlimited boards are built before the first turn)
    report = validate(load_stage(REPO / "examples/hillclimb-pikes.yaml"))
    stage = prepare(Track.from_graph(report.graph, report.layout))
    scripted = DriverSpec("me", car="unlimited", bot=Script((), then="aggressive"))
    bot = DriverSpec("you", car="unlimited", bot="aggressive")
    result = run_race(stage, Settings((scripted, bot), hillclimb=True), seed=3)
    mine, theirs = (d.boards[0] for d in result.drivers)
    assert mine is not None and mine == theirs
    assert result.drivers[0].bot == "scripted" and len(result.drivers[0].times) == 3


def test_replay_files_with_values_of_the_wrong_type_are_refused():
    from trackkit.sim.replay import ReplayError

    doc = _replay_doc(Settings.default(2))
    for where, value in (("seed", True), ("hillclimb", "yes"), ("attempts", "3")):
        bad = json.loads(json.dumps(doc))
        (bad["settings"] if where != "seed" else bad)[where] = value
        with pytest.raises(ReplayError):
            check_replay(bad)
