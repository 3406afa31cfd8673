"""The per-lane road model (trackkit.road.lanes) against the worked examples of its format.

Every expected step and side-by-side pair below is written out in
``tile_library/sources/gt-space-layouts/README.md`` (section 6), read from the faces.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from stagekit import REPO, read_yaml

from trackkit.models.lanes import LaneLayout, LaneRoad
from trackkit.road.lanes import LaneError, RoadCut, cut_road

LAYOUTS = REPO / "tile_library" / "sources" / "gt-space-layouts"


def _faces() -> dict[str, LaneLayout]:
    out = {}
    for path in sorted(LAYOUTS.glob("*.yaml")):
        for item in read_yaml(path):
            keys = ("roads", "spaces", "overlaps", "start_finish", "pit")
            data = {k: item[k] for k in keys if item.get(k) is not None}
            out[str(item["face"])] = LaneLayout.model_validate(data)
    return out


FACES = _faces()


def steps(cut: RoadCut) -> set[str]:
    out = set()
    for s in cut.steps:
        text = f"{s.source}>{s.target}" + ("/d" if s.kind == "diagonal" else "")
        text += f"<={s.limit}" if s.limit is not None else ""
        text += "!" if s.hazard else ""
        out.add(text)
    return out


def beside(cut: RoadCut) -> set[str]:
    return {"|".join(sorted(p)) for p in cut.beside}


def road(face: str, rid: str = "A") -> RoadCut:
    return cut_road(next(r for r in FACES[face].roads if r.id == rid))


def test_every_gt_face_is_in_the_sources_and_every_road_cuts() -> None:
    assert len(FACES) == 107
    for layout in FACES.values():
        for r in layout.roads:
            cut = cut_road(r)
            assert r.hidden or cut.steps or len(cut.spaces) == 1


def test_plain_rows_103a() -> None:
    # rule: MOVE-1 (straight ahead or diagonally into the next space of a neighbouring lane)
    cut = road("103a")
    assert steps(cut) == {
        "A1a>A1b", "A1a>A2b/d", "A2a>A1b/d", "A2a>A2b", "A2a>A3b/d", "A3a>A2b/d", "A3a>A3b",
    }  # fmt: skip
    assert beside(cut) == {"A1a|A2a", "A2a|A3a", "A1b|A2b", "A2b|A3b"}


def test_merged_corner_space_and_dotted_number_117a() -> None:
    # rule: CORNER-4 (a straight move across a dotted line is limited; diagonal is safe)
    cut = road("117a")
    assert steps(cut) == {
        "A1a>A1b<=3", "A1a>A23b/d", "A2a>A1b/d", "A2a>A23b", "A3a>A23b",
        "A1b>A1c<=3", "A1b>A2c/d", "A23b>A1c/d", "A23b>A2c", "A23b>A3c",
    }  # fmt: skip
    assert "A1b|A23b" in beside(cut)
    assert cut.spaces["A23b"].lanes == (2, 3)


def test_unequal_lanes_in_a_corner_110a() -> None:
    cut = road("110a")
    across_l2 = {f"{s.source}>{s.target}" for s in cut.steps if s.line == "l2"}
    assert across_l2 == {"A3b>A3c"}
    assert {"A12b|A3b", "A12b|A3c"} <= beside(cut)
    linked = {frozenset((s.source, s.target)) for s in cut.steps}
    assert not linked & {frozenset(("A12b", "A3b")), frozenset(("A12b", "A3c"))}


def test_per_lane_dotted_numbers_116a() -> None:
    cut = road("116a")
    assert {"A1a>A12b<=1", "A2a>A12b<=2", "A3a>A12b/d"} <= steps(cut)


def test_lane_transition_uses_its_links_119a() -> None:
    cut = road("119a")
    across = {f"{s.source}>{s.target}/{s.kind[0]}" for s in cut.steps if s.line == "l2"}
    assert across == {"A1b>A1c/s", "A1b>A2c/d", "A2b>A2c/d", "A2b>A3c/s"}
    assert cut.spaces["A3c"].lanes == (3,)


def test_skew_ends_give_per_lane_progress_121a() -> None:
    cut = road("121a")
    first = cut.spaces["A1a"]
    assert first.back_at == (0.081,) and first.front_at == (0.149,)
    assert cut.spaces["A3a"].back_at == (-0.085,)
    assert FACES["121a"].spaces["A1a"].joins == 2


def test_a_reversed_road_turns_every_step_round() -> None:
    cut = road("117a")
    back = cut.reversed()
    assert {(s.target, s.source, s.kind, s.limit) for s in back.steps} == {
        (s.source, s.target, s.kind, s.limit) for s in cut.steps
    }
    assert back.entry_edge == cut.exit_edge and set(back.entries()) == set(cut.exits())


def test_progress_is_the_front_line_of_the_space() -> None:
    cut = road("102a")
    assert cut.spaces["A2b"].progress == pytest.approx(0.502)
    assert cut.spaces["A2d"].progress == 1.0


def _road(lanes: dict[int, list[str]], lines: dict[str, object]) -> LaneRoad:
    return LaneRoad.model_validate({"id": "A", "from": 0, "to": 3, "lanes": lanes, "lines": lines})


def test_contradictions_are_refused() -> None:
    merged = _road({1: ["a", "l1", "m"], 2: ["m", "l1", "b"]}, {"l1": {"at": 0.5}})
    with pytest.raises(LaneError, match="merged space m"):
        cut_road(merged)
    gap = _road({1: ["m"], 2: ["x"], 3: ["m"]}, {})
    with pytest.raises(LaneError, match="not side by side"):
        cut_road(gap)
    with pytest.raises(ValueError, match="alternate"):
        _road({1: ["a", "b"]}, {})
    ends = _road({1: ["a", "l1", "b"], 2: ["c", "l1"]}, {"l1": {"at": 0.5}})
    with pytest.raises(LaneError, match="without links"):
        cut_road(ends)


def test_the_lane_layouts_are_the_projects_own_copy() -> None:
    assert (LAYOUTS / "README.md").is_file()
    assert not (LAYOUTS / "gtl.py").exists()
    assert isinstance(LAYOUTS, Path)
