"""``trackkit generate --ruleset gt`` (issue 13, item 4): Rallyman: GT circuits and
point-to-point tracks from the GT boxes owned, closed by the search, valid by
construction, chosen by overtakes and grid fairness measured in GT races.
"""

from __future__ import annotations

import json
import random
import statistics
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trackkit.checks.pipeline import Report, validate
from trackkit.cli.app import app
from trackkit.formats import parse_stage
from trackkit.formats.write import dump_stage
from trackkit.generator import Difficulty, GenerateError, Request, generate
from trackkit.generator.circuit import CircuitGoal
from trackkit.generator.gt_pieces import GT_BOXES, check_gt_request, gt_palette
from trackkit.generator.gt_score import GT_BANDS, gt_aim
from trackkit.generator.pieces import Palette
from trackkit.generator.refine import GtSimResult, gt_sim_score, race_gt_finalist
from trackkit.generator.run import Candidate, Finalist
from trackkit.generator.search import Placer, Road, build_road
from trackkit.models.stage import Kind, Stage
from trackkit.road import hexgrid
from trackkit.sim.playability import gt_playability
from trackkit.tiles.library import default_library

runner = CliRunner()
LIB = default_library()


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["generate", *args])
    return result.exit_code, result.stdout, result.stderr


def owned(boxes: tuple[str, ...]) -> Counter[tuple[str, int]]:
    """Pieces the boxes hold, a piece of two boxes (122, 124, 125) from either."""
    named = Counter(boxes)
    out: Counter[tuple[str, int]] = Counter()
    for box in LIB.boxes():
        for f in LIB.in_box(box):
            have = f.copies * named[f.box] + sum(n * named[b] for b, n in f.also_in.items())
            out[(f.box, f.number)] = have
    return out


def check_track(report: Report, boxes: tuple[str, ...], tiles: int, kind: Kind) -> None:
    """Clean (no error, no warning), owned pieces only, ``tiles`` long, closed (a circuit)."""
    bad = [(f.code, f.message) for f in report.findings if f.severity.value != "info"]
    assert bad == [], bad
    assert report.kind is kind and report.layout.series == "gt"
    assert report.summary.tiles == tiles
    used = Counter((t.face.box, t.face.number) for t in report.layout.tiles if t.face)
    have = owned(boxes)
    assert all(n <= have[piece] for piece, n in used.items()), used
    if kind is Kind.CIRCUIT:
        assert report.layout.closes and report.summary.gt.closed is True
        assert len(report.summary.gt.start_finish) == 1
    else:
        assert report.summary.gt.start_finish == [1, tiles]
    # every edge meets with equal lanes and skew hands (S104, S128 would be findings)
    chain = report.layout.chain
    pairs = list(zip(chain, chain[1:] + ([chain[0]] if kind is Kind.CIRCUIT else []), strict=False))
    for a, b in pairs:
        assert a.face and b.face and a.road and b.road
        assert a.face.lanes[a.road.exit] == b.face.lanes[b.road.entry]
        assert a.face.skews.get(a.road.exit) == b.face.skews.get(b.road.entry)


# --- 100 circuits per box combination, structural path ----------------------------------

COMBINATIONS: list[tuple[tuple[str, ...], tuple[int, ...]]] = [
    (("gt-core",), (6, 10, 14, 20)),
    (("gt-core", "gt-championship", "gt-world-tour"), (8, 12, 16, 24)),
    (("gt-core", "gt-adrenaline"), (6, 8, 10, 12)),
    (("gt-core", "gt-team-challenge"), (6, 8, 10, 12)),
    (GT_BOXES, (6, 8, 10, 12)),  # every box
]


