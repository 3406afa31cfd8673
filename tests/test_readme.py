"""The README and the usage guide: their commands run as written, their links lead somewhere.

Each page's command blocks run top to bottom in a fresh clone: every stage, simulation or
replay file a command reads is one the repository holds or one an earlier command of the same
page writes (``-o FILE``, ``--replay FILE``, ``> FILE``); the studio's file is the exception,
as the studio makes the file it is given. The README is the short tour and links into
``docs/usage.md``, the reference; every such link names a section the guide has.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest

import trackkit.rules

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
GUIDE = REPO / "docs" / "usage.md"
FILE = re.compile(r"^[\w./-]+\.(?:yaml|yml|json|rgt)$")
#: Options whose value is a file the command writes.
WRITES = {"-o", "--out", "--replay"}
#: A markdown link's target: ``[text](target)``.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _commands(page: str) -> list[list[str]]:
    """The trackkit commands of a page's ``sh`` blocks, in order (words, no comments)."""
    commands: list[list[str]] = []
    for block in re.findall(r"^```sh\n(.*?)^```", page, flags=re.M | re.S):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            for part in re.split(r"&&|;", line):
                words = shlex.split(part, comments=True)
                if words and words[0].endswith("trackkit"):
                    commands.append(words)
    return commands


def _read_before_written(commands: list[list[str]], root: Path) -> list[str]:
    """Each file a command reads that neither ``root`` holds nor an earlier command wrote."""
    written: set[str] = set()
    missing: list[str] = []
    for words in commands:
        outputs = {words[i + 1] for i, w in enumerate(words[:-1]) if w in WRITES or w == ">"}
        for word in words[1:]:
            if word in outputs or not FILE.match(word) or words[1] == "studio":
                continue
            if word not in written and not (root / word).exists():
                missing.append(f"{' '.join(words)}: {word}")
        written |= outputs
    return missing


@pytest.mark.parametrize(("page", "at_least"), [(README, 10), (GUIDE, 40)])
def test_commands_read_only_files_that_exist_or_that_an_earlier_command_wrote(
    page: Path, at_least: int
) -> None:
    commands = _commands(page.read_text("utf-8"))
    assert len(commands) >= at_least  # the blocks were found
    missing = _read_before_written(commands, REPO)
    assert not missing, f"{page.name}: read before anything writes them:\n" + "\n".join(missing)


def test_a_file_read_before_it_is_written_is_caught() -> None:
    page = (
        "```sh\n.venv/bin/trackkit render out.yaml -o map.svg\n"
        ".venv/bin/trackkit convert examples/hillclimb-pikes.rgt -o out.yaml\n```\n"
    )
    assert _read_before_written(_commands(page), REPO) == [
        ".venv/bin/trackkit render out.yaml -o map.svg: out.yaml"
    ]


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text("utf-8"), flags=re.M | re.S)
    return {_anchor(h) for h in re.findall(r"^#{1,6} +(.+)$", text, flags=re.M)}


def test_the_anchor_of_a_heading_is_githubs() -> None:
    assert _anchor("Rallyman: GT tracks") == "rallyman-gt-tracks"
    assert _anchor("Editor files, the `--kind`") == "editor-files-the---kind"


@pytest.mark.parametrize("page", [README, GUIDE], ids=["README", "usage"])
def test_every_link_leads_to_a_file_and_a_section_that_exist(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text("utf-8")):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and anchor not in _anchors(linked)):
            broken.append(target)
    assert not broken, f"{page.name}: links to nothing: {broken}"


def test_the_readme_is_a_short_tour_that_leaves_the_reference_to_the_guide() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) < 250  # reference material belongs in docs/usage.md
    jobs = ["design", "validate", "print", "simulate", "generate", "scripting"]
    for job in jobs:
        assert f"\n## {job.capitalize()}\n" in text, job
        assert f"docs/usage.md#{job}" in text, job
    assert set(jobs) <= _anchors(GUIDE)
    assert re.search(r"^- \[.+\]\(#.+\)$", GUIDE.read_text("utf-8"), flags=re.M)  # contents


def test_the_package_says_it_serves_both_series() -> None:
    description = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"][
        "description"
    ]
    rules = trackkit.rules.__doc__ or ""
    intro = README.read_text("utf-8").split("\n## ")[0]
    for text in (description, rules.split("\n\n")[0], intro):
        assert "Rallyman: DIRT" in text and "Rallyman: GT" in text, text
