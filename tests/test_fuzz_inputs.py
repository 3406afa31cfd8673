"""A fuzz suite over everything trackkit reads: stage, replay, simulation (heat) and theme
files, and the command line itself.

Hypothesis mutates real files (bytes cut, doubled and spliced with hostile snippets; values
of the parsed document replaced by hostile ones, keys dropped or added, lists nested deep)
and draws command lines from every command's options. Whatever it draws, a run:

- exits 0, 1 or 2 (never a traceback: only ``SystemExit`` leaves the command);
- on exit 2, says so in one message (``trackkit: error: FILE: ...`` naming the file when a
  file is at fault, or click's usage error);
- with ``--format json``, prints one JSON document whatever happens;
- leaves no partial output: no output file after a failure, never a temporary file.

The suite is bounded (``max_examples`` per test, about 10 s in all on the 2-core reference
machine); its figures are in the closing note of the branch. Run it longer with
``TRACKKIT_FUZZ_SCALE=50 pytest tests/test_fuzz_inputs.py --hypothesis-show-statistics``.
"""

from __future__ import annotations

import copy
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import tinycss2
import tinycss2.color3
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from stagekit import REPO
from typer.testing import CliRunner, Result

from trackkit.cli.app import app
from trackkit.errors import InputError, TrackkitError
from trackkit.render.theme import DEFAULT_THEME, css, load_theme, make_theme

EXAMPLES = REPO / "examples"
SHORT = "format: trackkit-stage/1\nname: Short\ntiles: [{tile: 202a}, {tile: 222a}, {tile: 203a}]\n"
runner = CliRunner()

#: Every test's number of cases is multiplied by this (``TRACKKIT_FUZZ_SCALE=50`` for a long run).
SCALE = int(os.environ.get("TRACKKIT_FUZZ_SCALE", "1"))


def fuzz(cases: int) -> settings:
    """Settings of a fuzz test: ``cases`` cases (times SCALE), no deadline."""
    return settings(
        max_examples=cases * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


#: Text that broke YAML and JSON readers before, or that readers must treat with care.
SNIPPETS = [
    "!!int abc",
    "!!float x",
    "!!bool maybe",
    "!!timestamp soon",
    "!!binary ###",
    "!!python/object/apply:os.system ['true']",
    "2020-02-30",
    "2020-01-01 00:00:00 +99:00",
    "9" * 5000,
    "1e400",
    "-0",
    "0x1F",
    "NaN",
    "&a [*a]",
    "*nowhere",
    "<<: *a",
    "? [a]: b",
    "[" * 120,
    "{" * 120,
    "[" * 3000 + "]" * 3000,
    '{"a": ' * 70 + "1" + "}" * 70,
    "]" * 5,
    "\x00",
    "\ufeff",
    "\t",
    "\r\n",
    "%YAML 1.1\n",
    "---\n",
    "...\n",
    '"\\ud800"',
    "\u202e<script>&amp;",
    "'",
    '"',
    ": ",
    "- ",
    "#",
    "\n  - tile: 205a\n",
    ', "tiles": []',
    '"format": "trackkit-stage/1", ',
]

snippets = st.sampled_from(range(len(SNIPPETS))).map(SNIPPETS.__getitem__)

#: Values that replace parts of a parsed document.
hostile_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.sampled_from([0, -1, 5, 6, 2**63, -(2**63), 10**4000, 1e400, -0.0, 0.5])
    | st.floats(allow_nan=True)
    | st.text(max_size=12)
    | st.sampled_from(range(len(SNIPPETS))).map(SNIPPETS.__getitem__),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def _places(data: Any) -> list[tuple[Any, ...]]:
    """Every key path of a parsed document (without recursion: documents nest deep here)."""
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        out.append(path)
        if isinstance(node, dict):
            stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(node))
    return sorted(out, key=len)


@st.composite
def edited(draw: st.DrawFn, data: Any) -> Any:
    """``data`` with 1-3 parts replaced, removed, added to or buried in deep lists."""
    data = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 3))):
        places = list(_places(data))
        path = draw(st.sampled_from(places[:4000]))
        op = draw(st.sampled_from(["replace", "raw", "delete", "add", "bury"]))
        if not path:
            if op == "replace":
                data = draw(hostile_values)
            continue
        parent = data
        for part in path[:-1]:
            parent = parent[part]
        key = path[-1]
        if op == "replace":
            parent[key] = draw(hostile_values)
        elif op == "raw":  # written into the text as it is, unquoted (see _dump)
            parent[key] = f"@@RAW{draw(st.integers(0, len(RAW) - 1))}@@"
        elif op == "delete":
            del parent[key]
        elif op == "add" and isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = draw(hostile_values)
        elif op == "add":
            parent.insert(key, draw(hostile_values))
        else:
            value = parent[key]
            for _ in range(draw(st.sampled_from([1, 3, 63, 70]))):  # about the limit of 64
                value = [value]
            parent[key] = value
    return data


