"""Race start positions: one check for both series, and every GT position the rules allow.

A race may start from a position (:class:`~trackkit.sim.race.RacePosition`); DIRT and GT
check it with one function (:func:`~trackkit.rules.positions.check_position`), so each
refusal is tested on both series: a DIRT stage with a slide before the bend of 217b (its
slide spaces lie over the lanes) and the Rekee figure of eight (its crossing: spaces of
two roads over one piece of tarmac). A refusal is a :class:`~trackkit.errors.PositionError`
naming the driver and the space.

GT positions: gear 00 and the pit (LOC-6, GT-2), the weather and each car's tyres
(GT-3), yellow flags out (GT-4, TRAFFIC-5); scripted drivers that drive past a pit or
fit tyres only; each turn of the log holds the flags out. Races are scripted: the drivers
play given plans, the dice show given faces and then only safe ones.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from trackkit.checks.pipeline import validate
from trackkit.errors import PositionError
from trackkit.formats import load_stage
from trackkit.models.car import CarFile
from trackkit.rules import CarState, Damage, GtCar, load_ruleset, new_table, track_of
from trackkit.rules.dice import Die
from trackkit.rules.state import Weather
from trackkit.rules.track import Track
from trackkit.sim import (
    DriverSpec,
    GtOptions,
    RacePosition,
    RaceResult,
    Script,
    ScriptedTurn,
    ScriptError,
    Settings,
    TurnLog,
    prepare,
    run_race,
)
from trackkit.sim.replay import check_replay, replay_document

REPO = Path(__file__).resolve().parents[1]
GT = load_ruleset("gt")


def _track(name: str) -> Track:
    report = validate(load_stage(REPO / "examples" / name))
    return Track.from_graph(report.graph, report.layout)


CORE = _track("gt-core-circuit.yaml")
EIGHT = _track("gt-figure-eight.rekee.json")
SLIDE = track_of(["202a", {"tile": "217b", "turn": "left"}, "203a"])


@dataclass(frozen=True)
class _Series:
    """A stage of one series and spaces on it: two lane spaces, two that overlap."""

    name: str
    track: Track
    space: str
    other: str
    overlap: tuple[str, str]
    car: str

    def race(self, cars: tuple[CarState | None, ...], **kw: Any) -> RaceResult:
        """A two-driver race from ``cars`` (refused, in these tests, before it starts)."""
        specs = kw.pop("drivers", None) or (
            DriverSpec("Ann", self.car),
            DriverSpec("Bob", self.car),
        )
        gt = GtOptions(laps=1) if self.name == "gt" else None
        settings = Settings(specs, max_rounds=1, gt=gt)
        return run_race(prepare(self.track), settings, 1, start=RacePosition(cars, **kw))


SERIES = [
    _Series("dirt", SLIDE, "2:1.1L", "2:1.2R", ("2:1.1S1", "2:1.1L"), "dirt"),
    _Series("gt", EIGHT, "2:A1b", "2:A2a", ("2:A1b", "9:B1b"), "gt6"),
]


def _refused(series: _Series, cars: tuple[CarState | None, ...], **kw: Any) -> PositionError:
    with pytest.raises(PositionError) as caught:
        series.race(cars, **kw)
    return caught.value


# --- one check for both series ---------------------------------------------------------


@pytest.mark.parametrize("series", SERIES, ids=lambda s: s.name)
def test_traffic_3_two_cars_on_one_space_are_refused_naming_both(series: _Series):
    # rule: TRAFFIC-3 (no two cars on one space)
    err = _refused(series, (CarState(0, series.space, 2), CarState(1, series.space, 3)))
    assert err.car == "driver 2 (Bob)" and err.space == series.space
    assert "driver 1 (Ann)" in str(err)


@pytest.mark.parametrize("series", SERIES, ids=lambda s: s.name)
def test_traffic_3_two_cars_on_spaces_that_overlap_are_refused(series: _Series):
    # rule: TRAFFIC-3 (DIRT: a slide space over the lane spaces; GT: the crossing's two
    # roads over one piece of tarmac. Cars off the road may share: TRAFFIC-4)
    a, b = series.overlap
    assert b in series.track.overlaps[a]
    err = _refused(series, (CarState(0, a, 2), CarState(1, b, 2)))
    assert err.car == "driver 2 (Bob)" and err.space == b and a in str(err)
    off = GtCar(off="00") if series.name == "gt" else None
    crashed = series.race((CarState(0, a, 2), CarState(1, b, 0, on_track=False)), gt=(None, off))
    assert crashed.rounds == 1


@pytest.mark.parametrize("series", SERIES, ids=lambda s: s.name)
def test_turn_4_gt_5_negative_second_or_focus_tokens_are_refused(series: _Series):
    # rule: TURN-4, GT-5 (second tokens, GT's focus tokens, are earned and spent: never
    # fewer than none)
    err = _refused(series, (CarState(0, series.space, 2, second_tokens=-1),))
    tokens = "focus tokens" if series.name == "gt" else "second tokens"
    assert err.car == "driver 1 (Ann)" and err.space == series.space and tokens in str(err)


@pytest.mark.parametrize("series", SERIES, ids=lambda s: s.name)
def test_damage_3_damage_beyond_the_dice_of_the_dashboard_is_refused(series: _Series):
    # rule: DAMAGE-3 (a token for a die the car lacks goes back: a DIRT car has one brake
    # die, a GT-6 three), and no negative count
    brakes = 1 if series.name == "dirt" else 3
    ok = series.race((CarState(0, series.space, 2, damage=Damage(brake=brakes)),))
    assert ok.rounds == 1
    err = _refused(series, (CarState(0, series.space, 2, damage=Damage(brake=brakes + 1)),))
    assert err.car == "driver 1 (Ann)" and "brake" in str(err)
    err = _refused(series, (CarState(0, series.space, 2, damage=Damage(coast=-1)),))
    assert "never negative" in str(err)


_FOUR_GEARS = CarFile.model_validate(
    {
        "format": "trackkit-car/1",
        "name": "four gears",
        "fixed": {
            s: {"gears": [1, 2, 3, 4], "brake": 1, "coast": 2, "boost": 0, "danger_limit": 3}
            for s in ("gravel", "asphalt", "snow")
        },
    }
)


@pytest.mark.parametrize("series", SERIES, ids=lambda s: s.name)
def test_dash_2_a_gear_the_car_does_not_have_is_refused(series: _Series):
    # rule: DASH-1, DASH-2 (gears 0 to 6, and none above the dashboard's top gear: a GT-4,
    # a DIRT car file of four gears)
    car: str | CarFile = "gt4" if series.name == "gt" else _FOUR_GEARS
    drivers = (DriverSpec("Ann", car), DriverSpec("Bob", car))
    assert series.race((CarState(0, series.space, 4),), drivers=drivers).rounds == 1
    err = _refused(series, (CarState(0, series.space, 5),), drivers=drivers)
    assert err.car == "driver 1 (Ann)" and err.space == series.space and "gear 5" in str(err)
    err = _refused(series, (CarState(0, series.space, 7),))
    assert "gear 7" in str(err)


@pytest.mark.parametrize("series", SERIES, ids=lambda s: s.name)
def test_board_2_a_space_the_stage_lacks_and_a_finished_car_are_refused(series: _Series):
    # rule: BOARD-2, BOARD-3 (cars stand on the stage's spaces; a finished car has left it)
    err = _refused(series, (None, CarState(1, "9:9.9Z", 2)))
    assert err.car == "driver 2 (Bob)" and err.space == "9:9.9Z"
    err = _refused(series, (CarState(0, series.space, 2, finished=True),))
    assert err.car == "driver 1 (Ann)" and "finished" in str(err)


@pytest.mark.parametrize("series", SERIES, ids=lambda s: s.name)
def test_loc_7_a_sisu_token_face_up_needs_a_dashboard_with_one(series: _Series):
    # rule: LOC-7 (the token is the dashboard's: the DIRT car and the GT cars have none)
    err = _refused(series, (CarState(0, series.space, 2, sisu_token=True),))
    assert err.car == "driver 1 (Ann)" and "SISU" in str(err)


@pytest.mark.parametrize("series", SERIES, ids=lambda s: s.name)
def test_turn_1_a_position_of_more_cars_than_drivers_or_before_round_0_is_refused(
    series: _Series,
):
    # rule: TURN-1 (the rounds are counted from the first; one car per driver)
    err = _refused(series, (None, None, CarState(2, series.space, 2)))
    assert "3 cars for 2 drivers" in str(err)
    assert "round -1" in str(_refused(series, (), round=-1))


@pytest.mark.parametrize("series", SERIES, ids=lambda s: s.name)
def test_shortcut_2_mud_only_on_a_dirt_stage_s_own_tiles(series: _Series):
    # rule: SHORTCUT-2 (mud is drawn at DIRT shortcuts: on a tile of the stage; GT has none)
    assert "tile 9" in str(_refused(series, (), mud=((9, -1),)))
    if series.name == "gt":
        assert "DIRT" in str(_refused(series, (), mud=((2, -1),)))
    else:
        assert series.race((), mud=((2, -1),)).rounds == 1


def test_gt_states_are_refused_in_a_dirt_race():
    # rule: GT-2, GT-4 (gear 00, the pit and yellow flags are Rallyman: GT's)
    dirt = SERIES[0]
    with pytest.raises(PositionError, match="GT"):
        dirt.race((CarState(0, dirt.space, 2),), gt=(GtCar(yellow=True),))


# --- GT: positions only a GT race has ---------------------------------------------------


class _ThenSafe:
    """Dice that show the given faces, then only safe ones."""

    def __init__(self, results: list[str] | None = None) -> None:
        self.results = list(results or [])

    def danger(self, die: Die, faces: int) -> bool:
        return bool(self.results) and self.results.pop(0) == "danger"


def _gt_race(
    cars: list[CarState],
    scripts: list[list[str | ScriptedTurn]],
    *,
    gt: tuple[GtCar | None, ...] = (),
    dice: list[str] | None = None,
    laps: int = 2,
    weather: Weather = "dry",
    crossings: int = 1,
    **options: Any,
) -> RaceResult:
    """A race on the example circuit from ``cars`` on lap ``crossings`` in round 3, each
    driver playing its script first (then the cautious bot)."""
    table = new_table(GT, random.Random(0)).with_bag([("green", "")] * 20)
    drivers = tuple(
        DriverSpec(f"d{i + 1}", car="gt6", bot=Script.of(turns, then="cautious"))
        for i, turns in enumerate(scripts)
    )
    start = RacePosition(
        tuple(replace(c, crossings=crossings) for c in cars), round=3, table=table, gt=gt
    )
    settings = Settings(drivers, gt=GtOptions(laps=laps, weather=weather, **options))
    return run_race(prepare(CORE), settings, 7, start=start, dice=_ThenSafe(dice))  # type: ignore[arg-type]


def _turns(result: RaceResult, driver: int) -> list[TurnLog]:
    return [t for t in result.log if t.driver == driver]


def test_board_3_a_gt_car_past_its_last_lap_is_refused():
    # rule: BOARD-3 (a car over the line after its last lap has finished: in a race of 2
    # laps, 2 crossings is the second lap, 3 would be over)
    _gt_race([CarState(0, "7:A2a", 3)], [[]], laps=2, crossings=2)
    with pytest.raises(PositionError, match="3 crossings of the line") as caught:
        _gt_race([CarState(0, "7:A2a", 3)], [[]], laps=2, crossings=3)
    assert caught.value.car == "driver 1 (d1)" and caught.value.space == "7:A2a"


@pytest.mark.parametrize(
    ("car", "state", "words"),
    [
        (CarState(0, "7:A2a", 0, on_track=False), None, "neither in gear 00 nor in the pit"),
        (CarState(0, "7:A2a", 0), GtCar(off="00"), "on_track False"),
        (CarState(0, "7:A2a", 2, on_track=False), GtCar(off="00"), "gear 0"),
        (CarState(0, "7:A2a", 0, on_track=False), GtCar(off="pit-0"), "no access to a pit"),
        (CarState(0, "5:A1b", 3), GtCar(tyres="wet"), "dry or rain"),  # type: ignore[arg-type]
    ],
)
def test_loc_6_gt_2_a_car_off_the_road_is_in_gear_00_or_in_the_pit(
    car: CarState, state: GtCar | None, words: str
):
    # rule: LOC-6, GT-2, GT-3 (off the road: gear 00, or the pit beside a pit space, and a
    # car there is off the track in gear 0; tyres are dry or rain)
    with pytest.raises(PositionError, match=words) as caught:
        _gt_race([car], [[]], gt=(state,))
    assert caught.value.car == "driver 1 (d1)" and caught.value.space == car.space


def test_gt_4_a_car_in_gear_00_keeps_its_flag_out_until_it_moves_and_the_log_shows_it():
    # rule: GT-4, LOC-6 (driver 1 starts off the road in gear 00 with its yellow flag out:
    # its next turn it only comes back, the flag still out; at its move after that the
    # flag comes down. Every turn in between records the flag, and driver 2 never
    # overtakes while it is out: TRAFFIC-5)
    result = _gt_race(
        [CarState(0, "7:A2a", 0, on_track=False), CarState(1, "6:A1b", 3)],
        [[], []],
        gt=(GtCar(off="00", yellow=True), None),
    )
    mine = _turns(result, 0)
    assert mine[0].plan == "(gear 00: back on the road in gear 0)" and mine[0].flags == (0,)
    assert [e.note for e in mine[1].events if e.kind == "yellow-flag"] == ["down"]
    assert mine[1].flags == () and mine[1].steps
    before = result.log[: result.log.index(mine[1])]
    assert before and all(t.flags == (0,) for t in before)
    gt = result.gt
    assert gt is not None and not [o for o in gt.overtakes if o.round < mine[1].round]
    assert gt.yellow_flags == 0  # out before the race began: none raised in it


def test_traffic_5_from_a_set_position_a_car_draws_level_across_a_free_lane():
    # rule: TRAFFIC-5 (DEFAULT: driver 3's flag is out; driver 1 on 1:A1c, lane 3, draws level
    # with driver 2 on 1:A3b, lane 1, across the free lane: scripted, the plan is legal)
    result = _gt_race(
        [CarState(0, "1:A1c", 2), CarState(1, "1:A3b", 1), CarState(2, "9:A2a", 0, on_track=False)],
        [["1:A1b G3"], ["(stay)"], ["(stay)"]],
        gt=(None, None, GtCar(off="00", yellow=True)),
    )
    first = _turns(result, 0)[0]
    assert first.flags == (2,) and first.steps[-1].space == "1:A1b"


def test_gt_2_a_race_can_start_in_the_pit_in_gear_0_or_00():
    # rule: GT-2, GT-3 (in the rain: driver 1 in the pit in gear 0 on dry tyres fits rain
    # tyres and drives off at once with the full limit; driver 2 in gear 00 turns to 0 first)
    result = _gt_race(
        [CarState(0, "5:A1b", 0, on_track=False), CarState(1, "15:A1b", 0, on_track=False)],
        [[], []],
        gt=(GtCar(off="pit-0", tyres="dry"), GtCar(off="pit-00", tyres="dry")),
        weather="rain",
    )
    one, two = _turns(result, 0), _turns(result, 1)
    assert [e.note for e in one[0].events if e.kind == "tyres"] == ["rain"]
    assert one[0].steps and all(s.limit == 3 for s in one[0].steps)
    assert two[0].plan == "(pit: gear 00 to 0)" and two[1].steps
    assert [e.note for e in two[1].events if e.kind == "tyres"] == ["rain"]


def test_gt_3_a_car_on_the_wrong_tyres_from_a_set_position_has_the_lower_limit():
    # rule: GT-3 (rain, the car on dry tyres: limit 2, the wrong tyres' cut, not 3)
    result = _gt_race(
        [CarState(0, "7:A2a", 3)], [["7:A2b G4"]], gt=(GtCar(tyres="dry"),), weather="rain"
    )
    assert [s.limit for s in _turns(result, 0)[0].steps] == [2]


_INTO_THE_PIT = "5:A1a C > 5:A1b C"


def test_gt_2_a_scripted_driver_may_drive_past_the_pit():
    # rule: GT-2 (a stop is the driver's choice: damaged, in first gear on the pit space, a
    # driver that answers "no" drives on; the bots would stop)
    hurt = CarState(0, "4:A3a", 1, damage=Damage(brake=1))
    past = _gt_race([hurt], [[ScriptedTurn.parse(_INTO_THE_PIT, pit="no")]])
    assert past.gt is not None and not past.gt.pit_stops
    assert _turns(past, 0)[1].start == "5:A1b" and _turns(past, 0)[1].steps
    stop = _gt_race([hurt], [[_INTO_THE_PIT]])
    assert stop.gt is not None and [(p.repair, p.tyres) for p in stop.gt.pit_stops] == [
        (True, False)
    ]


def test_gt_2_a_scripted_driver_may_fit_tyres_only_and_keep_its_damage():
    # rule: GT-2 (DEFAULT: tyres only, gear 0: the damage stays, and the car drives off at its
    # next turn on tyres for the weather)
    states: list[tuple[CarState, ...]] = []
    hurt = CarState(0, "4:A3a", 1, damage=Damage(brake=1))
    table = new_table(GT, random.Random(0)).with_bag([("green", "")] * 20)
    drivers = (
        DriverSpec(
            "d1",
            "gt6",
            Script.of([ScriptedTurn.parse("5:A1a G2 > 5:A1b G1", pit="tyres")], "cautious"),
        ),
    )
    start = RacePosition(
        (replace(hurt, crossings=1),), round=3, table=table, gt=(GtCar(tyres="dry"),)
    )
    result = run_race(
        prepare(CORE),
        Settings(drivers, gt=GtOptions(laps=2, weather="rain")),
        7,
        start=start,
        dice=_ThenSafe(),  # type: ignore[arg-type]
        observe=lambda r, d, c: states.append(c),
    )
    assert result.gt is not None
    assert [(p.repair, p.tyres) for p in result.gt.pit_stops] == [(False, True)]
    assert states[0][0].damage == Damage(brake=1) and not states[0][0].on_track
    again = _turns(result, 0)[1]
    assert [e.note for e in again.events if e.kind == "tyres"] == ["rain"] and again.steps


def test_gt_2_a_scripted_pit_stop_needs_a_plan_into_the_pit_in_first_gear():
    # rule: GT-2 (the stop is made by ending the turn in first gear on a pit space)
    with pytest.raises(ScriptError, match="first gear on a pit space"):
        _gt_race([CarState(0, "7:A2a", 3)], [[ScriptedTurn.parse("7:A2b G4", pit="tyres")]])
    with pytest.raises(ScriptError, match="pit stops are off"):
        _gt_race(
            [CarState(0, "4:A3a", 1)],
            [[ScriptedTurn.parse(_INTO_THE_PIT, pit="tyres")]],
            pit_stops=False,
        )
    with pytest.raises(ScriptError, match="pit choice"):
        ScriptedTurn.parse(_INTO_THE_PIT, pit="later")  # type: ignore[arg-type]


def test_turn_4_gt_from_a_set_position_control_goes_on_the_furthest_space_focus_earned():
    # rule: TURN-4, GT-5 (a race from a set position: driver 1 holds 2 focus tokens; its
    # five dice thrown flat out show four dangers, the limit 3 exceeded; no route keeps
    # control, so control goes on the fifth space, and the five tokens are earned)
    plan = "14:A2b G2 > 15:A2a G3 > 15:A2b G4 > 15:A2c G5 > 16:A23a G6"
    result = _gt_race(
        [CarState(0, "14:A2a", 1, second_tokens=2)], [[plan]], dice=["danger"] * 4 + ["safe"]
    )
    first = _turns(result, 0)[0]
    assert [e.space for e in first.events if e.kind == "loss-of-control"] == ["16:A23a"]
    assert [e.value for e in first.events if e.kind == "seconds"] == [5]


def test_a_gt_replay_records_the_flags_and_the_pit_choices_and_replays():
    # rule: GT-2, GT-4 (the replay file holds each turn's flags out and a script's pit
    # answers, and replays them; a GT file written before turns held flags still replays)
    stage = load_stage(REPO / "examples" / "gt-core-circuit.yaml")
    prepared = prepare(CORE)
    wait = ScriptedTurn.parse("(stay)", pit="no")
    drivers = (
        DriverSpec("d1", "gt6", Script((wait,), then="aggressive")),
        *(DriverSpec(f"d{i}", "gt6", "aggressive") for i in (2, 3, 4)),
    )
    settings = Settings(drivers, gt=GtOptions(laps=1))
    seed, result = next(
        (seed, r)
        for seed in range(1, 40)
        if (r := run_race(prepared, settings, seed)).gt is not None and r.gt.yellow_flags
    )
    doc = json.loads(replay_document(stage, settings, seed, result))
    assert doc["settings"]["drivers"][0]["bot"]["script"][0]["pit"] == "no"
    flagged = [t for t in doc["log"] if t["flags"]]
    assert flagged and all(set(t["flags"]) <= {0, 1, 2, 3} for t in flagged)
    assert check_replay(doc)[0]
    old = {**doc, "log": [{k: v for k, v in t.items() if k != "flags"} for t in doc["log"]]}
    assert check_replay(old)[0]
    wrong = {**doc, "log": [{**t, "flags": [3]} if t["flags"] else t for t in doc["log"]]}
    ok, why = check_replay(wrong)
    assert not ok and "flags" in why
