"""Months as a person meets them (issue 42): a room's Months page lists each month of its ledger with its state
(open, held and why, closed), totals and bundle, scoped as the room's other pages; reconciling a closed month from the
variance page says it is closed, when and by whom, instead of "0 table-days over 0 gaming days". (On SQLite a
closing is recorded, as the application reads it; the PostgreSQL pass closes one for real:
tests/fees/months/test_months_page.py.)"""

import datetime
import re

import pytest

from cardroom.access import Scope
from fees import ledger
from fees.models import ClosedMonth, Reconciliation
from fees.months import nightly
from tests.factories import make_posted_table

pytestmark = pytest.mark.django_db

LONG_AGO = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
JUNE, JULY, AUGUST = (datetime.date(2026, m, 1) for m in (6, 7, 8))
ROUND = {"wagers": [{"player": "p1", "base": "150", "bonus": "25"}]}
PAGE = "/compliance/casino-marysville/months/"
REGULATOR_PAGE = "/regulator/casino-marysville/months/"
VARIANCE = "/compliance/casino-marysville/variance/"


def text(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())).replace("&#x27;", "'")


def play(table, reference, day, user, amount="1.00"):
    played = datetime.datetime.combine(day, datetime.time(14), tzinfo=table.establishment.zone)
    ledger.record_round(table=table, reference=reference, played_at=played, facts=ROUND)
    ledger.record_entry({"idempotency_key": f"{reference}:1", "table": table.pk, "reference": reference,
                         "collected_at": played.isoformat(), "payer": "player", "seat": 1, "fee_kind": "player",
                         "amount": amount}, scope=Scope(user), user=user)


@pytest.fixture
def months(people, tmp_path):
    """Play in June, July and August 2026 at Casino Marysville: June closed (its bundle in the archive folder), July
    held open by the nightly close (a day not reconciled), August open."""
    table = make_posted_table(people.marysville, label="M-1", effective_from=LONG_AGO)
    for month in (JUNE, JULY, AUGUST):
        play(table, f"M-{month.month}", month.replace(day=10), people.floor)
    (tmp_path / "casino-marysville-2026-06.zip").write_bytes(b"PK the bundle")
    closed = ClosedMonth.objects.create(
        month=JUNE, archive_dir=str(tmp_path), closed_by="nightly close (fees.tasks.close_due_months)",
        closed_at=datetime.datetime(2026, 7, 11, 10, tzinfo=datetime.timezone.utc), archived=True,
        bundles=[{"establishment": "casino-marysville", "file": "casino-marysville-2026-06.zip",
                  "sha256": "ab" * 32, "bytes": 13}])
    closed.establishments.set([people.marysville])
    held = nightly.Month(JULY, [people.marysville], reasons=["not reconciled: table M-1 on 2026-07-10"])
    nightly._hold(held)
    return {"table": table, "closed": closed}


def test_the_months_page_lists_each_month_with_its_state_totals_and_bundle(client, people, months):
    client.force_login(people.compliance)
    page = client.get(PAGE)
    assert page.status_code == 200
    html, said = page.content.decode(), text(page)
    rows = re.findall(r'<tr id="month-(\d{4}-\d\d)" class="state-(\w+)"', html)
    assert rows == [("2026-08", "open"), ("2026-07", "held"), ("2026-06", "closed")]  # newest first
    august = said[said.index("August 2026"):said.index("July 2026")]
    assert "Open" in august and "Closes by itself from 2026-09-10" in august
    assert "$5.00 $1.00 −$4.00 USD running sums 1 1" in august  # expected, collected, difference, rounds, entries
    july = said[said.index("July 2026"):said.index("June 2026")]
    assert "Held open" in july and "not reconciled: table M-1 on 2026-07-10" in july
    june = said[said.index("June 2026"):]
    assert "Closed" in june and "2026-07-11 03:00 PDT by nightly close (fees.tasks.close_due_months)" in june
    link = "/compliance/casino-marysville/months/2026-06/bundle.zip"
    assert f'href="{link}"' in html
    download = client.get(link)
    assert download.status_code == 200 and b"".join(download.streaming_content) == b"PK the bundle"
    assert 'attachment; filename="casino-marysville-2026-06.zip"' in download["Content-Disposition"]
    assert "How a month closes" in said or "how a month closes" in said
    # Linked from the room's pages.
    assert f'href="{PAGE}"' in client.get(VARIANCE).content.decode()