@pytest.mark.parametrize(
    ("boxes", "sizes"), COMBINATIONS, ids=["+".join(c[0]) for c in COMBINATIONS]
)
def test_100_circuits_per_box_combination_close_and_validate_clean(
    boxes: tuple[str, ...], sizes: tuple[int, ...]
) -> None:
    seeds = random.Random("+".join(boxes)).sample(range(1, 10**6), len(sizes))
    tracks = 0
    for tiles, seed in zip(sizes, seeds, strict=True):
        request = Request(
            boxes=boxes,
            ruleset="gt",
            tiles=tiles,
            count=25,
            seed=seed,
            candidates=1,
            finalists=1,
            races=0,
        )
        generation = generate(request)
        assert generation.stats["dropped"] == 0
        for n, outcome in enumerate(generation.outcomes):
            report = outcome.report
            if n % 25 == 0:  # read back from its file, as a user meets it
                back = parse_stage(dump_stage(outcome.stage, "native-yaml"), file="t.yaml")
                assert back == outcome.stage
                report = validate(back)
            check_track(report, boxes, tiles, Kind.CIRCUIT)
            tracks += 1
        lines = {
            tuple((t.tile, t.turn, t.enter, t.road) for t in o.stage.tiles)
            for o in generation.outcomes
        }
        assert len(lines) == 25  # 25 different circuits (a mirrored one is another)
    assert tracks == 100


def test_point_to_point_tracks_start_and_finish_on_two_lines() -> None:
    boxes = ("gt-core", "gt-world-tour")
    request = Request(
        boxes=boxes,
        ruleset="gt",
        kind=Kind.POINT_TO_POINT,
        tiles=9,
        count=10,
        candidates=1,
        finalists=1,
        races=0,
        seed=3,
    )
    for outcome in generate(request).outcomes:
        check_track(outcome.report, boxes, 9, Kind.POINT_TO_POINT)
        assert outcome.stage.laps is None


def test_the_last_tile_leads_into_the_start_tiles_entry() -> None:
    request, pal = check_gt_request(Request(boxes=("gt-core",), ruleset="gt", tiles=10))
    goal = CircuitGoal.of(10, pal)
    road = build_road(pal, goal, gt_aim(request, pal), random.Random(5), Placer())
    start = LIB.get(road.ways[0].face.id)
    assert start is not None and start.layout is not None and start.layout.start_finish
    target, _rotation = goal.ends[road.ways[0].key]
    # the last tile lies on the hex the start's entry faces, and its exit faces the start
    assert road.hexes[-1] == target
    assert hexgrid.neighbour(road.hexes[-1], road.exits[-1]) == road.hexes[0]
    assert len(set(road.hexes)) == 10


def test_the_search_refuses_a_road_end_too_far_to_close() -> None:
    # with one tile left the road end must be the target itself
    request, pal = check_gt_request(Request(boxes=("gt-core",), ruleset="gt", tiles=8))
    goal = CircuitGoal.of(8, pal)
    road = build_road(pal, goal, gt_aim(request, pal), random.Random(2), Placer())
    target = goal.ends[road.ways[0].key][0]
    for k in range(1, 7):  # after tile k, 8 - k tiles are left: the end is within reach
        ahead = hexgrid.neighbour(road.hexes[k - 1], road.exits[k - 1])
        assert hexgrid.distance(ahead, target) <= 8 - k


def test_pieces_of_two_boxes_come_from_either_and_add_up() -> None:
    tour = gt_palette(("gt-world-tour",))
    both = gt_palette(("gt-championship", "gt-world-tour"))
    for number in (122, 124, 125):
        piece = ("gt-championship", number)
        assert any(w.piece == piece for w in tour.middles)
        assert tour.copies[piece] == 1 and both.copies[piece] == 2
    assert ("gt-championship", 121) not in tour.copies  # only Championship holds 121


def test_the_pit_stands_beside_the_road_with_access() -> None:
    request = Request(
        boxes=("gt-core",), ruleset="gt", tiles=12, pit=True, candidates=2, races=0, seed=4
    )
    outcome = generate(request).outcomes[0]
    pits = outcome.report.summary.gt.pit
    assert len(pits) == 1 and pits[0].access > 0
    assert outcome.stage.tiles[-1].tile == "101" and outcome.stage.tiles[-1].at is not None
    check_track(outcome.report, ("gt-core",), 12, Kind.CIRCUIT)


def test_players_and_laps_reach_the_file_and_the_grid() -> None:
    request = Request(boxes=("gt-core",), ruleset="gt", tiles=8, laps=5, players=6, races=0, seed=2)
    outcome = generate(request).outcomes[0]
    assert outcome.stage.laps == 5 and outcome.stage.ruleset == "gt"
    assert outcome.report.summary.gt.grid_slots >= 6


