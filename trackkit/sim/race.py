"""Races: the one race loop of both series, from a stage made ready (TURN-1, TURN-2).

A race is (stage, settings, seed): :func:`run_race` replays exactly from the same three.
A race may also start from a given position (:class:`RacePosition`: the cars, their gears,
damage and tokens, the mud drawn, the round), roll fixed dice (``dice``,
:class:`~trackkit.rules.dice.ScriptedDice`) and seat scripted drivers
(:class:`~trackkit.sim.script.Script`). :func:`run_race` plays it with the series' rules:
Rallyman: DIRT's (:class:`~trackkit.sim.rally.RallyLoop`: staggered start, hillclimb
attempts) or Rallyman: GT's (:class:`~trackkit.sim.gt_race.GtLoop`: grid, laps, places), both
the one loop of :mod:`trackkit.sim.loop`. The race data types live in
:mod:`trackkit.sim.model` and are importable from here.

Examples
--------
>>> from trackkit.sim.race import Settings, run_race, prepare
>>> from trackkit.rules.positions import track_of
>>> track = track_of(["202a", "205a", "206a", "204a", "203a"])
>>> result = run_race(prepare(track), Settings.default(players=2), seed=1)
>>> [d.finished for d in result.drivers]
[True, True]
>>> turn = result.log[0]
>>> turn.round, turn.driver, turn.start, turn.gear
(1, 0, '1:1.1L', 0)
>>> [(s.space, s.dice_label) for s in turn.steps][:3]
[('1:1.2L', 'G1'), ('1:1.3L', 'G2'), ('2:1.1L', 'G3')]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from trackkit.rules.dice import Dice
from trackkit.rules.order import inner_lanes
from trackkit.rules.ruleset import Ruleset, load_ruleset
from trackkit.rules.track import Track
from trackkit.sim.gt_race import GtLoop
from trackkit.sim.loop import Observer
from trackkit.sim.memo import PlanMemo
from trackkit.sim.model import (
    HILLCLIMB_BOTS,
    MAX_ROUNDS,
    RALLY_BOTS,
    UNLIMITED,
    Dnf,
    DriverResult,
    DriverSpec,
    GtOptions,
    Prepared,
    RacePosition,
    RaceResult,
    Settings,
    TurnLog,
    default_bots,
)
from trackkit.sim.rally import RallyLoop
from trackkit.sim.roads import MAX_STEPS

__all__ = [
    "HILLCLIMB_BOTS",
    "MAX_ROUNDS",
    "RALLY_BOTS",
    "UNLIMITED",
    "Dnf",
    "DriverResult",
    "DriverSpec",
    "Observer",
    "Prepared",
    "RacePosition",
    "RaceResult",
    "Settings",
    "TurnLog",
    "default_bots",
    "prepare",
    "run_race",
]


def prepare(track: Track, ruleset: Ruleset | None = None) -> Prepared:
    """Get a track ready for races (start grid rearmost first).

    Without ``ruleset``, a GT track (:attr:`Track.gt`) is raced by the GT ruleset and any
    other stage by the DIRT one.

    >>> from trackkit.rules.positions import GT_RING, track_of
    >>> prepare(track_of(GT_RING)).ruleset.gt is not None
    True
    """
    start = tuple(sorted(track.start, key=lambda n: (track.spaces[n].progress, n)))
    rules = ruleset or load_ruleset("gt" if track.gt else "dirt")
    return Prepared(
        track, rules, start, inner_lanes(track), PlanMemo(track, rules, moves=MAX_STEPS)
    )


def run_race(
    prepared: Prepared,
    settings: Settings,
    seed: int,
    *,
    observe: Observer | None = None,
    sisu_spent: Sequence[bool] = (),
    start: RacePosition | None = None,
    dice: Dice | None = None,
) -> RaceResult:
    """Race ``settings.drivers`` on the stage; the same seed gives the same race.

    Parameters
    ----------
    prepared : Prepared
        The stage (:func:`prepare`).
    settings : Settings
        The drivers (cars and bots, scripted ones too) and how the race is run; with
        ``settings.gt`` (or a GT ruleset), a Rallyman: GT race
        (:class:`~trackkit.sim.model.GtOptions`).
    seed : int
        Seeds the race's one generator: decks, damage bag, dice, tied surface orders.
    observe : callable, optional
        Called after every turn with (round, driver, every car's state).
    sisu_spent : sequence of bool
        Per driver, whether its SISU token was flipped on an earlier stage of the rally:
        with ``sisu_once_per: rally`` it stays flipped (LOC-7). DIRT only.
    start : RacePosition, optional
        The position the race starts from (default: every car behind the start line,
        round 0, fresh decks and bag).
    dice : Dice, optional
        Where the dice rolls come from (default: the race's generator, as
        :class:`~trackkit.rules.dice.SeededDice` rolls them).

    Returns
    -------
    RaceResult
        Each driver's times, losses of control and blocked turns, and the turn log.

    Raises
    ------
    ValueError
        If ``start`` does not fit the stage or the drivers (the message names the driver
        and the space), or a driver's car or bot is unknown.
    ScriptError
        If a scripted driver's plan is not legal when its turn comes, naming the driver,
        the round, the turn and the step; or its script is played out.
    DiceScriptError
        If scripted ``dice`` run out or were written for other dice.

    Examples
    --------
    Two cars placed mid-stage in round 6, the first with a brake die lost, the second
    scripted for one turn, then driven by the planner:

    >>> from trackkit.rules.positions import track_of
    >>> from trackkit.rules.state import CarState, Damage
    >>> from trackkit.sim.script import Script
    >>> stage = prepare(track_of(["202a", "205a", "206a", "204a", "203a"]))
    >>> settings = Settings((DriverSpec("Ann"), DriverSpec(
    ...     "Bob", bot=Script.of(["2:1.3R G4 > 3:1.1R G5"], then="planner"))))
    >>> start = RacePosition(
    ...     (CarState(0, "2:1.3L", 3, damage=Damage(brake=1)), CarState(1, "2:1.2R", 3)),
    ...     round=6)
    >>> result = run_race(stage, settings, seed=3, start=start)
    >>> first = [t for t in result.log if t.driver == 1][0]
    >>> first.round, first.start, first.plan
    (7, '2:1.2R', '2:1.3R G4 > 3:1.1R G5')
    >>> [d.finished for d in result.drivers]
    [True, True]
    """
    series: type[RallyLoop | GtLoop] = RallyLoop
    if settings.gt is not None or prepared.ruleset.gt is not None:  # a Rallyman: GT race
        series = GtLoop
        if settings.gt is None:
            settings = replace(settings, gt=GtOptions())
    loop = series(
        prepared, settings, seed, observe=observe, sisu_spent=sisu_spent, start=start, dice=dice
    )
    return loop.run()
