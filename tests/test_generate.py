"""``trackkit generate`` (issue 13): stages from the boxes a player owns, valid by
construction, scored by structure, refined by simulation, written with a report and map.
"""

from __future__ import annotations

import json
import os
import random
import statistics
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from trackkit.checks.pipeline import Report, validate
from trackkit.cli.app import app
from trackkit.formats import load_stage, parse_stage
from trackkit.formats.write import dump_stage
from trackkit.generator import Difficulty, GenerateError, Request, generate
from trackkit.generator import run as run_module
from trackkit.generator.decorate import oxygen_values
from trackkit.generator.request import parse_surface_mix, parse_tokens
from trackkit.generator.score import Aim, Band, difficulty, difficulty_range
from trackkit.generator.search import ChainGoal, Placer, SearchFailed, build_road
from trackkit.generator.series import check_request
from trackkit.models.stage import Kind, Stage, TileToken
from trackkit.road import hexgrid
from trackkit.sim.simulate import simulate_files
from trackkit.stage.assemble import lay_out
from trackkit.tiles.library import default_library

runner = CliRunner()
LIB = default_library()


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["generate", *args])
    return result.exit_code, result.stdout, result.stderr


def owned(boxes: tuple[str, ...]) -> Counter[tuple[str, int]]:
    """Pieces the boxes hold: copies per box times the times it is named."""
    named = Counter(boxes)
    return Counter(
        {(f.box, f.number): f.copies * named[f.box] for b in named for f in LIB.in_box(b)}
    )


def check_stage(stage: Stage, boxes: tuple[str, ...], tiles: int, kind: Kind) -> Report:
    """The stage read back from its file validates clean, from owned pieces, ``tiles`` long."""
    back = parse_stage(dump_stage(stage, "native-yaml"), file="generated.yaml")
    report = validate(back)
    bad = [(f.code, f.message) for f in report.findings if f.severity.value != "info"]
    assert bad == [], bad
    assert report.kind is kind and back.boxes == list(boxes)
    assert report.summary.tiles == tiles
    used = Counter((t.face.box, t.face.number) for t in report.layout.tiles if t.face)
    have = owned(boxes)
    assert all(n <= have[piece] for piece, n in used.items()), used
    if kind is Kind.HILLCLIMB:
        # rule: HILLCLIMB-1 (a climb tile), driven uphill
        assert report.summary.dirt.climb.up >= 1 and report.summary.dirt.climb.down == 0
    return report


# --- 100 stages per box combination, without simulation ----------------------------------

#: Box combinations, kind, tile counts (four requests of 25 stages each), tokens, fillers.
COMBINATIONS: list[tuple[tuple[str, ...], Kind, tuple[int, ...], tuple[Any, ...], int]] = [
    (("dirt-core",), Kind.RALLY, (3, 9, 14, 31), (), 0),
    (("dirt-monte-carlo",), Kind.RALLY, (5, 12, 17, 24), (), 0),
    (("dirt-core", "dirt-monte-carlo"), Kind.RALLY, (7, 12, 20, 36), (), 0),
    (("dirt-core", "dirt-core"), Kind.RALLY, (12, 18, 26, 40), (), 0),
    (("dirt-core", "dirt-climb"), Kind.HILLCLIMB, (3, 10, 16, 24), (), 0),
    (
        ("dirt-monte-carlo", "dirt-climb"),
        Kind.HILLCLIMB,
        (6, 12, 20, 28),
        (("cloud", 1), ("oxygen", 2)),
        0,
    ),
    (
        ("dirt-core", "dirt-monte-carlo", "dirt-climb", "dirt-copilot"),
        Kind.HILLCLIMB,
        (8, 12, 18, 30),
        (("climb", 2), ("cloud", 2), ("oxygen", 3)),
        4,
    ),
]