# --- refinement by GT races -----------------------------------------------------------------


def test_refinement_measures_what_validate_simulate_measures() -> None:
    request = Request(
        boxes=("gt-core",), ruleset="gt", tiles=8, laps=1, races=6, finalists=2, candidates=3
    )
    generation = generate(request)
    outcome = generation.outcomes[0]
    for f in outcome.finalists:
        sim = f.sim
        assert isinstance(sim, GtSimResult)
        # the same races as validate --simulate with that seed (and as many: 6, or 12
        # for the finalists nearest the band, raced again)
        assert sim.races in (6, 12)
        _found, extras = gt_playability(
            validate(f.candidate.stage, players=4), races=sim.races, seed=sim.seed, players=4
        )
        doc = extras.simulation
        assert sim.overtakes_per_lap == doc.gt.overtakes_per_lap
        assert sim.win_rate_by_slot == doc.gt.win_rate_by_grid_slot
        assert sim.loc_per_race == doc.losses_per_race
        assert sim.loc_rate == pytest.approx(sim.loc_per_race / 4 / 1 / 8 * 10)
        # measured parts replace the structure's guesses at them
        assert "grid" not in f.parts and f.parts["pole"] == f.sim_parts["pole"]
        assert f.parts["overtaking"] == f.sim_parts["overtaking"]
    assert outcome.chosen is min(outcome.finalists, key=lambda f: (f.total, f.candidate.number))


def _sim(per_lap: float, pole: float, lap_1: float) -> GtSimResult:
    slots = {"1": pole, "2": (1 - pole) / 3, "3": (1 - pole) / 3, "4": (1 - pole) / 3}
    return GtSimResult(20, 1, 4, 3, 0.13, 1.5, 1.0, per_lap, slots, lap_1, ())


def test_races_overturn_the_structures_choice_on_grid_fairness() -> None:
    """Two candidates: the first has the better structure (more overtaking chances on
    paper), but in the races pole wins 80 % and 90 % are decided on lap 1; the second's
    races are open. Refinement chooses the second."""
    request, pal = check_gt_request(Request(boxes=("gt-core",), ruleset="gt", tiles=8))
    stage = Stage(format="trackkit-stage/1", tiles=[])
    report = validate(stage)
    base = generate(Request(boxes=("gt-core",), ruleset="gt", tiles=8, races=0)).outcomes[0]
    structure = base.chosen.candidate.structure
    good = Candidate(1, 1, (), stage, structure, {"overtaking": 0.0, "grid": 0.0}, report)
    poor = Candidate(1, 2, (), stage, structure, {"overtaking": 1.0, "grid": 0.9}, report)
    band = gt_aim(request, pal).band.distance(0.13)
    closed = _sim(1.0, 0.8, 0.9)
    open_ = _sim(4.0, 0.25, 0.4)
    by_structure = min((good, poor), key=lambda c: c.total)
    raced = [
        Finalist(good, closed, gt_sim_score(closed, band)),
        Finalist(poor, open_, gt_sim_score(open_, band)),
    ]
    assert by_structure is good
    assert min(raced, key=lambda f: f.total).candidate is poor
    assert raced[0].parts["pole"] == pytest.approx(3.0 * (0.8 - 0.25) / 0.75, abs=1e-3)
    assert raced[1].parts["pole"] == 0.0 and raced[1].parts["lap_1"] == 0.0


def test_difficulty_levels_hold_up_in_races_with_fresh_seeds() -> None:
    """Easy and hard tracks, raced again with seeds the generator never drew, still lose
    control measurably less and more: the level holds out of sample."""
    fresh: dict[str, list[float]] = {}
    for level in (Difficulty.EASY, Difficulty.HARD):
        request = Request(
            boxes=("gt-core",),
            ruleset="gt",
            tiles=8,
            laps=2,
            difficulty=level,
            count=3,
            races=8,
            finalists=4,
            candidates=5,
            seed=5,
        )
        generation = generate(request)
        used = {f.sim.seed for o in generation.outcomes for f in o.finalists if f.sim}
        for n, outcome in enumerate(generation.outcomes):
            seed = 777 + n
            assert seed not in used
            again = race_gt_finalist((outcome.stage, 24, seed, 4))
            fresh.setdefault(level.value, []).append(again.loc_rate)
    easy, hard = statistics.mean(fresh["easy"]), statistics.mean(fresh["hard"])
    assert easy + 0.05 < hard, fresh
    assert easy < GT_BANDS["easy"][1] and hard > GT_BANDS["hard"][0], fresh


