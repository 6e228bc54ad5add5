"""The second officer's inbox, and told, not only shown (issue 25), in a real browser: officer A drafts a change to
the room's own schedule and asks for its publication; officer B sees it in their inbox with its count in the
navigation and is sent an email; B approves; A is sent the "approved" email; B's inbox is empty again.

The live server runs in the test's process with Django's test email backend (locmem), so ``mailoutbox`` holds
what ``cardroom.notify`` sent."""

import re

from fees.models import FeeTier, ScheduleDocument

from .conftest import log_in, serious_violations

CODE = "CMV-CA-FEES-PAI-GOW"  # Casino Marysville's own schedule: a second officer of the room approves it
ROOM = "casino-marysville"


def test_the_second_officer_is_told_approves_and_the_author_is_told(login, site, browser, mailoutbox):
    a, b = site.compliance, site.compliance_2
    for user in (a, b):
        user.email = f"{user.username}@example.test"
        user.save(update_fields=["email"])
    schedule = f"{site.url}/compliance/{ROOM}/schedules/{CODE}/versions"
    document = ScheduleDocument.objects.get(code=CODE)
    current = document.versions.order_by("number").last()
    number = current.number + 1

    # A starts a draft, told beforehand who approves it, and raises row 5's fee of option 1 from $5.00 to $6.00.
    page = login(a)
    page.goto(f"{schedule}/{current.number}/new-draft/")
    assert "a second compliance officer of Casino Marysville" in page.locator("#who-approves").inner_text()
    page.get_by_label("Effective from").fill("2030-01-01")
    page.get_by_label("Reason").fill("Bureau letter of 2 March: the top tier rises")
    page.get_by_role("button", name="Start the draft").click()
    page.wait_for_load_state()
    page.goto(f"{schedule}/{number}/options/1/tiers/")
    page.get_by_label("Amount, row 5", exact=True).fill("6.00")
    page.get_by_label("Reason").fill("Bureau letter of 2 March")
    page.get_by_role("button", name="Save the tiers").click()
    page.get_by_text("Option 1: 1 tier(s) changed, 0 added, 0 removed.").wait_for()
    page.goto(f"{schedule}/{number}/publish/")
    page.get_by_role("textbox", name="Reason").fill("The Bureau's new top tier, from 2030")
    page.get_by_role("button", name=f"Ask a second officer to publish version {number}").click()
    page.get_by_text(f"{CODE} version {number}: publication asked for.").wait_for()
    assert [m.to for m in mailoutbox] == [[b.email]]  # B only: not the author
    assert mailoutbox[0].subject == (f"Awaiting your approval: Publication of {CODE} v{number} "
                                     f"({document.title})")
    assert f"/compliance/{ROOM}/schedules/{CODE}/versions/{number}/publish/" in mailoutbox[0].body

    # B sees it in the inbox, with the count in the navigation.
    other = browser.new_context()
    page_b = other.new_page()
    log_in(page_b, site.url, b.get_username())
    page_b.goto(f"{site.url}/compliance/")
    assert page_b.get_by_role("link", name=re.compile(r"^Compliance 1 awaiting you$")).count() == 1
    inbox = page_b.locator("section", has=page_b.get_by_role("heading", name="Awaiting you"))
    item = inbox.get_by_role("link", name=re.compile(rf"{CODE} v{number}"))
    assert item.count() == 1 and "asked by t-compliance" in inbox.inner_text()
    assert serious_violations(page_b) == []
    item.click()
    page_b.get_by_label("Why").fill("Checked against the Bureau's letter")
    page_b.get_by_role("button", name=f"Approve and publish version {number}").click()
    page_b.get_by_text(f"{CODE} version {number} is published.").wait_for()
    assert document.versions.get(number=number).status == "published"
    assert FeeTier.objects.get(option__version__document=document, option__version__number=number,
                               option__number=1, order=5).fee == 6

    # A is told; B's inbox is empty again.
    assert [m.to for m in mailoutbox] == [[b.email], [a.email]]
    assert mailoutbox[1].subject.startswith(f"Approved: Publication of {CODE} v{number}")
    assert "Checked against the Bureau's letter" in mailoutbox[1].body
    page_b.goto(f"{site.url}/compliance/")
    assert page_b.get_by_role("link", name=re.compile(r"^Compliance$")).count() == 1
    assert inbox.get_by_text("Nothing awaits you").count() == 1
    other.close()
