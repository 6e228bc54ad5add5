"""A second factor beside the password (issue 32; OWASP ASVS level 2, NIST SP 800-63B AAL2).

django-otp keeps the devices and marks a session that passed one (``request.user.is_verified()``): an authenticator
app (TOTP), recovery codes (a static device whose codes work once each) and WebAuthn keys (django-otp-webauthn).
What is ours is who must have one, what a session still owes, and checking a code typed in:

- administrators and regulators must have one; compliance officers too where MFA_REQUIRED_FOR_COMPLIANCE; anyone
  else may (once they have one, they are asked for it at every login);
- a session that owes its second factor reaches only the pages that take it (``cardroom.middleware``), the API
  refuses it (``cardroom.authentication.SessionAuthentication``) and so does the admin (``AdminSite``);
- HTTP Basic, a password alone, is refused to those who have one or must have one: they use an API token, made on
  their account page after passing it (``cardroom.tokens``); a token is refused for an account that must have one and
  has none set up, and a role granted that makes an account need one revokes its tokens and sessions. Which
  credential may act for which account now is ``cardroom.credentials``' one answer.

A wrong code is refused and throttled by django-otp itself: each failure doubles the wait before the device checks
another code (1 s, 2 s, 4 s... up to an hour), so guessing six digits takes years.
"""

import base64
import math
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_otp import devices_for_user, user_has_device
from django_otp import login as otp_login
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_otp_webauthn.helpers import WebAuthnHelper as _WebAuthnHelper

from .access import scope_for
from .models import Role
from .exceptions import BadInput

APP = "Authenticator app"
RECOVERY = "Recovery codes"
RECOVERY_CODES = 10
# Set at login (``remember_devices``): whether the user then had a second factor. Someone who need not have one is
# asked for it only if they had one; checking their devices on every request would cost three queries each.
HAD_DEVICE = "cardroom_had_second_factor"

ENROL, VERIFY = "enrol", "verify"


def required(user):
    """Whether ``user`` must have a second factor: administrators, regulators, and compliance officers where the
    installation says so (MFA_REQUIRED_FOR_COMPLIANCE)."""
    return required_by(scope_for(user))


def required_by(scope):
    """``required`` for the roles a ``cardroom.access.Scope`` read."""
    if scope.is_admin or scope.regulated_jurisdictions:
        return True
    return bool(settings.MFA_REQUIRED_FOR_COMPLIANCE and scope.compliance_establishments)


def role_requires(role):
    """Whether a membership of ``role`` alone makes its person one who must have a second factor (``required_by``,
    for one role)."""
    if role in (Role.ADMIN, Role.REGULATOR):
        return True
    return bool(settings.MFA_REQUIRED_FOR_COMPLIANCE and role == Role.COMPLIANCE_OFFICER)


def has_device(user):
    return user_has_device(user, confirmed=True)


def passed(user):
    """Whether this request's user passed a second factor in this session (django-otp's OTPMiddleware)."""
    is_verified = getattr(user, "is_verified", None)
    return bool(is_verified and is_verified())


def owed(request):
    """What the session still owes before anything else: ``ENROL`` (must have a second factor and has none),
    ``VERIFY`` (has one, not yet passed in this session) or None."""
    user = request.user
    if not user.is_authenticated or passed(user):
        return None
    if required(user):
        return VERIFY if has_device(user) else ENROL
    return VERIFY if request.session.get(HAD_DEVICE) else None


def remember_devices(sender, request, user, **kwargs):
    """At every login (user_logged_in): whether the user has a second factor, for ``owed``."""
    if request is not None and hasattr(request, "session"):
        request.session[HAD_DEVICE] = has_device(user)


# -- a code typed in -------------------------------------------------------------------------------------------

