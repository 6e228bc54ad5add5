"""Regulators review, read-only, everything in their jurisdiction and nothing elsewhere (issue 6).

One California and one Washington regulator against a California and a Washington establishment, each with a
table, a posting, a finding, a ledger entry, a printed sign and an export: every kind is visible to the
jurisdiction's regulator, invisible to the other's, and nothing can be changed by either.
"""

import datetime
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from cardroom.models import Game, Job, Table
from compliance.checking import run_establishment
from compliance.models import Finding
from fees.models import CollectionEntry, ScheduleDocument, ScheduleVersion, TablePosting
from signage import printing
from signage.models import SignPrint
from signage.postings import post_table

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")


@pytest.fixture
def floor(people, django_capture_on_commit_callbacks):
    """A posted, printed, validated, collected table in California and one in Washington, and an export each."""
    made = {}
    for name, establishment, game, schedule, option in (
        ("ca", people.marysville, "face-up-pai-gow-poker", "GEGA-002888", 1),
        ("wa", people.wa_room, "one-for-the-money", None, None),
    ):
        table = Table.objects.create(establishment=establishment, label=f"R-{name}", seats=6,
                                     game=Game.objects.get(slug=game))
        posting = None
        if schedule:
            posting, _ = post_table(None, fields={"table": table, "game": table.game,
                                                  "schedule": ScheduleDocument.objects.get(code=schedule),
                                                  "option_number": option,
                                                  "min_wager": 5, "max_wager": 500, "seats": 6,
                                                  "effective_from": datetime.datetime(2026, 3, 1, 8, tzinfo=LA)},
                                    actor_label="test")
            printing.print_signs([posting], "letter", label="test", channel=SignPrint.Channel.API)
        run_establishment(establishment, as_of=datetime.date(2026, 3, 2))
        entry = CollectionEntry.objects.create(
            idempotency_key=f"reg-{name}", establishment=establishment, table=table, gaming_day=datetime.date(2026, 3, 2), reference="H-1",
            collected_at=datetime.datetime(2026, 3, 2, 10, tzinfo=LA), payer="player", fee_kind="player",
            amount="1.00", currency="USD", recorded_at=datetime.datetime(2026, 3, 2, 10, tzinfo=LA))
        with django_capture_on_commit_callbacks(execute=True):
            job = Job.objects.create(kind="audit_export", establishment=establishment,
                                     jurisdiction=establishment.jurisdiction, requested_label="test",
                                     params={"establishments": [establishment.slug], "jurisdiction": None,
                                             "from": "2026-03-01", "to": "2026-03-31"})
        made[name] = {"establishment": establishment, "table": table, "posting": posting, "entry": entry,
                      "job": job, "finding": Finding.objects.filter(establishment=establishment).first()}
    return made


def visible(api, url, **params):
    answer = api.get(url, params)
    assert answer.status_code == 200, (url, answer.status_code)
    body = answer.json()
    return body["results"] if isinstance(body, dict) and "results" in body else body


def test_a_regulator_sees_everything_in_their_jurisdiction(api, people, floor):
    ca = floor["ca"]
    api.force_login(people.regulator_ca)
    assert "casino-marysville" in [e["slug"] for e in visible(api, "/api/v1/establishments/")]
    assert ca["table"].pk in [t["id"] for t in visible(api, "/api/v1/tables/")]
    assert ca["posting"].pk in [p["id"] for p in visible(api, "/api/v1/postings/")]
    assert api.get(f"/api/v1/tables/{ca['table'].pk}/posting").json()["id"] == ca["posting"].pk
    assert ca["finding"].pk in [f["id"] for f in visible(api, "/api/v1/compliance/findings/")]
    assert ca["entry"].pk in [e["id"] for e in visible(api, "/api/v1/ledger/entries/", gaming_day="2026-03-02")]
    assert str(ca["job"].uuid) in [j["uuid"] for j in visible(api, "/api/v1/jobs/", kind="audit_export")]
    history = visible(api, "/api/v1/schedules/GEGA-002888/history/")
    assert history  # who changed the schedule, when and why


