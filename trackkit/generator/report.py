"""The report of each generated stage and the index of a run, as Markdown and JSON.

A stage's report says why it was chosen (what was asked for beside what it has, and the
finalists it was chosen from with their scores), its validation summary, its races, its
tiles in driving order, and shows its map (drawn by the command, :func:`map_name`). The
index lists the stages of the run with the command line that makes them again.

The report is written once for both series (:func:`stage_report`, :func:`index_markdown`);
what a series puts in it (DIRT: times and the spread between bots; GT: overtakes, the grid,
the straights) is one ``_Series`` hook object per series. The module is a little over 800
lines because those two hook objects and the JSON index belong with the one writer that
reads them.

Nothing here reads a clock or a path outside the output folder: the same run writes the
same bytes.

Examples
--------
>>> file_names(3, "native", ("svg", "png"))
{'stage': 'stage-03.yaml', 'report': 'stage-03.md', 'maps': ['stage-03.svg', 'stage-03.png']}
>>> from trackkit.generator.request import Request
>>> command_line(Request(boxes=("dirt-core", "dirt-core"), tiles=12, count=2, seed=7))
'trackkit generate --boxes dirt-core --boxes dirt-core --tiles 12 --kind rally \
--difficulty medium --count 2 --seed 7'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from trackkit.checks.text import summary_text
from trackkit.generator.gt_score import OVERTAKE_SPACES, TILES_PER_CHANCE, GtStructure
from trackkit.generator.refine import BOTS, GT_OVERTAKES_PER_LAP, GtSimResult, SimResult
from trackkit.generator.request import Request
from trackkit.generator.run import Finalist, Generation, Outcome
from trackkit.generator.score import Band
from trackkit.models.stage import TileToken
from trackkit.models.summary import StageSummary
from trackkit.words import plural

__all__ = [
    "command_line",
    "file_names",
    "index_json",
    "index_markdown",
    "stage_report",
]

#: The index files of a run.
INDEX_FILES = ("index.md", "index.json")
#: The format marker of ``index.json``.
INDEX_FORMAT = "trackkit-generate/1"


def map_name(index: int, kind: str) -> str:
    """``stage-01.svg``: the map of stage ``index`` (``kind``: svg or png)."""
    return f"stage-{index:02d}.{kind}"


def file_names(index: int, fmt: str, maps: Sequence[str]) -> dict[str, Any]:
    """The files of stage ``index``: the stage (``native`` or ``rekee``), report, maps."""
    suffix = "rekee.json" if fmt == "rekee" else "yaml"
    return {
        "stage": f"stage-{index:02d}.{suffix}",
        "report": f"stage-{index:02d}.md",
        "maps": [map_name(index, kind) for kind in maps],
    }


def command_line(request: Request, *, fmt: str = "native", maps: Sequence[str] = ("svg",)) -> str:
    """The ``trackkit generate`` command that makes the same stages (without ``-o``)."""
    args = ["trackkit generate"]
    if request.ruleset != "dirt":
        args.append(f"--ruleset {request.ruleset}")
    args += [f"--boxes {b}" for b in request.boxes]
    if request.length_mm is not None:
        args.append(f"--length-mm {request.length_mm:g}")
    else:
        args.append(f"--tiles {request.tiles}")
    args.append(f"--kind {request.kind.value}")
    if request.laps is not None:
        args.append(f"--laps {request.laps}")
    if request.players is not None:
        args.append(f"--players {request.players}")
    if request.pit:
        args.append("--pit")
    if request.surfaces:
        args.append("--surface " + ",".join(f"{s}={v:g}" for s, v in request.surfaces))
    args.append(f"--difficulty {request.difficulty.value}")
    if request.par is not None:
        args.append(f"--par {request.par:g}")
    if request.tokens:
        args.append("--tokens " + ",".join(f"{k}={n}" for k, n in request.tokens))
    if request.fillers:
        args.append(f"--fillers {request.fillers}")
    args += [f"--count {request.count}", f"--seed {request.seed}"]
    defaults = Request(boxes=request.boxes)
    for name in ("candidates", "finalists", "races", "tries"):
        if getattr(request, name) != getattr(defaults, name):
            args.append(f"--{name} {getattr(request, name)}")
    if fmt != "native":
        args.append(f"--format {fmt}")
    if tuple(maps) != ("svg",):
        args.append("--map " + ("both" if len(maps) == 2 else (maps[0] if maps else "none")))
    return " ".join(args)


def _off_band(band: Band, value: float) -> str:
    """``, below the band`` / ``, above the band`` for a figure outside it (else nothing)."""
    if value < band.low:
        return ", below the band"
    if value > band.high:
        return ", above the band"
    return ""


def _pct(share: float | None) -> str:
    return "–" if share is None else f"{100 * share:.0f} %"


def _surfaces_asked(request: Request) -> str:
    if not request.surfaces:
        return "any"
    named = ", ".join(f"{s} {_pct(v)}" for s, v in request.surfaces)
    rest = 1.0 - sum(v for _, v in request.surfaces)
    return named + (f", the rest ({_pct(rest)}) any other" if rest > 1e-9 else "")


def _surfaces_laid(shares: dict[str, float]) -> str:
    return ", ".join(f"{s} {_pct(v)}" for s, v in sorted(shares.items(), key=lambda kv: -kv[1]))


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} s"


def _tokens_laid(summary: StageSummary) -> str:
    return ", ".join(f"{t.token} {t.count}" for t in summary.tokens) or "none"


def _size_asked(generation: Generation) -> str:
    r = generation.request
    if r.length_mm is not None:
        return f"{r.length_mm / 1000:.2f} m of road"
    return f"{r.tiles} tiles"


def _not_raced(request: Request) -> str:
    return "not raced: --races 0" if request.races <= 0 else "not raced"


def _parts(parts: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in parts.items())


def _playability(findings: Sequence[tuple[str, str, str]], left_out: str = "") -> list[str]:
    """A stage's playability findings as ``validate --simulate`` reports them."""
    play = [f"- {code} ({sev}): {msg}" for code, sev, msg in findings] or ["- none"]
    return [
        f"Playability findings (as `trackkit validate --simulate` reports them{left_out}):",
        "",
        *play,
        "",
    ]


