"""The embedded rules of Rallyman: DIRT and The Climb, at the level of one turn.

State -> :func:`legal_plans` -> :func:`resolve` (plan, mode, rng) -> new state and events.
Cars come from the ruleset (:func:`dashboard`), from The Climb's Unlimited dashboards
(:class:`UnlimitedDashboard`) or from car files (:func:`load_car`, ``trackkit-car/1``).
The DEFAULT numbers (time cards, decks, damage bag, crash table, dashboards, dice faces)
come from ruleset data files (``tile_library/ruleset-*.yaml``), not from code.
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
from trackkit.rules.dice import Die, DieKind
from trackkit.rules.plans import Plan, PlanContext, PlanStep, count_plans, legal_plans, turn_ends
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
from trackkit.rules.state import CarState, Damage, OtherCar
from trackkit.rules.table import Table, new_table
from trackkit.rules.track import Track

__all__ = [
    "CarState",
    "Damage",
    "DashProblem",
    "Dashboard",
    "DefaultPolicy",
    "Die",
    "DieKind",
    "Event",
    "Mode",
    "OtherCar",
    "Outcome",
    "Plan",
    "PlanContext",
    "PlanStep",
    "RollPolicy",
    "RollView",
    "Ruleset",
    "Table",
    "Track",
    "UnlimitedDashboard",
    "car_dashboard",
    "car_file",
    "check_unlimited",
    "count_plans",
    "dashboard",
    "dump_car",
    "flat_out_risk",
    "legal_plans",
    "load_car",
    "load_ruleset",
    "new_table",
    "one_by_one_risk",
    "parse_car",
    "resolve",
    "roll_units",
    "sisu_ready",
    "turn_ends",
    "unlimited_problems",
]
