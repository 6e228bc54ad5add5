"""The API's doors (HTTP Basic, a session, a token), each asking ``cardroom.credentials`` whether its credential may
act for its account now; and the answer to a login refused by the failed-login throttle (django-axes).

The throttle sits in the authentication backend (settings: AUTHENTICATION_BACKENDS, AXES_*), so it counts every
door that checks a password through Django's ``authenticate``; axes' middleware replaces whatever a locked-out
request was answered with by ``lockout_response``.
"""

import copy
import math

from axes.handlers.database import AxesDatabaseHandler
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_username, get_cool_off, get_failure_limit, get_lockout_parameters
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from drf_spectacular.drainage import set_override
from rest_framework import authentication, exceptions

from cardroom import credentials, generation
from cardroom.access import remembered_scope
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
        user, auth = super().authenticate_credentials(userid, password, request._request)
        # A password alone is one factor: an account that has or must have two reaches the API with a token.
        if (refused := credentials.refusal(user, credentials.PASSWORD)) is not None:
            raise exceptions.AuthenticationFailed(refused.reason)
        return user, auth


class SessionAuthentication(authentication.SessionAuthentication):
    """DRF's session authentication, refusing a session that owes its second factor (cardroom.credentials)."""

    def authenticate(self, request):
        found = super().authenticate(request)
        if found is not None and (refused := credentials.refusal(
                found[0], credentials.SESSION, request=request._request)) is not None:
            raise exceptions.AuthenticationFailed(refused.reason)
        return found


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's "Authorization: Token <key>", refusing a token whose account must have a second factor and has none set
    up (cardroom.credentials)."""

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)  # refuses an unknown key, an inactive user
        self.refuse(user)
        return user, token

    def refuse(self, user, memory=None):
        if (refused := credentials.refusal(user, credentials.TOKEN, memory=memory)) is not None:
            raise exceptions.AuthenticationFailed(refused.reason)


class RememberedTokenAuthentication(TokenAuthentication):
    """The token door, with the token's user remembered per process (``cardroom.generation``): a token made or
    revoked, its user changed or deactivated, a role granted or revoked, a second factor set up or removed, draws a
    new generation, so a revoked token is refused at once. Only a token found is remembered: made-up keys are looked
    up each time and leave nothing behind. Its account's roles and whether it has a second factor are remembered
    under the same generation, so the check of ``cardroom.credentials`` reads nothing more.
    """

    def authenticate(self, request):
        self.request = request  # DRF makes its authenticators anew for each request
        return super().authenticate(request)

    def authenticate_credentials(self, key):
        memory = generation.of_request(self.request)
        found = memory.get("token", key)
        if found is None:  # refuses what DRF refuses
            found = memory.keep("token", key, authentication.TokenAuthentication.authenticate_credentials(self, key))
        user, token = found
        user = copy.copy(user)  # what a request sets on its user stays with that request
        remembered_scope(user, memory)
        self.refuse(user, memory)
        return user, token


# The API schema's "tokenAuth" either way: the same header, the same answers as DRF's.
set_override(TokenAuthentication, "suppress_collision_warning", True)
set_override(RememberedTokenAuthentication, "suppress_collision_warning", True)


def counted_failures(request, credentials):
    """(failures within the cool-off, that parameter's own limit, its attempts) for each lockout parameter.

    Axes compares the largest count across its parameters with one limit; here an address, whatever account it
    tries, has its own, much higher limit (LOGIN_ADDRESS_FAILURE_LIMIT), so guesses at one account do not lock
    everyone else out of a shared address (a card room's floor terminals, an office behind one NAT).
    """
    account_limit = get_failure_limit(request, credentials)
    handler = AxesProxyHandler.get_implementation()
    counted = []
    for parameter, attempts in zip(get_lockout_parameters(request, credentials),
                                   handler.get_user_attempts(request, credentials), strict=True):
        limit = settings.LOGIN_ADDRESS_FAILURE_LIMIT if parameter == "ip_address" else account_limit
        failures = attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
        counted.append((failures, limit, attempts))
    return counted


class LoginThrottleHandler(AxesDatabaseHandler):
    """Axes' database handler, with a limit per lockout parameter, and a successful login clears only its own
    account's failures from its address.

    Axes resets by every lockout parameter, the address included: logging in as oneself cleared everyone's
    failures from that address, so guesses at another account interleaved with one's own logins were never
    locked out. Failures from elsewhere stay too: the owner's login must not hand a guesser there a fresh allowance.
    """

    def get_failures(self, request, credentials=None):
        """The failures that lock, on the account limit's scale (axes compares this with AXES_FAILURE_LIMIT):
        at least that limit when any parameter has reached its own, else the most failures at one account."""
        account_limit = get_failure_limit(request, credentials)
        counted = counted_failures(request, credentials)
        if any(failures >= limit for failures, limit, _ in counted):
            return max(account_limit, *(failures for failures, _, _ in counted))
        return max((failures for failures, limit, _ in counted if limit == account_limit), default=0)

    def reset_user_attempts(self, request, credentials=None):
        username = get_client_username(request, credentials)
        deleted, _ = AccessAttempt.objects.filter(username=username, ip_address=request.axes_ip_address).delete()
        return deleted


def lockout_response(request, original_response, credentials):
    """429 with Retry-After: JSON in the API's error format under /api/, a line of text elsewhere."""
    wait = seconds_until_unlocked(request, credentials)
    minutes = math.ceil(get_cool_off(request).total_seconds() / 60)
    response = error_response(
        request, 429, "throttled",
        f"Too many failed logins for this account or from this address: try again in {wait} seconds. The lock "
        f"clears itself {minutes} minutes after the last failed login; an administrator can clear it sooner "
        "(manage.py axes_reset_username <user>, or the admin's Axes: Access attempts).",
    )
    response["Retry-After"] = str(wait)
    return response


def seconds_until_unlocked(request, credentials):
    """How long the failures that lock this login stay within the cool-off window.

    Axes keeps one record per account, address and user agent, whose failures leave the window together a
    cool-off after its latest one; a lock (by account, or by address) holds while the failures within the
    window reach the limit, so it ends when the record that takes the newest-first sum to the limit leaves.
    """
    cool_off = get_cool_off(request)
    now = request.axes_attempt_time
    unlocked_at = now
    for _, limit, attempts in counted_failures(request, credentials):
        failures = 0
        for attempt_time, count in attempts.order_by("-attempt_time").values_list(
                "attempt_time", "failures_since_start"):
            failures += count
            if failures >= limit:
                unlocked_at = max(unlocked_at, attempt_time + cool_off)
                break
    return max(1, math.ceil((unlocked_at - now).total_seconds()))
