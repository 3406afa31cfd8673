"""Dashboards: which dice a car may use per surface, and its danger limit (DASH-1..4).

A :class:`Dashboard` is what the plan generator and the roller read: a column of dice per
surface, where leader dice replace coast dice, and where the car's SISU token and
puncture-proof tyres work. It comes from a printed car of the ruleset (:func:`dashboard`)
or from The Climb's :class:`UnlimitedDashboard` (:meth:`UnlimitedDashboard.as_dashboard`).

Examples
--------
>>> d = dashboard("dirt")
>>> d.column("snow").danger_limit, d.column("gravel").coast
(2, 2)
>>> u = UnlimitedDashboard(("snow", "gravel"), middle=("coast", "sisu"), right=("boost",),
...     left=("gear-1", "gear-2", "gear-3", "gear-4", "gear-5", "gear-6", "brake", "coast"))
>>> u.column("gravel").boost, u.column("snow").boost, u.column("snow").danger_limit
(1, 0, 5)
>>> board = u.as_dashboard()
>>> sorted(board.sisu), sorted(board.leader_surfaces)
(['gravel', 'snow'], ['gravel'])
>>> u.short()
'snow|gravel: gears 1-6, brake 1, coast 2, boost 1, SISU; limit 5'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from trackkit.models.car import EQUIPMENT, REGION_SIZES, TRACK_TYPES, Column
from trackkit.rules.ruleset import Ruleset, load_ruleset

__all__ = [
    "REGIONS",
    "DashProblem",
    "Dashboard",
    "UnlimitedDashboard",
    "check_unlimited",
    "dashboard",
    "surface_mismatch",
    "unlimited_problems",
]

SURFACES = TRACK_TYPES
_GEAR_TOKENS = frozenset(t for t in EQUIPMENT if t.startswith("gear-"))
#: The regions of the Unlimited board, from the best surface's own to the shared ones.
REGIONS = ("right", "middle", "left", "top")


@dataclass(frozen=True, slots=True)
class Dashboard:
    """A car's dice per surface (DASH-1), and where its special equipment works.

    ``sisu`` and ``puncture_proof`` name the surfaces on which the car's SISU token can be
    flipped (LOC-7) and its tyres ignore a shortcut's coast damage (DASH-4): empty when it
    has none. Whether the SISU token is still unflipped is the car's state
    (:attr:`~trackkit.rules.state.CarState.sisu_token`), which a race sets from ``sisu``.
    """

    name: str
    columns: dict[str, Column]
    leader_surfaces: frozenset[str] = frozenset(SURFACES)
    forced_leader_surfaces: frozenset[str] = frozenset()
    """Surfaces where the car's tyres make every coast die a leader die (MOVE-8)."""
    sisu: frozenset[str] = frozenset()
    puncture_proof: frozenset[str] = frozenset()
    unlimited: UnlimitedDashboard | None = field(default=None, compare=False)
    """The Unlimited board it was made from (None: a printed dashboard)."""

    def column(self, surface: str) -> Column:
        """The column that applies on ``surface`` (MOVE-7)."""
        return self.columns.get(surface) or self.columns["gravel"]

    def most(self, kind: str) -> int:
        """Dice of ``kind`` (gear, brake, coast, boost) on the whole dashboard (DAMAGE-3)."""
        if kind == "gear":
            return max((len(c.gears) for c in self.columns.values()), default=0)
        return max((int(getattr(c, kind)) for c in self.columns.values()), default=0)

    def short(self) -> str:
        """The dashboard in a few words (an Unlimited board: :meth:`UnlimitedDashboard.short`).

        >>> dashboard("dirt").short()
        'gears 1-6, brake 1, coast 2; limit 3, snow 2'
        """
        if self.unlimited is not None:
            return self.unlimited.short()

        def dice(c: Column) -> str:
            parts = [f"gears {_ranges(sorted(c.gears))}"] if c.gears else ["no gear"]
            kinds = ("brake", "coast", "boost")
            return ", ".join(parts + [f"{k} {getattr(c, k)}" for k in kinds if getattr(c, k)])

        cols = [(s, self.columns[s]) for s in SURFACES if s in self.columns]
        if len({dice(c) for _s, c in cols}) == 1:
            limits = Counter(c.danger_limit for _s, c in cols)
            usual = limits.most_common(1)[0][0]
            odd = [f"{s} {c.danger_limit}" for s, c in cols if c.danger_limit != usual]
            return f"{dice(cols[0][1])}; limit {', '.join([str(usual), *odd])}"
        return "; ".join(f"{s}: {dice(c)}, limit {c.danger_limit}" for s, c in cols)

    def layout(self) -> dict[str, object]:
        """The dashboard as a car file writes it: ``{"fixed": ...}`` or ``{"unlimited": ...}``."""
        if self.unlimited is not None:
            return {"unlimited": self.unlimited.layout()}
        return {"fixed": {s: self.columns[s].model_dump() for s in SURFACES if s in self.columns}}

    def with_sisu(self, surfaces: Iterable[str] = SURFACES) -> Dashboard:
        """The same dashboard with a SISU token that works on ``surfaces`` (tests, scripts)."""
        return Dashboard(
            self.name,
            self.columns,
            self.leader_surfaces,
            self.forced_leader_surfaces,
            frozenset(surfaces),
            self.puncture_proof,
            self.unlimited,
        )


