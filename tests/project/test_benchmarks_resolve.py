"""Benchmarks that cannot rot (issue 43): every script in benchmarks/ names only what exists, through public names.

Two benchmarks once stopped running unseen (``fees.imports.receive`` and ``fees.ledger.intake._clean_rows`` had been
renamed), because nothing ran them. ``bin/bench --smoke`` runs them all at a tiny size; this test is the quick half,
with no database: it reads each script's syntax tree and checks against the real modules, wherever the statement
stands (top level or inside a function), that

- every module imported exists, and every ``from x import y`` finds ``y`` in ``x`` (a name or a submodule);
- every attribute read on an imported module or class exists (``imports.receive_upload``, ``Role.FLOOR_SUPERVISOR``),
  following the chain while it names modules and classes (``fees.ledger.check_entries``);
- every call of a function or class so named fits its signature: the keywords it passes exist, the positional
  arguments are not too many or too few (calls with ``*args`` or ``**kwargs`` are not judged);
- no name with a leading underscore is taken from a project module or class (a private name is what rots; Django's
  ``_meta`` is its public API). The benchmark's own helpers (``ledger_ingest``, ``support``) are read from their
  own files (importing them would run their set-up), the same way: names that exist, calls that fit.

A name bound both by an import and by something else in the same file (an assignment, a parameter) is not followed
past its import, since which one a line means depends on the scope.
"""

import ast
import importlib
import inspect
import types
from pathlib import Path

import pytest

from tests.sources import APPS, ROOT

BENCHMARKS = ROOT / "benchmarks"
PUBLIC_ANYWAY = {"_meta"}  # Django's model options: documented, public API despite the underscore


def _is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) and name not in PUBLIC_ANYWAY


def _is_project(value):
    module = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", "") or ""
    return module.split(".")[0] in APPS


class Local:
    """One of benchmarks/'s own modules, read from its file: its top-level names and its functions' signatures."""

    def __init__(self, name, tree):
        self.name, self.names, self.functions = name, set(), {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.names.add(node.name)
                self.functions[node.name] = _signature(node.args)
            elif isinstance(node, ast.ClassDef):
                self.names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                self.names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    self.names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _signature(arguments):
    """An inspect.Signature of a function's ``ast.arguments`` (defaults stand for themselves, not their values)."""
    kind = inspect.Parameter
    positional = arguments.posonlyargs + arguments.args
    first_default = len(positional) - len(arguments.defaults)
    parameters = [kind(a.arg, kind.POSITIONAL_ONLY if a in arguments.posonlyargs else kind.POSITIONAL_OR_KEYWORD,
                       **({"default": None} if i >= first_default else {})) for i, a in enumerate(positional)]
    if arguments.vararg:
        parameters.append(kind(arguments.vararg.arg, kind.VAR_POSITIONAL))
    parameters += [kind(a.arg, kind.KEYWORD_ONLY, **({} if d is None else {"default": None}))
                   for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)]
    if arguments.kwarg:
        parameters.append(kind(arguments.kwarg.arg, kind.VAR_KEYWORD))
    return inspect.Signature(parameters)


def local_modules():
    return {path.stem: Local(path.stem, ast.parse(path.read_text(), str(path))) for path in BENCHMARKS.glob("*.py")}


