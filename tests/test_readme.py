"""The README's command blocks run as written, top to bottom, in a fresh clone.

Every stage, simulation or replay file a command reads is one the repository holds or one
an earlier command of the README writes (``-o FILE``, ``--replay FILE``, ``> FILE``); the
studio's file is the exception, as the studio makes the file it is given.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FILE = re.compile(r"^[\w./-]+\.(?:yaml|yml|json|rgt)$")
#: Options whose value is a file the command writes.
WRITES = {"-o", "--out", "--replay"}


def _commands(readme: str) -> list[list[str]]:
    """The trackkit commands of the README's ``sh`` blocks, in order (words, no comments)."""
    commands: list[list[str]] = []
    for block in re.findall(r"^```sh\n(.*?)^```", readme, flags=re.M | re.S):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            for part in re.split(r"&&|;", line):
                words = shlex.split(part, comments=True)
                if words and words[0].endswith("trackkit"):
                    commands.append(words)
    return commands


def test_readme_commands_read_only_files_that_exist_or_that_an_earlier_command_wrote() -> None:
    commands = _commands((REPO / "README.md").read_text("utf-8"))
    assert len(commands) > 30  # the blocks were found
    written: set[str] = set()
    missing: list[str] = []
    for words in commands:
        outputs = {words[i + 1] for i, w in enumerate(words[:-1]) if w in WRITES or w == ">"}
        for word in words[1:]:
            if word in outputs or not FILE.match(word) or words[1] == "studio":
                continue
            if word not in written and not (REPO / word).exists():
                missing.append(f"{' '.join(words)}: {word}")
        written |= outputs
    assert not missing, "read before anything writes them:\n" + "\n".join(missing)