@pytest.mark.parametrize(
    ("boxes", "kind", "sizes", "tokens", "fillers"),
    COMBINATIONS,
    ids=["+".join(c[0]) + f"-{c[1].value}" for c in COMBINATIONS],
)
def test_100_stages_per_box_combination_validate_clean_from_owned_pieces(
    boxes: tuple[str, ...],
    kind: Kind,
    sizes: tuple[int, ...],
    tokens: tuple[Any, ...],
    fillers: int,
) -> None:
    seeds = random.Random("+".join(boxes)).sample(range(1, 10**6), len(sizes))
    stages = 0
    for tiles, seed in zip(sizes, seeds, strict=True):
        least = max(0, *(n for _, n in tokens)) + 2 if tokens else 0
        request = Request(
            boxes=boxes,
            tiles=tiles,
            kind=kind,
            tokens=tokens if tiles >= least + 2 else (),
            fillers=fillers,
            count=25,
            seed=seed,
            candidates=1,
            finalists=1,
            races=0,
        )
        generation = generate(request)
        assert generation.stats["dropped"] == 0
        for outcome in generation.outcomes:
            report = check_stage(outcome.stage, boxes, tiles, kind)
            assert report.summary.tiles_beside_road == fillers
            asked = dict(request.tokens)
            laid = {t.token: t.count for t in report.summary.tokens}
            assert laid == asked
            stages += 1
        # no two stages of a run are the same road
        assert len({tuple(t.tile for t in o.stage.tiles) for o in generation.outcomes}) == 25
    assert stages == 100


def test_more_stages_than_the_boxes_make_is_an_error_naming_count() -> None:
    # two start faces and two finish faces make four stages of two tiles
    generation = generate(Request(boxes=("dirt-core",), tiles=2, count=4, races=0))
    assert len({tuple(t.tile for t in o.stage.tiles) for o in generation.outcomes}) == 4
    with pytest.raises(GenerateError) as err:
        generate(Request(boxes=("dirt-core",), tiles=2, count=5, races=0))
    assert err.value.option == "--count" and "--count 4" in err.value.message


def test_every_piece_of_the_core_box_in_one_stage_needs_backtracking() -> None:
    # 31 tiles: the start, the finish and each of the 29 other pieces exactly once
    generation = generate(Request(boxes=("dirt-core",), tiles=31, count=2, races=0))
    for outcome in generation.outcomes:
        report = check_stage(outcome.stage, ("dirt-core",), 31, Kind.RALLY)
        assert sorted(int(p) for p in report.summary.pieces) == list(range(202, 233))


def test_the_search_places_tiles_where_the_stage_file_lays_them() -> None:
    request, pal = check_request(Request(boxes=("dirt-core", "dirt-monte-carlo"), tiles=20))
    rng, placer = random.Random(5), Placer()
    for _ in range(10):
        road = build_road(pal, ChainGoal(tiles=20), Aim.of(request, pal), rng, placer)
        stage = Stage(format="trackkit-stage/1", tiles=[w.tile() for w in road.ways])
        layout = lay_out(stage)
        assert [t.hex for t in layout.chain] == road.hexes
        assert [t.exit_world for t in layout.chain] == road.exits
        assert len(set(road.hexes)) == 20 and layout.findings == []


def test_a_search_that_finds_nothing_is_an_error_naming_the_size(monkeypatch: Any) -> None:
    def nothing(*args: Any, **kwargs: Any) -> None:
        raise SearchFailed("no road found")

    monkeypatch.setattr(run_module, "build_road", nothing)
    with pytest.raises(GenerateError) as err:
        generate(Request(boxes=("dirt-core",), tiles=30))
    assert err.value.option == "--tiles" and "30 tiles" in err.value.message


# --- what is asked for ---------------------------------------------------------------------


def test_length_mm_is_met_within_a_tile() -> None:
    for target in (1500.0, 4000.0, 7000.0):
        generation = generate(
            Request(boxes=("dirt-core",), length_mm=target, count=3, candidates=6, races=0)
        )
        for outcome in generation.outcomes:
            length = outcome.report.summary.length_mm
            assert abs(length - target) < 240, (target, length)
            assert outcome.report.valid


def test_surface_mix_is_met() -> None:
    request = Request(
        boxes=("dirt-core", "dirt-monte-carlo"),
        tiles=12,
        surfaces=parse_surface_mix("gravel=0.5,snow=0.25"),
        count=4,
        candidates=12,
        races=0,
        seed=8,
    )
    for outcome in generate(request).outcomes:
        laid = outcome.report.summary.surfaces
        assert abs(laid.get("gravel", 0) - 6) <= 1 and abs(laid.get("snow", 0) - 3) <= 1, laid


def test_par_alone_picks_the_tile_count() -> None:
    assert check_request(Request(boxes=("dirt-core",), par=480))[0].tiles == 20
    assert check_request(Request(boxes=("dirt-core",), par=5000))[0].tiles == 31


