"""Every API error is JSON: {"error": {"status": ..., "code": ..., "message": ..., "details": ...}}."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import JsonResponse
from rest_framework import exceptions, status
from rest_framework.views import exception_handler as drf_exception_handler

from cardroom.exceptions import StateConflict


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "The request conflicts with the current state of the data."


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
    """Map the domain's own exceptions onto API errors."""
    if isinstance(exc, StateConflict):
        return Conflict(str(exc))
    if isinstance(exc, DjangoValidationError):
        return exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    return exc


def exception_handler(exc, context):
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
            "message": _message(detail),
            **({"details": detail} if isinstance(detail, (dict, list)) and "detail" not in detail else {}),
        }
    }
    return response


def json_not_found(request, *args, **kwargs):
    return JsonResponse(
        {"error": {"status": 404, "code": "not_found", "message": f"No API endpoint at {request.path}."}}, status=404
    )


def handler500(request):
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"error": {"status": 500, "code": "server_error", "message": "An unexpected error occurred."}}, status=500
        )
    from django.views.defaults import server_error

    return server_error(request)