def dashboard(car: str = "dirt", ruleset: Ruleset | None = None) -> Dashboard:
    """A printed car of the ruleset (``dirt``: the DIRT default car, ``r5``: with boost)."""
    rs = ruleset or load_ruleset("dirt")
    try:
        spec = rs.cars[car]
    except KeyError:
        raise ValueError(f"unknown car '{car}' (cars: {', '.join(sorted(rs.cars))})") from None
    return Dashboard(car, {str(k): v for k, v in spec.columns.items()})


class DashProblem(NamedTuple):
    """What is wrong with an Unlimited dashboard, and where.

    ``region`` is a region of equipment (``at``: the token's index among its tokens) or
    ``"surfaces"`` (``at``: the track-type token's index in
    :attr:`UnlimitedDashboard.surfaces`); ``at`` None: the region as a whole, and
    ``region`` None: the board.
    """

    region: str | None
    at: int | None
    message: str


@dataclass(frozen=True, slots=True)
class UnlimitedDashboard:
    """The Climb's Unlimited dashboard: 17 spaces (DASH-3, DASH-4).

    ``surfaces`` lists the track-type tokens of the top row from left to right, the car's
    best surface last (rightmost). The regions hold equipment tokens, empty spaces left
    out: ``right`` and ``middle`` (2 spaces each, under the rightmost and middle tokens),
    ``left`` (10 spaces under and left of the leftmost token) and ``top`` (top-row spaces
    no track-type token takes). Tokens: ``gear-1`` .. ``gear-6``, ``brake``, ``coast``,
    ``boost``, ``tyres`` (puncture-proof), ``sisu``. Immutable and hashable: a race keys
    its bots' plans by it.
    """

    surfaces: tuple[str, ...]
    top: tuple[str, ...] = ()
    right: tuple[str, ...] = ()
    middle: tuple[str, ...] = ()
    left: tuple[str, ...] = ()

    def region(self, name: str) -> tuple[str, ...]:
        """The tokens of region ``name`` (top, right, middle, left)."""
        return {"top": self.top, "right": self.right, "middle": self.middle, "left": self.left}[
            name
        ]

    def tokens(self) -> Iterator[tuple[str, int, str]]:
        """Every equipment token as (region, index in the region, token)."""
        for name in REGIONS:
            for i, token in enumerate(self.region(name)):
                yield name, i, token

    def usable_regions(self, surface: str) -> tuple[str, ...]:
        """Regions whose equipment works on ``surface`` (DASH-3)."""
        if surface not in self.surfaces:
            return ()
        rank = len(self.surfaces) - 1 - self.surfaces.index(surface)  # 0 = rightmost
        if rank == 0:
            return ("top", "right", "middle", "left")
        if rank == 1:
            return ("top", "middle", "left")
        return ("top", "left")

    def empty_spaces(self) -> int:
        """Empty spaces: each adds 1 to the danger limit (DASH-4 DEFAULT: every surface)."""
        used = sum(len(self.region(r)) for r in REGIONS) + len(self.surfaces)
        return sum(REGION_SIZES.values()) - used

    def danger_limit(self) -> int:
        """The printed limit 1 plus one per empty space (DASH-4), on every surface."""
        return 1 + self.empty_spaces()

    def usable(self, surface: str) -> list[str]:
        """The tokens that work on ``surface``."""
        return [t for r in self.usable_regions(surface) for t in self.region(r)]

    def column(self, surface: str) -> Column:
        """The dice that work on ``surface``."""
        tokens = self.usable(surface)
        gears = sorted({int(t[5:]) for t in tokens if t in _GEAR_TOKENS})
        return Column(
            gears=gears,
            brake=tokens.count("brake"),
            coast=tokens.count("coast"),
            boost=tokens.count("boost"),
            danger_limit=max(1, self.danger_limit()),
        )

    def works_on(self, token: str) -> frozenset[str]:
        """The surfaces on which some ``token`` of the board works (DASH-3)."""
        return frozenset(s for s in self.surfaces if token in self.usable(s))

    def as_dashboard(self, name: str = "unlimited") -> Dashboard:
        """A :class:`Dashboard` the plan generator can use (leader swap on gravel, MOVE-3)."""
        return Dashboard(
            name,
            {s: self.column(s) for s in self.surfaces},
            leader_surfaces=frozenset({"gravel"}),  # rule: MOVE-3 (Unlimited: gravel only)
            sisu=self.works_on("sisu"),
            puncture_proof=self.works_on("tyres"),
            unlimited=self,
        )

    def short(self) -> str:
        """The board in a few words: the top row, the count of each equipment, the limit."""
        counts = Counter(t for _r, _i, t in self.tokens())
        gears = sorted(int(t[5:]) for t in counts if t in _GEAR_TOKENS)
        parts = [f"gears {_ranges(gears)}"] if gears else ["no gear"]
        parts += [f"{kind} {counts[kind]}" for kind in ("brake", "coast", "boost") if counts[kind]]
        parts += [label for kind, label in (("tyres", "tyres"), ("sisu", "SISU")) if counts[kind]]
        return f"{'|'.join(self.surfaces)}: {', '.join(parts)}; limit {self.danger_limit()}"

    def layout(self) -> dict[str, list[str | None]]:
        """The 17 spaces as a car file writes them (``unlimited:``, DASH-3): empty is None."""
        free = REGION_SIZES["top"] - len(self.surfaces)
        top: list[str | None] = [*self.top, *([None] * (free - len(self.top))), *self.surfaces]
        return {
            "top": top,
            "right": list(self.right),
            "middle": list(self.middle),
            "left": list(self.left),
        }