class _Series(Protocol):
    """What the report of a generated stage and the index of a run say that depends on the
    series; the rest (:func:`stage_report`, :func:`index_markdown`) is written once.

    ``piece`` names a road (``Stage 1 of 3``), ``built_for`` and ``this`` are the words of
    its report's table, ``what`` names a road of the run; ``target_rows`` are the rows of
    what was asked for beside what the road has, ``ranking`` says how raced finalists were
    ranked, ``finalist_head`` and ``finalist_cells`` are the finalists' columns between the
    structure score and the total, ``scores_note`` the lines under them, ``races`` the
    section on the chosen road's races and ``more`` sections before its tiles;
    ``index_title``, ``difficulty_note`` (after "per 10 tiles"), ``index_head`` and
    ``index_cells`` are the index's heading, band and columns between the tiles and the
    score.
    """

    piece: str
    built_for: str
    this: str
    difficulty_note: str

    def what(self, request: Request) -> str: ...
    def target_rows(
        self, generation: Generation, outcome: Outcome
    ) -> list[tuple[str, str, str]]: ...
    def ranking(self, sim: SimResult | GtSimResult) -> str: ...
    def finalist_head(self, sim: SimResult | GtSimResult | None) -> list[str]: ...
    def finalist_cells(self, f: Finalist) -> list[str]: ...
    def scores_note(self, chosen: Finalist) -> list[str]: ...
    def races(self, chosen: Finalist) -> list[str]: ...
    def more(self, outcome: Outcome) -> list[str]: ...
    def index_title(self, request: Request) -> str: ...
    def index_head(self, request: Request) -> list[str]: ...
    def index_cells(self, request: Request, outcome: Outcome) -> list[str]: ...


