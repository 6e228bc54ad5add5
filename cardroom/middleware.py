"""Refuse, before any view runs, requests that no view could answer sensibly; and the headers that say how
browsers may treat an answer (what a page may load and run, whether an answer may be kept)."""

from csp.middleware import CSPMiddleware
from django.conf import settings
from django.http import HttpResponseRedirect
from django.urls import Resolver404, resolve
from django.utils.http import urlencode
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView

from cardroom import credentials, links, second_factor, timeouts
from cardroom.responses import error_response


def body_limit(view_func):
    """The largest body ``view_func`` accepts, in bytes. A view raises it with ``max_body_bytes`` (a class
    attribute, or an ``@action(max_body_bytes=...)`` keyword; a function of no arguments when it is read from the
    settings at each request); the default is Django's own upload limit."""
    declared = getattr(view_func, "initkwargs", {}).get("max_body_bytes")
    declared = declared or getattr(getattr(view_func, "cls", None), "max_body_bytes", None)
    declared = declared or getattr(view_func, "max_body_bytes", None)
    declared = declared() if callable(declared) else declared
    return declared or settings.DATA_UPLOAD_MAX_MEMORY_SIZE


class RequestGuardMiddleware:
    """- a NUL character anywhere in the path or query string: 400 (no column can store it, and PostgreSQL
      refuses it in a query);
    - a body larger than the view accepts: 413, decided from Content-Length before a byte of it is read (a
      larger upload a view accepts is streamed to a temporary file: settings.FILE_UPLOAD_MAX_MEMORY_SIZE).

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
            # A page may say it in its own words (``body_too_large(length, limit)``: the import names its file limit).
            explain = getattr(view_func, "body_too_large", None)
            return error_response(request, 413, "payload_too_large", explain(length, limit) if explain else
                                  f"The request body is {length:,} bytes; {request.path} accepts at most {limit:,}.")
        return None


class TimeoutMiddleware:
    """A page (or a non-DRF API view) whose query the database stopped (settings.STATEMENT_TIMEOUT_MS), or that
    waited too long for SQLite's write lock, answers 503 saying so (``cardroom.timeouts.unavailable``): the role
    pages' error page, or the API's error format under /api/. DRF's views answer it themselves (cardroom.api.errors).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        return timeouts.answer(request, exception)


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's policy (settings.CONTENT_SECURITY_POLICY) on every page, relaxed on the API docs.

    Only pages get it: a policy says what a page may load and run, and a PDF shown inline opens in the
    browser's own viewer, which a page's policy can break. Swagger UI and Redoc (drf-spectacular's templates)
    start themselves with an inline script and style, and Redoc adds style elements and a worker of its own:
    their pages allow those (CONTENT_SECURITY_POLICY_API_DOCS). They show the schema, which holds no one's data.
    """

    def process_response(self, request, response):
        if not response.get("Content-Type", "").startswith("text/html"):
            return response
        return super().process_response(request, response)

    def get_policy_parts(self, request, response, report_only=False):
        parts = super().get_policy_parts(request, response, report_only)
        view = getattr(getattr(request, "resolver_match", None), "func", None)
        if issubclass(getattr(view, "view_class", type), (SpectacularSwaggerView, SpectacularRedocView)):
            parts.update = settings.CONTENT_SECURITY_POLICY_API_DOCS
        return parts


class PrivateAnswersMiddleware:
    """``Cache-Control: no-store, private`` on every answer to someone signed in (a page behind the login, an
    authenticated API answer: ledger rows, exports, the audit log), so no browser or proxy keeps a copy. Public
    answers (the sign check, the public key) keep their own caching. The API's authentication runs in the view,
    so who asked is known only once it has answered."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            response["Cache-Control"] = "no-store, private"
        return response


class SecondFactorMiddleware:
    """A session that owes its second factor (``cardroom.credentials``) is sent to the page that takes it,
    whatever it asked for: the admin and every role page alike. Left alone: the pages that take it (and WebAuthn's
    calls), logging in and out, and the API, whose session authentication refuses such a session itself with a
    401 in its own format (tokens and Basic never reach this: they carry no session)."""

    # Logging in and out and the second factor's pages: the core's links, routed by the app that serves them.
    OPEN = (links.SIGN_IN, links.SIGN_OUT, links.SECOND_FACTOR, links.SECOND_FACTOR_ENROL)
    OPEN_VIEWS = {"rest_framework:login", "rest_framework:logout"}
    OPEN_NAMESPACES = {"otp_webauthn"}

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        refused = None
        if not request.path_info.startswith("/api/"):
            refused = credentials.refusal(request.user, credentials.SESSION, request=request)
        if refused:
            try:
                match = resolve(request.path_info)
            except Resolver404:
                match = None
            if match is None or not (match.view_name in self.OPEN_VIEWS or set(match.namespaces) & self.OPEN_NAMESPACES
                                     or request.path in {link.path() for link in self.OPEN}):
                page = links.SECOND_FACTOR if refused.owed == second_factor.VERIFY else links.SECOND_FACTOR_ENROL
                return HttpResponseRedirect(f"{page.path()}?{urlencode({'next': request.get_full_path()})}")
        return self.get_response(request)


class NotFoundPagesMiddleware:
    """With DEBUG on (``bin/serve``), a page's 404 is Django's technical page listing every URL pattern: a person
    trying the demo reads the project's insides instead of what was not found. Answer it as DEBUG off does
    (``cardroom.api.errors.handler404``); the API keeps its own JSON 404s."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (settings.DEBUG and response.status_code == 404 and not request.path.startswith("/api/")
                and response.get("Content-Type", "").startswith("text/html")
                and not getattr(response, "answered_by_cardroom", False)):
            from cardroom.api.errors import handler404

            return handler404(request)
        return response

    def process_exception(self, request, exception):
        """A view's own 404 ("No version 12."): its sentence kept."""
        from django.http import Http404

        if settings.DEBUG and isinstance(exception, Http404) and not request.path.startswith("/api/"):
            from cardroom.api.errors import handler404

            return handler404(request, exception)
        return None