def test_the_finalists_nearest_the_band_are_raced_again_with_more_races() -> None:
    request = Request(
        boxes=("gt-core",), ruleset="gt", tiles=7, laps=1, races=3, finalists=3, candidates=4
    )
    outcome = generate(request).outcomes[0]
    races = sorted(f.sim.races for f in outcome.finalists if f.sim)
    assert races == [3, 6, 6]
    assert len({f.sim.seed for f in outcome.finalists if f.sim}) == 3


def test_race_gt_finalist_is_seeded() -> None:
    stage = generate(Request(boxes=("gt-core",), ruleset="gt", tiles=6, races=0)).outcomes[0]
    a = race_gt_finalist((stage.stage, 4, 11, 3))
    b = race_gt_finalist((stage.stage, 4, 11, 3))
    assert a == b and a.players == 3 and a.races == 4


# --- the command line -----------------------------------------------------------------------


def test_cli_writes_tracks_reports_maps_and_is_the_same_with_any_jobs(tmp_path: Path) -> None:
    args = (
        "--ruleset", "gt", "--boxes", "gt-core", "--laps", "1", "--tiles", "8", "--count", "2",
        "--candidates", "3", "--finalists", "2", "--races", "3", "--seed", "9",
    )  # fmt: skip
    one, two = tmp_path / "one", tmp_path / "two"
    code, out, err = cli(*args, "-o", str(one))
    assert code == 0, err
    assert "overtakes per lap" in out
    code, _out, err = cli(*args, "--jobs", "2", "-o", str(two))
    assert code == 0, err
    names = sorted(p.name for p in one.iterdir())
    assert names == sorted(p.name for p in two.iterdir())
    assert {"stage-01.yaml", "stage-01.md", "stage-01.svg", "index.md", "index.json"} <= set(names)
    for name in names:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    text = (one / "stage-01.md").read_text()
    assert "Win rate by grid slot" in text and "overtakes per lap" in text
    assert "--ruleset gt" in (one / "index.md").read_text()
    assert validate(parse_stage((one / "stage-02.yaml").read_text(), file="s")).valid


@pytest.mark.parametrize(
    ("args", "option", "hint"),
    [
        (["--boxes", "gt-core", "--surface", "asphalt=1"], "--surface", "DIRT option"),
        (["--boxes", "gt-core", "--kind", "rally"], "--kind", "point-to-point"),
        (["--boxes", "dirt-core"], "--boxes", "DIRT box"),
        (["--boxes", "gt-championship"], "--boxes", "gt-core (102)"),
        (["--boxes", "gt-core", "--kind", "point-to-point"], "--kind", "gt-world-tour"),
        (["--boxes", "gt-core", "--tiles", "4"], "--tiles", "--tiles 6+"),
        (["--boxes", "gt-core", "--tiles", "40"], "--tiles", "--tiles 31 or fewer"),
        (["--boxes", "gt-core", "--players", "7"], "--players", "--players 6 or fewer"),
        (["--boxes", "gt-core", "--crossings", "1"], "--crossings", "leave --crossings out"),
        (["--boxes", "gt-core", "--length-mm", "100"], "--length-mm", "in that range"),
        (
            [
                "--boxes",
                "gt-core",
                "--kind",
                "point-to-point",
                "--boxes",
                "gt-world-tour",
                "--laps",
                "2",
            ],
            "--laps",
            "raced once",
        ),
    ],
)
def test_cli_impossible_gt_requests_exit_2_naming_the_option(
    args: list[str], option: str, hint: str, tmp_path: Path
) -> None:
    code, _out, err = cli("--ruleset", "gt", *args, "-o", str(tmp_path / "x"))
    assert code == 2, err
    assert option in err and hint in err, err
    assert "Traceback" not in err and not (tmp_path / "x").exists()