def test_nothing_of_another_jurisdiction_is_visible(api, people, floor):
    ca, wa = floor["ca"], floor["wa"]
    api.force_login(people.regulator_wa)
    assert "casino-marysville" not in [e["slug"] for e in visible(api, "/api/v1/establishments/")]
    assert "test-wa-room" in [e["slug"] for e in visible(api, "/api/v1/establishments/")]
    assert ca["table"].pk not in [t["id"] for t in visible(api, "/api/v1/tables/")]
    assert wa["table"].pk in [t["id"] for t in visible(api, "/api/v1/tables/")]
    assert visible(api, "/api/v1/postings/") == []
    assert ca["finding"].pk not in [f["id"] for f in visible(api, "/api/v1/compliance/findings/")]
    assert ca["entry"].pk not in [e["id"] for e in visible(api, "/api/v1/ledger/entries/", gaming_day="2026-03-02")]
    jobs = [j["uuid"] for j in visible(api, "/api/v1/jobs/")]
    assert str(wa["job"].uuid) in jobs and str(ca["job"].uuid) not in jobs
    for url in (f"/api/v1/tables/{ca['table'].pk}/", f"/api/v1/postings/{ca['posting'].pk}/",
                f"/api/v1/tables/{ca['table'].pk}/posting", f"/api/v1/tables/{ca['table'].pk}/signage.pdf",
                f"/api/v1/jobs/{ca['job'].uuid}/", f"/api/v1/jobs/{ca['job'].uuid}/download/",
                f"/api/v1/compliance/findings/{ca['finding'].pk}/", f"/api/v1/ledger/entries/{ca['entry'].pk}/",
                "/api/v1/schedules/CMV-CA-TABLE-ACTION/"):
        assert api.get(url).status_code == 404, url
    # ... and an export of it is refused.
    answer = api.post("/api/v1/exports", {"establishment": "casino-marysville", "from": "2026-03-01",
                                          "to": "2026-03-31"}, format="json")
    assert answer.status_code == 400 and "among those you may see" in answer.json()["error"]["message"]
    answer = api.post("/api/v1/exports", {"jurisdiction": "CA", "as_of": "2026-03-31"}, format="json")
    assert answer.status_code == 400
    assert not Job.objects.filter(requested_by=people.regulator_wa).exists()


def test_a_regulator_requests_exports_of_an_establishment_and_of_the_jurisdiction(
        api, people, floor, django_capture_on_commit_callbacks):
    api.force_login(people.regulator_ca)
    with django_capture_on_commit_callbacks(execute=True):
        one = api.post("/api/v1/exports", {"establishment": "casino-marysville", "from": "2026-03-01",
                                           "to": "2026-03-31"}, format="json")
        everything = api.post("/api/v1/exports", {"jurisdiction": "CA", "as_of": "2026-03-31"}, format="json")
    assert one.status_code == 202 and everything.status_code == 202
    for answer in (one, everything):
        job = api.get(f"/api/v1/jobs/{answer.json()['uuid']}/").json()
        assert job["status"] == "done", job
        assert api.get(job["download"]).status_code == 200


def test_a_regulator_cannot_change_anything(api, people, floor):
    ca = floor["ca"]
    version = ScheduleVersion.objects.get(document__code="GEGA-002888", number=1)
    api.force_login(people.regulator_ca)
    before = (TablePosting.objects.count(), CollectionEntry.objects.count(), SignPrint.objects.count(),
              ScheduleVersion.objects.count())
    # Each refused by the named permission it needs (403); a ledger entry is never deleted by anyone (405).
    attempts = [
        ("post", "/api/v1/postings/", {"table": ca["table"].pk, "schedule": "GEGA-002888", "option": 1,
                                       "min_wager": "5", "max_wager": "500"}, 403),
        ("post", f"/api/v1/postings/{ca['posting'].pk}/override/", {"reason": "A regulator may not do this."}, 403),
        ("post", f"/api/v1/tables/{ca['table'].pk}/signage.pdf", {}, 403),
        ("post", "/api/v1/signage/batches", {"establishment": "casino-marysville"}, 403),
        ("post", "/api/v1/ledger/entries/", {"table": ca["table"].pk, "reference": "H-2"}, 403),
        ("post", "/api/v1/schedules/GEGA-002888/versions/1/drafts/", {"reason": "x", "effective_from": "2027-01-01"},
         403),
        ("patch", "/api/v1/schedules/GEGA-002888/versions/1/", {"reason": "x"}, 403),
        ("post", f"/api/v1/compliance/findings/{ca['finding'].pk}/acknowledge/", {"reason": "Seen by the Bureau."},
         403),
        ("delete", f"/api/v1/ledger/entries/{ca['entry'].pk}/", None, 405),
    ]
    for method, url, body, status in attempts:
        answer = getattr(api, method)(url, body, format="json") if body is not None else getattr(api, method)(url)
        assert answer.status_code == status, (method, url, answer.status_code)
    assert (TablePosting.objects.count(), CollectionEntry.objects.count(), SignPrint.objects.count(),
            ScheduleVersion.objects.count()) == before
    assert not Finding.objects.get(pk=ca["finding"].pk).acknowledged

    # The admin is for administrators only: nothing to read or write there.
    client = api  # the API client also drives the admin
    for url in (reverse("admin:fees_scheduleversion_change", args=[version.pk]),
                reverse("admin:fees_tableposting_post")):
        assert client.get(url).status_code == 302
    assert client.post(reverse("admin:fees_tableposting_override", args=[ca["posting"].pk]),
                       {"reason": "A regulator may not do this."}).status_code == 302
    assert not ca["posting"].print_overrides.exists()
