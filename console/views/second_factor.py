"""Signing in with a second factor, setting one up, and one's own account: recovery codes, WebAuthn keys, the API
token. The rules (who must have one, checking a code) are cardroom.second_factor's; tokens are cardroom.tokens'."""

import base64

import segno
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.i18n import JavaScriptCatalog
from django_otp.plugins.otp_totp.models import TOTPDevice
from django_otp_webauthn import views as webauthn
from django_otp_webauthn.exceptions import CredentialDisabled
from django_otp_webauthn.models import WebAuthnCredential

from cardroom import credentials, second_factor, tokens
from cardroom.exceptions import BadInput

from ..access import requires

SIGN_IN = "console.manage_sign_in"


def next_page(request):
    """Where to go once the second factor is passed: the ``next`` asked for, if it is one of ours."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure()):
        return target
    return "/"


@requires(SIGN_IN)
def verify(request, scope):
    """The login's second step: a code from the authenticator app or a recovery code, or a WebAuthn key."""
    owed = second_factor.owed(request)
    if owed == second_factor.ENROL:
        return redirect(f"{reverse('console:second-factor-enrol')}?{urlencode({'next': next_page(request)})}")
    if owed is None:
        return redirect(next_page(request))
    error, status = None, 200
    if request.method == "POST":
        try:
            second_factor.check_code(request, request.POST.get("code", ""))
            return redirect(next_page(request))
        except BadInput as refused:
            error, status = str(refused), 400
    keys = WebAuthnCredential.objects.filter(user=request.user, confirmed=True).exists()
    return render(request, "console/second_factor_verify.html",
                  {"error": error, "next": next_page(request), "keys": keys}, status=status)


@requires(SIGN_IN)
def enrol(request, scope):
    """Set up an authenticator app (a QR code, or its secret typed in), confirmed with a code from it; then the
    recovery codes, shown once. Someone who has a second factor passes it first (a stolen password must not
    replace it)."""
    if second_factor.owed(request) == second_factor.VERIFY:
        return redirect(f"{reverse('console:second-factor')}?{urlencode({'next': next_page(request)})}")
    error, status = None, 200
    if request.method == "POST":
        try:
            codes = second_factor.confirm_app(request, request.POST.get("code", ""))
            return render(request, "console/second_factor_codes.html", {"codes": codes, "next": next_page(request)})
        except BadInput as refused:
            error, status = str(refused), 400
    device = second_factor.pending_app(request.user)
    return render(request, "console/second_factor_enrol.html", {
        "error": error, "next": next_page(request), "required": second_factor.required(request.user),
        "qr": segno.make(device.config_url, error="m").svg_data_uri(scale=4, dark="#000", light="#fff"),
        "secret": base64.b32encode(device.bin_key).decode(),
    }, status=status)


@requires(SIGN_IN)
def account(request, scope):
    """One's own sign-in: the second factor (the app, WebAuthn keys, recovery codes left) and the API token."""
    user = request.user
    shown = {}
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "recovery-codes" and second_factor.passed(user):
            return render(request, "console/second_factor_codes.html",
                          {"codes": second_factor.new_recovery_codes(user), "next": "/account/"})
        if action == "token":
            shown["new_token"] = tokens.issue(user).key
        elif action == "revoke-token":
            tokens.revoke(user)
            shown["revoked"] = True
    token = tokens.of(user)
    return render(request, "console/account.html", {
        **shown,
        "required": second_factor.required(user),
        "passed": second_factor.passed(user),
        "app": TOTPDevice.objects.filter(user=user, confirmed=True).first(),
        "keys": WebAuthnCredential.objects.filter(user=user, confirmed=True).order_by("created_at"),
        "codes_left": second_factor.recovery_codes_left(user),
        "token": token,
        "basic_refused": credentials.refusal(user, credentials.PASSWORD) is not None,
    })


# django-otp-webauthn's views, under the names its scripts expect (otp_webauthn:...), each declaring what it asks:
# someone signed in, for their own keys (registering needs the second factor passed once one is held; passwordless
# login is off, OTP_WEBAUTHN_ALLOW_PASSWORDLESS_LOGIN).
class RegistrationBegin(webauthn.BeginCredentialRegistrationView):
    permission_name = SIGN_IN


class RegistrationComplete(webauthn.CompleteCredentialRegistrationView):
    permission_name = SIGN_IN


class AuthenticationBegin(webauthn.BeginCredentialAuthenticationView):
    permission_name = SIGN_IN


class AuthenticationComplete(webauthn.CompleteCredentialAuthenticationView):
    permission_name = SIGN_IN

    def check_device_usable(self, device):
        """Only a key of the person whose password was given (no passwordless login: there always is one)."""
        super().check_device_usable(device)
        if device.user_id != self.request.user.pk:
            raise CredentialDisabled()


class WebAuthnMessages(JavaScriptCatalog):
    permission_name = SIGN_IN
