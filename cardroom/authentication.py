"""HTTP Basic on the API, and the answer to a login refused by the failed-login throttle (django-axes).

The throttle sits in the authentication backend (settings: AUTHENTICATION_BACKENDS, AXES_*), so it counts every
door that checks a password through Django's ``authenticate``; axes' middleware replaces whatever a locked-out
request was answered with by ``lockout_response``.
"""

import copy
import math

from axes.handlers.database import AxesDatabaseHandler
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from drf_spectacular.drainage import set_override
from rest_framework import authentication

from cardroom import generation
from cardroom.responses import error_response


class BasicAuthentication(authentication.BasicAuthentication):
    """HTTP Basic in the realm "cardroom", counted by the throttle.

    DRF hands ``authenticate`` its own Request wrapper; axes marks a locked-out attempt on the request it is
    given and its middleware looks for the mark on Django's HttpRequest, so this hands over that one. A success
    does not clear the failures (a session login does): Basic succeeds on every request, and each success would
    give someone guessing beside a legitimate client a fresh allowance.
    """

    www_authenticate_realm = "cardroom"

    def authenticate_credentials(self, userid, password, request=None):
        return super().authenticate_credentials(userid, password, request._request)


class RememberedTokenAuthentication(authentication.TokenAuthentication):
    """DRF's "Authorization: Token <key>", with the token's user remembered per process (``cardroom.generation``):
    a token made or revoked, or its user changed or deactivated, draws a new generation, so a revoked token is
    refused at once. Only a token found is remembered: made-up keys are looked up each time and leave nothing behind.
    """

    def authenticate(self, request):
        self.request = request  # DRF makes its authenticators anew for each request
        return super().authenticate(request)

    def authenticate_credentials(self, key):
        memory = generation.of_request(self.request)
        found = memory.get("token", key)
        if found is None:
            found = memory.keep("token", key, super().authenticate_credentials(key))  # refuses what DRF refuses
        user, token = found
        return copy.copy(user), token  # what a request sets on its user stays with that request


# The API schema's "tokenAuth" either way: the same header, the same answers as DRF's.
set_override(RememberedTokenAuthentication, "suppress_collision_warning", True)


class LoginThrottleHandler(AxesDatabaseHandler):
    """Axes' database handler, but a successful login clears only its own account's failures from its address.

    Axes resets by every lockout parameter, the address included: logging in as oneself cleared everyone's
    failures from that address, so guesses at another account interleaved with one's own logins were never
    locked out. Failures from elsewhere stay too: the owner's login must not hand a guesser there a fresh allowance.
    """

    def reset_user_attempts(self, request, credentials=None):
        username = get_client_username(request, credentials)
        deleted, _ = AccessAttempt.objects.filter(username=username, ip_address=request.axes_ip_address).delete()
        return deleted


def lockout_response(request, original_response, credentials):
    """429 with Retry-After: JSON in the API's error format under /api/, a line of text elsewhere."""
    wait = seconds_until_unlocked(request, credentials)
    response = error_response(
        request, 429, "throttled",
        f"Too many failed logins for this account or from this address: try again in {wait} seconds.",
    )
    response["Retry-After"] = str(wait)
    return response


def seconds_until_unlocked(request, credentials):
    """How long the failures that lock this login stay within the cool-off window.

    Axes keeps one record per account, address and user agent, whose failures leave the window together a
    cool-off after its latest one; a lock (by account, or by address) holds while the failures within the
    window reach the limit, so it ends when the record that takes the newest-first sum to the limit leaves.
    """
    limit = get_failure_limit(request, credentials)
    cool_off = get_cool_off(request)
    now = request.axes_attempt_time
    unlocked_at = now
    for attempts in AxesProxyHandler.get_implementation().get_user_attempts(request, credentials):
        failures = 0
        for attempt_time, count in attempts.order_by("-attempt_time").values_list(
                "attempt_time", "failures_since_start"):
            failures += count
            if failures >= limit:
                unlocked_at = max(unlocked_at, attempt_time + cool_off)
                break
    return max(1, math.ceil((unlocked_at - now).total_seconds()))
