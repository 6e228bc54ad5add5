"""A Washington condition withdrawn, as the room's compliance officer meets it (issue 42): the table's page says
why its sign may not be printed and offers no print button; a refusal speaks words, not rule codes; "Awaiting you"
lists what to do, once per problem with the tables it touches; the findings inbox lists each problem once (found
at the table's posting and at the table by the same run)."""

import datetime

import pytest
from django.urls import reverse

from cardroom.inbox import awaiting, awaiting_count
from cardroom.models import ConditionFulfilment, Game
from tests.compliance.test_judgement import MARCH_1, wa_table  # noqa: F401 (the fixture)
from tests.factories import make_table, post_as

pytestmark = pytest.mark.django_db


@pytest.fixture
def withdrawn(client, people, wa_table, clock, django_capture_on_commit_callbacks):  # noqa: F811
    """Tables OFM-1 and OFM-2 posted cleanly, then the room's internal-controls condition withdrawn on its page."""
    table, posting, condition = wa_table
    second = make_table(people.wa_room, label="OFM-2", seats=6, game=Game.objects.get(slug="one-for-the-money"))
    post_as(people.compliance_wa, {
        "table": second.pk, "rules": "3 Card Bonus (WSGC enclosure 2014)", "decks": 6, "min_wager": "10",
        "max_wager": "300", "effective_from": (MARCH_1 + datetime.timedelta(days=2, minutes=1)).isoformat(),
        "bonus_limits": [{"bet": "3 Card Bonus", "minimum": "1", "maximum": "5", "paytable": "WSGC 1"}]})
    clock(MARCH_1 + datetime.timedelta(days=2, minutes=5))
    client.force_login(people.compliance_wa)
    record = ConditionFulfilment.objects.get(condition=condition, establishment=people.wa_room)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(reverse("console:compliance-condition-withdraw", args=[people.wa_room.slug, record.pk]),
                             {f"w{record.pk}-reason": "Not met after all: the controls were never approved."})
    assert answer.status_code == 302
    return table, second


def test_the_tables_page_says_why_its_sign_may_not_be_printed_and_offers_no_print(client, people, withdrawn):
    table, _ = withdrawn
    page = client.get(reverse("console:floor-table", args=[people.wa_room.slug, table.pk])).content.decode()
    assert "Sign current" not in page and "Print this sign" not in page
    blocked = page.split('id="sign-blocked"', 1)[1].split("</div>", 1)[0]
    assert "Sign may not be printed" in blocked and "Approval conditions outstanding" in blocked
    assert "internal controls" in blocked and "override" in blocked
    assert "approval.conditions_outstanding" not in page


def test_a_refused_print_says_it_in_words(client, people, withdrawn):
    table, _ = withdrawn
    refused = client.post(reverse("console:floor-sign", args=[people.wa_room.slug, table.pk]), {"layout": "letter"},
                          follow=True)
    said = " ".join(str(m) for m in refused.context["messages"])
    assert "Table OFM-1's sign may not be printed. Approval conditions outstanding: One for the Money" in said
    assert "approval.conditions_outstanding" not in said
    assert "one-for-the-money-wa-2014" not in said  # the withdrawal's own message: the approval named, not its key
    assert "Condition 2 of the One for the Money approval" in said


def test_awaiting_you_lists_the_problem_once_with_the_tables_it_touches(client, people, withdrawn):
    home = client.get(reverse("console:compliance", args=[people.wa_room.slug]))
    (item,) = [a for a in home.context["awaiting"] if a.kind == "finding_error"]
    assert item.what == ("Approval conditions outstanding at tables OFM-1 and OFM-2: their signs may not be "
                         "printed until it is put right, or a second officer approves an override")
    page = home.content.decode()
    assert "Nothing awaits you" not in page and "Error to put right: Approval conditions outstanding" in page
    assert client.get(reverse("console:floor", args=[people.wa_room.slug])).context["nav_awaiting"] == 1
    # The navigation counts the problems in the database (review.Kind.count), as many as the home lists.
    assert awaiting_count(people.compliance_wa) == len(awaiting(people.compliance_wa)) == 1


def test_the_findings_inbox_counts_and_lists_each_problem_once(client, people, withdrawn):
    page = client.get(reverse("console:compliance-findings", args=[people.wa_room.slug]), {"severity": "error"})
    assert page.context["counts"]["error"]["open"] == 2  # one per table, not per table and per posting
    assert sorted(f.table_label for f in page.context["rows"]) == ["OFM-1", "OFM-2"]
    client.post(reverse("console:compliance-run", args=[people.wa_room.slug]))  # found again: still once each
    page = client.get(reverse("console:compliance-findings", args=[people.wa_room.slug]), {"severity": "error"})
    assert page.context["counts"]["error"]["open"] == 2 and len(page.context["rows"]) == 2


def test_the_floor_lists_the_blocked_signs_apart_and_never_asks_to_print_them(client, people, withdrawn):
    table, second = withdrawn
    page = client.get(reverse("console:floor", args=[people.wa_room.slug])).content.decode()
    reprint = page.split('id="reprint"', 1)[1].split("</section>", 1)[0]
    assert "Signs to print or reprint" not in reprint and "Every sign is current" not in reprint
    blocked = reprint.split('id="blocked-heading"', 1)[1]
    assert "Signs that may not be printed (2)" in blocked
    assert "Table OFM-1</a>: " in blocked and "Table OFM-2</a>: " in blocked
    assert "Approval conditions outstanding" in blocked or "condition" in blocked
    row = page.split('aria-label="Include table OFM-1"', 1)[1].split("</tr>", 1)[0]
    assert "may not print" in row and "to print:" not in row
