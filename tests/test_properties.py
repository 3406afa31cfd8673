"""Property tests: random tile chains never crash the validator, and valid means drivable."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stagekit import make_stage

from trackkit.checks.pipeline import validate
from trackkit.models.findings import Severity
from trackkit.stage.graph import has_path_to_finish, reachable_from
from trackkit.tiles.library import default_library

LIB = default_library()
ROAD_FACES = sorted(f.id for f in LIB if f.road is not None and f.road.start_finish is None)
STARTS = sorted(
    f.id for f in LIB if f.road and f.road.start_finish and f.road.start_finish.kind == "start"
)
FINISHES = sorted(
    f.id for f in LIB if f.road and f.road.start_finish and f.road.start_finish.kind == "finish"
)
TOKENS = [
    {"token": "mud", "value": -1},
    {"token": "climb", "value": -1},
    {"token": "oxygen", "value": 2},
    {"token": "cloud"},
    {"token": "banana"},
]


@st.composite
def tile_spec(draw: st.DrawFn) -> dict[str, object]:
    spec: dict[str, object] = {"tile": draw(st.sampled_from(ROAD_FACES))}
    how = draw(st.sampled_from(["none", "turn", "enter", "climb", "at"]))
    if how == "turn":
        spec["turn"] = draw(st.sampled_from(["left", "right"]))
    elif how == "enter":
        spec["enter"] = draw(st.integers(0, 5))
    elif how == "climb":
        spec["climb"] = draw(st.sampled_from(["up", "down"]))
    elif how == "at":
        spec["at"] = [draw(st.integers(-4, 4)), draw(st.integers(-4, 4))]
        spec["dir"] = draw(st.integers(0, 5))
    if draw(st.booleans()) and draw(st.booleans()):
        spec["tokens"] = [draw(st.sampled_from(TOKENS))]
    return spec


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=st.sampled_from([*STARTS, None]),
    middle=st.lists(tile_spec(), max_size=10),
    finish=st.sampled_from([*FINISHES, None]),
    kind=st.sampled_from(["rally", "hillclimb"]),
)
def test_validator_never_crashes_and_valid_chains_are_drivable(start, middle, finish, kind):  # type: ignore[no-untyped-def]
    tiles = ([start] if start else []) + middle + ([finish] if finish else [])
    report = validate(make_stage(*tiles, kind=kind))
    assert report.errors == sum(1 for f in report.findings if f.severity is Severity.ERROR)
    if report.valid:
        # rule: BOARD-3 (a valid stage runs from start to finish)
        assert has_path_to_finish(report.graph)
        assert report.summary.length_spaces is not None
    # progress only grows along a step (MOVE-1, BOARD-5)
    for u, v in report.graph.edges:
        assert report.graph.nodes[v]["progress"] > report.graph.nodes[u]["progress"]


@settings(max_examples=60, deadline=None)
@given(middle=st.lists(st.sampled_from(ROAD_FACES), min_size=1, max_size=8))
def test_snapped_chains_without_overlap_are_valid_and_every_space_is_on_the_road(middle):  # type: ignore[no-untyped-def]
    report = validate(make_stage("202a", *middle, "203a", kind="rally"))
    if "S105" in report.codes:
        return  # the snapped road ran into itself: reported, nothing more to check
    # notes: boxes needed, a hillclimb's, a bend laid its default way (no 'turn', S140)
    blocking = {c for c in report.codes if c not in ("I303", "H403", "S140")}
    assert not blocking, report.codes
    g = report.graph
    reached = reachable_from(g, g.graph["start"])
    assert reached == set(g.nodes)