def test_gt_options_without_ruleset_gt_exit_2(tmp_path: Path) -> None:
    for args in (["--laps", "3"], ["--pit"], ["--kind", "circuit"], ["--boxes", "gt-core"]):
        extra = [] if "--boxes" in args else ["--boxes", "dirt-core"]
        code, _out, err = cli(*extra, *args, "-o", str(tmp_path / "x"))
        assert code == 2 and "--ruleset gt" in err, (args, err)


def test_library_errors_name_the_option() -> None:
    with pytest.raises(GenerateError) as info:
        check_gt_request(Request(boxes=("gt-core",), ruleset="gt", tokens=(("cloud", 1),)))
    assert info.value.option == "--tokens"
    assert Request(boxes=("gt-core",), ruleset="gt").kind is Kind.CIRCUIT
    assert Request(boxes=("dirt-core",)).kind is Kind.RALLY


# --- the search's closing checks (issue 13 item 4 follow-ups) --------------------------------


def _unpruned_roads(
    boxes: tuple[str, ...], tiles: int, n: int, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[Road], Palette]:
    """Circuits found with the closing checks switched off (distance alone)."""
    request, pal = check_gt_request(Request(boxes=boxes, ruleset="gt", tiles=tiles))
    with monkeypatch.context() as m:
        m.setattr(CircuitGoal, "can_close", lambda *_a, **_k: True)
        goal = CircuitGoal.of(tiles, pal)
        goal.opens.clear()
        rng, placer = random.Random(tiles), Placer()
        roads = [build_road(pal, goal, gt_aim(request, pal), rng, placer) for _ in range(n)]
    return roads, pal


