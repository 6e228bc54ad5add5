"""What the core runs or shows, the apps above it register (issues 34 and 44): no module names a management
command, a Celery task, a URL name or a template of a layer above its own by string, where import-linter cannot see
it (``call_command("export_audit")`` in ``fees.months``, ``"signage.tasks.print_batch"`` in ``cardroom.jobs``,
``reverse("console:home")`` in ``cardroom.witnessing``, ``"console/error.html"`` in ``cardroom.responses``). An app
that needs what an upper app has declares it (a ``cardroom.registry.Link``, a ``Page``) and the upper app registers
it from its ``AppConfig.ready``.

A URL name is its view's app's (the module that holds the view); a template is the app its folder names
(``templates/console/...``; ``templates/admin/<app>/...``). A template of a layer is judged as its Python is: the URL
names (``{% url %}``) and templates (``{% extends %}``, ``{% include %}``) it names.

The layers are .importlinter's. The settings module names tasks and modules of every app (the beat schedule, the
context processors): that is what it is for. Code outside the layers (tests, benchmarks) may name anything."""

import ast
import configparser
import inspect
import re
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.urls import URLResolver, get_resolver

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


def _app(module):
    return (getattr(module, "__name__", module) if isinstance(module, str) or hasattr(module, "__name__")
            else "").split(".")[0]


def url_owners():
    """{("url", name as ``reverse`` takes it, "console:home"): app} for every named URL pattern: the app whose module
    holds its view (a class-based view's class, a viewset's), or for another library's view (Django's logout) the
    app whose URLconf names it."""
    found = {}

    def walk(patterns, namespace, conf):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace,
                     _app(pattern.urlconf_name) or conf)
            elif pattern.name:
                callback = pattern.callback
                view = getattr(callback, "view_class", None) or getattr(callback, "cls", None) or inspect.unwrap(callback)
                app = _app(getattr(view, "__module__", ""))
                found.setdefault(("url", namespace + pattern.name), app if app in layers() else conf)
    walk(get_resolver().url_patterns, "", "")
    return found


def template_app(name):
    """The app a template is of, by its folder: ``console/error.html`` console's, ``admin/fees/...`` fees'; a
    model's admin page (``admin/<app>/<model>/...``), the app whose admin registers the model (signage's for
    ``fees.TablePosting``)."""
    parts = Path(name).parts
    if parts[0] != "admin" or len(parts) < 3:
        return parts[0]
    try:
        model_admin = admin.site.get_model_admin(apps.get_model(parts[1], parts[2]))
    except (LookupError, admin.sites.NotRegistered):
        return parts[1]
    return type(model_admin).__module__.split(".")[0]


def templates():
    """{name as the loader takes it: its text} of the project's own templates (templates/ and each app's)."""
    folders = [ROOT / "templates", *(ROOT / app / "templates" for app in layers())]
    return {str(path.relative_to(folder)): path.read_text()
            for folder in folders if folder.is_dir() for path in sorted(folder.rglob("*.html"))}


def owners(trees):
    """{(kind, name): app}: every management command ("command") and Celery task ("task": its ``name=``, or its
    module's path and its function's name, as Celery names it), every named URL ("url") and template
    ("template")."""
    found = {**url_owners(), **{("template", name): template_app(name) for name in templates()}}
    for path, tree in trees:
        if path.parts[1:3] == ("management", "commands") and path.stem != "__init__":
            found["command", path.stem] = path.parts[0]
        module = module_name(path)
        functions = (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef))
        for function, decorator in ((f, d) for f in functions for d in f.decorator_list if _is_task(d)):
            given = {k.arg: _text(k.value) for k in getattr(decorator, "keywords", ())}.get("name")
            found["task", given or f"{module}.{function.name}"] = path.parts[0]
    return found


# The calls whose first argument is a URL name.
REVERSING = {"reverse", "reverse_lazy", "redirect", "resolve_url"}


