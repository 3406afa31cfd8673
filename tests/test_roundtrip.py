"""What trackkit writes, it reads back: stages through every format, seeds through replays.

The ranges are the same on both sides: a native tile's ``at`` and the editor files'
coordinates cover the map (:data:`~trackkit.formats.walk.MAP_RANGE` hexes from ``[0, 0]``),
and every ``--seed`` ``simulate`` accepts gives a replay file ``replay`` accepts. Where a
format cannot hold a stage (a chain that runs off the map), the writer refuses it with a
message instead of writing a file that would not read back.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stagekit import make_stage
from typer.testing import CliRunner

from trackkit.cli.app import app
from trackkit.cli.commands.common import MAX_SEED as CLI_MAX_SEED
from trackkit.errors import InputError
from trackkit.formats import StageFormat, parse_stage
from trackkit.formats.walk import MAP_RANGE
from trackkit.formats.write import dump_stage
from trackkit.models.stage import Stage
from trackkit.sim.replay import MAX_RACE_SEED, MAX_SEED
from trackkit.stage.assemble import lay_out
from trackkit.tiles.library import default_library

LIB = default_library()
ROAD = sorted(f.id for f in LIB if f.road is not None and f.road.start_finish is None)
STARTS = sorted(
    f.id for f in LIB if f.road and f.road.start_finish and f.road.start_finish.kind == "start"
)
SCENERY = sorted(f.id for f in LIB if f.road is None)
FORMATS: tuple[StageFormat, ...] = get_args(StageFormat)
SUFFIX = {"native-yaml": "yaml", "native-json": "json", "rekee": "rekee.json", "rgt": "rgt"}
TOKENS = [
    {"token": "oxygen", "value": 2},
    {"token": "cloud"},
    {"token": "mud", "value": -1},
    {"token": "climb", "value": -1},
]
runner = CliRunner()

#: Coordinates anywhere on the map, with its edges and centre drawn often.
coordinate = st.one_of(
    st.integers(-MAP_RANGE, MAP_RANGE),
    st.sampled_from([-MAP_RANGE, -MAP_RANGE + 1, -49_947, 0, 49_947, MAP_RANGE - 3, MAP_RANGE]),
)


@st.composite
def stages(draw: st.DrawFn) -> Stage:
    """A stage of library faces: a chain (maybe placed far out) and scenery anywhere."""
    first: dict[str, Any] = {"tile": draw(st.sampled_from([*STARTS, *ROAD]))}
    if draw(st.booleans()):
        first |= {"at": [draw(coordinate), draw(coordinate)], "dir": draw(st.integers(0, 5))}
    chain = [first]
    for _ in range(draw(st.integers(0, 5))):
        spec: dict[str, Any] = {"tile": draw(st.sampled_from(ROAD))}
        how = draw(st.sampled_from(["none", "turn", "enter"]))
        if how == "turn":
            spec["turn"] = draw(st.sampled_from(["left", "right"]))
        elif how == "enter":
            spec["enter"] = draw(st.integers(0, 5))
        if draw(st.integers(0, 3)) == 0:
            spec["tokens"] = [draw(st.sampled_from(TOKENS))]
        chain.append(spec)
    beside = [
        {
            "tile": draw(st.sampled_from(SCENERY)),
            "at": [draw(coordinate), draw(coordinate)],
            "dir": draw(st.integers(0, 5)),
        }
        for _ in range(draw(st.integers(0, 2)))
    ]
    return make_stage(*chain, *beside, name=draw(st.text(max_size=20)))


def placed(stage: Stage) -> tuple[Counter[tuple[str, tuple[int, int], int]], bool]:
    """Every tile as laid out (face, hex relative to the map's least hex, rotation), and
    whether every hex is on the map. (Relative to a corner of the map, not to the first
    tile: an editor file is read in the order its road is driven, which may start
    elsewhere, and ``.rgt`` moves the whole map.)"""
    layout = lay_out(stage)
    q0, r0 = min(t.hex for t in layout.tiles)
    tiles = Counter((t.face_id, (t.hex[0] - q0, t.hex[1] - r0), t.rotation) for t in layout.tiles)
    on_map = all(max(abs(t.hex[0]), abs(t.hex[1])) <= MAP_RANGE for t in layout.tiles)
    return tiles, on_map


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stage=stages())
def test_every_stage_reads_back_from_every_format_or_is_refused_at_writing(stage: Stage) -> None:
    want, on_map = placed(stage)
    for fmt in FORMATS:
        try:
            text = dump_stage(stage, fmt)
        except InputError as exc:
            assert fmt in ("rekee", "rgt") and not on_map, exc  # a chain off the map only
            assert "beyond the map" in exc.message
            continue
        again = parse_stage(text, file=f"stage.{SUFFIX[fmt]}")  # never an InputError
        if fmt.startswith("native"):
            assert again == stage
        else:
            assert placed(again)[0] == want, fmt


def test_a_tile_placed_far_out_converts_to_rgt_and_back() -> None:
    # the issue's case: .rgt offsets used to stop at 50,000, before the map's edge
    stage = make_stage("202a", "203a", {"tile": "902a", "at": [-49947, 0], "dir": 0})
    for fmt in ("rgt", "rekee"):
        again = parse_stage(dump_stage(stage, fmt), file=f"far.{SUFFIX[fmt]}")
        assert placed(again) == placed(stage)


@pytest.mark.parametrize("fmt", ["rgt", "rekee"])
def test_a_chain_that_runs_off_the_map_is_refused_by_the_editor_writers(fmt: StageFormat) -> None:
    stage = make_stage({"tile": "202a", "at": [MAP_RANGE, 0], "dir": 0}, "205a", "203a")
    with pytest.raises(InputError, match=r"lies at hex \[100001, 0\], beyond the map"):
        dump_stage(stage, fmt)


def test_the_native_and_editor_ranges_are_the_same() -> None:
    make_stage({"tile": "902a", "at": [MAP_RANGE, -MAP_RANGE], "dir": 0})  # on the map
    with pytest.raises(ValueError, match="out of range"):
        make_stage({"tile": "902a", "at": [MAP_RANGE + 1, 0], "dir": 0})
    rekee = '{"tiles": [{"q": %d, "r": 0, "id": "902a", "dir": 0}]}'
    assert parse_stage(rekee % MAP_RANGE, file="e.json").tiles[0].at == (MAP_RANGE, 0)
    with pytest.raises(InputError, match=r"tiles\[0\]\.q"):
        parse_stage(rekee % (MAP_RANGE + 1), file="e.json")


# --- seeds ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def short_stage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("stage") / "short.yaml"
    path.write_text(
        "format: trackkit-stage/1\ntiles: [{tile: 202a}, {tile: 205a}, {tile: 203a}]\n",
        encoding="utf-8",
    )
    return path


def _simulate_and_replay(stage: Path, seed: int, replay: Path) -> None:
    args = ["simulate", str(stage), "--races", "1", "--players", "2", "--seed", str(seed)]
    made = runner.invoke(app, [*args, "--replay", str(replay)])
    assert made.exit_code == 0, made.stderr
    back = runner.invoke(app, ["replay", str(replay)])
    assert back.exit_code == 0, back.stderr
    assert "every event matches" in back.stdout


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.one_of(
        st.integers(-MAX_SEED, MAX_SEED), st.sampled_from([-1, 0, 10**13, MAX_SEED, -MAX_SEED])
    )
)
def test_every_seed_simulate_accepts_makes_a_replay_that_replays(
    seed: int, short_stage: Path, tmp_path: Path
) -> None:
    _simulate_and_replay(short_stage, seed, tmp_path / f"race{seed}.json")


@pytest.mark.parametrize("seed", [-1, 10**13])
def test_the_seeds_of_the_issue_replay(seed: int, short_stage: Path, tmp_path: Path) -> None:
    _simulate_and_replay(short_stage, seed, tmp_path / "race.json")


@pytest.mark.parametrize("seed", [MAX_SEED + 1, -MAX_SEED - 1, 10**30])
def test_a_seed_out_of_range_is_refused_before_any_race(seed: int, short_stage: Path) -> None:
    for command in (
        ["simulate", str(short_stage)],
        ["validate", str(short_stage), "--simulate", "1"],
    ):
        result = runner.invoke(app, [*command, "--seed", str(seed)])
        assert result.exit_code == 2 and "--seed" in result.stderr and result.stdout == ""


def test_the_seed_ranges_agree() -> None:
    assert CLI_MAX_SEED == MAX_SEED == 2**63 - 1
    assert MAX_RACE_SEED >= (MAX_SEED * 1_000_003 + 100_000)
