"""What the core runs, the apps above it register (issue 34): no module names a management command or a Celery task
of a layer above its own by string, where import-linter cannot see it (``call_command("export_audit")`` in
``fees.months``, ``"signage.tasks.print_batch"`` in ``cardroom.jobs``). An app that needs what an upper app does
runs what that app registered with it from its ``AppConfig.ready``.

The layers are .importlinter's. The settings module's beat schedule names tasks of every app: that is what it is for.
Code outside the layers (tests, benchmarks) may name anything."""

import ast
import configparser
from pathlib import Path

from django.conf import settings

from tests.sources import module_name, sources

ROOT = Path(settings.BASE_DIR)
SETTINGS = Path(*settings.SETTINGS_MODULE.split(".")).with_suffix(".py")


def layers():
    """{app: rank}, the core 0, from .importlinter's layers contract (listed top first). Apps on one line
    (``console | demo``) share a rank: neither may name the other either."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    lines = [line for line in config["importlinter:contract:layers"]["layers"].splitlines() if line.strip()]
    return {app.strip(): rank for rank, line in enumerate(reversed(lines)) for app in line.split("|")}


def _text(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _called(node):
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)


def _is_task(decorator):
    """``@shared_task``, ``@app.task`` or either called with options."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return getattr(target, "id", None) == "shared_task" or getattr(target, "attr", None) in ("shared_task", "task")


def owners(trees):
    """{("command", name): app} for every management command; {("task", name): app} for every Celery task (its
    ``name=``, or its module's path and its function's name, as Celery names it)."""
    found = {}
    for path, tree in trees:
        if path.parts[1:3] == ("management", "commands") and path.stem != "__init__":
            found["command", path.stem] = path.parts[0]
        module = module_name(path)
        functions = (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef))
        for function, decorator in ((f, d) for f in functions for d in f.decorator_list if _is_task(d)):
            given = {k.arg: _text(k.value) for k in getattr(decorator, "keywords", ())}.get("name")
            found["task", given or f"{module}.{function.name}"] = path.parts[0]
    return found


def named(tree, tasks):
    """{(line, "command" | "task", name)}: the commands ``call_command`` runs by name, the tasks sent by name
    (``send_task``, ``signature``) and every string that is a task's name (a table of them, say)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and (text := _text(node.args[0])):
            if _called(node) == "call_command":
                found.add((node.lineno, "command", text))
            elif _called(node) in ("send_task", "signature"):
                found.add((node.lineno, "task", text))
        elif _text(node) in tasks:
            found.add((node.lineno, "task", node.value))
    return found


def crossings(trees):
    """Each place a layered module names a command or task of an app at its own layer or above (its own app's
    are its own), as a sentence."""
    rank, owner = layers(), owners(trees)
    tasks = {name for kind, name in owner if kind == "task"}
    found = []
    for path, tree in trees:
        app = path.parts[0]
        if app not in rank or path == SETTINGS:
            continue
        for line, kind, name in sorted(named(tree, tasks)):
            other = owner.get((kind, name))  # None: another library's (Django's migrate, say)
            if other is not None and other != app and rank[other] >= rank[app]:
                found.append(f"{path}:{line} names the {kind} {name!r} of {other}, which {app} stands below: "
                             f"let {other} register it with {app} from its AppConfig.ready")
    return found


def test_no_layer_names_a_command_or_task_of_a_layer_above_it():
    assert crossings(sources()) == []


def test_the_walk_sees_the_names_it_judges():
    """No empty pass: the walk finds the commands, the tasks and the places they are named."""
    trees = dict(sources())
    owner = owners(sources())
    assert owner["command", "export_audit"] == "exports" and owner["command", "load_seed_data"] == "cardroom"
    assert owner["task", "signage.tasks.print_batch"] == "signage"
    assert owner["task", "fees.imports.import_records"] == "fees"  # named where it is declared
    tasks = {name for kind, name in owner if kind == "task"}
    load_demo = named(trees[Path("demo/management/commands/load_demo.py")], tasks)
    assert ("command", "load_seed_data") in {(kind, name) for _, kind, name in load_demo}
    assert ("task", "compliance.tasks.send_daily_digest") in {(kind, name) for _, kind, name in
                                                               named(trees[SETTINGS], tasks)}


def test_a_core_module_naming_an_upper_command_or_task_is_caught():
    tree = ast.parse('call_command("export_audit")\nTASKS = {"batch": "signage.tasks.print_batch"}\n'
                     'current_app.send_task("exports.tasks.export_audit")\ncall_command("migrate")\n')
    said = [line for line in crossings([*sources(), (Path("cardroom/made_up.py"), tree)])
            if line.startswith("cardroom/made_up.py")]
    assert [line.split(" names the ")[1].split(",")[0] for line in said] == [
        "command 'export_audit' of exports", "task 'signage.tasks.print_batch' of signage",
        "task 'exports.tasks.export_audit' of exports"]