def check_code(request, code):
    """Pass the second factor with ``code``: six digits from the authenticator app, or a recovery code (used up).
    Raises ``BadInput`` for a wrong code, or while the device is throttled after wrong ones."""
    user = request.user
    code = "".join(code.split()).lower()
    if not code:
        raise BadInput("Type the code your authenticator app shows, or a recovery code.")
    kind = TOTPDevice if code.isdigit() and len(code) == 6 else StaticDevice
    devices = [device for device in devices_for_user(user, confirmed=True) if isinstance(device, kind)]
    if not devices:
        raise BadInput("That is no code of yours: six digits from your authenticator app, or a recovery code.")
    for device in devices:
        with transaction.atomic():
            device = type(device).objects.select_for_update().get(pk=device.pk)  # one check at a time per device
            allowed, details = device.verify_is_allowed()
            if not allowed:
                wait = math.ceil((details["locked_until"] - timezone.now()).total_seconds())
                raise BadInput(f"Too many wrong codes: try again in {max(wait, 1)} seconds.")
            if device.verify_token(code):
                otp_login(request, device)
                return device
    raise BadInput("That code is wrong (or a recovery code already used). Each wrong code makes the next wait longer.")


# -- enrolment -------------------------------------------------------------------------------------------------

def pending_app(user):
    """The authenticator app being set up: an unconfirmed TOTP device, made when missing (its secret is shown
    until a code from it confirms it)."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).order_by("pk").first()
    return device or TOTPDevice.objects.create(user=user, name=APP, confirmed=False)


@transaction.atomic
def confirm_app(request, code):
    """Confirm the app being set up with a code from it: it becomes the user's second factor, passed in this
    session, with a fresh set of recovery codes (returned, shown once)."""
    device = pending_app(request.user)
    code = "".join(code.split())
    if not (code.isdigit() and len(code) == 6):
        raise BadInput("Type the six digits your authenticator app shows for cardroom.")
    allowed, details = device.verify_is_allowed()
    if not allowed:
        wait = math.ceil((details["locked_until"] - timezone.now()).total_seconds())
        raise BadInput(f"Too many wrong codes: try again in {max(wait, 1)} seconds.")
    if not device.verify_token(code):
        raise BadInput("That code does not match: check the app's clock, and type the code it shows now.")
    device.confirmed = True
    device.save(update_fields=["confirmed"])
    TOTPDevice.objects.filter(user=request.user).exclude(pk=device.pk).delete()  # one app at a time
    otp_login(request, device)
    request.session[HAD_DEVICE] = True
    return new_recovery_codes(request.user)


@transaction.atomic
def set_up_app(user, secret):
    """Give ``user`` a confirmed authenticator app with a known base32 ``secret``, replacing theirs: the demo's
    accounts (load_demo) and tests only; a person sets theirs up with ``confirm_app``."""
    TOTPDevice.objects.filter(user=user).delete()
    key = base64.b32decode(secret).hex()
    return TOTPDevice.objects.create(user=user, name=APP, key=key, confirmed=True)


@transaction.atomic
def new_recovery_codes(user, codes=None):
    """Replace the user's recovery codes with ``codes`` (or RECOVERY_CODES new random ones); each works once."""
    device, _ = StaticDevice.objects.get_or_create(user=user, name=RECOVERY, defaults={"confirmed": True})
    device.token_set.all().delete()
    codes = codes or [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
    StaticToken.objects.bulk_create(StaticToken(device=device, token=code) for code in codes)
    return codes


def recovery_codes_left(user):
    return StaticToken.objects.filter(device__user=user, device__confirmed=True).count()


# -- WebAuthn keys -------------------------------------------------------------------------------------------

def relying_party(request):
    """The WebAuthn relying party: the host name this page was opened at (ALLOWED_HOSTS already vouched for it)."""
    return urlsplit(f"//{request.get_host()}").hostname


class WebAuthnHelper(_WebAuthnHelper):
    """django-otp-webauthn's helper, expecting the origin the page was opened at, and CSRF_TRUSTED_ORIGINS."""

    def get_allowed_origins(self):
        return [f"{self.request.scheme}://{self.request.get_host()}", *settings.CSRF_TRUSTED_ORIGINS]
