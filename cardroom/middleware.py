"""Refuse, before any view runs, requests that no view could answer sensibly."""

from django.conf import settings

from cardroom.responses import error_response


def body_limit(view_func):
    """The largest body ``view_func`` accepts, in bytes. A view raises it with ``max_body_bytes`` (a class
    attribute, or an ``@action(max_body_bytes=...)`` keyword); the default is Django's own upload limit."""
    declared = getattr(view_func, "initkwargs", {}).get("max_body_bytes")
    declared = declared or getattr(getattr(view_func, "cls", None), "max_body_bytes", None)
    declared = declared or getattr(view_func, "max_body_bytes", None)
    return declared or settings.DATA_UPLOAD_MAX_MEMORY_SIZE


class RequestGuardMiddleware:
    """- a NUL character anywhere in the path or query string: 400 (no column can store it, and PostgreSQL
      refuses it in a query);
    - a body larger than the view accepts: 413, decided from Content-Length before a byte of it is read.

    Answers in the API's JSON error format under /api/."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path or "%00" in request.META.get("QUERY_STRING", ""):
            return error_response(request, 400, "error", "The address must not contain NUL characters (%00).")
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        raw = request.META.get("CONTENT_LENGTH") or "0"
        try:
            length = int(raw)
        except ValueError:
            return error_response(request, 400, "error", f"Content-Length must be a whole number, not {raw!r}.")
        limit = body_limit(view_func)
        if length > limit:
            return error_response(request, 413, "payload_too_large",
                                  f"The request body is {length:,} bytes; {request.path} accepts at most {limit:,}.")
        return None
