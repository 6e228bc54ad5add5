"""The apps' modules import one another in one direction and through public names only (issue 34).

The graph: every module of the apps (migrations and tests left out) and, for each import statement, wherever it
stands (top level, inside a function, under ``if TYPE_CHECKING:``), one edge per name imported, from the importing
module to the project module it names: ``from pkg import name`` leads to ``pkg.name`` when that is a submodule, else
to ``pkg`` itself; ``import a.b.c`` leads to ``a.b.c``; relative imports are resolved first.

No circle: no strongly connected component of more than one module. A parent package is not counted as imported by
its submodules (Python runs it first, but counting it would make every package whose ``__init__`` re-exports its
submodules a circle); so such an ``__init__`` is in a circle only when one of its submodules, directly or through
others, imports a name from the package itself back, which is a circle at import time.

No private import: no module takes a name with one leading underscore from another project module, neither
``from x import _y`` nor ``x._y`` on a project module it imported. Dunder names (``__version__``) are public. A
name other modules need is public, or lives in a shared module both import."""

import ast
from pathlib import Path

from tests.sources import app_sources


def _is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_package(path):
    return path.name == "__init__.py"


def _base(module, path, node):
    """The absolute module an ``ImportFrom`` names (``from ..x import y`` in ``a.b.c`` is ``a.x``)."""
    if not node.level:
        return node.module
    package = module if _is_package(path) else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        package = package.rpartition(".")[0]
    return ".".join(part for part in (package, node.module) if part)


def _deepest(name, modules):
    """The longest project module ``name`` starts with (``a.b.c`` imported as a module may be a name in ``a.b``)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in modules:
            return ".".join(parts[:end])
    return None


def read(module, path, tree, modules):
    """([(line, imported module)], [(line, private name, its module)]) of one module, project modules only."""
    edges, private, bound = [], [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _deepest(alias.name, modules)
                if target:
                    edges.append((node.lineno, target))
                if alias.asname and alias.name in modules:
                    bound[alias.asname] = alias.name
                elif not alias.asname and alias.name.split(".")[0] in modules:
                    bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, path, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    edges.append((node.lineno, f"{base}.{alias.name}"))
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
                elif base in modules:
                    edges.append((node.lineno, base))
                    if _is_private(alias.name) and base != module:
                        private.append((node.lineno, alias.name, base))

    def owner(node):
        """The project module an expression names, if it names one (``made_up.b`` when ``made_up`` is bound)."""
        if isinstance(node, ast.Name):
            return bound.get(node.id)
        if isinstance(node, ast.Attribute) and (parent := owner(node.value)):
            return f"{parent}.{node.attr}" if f"{parent}.{node.attr}" in modules else None
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            if (base := owner(node.value)) and base != module:
                private.append((node.lineno, node.attr, base))
    return sorted(set(edges)), sorted(set(private))


def _components(graph):
    """The strongly connected components of ``{module: {imported modules}}`` (Tarjan's, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, following = work[-1]
            for nxt in following:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while (member := stack.pop()) != node:
                        component.add(member)
                    component.add(node)
                    on_stack.difference_update(component)
                    found.append(component)
    return found


def circles(sources):
    """One sentence per circle: its modules and the imports that close it (file:line)."""
    modules = {module for module, _, _ in sources}
    graph, where = {module: set() for module in modules}, {}
    for module, path, tree in sources:
        for line, target in read(module, path, tree, modules)[0]:
            if target != module:
                graph[module].add(target)
                where.setdefault((module, target), f"{path}:{line}")
    said = []
    for component in _components(graph):
        if len(component) > 1:
            inside = sorted((a, b) for a in component for b in graph[a] if b in component)
            said.append(f"circle {' '.join(sorted(component))}: " +
                        "; ".join(f"{a} -> {b} ({where[a, b]})" for a, b in inside))
    return sorted(said)


def private_imports(sources):
    """One sentence per private name a module takes from another: file, line, name."""
    modules = {module for module, _, _ in sources}
    return [f"{path}:{line} takes {name} from {base}"
            for module, path, tree in sources for line, name, base in read(module, path, tree, modules)[1]]


def test_no_modules_import_each_other_in_a_circle():
    found = circles(app_sources())
    assert not found, "\n".join(found)


def test_no_module_imports_another_modules_private_name():
    found = private_imports(app_sources())
    assert not found, "\n".join(found)


def test_the_walk_sees_the_apps_and_their_imports():
    """No empty pass: every app is walked, migrations and tests are not, and known imports are edges."""
    sources = app_sources()
    modules = {module for module, _, _ in sources}
    assert {module.split(".")[0] for module in modules} == {
        "project", "cardroom", "fees", "compliance", "signage", "exports", "console", "demo"}
    assert not [module for module in modules if ".migrations" in module or ".tests" in module]
    postings = next((module, path, tree) for module, path, tree in sources if module == "signage.postings")
    assert "cardroom.audit" in {target for _, target in read(*postings, modules)[0]}


def _made_up(files):
    return [(path.removesuffix(".py").removesuffix("/__init__").replace("/", "."), Path(path), ast.parse(text))
            for path, text in files.items()]


def test_a_circle_is_caught():
    said = circles(_made_up({
        "made_up/__init__.py": "from .a import shown\n",  # re-exporting: no circle by itself
        "made_up/a.py": "shown = 1\n",
        "made_up/b.py": "from made_up import c\n",
        "made_up/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import d\n",
        "made_up/d.py": "def later():\n    import made_up.b\n",
        "made_up/e.py": "from .f import x\n",
        "made_up/f.py": "from . import e\n",
        "made_up/g.py": "from made_up import shown\n",  # takes a name from the package: a circle only if
    }))                                                  # the package imported g back
    assert said == [
        "circle made_up.b made_up.c made_up.d: made_up.b -> made_up.c (made_up/b.py:1); "
        "made_up.c -> made_up.d (made_up/c.py:3); made_up.d -> made_up.b (made_up/d.py:2)",
        "circle made_up.e made_up.f: made_up.e -> made_up.f (made_up/e.py:1); made_up.f -> made_up.e (made_up/f.py:1)"]


def test_a_package_whose_submodule_imports_it_back_is_a_circle():
    said = circles(_made_up({"made_up/__init__.py": "from .a import shown\n",
                             "made_up/a.py": "from made_up import other\nshown = 1\n"}))
    assert said == ["circle made_up made_up.a: made_up -> made_up.a (made_up/__init__.py:1); "
                    "made_up.a -> made_up (made_up/a.py:1)"]


def test_a_private_import_is_caught():
    said = private_imports(_made_up({
        "made_up/__init__.py": "__version__ = 1\n",
        "made_up/a.py": "_hidden = 1\n_mine = 2\nprint(_mine)\n",
        "made_up/b.py": "from .a import _hidden, public\nfrom made_up import __version__\n",
        "made_up/c.py": "import made_up.a\n\ndef f():\n    return made_up.a._hidden\n",
        "made_up/d.py": "from . import a as alias\nalias._hidden\nimport os\nos._exit\n",
    }))
    assert said == ["made_up/b.py:1 takes _hidden from made_up.a", "made_up/c.py:4 takes _hidden from made_up.a",
                    "made_up/d.py:2 takes _hidden from made_up.a"]
