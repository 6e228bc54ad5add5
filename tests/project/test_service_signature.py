"""One service signature (docs/architecture.md, "Every state-changing action..."): a function that asks
``permissions.require`` of its first parameter takes that actor first and positionally, and everything else by
keyword: ``service(actor, *, subject=..., other=...)``."""

import ast

from tests.sources import app_sources


def _asks_of_first_parameter(function):
    """Whether ``function`` calls ``permissions.require(<its first parameter>, ...)`` (in its own body or a nested
    one)."""
    parameters = function.args.posonlyargs + function.args.args
    if not parameters:
        return False
    actor = parameters[0].arg
    for node in ast.walk(function):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "require"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "permissions"
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == actor):
            return True
    return False


def off_signature(module, tree):
    """["module.function (params)"] of the services in ``tree`` whose parameters after the actor are not all
    keyword-only (a second positional one, or ``*args``)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not _asks_of_first_parameter(node):
            continue
        positional = node.args.posonlyargs + node.args.args
        if len(positional) > 1 or node.args.vararg is not None:
            found.append(f"{module}.{node.name} ({', '.join(p.arg for p in positional)})")
    return found


def test_every_service_takes_the_actor_first_and_the_rest_by_keyword():
    services = [(module, tree) for module, _, tree in app_sources()]
    checked = [node for _, tree in services for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _asks_of_first_parameter(node)]
    assert len(checked) >= 20, "the walk found too few services: is permissions.require still called so?"
    wrong = [name for module, tree in services for name in off_signature(module, tree)]
    assert not wrong, ("Services take the actor first and everything else keyword-only (service(actor, *, ...)): "
                       + "; ".join(wrong))


def test_the_check_catches_a_subject_passed_by_position():
    source = '''
from cardroom import permissions

def approve_thing(actor, thing, *, reason):
    permissions.require(actor, "things.approve", thing)

def refuse_thing(actor, *, thing, reason):
    permissions.require(actor, "things.approve", thing)

def view(request, thing):  # a door: it asks for request.user, not its first parameter
    permissions.require(request.user, "things.approve", thing)
'''
    assert off_signature("things.services", ast.parse(source)) == ["things.services.approve_thing (actor, thing)"]