class _Dirt:
    """Rallyman: DIRT: difficulty, stage times, the spread between bots."""

    piece = "Stage"
    built_for = "this stage"
    this = "this stage"
    difficulty_note = ", the band of the level within what these boxes can make"

    def what(self, request: Request) -> str:
        return "stage"

    def more(self, outcome: Outcome) -> list[str]:
        return []

    @staticmethod
    def _sim(f: Finalist) -> SimResult | None:
        sim = f.sim
        assert sim is None or isinstance(sim, SimResult)
        return sim

    def target_rows(self, generation: Generation, outcome: Outcome) -> list[tuple[str, str, str]]:
        r = generation.request
        s = outcome.chosen.candidate.structure
        summary = outcome.report.summary
        sim = self._sim(outcome.chosen)
        band = generation.aim.band
        rows = [
            ("kind", r.kind.value, summary.kind),
            (
                "size",
                _size_asked(generation),
                f"{s.tiles} tiles, {s.length_mm / 1000:.2f} m of road "
                f"({summary.length_spaces} moves start to finish)",
            ),
            ("surfaces", _surfaces_asked(r), _surfaces_laid(s.surfaces)),
            (
                "difficulty",
                f"{band.words()} losses of control per driver per 10 tiles",
                f"{s.difficulty:.2f} by structure"
                + (f", {sim.loc_rate:.2f} in the races" if sim else " (not raced)"),
            ),
        ]
        if r.par is not None or sim is not None:
            asked = "-" if r.par is None else f"{r.par:.0f} s for a careful driver"
            laid = "not raced"
            if sim is not None:
                laid = (
                    f"{_seconds(sim.careful_time)} (the cautious bot's median; par "
                    f"{_seconds(sim.par_time)}, the risk-free lower bound)"
                )
            rows.append(("stage time", asked, laid))
        if r.tokens:
            asked_tokens = ", ".join(f"{k} {n}" for k, n in r.tokens)
            rows.append(("tokens", asked_tokens, _tokens_laid(summary)))
        if r.fillers:
            rows.append(("fillers", str(r.fillers), str(summary.tiles_beside_road)))
        return rows

    def ranking(self, sim: SimResult | GtSimResult) -> str:
        return "the lowest total score, one that fits what was asked for first"

    def finalist_head(self, sim: SimResult | GtSimResult | None) -> list[str]:
        head = ["difficulty (structure)"]
        if sim is not None:
            head += [
                "difficulty (races)",
                "careful time",
                "spread between bots",
                "finish rate",
                "playability",
            ]
        return head

    def finalist_cells(self, f: Finalist) -> list[str]:
        sim = self._sim(f)
        cells = [f"{f.candidate.structure.difficulty:.2f}"]
        if sim is not None:
            play = ", ".join(code for code, _, _ in sim.findings) or "-"
            spread = "-" if sim.spread is None else f"{sim.spread:.2f}"
            cells += [
                f"{sim.loc_rate:.2f}",
                _seconds(sim.careful_time),
                spread,
                f"{_pct(sim.finish_rate)}",
                play,
            ]
        return cells

    def scores_note(self, chosen: Finalist) -> list[str]:
        return [
            f"Scores are lower for better; the chosen stage's parts: {_parts(chosen.parts)}.",
            "Difficulty is in losses of control per driver per 10 tiles (the structure's "
            "estimate, and what the races showed); see `trackkit/generator/score.py`.",
        ]

    def races(self, chosen: Finalist) -> list[str]:
        sim = self._sim(chosen)
        assert sim is not None
        times = ", ".join(f"{bot} {_seconds(t)}" for bot, t in sim.times.items())
        spread = "-" if sim.spread is None else f"{sim.spread:.2f}"
        return [
            f"{sim.races} races of {len(BOTS)} drivers in the default car, one per bot "
            f"({', '.join(BOTS)}), seed {sim.seed}: finish rate {_pct(sim.finish_rate)}, "
            f"{sim.loc_per_race:.2f} losses of control per race "
            f"({sim.loc_rate:.2f} per driver per 10 tiles).",
            "",
            f"Median stage times: {times}; spread between bots {spread}. Par "
            f"{_seconds(sim.par_time)}: the fastest legal line with no dice risk (a lower bound).",
            "",
            *_playability(
                sim.findings, "; P604 is left out, since each start position has its own bot"
            ),
        ]

    def index_title(self, request: Request) -> str:
        return f"{request.kind.value} stage"

    def index_head(self, request: Request) -> list[str]:
        head = ["road", "surfaces", "difficulty"]
        return head + (["careful time", "losses of control"] if request.races > 0 else [])

    def index_cells(self, request: Request, outcome: Outcome) -> list[str]:
        s = outcome.chosen.candidate.structure
        sim = self._sim(outcome.chosen)
        cells = [f"{s.length_mm / 1000:.2f} m", _surfaces_laid(s.surfaces), f"{s.difficulty:.2f}"]
        if request.races > 0:
            cells += [
                _seconds(sim.careful_time if sim else None),
                f"{sim.loc_rate:.2f}" if sim else "-",
            ]
        return cells


