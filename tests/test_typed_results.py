"""The results of both series are typed (issue 20, item 5): one ``StageSummary`` for what
``validate`` says of a stage, one ``SimReport`` for what ``simulate`` says of its races,
each with its per-series part; their JSON is the flat document DESIGN.md describes, and
the statistics of the two series no longer import each other.
"""

from __future__ import annotations

import ast
import contextlib
import json
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from regen_json import CASES
from stagekit import REPO
from typer.testing import CliRunner

from trackkit.cli.app import app
from trackkit.models import SimReport, StageSummary
from trackkit.sim.text_report import sim_text

runner = CliRunner()
PINNED: dict[str, str] = json.loads(
    (REPO / "tests/golden/json-output.json").read_text(encoding="utf-8")
)


def _summaries(doc: Any) -> list[dict[str, Any]]:
    """Every stage summary of a ``validate --format json`` document."""
    return [e["summary"] for e in doc["files"] if e.get("summary")]


@pytest.mark.parametrize("case", sorted(c for c in CASES if c.startswith("validate")))
def test_every_pinned_summary_reads_back_into_its_series_part_and_writes_the_same(
    case: str,
) -> None:
    summaries = _summaries(json.loads(PINNED[case]))
    assert summaries
    for doc in summaries:
        summary = StageSummary.model_validate(doc)
        # the per-series part is the one of the stage's series, the other is None
        assert (summary.dirt is not None, summary.gt is not None) == (
            doc["series"] == "dirt",
            doc["series"] == "gt",
        )
        assert summary.to_json() == doc
        if "--simulate" in CASES[case]:
            assert summary.simulation is not None
            assert (summary.simulation.gt is not None) == (doc["series"] == "gt")


@pytest.mark.parametrize(
    "case", sorted(c for c in CASES if c.startswith("simulate") and '"error"' not in PINNED[c])
)
def test_every_pinned_simulation_reads_back_into_its_series_part_and_writes_the_same(
    case: str,
) -> None:
    doc = json.loads(PINNED[case])
    report = SimReport.model_validate(doc)
    gt = bool(doc["settings"].get("gt"))
    assert (report.gt is not None, report.dirt is not None) == (gt, not gt)
    assert (report.settings.gt is not None) == gt
    # each driver's figures have the part of the series too
    assert report.drivers and all((d.gt is not None) == gt for d in report.drivers)
    assert report.to_json() == doc
    if "stages" in doc:  # a rally: each stage's own report, typed the same way
        assert report.dirt is not None and report.dirt.stages is not None
        assert [s.to_json() for s in report.dirt.stages] == doc["stages"]


def test_a_summary_refuses_the_part_of_the_other_series() -> None:
    doc = json.loads(PINNED["validate --simulate examples/col-de-turini.yaml"])
    summary = _summaries(doc)[0]
    with pytest.raises(ValueError, match="a gt stage's summary has its gt part"):
        StageSummary.model_validate({**summary, "series": "gt"})


@pytest.mark.parametrize(
    ("case", "words"),
    [
        ("simulate examples/col-de-turini.yaml", ["mean", "p90", "all "]),
        ("simulate examples/gt-core-circuit.yaml", ["wins", "place", "led", "passes"]),
    ],
)
def test_one_text_writer_prints_each_series_what_simulate_prints(
    case: str, words: list[str]
) -> None:
    report = SimReport.model_validate(json.loads(PINNED[case]))
    text_args = [a for a in CASES[case] if a not in ("--format", "json")]
    with contextlib.chdir(REPO):
        printed = runner.invoke(app, text_args).stdout
    assert printed == sim_text(report) + "\n"
    head = printed.splitlines()[3]  # the drivers' table heading
    assert all(w in printed for w in words), head


def _module_imports(root: Path) -> nx.DiGraph:
    """trackkit's modules and what each imports, at the top or inside a function (not
    under ``if TYPE_CHECKING:``, which never runs)."""
    graph: nx.DiGraph = nx.DiGraph()
    for path in (root / "trackkit").rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        graph.add_node(name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(n)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for n in ast.walk(block)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                graph.add_edge(name, node.module)
            elif isinstance(node, ast.Import):
                graph.add_edges_from((name, a.name) for a in node.names)
    return graph


def test_the_statistics_and_reports_of_the_two_series_import_no_cycle() -> None:
    graph = _module_imports(REPO)
    mine = [
        "trackkit.sim.stats",
        "trackkit.sim.gtstats",
        "trackkit.sim.figures",
        "trackkit.sim.text_report",
        "trackkit.models.summary",
        "trackkit.models.simreport",
        "trackkit.checks.text",
        "trackkit.generator.report",
    ]
    assert ("trackkit.sim.gtstats", "trackkit.sim.stats") not in graph.edges
    for name in mine:
        assert name in graph
        cycle = [c for c in nx.strongly_connected_components(graph) if name in c]
        assert cycle == [{name}], f"{name} is in an import cycle: {sorted(cycle[0])}"