def test_hillclimb_tokens_lie_where_they_belong() -> None:
    request = Request(
        boxes=("dirt-core", "dirt-climb"),
        tiles=14,
        kind=Kind.HILLCLIMB,
        tokens=parse_tokens("oxygen=3,cloud=2,climb=2"),
        count=5,
        races=0,
        candidates=2,
    )
    assert oxygen_values(3) == [1, 2, 3]
    for outcome in generate(request).outcomes:
        tiles = outcome.stage.tiles
        assert not tiles[0].tokens and not tiles[-1].tokens  # start and finish stay bare
        oxygen = [
            (i, t.value) for i, s in enumerate(tiles) for t in s.tokens if t.token == "oxygen"
        ]
        # rule: CLIMB-7 (thin air at the top: the last tiles, values rising to 3)
        assert oxygen == [(10, 1), (11, 2), (12, 3)]
        clouds = [i for i, s in enumerate(tiles) for t in s.tokens if t.token == "cloud"]
        assert len(clouds) == 2 and min(clouds) >= 1 + 12 // 2
        for s in tiles:
            face = LIB.get(s.tile)
            assert face is not None and face.road is not None
            if any(t.token == "climb" for t in s.tokens):
                assert face.road.climb is None  # rule: CLIMB-6 (not on a climb tile)
                assert [t.value for t in s.tokens if t.token == "climb"] == [-1]


def test_fillers_stand_in_the_pockets_beside_the_road() -> None:
    request = Request(
        boxes=("dirt-core", "dirt-copilot", "dirt-copilot"), tiles=12, fillers=6, count=3
    )
    generation = generate(replace(request, races=0))
    for outcome in generation.outcomes:
        layout = outcome.report.layout
        road = {t.hex for t in layout.chain}
        finish = layout.chain[-1]
        assert finish.exit_world is not None
        beyond = hexgrid.neighbour(finish.hex, finish.exit_world)
        assert len(layout.scenery) == 6
        for filler in layout.scenery:
            assert filler.face is not None and filler.face.kind.value == "scenery"
            near = [hexgrid.neighbour(filler.hex, d) for d in range(6)]
            assert any(n in road for n in near) and filler.hex != beyond
        assert Counter(t.face.number for t in layout.scenery if t.face).most_common(1)[0][1] <= 2


# --- the difficulty measure and levels --------------------------------------------------------


def test_difficulty_bands_split_the_boxes_range_in_thirds() -> None:
    bands = []
    for level in Difficulty:
        request, pal = check_request(
            Request(boxes=("dirt-core", "dirt-monte-carlo"), tiles=12, difficulty=level)
        )
        bands.append(Aim.of(request, pal).band)
        low, high = difficulty_range(pal, 12, request)
    assert bands[0].low == pytest.approx(low) and bands[2].high == pytest.approx(high)
    assert bands[0].high == pytest.approx(bands[1].low) and bands[1].high == pytest.approx(
        bands[2].low
    )
    assert Band("x", 1.0, 2.0).distance(1.5) == 0.0 and Band("x", 1.0, 2.0).distance(2.5) == 2.0


def test_the_measure_counts_snow_jumps_and_clouds() -> None:
    _, pal = check_request(Request(boxes=("dirt-monte-carlo", "dirt-climb"), kind=Kind.HILLCLIMB))
    by_id = {w.face.id: w for w in pal.middles}
    straight = [by_id["303a"], by_id["303a"]]
    assert difficulty([by_id["303b"], by_id["303b"]], {}) > difficulty(straight, {})
    assert difficulty([by_id["306a"]], {}) > difficulty([by_id["303a"]], {})  # a jump
    cloudy = {0: [TileToken(token="cloud")]}
    assert difficulty(straight, cloudy) > difficulty(straight, {})


