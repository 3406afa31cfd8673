"""Fairness figures and findings of a simulation: tied races share their win, and P604 (start
positions) and P606 (GT grid slots) use an exact binomial test against an equal share.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from stagekit import EXAMPLES, sim_report
from typer.testing import CliRunner

from trackkit.checks.pipeline import validate
from trackkit.cli.app import app
from trackkit.formats import load_stage
from trackkit.sim import Settings

runner = CliRunner()


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
