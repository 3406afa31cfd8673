"""Does a start position (DIRT) or a grid slot (GT) win more often than chance?

Playability findings P604 and P606 ask it of the races run. A race whose best result is
shared is a tie: it counts for no position in the test (each tied driver gets its share of
the win in the report, :func:`shared_wins`). Of the races with one winner, the position
with the most wins is tested against an equal share (1 in k for k positions) with a
one-sided exact binomial test, Bonferroni-corrected for picking the best of the k
positions (its p-value times k); it wins "clearly more than chance" when that is below
:data:`ALPHA` over at least :data:`MIN_RACES` races with one winner. The standard library
does the sums (:func:`math.lgamma`); no statistics package is needed.

Examples
--------
>>> round(binomial_tail(9, 10, 0.5), 6)  # 9 or 10 heads of 10 tosses: 11 in 1024
0.010742
>>> test = win_test({"1": 15, "2": 3, "3": 1, "4": 1})
>>> test.position, test.wins, test.races, f"{test.p_value:.1e}", test.significant
('1', 15, 20, '1.5e-05', True)
>>> win_test({"1": 9, "2": 1}).significant  # 0.011 x 2 positions: not below 0.01
False
>>> shared_wins([(170, 170, 170, 170), (165, 170, None, 180)])
([1.25, 0.25, 0.25, 0.25], [1, 0, 0, 0], 1)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "ALPHA",
    "MIN_RACES",
    "TEST",
    "WinTest",
    "binomial_tail",
    "shared_wins",
    "win_test",
]

#: The significance level of the test: a position wins clearly more than chance below it.
ALPHA = 0.01

#: Races with one winner the test needs before a finding can speak.
MIN_RACES = 10

#: The test, in words (the JSON document and the findings name it).
TEST = (
    "one-sided exact binomial test of the most wins against an equal share, "
    "Bonferroni-corrected for the positions compared"
)


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed exactly term by term.

    Parameters
    ----------
    k : int
        The fewest successes counted.
    n : int
        Trials.
    p : float
        Chance of a success in one trial.

    Returns
    -------
    float
        The upper tail, in [0, 1].

    Examples
    --------
    >>> binomial_tail(0, 5, 0.3), binomial_tail(6, 5, 0.3), binomial_tail(5, 5, 0.5)
    (1.0, 0.0, 0.03125)
    """
    if k <= 0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    head = math.lgamma(n + 1)
    terms: list[float] = []
    mode = n * p
    for i in range(k, n + 1):
        log_pmf = head - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q
        term = math.exp(log_pmf)
        terms.append(term)
        if i > mode and term < 1e-18 * terms[0]:
            break  # past the mode the terms only fall: the rest adds nothing a float holds
    return min(1.0, math.fsum(terms))


@dataclass(frozen=True, slots=True)
class WinTest:
    """The test of one set of positions (start positions, grid slots) that race alike."""

    position: str
    """The position with the most wins (the first of those with as many)."""
    wins: int
    """Its wins (races it won alone)."""
    races: int
    """Races with one winner among these positions (ties are left out)."""
    positions: int
    """Positions compared (k): chance gives each 1 in k of the wins."""
    p_value: float
    """The chance of as many wins or more for the best of the k positions (Bonferroni:
    the binomial tail times ``compared``, at most 1)."""
    compared: int
    """Positions the correction counts (k, or more when several sets are tested)."""
    significant: bool
    """``p_value`` below :data:`ALPHA` over :data:`MIN_RACES` races or more."""

    def words(self) -> str:
        """The test and its result in words, for a finding."""
        sign = "<" if self.p_value < ALPHA else ">="
        return (
            f"one-sided exact binomial test against 1 in {self.positions}, Bonferroni over "
            f"{self.compared} positions: p = {self.p_value:.2g} {sign} {ALPHA}"
        )

    def to_json(self) -> dict[str, object]:
        """The test as the ``simulate`` JSON document writes it."""
        return {
            "most": self.position,
            "most_wins": self.wins,
            "races": self.races,
            "positions": self.positions,
            "compared": self.compared,
            "p_value": float(f"{self.p_value:.4g}"),
            "significant": self.significant,
        }


def win_test(wins: Mapping[str, int], *, compared: int | None = None) -> WinTest | None:
    """Test the position with the most wins of ``wins`` (position -> races won alone).

    ``compared`` is how many positions the Bonferroni correction counts (default: those of
    ``wins``; more when this is one of several sets tested). None for fewer than two
    positions.
    """
    if len(wins) < 2:
        return None
    races = sum(wins.values())
    position, most = max(wins.items(), key=lambda kv: (kv[1], -_order(kv[0])))
    k = len(wins)
    m = max(k, compared or k)
    p_value = min(1.0, binomial_tail(most, races, 1.0 / k) * m) if races else 1.0
    return WinTest(
        position=position,
        wins=most,
        races=races,
        positions=k,
        p_value=p_value,
        compared=m,
        significant=races >= MIN_RACES and p_value < ALPHA,
    )


def _order(position: str) -> int:
    return int(position) if position.isdigit() else 0


def shared_wins(
    results: Sequence[Sequence[float | None]],
) -> tuple[list[float], list[int], int]:
    """Wins per driver over races of times (lower is better; None: no time).

    Returns each driver's wins with a tie shared (k drivers on the best time get 1/k of
    the win each), the races each won alone, and how many races were tied.
    """
    n = max((len(r) for r in results), default=0)
    shared = [0.0] * n
    alone = [0] * n
    tied = 0
    for times in results:
        timed = [t for t in times if t is not None]
        if not timed:
            continue
        best = min(timed)
        first = [i for i, t in enumerate(times) if t == best]
        if len(first) == 1:
            alone[first[0]] += 1
        else:
            tied += 1
        for i in first:
            shared[i] += 1.0 / len(first)
    return shared, alone, tied
