"""The rules of Rallyman: DIRT (with The Climb) and Rallyman: GT, at the level of one turn.

State -> :func:`legal_plans` -> :func:`resolve` (plan, mode, rng) -> new state and events,
for both series: a GT turn's position also says what GT adds (the last lap, a yellow flag,
the flying start), and a GT race keeps each car's :class:`GtCar` beside its
:class:`CarState` (gear 00 or the pit, tyres, yellow flag). Cars come from the ruleset
(:func:`dashboard`: ``dirt`` and ``r5``, or ``gt4``, ``gt5`` and ``gt6`` of the GT ruleset),
from The Climb's Unlimited dashboards (:class:`UnlimitedDashboard`) or from car files
(:func:`load_car`, ``trackkit-car/1``). The DEFAULT numbers (time cards, decks, damage bag,
crash table, dashboards, dice faces) come from ruleset data files
(``tile_library/ruleset-*.yaml``), not from code.

To script a position: :func:`position` (a stage, a car with its gear, damage, second
tokens, cards, time and SISU token, other cars; checked by :func:`check_position`, as a
race's start is), :func:`play_order` (who plays first,
TURN-2), :class:`ScriptedDice` (fixed rolls for :func:`resolve`), :meth:`Table.stack`
(the next loss-of-control cards).

Examples
--------
>>> from trackkit.rules import Mode, ScriptedDice, legal_plans, new_table, position, resolve
>>> import random
>>> ctx = position(["202a", "205a", "206a", "203a"], space="1:1.3L", gear=3)
>>> plan = next(p for p in legal_plans(ctx) if str(p) == "2:1.1L G4 > 2:1.2L G5")
>>> rng = random.Random(0)
>>> out = resolve(ctx, plan, Mode.FLAT_OUT, rng, table=new_table(ctx.ruleset, rng),
...               dice=ScriptedDice(["danger", "danger"]))
>>> out.lost_control, out.car.space, out.car.second_tokens
(False, '2:1.2L', 2)
"""

from trackkit.rules.cars import car_dashboard, car_file, dump_car, load_car, parse_car
from trackkit.rules.dashboard import (
    Dashboard,
    DashProblem,
    UnlimitedDashboard,
    check_unlimited,
    dashboard,
    unlimited_problems,
)
from trackkit.rules.dice import Dice, DiceScriptError, Die, DieKind, ScriptedDice, SeededDice
from trackkit.rules.order import inner_lanes, play_order
from trackkit.rules.plans import (
    Plan,
    PlanBuilder,
    PlanContext,
    PlanStep,
    count_plans,
    legal_plans,
    turn_ends,
)
from trackkit.rules.positions import check_position, position, track_of
from trackkit.rules.resolve import (
    DefaultPolicy,
    Event,
    Mode,
    Outcome,
    RollPolicy,
    RollView,
    resolve,
    roll_units,
    sisu_ready,
)
from trackkit.rules.risk import flat_out_risk, one_by_one_risk
from trackkit.rules.ruleset import Ruleset, load_ruleset
from trackkit.rules.state import CarState, Damage, GtCar, OtherCar
from trackkit.rules.table import Table, new_table
from trackkit.rules.track import Track

__all__ = [
    "CarState",
    "Damage",
    "DashProblem",
    "Dashboard",
    "DefaultPolicy",
    "Dice",
    "DiceScriptError",
    "Die",
    "DieKind",
    "Event",
    "GtCar",
    "Mode",
    "OtherCar",
    "Outcome",
    "Plan",
    "PlanBuilder",
    "PlanContext",
    "PlanStep",
    "RollPolicy",
    "RollView",
    "Ruleset",
    "ScriptedDice",
    "SeededDice",
    "Table",
    "Track",
    "UnlimitedDashboard",
    "car_dashboard",
    "car_file",
    "check_position",
    "check_unlimited",
    "count_plans",
    "dashboard",
    "dump_car",
    "flat_out_risk",
    "inner_lanes",
    "legal_plans",
    "load_car",
    "load_ruleset",
    "new_table",
    "one_by_one_risk",
    "parse_car",
    "play_order",
    "position",
    "resolve",
    "roll_units",
    "sisu_ready",
    "track_of",
    "turn_ends",
    "unlimited_problems",
]