def test_difficulty_levels_give_different_simulated_losses_of_control() -> None:
    rates: dict[str, list[float]] = {}
    for level in Difficulty:
        request = Request(
            boxes=("dirt-core", "dirt-monte-carlo"),
            tiles=10,
            difficulty=level,
            count=3,
            candidates=12,
            races=0,
            seed=21,
        )
        for outcome in generate(request).outcomes:
            doc, _ = simulate_files(
                [outcome.stage],
                ["s"],
                players=3,
                races=30,
                seed=4,
                cars=("dirt",),
                bots=("cautious", "aggressive", "planner"),
            )
            per_driver_10_tiles = doc.loss_of_control.per_race / 3 / 10 * 10
            rates.setdefault(level.value, []).append(per_driver_10_tiles)
    easy, medium, hard = (statistics.mean(rates[k]) for k in ("easy", "medium", "hard"))
    assert easy < medium < hard, rates
    assert max(rates["easy"]) < min(rates["hard"]) and hard > 1.5 * easy, rates


# --- refinement by simulation --------------------------------------------------------------


def test_finalists_are_raced_and_the_lowest_total_wins() -> None:
    events: list[tuple[str, int, int]] = []
    request = Request(
        boxes=("dirt-core",), tiles=5, count=2, candidates=4, finalists=2, races=4, par=100
    )
    generation = generate(request, progress=lambda *e: events.append(e))
    assert events[-1] == ("racing", 4, 4) and ("building", 8, 8) in events
    for outcome in generation.outcomes:
        assert len(outcome.finalists) == 2
        # the lowest total of those that fit what was asked for, else of all (issue 19)
        fits = [f for f in outcome.finalists if fit_of_finalist(generation, f).fits]
        totals = [f.total for f in fits or outcome.finalists]
        assert outcome.chosen.total == min(totals)
        sim = outcome.chosen.sim
        assert sim is not None and sim.races == 4 and sim.careful_time is not None
        assert sim.par_time is not None and sim.par_time <= sim.careful_time
        parts = outcome.chosen.parts
        assert {"par", "playability", "finish", "spread", "difficulty"} <= set(parts)
        assert parts["par"] == pytest.approx(3 * abs(sim.careful_time - 100) / 100, abs=1e-3)
        assert set(sim.times) == {"cautious", "aggressive", "planner"}
        assert not any(code == "P604" for code, _, _ in sim.findings)


def fit_of_finalist(generation: Any, finalist: Any) -> Any:
    from trackkit.generator.fit import fit_of

    band = generation.aim.band
    return fit_of(generation.request, band, finalist.candidate.structure.difficulty, finalist.sim)


# --- the command ---------------------------------------------------------------------------


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


SMALL = ["--tiles", "5", "--count", "2", "--candidates", "3", "--finalists", "2"]
SMALL += ["--races", "3", "--seed", "3"]


def test_cli_writes_stages_reports_maps_and_an_index(tmp_path: Path) -> None:
    out = tmp_path / "tonight"
    code, stdout, stderr = cli("--boxes", "dirt-core", *SMALL, "--map", "both", "-o", str(out))
    assert code == 0, stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "index.json",
        "index.md",
        *(f"stage-0{i}.{s}" for i in (1, 2) for s in ("md", "png", "svg", "yaml")),
    ]
    assert files_of(out)["stage-01.png"][:8] == b"\x89PNG\r\n\x1a\n"
    assert (
        files_of(out)["stage-01.svg"].startswith(b"<?xml")
        or b"<svg" in files_of(out)["stage-01.svg"][:400]
    )
    index = json.loads((out / "index.json").read_text())
    assert index["format"] == "trackkit-generate/1" and len(index["stages"]) == 2
    assert index["command"].startswith("trackkit generate --boxes dirt-core --tiles 5")
    for entry in index["stages"]:
        stage = load_stage(out / entry["files"]["stage"])
        check_stage(stage, ("dirt-core",), 5, Kind.RALLY)
        report = (out / entry["files"]["report"]).read_text()
        assert "| tiles |" not in report and "| size | 5 tiles | 5 tiles" in report
        assert "(chosen)" in report and "## Summary" in report and "stage-0" in report
        assert f"![the map of {stage.name}]({entry['files']['maps'][0]})" in report
    assert "[stage-02.yaml](stage-02.yaml)" in (out / "index.md").read_text()
    assert "wrote" in stdout and "Traceback" not in stderr


