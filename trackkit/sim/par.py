"""Par time: the best stage time with no dice risk, by a search over (space, gear) states.

Each turn is a transition between turn-end states (space, gear): a legal plan of one car
alone on the stage, pruned like the bots' (speeds near what the next corner allows), that
does not lose control on a track element. Its cost is the time card of the gear it ends in
less one second per gear or coast die rolled flat out (every roll assumed safe, TURN-4,
TIME-2). A* finds the cheapest way from the start grid past the finish line. The
plans of a turn are walked as :func:`~trackkit.rules.plans.turn_ends` does, merging those
that reach the same position inside the turn: the cost of a turn end only needs the most
dice it can be reached with.

A* is Dijkstra guided by a bound that never overestimates (:func:`_turns_bound`): a turn
costs at least the lowest time card less a second token per step it may take, and takes at
most that many steps, so a space that many steps from the finish costs at least that many
turns. The bound is consistent (a turn lowers it by at most its own least cost), so the
first run past the finish taken off the queue is the cheapest, as with Dijkstra; it only
takes far fewer turn-end states off the queue (about a tenth, as the bound is close).
"""

from __future__ import annotations

import heapq

import networkx as nx

from trackkit.rules.dashboard import Dashboard, dashboard
from trackkit.rules.plans import PlanContext, turn_ends
from trackkit.rules.state import CarState
from trackkit.rules.track import Track
from trackkit.sim.model import Prepared
from trackkit.sim.roads import MAX_STEPS, DirtRoad

__all__ = ["par_time"]


def par_time(
    prepared: Prepared,
    *,
    car: str | Dashboard = "dirt",
    max_states: int = 20_000,
    guided: bool = True,
) -> int | None:
    """Seconds of the fastest risk-free run, or None if no run reaches the finish.

    ``car`` is a printed car of the ruleset or a dashboard (a hillclimb's par uses
    :func:`~trackkit.sim.garage.unlimited_bound`, richer than any Unlimited board);
    ``max_states``: the most turn-end states the search takes off its queue. With
    ``guided=False``, a plain Dijkstra: the same time, from many more states.

    Examples
    --------
    >>> from trackkit.rules.positions import track_of
    >>> from trackkit.sim.race import prepare
    >>> prepared = prepare(track_of(["202a", "205a", "206a", "203a"]))
    >>> par_time(prepared) == par_time(prepared, guided=False)
    True
    """
    rules = prepared.ruleset
    board = car if isinstance(car, Dashboard) else dashboard(car, rules)
    if not prepared.start:
        return None
    start = prepared.start[0]
    track = prepared.track
    # the least a turn costs: the lowest card less a second token a step (of the
    # ruleset's seconds: a bound from one second a token would overestimate, with more)
    lowest = min(rules.time_cards[v] for v in range(1, 7))
    turn_cost = max(0, lowest - MAX_STEPS * rules.second_token_seconds)
    turns = _turns_bound(track, MAX_STEPS) if guided and turn_cost else {}
    far = max(turns.values(), default=0) + 1  # beyond every finish: no run from there

    def bound(space: str) -> int:
        return turn_cost * turns.get(space, far) if turns else 0

    best: dict[tuple[str, int], int] = {(start, 0): 0}
    queue: list[tuple[int, int, str, int]] = [(bound(start), 0, start, 0)]
    seen = 0
    finished = "<finished>"
    road = DirtRoad.of(track)
    keep, keep_move = road.pruners()
    while queue and seen < max_states:
        _guess, cost, space, gear = heapq.heappop(queue)
        if space == finished:
            return cost  # rule: TIME-2 (the cheapest run: cards less second tokens)
        if best.get((space, gear), 1 << 30) < cost:
            continue
        seen += 1
        ctx = PlanContext(track, board, rules, CarState(0, space, gear))
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
                guess = new if finishes else new + bound(end)
                heapq.heappush(queue, (guess, new, key[0], key[1]))
    return None


def _turns_bound(track: Track, steps: int) -> dict[str, int]:
    """Per space, the fewest turns of at most ``steps`` steps from it past the finish.

    A lower bound: a step moves one space on, or, into a jump, lands at most two spaces
    beyond it (JUMP-1, JUMP-2); the fewest steps to a finish space are counted backwards
    from the finish spaces (a breadth-first search of the reversed steps, networkx), the
    turns rounded up. A space no step leads on from to a finish is left out.
    """
    reach = nx.DiGraph()
    successors = track.successors
    for node in track.spaces:
        reach.add_node(node)
        for succ, _climb in successors.get(node, ()):
            reach.add_edge(node, succ)
            if track.spaces[succ].jump:
                for one, _c in successors.get(succ, ()):
                    reach.add_edge(node, one)
                    for two, _c2 in successors.get(one, ()):
                        reach.add_edge(node, two)
    finish = [n for n, info in track.spaces.items() if info.finished]
    if not finish:
        return {}
    back = reach.reverse(copy=False)
    fewest = nx.multi_source_dijkstra_path_length(back, finish, weight=None)
    return {n: -(-int(d) // steps) for n, d in fewest.items()}