@st.composite
def mutated(draw: st.DrawFn, raw: bytes) -> bytes:
    """``raw`` with 1-3 byte-level edits: cut, doubled, spliced, truncated."""
    for _ in range(draw(st.integers(1, 3))):
        n = len(raw)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 200)))
        op = draw(st.sampled_from(["cut", "double", "splice", "bytes", "truncate"]))
        if op == "cut":
            raw = raw[:i] + raw[j:]
        elif op == "double":
            raw = raw[:j] + raw[i:j] + raw[j:]
        elif op == "splice":
            raw = raw[:i] + draw(snippets).encode("utf-8", "surrogatepass") + raw[j:]
        elif op == "bytes":
            raw = raw[:i] + draw(st.binary(max_size=8)) + raw[j:]
        else:
            raw = raw[:i]
    return raw


#: Values written into a document's text as they are: tags, dates, huge numbers, deep
#: nesting (what a value of the parsed data cannot be).
RAW = [
    "!!int abc",
    "!!float x",
    "!!bool maybe",
    "!!timestamp soon",
    "2020-02-30",
    "2020-01-01 00:00:00 +99:00",
    "9" * 5000,
    "[" * 3000 + "]" * 3000,
    '{"a": ' * 100 + "1" + "}" * 100,
    "&a [*a]",
    "*nowhere",
    "1e400",
    "NaN",
    "-Infinity",
]
_PLACEHOLDER = re.compile(r"""["']?@@RAW(\d+)@@["']?""")


def _dump(data: Any, syntax: str) -> bytes:
    """``data`` as JSON or YAML text, with the placeholders of RAW values replaced."""
    try:
        if syntax == "yaml":
            text = yaml.safe_dump(data, allow_unicode=True)
        else:
            text = json.dumps(data, ensure_ascii=False)
    except (yaml.YAMLError, RecursionError, ValueError):
        text = "{}"
    text = _PLACEHOLDER.sub(lambda m: RAW[int(m.group(1))], text)
    return text.encode("utf-8", "surrogatepass")


# --- what every run must do -------------------------------------------------------------


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def check_run(result: Result, *, named: list[str], others: int = 0, json_out: bool = False) -> int:
    """The contract of every run; returns its exit status.

    ``named`` are the input files of the run: an error about one of them starts with its
    name; there is at most one error per file, or one in all (``others`` counts arguments
    that may be taken for files).
    """
    exc = result.exception
    if isinstance(exc, TrackkitError):  # the console entry point reports these: exit 2
        event("exit 2 (TrackkitError, reported by the entry point)")
        return 2
    assert exc is None or isinstance(exc, SystemExit), repr(exc)
    code = result.exit_code
    assert code in (0, 1, 2), (code, result.stderr)
    err = result.stderr
    usage = code == 2 and not err.startswith("trackkit: ") and "trackkit: error: " not in err
    event(f"exit {code}" + (" (usage error)" if usage else ""))
    assert "Traceback" not in err and "Traceback" not in result.stdout
    if json_out:
        json.loads(result.stdout)  # one document, whatever happened
    if code == 2:
        errors = [line for line in err.splitlines() if line.startswith("trackkit: error: ")]
        if not errors:
            assert "Usage:" in err or "Error" in err, err  # click's usage error
        else:
            assert len(errors) <= max(1, len(named) + others), err
            if named and any(n in err for n in named):
                assert any(
                    e.startswith(tuple(f"trackkit: error: {n}" for n in named)) for e in errors
                )
    return code


# --- stage files --------------------------------------------------------------------------

STAGE_FILES = [
    "col-de-turini.yaml",
    "col-de-turini.rekee.json",
    "hillclimb-pikes.rgt",
    "broken-stage.yaml",
]


