"""Rules-engine benchmark (run with ``.venv/bin/python benchmarks/rules.py``).

Target (issue 4, Speed): at least 20,000 legal plans enumerated per second from a
mid-stage position with all dice available. The position: a car in gear 3 on the first row
of a straight, with bends and a 2/3 corner ahead (slides, lane choices), no damage, no
other car; the DIRT default car, and the R5 car (boost die) for comparison. Each figure is
the median of several full enumerations (``legal_plans``, every plan built as a ``Plan``).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from trackkit.rules.plans import PlanContext, legal_plans
from trackkit.rules.testing import position

TARGET = 20_000

#: A straight-and-corners stage: straights, a 2/3 corner with slides, 4/5 and 3/4 bends.
STAGE: list[str | dict[str, Any]] = [
    "202a",
    "206a",
    {"tile": "217a", "turn": "left"},
    {"tile": "227a", "turn": "right"},
    "205a",
    {"tile": "222a", "turn": "left"},
    {"tile": "224a", "turn": "right"},
    "206a",
    {"tile": "217a", "turn": "left"},
    "203a",
]
SPACE = "2:1.1L"
GEAR = 3


def enumerate_all(ctx: PlanContext) -> int:
    """Build every legal plan of ``ctx``; the number of plans."""
    n = 0
    for _ in legal_plans(ctx):
        n += 1
    return n


def bench(car: str, runs: int = 7) -> tuple[int, list[float]]:
    """Plans of the position for ``car`` and the wall seconds of each enumeration."""
    ctx = position(STAGE, space=SPACE, gear=GEAR, car=car)
    count = enumerate_all(ctx)  # warm-up: the stage's track is built and cached here
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        enumerate_all(ctx)
        times.append(time.perf_counter() - start)
    return count, times


def main() -> None:
    """Print plans per second (median of the runs) for the DIRT and the R5 car."""
    print(f"legal plans from {SPACE} in gear {GEAR} on a {len(STAGE)}-tile stage")
    worst = float("inf")
    for car in ("dirt", "r5"):
        count, times = bench(car)
        median = statistics.median(times)
        rate = count / median
        worst = min(worst, rate)
        print(
            f"  {car:5s} {count:7d} plans  median {median * 1000:7.1f} ms  "
            f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})  "
            f"{rate:9,.0f} plans/s"
        )
    verdict = "meets" if worst >= TARGET else "MISSES"
    print(f"target {TARGET:,} plans/s: {verdict} it (slowest car {worst:,.0f} plans/s)")


if __name__ == "__main__":
    main()
