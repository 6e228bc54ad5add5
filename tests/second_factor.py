"""Signing in with the second factor in tests (cardroom.second_factor), with the demo's published secret.

``Client.force_login`` stands for a whole login in the tests: the password and, for someone who has or must have a
second factor, that too (tests/conftest.py makes it so, through ``pass_second_factor``; the requirement itself
stays on). A test of the second factor itself logs in with ``force_login(user, second_factor=False)``.
"""

import base64
import time

from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import TOTP, hotp
from django_otp.plugins.otp_totp.models import TOTPDevice
from rest_framework.authtoken.models import Token

from cardroom import second_factor
from demo.management.commands.load_demo import DEMO_RECOVERY_CODES, DEMO_TOTP_SECRET

SECRET = DEMO_TOTP_SECRET
RECOVERY_CODES = DEMO_RECOVERY_CODES


def app_of(user):
    """The user's authenticator app, set up with the demo's secret when they have none."""
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    return device or second_factor.set_up_app(user, SECRET)


def code_for(user, secret=SECRET):
    """A code the user's app would show that the device has not taken yet (each is taken once: a second login
    within the same 30 seconds uses the next step's code, which the device's tolerance of one step accepts)."""
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    now = TOTP(base64.b32decode(secret)).t()
    step = max(now, device.last_t + 1) if device else now
    if step > now + 1:  # beyond the tolerance: wait for the clock
        time.sleep((step - 1) * 30 - time.time() + 0.1)
    return f"{hotp(base64.b32decode(secret), step):06d}"


def pass_second_factor(client, user):
    """Mark the client's session as having passed the second factor, if the user has or must have one."""
    if not (second_factor.required(user) or second_factor.has_device(user)):
        return
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = app_of(user).persistent_id
    session.save()


def token_for(user):
    """An API token of ``user``'s, as their account page makes it: once they have the second factor their account
    needs (a token of an account that must have one and has none is refused: cardroom.credentials)."""
    if second_factor.required(user):
        app_of(user)
    return Token.objects.get_or_create(user=user)[0]
