"""Shared helpers for the tests."""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from trackkit.build import compiled
from trackkit.models import Stage
from trackkit.rules.track import Track
from trackkit.sim.bots import Bot, make_bot
from trackkit.sim.memo import PlanMemo
from trackkit.sim.race import Prepared
from trackkit.sim.roads import GtRoad
from trackkit.tiles.library import yaml_loader

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"

#: The example files of each series the tests race and draw most: a rally stage and a
#: hillclimb of DIRT, the GT core-box circuit and the Rekee figure of eight.
TURINI = EXAMPLES / "col-de-turini.yaml"
PIKES = EXAMPLES / "hillclimb-pikes.yaml"
GT_CORE = EXAMPLES / "gt-core-circuit.yaml"
GT_FIGURE_EIGHT = EXAMPLES / "gt-figure-eight.rekee.json"

#: One example stage of each series (what a test parametrised over ``series`` races).
SERIES_EXAMPLE = {"dirt": TURINI, "gt": GT_CORE}

#: Whether the suite runs the opt-in compiled build (setup.py; ``make compiled`` unpacks it in
#: build/compiled, put first on PYTHONPATH): its race loop is an extension module, which
#: calls the module functions it was compiled with, whatever a test patches in.
COMPILED = compiled()


def read_yaml(path: Path) -> Any:
    """A YAML file's data, read with libyaml's safe loader where PyYAML has it.

    The library's tests read the source layouts (a few MB of YAML) as they are collected,
    in every worker: PyYAML's pure-Python loader took seconds of each run (issue 22).
    """
    return yaml.load(path.read_text(encoding="utf-8"), Loader=yaml_loader())


def load_script(name: str) -> Any:
    """A script of ``scripts/`` as a module (the regeneration scripts hold the test data)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def example_track(name: str) -> Track:
    """The rules engine's track of ``examples/<name>``, validated once per process (the
    track is only read by the tests: each race gets its own :func:`example_prepared`)."""
    from trackkit.checks.pipeline import validate
    from trackkit.formats import load_stage

    report = validate(load_stage(EXAMPLES / name))
    return Track.from_graph(report.graph, report.layout)


def example_prepared(name: str) -> Prepared:
    """``examples/<name>`` made ready for races by its series' ruleset (a fresh plan memo)."""
    from trackkit.sim.race import prepare

    return prepare(example_track(name))


def simulate_text(*args: str) -> str:
    """What ``trackkit simulate ARGS --format json`` prints (its JSON document, as text),
    which must succeed."""
    from trackkit.cli.app import app

    done = CliRunner().invoke(app, ["simulate", *args, "--format", "json"])
    assert done.exit_code == 0, done.output
    return done.output


def simulate_help() -> str:
    """``trackkit simulate --help`` as words, without the boxes' borders."""
    from trackkit.cli.app import app

    out = CliRunner().invoke(app, ["simulate", "--help"], terminal_width=200).output
    return " ".join(out.replace("\u2502", " ").split())


def simulate_json(*args: str) -> dict[str, Any]:
    """The JSON document of ``trackkit simulate ARGS --format json``, which must succeed."""
    doc: dict[str, Any] = json.loads(simulate_text(*args))
    return doc


def gt_bot(name: str, memo: PlanMemo | None = None) -> Bot:
    """A bot reading the road as a GT race's bots do,
    with the plan memo ``memo`` if one is given."""
    return make_bot(name, memo, road=GtRoad)


def _merged(into: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(into)
    for key, value in over.items():
        keep = out.get(key)
        both = isinstance(value, dict) and isinstance(keep, dict) and value and keep
        out[key] = _merged(keep, value) if both else value
    return out


def sim_report(gt: bool = False, players: int = 2, **over: Any) -> Any:
    """A simulation report (:class:`~trackkit.models.simreport.SimReport`) of no races,
    DIRT or GT (3 laps), with ``over`` written over its JSON (an object over an object
    key by key): the figures a test of the findings needs, and only those."""
    from trackkit.models.simreport import SimReport
    from trackkit.sim.gt_race import GtOptions
    from trackkit.sim.race import Settings
    from trackkit.sim.stats import summarize_races

    settings = Settings.default(players, gt=GtOptions(laps=3) if gt else None)
    empty = summarize_races([], settings, seed=1, tiles={}).to_json()
    return SimReport.model_validate(_merged(empty, over))


#: The SVG namespace, as ElementTree spells it in a tag.
NS = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    """An SVG document's root element."""
    return ET.fromstring(svg)


def classes(el: ET.Element) -> set[str]:
    """The classes of an SVG element."""
    return set(el.get("class", "").split())


def by_id(root: ET.Element, ident: str) -> ET.Element:
    """The element of id ``ident``, which must be there."""
    found = root.find(f".//*[@id='{ident}']")
    assert found is not None, ident
    return found


def spaces(root: ET.Element) -> list[ET.Element]:
    """The spaces drawn on the map (not the legend's)."""
    return [el for el in by_id(root, "map").iter() if "space" in classes(el)]


def numbers(text: str) -> list[float]:
    """The numbers of an SVG attribute (a viewBox, a list of points)."""
    return [float(v) for v in re.split(r"[ ,]+", text.strip()) if v]


def make_stage(*tiles: str | dict[str, Any], **fields: Any) -> Stage:
    """A native stage from face ids or tile dicts, in driving order."""
    specs = [t if isinstance(t, dict) else {"tile": t} for t in tiles]
    return Stage.model_validate({"format": "trackkit-stage/1", "tiles": specs, **fields})


#: A Rallyman: GT circuit of core-box tiles (3 lanes): the start/finish straight, two
#: straights, three bends left, two straights, three bends left; the last tile's exit meets
#: the first tile's entry.
GT_OVAL: tuple[dict[str, Any], ...] = (
    {"tile": "102a"},
    {"tile": "103a"},
    {"tile": "105a", "turn": "left"},
    {"tile": "106a", "turn": "left"},
    {"tile": "112a", "turn": "left"},
    {"tile": "103a"},
    {"tile": "104a"},
    {"tile": "115a", "turn": "left"},
    {"tile": "117a", "turn": "left"},
    {"tile": "118a", "turn": "left"},
)

#: A GT circuit that crosses itself on 141b (Team Challenge): road A on the way out, road B
#: on the way back (the same piece, met again), with four bends each side of the crossing.
GT_EIGHT: tuple[dict[str, Any], ...] = (
    {"tile": "102a"},
    {"tile": "141b", "road": "A"},
    {"tile": "103a"},
    {"tile": "105a", "turn": "left"},
    {"tile": "106a", "turn": "left"},
    {"tile": "112a", "turn": "left"},
    {"tile": "113a", "turn": "left"},
    {"tile": "103a"},
    {"tile": "141b"},
    {"tile": "103a"},
    {"tile": "115a", "turn": "right"},
    {"tile": "117a", "turn": "right"},
    {"tile": "118a", "turn": "right"},
    {"tile": "105a", "turn": "right"},
)