class _Gt:
    """Rallyman: GT: overtakes, the grid's fairness, losses of control, the straights."""

    piece = "Track"
    built_for = "it"
    this = "this track"
    difficulty_note = " driven, measured in GT races"

    def what(self, request: Request) -> str:
        return "circuit" if request.kind.value == "circuit" else "track"

    @staticmethod
    def _structure(f: Finalist) -> GtStructure:
        s = f.candidate.structure
        assert isinstance(s, GtStructure)
        return s

    @staticmethod
    def _sim(f: Finalist) -> GtSimResult | None:
        sim = f.sim
        assert sim is None or isinstance(sim, GtSimResult)
        return sim

    @staticmethod
    def _slots(sim: GtSimResult) -> str:
        """``1 40 %, 2 25 %, 3 20 %, 4 15 %``: the win rate by grid slot."""
        return ", ".join(f"{k} {_pct(v)}" for k, v in sim.win_rate_by_slot.items())

    def target_rows(self, generation: Generation, outcome: Outcome) -> list[tuple[str, str, str]]:
        r = generation.request
        chosen = outcome.chosen
        s = self._structure(chosen)
        sim = self._sim(chosen)
        gt = outcome.report.summary.gt
        assert gt is not None  # a GT track's
        band = generation.aim.band
        circuit = gt.lap_length_mm is not None
        lap = "lap" if circuit else "start to finish"
        rows = [
            ("kind", r.kind.value, outcome.report.summary.kind),
            (
                "size",
                _size_asked(generation),
                f"{s.tiles} tiles, {lap} {s.length_mm / 1000:.2f} m ({s.moves} moves)",
            ),
        ]
        if circuit:
            rows.append(("laps", str(r.laps or gt.laps), str(gt.laps)))
        rows += [
            (
                "grid",
                f"{r.players} cars",
                f"{s.grid_slots} slots; pole {s.pole_to_corner} moves from the first corner "
                f"(limit {s.first_corner}), the last slot {s.back_to_corner}",
            ),
            (
                "difficulty",
                f"{band.words()} losses of control per driver per 10 tiles",
                f"{sim.loc_rate:.3f} in the races{_off_band(band, sim.loc_rate)}"
                if sim
                else "not measured (not raced)",
            ),
            (
                "overtaking",
                f"at least one chance per {TILES_PER_CHANCE} tiles; races: "
                f"{GT_OVERTAKES_PER_LAP:g} overtakes {'per lap' if circuit else 'per race'} "
                "or more",
                f"{s.overtaking:g} chances (straights of {OVERTAKE_SPACES}+ spaces into a corner)"
                + (
                    f"; {sim.overtakes:.2f} overtakes {sim.overtakes_unit} in the races"
                    if sim
                    else ""
                ),
            ),
            (
                "grid fairness",
                "pole wins no more often than any slot"
                + ("; few races decided on lap 1" if circuit else ""),
                (
                    f"win rate by grid slot {self._slots(sim)}"
                    + (f"; {_pct(sim.decided_on_lap_1)} decided on lap 1" if circuit else "")
                )
                if sim
                else "not raced",
            ),
            ("lanes", "3 or more", f"{_pct(s.lanes_share)} of the tiles 3 lanes or more"),
            ("pit", "beside the road" if r.pit else "none", "beside the road" if s.pit else "none"),
        ]
        return rows

    def ranking(self, sim: SimResult | GtSimResult) -> str:
        assert isinstance(sim, GtSimResult)
        return (
            f"the lowest total score: overtakes {sim.overtakes_unit}, grid fairness and losses "
            "of control as the races measured them; one that fits what was asked for first"
        )

    def finalist_head(self, sim: SimResult | GtSimResult | None) -> list[str]:
        head = ["overtaking chances", "demand (structure)"]
        if isinstance(sim, GtSimResult):
            head += ["losses of control (races)", f"overtakes {sim.overtakes_unit}", "pole wins"]
            head += [] if sim.point_to_point else ["decided on lap 1"]
            head.append("playability")
        return head

    def finalist_cells(self, f: Finalist) -> list[str]:
        s = self._structure(f)
        cells = [f"{s.overtaking:g}", f"{s.difficulty:.3f}"]
        sim = self._sim(f)
        if sim is not None:
            play = ", ".join(sorted({code for code, sev, _ in sim.findings if sev != "info"}))
            cells += [f"{sim.loc_rate:.3f}", f"{sim.overtakes:.2f}"]
            cells.append(_pct(sim.win_rate_by_slot.get("1", 0.0)))
            if not sim.point_to_point:
                cells.append(_pct(sim.decided_on_lap_1))
            cells.append(play or "-")
        return cells

    def scores_note(self, chosen: Finalist) -> list[str]:
        return [
            f"Scores are lower for better; the chosen track's parts: {_parts(chosen.parts)}. "
            "Losses of control are per driver per 10 tiles driven; the demand is the "
            "structure's estimate of them (see `trackkit/generator/gt_score.py`)."
        ]

    def races(self, chosen: Finalist) -> list[str]:
        sim = self._sim(chosen)
        assert sim is not None
        bots = ", ".join(BOTS[i % len(BOTS)] for i in range(sim.players))
        races = (
            f"{sim.races} races start to finish"
            if sim.point_to_point
            else f"{sim.races} races of {sim.laps} laps"
        )
        lap_1 = (
            ""
            if sim.point_to_point
            else f"; the car leading after lap 1 won {_pct(sim.decided_on_lap_1)} of the races"
        )
        return [
            f"{races}, {sim.players} GT bots on a drawn grid "
            f"({bots}), seed {sim.seed}: finish rate {_pct(sim.finish_rate)}, "
            f"{sim.loc_per_race:.2f} losses of control per race ({sim.loc_rate:.3f} per driver "
            f"per 10 tiles), {sim.overtakes:.2f} overtakes {sim.overtakes_unit}.",
            "",
            f"Win rate by grid slot: {self._slots(sim)} (pole's edge over a fair share "
            f"{sim.pole_edge:.2f}){lap_1}.",
            "",
            *_playability(sim.findings),
        ]

    def more(self, outcome: Outcome) -> list[str]:
        runs = [st for st in self._structure(outcome.chosen).straights if st.spaces >= 2]
        lines = [
            f"- from tile {st.tile}: {st.spaces} spaces, {st.lanes} lanes, into a corner of "
            f"limit {st.corner}" + (" (an overtaking chance)" if st.chance else "")
            if st.corner is not None
            else f"- from tile {st.tile}: {st.spaces} spaces to the finish"
            for st in runs
        ]
        return [
            "## Straights",
            "",
            "Stretches of 2 spaces or more between two corners:",
            "",
            *(lines or ["- none"]),
            "",
        ]

    def index_title(self, request: Request) -> str:
        return "circuit" if request.kind.value == "circuit" else "point-to-point track"

    def index_head(self, request: Request) -> list[str]:
        p2p = request.kind.value != "circuit"
        head = ["start to finish" if p2p else "lap", "corners", "overtaking chances"]
        if request.races > 0:
            head += ["losses of control", f"overtakes {'per race' if p2p else 'per lap'}"]
            head += ["pole wins"] if p2p else ["pole wins", "decided on lap 1"]
        return head

    def index_cells(self, request: Request, outcome: Outcome) -> list[str]:
        s = self._structure(outcome.chosen)
        sim = self._sim(outcome.chosen)
        cells = [f"{s.length_mm / 1000:.2f} m", str(s.corners), f"{s.overtaking:g}"]
        if request.races > 0:
            raced = (
                [
                    f"{sim.loc_rate:.3f}",
                    f"{sim.overtakes:.2f}",
                    _pct(sim.win_rate_by_slot.get("1", 0.0)),
                    _pct(sim.decided_on_lap_1),
                ]
                if sim
                else ["-"] * 4
            )
            cells += raced[:3] if request.kind.value != "circuit" else raced
        return cells


