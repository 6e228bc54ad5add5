"""Take the README's screenshots again from a running demo service (bin/serve), in the system's Chromium.

    bin/serve &                                   # the demo data and accounts
    .venv/bin/python docs/images/screenshots.py   # [--base http://127.0.0.1:8000]

Logs in as the demo accounts (README, "Demo accounts") and writes each page, 1280 px wide, to docs/images/.
"""

import argparse
import base64
import shutil
import time
from pathlib import Path
from urllib.parse import urlsplit

from django_otp.oath import hotp
from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
DEMO_TOTP_SECRET = "CARDROOMDEMOONLYCARDROOMDEMOONLY"  # demo/management/commands/load_demo.py, README
SHOTS = [  # (file, account, password, path, full page)
    ("home-floor.png", "floor", "floor-dev-only", "/floor/casino-marysville/", False),
    ("home-compliance.png", "compliance", "compliance-dev-only", "/compliance/casino-marysville/", False),
    ("home-regulator.png", "regulator-ca", "regulator-dev-only", "/regulator/", False),
    ("regulator-fees.png", "regulator-ca", "regulator-dev-only", "/regulator/casino-marysville/#fees", False),
    ("home-admin.png", "admin", "admin-dev-only", "/admin-home/", False),
]


def second_factor(page):
    """The demo's authenticator app (README): a code taken already (the same account twice within 30 seconds) is
    refused, so the next step's is typed after the second's wait."""
    now = int(time.time()) // 30
    for step in (now, now + 1):
        if urlsplit(page.url).path != "/login/second-factor/":
            return
        time.sleep(0 if step == now else 1.1)
        page.get_by_label("Code").fill(f"{hotp(base64.b32decode(DEMO_TOTP_SECRET), step):06d}")
        page.get_by_role("button", name="Verify").click()
        page.wait_for_load_state()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    base = parser.parse_args().base.rstrip("/")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"))
        for name, account, password, path, full in SHOTS:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{base}/login/")
            page.get_by_label("Username").fill(account)
            page.get_by_label("Password").fill(password)
            page.get_by_role("button", name="Log in").click()
            page.wait_for_load_state()
            second_factor(page)
            page.goto(f"{base}{path}")
            if "#" in path:
                page.locator(path.split("#", 1)[1].join(("#", ""))).scroll_into_view_if_needed()
            page.screenshot(path=HERE / name, full_page=full)
            print(f"wrote docs/images/{name}")
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
