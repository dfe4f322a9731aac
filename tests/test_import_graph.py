"""The package's own imports form no cycle, at module level or inside functions.

An import written inside a function can hide a cycle: the package still imports, but the two
modules cannot be read, tested or moved apart. This test reads every module of ``popresume``
with :mod:`ast` (nothing is imported), collects every import of the package's own modules
wherever it is written, and asserts that the graph has no cycle, in two resolutions:

* modules: ``a`` imports ``b`` (importing ``popresume.x.y`` also runs ``popresume.x``'s
  ``__init__``, so that package counts too, except for a module's own enclosing packages,
  which are already being imported when it runs; a module that imports a name from its own
  package's ``__init__`` does count, as ``causal/roles.py`` reading ``estimate_pse`` from
  ``popresume.causal`` did);
* layers (``popresume.population``, ``popresume.screeners``, ``popresume.plots``, ...): the
  pipeline reads in one direction, so no two layers import each other through any pair of
  their modules.

``popresume.cli`` needs no exception: its verbs are loaded by name when the command runs, and
no module outside ``cli`` imports it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import popresume

ROOT = Path(popresume.__file__).parent


def module_names(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file under the package."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(name: str, modules) -> str | None:
    """The module a dotted name lives in (``popresume.x.f`` -> ``popresume.x``)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported_names(node: ast.AST, module: str, is_package: bool, modules) -> list[str]:
    """The modules an import statement loads: ``from p import name`` loads ``p.name`` when
    that is a module, else ``p`` itself."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = module.split(".") if is_package else module.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        return [f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names]
    return []


def import_graph(root: Path = ROOT) -> dict[str, dict[str, int]]:
    """module -> {imported module of the package: first line number}, every import counted,
    module level and inside functions alike."""
    modules = module_names(root)
    top = root.name
    graph: dict[str, dict[str, int]] = {m: {} for m in modules}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            for name in _imported_names(node, module, is_package, modules):
                if not (name == top or name.startswith(top + ".")):
                    continue
                target = _resolve(name, modules)
                if target is None or target == module:
                    continue
                graph[module].setdefault(target, node.lineno)  # even the module's own package
                # importing a.b.c runs a and a.b too, except the importer's own enclosing
                # packages, which are already being imported when it runs
                parent = target.rpartition(".")[0]
                while parent:
                    if parent != module and not module.startswith(parent + "."):
                        graph[module].setdefault(parent, node.lineno)
                    parent = parent.rpartition(".")[0]
    return graph


def find_cycles(graph: dict[str, dict[str, int] | set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted:
    every one holds at least one cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # recursion depth is bounded by the package's size
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def layer_graph(graph: dict[str, dict[str, int]], depth: int = 2) -> dict[str, dict[str, str]]:
    """Collapse modules to their layer (the first ``depth`` name parts): layer -> {layer:
    one "a -> b (line n)" import that links them}."""
    layer = lambda m: ".".join(m.split(".")[:depth])  # noqa: E731
    out: dict[str, dict[str, str]] = {}
    for a, targets in graph.items():
        for b, line in targets.items():
            la, lb = layer(a), layer(b)
            if la != lb:
                out.setdefault(la, {}).setdefault(lb, f"{a} -> {b} (line {line})")
    return out


def describe(cycles, graph) -> str:
    lines = []
    for comp in cycles:
        lines.append(" <-> ".join(comp))
        for a in comp:
            for b, where in sorted(graph.get(a, {}).items()):
                if b in comp:
                    lines.append(f"    {a} imports {b}" + (f" (line {where})" if isinstance(where, int) else
                                                         f": {where}"))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the checker itself
def test_find_cycles_on_small_graphs():
    assert find_cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {}}) == []
    assert find_cycles({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}) == [["a", "b", "c"]]
    two = find_cycles({"a": {"b": 1}, "b": {"a": 1}, "c": {"d": 1}, "d": {"c": 1}, "e": {}})
    assert two == [["a", "b"], ["c", "d"]]


def test_import_graph_sees_function_level_relative_and_package_imports(tmp_path):
    pkg = tmp_path / "toy"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from toy.sub import inner\n")
    (pkg / "sub" / "inner.py").write_text("from . import sibling\n")
    (pkg / "sub" / "late.py").write_text("def f():\n    from toy.sub import inner\n")
    (pkg / "sub" / "back.py").write_text("def f():\n    from toy.sub import helper\n")  # a name in sub/__init__
    (pkg / "sub" / "sibling.py").write_text("")
    (pkg / "a.py").write_text("import os\n\ndef f():\n    from toy.b import g\n    return g\n")
    (pkg / "b.py").write_text("from .a import f\nfrom toy.sub.sibling import x\n")
    graph = import_graph(pkg)
    assert graph["toy.a"] == {"toy.b": 4}  # inside a function, and os is not the package's
    assert set(graph["toy.b"]) == {"toy.a", "toy.sub.sibling", "toy.sub"}  # the package __init__ runs too
    assert graph["toy.sub.inner"] == {"toy.sub.sibling": 1}  # its own package is not an edge
    assert graph["toy.sub.late"] == {"toy.sub.inner": 2}
    assert graph["toy.sub.back"] == {"toy.sub": 2}
    (pkg / "sub" / "__init__.py").write_text("from toy.sub import inner\nfrom toy.sub.back import f\n")
    graph = import_graph(pkg)
    assert find_cycles(graph) == [["toy.a", "toy.b"], ["toy.sub", "toy.sub.back"]]
    assert "toy.a imports toy.b (line 4)" in describe(find_cycles(graph), graph)
    # layers: toy.sub's modules never import toy.a or toy.b, so no layer cycle beyond a <-> b
    layers = layer_graph(graph)  # a cycle inside one layer is not one between layers
    assert find_cycles(layers) == [["toy.a", "toy.b"]]
    assert "toy.sub" in layers["toy.b"] and "toy.b" not in layers.get("toy.sub", {})


# ---------------------------------------------------------------------------- the package
def test_the_package_has_no_import_cycle():
    graph = import_graph()
    assert len(graph) > 50 and any(graph.values())  # it did read the package
    cycles = find_cycles(graph)
    assert not cycles, "import cycles between modules:\n" + describe(cycles, graph)


def test_the_pipeline_layers_import_one_way():
    layers = layer_graph(import_graph())
    assert "popresume.population" in layers["popresume.screeners"]  # the validity gate draws profiles
    cycles = find_cycles(layers)
    assert not cycles, "layers that import each other:\n" + describe(cycles, layers)


# ---------------------------------------------------------------------------- the documented order
def documented_layer_order(text: str) -> list[list[str]]:
    """The layers of docs/DESIGN.md §1's "**Layer order:**" paragraph, left to right; the
    layers between two arrows are one rank."""
    start = text.index("**Layer order:**")
    para = text[start:text.index("\n\n", start)]
    import re

    return [re.findall(r"`([a-z_0-9]+)`", part) for part in para.split("→")]


def order_violations(layers: dict[str, dict[str, str]], order: list[list[str]], top: str = "popresume"
                     ) -> tuple[list[str], list[str]]:
    """(layers of the package the order does not name, imports of a layer to the right)."""
    rank = {f"{top}.{name}": i for i, names in enumerate(order) for name in names}
    exempt = {top, f"{top}.__main__"}  # the package's __init__ and ``python -m`` entry point
    present = set(layers) | {b for targets in layers.values() for b in targets}
    missing = sorted(name for name in present - exempt if name not in rank)
    wrong = [f"{a} imports {b}: {where}" for a, targets in sorted(layers.items()) if a not in exempt
             for b, where in sorted(targets.items()) if a in rank and b in rank and rank[b] > rank[a]]
    return missing, wrong


def test_the_order_check_on_a_small_graph():
    text = "x\n\n**Layer order:** `a` → `b`, `c` → `d`.\n\nmore"
    order = documented_layer_order(text)
    assert order == [["a"], ["b", "c"], ["d"]]
    layers = {"p.d": {"p.b": "d -> b"}, "p.b": {"p.c": "b -> c", "p.a": "b -> a"}, "p.c": {"p.b": "c -> b"}}
    assert order_violations(layers, order, "p") == ([], [])  # same rank may import each other
    layers["p.a"] = {"p.d": "a -> d (line 3)"}
    layers["p.e"] = {}
    assert order_violations(layers, order, "p") == (["p.e"], ["p.a imports p.d: a -> d (line 3)"])


def test_the_layers_follow_the_documented_order():
    design = (ROOT.parent / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    order = documented_layer_order(design)
    missing, wrong = order_violations(layer_graph(import_graph()), order)
    assert not missing, f"layers missing from docs/DESIGN.md §1's layer order: {missing}"
    assert not wrong, "imports against docs/DESIGN.md §1's layer order:\n" + "\n".join(wrong)


def layer_diagram(order: list[list[str]]) -> str:
    """DESIGN.md §1's diagram, drawn from the layer order: one row per rank, the highest rank
    on top; a row imports only the rows below it (and, without a cycle, its own)."""
    return "\n  ▲\n".join(" · ".join(names) for names in reversed(order))


def test_the_diagram_is_the_layer_order():
    design = (ROOT.parent / "docs" / "DESIGN.md").read_text(encoding="utf-8")
    section = design[design.index("## 1. "):design.index("## 2. ")]
    drawn = section.split("```\n")[1].rstrip("\n")  # the section's first code block
    expected = layer_diagram(documented_layer_order(design))
    assert drawn == expected, "docs/DESIGN.md §1's diagram is not its layer order; draw it as:\n" + expected
