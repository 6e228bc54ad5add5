"""The OpenAPI schema tells the truth (drf-spectacular; settings: REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"] and
SPECTACULAR_SETTINGS).

- Every operation documents the errors it can answer, once and here (``AutoSchema``), all in one format, the
  ``Error`` component: ``{"error": {"status", "code", "message", "details"?}}`` (cardroom.api.errors and
  cardroom.responses write it). Which statuses an operation lists follows from what it is:

  ===  ===========================================================================================
  400  every operation: a malformed address (NUL) or Content-Length, bad query parameters or body
  401  every operation that authenticates, with ``WWW-Authenticate: Basic realm="cardroom"``
  403  every authenticated write: a role that may not do it, or a session without its CSRF token
  404  an operation with a path parameter (nothing there, or nothing you may see), or a paginated list
       (a page past the end)
  409  an operation marked ``@may_conflict(why)``: it changes data that a state or a concurrent request
       can refuse (publishing twice, a key reused for other content)
  413  an operation with a body larger than it accepts (Django's limit, or the view's ``max_body_bytes``)
  415  an operation with a body sent as another media type than it reads
  414  every operation: a request line (method, address, query) longer than the web server reads
       (gunicorn: 4,094 bytes). The server answers it before the API, with a short HTML page.
  429  every operation that authenticates: failed logins locked the account or the address, with
       ``Retry-After``
  503  every operation that authenticates: the database stopped a query that ran longer than a web
       request's statements may (settings.STATEMENT_TIMEOUT_MS), or SQLite stayed busy with other changes
       longer than a request waits for them, with ``Retry-After`` (cardroom.timeouts)
  ===  ===========================================================================================

- A route that is an alias of another (``fees/quote/`` beside ``fees/quote``) is left out, so every operation
  id is the one of a single route (``without_aliases``).
- A read-only field whose value comes through a nullable relation or column is nullable, as the model says.
- Every query parameter allows an empty value, which every view reads as the parameter left out (an HTML form,
  the browsable API's filters among them, sends its empty fields).
"""

from django.core.exceptions import FieldDoesNotExist
from drf_spectacular import openapi
from drf_spectacular.authentication import BasicScheme, SessionScheme
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import serializers

ERROR_COMPONENT = "Error"
ERROR_SCHEMA = {
    "type": "object",
    "description": "Every error the API answers, whatever its status.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "status": {"type": "integer", "description": "The HTTP status of the answer.", "example": 400},
                "code": {"type": "string", "example": "error", "description": (
                    "What kind of error: e.g. error (invalid input), parse_error, not_authenticated, "
                    "authentication_failed, permission_denied, not_found, conflict, payload_too_large, "
                    "unsupported_media_type, throttled, timeout, busy.")},
                "message": {"type": "string", "description": "One readable sentence (or a few) saying what is "
                                                             "wrong, naming the fields concerned."},
                "details": {
                    "description": ("Invalid input only: what each field (or row) was refused for, as "
                                    "{field: [messages]} (nested for rows and objects), or a list of messages."),
                    "oneOf": [{"type": "object", "additionalProperties": True}, {"type": "array", "items": {}}],
                },
            },
            "required": ["status", "code", "message"],
            "additionalProperties": False,
        },
    },
    "required": ["error"],
    "additionalProperties": False,
}

WRITES = ("POST", "PUT", "PATCH", "DELETE")
ERRORS = {
    400: "Bad request: a parameter or the body is invalid (the message says which and why).",
    401: ("No credentials, or wrong ones: log in (session), or send HTTP Basic or "
          "'Authorization: Token <key>'. Or a credential this account may not use now, the message says why: HTTP "
          "Basic for an account with a second factor (send a token), a token of an account that must have a second "
          "factor and has none set up, a session that has not passed its second factor."),
    403: "Forbidden: your role may not do this here (or a session request lacks its CSRF token).",
    404: "Not found, or not among what you may see.",
    409: "Conflict with the current state of the data.",
    413: "The request body is larger than this operation accepts.",
    415: "The body is not in a media type this operation reads.",
    414: ("The request line (method, address and query string) is longer than the web server in front of the "
          "API reads (gunicorn: 4,094 bytes). Answered by that server, with a short HTML page."),
    429: "Too many failed logins for this account or from this address: wait Retry-After seconds.",
    503: ("The database took too long over this request and stopped it (code timeout): ask for less at once (fewer "
          "gaming days, one table, a smaller page), or try again later. Or it was busy with other changes (code "
          "busy, SQLite): nothing was saved, try again after Retry-After seconds."),
}
# Answered by the web server (gunicorn) before a request reaches the API, so not in the API's error format.
FROM_THE_SERVER = {414: "text/html"}
HEADERS = {
    401: {"WWW-Authenticate": {"schema": {"type": "string", "example": 'Basic realm="cardroom"'}, "required": True,
                               "description": "The challenge: HTTP Basic in the realm cardroom."}},
    429: {"Retry-After": {"schema": {"type": "integer", "minimum": 1}, "required": True,
                          "description": "Seconds until a login is checked again."}},
    503: {"Retry-After": {"schema": {"type": "integer", "minimum": 1}, "required": False,
                          "description": "When the database was busy (code busy): seconds to wait before asking "
                                         "again."}},
}