def _ranges(values: list[int]) -> str:
    """``[1, 2, 3, 5]`` -> ``1-3,5``."""
    out: list[str] = []
    for v in values:
        if out and v - 1 == int(out[-1].split("-")[-1]):
            out[-1] = f"{out[-1].split('-')[0]}-{v}"
        else:
            out.append(str(v))
    return ",".join(out)


def unlimited_problems(
    board: UnlimitedDashboard, stage_surfaces: Iterable[str] | None = None
) -> list[DashProblem]:
    """What makes an Unlimited dashboard impossible, or unfit for a stage (DASH-3, DASH-4).

    Each problem names the region and the token's index among its tokens. With
    ``stage_surfaces``, the track-type tokens must be exactly the stage's surfaces.
    """
    problems: list[DashProblem] = []
    surfaces = board.surfaces
    if not 1 <= len(surfaces) <= REGION_SIZES["top"]:
        problems.append(DashProblem("surfaces", None, "the top row holds 1 to 3 track-type tokens"))
    seen: set[str] = set()
    for i, surface in enumerate(surfaces):
        if surface not in SURFACES:
            problems.append(DashProblem("surfaces", i, f"'{surface}' is no track type"))
        elif surface in seen:  # rule: DASH-3 (one token per surface)
            problems.append(
                DashProblem("surfaces", i, f"track-type token '{surface}' is placed twice")
            )
        seen.add(surface)
    mismatch = surface_mismatch(board, stage_surfaces) if stage_surfaces is not None else None
    if mismatch is not None:
        problems.append(DashProblem("surfaces", None, mismatch))
    room = {"top": REGION_SIZES["top"] - len(surfaces), **REGION_SIZES}
    room["top"] = max(0, room["top"])
    for name in REGIONS:
        tokens = board.region(name)
        if len(tokens) > room[name]:
            problems.append(
                DashProblem(
                    name,
                    room[name],
                    f"the {name} region holds {len(tokens)} tokens: room for {room[name]}",
                )
            )
    gears_at: dict[str, tuple[str, int]] = {}
    once_at: dict[str, tuple[str, int]] = {}
    for name, i, token in board.tokens():
        if token not in EQUIPMENT:
            problems.append(DashProblem(name, i, f"unknown equipment token '{token}'"))
        elif token.startswith("gear-"):
            if token in gears_at:  # rule: DASH-4 (a gear die has one value)
                problems.append(
                    DashProblem(name, i, f"a second '{token}': each gear value is one die")
                )
            gears_at.setdefault(token, (name, i))
        elif token in ("sisu", "tyres"):
            if token in once_at:  # rule: DASH-4 DEFAULT (one of each on a board)
                problems.append(
                    DashProblem(name, i, f"a second '{token}' token: a board has one at most")
                )
            once_at.setdefault(token, (name, i))
    if board.empty_spaces() < 0:
        problems.append(DashProblem(None, None, "more than 17 spaces used"))
    for i, surface in enumerate(surfaces):
        if surface in SURFACES and not board.column(surface).gears:
            problems.append(
                DashProblem(
                    "surfaces",
                    i,
                    f"no gear die works on {surface}: a car cannot drive there (DASH-3)",
                )
            )
    return problems


def surface_mismatch(board: UnlimitedDashboard, stage_surfaces: Iterable[str]) -> str | None:
    """Why the board's track-type tokens do not fit a stage's surfaces (None: they do)."""
    present = [s for s in SURFACES if s in set(stage_surfaces)]
    if sorted(set(board.surfaces)) == sorted(present):
        return None
    return (
        f"track-type tokens {', '.join(board.surfaces) or 'none'} do not match the "
        f"stage's surfaces {', '.join(present) or 'none'}: one token per surface "
        "the stage has (DASH-3)"
    )


def check_unlimited(board: UnlimitedDashboard, stage_surfaces: Iterable[str]) -> list[str]:
    """Problems of an Unlimited dashboard for a stage, in words (empty: fine) (DASH-3)."""
    out = []
    for p in unlimited_problems(board, stage_surfaces):
        where = p.region or "board"
        if p.at is not None:
            where += f"[{p.at}]"
        out.append(f"{where}: {p.message}")
    return out