def _other_bindings(tree):
    """Names a file binds otherwise than by an import: assigned, defined, parameters, loop and ``as`` targets."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _chain(node):
    """(name, [attributes]) of ``name.a.b``; None for anything else."""
    attributes = []
    while isinstance(node, ast.Attribute):
        attributes.append(node.attr)
        node = node.value
    return (node.id, attributes[::-1]) if isinstance(node, ast.Name) else None


def problems(source, where="<script>", locals_=None):
    """One sentence per name in ``source`` (a benchmark script) that does not exist, is private, or is called with
    arguments its signature refuses."""
    locals_ = local_modules() if locals_ is None else locals_
    tree = ast.parse(source, where)
    found, bound, targets = [], {}, {}
    missing = object()

    def said(node, text):
        found.append(f"{where}:{node.lineno}: {text}")

    def bind(name, value):
        targets.setdefault(name, set()).add(id(value))
        bound[name] = value

    def member(owner, attribute, node, shown):
        """``owner.attribute`` (a module, a class or a Local), or ``missing`` after saying why."""
        if isinstance(owner, Local):
            if attribute not in owner.names:
                said(node, f"{shown}: benchmarks/{owner.name}.py has no {attribute}")
                return missing
            return (owner, attribute)
        if _is_private(attribute) and _is_project(owner):
            said(node, f"{shown}: {attribute} is private to {getattr(owner, '__name__', owner)}; a benchmark calls "
                       f"the public services")
        try:
            return getattr(owner, attribute)
        except AttributeError:
            pass
        if isinstance(owner, types.ModuleType):
            try:
                return importlib.import_module(f"{owner.__name__}.{attribute}")
            except ModuleNotFoundError:
                pass
        said(node, f"{shown}: {getattr(owner, '__name__', owner)} has no {attribute}")
        return missing

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in locals_:
                    bind(alias.asname or alias.name, locals_[alias.name.split(".")[0]])
                    continue
                try:
                    module = importlib.import_module(alias.name)
                except ImportError as error:
                    said(node, f"import {alias.name}: {error}")
                    continue
                bind(alias.asname or alias.name.split(".")[0],
                     module if alias.asname else importlib.import_module(alias.name.split(".")[0]))
        elif isinstance(node, ast.ImportFrom) and not node.level:
            if node.module in locals_:
                owner = locals_[node.module]
            else:
                try:
                    owner = importlib.import_module(node.module)
                except ImportError as error:
                    said(node, f"from {node.module} import ...: {error}")
                    continue
            for alias in node.names:
                if alias.name != "*":
                    value = member(owner, alias.name, node, f"from {node.module} import {alias.name}")
                    if value is not missing:
                        bind(alias.asname or alias.name, value)

    followed = {name for name, values in targets.items() if len(values) == 1} - _other_bindings(tree)

    def resolve(expression, node):
        """What ``name.a.b`` names, when ``name`` is an import followed here; None when it cannot be told."""
        chain = _chain(expression)
        if chain is None or chain[0] not in followed:
            return None
        value, shown = bound[chain[0]], chain[0]
        for attribute in chain[1]:
            if not (isinstance(value, (types.ModuleType, type, Local))):
                return None  # past an instance, a function, a local helper's member: not followed
            shown += f".{attribute}"
            value = member(value, attribute, node, shown)
            if value is missing:
                return missing
        return value

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            resolve(node, node)
        elif isinstance(node, ast.Call):
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                continue
            function = resolve(node.func, node)
            if function is None or function is missing:
                continue
            if isinstance(function, tuple):  # a Local's member
                local, name = function
                signature = local.functions.get(name)
            else:
                try:
                    signature = inspect.signature(function)
                except (TypeError, ValueError):
                    continue
            if signature is None:
                continue
            try:
                signature.bind(*[None] * len(node.args), **{k.arg: None for k in node.keywords})
            except TypeError as error:
                said(node, f"{ast.unparse(node.func)}(...): {error}")
    return sorted(set(found))


SCRIPTS = sorted(BENCHMARKS.glob("*.py"))


def test_the_benchmarks_are_found():
    assert len(SCRIPTS) >= 15, "benchmarks/ holds fewer scripts than it did: is this test reading the right folder?"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_a_benchmark_names_only_what_exists(script):
    found = problems(script.read_text(), f"benchmarks/{script.name}")
    assert not found, "A benchmark names what is not there (renamed?) or private:\n" + "\n".join(found)


def test_a_renamed_service_is_caught():
    source = ("def main(officer, room, upload):\n"
              "    from fees import imports\n"
              "    imports.receive(officer, room, upload)\n")
    assert problems(source) == ["<script>:3: imports.receive: fees.imports has no receive"]


def test_a_name_imported_that_is_gone_is_caught():
    assert problems("from fees.imports import receive, start_import\n") == [
        "<script>:1: from fees.imports import receive: fees.imports has no receive"]


def test_a_private_name_is_caught():
    source = "from fees.ledger import intake\nintake._Originals([], None)\n"
    assert problems(source) == [
        "<script>:2: intake._Originals: _Originals is private to fees.ledger.intake; a benchmark calls the public "
        "services"]


def test_a_keyword_the_service_does_not_take_is_caught():
    source = "from fees.imports import start_import\nstart_import(None, upload=None)\n"
    assert problems(source) == [
        "<script>:2: start_import(...): missing a required argument: 'record_import'"]
    source = "from fees import imports\nimports.start_import(None, None)\n"
    assert problems(source) == ["<script>:2: imports.start_import(...): too many positional arguments"]


def test_a_benchmark_helper_renamed_is_caught():
    source = "import ledger_ingest as setup\nsetup.prepare(clean=False)\nsetup.prepared(clean=False)\n" \
             "setup.prepare(tidy=True)\n"
    assert problems(source) == [
        "<script>:3: setup.prepared: benchmarks/ledger_ingest.py has no prepared",
        "<script>:4: setup.prepare(...): got an unexpected keyword argument 'tidy'",
    ]
