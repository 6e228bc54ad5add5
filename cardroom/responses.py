"""Error answers given outside a DRF view (middleware, Django's handlers, the login throttle): JSON in the API's
error format under /api/, plain text elsewhere. No DRF import here: DRF's settings import the modules that use it."""

from django.http import HttpResponse, JsonResponse


def error_response(request, status_code, code, message, headers=None):
    if request.path.startswith("/api/"):
        response = JsonResponse({"error": {"status": status_code, "code": code, "message": message}},
                                status=status_code)
    else:
        response = HttpResponse(f"{message}\n", status=status_code, content_type="text/plain; charset=utf-8")
    for name, value in (headers or {}).items():
        response[name] = value
    return response
