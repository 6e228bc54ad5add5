"""Error answers given outside a DRF view (middleware, Django's handlers, the login throttle): JSON in the API's
error format under /api/, a page for a browser, plain text elsewhere. No DRF import here: DRF's settings import
the modules that use it."""

from http import HTTPStatus

from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

from .registry import Page, Template, find

# The page a browser is answered with, in the look of the app that registers its template (the role pages').
ERROR_PAGE = Page("error", ("status", "title", "message", "back"))


def error_response(request, status_code, code, message, headers=None):
    if request.path.startswith("/api/"):
        response = JsonResponse({"error": {"status": status_code, "code": code, "message": message}},
                                status=status_code)
    elif "text/html" in request.META.get("HTTP_ACCEPT", "") and (template := find(Template, ERROR_PAGE)):
        # The role pages' own look, so that a person who sent too large a file reads why, with a way back.
        page = render_to_string(template.name, {
            "status": status_code, "title": HTTPStatus(status_code).phrase, "message": message,
            "back": request.path if request.method == "POST" else "/"}, request=request)
        response = HttpResponse(page, status=status_code, content_type="text/html; charset=utf-8")
    else:
        response = HttpResponse(f"{message}\n", status=status_code, content_type="text/plain; charset=utf-8")
    for name, value in (headers or {}).items():
        response[name] = value
    return response
