"""The embedded rules of Rallyman: DIRT and The Climb, at the level of one turn.

State -> :func:`legal_plans` -> :func:`resolve` (plan, mode, rng) -> new state and events.
The DEFAULT numbers (time cards, decks, damage bag, crash table, dashboards, dice faces)
come from ruleset data files (``tile_library/ruleset-*.yaml``), not from code.
"""

from trackkit.rules.dashboard import Dashboard, UnlimitedDashboard, check_unlimited, dashboard
from trackkit.rules.dice import Die, DieKind
from trackkit.rules.plans import Plan, PlanContext, PlanStep, count_plans, legal_plans
from trackkit.rules.resolve import DefaultPolicy, Event, Mode, Outcome, RollPolicy, resolve
from trackkit.rules.risk import flat_out_risk, one_by_one_risk
from trackkit.rules.ruleset import Ruleset, load_ruleset
from trackkit.rules.state import CarState, Damage, OtherCar
from trackkit.rules.table import Table, new_table
from trackkit.rules.track import Track

__all__ = [
    "CarState",
    "Damage",
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
    "Ruleset",
    "Table",
    "Track",
    "UnlimitedDashboard",
    "check_unlimited",
    "count_plans",
    "dashboard",
    "flat_out_risk",
    "legal_plans",
    "load_ruleset",
    "new_table",
    "one_by_one_risk",
    "resolve",
]