def test_the_months_page_is_scoped_as_the_rooms_other_pages(client, people, months):
    client.force_login(people.regulator_ca)
    page = client.get(REGULATOR_PAGE)
    assert page.status_code == 200 and 'class="state-closed"' in page.content.decode()
    assert client.get("/regulator/casino-marysville/months/2026-06/bundle.zip").status_code == 200
    assert f'href="{REGULATOR_PAGE}"' in client.get("/regulator/casino-marysville/").content.decode()
    client.force_login(people.regulator_wa)  # another jurisdiction's regulator
    assert client.get(REGULATOR_PAGE).status_code == 404
    assert client.get("/regulator/casino-marysville/months/2026-06/bundle.zip").status_code == 404
    client.force_login(people.compliance_wa)  # another room's officer
    assert client.get(PAGE).status_code == 404
    assert client.get("/compliance/casino-marysville/months/2026-06/bundle.zip").status_code == 404
    client.force_login(people.floor)  # the floor's role opens no compliance page
    assert client.get(PAGE).status_code == 403
    client.force_login(people.admin)
    assert client.get(PAGE).status_code == 200
    assert f'href="{PAGE}"' in client.get("/admin-home/").content.decode()  # each room's months, from the admin's home
    client.force_login(people.compliance)
    assert client.get("/compliance/casino-marysville/months/2026-07/bundle.zip").status_code == 404  # open: none


def test_reconciling_a_closed_month_from_the_variance_page_says_it_is_closed(client, people, months,
                                                                            django_capture_on_commit_callbacks):
    client.force_login(people.compliance)
    before = Reconciliation.objects.count()
    answer = client.post(VARIANCE, {"reconcile_from": "2026-06-10", "reconcile_to": "2026-06-20"})
    assert answer.status_code == 400
    said = text(answer)
    assert ("June 2026 is closed (on 2026-07-11 by nightly close (fees.tasks.close_due_months)): its "
            "reconciliations are final; reopen it to reconcile again") in said
    assert "0 table-days" not in said and Reconciliation.objects.count() == before
    # A period reaching into an open month: its days reconciled, the closed month said.
    with django_capture_on_commit_callbacks(execute=True):  # the job runs as it is committed
        answer = client.post(VARIANCE, {"reconcile_from": "2026-06-25", "reconcile_to": "2026-07-10"})
    said = text(client.get(answer["Location"]))  # its progress page
    assert "1 table-day reconciled over 1 gaming day with play" in said
    assert "Not reconciled: June 2026 is closed (on 2026-07-11 by" in said
    # The page for a period of the closed month says it is closed and whence its figures.
    shown = text(client.get(f"{VARIANCE}?day_from=2026-06-01&day_to=2026-06-30"))
    assert "June 2026 is closed (on 2026-07-11" in shown and "Its closing sealed no figures" in shown  # no seal here


def test_the_api_lists_the_months_and_a_ledger_list_of_a_closed_month_says_it_is_closed(api, people, months):
    api.force_authenticate(people.regulator_ca)
    answer = api.get("/api/v1/ledger/months?establishment=casino-marysville")
    assert answer.status_code == 200
    listed = answer.json()["months"]
    assert [(m["month"], m["state"]) for m in listed] == [("2026-08", "open"), ("2026-07", "held"),
                                                         ("2026-06", "closed")]
    assert listed[0]["totals"] == [{"currency": "USD", "expected": "5.00", "collected": "1.00", "difference": "-4.00",
                                    "rounds": 1, "entries": 1}]
    assert listed[1]["held_because"] == ["not reconciled: table M-1 on 2026-07-10"]
    assert listed[2]["closed_by"] == "nightly close (fees.tasks.close_due_months)"
    assert listed[2]["bundles"][0]["file"] == "casino-marysville-2026-06.zip" and listed[2]["bundles"][0]["there"]
    entries = api.get("/api/v1/ledger/entries/?gaming_day_from=2026-06-20&gaming_day_to=2026-07-05").json()
    (closed,) = entries["closed_months"]
    assert closed["month"] == "2026-06" and closed["says"].startswith("June 2026 is closed (on 2026-07-11 by ")
    assert api.get("/api/v1/ledger/rounds/?gaming_day=2026-07-10").json()["closed_months"] == []
    api.force_authenticate(people.regulator_wa)
    assert api.get("/api/v1/ledger/months?establishment=casino-marysville").status_code == 404
    assert api.get("/api/v1/ledger/months").status_code == 400
