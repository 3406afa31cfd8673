"""One function per job for both series, with per-series hooks (issue 20): the
generator's race score, structural score, aim, finalist races and placement answers;
``simulate``'s and ``validate --simulate``'s races. Each test runs over both series."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from trackkit.checks.pipeline import validate
from trackkit.errors import InputError
from trackkit.formats import load_stage
from trackkit.generator import generate
from trackkit.generator.pieces import Way
from trackkit.generator.refine import (
    BOTS,
    PARTS,
    GtSimResult,
    RaceResult,
    SimResult,
    Task,
    race_finalists,
    race_gt_finalist,
    sim_score,
    simulate_finalist,
)
from trackkit.generator.request import Request
from trackkit.generator.score import PARTS as STRUCTURE_PARTS
from trackkit.generator.score import structure_score
from trackkit.generator.search import Placer
from trackkit.generator.series import DIRT, GT, SeriesRun, check_request
from trackkit.models.stage import Stage
from trackkit.rules.track import Track
from trackkit.sim.gt_race import gt_round_cap
from trackkit.sim.playability import playability
from trackkit.sim.race import MAX_ROUNDS
from trackkit.sim.simulate import DIRT_RACES, GT_RACES, Asked, simulate_files
from trackkit.stage.assemble import lay_out

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
STAGES = {"dirt": EXAMPLES / "col-de-turini.yaml", "gt": EXAMPLES / "gt-core-circuit.yaml"}
SERIES: dict[str, SeriesRun] = {"dirt": DIRT, "gt": GT}
BOXES = {"dirt": ("dirt-core",), "gt": ("gt-core",)}


def _warned(code: str) -> tuple[tuple[str, str, str], ...]:
    return ((code, "warning", "a note"), ("P603", "error", "a dangerous tile"))


def _result(series: str, findings: tuple[tuple[str, str, str], ...]) -> RaceResult:
    if series == "dirt":
        return SimResult(
            races=20,
            seed=1,
            loc_rate=0.5,
            loc_per_race=1.0,
            finish_rate=0.9,
            findings=findings,
            careful_time=300.0,
            par_time=250,
            times=dict.fromkeys(BOTS, 300.0),
            spread=0.1,
        )
    return GtSimResult(
        races=20,
        seed=1,
        loc_rate=0.5,
        loc_per_race=1.0,
        finish_rate=0.9,
        findings=findings,
        players=4,
        laps=3,
        overtakes_per_lap=1.0,
        win_rate_by_slot={"1": 0.4, "2": 0.2, "3": 0.2, "4": 0.2},
        decided_on_lap_1=0.8,
    )


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_one_race_score_counts_what_both_series_count(series: str) -> None:
    """sim_score: difficulty, playability (P601: 1 a warning, 5 an error) and finish are
    the same for both series; the warnings a series' own parts measure (GT: P606, P610)
    are not counted again; the parts come in one order."""
    plain = sim_score(_result(series, _warned("P602")), 0.5, par=300.0)
    measured = sim_score(_result(series, _warned("P606")), 0.5, par=300.0)
    assert plain["difficulty"] == 1.5
    assert plain["finish"] == pytest.approx(10.0 * 0.05)
    assert plain["playability"] == 6.0  # one warning and one error
    assert measured["playability"] == (5.0 if series == "gt" else 6.0)
    assert list(plain) == [k for k in PARTS if k in plain]
    own = {"dirt": {"par", "spread"}, "gt": {"overtaking", "pole", "lap_1"}}[series]
    assert set(plain) == {"difficulty", "playability", "finish", *own}


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_race_result_json_keeps_each_series_fields(series: str) -> None:
    """to_json: the shared figures, then the series' own, the findings last."""
    doc = _result(series, _warned("P602")).to_json()
    keys = list(doc)
    assert keys[:2] == ["races", "seed"] and keys[-1] == "findings"
    assert ("players" in keys) == (series == "gt")
    assert ("par_time" in keys) == (series == "dirt")
    assert keys.index("bots") < keys.index("finish_rate")
    assert doc["findings"][0]["code"] == "P602"


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_one_structural_score_adds_the_length_part_for_both(series: str) -> None:
    """structure_score: ``length`` (--length-mm) for both series, beside each series'
    own parts, in one order."""
    request = Request(boxes=BOXES[series], ruleset=series, tiles=8, candidates=2, races=0)
    candidate = generate(request).outcomes[0].chosen.candidate
    aim = SERIES[series].aim(*check_request(request))
    without = structure_score(candidate.structure, aim)
    assert without == candidate.score  # what the run scored it by
    length = candidate.structure.length_mm
    with_length = structure_score(candidate.structure, replace(aim, length_mm=length * 2))
    assert without.items() <= with_length.items()
    assert "length" not in without and with_length["length"] == 2.0  # 4 x half the length: short
    assert list(with_length) == [k for k in STRUCTURE_PARTS if k in with_length]
    own = {"dirt": {"difficulty", "flow"}, "gt": {"overtaking", "lanes", "grid", "corners"}}
    assert own[series] <= set(without)


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_one_aim_for_both_series(series: str) -> None:
    """Aim.of: a DIRT band from the pieces, a GT band from GT_BANDS (absolute), and no
    steering by the GT demand measure."""
    run: SeriesRun = SERIES[series]
    request, pal = check_request(Request(boxes=BOXES[series], ruleset=series, tiles=10))
    aim = run.aim(request, pal)
    assert aim.tiles == 10 and aim.band.level == "medium"
    if series == "gt":
        assert (aim.band.low, aim.band.high) == (0.11, 0.15) and aim.spread == 1000.0
    else:
        assert aim.band.low < aim.band.high and aim.spread < 10


