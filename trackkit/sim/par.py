"""Par time: the best stage time with no dice risk, by a search over (space, gear) states.

Each turn is a transition between turn-end states (space, gear): a legal plan of one car
alone on the stage, pruned like the bots' (speeds near what the next corner allows), that
does not lose control on a track element. Its cost is the time card of the gear it ends in
less one second per gear or coast die rolled flat out (every roll assumed safe, TURN-4,
TIME-2). Dijkstra finds the cheapest way from the start grid past the finish line. The
plans of a turn are walked as :func:`~trackkit.rules.plans.turn_ends` does, merging those
that reach the same position inside the turn: the cost of a turn end only needs the most
dice it can be reached with.
"""

from __future__ import annotations

import heapq

from trackkit.rules.dashboard import Dashboard, dashboard
from trackkit.rules.plans import PlanContext, turn_ends
from trackkit.rules.state import CarState
from trackkit.sim.model import Prepared
from trackkit.sim.roads import MAX_STEPS, DirtRoad

__all__ = ["par_time"]


def par_time(
    prepared: Prepared,
    *,
    car: str | Dashboard = "dirt",
    max_states: int = 20_000,
) -> int | None:
    """Seconds of the fastest risk-free run, or None if no run reaches the finish.

    ``car`` is a printed car of the ruleset or a dashboard (a hillclimb's par uses
    :func:`~trackkit.sim.garage.unlimited_bound`, richer than any Unlimited board).
    """
    rules = prepared.ruleset
    board = car if isinstance(car, Dashboard) else dashboard(car, rules)
    if not prepared.start:
        return None
    start = prepared.start[0]
    best: dict[tuple[str, int], int] = {(start, 0): 0}
    queue: list[tuple[int, str, int]] = [(0, start, 0)]
    seen = 0
    finished = "<finished>"
    road = DirtRoad.of(prepared.track)
    keep, keep_move = road.pruners()
    while queue and seen < max_states:
        cost, space, gear = heapq.heappop(queue)
        if space == finished:
            return cost  # rule: TIME-2 (the cheapest run: cards less second tokens)
        if best.get((space, gear), 1 << 30) < cost:
            continue
        seen += 1
        ctx = PlanContext(prepared.track, board, rules, CarState(0, space, gear))
        ends = turn_ends(
            ctx, max_steps=MAX_STEPS, keep=keep, keep_move=keep_move, moves_key=road.moves_key
        )
        for (end, speed, finishes, gears), moved in ends.items():
            card = rules.time_cards[max(1, min(speed if gears else gear, 6))]
            earned = moved * rules.second_token_seconds  # a die a move (TURN-4)
            new = cost + max(0, card - earned)
            key = (finished, 0) if finishes else (end, speed)
            if new < best.get(key, 1 << 30):
                best[key] = new
                heapq.heappush(queue, (new, key[0], key[1]))
    return None
