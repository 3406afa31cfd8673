"""Whether a generated stage is what was asked for, and by how much it misses.

Two targets are checked, each where it can be measured:

- **difficulty**: the losses of control per driver per 10 tiles lie inside the level's
  band (:class:`~trackkit.generator.score.Band`). A DIRT stage is judged on its races when
  it was raced, else on its structure's estimate; a GT track only on its races (its
  structure's demand is another measure).
- **par** (``--par``, DIRT): the careful driver's time (the cautious bot's median in the
  races) lies within :data:`PAR_TOLERANCE` of the time asked for. Without races it is not
  measured.

A stage :attr:`Fit.fits` when it misses neither (what was not measured is not a miss,
and the reports say it was not measured). ``generate`` keeps, of a stage's finalists,
the best one that fits (:func:`trackkit.generator.run.generate`), and with ``--tries``
searches again for the stages that miss.

Examples
--------
>>> band = Band("hard", 1.34, 1.85)
>>> miss = difficulty_miss(band, 1.23, "races")
>>> miss.words()
'difficulty 1.23 in the races, 0.11 below the hard band (1.34 to 1.85)'
>>> par_miss(300, 380).words()
'careful time 380 s, 80 s (27 %) over --par 300 s (the aim: within 10 %)'
>>> par_miss(300, 320) is None
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trackkit.generator.refine import GtSimResult, SimResult
from trackkit.generator.request import Request
from trackkit.generator.score import Band

__all__ = ["PAR_TOLERANCE", "Fit", "Miss", "difficulty_miss", "fit_of", "par_miss"]

#: How far the careful time may lie from ``--par`` and still fit: a share of the par.
PAR_TOLERANCE = 0.10


@dataclass(frozen=True, slots=True)
class Miss:
    """One target a stage misses: what it has against what was asked for."""

    target: str
    """``difficulty`` or ``par``."""
    value: float | None
    """What the stage has (None: the cautious bot finished no race, so no careful time)."""
    low: float
    """The least that fits."""
    high: float
    """The most that fits."""
    measured: str
    """``races`` or ``structure``."""
    asked: float | None = None
    """The time asked for (``par``)."""
    level: str = ""
    """The level of the band (``difficulty``)."""
    digits: int = 2

    @property
    def off_by(self) -> float | None:
        """How far the value lies outside what fits: below it negative, above positive;
        for ``par``, from the time asked for itself."""
        if self.value is None:
            return None
        if self.asked is not None:
            return self.value - self.asked
        return self.value - self.low if self.value < self.low else self.value - self.high

    def words(self) -> str:
        """The miss in words: which target, the figure, by how much."""
        if self.target == "par":
            assert self.asked is not None
            aim = f"(the aim: within {100 * PAR_TOLERANCE:.0f} %)"
            if self.value is None or self.off_by is None:
                return (
                    f"no careful time (the cautious bot finished no race) for --par "
                    f"{self.asked:g} s"
                )
            way = "over" if self.off_by > 0 else "under"
            share = 100 * abs(self.off_by) / self.asked
            return (
                f"careful time {self.value:.0f} s, {abs(self.off_by):.0f} s ({share:.0f} %) "
                f"{way} --par {self.asked:g} s {aim}"
            )
        assert self.value is not None and self.off_by is not None
        d = self.digits
        way = "below" if self.off_by < 0 else "above"
        where = "in the races" if self.measured == "races" else "by structure"
        return (
            f"difficulty {self.value:.{d}f} {where}, {abs(self.off_by):.{d}f} {way} the "
            f"{self.level} band ({self.low:.{d}f} to {self.high:.{d}f})"
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        off = self.off_by
        out: dict[str, Any] = {
            "target": self.target,
            "measured": self.measured,
            "value": None if self.value is None else round(self.value, 4),
            "low": round(self.low, 4),
            "high": round(self.high, 4),
            "off_by": None if off is None else round(off, 4),
        }
        if self.asked is not None:
            out["asked"] = self.asked
            out["off_by_share"] = None if off is None else round(off / self.asked, 4)
        return out


def difficulty_miss(band: Band, value: float, measured: str, *, digits: int = 2) -> Miss | None:
    """The miss of a difficulty ``value`` outside ``band`` (None inside it)."""
    if band.low <= value <= band.high:
        return None
    return Miss("difficulty", value, band.low, band.high, measured, level=band.level, digits=digits)


def par_miss(par: float, careful: float | None) -> Miss | None:
    """The miss of a careful time further than :data:`PAR_TOLERANCE` from ``par``."""
    low, high = par * (1 - PAR_TOLERANCE), par * (1 + PAR_TOLERANCE)
    if careful is not None and low <= careful <= high:
        return None
    return Miss("par", careful, low, high, "races", asked=par)


@dataclass(frozen=True, slots=True)
class Fit:
    """Whether a stage is what was asked for."""

    misses: tuple[Miss, ...] = ()
    unmeasured: tuple[str, ...] = ()
    """Targets asked for that could not be measured (not raced)."""

    @property
    def fits(self) -> bool:
        """No target missed."""
        return not self.misses

    def words(self) -> str:
        """``misses difficulty ...; careful time ...`` or ``fits ...``."""
        if self.misses:
            return "misses " + "; ".join(m.words() for m in self.misses)
        return "fits" + (
            f" (not measured: {', '.join(self.unmeasured)}, not raced)" if self.unmeasured else ""
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "fits": self.fits,
            "misses": [m.to_json() for m in self.misses],
            "not_measured": list(self.unmeasured),
        }


def fit_of(
    request: Request, band: Band, difficulty: float, sim: SimResult | GtSimResult | None
) -> Fit:
    """Whether a finalist is what ``request`` asks for.

    Parameters
    ----------
    request : Request
        What was asked for (``par``, the series).
    band : Band
        The difficulty band of the level.
    difficulty : float
        The structure's difficulty estimate (DIRT; unused for GT).
    sim : SimResult or GtSimResult, optional
        What its races showed (None: not raced).
    """
    misses: list[Miss | None] = []
    unmeasured: list[str] = []
    if isinstance(sim, GtSimResult):
        misses.append(difficulty_miss(band, sim.loc_rate, "races", digits=3))
    elif request.ruleset == "gt":
        unmeasured.append("difficulty")
    elif sim is not None:
        misses.append(difficulty_miss(band, sim.loc_rate, "races"))
    else:
        misses.append(difficulty_miss(band, difficulty, "structure"))
    if request.par is not None:
        if isinstance(sim, SimResult):
            misses.append(par_miss(request.par, sim.careful_time))
        else:
            unmeasured.append("par")
    return Fit(tuple(m for m in misses if m is not None), tuple(unmeasured))
