"""The repository's Python source, parsed once: what the tests that judge the code's shape walk."""

import ast
import functools
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The apps: what .importlinter's root packages name, and what the graph tests judge.
APPS = ("project", "cardroom", "fees", "compliance", "signage", "exports", "console", "demo")


@functools.cache
def sources():
    """[(path relative to the repository, its syntax tree)] of every Python file but the virtualenv's and other
    hidden folders'."""
    return list(_walk())


def _walk():
    for folder, folders, files in os.walk(ROOT):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f not in ("__pycache__", "node_modules"))
        for name in sorted(files):
            if name.endswith(".py"):
                path = Path(folder, name)
                yield path.relative_to(ROOT), ast.parse(path.read_text(), str(path))


def module_name(path):
    """``signage/render/__init__.py`` is ``signage.render``; ``signage/render/sign.py`` is ``signage.render.sign``."""
    parts = path.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def app_sources():
    """[(module name, path, its syntax tree)] of the apps' modules, their migrations and tests left out."""
    return [(module_name(path), path, tree) for path, tree in sources()
            if path.parts[0] in APPS and not {"migrations", "tests"} & set(path.parts)]