@pytest.mark.parametrize(
    ("boxes", "tiles"),
    [
        (("gt-world-tour",), 8),  # few pieces to spare: tried piece by piece
        (("gt-core", "gt-team-challenge"), 9),  # the bends and edges summed
        (("gt-core",), 7),
    ],
)
def test_the_closing_checks_accept_every_step_of_circuits_found_without_them(
    boxes: tuple[str, ...], tiles: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    roads, pal = _unpruned_roads(boxes, tiles, 6, monkeypatch)
    goal = CircuitGoal.of(tiles, pal)
    for road in roads:
        assert sum(w.bend for w in road.ways) in (6, -6)  # once round
        assert goal.opens[road.ways[0].key]
        prefix = Road()
        placer = Placer()
        for k, way in enumerate(road.ways[:-1]):
            step = (
                placer.first(way)
                if k == 0
                else placer.after(prefix.ways[-1], prefix.rotations[-1], way)
            )
            assert step is not None
            if k:
                ahead = hexgrid.neighbour(road.hexes[k], step.exit)
                left = tiles - k - 1
                assert goal.can_close(prefix, pal, way, ahead, step.exit, left), (road.signature, k)
            prefix.push(way, road.hexes[k], step)


def test_the_closing_checks_refuse_a_road_that_cannot_turn_back() -> None:
    # gt-core, 8 tiles: the start and five straights leave two tiles that cannot turn
    # the road round (the bends must add up to 6 or -6)
    _request, pal = check_gt_request(Request(boxes=("gt-core",), ruleset="gt", tiles=8))
    goal = CircuitGoal.of(8, pal)
    placer = Placer()
    straight = [w for w in pal.middles if w.bend == 0 and w.face.lanes.get(0) == 3]
    start = next(w for w in pal.starts if w.face.id == "102a")
    road = Road()
    step = placer.first(start)
    assert step is not None
    road.push(start, step.offset, step)
    for k in range(5):
        way = straight[k % len(straight)]
        found = placer.after(road.ways[-1], road.rotations[-1], way)
        assert found is not None
        q, r = road.hexes[-1]
        at = (q + found.offset[0], r + found.offset[1])
        ahead = hexgrid.neighbour(at, found.exit)
        ok = goal.can_close(road, pal, way, ahead, found.exit, 8 - len(road.ways) - 1)
        if k == 0:
            assert ok  # one straight after the start: plenty of ways round
        road.push(way, at, found)
    assert not ok  # two tiles cannot turn 360 degrees


def test_placement_answers_shared_by_the_edge_left_by_are_lay_outs_own() -> None:
    pal = gt_palette(GT_BOXES)
    ways = [*pal.starts, *pal.middles]
    rng = random.Random(7)
    shared, direct = Placer(), Placer()
    for _ in range(300):
        a, b = rng.choice(ways), rng.choice(ways)
        rotation = rng.randrange(6)
        before = a.probe().model_copy(update={"at": (0, 0), "dir": rotation})
        assert shared.after(a, rotation, b) == direct._lay([before, b.tile()]), (a.key, b.key)


def test_team_challenge_alone_fails_at_once_saying_what_it_holds(tmp_path: Path) -> None:
    code, _out, err = cli(
        "--ruleset", "gt", "--boxes", "gt-team-challenge", "-o", str(tmp_path / "x")
    )
    # no size closes: the boxes are at fault, not --tiles (which was not given, issue 19),
    # and the boxes that would close it are worked out
    assert code == 2 and "trackkit: error: --boxes:" in err, err
    assert "add one of gt-core, gt-championship, gt-world-tour" in err, err
    # per road width, the pieces and bends held: 4 lanes 10 pieces, 4 of them bends
    assert "4 lanes wide (start/finish 139a): 10 pieces, 4 of them bends" in err, err
    assert not (tmp_path / "x").exists()
    goal = CircuitGoal.of(
        7, check_gt_request(Request(boxes=("gt-team-challenge",), ruleset="gt", tiles=7))[1]
    )
    assert not any(goal.opens.values())


def test_point_to_point_figures_are_per_race(tmp_path: Path) -> None:
    """A point-to-point track has no laps: overtakes per race in the output line, the
    reports and the index; losses of control per tile driven once."""
    code, out, err = cli(
        "--ruleset", "gt", "--boxes", "gt-core", "--boxes", "gt-world-tour",
        "--kind", "point-to-point", "--tiles", "7", "--candidates", "1", "--finalists", "1",
        "--races", "2", "--map", "none", "--seed", "4", "-o", str(tmp_path),
    )  # fmt: skip
    assert code == 0, err
    assert "overtakes per race" in out and "per lap" not in out, out
    report = (tmp_path / "stage-01.md").read_text()
    index = (tmp_path / "index.md").read_text()
    # P607's own words (the simulator's) aside, no lap figures
    ours = [line for line in report.splitlines() if "P607" not in line]
    assert not any("per lap" in line or "lap 1" in line for line in ours), report
    assert "overtakes per race" in report and "overtakes per race" in index
    assert "per lap" not in index and "lap 1" not in index
    doc = json.loads((tmp_path / "index.json").read_text())
    sim = doc["stages"][0]["simulation"]
    assert "overtakes_per_lap" not in sim and "decided_on_lap_1" not in sim
    raced = race_gt_finalist(
        (parse_stage((tmp_path / "stage-01.yaml").read_text(), file="s"), 2, sim["seed"], 4)
    )
    assert sim["overtakes_per_race"] == pytest.approx(
        raced.overtakes_per_lap * raced.laps, abs=1e-3
    )
    assert raced.point_to_point and raced.loc_rate == pytest.approx(raced.loc_per_race / 4 / 7 * 10)
    assert "lap_1" not in gt_sim_score(raced, 0.0)


@pytest.mark.parametrize(
    ("boxes", "length"), [(("gt-core",), 2500), (("gt-core", "gt-world-tour"), 4000)]
)
def test_length_mm_sets_the_tiles_and_the_lap_lands_within_a_tile(
    boxes: tuple[str, ...], length: int
) -> None:
    pal = gt_palette(boxes)
    lengths = sorted(w.length_mm for w in (*pal.middles, *pal.starts))
    tile = lengths[len(lengths) // 2]  # the median tile's road
    request = Request(
        boxes=boxes, ruleset="gt", length_mm=length, count=3, candidates=12, races=0, seed=2
    )
    generation = generate(request)
    for outcome in generation.outcomes:
        s = outcome.chosen.candidate.structure
        assert s.tiles == round(length / tile)
        assert abs(outcome.report.summary.gt.lap_length_mm - length) <= tile, s.length_mm
        check_track(outcome.report, boxes, s.tiles, Kind.CIRCUIT)
    assert generation.outcomes[0].chosen.candidate.score["length"] < 4 * tile / length
