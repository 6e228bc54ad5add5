"""Every API error is JSON: {"error": {"status": ..., "code": ..., "message": ..., "details": ...}}."""

import sys

from django.core.exceptions import (
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.views import exception_handler as drf_exception_handler

from cardroom import timeouts
from cardroom.exceptions import BadInput, NotAllowed, StateConflict
from cardroom.responses import error_response


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The request conflicts with the current state of the data."


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"
    default_detail = "The request body is larger than this endpoint accepts."


class Unavailable(exceptions.APIException):
    """A statement the database stopped (settings.STATEMENT_TIMEOUT_MS: the request too big), or SQLite's write lock
    not had in time (busy with other changes): the service is up (cardroom.timeouts.unavailable)."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "timeout"
    default_detail = "The database took too long over this request and stopped it."

    def __init__(self, detail, code, wait):
        super().__init__(detail, code)
        self.wait = wait  # DRF sends it as Retry-After


def _message(detail):
    """One readable sentence from DRF's nested error detail."""
    if isinstance(detail, dict):
        parts = []
        for field, value in detail.items():
            text = _message(value)
            parts.append(text if field in ("detail", "non_field_errors") else f"{field}: {text}")
        return "; ".join(parts)
    if isinstance(detail, list):
        return " ".join(_message(item) for item in detail)
    return str(detail)


def _domain_error(exc):
    """Map the domain's own exceptions onto API errors: the one place a service's BadInput, NotAllowed and
    StateConflict become 400, 403 and 409."""
    if isinstance(exc, StateConflict):
        return Conflict(str(exc))
    if isinstance(exc, NotAllowed):
        return exceptions.PermissionDenied(str(exc))
    if isinstance(exc, BadInput):  # the field it names, when it names one
        return exceptions.ValidationError({exc.field: str(exc)} if exc.field else {"detail": str(exc)})
    if (unavailable := timeouts.unavailable(exc)) is not None:
        code, said, wait = unavailable
        return Unavailable(said, code, wait)
    if isinstance(exc, DjangoValidationError):
        return exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    # Django's own request limits, met while DRF reads a form or multipart body.
    if isinstance(exc, RequestDataTooBig):
        return PayloadTooLarge("The request body is larger than this endpoint accepts.")
    if isinstance(exc, (TooManyFieldsSent, TooManyFilesSent)):
        return exceptions.ValidationError(f"The request has too many fields or files: {exc}")
    if isinstance(exc, SuspiciousOperation):
        return exceptions.ValidationError(str(exc) or "The request is malformed.")
    return exc


def _named(error):
    """A BadInput's sentence, led by the field it names unless it begins with it ("as_of must be ...")."""
    said = str(error)
    return said if not error.field or said.startswith(error.field) else f"{error.field}: {said}"


def exception_handler(exc, context):
    said = _named(exc) if isinstance(exc, BadInput) else None
    exc = _domain_error(exc)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # an unexpected error: Django's handler500 answers (JSON for the API, see below)
    detail = response.data
    code = {404: "not_found", 403: "permission_denied"}.get(response.status_code, "error")
    if isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else code
    response.data = {
        "error": {
            "status": response.status_code,
            "code": code,
            "message": said or _message(detail),
            **({"details": detail} if isinstance(detail, (dict, list)) and "detail" not in detail else {}),
        }
    }
    return response


@csrf_exempt  # changes nothing: an unsafe method to an address the API lacks is a 404 too, not a CSRF page
def json_not_found(request, *args, **kwargs):
    return JsonResponse(
        {"error": {"status": 404, "code": "not_found", "message": f"No API endpoint at {request.path}."}}, status=404
    )


def handler404(request, exception=None):
    """Django's own 404s: JSON in the API's error format under /api/; elsewhere a page saying what was not found
    (a view's own sentence, "No version 12."; not get_object_or_404's model name, nor the resolver's patterns)."""
    if request.path.startswith("/api/"):
        return error_response(request, 404, "not_found", f"No API endpoint at {request.path}.")
    said = exception.args[0] if exception is not None and exception.args else None
    if not isinstance(said, str) or said.endswith("matches the given query."):
        said = "There is nothing at this address: it may have been removed, or be another room's."
    response = error_response(request, 404, "not_found", said)
    response.answered_by_cardroom = True  # cardroom.middleware.NotFoundPagesMiddleware leaves it as it is
    return response


def handler403(request, exception=None):
    """Django's own 403s (a page's PermissionDenied, the admin's): the registry's sentence (why, and who may), in
    the API's format under /api/, else on the role pages' own error page, not a bare "403 Forbidden"."""
    said = exception.args[0] if exception is not None and exception.args else None
    if not isinstance(said, str) or not said.strip():
        said = ("You may not open this page with your role. Your home page lists what you can do; an administrator "
                "can give you a role here.")
    return error_response(request, 403, "permission_denied", said)


def handler500(request):
    # A query stopped, or SQLite's lock not had, outside a view (cardroom.middleware has the views').
    if (unavailable := timeouts.answer(request, sys.exc_info()[1])) is not None:
        return unavailable
    if request.path.startswith("/api/"):
        return error_response(request, 500, "server_error", "An unexpected error occurred.")
    from django.views.defaults import server_error

    return server_error(request)


def csrf_failure(request, reason=""):
    """CSRF_FAILURE_VIEW: a session request without its CSRF token. JSON in the API's format under /api/."""
    if request.path.startswith("/api/"):
        return error_response(request, 403, "permission_denied", f"CSRF failed: {reason}")
    from django.views.csrf import csrf_failure as default

    return default(request, reason=reason)


def handler400(request, exception=None):
    """Django's own 400s (a malformed request, a disallowed host, too many form fields)."""
    if request.path.startswith("/api/"):
        if isinstance(exception, RequestDataTooBig):
            return error_response(request, 413, "payload_too_large", "The request body is larger than this endpoint "
                                                                     "accepts.")
        return error_response(request, 400, "error", str(exception) if exception else "Bad request.")
    from django.views.defaults import bad_request

    return bad_request(request, exception)

