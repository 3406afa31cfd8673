"""trackkit's modules import one another without a cycle (issue 20 item 1).

The graph is read from the source with :mod:`ast`, as Python runs it: an import inside a
function counts (it runs when the function does), one under ``if TYPE_CHECKING:`` does
not (it never runs), and ``from pkg import name`` is an import of the submodule
``pkg.name`` when there is one, else of the package ``pkg``. The parent packages Python
imports on the way (``trackkit``, ``trackkit.sim``) are not edges: a package's
``__init__`` re-exporting its modules would make every module a cycle with it.

A cycle is a strongly connected component of the graph (networkx); the failure names
each import that closes it, with its file and line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
from stagekit import REPO

#: Cycles allowed while the work removing them is not merged yet: none are left (the
#: last two, ``sim.race`` <-> ``sim.gt`` and ``sim.stats`` <-> ``sim.gtstats``, went with
#: issue 20's one race loop and typed results). Keep it empty.
BEING_REMOVED: frozenset[frozenset[str]] = frozenset()


@dataclass(frozen=True, slots=True)
class Edge:
    """One import: where it stands."""

    path: str
    line: int


def _modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package below ``root``, by dotted name."""
    out: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that runs: those under ``if TYPE_CHECKING:`` left out (its
    ``else:`` branch runs, and is kept)."""
    out: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node.test):
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            out.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def _base(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, node.module] if node.module else package)


def import_graph(root: Path, package: str = "trackkit") -> nx.DiGraph:
    """The modules of ``package`` (below ``root``) and the imports between them.

    Each edge carries ``where``: the :class:`Edge` (file and line) of every import
    statement that makes it.
    """
    modules = _modules(root, package)
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _base(name, path, node)
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            where = Edge(str(path.relative_to(root)), node.lineno)
            for target in dict.fromkeys(targets):
                if target in modules and target != name:
                    graph.add_edge(name, target)
                    graph.edges[name, target].setdefault("where", []).append(where)
    return graph


def cycles(graph: nx.DiGraph) -> list[frozenset[str]]:
    """The import cycles: strongly connected components of more than one module."""
    return sorted(
        (frozenset(c) for c in nx.strongly_connected_components(graph) if len(c) > 1),
        key=sorted,
    )


def describe(graph: nx.DiGraph, component: frozenset[str]) -> str:
    """A cycle: one loop through it, then every import between its modules, each with
    its file and line."""
    inside = graph.subgraph(component)
    loop = nx.find_cycle(inside)
    lines = [" -> ".join([*(u for u, _v in loop), loop[0][0]])]
    for u, v in sorted(inside.edges):
        places = ", ".join(f"{e.path}:{e.line}" for e in graph.edges[u, v]["where"])
        lines.append(f"  {u} imports {v} at {places}")
    return "\n".join(lines)


def test_trackkit_has_no_import_cycle() -> None:
    graph = import_graph(REPO)
    found = [c for c in cycles(graph) if c not in BEING_REMOVED]
    assert not found, "import cycles (move what one side needs to where both can import it):\n" + (
        "\n".join(describe(graph, c) for c in found)
    )


def test_the_cycles_being_removed_are_the_only_ones_allowed_and_still_there() -> None:
    # when a branch removing one of them is merged, this fails: empty BEING_REMOVED of it
    found = set(cycles(import_graph(REPO)))
    assert len(BEING_REMOVED) <= 2
    gone = [sorted(c) for c in BEING_REMOVED if c not in found]
    assert not gone, f"these cycles are gone: take them out of BEING_REMOVED: {gone}"


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / "pkg" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_the_graph_counts_imports_as_python_runs_them(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "from pkg.a import f\n",
            "a.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from pkg import b\n"
                "else:\n"
                "    import pkg.d\n"
                "def f():\n"
                "    from pkg.sub import c\n"
            ),
            "b.py": "from . import a\n",
            "d.py": "X = 1\n",
            "sub/__init__.py": "",
            "sub/c.py": "from ..b import a\nfrom .. import d\nfrom pkg.sub import VALUE\n",
        },
    )
    graph = import_graph(root, "pkg")
    assert set(graph.edges) == {
        ("pkg", "pkg.a"),  # from pkg.a import f: the module pkg.a
        ("pkg.a", "pkg.d"),  # the else of TYPE_CHECKING runs; its if does not (no a -> b)
        ("pkg.a", "pkg.sub.c"),  # inside a function: counted; 'from pkg.sub import c'
        ("pkg.b", "pkg.a"),  # 'from . import a': the submodule
        ("pkg.sub.c", "pkg.b"),  # 'from ..b import a': a name of pkg.b
        ("pkg.sub.c", "pkg.d"),
        ("pkg.sub.c", "pkg.sub"),  # a name of the package pkg.sub: its __init__
    }
    assert graph.edges["pkg.a", "pkg.sub.c"]["where"] == [Edge("pkg/a.py", 7)]
    # the import inside f closes a cycle: a -> sub.c -> b -> a
    assert cycles(graph) == [frozenset({"pkg.a", "pkg.b", "pkg.sub.c"})]


def test_a_cycle_is_found_and_named_with_its_lines(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "import pkg.b\n",
            "b.py": "X = 1\ndef f():\n    from pkg.c import Y\n",
            "c.py": "from pkg import a\n",
            "d.py": "from pkg import a\n",
        },
    )
    graph = import_graph(root, "pkg")
    assert cycles(graph) == [frozenset({"pkg.a", "pkg.b", "pkg.c"})]
    text = describe(graph, cycles(graph)[0])
    assert "pkg.b imports pkg.c at pkg/b.py:3" in text
    assert "pkg.a imports pkg.b at pkg/a.py:1" in text
    assert "pkg.c imports pkg.a at pkg/c.py:1" in text