def _pair(series: str) -> tuple[Way, Way]:
    _request, pal = check_request(Request(boxes=BOXES[series], ruleset=series, tiles=8))
    rng = random.Random(4)
    return pal.starts[0], rng.choice(pal.middles)


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_placer_answers_as_lay_out_places_for_both_series(series: str) -> None:
    """Placer.after: where the next tile lands is what lay_out places, for every
    rotation of the tile before (a GT answer is asked unturned and turned; a DIRT one
    asked as it lies), each question counted once in ``layouts``."""
    prev, way = _pair(series)
    placer = Placer()
    for rotation in range(6):
        step = placer.after(prev, rotation, way)
        before = prev.probe().model_copy(update={"at": (0, 0), "dir": rotation})
        layout = lay_out(Stage(format="trackkit-stage/1", tiles=[before, way.tile()]))
        if step is None:
            assert (
                len(layout.chain) < 2
                or layout.chain[-1].exit_world is None
                or any(f.location.tile_index == 2 for f in layout.findings)
            )
            continue
        last = layout.chain[-1]
        (q0, r0), (q1, r1) = layout.chain[0].hex, last.hex
        assert step.offset == (q1 - q0, r1 - r0)
        assert (step.exit, step.rotation) == (last.exit_world, last.rotation)
        placer.after(prev, rotation, way)  # asked again: answered from memory
    assert placer.layouts == (1 if series == "gt" else 6)


@pytest.mark.parametrize(
    ("series", "race"), [("dirt", simulate_finalist), ("gt", race_gt_finalist)]
)
def test_one_finalist_race_runner_for_both_series(
    series: str, race: Callable[[Task], RaceResult]
) -> None:
    """race_finalists: each stage raced with its own seed by the series' race, the same
    results in one process and in two."""
    stage = load_stage(STAGES[series])
    players = len(BOTS) if series == "dirt" else 3
    one = race_finalists(race, [stage, stage], [5, 6], races=2, players=players, jobs=1)
    two = race_finalists(race, [stage, stage], [5, 6], races=2, players=players, jobs=2)
    assert one == two and [r.seed for r in one] == [5, 6]
    assert all(r.races == 2 for r in one)


@pytest.mark.parametrize("series", ["dirt", "gt"])
def test_simulate_and_playability_use_the_series_round_cap(series: str) -> None:
    """simulate_files and playability race both series by one loop: without
    ``max_rounds`` the round cap is the series' (DIRT 200; GT as many as its laps need,
    gt_round_cap)."""
    stage = load_stage(STAGES[series])
    report = validate(stage)
    track = Track.from_graph(report.graph, report.layout)
    cap = MAX_ROUNDS if series == "dirt" else gt_round_cap(track, report.layout.laps)
    races = GT_RACES if series == "gt" else DIRT_RACES
    options = None if series == "dirt" else races.check([report], [track], _asked())
    assert races.round_cap(track, options) == cap
    doc, _ = simulate_files([stage], [stage.name], players=2, races=1, seed=3, cars=None, bots=())
    assert doc.settings.max_rounds == cap
    _found, summary = playability(report, races=1, seed=3, players=2)
    assert summary.simulation is not None and summary.simulation.max_rounds == cap
    assert (summary.simulation.gt is not None) == (series == "gt")
    assert (summary.simulation.dirt is not None) == (series == "dirt")


def _asked() -> Asked:
    return Asked(("track",), None, None, None, None)


@pytest.mark.parametrize(
    ("series", "option"),
    [("dirt", {"laps": 2}), ("dirt", {"cars": ("gt4",)}), ("gt", {"cars": ("dirt",)})],
)
def test_each_series_checks_its_own_options(series: str, option: dict[str, object]) -> None:
    """The per-series checks stay apart: GT options and cars on a DIRT stage, DIRT cars
    on a GT track are refused before any race, naming the option."""
    stage = load_stage(STAGES[series])
    kw: dict[str, object] = {"cars": None, **option}
    with pytest.raises(InputError) as exc:
        simulate_files([stage], [stage.name], players=2, races=1, seed=3, bots=(), **kw)  # type: ignore[arg-type]
    assert exc.value.file == ("--laps" if "laps" in option else "--car")