def named(tree, owner):
    """{(line, kind, name)}: the commands ``call_command`` runs by name, the tasks sent by name (``send_task``,
    ``signature``), the URL names reversed, and every string that is a task's name, a namespaced URL name
    ("console:home") or a template's."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and (text := _text(node.args[0])):
            if _called(node) == "call_command":
                found.add((node.lineno, "command", text))
            elif _called(node) in ("send_task", "signature"):
                found.add((node.lineno, "task", text))
            elif _called(node) in REVERSING:
                found.add((node.lineno, "url", text))
        if (text := _text(node)) is not None:
            for kind in ("task", "template", "url"):
                if (kind, text) in owner and (kind != "url" or ":" in text):
                    found.add((node.lineno, kind, text))
    return found


# {% url 'name' %}, {% extends "name" %}, {% include "name" %}: what a template names.
TAG = re.compile(r"""{%\s*(url|extends|include)\s+(["'])(.+?)\2""")


def named_in_template(text):
    return {(text.count("\n", 0, m.start()) + 1, "url" if m[1] == "url" else "template", m[3])
            for m in TAG.finditer(text)}


def crossings(trees, pages=None):
    """Each place a layered module or template names a command, task, URL or template of an app at its own layer
    or above (its own app's are its own), as a sentence."""
    rank, owner = layers(), owners(trees)
    places = [(path, path.parts[0], named(tree, owner)) for path, tree in trees if path != SETTINGS]
    places += [(Path("templates", name), template_app(name), named_in_template(text))
               for name, text in (templates() if pages is None else pages).items()]
    found = []
    for path, app, names in places:
        if app not in rank:
            continue
        for line, kind, name in sorted(names):
            other = owner.get((kind, name))  # None: another library's (Django's migrate, the admin's pages, say)
            if other in rank and other != app and rank[other] >= rank[app]:
                found.append(f"{path}:{line} names the {kind} {name!r} of {other}, which {app} stands below: "
                             f"let {other} register it with {app} from its AppConfig.ready")
    return found


def test_no_layer_names_a_command_task_url_or_template_of_a_layer_above_it():
    assert crossings(sources()) == []


def test_the_walk_sees_the_names_it_judges():
    """No empty pass: the walk finds the commands, the tasks and the places they are named."""
    trees = dict(sources())
    owner = owners(sources())
    assert owner["command", "export_audit"] == "exports" and owner["command", "load_seed_data"] == "cardroom"
    assert owner["task", "signage.tasks.print_batch"] == "signage"
    assert owner["task", "fees.imports.import_records"] == "fees"  # named where it is declared
    load_demo = named(trees[Path("demo/management/commands/load_demo.py")], owner)
    assert ("command", "load_seed_data") in {(kind, name) for _, kind, name in load_demo}
    assert ("task", "compliance.tasks.send_daily_digest") in {(kind, name) for _, kind, name in
                                                               named(trees[SETTINGS], owner)}


def test_a_core_module_naming_an_upper_command_or_task_is_caught():
    tree = ast.parse('call_command("export_audit")\nTASKS = {"batch": "signage.tasks.print_batch"}\n'
                     'current_app.send_task("exports.tasks.export_audit")\ncall_command("migrate")\n')
    said = [line for line in crossings([*sources(), (Path("cardroom/made_up.py"), tree)])
            if line.startswith("cardroom/made_up.py")]
    assert [line.split(" names the ")[1].split(",")[0] for line in said] == [
        "command 'export_audit' of exports", "task 'signage.tasks.print_batch' of signage",
        "task 'exports.tasks.export_audit' of exports"]


def test_the_walk_knows_whose_each_url_and_template_is():
    owner = owners(sources())
    assert owner["url", "console:home"] == owner["url", "console:compliance-findings"] == "console"
    assert owner["url", "signage-verify"] == "signage"  # a sign's public page, not namespaced
    assert owner["url", "admin:fees_scheduleversion_publish"] == "fees"  # an admin page fees adds
    assert owner["template", "console/error.html"] == "console"
    assert owner["template", "admin/fees/scheduleversion/action.html"] == "fees"
    assert owner["template", "admin/fees/tableposting/change_form.html"] == "signage"  # signage's admin of postings
    assert owner["template", "signage/verify.html"] == "signage"


def test_a_core_module_or_template_naming_an_upper_url_or_template_is_caught():
    """An upward URL name reversed, kept in a table, or rendered as a template is caught; the admin's and the
    app's own are not."""
    tree = ast.parse('reverse("console:compliance", args=["x"])\nOPEN = {"console:login"}\n'
                     'render_to_string("console/error.html", {})\nredirect("signage-verify", "t")\n'
                     'reverse("admin:index")\nreverse("fees-made-up")\n')
    said = [line for line in crossings([*sources(), (Path("cardroom/made_up.py"), tree)], pages={})
            if line.startswith("cardroom/made_up.py")]
    assert [line.split(" names the ")[1].split(",")[0] for line in said] == [
        "url 'console:compliance' of console", "url 'console:login' of console",
        "template 'console/error.html' of console", "url 'signage-verify' of signage"]
    pages = {"signage/made_up.html": '{% extends "console/base.html" %}\n<a href="{% url \'console:home\' %}">',
             "console/made_up.html": "{% extends 'console/base.html' %}{% url 'console:home' %}",
             "admin/fees/made_up.html": "{% extends 'admin/base_site.html' %}{% include 'console/_awaiting.html' %}"}
    said = [line for line in crossings([], pages=pages)]
    assert [line.split(", which")[0] for line in said] == [
        "templates/signage/made_up.html:1 names the template 'console/base.html' of console",
        "templates/signage/made_up.html:2 names the url 'console:home' of console",
        "templates/admin/fees/made_up.html:1 names the template 'console/_awaiting.html' of console"]


def test_the_project_stands_above_every_app_and_no_import_is_excused():
    """The settings, URLs, WSGI and Celery app are the project's, above the apps (issue 44): the layers contract
    excuses no import (the URLconf's four were the last); the contract itself keeps every app from importing it."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    assert max(layers(), key=layers().get) == "project" and settings.ROOT_URLCONF == "project.urls"
    assert not any(config[section].get("ignore_imports", "").strip() for section in config.sections())