@st.composite
def stage_files(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(STAGE_FILES))
    raw = (EXAMPLES / name).read_bytes()
    if draw(st.booleans()):
        return name, draw(mutated(raw))
    data = yaml.safe_load(raw)
    syntax = draw(st.sampled_from(["json", "yaml"]))
    suffix = {"json": ".json", "yaml": ".yaml"}[syntax]
    return name.split(".")[0] + suffix, _dump(draw(edited(data)), syntax)


@fuzz(150)
@given(case=stage_files(), as_json=st.booleans())
def test_fuzz_stage_files(case: tuple[str, bytes], as_json: bool, tmp_path: Path) -> None:
    name, raw = case
    path = tmp_path / name
    path.write_bytes(raw)
    args = ["validate", str(path)] + (["--format", "json"] if as_json else [])
    result = runner.invoke(app, args)
    code = check_run(result, named=[str(path)], json_out=as_json)
    if as_json:
        (entry,) = json.loads(result.stdout)["files"]
        assert entry["file"] == str(path)
        assert ("error" in entry) == (code == 2)
    elif code == 2:
        assert result.stdout == ""
        assert result.stderr.startswith(f"trackkit: error: {path}: ")
    else:
        assert result.stdout.startswith(f"{path}: ")


# --- replay and simulation files ----------------------------------------------------------


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A short stage, one race's replay and a simulation document of it."""
    folder = tmp_path_factory.mktemp("recorded")
    stage = folder / "short.yaml"
    stage.write_text(SHORT, encoding="utf-8")
    replay = folder / "race.json"
    args = ["simulate", str(stage), "--races", "4", "--players", "2", "--bot", "aggressive"]
    sim = runner.invoke(app, [*args, "--format", "json", "--replay", str(replay)])
    assert sim.exit_code == 0, sim.stderr
    doc = json.loads(sim.stdout)
    if not doc["loss_of_control"]["by_space"]:  # give the heat map something to show
        doc["loss_of_control"]["by_space"] = {"2:1.1L": 1}
    return {
        "stage": stage,
        "replay": json.loads(replay.read_text(encoding="utf-8")),
        "simulation": doc,
    }


@st.composite
def json_files(draw: st.DrawFn, base: Any) -> bytes:
    if draw(st.integers(0, 3)) == 0:
        return draw(mutated(json.dumps(base, indent=1).encode()))
    return _dump(draw(edited(base)), "json")


