"""The second factor in Chromium, for each role: set up an authenticator app (at the login that needs it, or from
the account page where it is optional), sign in with it, a wrong code refused, a recovery code used instead."""

import re
import time

import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.second_factor import code_for

from .conftest import password_step, serious_violations

HOMES = {"admin": "/admin-home/", "compliance": "/compliance/casino-marysville/", "floor": "/floor/casino-marysville/",
         "regulator_ca": "/regulator/"}


def log_out(page):
    page.get_by_role("button", name="Log out").first.click()
    page.wait_for_load_state()


@pytest.mark.parametrize("role", list(HOMES))
def test_each_role_sets_up_signs_in_and_recovers(page, site, offsite_requests, settings, role):
    settings.MFA_REQUIRED_FOR_COMPLIANCE = True
    user = getattr(site, role)
    TOTPDevice.objects.filter(user=user).delete()  # the site's app: this test sets up its own

    # Set up: forced at the login for every role but the floor's, which opens it from its account page.
    password_step(page, site.url, user.get_username())
    if role == "floor":
        assert page.url.endswith(HOMES[role])
        page.get_by_role("link", name="Account").click()
        page.get_by_role("link", name="set one up").click()
    assert "/account/second-factor/" in page.url
    assert page.get_by_role("img", name="QR code of your authenticator app's secret").is_visible()
    assert serious_violations(page) == []
    secret = page.locator("#secret").inner_text()
    page.get_by_label("Code").fill("000000" if code_for(user, secret) != "000000" else "111111")
    page.get_by_role("button", name="Confirm").click()
    assert page.get_by_role("alert").inner_text().startswith("That code does not match")
    time.sleep(1.1)  # the device's wait after a wrong code
    page.get_by_label("Code").fill(code_for(user, secret))
    page.get_by_role("button", name="Confirm").click()
    recovery = page.get_by_role("list", name="Recovery codes")
    recovery.wait_for()  # all_inner_texts() does not wait for the page the confirmation opens
    codes = [code.strip() for code in recovery.locator("code").all_inner_texts()]
    assert len(codes) == 10
    page.get_by_role("link", name="Continue").click()
    page.wait_for_load_state()
    assert "second-factor" not in page.url
    log_out(page)

    # Sign in: a wrong code is refused, then the app's code lets them in.
    password_step(page, site.url, user.get_username())
    assert "/login/second-factor/" in page.url
    assert serious_violations(page) == []
    page.get_by_label("Code").fill("000000" if code_for(user, secret) != "000000" else "111111")
    page.get_by_role("button", name="Verify").click()
    assert re.match(r"That code is wrong", page.get_by_role("alert").inner_text())
    page.get_by_label("Code").fill(code_for(user, secret))
    page.get_by_role("button", name="Verify").click()
    assert page.get_by_role("alert").inner_text().startswith("Too many wrong codes: try again in")
    time.sleep(1.1)
    page.get_by_label("Code").fill(code_for(user, secret))
    page.get_by_role("button", name="Verify").click()
    page.wait_for_load_state()
    assert page.url.endswith(HOMES[role])
    log_out(page)

    # A recovery code instead of the app, once.
    password_step(page, site.url, user.get_username())
    page.get_by_label("Code").fill(codes[0])
    page.get_by_role("button", name="Verify").click()
    page.wait_for_load_state()
    assert page.url.endswith(HOMES[role])
    page.goto(f"{site.url}/account/")
    assert "Recovery codes left: 9" in page.locator("main").inner_text()
    log_out(page)
    password_step(page, site.url, user.get_username())
    time.sleep(1.1)
    page.get_by_label("Code").fill(codes[0])
    page.get_by_role("button", name="Verify").click()
    assert "already used" in page.get_by_role("alert").inner_text()
    assert offsite_requests == []