def test_cli_is_reproducible_byte_for_byte_with_any_jobs(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    base = ["--boxes", "dirt-core", "--boxes", "dirt-monte-carlo", *SMALL]
    assert cli(*base, "-o", str(a))[0] == 0
    assert cli(*base, "--jobs", "2", "-o", str(b))[0] == 0
    assert files_of(a) == files_of(b)
    other = tmp_path / "c"
    assert cli(*base[:-1], "4", "-o", str(other))[0] == 0  # another seed, other stages
    assert files_of(other)["stage-01.yaml"] != files_of(a)["stage-01.yaml"]


def test_cli_rekee_hillclimb_reads_back_as_a_hillclimb(tmp_path: Path) -> None:
    code, _, err = cli(
        "--boxes", "dirt-core", "--boxes", "dirt-climb", "--kind", "hillclimb",
        "--tiles", "6", "--races", "0", "--format", "rekee", "--map", "none",
        "-o", str(tmp_path),
    )  # fmt: skip
    assert code == 0, err
    stage = load_stage(tmp_path / "stage-01.rekee.json")
    report = validate(stage)
    assert report.valid and report.kind is Kind.HILLCLIMB and len(report.layout.chain) == 6
    assert "not raced: --races 0" in (tmp_path / "stage-01.md").read_text()


@pytest.mark.parametrize(
    ("args", "option", "hint"),
    [
        (["--boxes", "dirt-cor"], "--boxes", "did you mean dirt-core"),
        (["--boxes", "gt-core"], "--boxes", "Rallyman: GT box"),
        (["--boxes", "dirt-climb"], "--boxes", "add dirt-core or dirt-monte-carlo"),
        (["--boxes", "dirt-core", "--tiles", "32"], "--tiles", "--tiles 31 or fewer"),
        (
            ["--boxes", "dirt-core", "--boxes", "dirt-climb", "--tiles", "40"],
            "--tiles",
            "4 climb pieces, kept for hillclimbs",
        ),
        (["--boxes", "dirt-core", "--kind", "hillclimb"], "--kind", "--boxes dirt-climb"),
        (["--boxes", "dirt-core", "--surface", "asphalt=0.3"], "--surface", "dirt-monte-carlo"),
        (["--boxes", "dirt-core", "--surface", "mud=0.3"], "--surface", "gravel, asphalt, snow"),
        (["--boxes", "dirt-core", "--surface", "gravel=1.5"], "--surface", "from 0 to 1"),
        (
            [
                "--boxes",
                "dirt-core",
                "--boxes",
                "dirt-monte-carlo",
                "--surface",
                "gravel=0.7,snow=0.5",
            ],
            "--surface",
            "more than 1",
        ),
        (
            [
                "--boxes",
                "dirt-core",
                "--boxes",
                "dirt-monte-carlo",
                "--tiles",
                "40",
                "--surface",
                "snow=0.8",
            ],
            "--surface",
            "hold 24 pieces with a snow face: ask for snow=0.60 or less",
        ),
        (["--boxes", "dirt-core", "--tokens", "oxygen=2"], "--tokens", "--boxes dirt-climb"),
        (["--boxes", "dirt-core", "--tokens", "banana"], "--tokens", "climb, oxygen, cloud"),
        (["--boxes", "dirt-core", "--fillers", "2"], "--fillers", "dirt-copilot"),
        (
            ["--boxes", "dirt-core", "--boxes", "dirt-copilot", "--fillers", "5"],
            "--fillers",
            "--fillers 4 or fewer",
        ),
        (["--boxes", "dirt-core", "--tiles", "9", "--length-mm", "900"], "--length-mm", "not both"),
        (["--boxes", "dirt-core", "--length-mm", "100000"], "--length-mm", "in that range"),
        (
            [
                "--boxes",
                "dirt-core",
                "--boxes",
                "dirt-climb",
                "--kind",
                "hillclimb",
                "--tiles",
                "4",
                "--tokens",
                "climb=2",
            ],
            "--tokens",
            "climb=",
        ),
    ],
)
def test_cli_impossible_requests_exit_2_naming_the_option(
    tmp_path: Path, args: list[str], option: str, hint: str
) -> None:
    out = tmp_path / "out"
    code, stdout, stderr = cli(*args, "-o", str(out))
    assert code == 2, stdout + stderr
    assert f"trackkit: error: {option}:" in stderr and hint in stderr, stderr
    assert "Traceback" not in stdout + stderr and not out.exists()


def test_cli_output_rules_read_only_stale_and_not_a_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["--boxes", "dirt-core", "--tiles", "4", "--races", "0", "--candidates", "2"]
    assert cli(*args, "--count", "3", "-o", str(out))[0] == 0
    (out / "notes.txt").write_text("mine")
    first = files_of(out)
    os.chmod(out / "stage-01.yaml", 0o444)
    code, _, err = cli(*args, "--count", "3", "--seed", "9", "-o", str(out))
    assert code == 2 and "stage-01.yaml" in err and "--force" in err
    assert files_of(out) == first  # nothing written
    code, stdout, _ = cli(*args, "--count", "1", "--seed", "9", "--force", "-o", str(out))
    assert code == 0
    assert sorted(files_of(out)) == [
        "index.json", "index.md", "notes.txt", "stage-01.md", "stage-01.svg", "stage-01.yaml"
    ]  # fmt: skip
    assert files_of(out)["stage-01.yaml"] != first["stage-01.yaml"]
    assert (out / "stage-01.yaml").stat().st_mode & 0o777 == 0o444  # keeps its mode
    assert "removed" in stdout and "stage-03.md" in stdout
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = cli(*args, "-o", str(blocker))
    assert code == 2 and "not a folder" in err


def test_cli_does_not_follow_a_link_among_its_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    target = tmp_path / "elsewhere.yaml"
    target.write_text("keep")
    (out / "stage-01.yaml").symlink_to(target)
    code, _, err = cli("--boxes", "dirt-core", "--tiles", "4", "--races", "0", "-o", str(out))
    assert code == 2 and "symbolic link" in err and target.read_text() == "keep"


def test_request_words_errors() -> None:
    with pytest.raises(GenerateError, match="named twice"):
        parse_surface_mix("gravel=0.5,gravel=0.2")
    with pytest.raises(GenerateError, match="not 1"):
        parse_surface_mix("gravel=0.2,asphalt=0.2,snow=0.2")
    with pytest.raises(GenerateError, match="whole number"):
        parse_tokens("oxygen=zero")
    assert parse_surface_mix("snow=1") == (("snow", 1.0),)


def test_the_generator_sits_below_render_and_the_command_line() -> None:
    # DESIGN.md layers: generate may use sim and what is below it, never render or the CLI
    import ast

    package = Path(__file__).resolve().parents[1] / "trackkit" / "generate"
    above = ("trackkit.render", "trackkit.cli.commands", "trackkit.cli.app", "typer", "svgwrite")
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [
            alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
            for alias in node.names
        ]  # fmt: skip
        names += [
            node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        ]  # fmt: skip
        assert not [n for n in names if n.startswith(above)], path.name


def test_check_request_takes_the_check_of_the_requests_series() -> None:
    # one interface over the two series' request checks (issue 20): the GT check settles
    # the players and refuses DIRT options; the DIRT check refuses GT options and boxes
    from trackkit.generator.gt_pieces import check_gt_request
    from trackkit.generator.pieces import check_dirt_request

    dirt = Request(boxes=("dirt-core",), tiles=9)
    gt = Request(boxes=("gt-core",), ruleset="gt", tiles=10)
    assert check_request(dirt)[0] == check_dirt_request(dirt)[0]
    assert check_request(gt)[0] == check_gt_request(gt)[0]
    assert check_request(gt)[0].players == 4 and check_request(dirt)[0].players is None
    for request, option in (
        (Request(boxes=("dirt-core",), pit=True), "--pit"),
        (Request(boxes=("gt-core",)), "--boxes"),
        (Request(boxes=("dirt-core",), ruleset="gt"), "--boxes"),
        (Request(boxes=("gt-core",), ruleset="gt", fillers=1), "--fillers"),
        (Request(boxes=("dirt-core",), ruleset="gt2"), "--ruleset"),
    ):
        with pytest.raises(GenerateError) as info:
            check_request(request)
        assert info.value.option == option, request


def test_a_report_is_clean_only_without_errors_and_warnings() -> None:
    # generate keeps a candidate only when its report is clean
    from trackkit.checks.catalogue import finding
    from trackkit.models.findings import Location

    report = validate(
        Stage(format="trackkit-stage/1", tiles=[{"tile": t} for t in ("202a", "205a", "203a")])
    )
    assert report.clean and report.valid
    report.add([finding("S140", "a note", Location(tile_index=2))])
    assert report.clean  # a note is neither
    report.add([finding("S116", "a warning", Location(tile_index=2))])
    assert report.warnings == 1 and report.valid and not report.clean