@fuzz(60)
@given(data=st.data())
def test_fuzz_replay_files(data: st.DataObject, recorded: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "race.json"
    path.write_bytes(data.draw(json_files(recorded["replay"])))
    result = runner.invoke(app, ["replay", str(path)])
    code = check_run(result, named=[str(path)])
    if code == 2:
        assert result.stdout == "" and result.stderr.startswith(f"trackkit: error: {path}: ")
    else:
        assert result.stdout.startswith(f"{path}: ")


@fuzz(40)
@given(data=st.data())
def test_fuzz_heat_files(data: st.DataObject, recorded: dict[str, Any], tmp_path: Path) -> None:
    heat = tmp_path / "sim.json"
    heat.write_bytes(data.draw(json_files(recorded["simulation"])))
    out = Path(tempfile.mkdtemp(dir=tmp_path))  # one folder per case (tmp_path is shared)
    result = runner.invoke(
        app, ["render", str(recorded["stage"]), "-o", str(out / "map.svg"), "--heat", str(heat)]
    )
    code = check_run(result, named=[str(heat)])
    assert code in (0, 2)
    if code == 0:
        assert _files(out) == {"map.svg"}
        ET.parse(out / "map.svg")  # a whole SVG
    else:
        assert _files(out) == set()  # no partial output
        assert result.stderr.startswith(f"trackkit: error: {heat}: ")


# --- themes -------------------------------------------------------------------------------

CSS_JUNK = st.text(
    alphabet=st.sampled_from(list("abcdefrgbRGB#0123456789(),;:{}<>/\\'\"*!@ .%-_\n\t")),
    max_size=30,
)
theme_values = st.one_of(
    CSS_JUNK,
    st.sampled_from(
        ["red", "#abc", "#A1B2C3", "rgb(1, 2, 3)", "transparent", "'Open Sans', serif"]
    ),
    snippets,
    hostile_values,
)


def _selectors(sheet: str) -> list[str]:
    rules = tinycss2.parse_stylesheet(sheet, skip_whitespace=True, skip_comments=True)
    assert all(r.type == "qualified-rule" for r in rules), sheet
    for rule in rules:
        for decl in tinycss2.parse_blocks_contents(rule.content, skip_whitespace=True):
            assert decl.type == "declaration", (rule, decl)
    return [tinycss2.serialize(r.prelude).strip() for r in rules]


DEFAULT_SELECTORS = _selectors(css(make_theme()))


@fuzz(300)
@given(
    overrides=st.dictionaries(st.sampled_from([*DEFAULT_THEME, "nope"]), theme_values, max_size=4)
)
def test_fuzz_theme_values(overrides: dict[str, Any]) -> None:
    try:
        theme = make_theme(overrides)
    except ValueError as exc:
        assert str(exc).startswith(("theme key ", "unknown theme key "))
        return
    # accepted values change values only: the same rules, every declaration well formed
    assert _selectors(css(theme)) == DEFAULT_SELECTORS
    for key, value in theme.items():
        assert not set(value) & set(";{}<>\\")
        if key != "font":  # a colour, as CSS reads colours
            assert isinstance(tinycss2.color3.parse_color(value), tinycss2.color3.RGBA), value


@fuzz(100)
@given(data=st.data())
def test_fuzz_theme_files(data: st.DataObject, tmp_path: Path) -> None:
    base = {"surface.gravel": "#e0c9a0", "font": "'Open Sans', serif"}
    path = tmp_path / "theme.json"
    path.write_bytes(data.draw(json_files(base)))
    try:
        theme = load_theme(path)
    except InputError as exc:
        assert exc.file == str(path) and exc.message
    else:
        assert set(theme) == set(DEFAULT_THEME)


# --- the command line -------------------------------------------------------------------


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory, recorded: dict[str, Any]) -> dict[str, str]:
    """Input files of every kind for the command line fuzz (outputs go elsewhere)."""
    folder = tmp_path_factory.mktemp("inputs")
    (folder / "empty.yaml").write_text("", encoding="utf-8")
    (folder / "folder.yaml").mkdir()
    (folder / "race.json").write_text(json.dumps(recorded["replay"]), encoding="utf-8")
    (folder / "sim.json").write_text(json.dumps(recorded["simulation"]), encoding="utf-8")
    (folder / "theme.json").write_text('{"text": "#123"}', encoding="utf-8")
    (folder / "bad-theme.json").write_text('{"text": "expression(1)"}', encoding="utf-8")
    files = {
        "short": str(recorded["stage"]),
        "broken": str(EXAMPLES / "broken-stage.yaml"),
        "rekee": str(EXAMPLES / "col-de-turini.rekee.json"),
        "rgt": str(EXAMPLES / "hillclimb-pikes.rgt"),
        "missing": str(folder / "missing.yaml"),
        **{name.split(".")[0]: str(folder / name) for name in ("empty.yaml", "folder.yaml")},
        **{name: str(folder / f"{name}.json") for name in ("race", "sim", "theme", "bad-theme")},
    }
    if os.name == "posix":
        files["devnull"] = "/dev/null"
        os.mkfifo(folder / "fifo.yaml")
        files["fifo"] = str(folder / "fifo.yaml")
    return files


