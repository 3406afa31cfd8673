"""The rules reference, docs/rules.md, against every rule id the repository cites (issue 9).

A rule id is a group and a number (``CORNER-2``). Code and tests cite ids in comments
(``# rule: CORNER-2``), findings and docstrings in brackets, docs in prose. How citations
count:

- ``LOC-1..4`` is a range: it cites LOC-1, LOC-2, LOC-3 and LOC-4. The first number must
  be below the last; a range that is not is reported as it is written (no page defines it);
- ``HILLCLIMB-3/5`` cites HILLCLIMB-3 and HILLCLIMB-5;
- a group name and a number without the hyphen (``CORNER 1-3``) is prose, not a citation;
- ``GT-6`` is the name of a GT car (DASH-2), never a rule id.

The page defines an id with a heading of its own (``### CORNER-2``), once. It must also
stand on its own: every test it names as pinning a DEFAULT exists, every ruleset key it
names is in ``tile_library/ruleset-dirt.yaml``, every in-page link has its heading, and no
file of the repository sends readers to the rule texts kept outside it.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
RULES_DOC = REPO / "docs" / "rules.md"
RULESET = REPO / "tile_library" / "ruleset-dirt.yaml"
RULESET_GT = REPO / "tile_library" / "ruleset-gt.yaml"

#: The rule groups, as docs/rules.md has them (a test keeps the two in step).
GROUPS = (
    "BOARD",
    "MOVE",
    "CORNER",
    "SHORTCUT",
    "JUMP",
    "FORD",
    "TRAFFIC",
    "TURN",
    "LOC",
    "TIME",
    "DAMAGE",
    "CLIMB",
    "HILLCLIMB",
    "DASH",
    "DICE",
    "GT",
)
CITATION = re.compile(rf"\b({'|'.join(GROUPS)})-(\d+)(?:(\.\.|/)(\d+))?\b")
#: Names that look like rule ids and are not (the GT-6 car of DASH-2).
NOT_RULE_IDS = frozenset({"GT-6"})
DEFINITION = re.compile(r"^#{1,6}[ \t]+([A-Z]+-\d+)[ \t]*$", re.MULTILINE)

#: Where citations are looked for (directories all the way down).
CITING = ("trackkit", "tests", "scripts", "benchmarks", "docs", "README.md", "tile_library/*.yaml")
#: Directories that are not the repository's own text (dot directories are skipped too).
SKIP_DIRS = frozenset({"__pycache__", "build", "dist", "out", "node_modules"})

#: A pointer to the rule texts kept outside the repository: a path, or a path built in code.
OUTSIDE = re.compile(r"shared[/\\]rules|\"shared\"\s*/\s*\"rules\"|RULES\.md")


def _text_files(paths: list[Path]) -> Iterator[Path]:
    """Every file under ``paths``, caches, build output and dot directories left out."""
    for path in paths:
        if path.is_file():
            yield path
            continue
        for top, dirs, files in os.walk(path):
            dirs[:] = sorted(
                d
                for d in dirs
                if d not in SKIP_DIRS and not d.startswith(".") and not d.endswith(".egg-info")
            )
            yield from (Path(top) / f for f in sorted(files) if not f.startswith("."))


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None  # an image or another binary file


def citations(text: str) -> Iterator[tuple[int, str, list[str] | None]]:
    """(line number, citation as written, the ids it cites: None for a backwards range).

    Examples
    --------
    >>> [c[1:] for c in citations("# rule: LOC-1..3 and TURN-4/5")]
    [('LOC-1..3', ['LOC-1', 'LOC-2', 'LOC-3']), ('TURN-4/5', ['TURN-4', 'TURN-5'])]
    >>> [c[1:] for c in citations("the GT-6 car (DASH-2), CORNER 1-3")]
    [('DASH-2', ['DASH-2'])]
    """
    for number, line in enumerate(text.splitlines(), start=1):
        for m in CITATION.finditer(line):
            written = m.group(0)
            if written in NOT_RULE_IDS:
                continue
            group, first, sep, last = m.group(1), int(m.group(2)), m.group(3), m.group(4)
            ids: list[str] | None
            if sep is None:
                ids = [f"{group}-{first}"]
            elif sep == "/":
                ids = [f"{group}-{first}", f"{group}-{last}"]
            elif int(last) > first:
                ids = [f"{group}-{n}" for n in range(first, int(last) + 1)]
            else:
                ids = None
            yield number, written, ids


def cited_ids(root: Path) -> dict[str, list[str]]:
    """Rule id -> the places (``file:line``) under ``root`` that cite it.

    A backwards range is listed under its own text, which no page defines.
    """
    paths = [p for pattern in CITING for p in sorted(root.glob(pattern))]
    out: dict[str, list[str]] = {}
    for path in _text_files(paths):
        text = _read(path)
        if text is None:
            continue
        for number, written, ids in citations(text):
            for rule in [written] if ids is None else ids:
                out.setdefault(rule, []).append(f"{path.relative_to(root).as_posix()}:{number}")
    return out


def defined_ids(text: str) -> list[str]:
    """The ids a page defines, in page order: each is a heading with nothing else in it."""
    return DEFINITION.findall(text)


def _sections(text: str) -> dict[str, str]:
    """Each defined id -> the text of its section (up to the next heading)."""
    parts = re.split(r"^(#{1,6}[ \t]+.*)$", text, flags=re.MULTILINE)
    out: dict[str, str] = {}
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        m = DEFINITION.match(heading)
        if m:
            out[m.group(1)] = body
    return out


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


DOC = RULES_DOC.read_text(encoding="utf-8")
DEFINED = set(defined_ids(DOC))


def test_every_cited_rule_id_is_defined_in_the_rules_reference() -> None:
    cited = cited_ids(REPO)
    missing = {rule: places for rule, places in cited.items() if rule not in DEFINED}
    assert not missing, "rule ids cited but not defined in docs/rules.md:\n" + "\n".join(
        f"  {rule}: {', '.join(places[:5])}" for rule, places in sorted(missing.items())
    )
    # the scan really reads code, tests and data (a slip in a pattern would find nothing)
    assert any(p.startswith("trackkit/") for p in cited["CLIMB-7"])
    assert any(p.startswith("tests/") for p in cited["TRAFFIC-3"])
    assert any(p.startswith("tile_library/") for p in cited["LOC-5"])


def test_the_scan_finds_a_made_up_id_and_reads_ranges(tmp_path: Path) -> None:
    # the made-up ids are put together here, so that this file itself cites none of them
    made_up, backwards, in_data, in_image = (
        "MOVE-" + "99",
        "LOC-4.." + "2",
        "DICE-" + "7",
        "MOVE-" + "98",
    )
    (tmp_path / "trackkit").mkdir()
    (tmp_path / "trackkit" / "x.py").write_text(
        f"# rule: {made_up}\n# rule: LOC-1..4, HILLCLIMB-3/5\n# rule: {backwards}\n",
        encoding="utf-8",
    )
    (tmp_path / "tile_library").mkdir()
    (tmp_path / "tile_library" / "ruleset-x.yaml").write_text(f"a: 1  # {in_data}\n", "utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "map.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff " + in_image.encode())
    (tmp_path / "README.md").write_text("The GT-6 car; CORNER 1-3 in prose.\n", "utf-8")
    (tmp_path / "tests" / "__pycache__").mkdir(parents=True)
    (tmp_path / "tests" / "__pycache__" / "x.txt").write_text(in_image, "utf-8")
    cited = cited_ids(tmp_path)
    assert cited[made_up] == ["trackkit/x.py:1"]
    assert cited[in_data] == ["tile_library/ruleset-x.yaml:1"]
    assert {f"LOC-{n}" for n in (1, 2, 3, 4)} | {"HILLCLIMB-3", "HILLCLIMB-5"} <= set(cited)
    assert cited[backwards] == ["trackkit/x.py:3"]
    assert in_image not in cited and "GT-6" not in cited and "CORNER-1" not in cited
    assert made_up not in DEFINED and backwards not in DEFINED and in_data not in DEFINED


def test_the_rules_reference_defines_each_id_once() -> None:
    counts = Counter(defined_ids(DOC))
    assert not [rule for rule, n in counts.items() if n > 1], counts.most_common(3)
    assert len(counts) >= 70
    twice = DOC + "\n### MOVE-2\n"
    assert Counter(defined_ids(twice))["MOVE-2"] == 2  # what the first assertion looks for


def test_the_groups_of_the_page_are_the_groups_scanned() -> None:
    assert {rule.rsplit("-", 1)[0] for rule in DEFINED} == set(GROUPS)


def test_every_rule_names_its_ruleset_and_source() -> None:
    sections = _sections(DOC)
    assert set(sections) == DEFINED
    for rule, body in sections.items():
        assert re.search(r"\bRuleset: (DIRT|GT|both)\.", body), f"{rule}: no 'Ruleset:'"
        assert re.search(r"\bSource: \w", body), f"{rule}: no 'Source:'"
        paragraphs = body.strip().split("\n\n")
        assert len(paragraphs) > 1 and len(paragraphs[1].split()) > 5, f"{rule}: no statement"
    for rule in ("TIME-1", "LOC-5", "DAMAGE-2", "FORD-1", "TRAFFIC-3"):
        assert "**DEFAULT**" in sections[rule], rule


def test_contents_list_every_rule_and_every_link_has_its_heading() -> None:
    anchors = {_slug(h) for h in re.findall(r"^#{1,6}[ \t]+(.*)$", DOC, flags=re.MULTILINE)}
    links = re.findall(r"\]\(#([^)]+)\)", DOC)
    assert len(links) > 100 and not set(links) - anchors, sorted(set(links) - anchors)
    contents = DOC.split("\n## ", 2)[1]
    assert contents.startswith("Contents")
    listed = set(re.findall(r"\[([A-Z]+-\d+)\]\(#", contents))
    assert listed == DEFINED, sorted(DEFINED ^ listed)


def test_files_the_page_links_to_exist() -> None:
    targets = re.findall(r"\]\((\.\./[^)#]+)\)", DOC)
    assert targets
    assert not [t for t in targets if not (RULES_DOC.parent / t).resolve().is_file()]


def test_the_tests_named_as_pinning_a_default_exist() -> None:
    named = re.findall(r"`(tests/test_\w+\.py)::(test_\w+)`", DOC)
    assert len(named) >= 20
    for path, name in named:
        source = (REPO / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\(", source, re.MULTILINE), f"no test {path}::{name}"


def _has_key(data: Any, dotted: str) -> bool:
    for part in dotted.split("."):
        if not isinstance(data, dict) or part not in data:
            return False
        data = data[part]
    return True


def test_the_ruleset_keys_the_page_names_exist_and_every_key_is_listed() -> None:
    data = yaml.safe_load(RULESET.read_text(encoding="utf-8"))
    gt = yaml.safe_load(RULESET_GT.read_text(encoding="utf-8"))
    note = r"\*Data:\*((?:\s*`[\w.]+`,?)+)\s+in\s+\[`tile_library/ruleset-{}"
    notes = re.findall(note.format("dirt"), DOC)
    gt_notes = re.findall(note.format("gt"), DOC)
    assert len(notes) + len(gt_notes) == DOC.count("*Data:*"), (
        "write a note as: *Data:* `key`, `key` in [...]"
    )
    keys = {key for n in notes for key in re.findall(r"`([\w.]+)`", n)}
    gt_keys = {key for n in gt_notes for key in re.findall(r"`([\w.]+)`", n)}
    assert len(keys) >= 10 and len(gt_keys) >= 8
    assert not [k for k in sorted(keys) if not _has_key(data, k)], "not in ruleset-dirt.yaml"
    assert not [k for k in sorted(gt_keys) if not _has_key(gt, k)], "not in ruleset-gt.yaml"
    dirt_table, gt_table = DOC.split("\n## Where the DEFAULT numbers live", 1)[1].split(
        "| GT key |", 1
    )
    listed = set(re.findall(r"^\| `(\w+)` \|", dirt_table, flags=re.MULTILINE))
    assert listed == set(data) - {"format", "id", "title"}, "the table lists every key"
    gt_listed = set(re.findall(r"^\| `(\w+)` \|", gt_table, flags=re.MULTILINE))
    assert gt_listed == set(gt) - {"format", "id", "title"}, "the GT table lists every key"


def _pointers_outside(path: Path) -> list[str]:
    text = _read(path) or ""
    return [
        f"{path.relative_to(REPO).as_posix()}:{n}"
        for n, line in enumerate(text.splitlines(), start=1)
        if OUTSIDE.search(line)
    ]


def test_no_file_points_to_rule_texts_outside_the_repository() -> None:
    files = [p for p in _text_files([REPO]) if p != REPO / "README.md"]
    assert len(files) > 50 and Path(__file__).resolve() in files  # the walk covers the repo
    found = [hit for p in files for hit in _pointers_outside(p)]
    assert not found, "point to docs/rules.md instead:\n  " + "\n  ".join(found)


def test_the_readme_points_to_the_rules_reference_only() -> None:
    assert not _pointers_outside(REPO / "README.md")


def test_the_pattern_catches_a_pointer_outside() -> None:
    # (put together here, so that this file itself points nowhere)
    assert OUTSIDE.search("see ../shared/" + "rules/")
    assert OUTSIDE.search("the " + "RULES" + ".md file")
    assert OUTSIDE.search("RULES = REPO.parent / " + '"shared"' + ' / "rules"')
    assert not OUTSIDE.search("see docs/rules.md and ../shared/data/README.md")