def _series(request: Request) -> _Series:
    """The words of ``request``'s series."""
    return _Gt() if request.ruleset == "gt" else _Dirt()


def _finalist_row(series: _Series, f: Finalist, chosen: Finalist) -> str:
    c = f.candidate
    mark = f"**{c.number} (chosen)**" if f is chosen else str(c.number)
    cells = [mark, f"{c.total:.2f}", *series.finalist_cells(f), f"{f.total:.2f}"]
    return "| " + " | ".join(cells) + " |"


def stage_report(
    generation: Generation,
    outcome: Outcome,
    files: dict[str, Any],
    *,
    fmt: str = "native",
    maps: Sequence[str] = ("svg",),
) -> str:
    """The Markdown report of one stage or track; ``files`` are its :func:`file_names`."""
    r = generation.request
    series = _series(r)
    chosen = outcome.chosen
    cand = chosen.candidate
    lines = [
        f"# {outcome.stage.name}",
        "",
        f"{series.piece} {outcome.index} of {r.count}, made by "
        f"`{command_line(r, fmt=fmt, maps=maps)}`.",
        "",
        f"{series.piece} file: [{files['stage']}]({files['stage']})"
        + "".join(f" · map: [{m}]({m})" for m in files["maps"]),
        "",
    ]
    if files["maps"]:
        lines += [f"![the map of {outcome.stage.name}]({files['maps'][0]})", ""]
    how = (
        f"the best of the {len(outcome.finalists)} finalists raced ({series.ranking(chosen.sim)})"
        if chosen.sim is not None
        else f"the best by structure (the lowest score; {_not_raced(r)})"
    )
    rows = [*series.target_rows(generation, outcome)]
    rows.append(("boxes", ", ".join(r.boxes), ", ".join(sorted(outcome.report.summary.boxes))))
    lines += [
        f"## Why this {series.what(r)}",
        "",
        f"Candidate {cand.number} of the {outcome.built} roads built for {series.built_for}: "
        f"{how}.",
        "",
        f"| | asked for | {series.this} |",
        "|---|---|---|",
        *(f"| {a} | {b} | {c} |" for a, b, c in rows),
        "",
        *_fit_lines(outcome),
        "### Finalists",
        "",
    ]
    head = ["candidate", "structure score", *series.finalist_head(chosen.sim), "total score"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += [_finalist_row(series, f, chosen) for f in outcome.finalists]
    lines += [
        "",
        *series.scores_note(chosen),
        "",
        "## Summary",
        "",
        "```",
        *summary_text(outcome.report.summary),
        "```",
        "",
    ]
    if chosen.sim is not None:
        lines += ["## Races", "", *series.races(chosen)]
    lines += series.more(outcome)
    lines += ["## Tiles in driving order", ""]
    lines += _tile_lines(outcome)
    return "\n".join(lines) + "\n"


def _tile_lines(outcome: Outcome) -> list[str]:
    out = []
    for n, tile in enumerate(outcome.stage.tiles, start=1):
        how = tile.turn or tile.climb
        words = [tile.tile] + ([how] if how else [])
        if tile.at is not None:
            words.append(f"beside the road at [{tile.at[0]}, {tile.at[1]}], dir {tile.dir}")
        if tile.tokens:
            words.append("tokens: " + ", ".join(_token_words(t) for t in tile.tokens))
        out.append(f"{n}. " + ", ".join(words))
    return [*out, ""]


def _token_words(token: TileToken) -> str:
    """``oxygen 2``, ``climb -1``, ``cloud``."""
    if token.value is None:
        return token.token
    return (
        f"{token.token} {token.value:+d}"
        if token.token == "climb"
        else f"{token.token} {token.value}"
    )


def index_markdown(
    generation: Generation,
    files: Sequence[dict[str, Any]],
    *,
    fmt: str = "native",
    maps: Sequence[str] = ("svg",),
) -> str:
    """The Markdown index of a run: one row per stage or track, with its files."""
    r = generation.request
    series = _series(r)
    lines = [
        f"# {r.count} generated {series.index_title(r)}{'s' if r.count != 1 else ''}",
        "",
        f"Made by `{command_line(r, fmt=fmt, maps=maps)}`.",
        "",
        f"Difficulty {generation.aim.band.words()}: losses of control per driver per 10 "
        f"tiles{series.difficulty_note}.",
        "",
    ]
    head = [series.piece.lower(), "file", "report", "tiles", *series.index_head(r)]
    head += ["score", "asked for"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for outcome, names in zip(generation.outcomes, files, strict=True):
        cells = [
            str(outcome.index),
            f"[{names['stage']}]({names['stage']})",
            f"[{names['report']}]({names['report']})",
            str(outcome.chosen.candidate.structure.tiles),
            *series.index_cells(r, outcome),
            f"{outcome.chosen.total:.2f}",
            _fit_cell(outcome),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += _run_lines(generation)
    return "\n".join(lines) + "\n"


def _fit_cell(outcome: Outcome) -> str:
    """``fits`` or ``misses ...``: the stage against what was asked for."""
    searches = f" (after {outcome.tries} searches)" if outcome.tries > 1 else ""
    return outcome.fit.words() + searches


def _fit_lines(outcome: Outcome) -> list[str]:
    """A stage report's paragraph on whether it is what was asked for."""
    fit = outcome.fit
    searches = f", after {outcome.tries} searches" if outcome.tries > 1 else ""
    if fit.fits:
        text = f"It fits what was asked for{searches}"
        if fit.unmeasured:
            text += f" (not measured, as it was not raced: {', '.join(fit.unmeasured)})"
        return [text + ".", ""]
    return [f"**It misses what was asked for**{searches}: {fit.words()[len('misses ') :]}.", ""]


def _run_lines(generation: Generation) -> list[str]:
    """The index's closing lines: what the run built and raced, and what missed."""
    st = generation.stats
    lines = [
        "",
        f"{st['candidates']} candidate roads built and validated ({st['dropped']} dropped), "
        f"{st['raced']} finalists raced, in {plural(st['searches'], 'search', 'searches')}.",
    ]
    missed = [o for o in generation.outcomes if not o.fit.fits]
    if missed:
        r = generation.request
        again = (
            "`--tries N` searches again for each one that misses, up to N searches."
            if r.tries == 1
            else f"{r.tries} searches each did not find one that fits."
        )
        lines += [
            "",
            f"{len(missed)} of {r.count} {'misses' if len(missed) == 1 else 'miss'} what was "
            "asked for "
            f"({', '.join(str(o.index) for o in missed)}); {again}",
        ]
    return lines


def index_json(
    generation: Generation,
    files: Sequence[dict[str, Any]],
    *,
    fmt: str = "native",
    maps: Sequence[str] = ("svg",),
) -> dict[str, Any]:
    """The JSON index of a run: the request, the band, and every stage's facts and scores."""
    r = generation.request
    band = generation.aim.band
    stages = []
    for outcome, names in zip(generation.outcomes, files, strict=True):
        chosen = outcome.chosen
        stages.append(
            {
                "index": outcome.index,
                "name": outcome.stage.name,
                "files": names,
                "candidate": chosen.candidate.number,
                "candidates_built": outcome.built,
                "tiles": [t.tile for t in outcome.stage.tiles],
                "structure": chosen.candidate.structure.to_json(),
                "score": chosen.parts,
                "total": chosen.total,
                "simulation": chosen.sim.to_json() if chosen.sim else None,
                "fit": outcome.fit.to_json(),
                "searches": outcome.tries,
                "finalists": [
                    {
                        "candidate": f.candidate.number,
                        "structure_score": f.candidate.total,
                        "total": f.total,
                        "difficulty": round(f.candidate.structure.difficulty, 4),
                        "loss_of_control_rate": round(f.sim.loc_rate, 4) if f.sim else None,
                        **(
                            {
                                **(
                                    {"overtakes_per_race": f.sim.overtakes_per_race}
                                    if f.sim.point_to_point
                                    else {
                                        "overtakes_per_lap": f.sim.overtakes_per_lap,
                                        "decided_on_lap_1": f.sim.decided_on_lap_1,
                                    }
                                ),
                                "pole_edge": round(f.sim.pole_edge, 4),
                            }
                            if isinstance(f.sim, GtSimResult)
                            else {}
                        ),
                    }
                    for f in outcome.finalists
                ],
                "summary": outcome.report.summary.to_json(),
            }
        )
    return {
        "format": INDEX_FORMAT,
        "command": command_line(r, fmt=fmt, maps=maps),
        "request": {
            "boxes": list(r.boxes),
            "tiles": r.tiles,
            "length_mm": r.length_mm,
            "kind": r.kind.value,
            "surfaces": dict(r.surfaces),
            "difficulty": r.difficulty.value,
            "par": r.par,
            "count": r.count,
            "seed": r.seed,
            "tokens": dict(r.tokens),
            "fillers": r.fillers,
            "candidates": r.candidates,
            "finalists": r.finalists,
            "races": r.races,
            "tries": r.tries,
            "ruleset": r.ruleset,
            "laps": r.laps,
            "players": r.players,
            "pit": r.pit,
            "format": fmt,
            "maps": list(maps),
        },
        "difficulty_band": {
            "level": band.level,
            "low": round(band.low, 4),
            "high": round(band.high, 4),
        },
        "stages": stages,
        "all_fit": all(o.fit.fits for o in generation.outcomes),
        "stats": generation.stats,
    }