OUTPUTS = [
    *("map.svg", "map.png", "map.pdf", "plan.svg", "plan.pdf"),
    *("stage.yaml", "stage.json", "stage.rekee.json", "stage.rgt", "race.json"),
    *("x.txt", "sub/x.svg", "."),
]
_number = st.sampled_from(["0", "1", "2", "3", "-1", "7", "100000000000000000000", "1.5", "x", ""])
#: Each option's values: good ones mostly, and wrong ones.
OPTION_VALUES: dict[str, st.SearchStrategy[str]] = {
    "--kind": st.sampled_from(["rally", "hillclimb", "circuit", ""]),
    "--format": st.sampled_from(["text", "json", "json", "xml"]),
    "--races": st.sampled_from(["1", "2", "0", "-5", "x"]),
    "--players": _number,
    "--seed": st.one_of(_number, st.sampled_from(["9223372036854775807", "-9223372036854775808"])),
    "--bot": st.sampled_from(["cautious", "aggressive", "planner", "reckless"]),
    "--car": st.sampled_from(["dirt", "r5", "gt", ""]),
    "--max-rounds": st.sampled_from(["1", "5", "0", "10001"]),
    "--simulate": st.sampled_from(["0", "1", "2", "-1", "10001"]),
    "--tile-size": st.sampled_from(["20", "240", "19.9", "1000", "nan", "inf", "-1"]),
    "--px": st.sampled_from(["100", "200", "99", "20001"]),
    "--paper": st.sampled_from(["a4", "letter", "a3", "a9"]),
    "--overlap": st.sampled_from(["0", "10", "-1", "500"]),
    "--box": st.sampled_from(["dirt-core", "dirt-climb", "dirt-nothing"]),
    "--surface": st.sampled_from(["gravel", "snow", "lava"]),
    "--shape": st.sampled_from(["hairpin", "start", "loop"]),
    "--limit": _number,
    "--jobs": st.sampled_from(["1", "0", "65"]),
}
FILE_OPTIONS = ("--theme", "--heat")
OUTPUT_OPTIONS = ("-o", "--replay")
FLAGS = ("--legend", "--no-legend", "--all-pages", "--skip-scenery")
#: Per command: how many stage files it takes, and its options.
COMMANDS: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = {
    "validate": ((1, 3), ("--kind", "--format", "--simulate", "--seed")),
    "simulate": (
        (1, 2),
        (
            *("--players", "--races", "--seed", "--car", "--bot", "--format", "--jobs"),
            *("--max-rounds", "--kind", "--replay"),
        ),
    ),
    "replay": ((1, 1), ()),
    "render": ((1, 1), ("-o", "-o", "--theme", "--heat", "--kind", "--tile-size", "--px")),
    "print": ((1, 1), ("-o", "-o", "--theme", "--kind", "--tile-size", "--paper", "--overlap")),
    "convert": ((1, 1), ("-o", "-o", "--kind")),
    "tiles": ((0, 0), ("--box", "--surface", "--shape", "--limit", "--format")),
    "tiles show": ((1, 1), ("--format",)),
}
JUNK = ["215b", "999x", "-", "--nope", "\u202e", "a" * 300, "-h", "--version", "--"]


@st.composite
def command_lines(draw: st.DrawFn, files: dict[str, str], out: Path) -> tuple[list[str], list[str]]:
    """A command line (mostly well formed, with wrong values) and the files it names."""
    command = draw(st.sampled_from(sorted(COMMANDS)))
    (least, most), options = COMMANDS[command]
    args = command.split()
    named: list[str] = []
    if command == "tiles show":  # a face id, not a file
        args.append(draw(st.sampled_from(["215b", "217A", "103a-2", "999x", "", "\u202e"])))
        least = most = 0
    for _ in range(draw(st.integers(least, most))):
        if command == "replay":
            value = files[
                draw(st.sampled_from(["race", "race", "sim", "missing", "folder", *sorted(files)]))
            ]
        else:
            value = files[draw(st.sampled_from(sorted(files)))]
        args.append(value)
        named.append(value)
    for option in (
        draw(st.lists(st.sampled_from(options), max_size=4, unique=True)) if options else []
    ):
        if option in OUTPUT_OPTIONS:
            args += [option, str(out / draw(st.sampled_from(OUTPUTS)))]
        elif option in FILE_OPTIONS:
            value = files[draw(st.sampled_from(sorted(files)))]
            args += [option, value]
            named.append(value)
        else:
            args += [option, draw(OPTION_VALUES[option])]
    if command in ("render", "print") and draw(st.booleans()):
        args.append(draw(st.sampled_from(FLAGS)))
    if draw(st.integers(0, 7)) == 0:  # now and then, something that does not belong
        junk = draw(st.sampled_from(JUNK))
        at = draw(st.integers(1, len(args)))
        args.insert(at, junk)
        # after "--" every argument, options included, is taken for a file
        return args, named, (len(args) - at - 1 if junk == "--" else 1)
    return args, named, 0


@fuzz(120)
@given(data=st.data())
def test_fuzz_command_line(data: st.DataObject, inputs: dict[str, str], tmp_path: Path) -> None:
    out = Path(tempfile.mkdtemp(dir=tmp_path))  # one folder per case (tmp_path is shared)
    args, named, others = data.draw(command_lines(inputs, out))
    result = runner.invoke(app, args)
    usage = "Usage:" in result.stderr or any(a in args for a in ("-h", "--version", "--"))
    as_json = "--format" in args and args[args.index("--format") + 1] == "json" and not usage
    code = check_run(result, named=named, others=others, json_out=as_json)
    written = _files(out)
    assert not [f for f in written if f.endswith(".tmp")], written  # never a temporary file
    if code != 0:
        assert written == set(), (args, written)  # no output after a failure
