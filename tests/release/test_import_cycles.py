"""No import cycles in fracas (src/fracas and the bridge, installed as fracas.bridge): each
module's imports of the package's own modules, read with ast (at the top, in functions and
in try/if blocks alike; `if TYPE_CHECKING:` blocks aside), form no cycle. A lazy import
inside a function does not hide one: the layers below must not reach back up, or the shared
piece moves down a layer.

And the layers themselves (issue 45 item 5), one way: the core (dice, kernels, requests,
errors, …) ← the rulesets ← the drive (encounters, fights, simulations) ← the public facade
(`fracas`) ← the command line, the bridge and the release tools. A module imports its own
layer or lower ones; an upward import that must stay a while is listed with why (UPWARD,
empty now: the rulesets' own commands roll through `fracas.rulesets.cmdkit` and
`fracas.rulesets.rolling`, not the facade), and the test fails on a new one as on one that
is gone."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
#: Other source folders installed inside the package: the bridge is fracas.bridge (setup.py).
MOUNTED = {"fracas.bridge": SRC.parent / "bridge", "fracas.benchmarks": SRC.parent / "benchmarks"}

#: Cycles another change is removing, each with why it is still here. The test fails
#: when one of them is gone, so the entry goes with it.
KNOWN: dict[frozenset[str], str] = {}


def _modules(src: Path, package: str, mounted: dict[str, Path] | None = None) -> dict[str, tuple[Path, bool]]:
    """Dotted name → (file, is a package's __init__), for every .py file of `package` (and of
    the folders `mounted` inside it, dotted name → folder)."""
    found = {}
    roots = [(src / package, package), *((folder, name) for name, folder in (mounted or {}).items())]
    for top, dotted in roots:
        for path in sorted(top.rglob("*.py")):
            parts = [*dotted.split("."), *path.relative_to(top).with_suffix("").parts]
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, except those under `if TYPE_CHECKING:`."""
    out: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def _names_defined(tree: ast.Module) -> set[str]:
    """Names a package's __init__ binds at its top (so `from pkg import name` reads it)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def import_graph(src: Path, package: str, mounted: dict[str, Path] | None = None) -> dict[str, set[str]]:
    """Module → the package's modules it imports. `from pkg import x` is the module
    pkg.x when there is one, else pkg itself when its __init__ binds x (a compiled
    extension, found in neither, is no edge)."""
    modules = _modules(src, package, mounted)
    trees = {name: ast.parse(path.read_text(encoding="utf-8"), str(path)) for name, (path, _) in modules.items()}
    defined = {name: _names_defined(trees[name]) for name, (_, is_package) in modules.items() if is_package}
    graph: dict[str, set[str]] = {}
    for name, (_path, is_package) in modules.items():
        here = name if is_package else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in _imports(trees[name]):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names if alias.name in modules)
                continue
            if node.level:
                parts = here.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    edges.add(f"{base}.{alias.name}")
                elif base in modules and (base not in defined or alias.name == "*" or alias.name in defined[base]):
                    edges.add(base)
        edges.discard(name)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return sorted(found)


@pytest.mark.skipif(not (SRC / "fracas").is_dir(), reason="not run from a source checkout")
def test_src_fracas_has_no_import_cycle():
    found = cycles(import_graph(SRC, "fracas", MOUNTED))
    unexpected = [c for c in found if frozenset(c) not in KNOWN]
    assert unexpected == [], "import cycles: " + "; ".join(" ↔ ".join(c) for c in unexpected)
    gone = [why for c, why in KNOWN.items() if sorted(c) not in found]
    assert gone == [], f"a known cycle is gone: remove it from KNOWN ({gone})"


def test_the_scan_finds_a_cycle_hidden_in_a_function(tmp_path):
    """The check can fail: a lazy import back up, relative and absolute forms."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import a\nVALUE = 1\n")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("def later():\n    from .. import a\n    return a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import d\n")
    (pkg / "d.py").write_text("import pkg.c\nfrom pkg import VALUE\n")
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.sub.b"] == {"pkg.a"} and graph["pkg.d"] == {"pkg.c", "pkg"}
    assert cycles(graph) == [["pkg.a", "pkg.sub.b"]]  # pkg.c ↔ pkg.d is for type checking only


# ── the layers ─────────────────────────────────────────────────────────────────

#: Upward imports still here, each with why; a new one fails the test, and so does one that
#: is gone (its entry goes with it).
UPWARD: dict[tuple[str, str], str] = {}


def layer(module: str) -> int:
    """0 the core, 1 the rulesets, 2 the drive, 3 the public facade, 4 the command line, the
    bridge and the release and spec tools (the top)."""
    if module == "fracas":
        return 3
    if module == "fracas.__main__":  # `python -m fracas`: the command line
        return 4
    for prefix, rank in (("fracas.rulesets", 1), ("fracas.drive", 2), ("fracas.cli", 4), ("fracas.bridge", 4),
                         ("fracas.release", 4), ("fracas.spec", 4), ("fracas.benchmarks", 4)):
        if module == prefix or module.startswith(prefix + "."):
            return rank
    return 0


def upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(module, what it imports) where the import reaches a higher layer."""
    return {(module, imported) for module, edges in graph.items() for imported in edges
            if layer(imported) > layer(module)}


@pytest.mark.skipif(not (SRC / "fracas").is_dir(), reason="not run from a source checkout")
def test_the_layers_import_one_way():
    found = upward(import_graph(SRC, "fracas", MOUNTED))
    new = sorted(found - set(UPWARD))
    assert new == [], "imports up the layers (core ← rulesets ← drive ← fracas ← cli/bridge): " + "; ".join(
        f"{module} imports {imported}" for module, imported in new)
    gone = sorted(set(UPWARD) - found)
    assert gone == [], f"an upward import is gone: remove it from UPWARD ({gone})"


def test_the_layer_check_can_fail():
    graph = {"fracas.dice": {"fracas.drive.fight"}, "fracas.drive.fight": {"fracas.dice", "fracas.rulesets.base"},
             "fracas.rulesets.base": {"fracas.cli.common"}, "fracas.bridge.server": {"fracas", "fracas.drive"}}
    assert upward(graph) == {("fracas.dice", "fracas.drive.fight"), ("fracas.rulesets.base", "fracas.cli.common")}
