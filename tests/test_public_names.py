"""No trackkit module uses another module's private names (issue 20 item 7).

What one module needs of another is made public where it lives (or moved): an underscore
name is the business of its own module only. Checked on the source: every ``from
trackkit.X import _name`` and every ``module._name`` read through an imported trackkit
module, in every module of the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

from stagekit import REPO

PACKAGE = REPO / "trackkit"


def is_module(dotted: str) -> bool:
    """Whether ``trackkit.a.b`` names a module or package of trackkit."""
    base = REPO.joinpath(*dotted.split("."))
    return base.is_dir() or base.with_suffix(".py").is_file()


def private_uses(path: Path, module: str) -> list[str]:
    """Each use of another trackkit module's private name in ``path``: ``line: name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    modules: set[str] = set()  # local names bound to trackkit modules
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("trackkit"):
            if node.module == module:
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{node.lineno}: from {node.module} import {alias.name}")
                elif is_module(f"{node.module}.{alias.name}"):
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("trackkit.") and alias.asname:
                    modules.add(alias.asname)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_module_uses_another_modules_private_names() -> None:
    bad = {
        str(p.relative_to(REPO)): uses
        for p in sorted(PACKAGE.rglob("*.py"))
        if (uses := private_uses(p, module_name(p)))
    }
    assert not bad, "private names used across modules (make them public where they live):\n" + (
        "\n".join(f"{f}:{u}" for f, uses in bad.items() for u in uses)
    )


def test_a_private_import_and_a_private_attribute_are_found(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(
        "from trackkit.sim.stats import _hidden, race_seed\n"
        "from trackkit import limits\n"
        "limits._secret\n"
        "limits.MAX_PLAYERS\n"
    )
    assert private_uses(src, "pkg.m") == [
        "1: from trackkit.sim.stats import _hidden",
        "3: limits._secret",
    ]