def may_conflict(why, methods=WRITES):
    """Marks a view method (or viewset action) that can answer 409 Conflict, saying when; see AutoSchema.
    ``methods``: the HTTP methods concerned, where one function answers several (a GET preview, a POST print)."""

    def mark(method):
        method.conflict = (why, tuple(methods))
        return method

    return mark


def without_aliases(endpoints):
    """PREPROCESSING_HOOKS: leave out a route that only repeats another with a trailing slash (same view)."""
    views = {(path, method): getattr(callback, "cls", callback) for path, _, method, callback in endpoints}
    return [
        (path, regex, method, callback) for path, regex, method, callback in endpoints
        if not (path.endswith("/") and views.get((path[:-1], method), None) is getattr(callback, "cls", callback))
    ]


def error_response(status, description=None):
    if status in FROM_THE_SERVER:
        content = {FROM_THE_SERVER[status]: {"schema": {"type": "string"}}}
    else:
        content = {"application/json": {"schema": {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}}}
    response = {"description": description or ERRORS[status], "content": content}
    if status in HEADERS:
        response["headers"] = HEADERS[status]
    return response


class AutoSchema(openapi.AutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        self.registry.register_on_missing(ResolvedComponent(
            name=ERROR_COMPONENT, type=ResolvedComponent.SCHEMA, object=ERROR_COMPONENT, schema=ERROR_SCHEMA))
        responses = operation["responses"]
        statuses = self.error_statuses(has_body="requestBody" in operation)
        # An error a view declares itself (to say when it happens) is answered in the one error format too.
        own = {int(status) for status in responses if int(status) >= 400}
        statuses.update({status: None for status in own - statuses.keys()})
        for status, description in statuses.items():
            declared = responses.get(str(status))
            if declared is None:
                responses[str(status)] = error_response(status, description)
            elif "content" not in declared:  # declared to say when, answered in the one error format
                responses[str(status)] = error_response(status, declared.get("description") or description)
        operation["responses"] = dict(sorted(responses.items()))
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "query":
                parameter["allowEmptyValue"] = True
        return operation

    def handler(self):
        """The method that answers this operation (the viewset action, or the APIView's get/post/...)."""
        return getattr(self.view, getattr(self.view, "action", None) or self.method.lower(), None)

    def error_statuses(self, has_body):
        authenticates = bool(getattr(self.view, "authentication_classes", None))
        statuses = {400: None}
        if authenticates:
            statuses[401] = None
            if self.method in WRITES:
                statuses[403] = None
        if "{" in self.path or (self.method == "GET" and self._is_list_view() and self._get_paginator()):
            statuses[404] = None
        why, methods = getattr(self.handler(), "conflict", (None, ()))
        if self.method in methods:
            statuses[409] = f"Conflict: {why}"
        if has_body:
            statuses[413] = statuses[415] = None
        statuses[414] = None
        if authenticates:
            statuses[429] = statuses[503] = None
        return statuses

    def _get_serializer_field_meta(self, field, direction):
        meta = super()._get_serializer_field_meta(field, direction)
        if field.read_only and not meta.get("nullable") and reads_through_null(field):
            meta["nullable"] = True
        return meta


def reads_through_null(field):
    """Whether a read-only field's source passes through a nullable relation or ends on a nullable column."""
    parent = getattr(field, "parent", None)
    model = getattr(getattr(parent, "Meta", None), "model", None)
    if model is None or isinstance(field, serializers.SerializerMethodField) or field.source == "*":
        return False
    for name in field.source.split("."):
        try:
            model_field = model._meta.get_field(name)
        except FieldDoesNotExist:  # a property or an annotation: nothing to go by
            return False
        if not model_field.concrete or model_field.many_to_many:
            return False  # a reverse relation or a list of rows: never null, at most empty
        if model_field.null:
            return True
        model = getattr(model_field, "related_model", None)
        if model is None:
            return False
    return False


class CardroomBasicScheme(BasicScheme):
    """cardroom.authentication.BasicAuthentication is HTTP Basic (with the failed-login throttle)."""

    target_class = "cardroom.authentication.BasicAuthentication"


class SecondFactorSessionScheme(SessionScheme):
    """The session scheme for ``cardroom.authentication.SessionAuthentication`` (DRF's, refusing a session that owes
    its second factor): the same cookie as DRF's own."""

    target_class = "cardroom.authentication.SessionAuthentication"
