"""Hostile input answers a clear 4xx in the API's JSON error format and changes nothing (issue 10).

One test (or parametrized group) per finding of the security probe. Covered elsewhere and not repeated here:
a list as a row's key, NUL in a row's text and a float amount (test_ledger's BAD_ROWS), NUL in a round's
facts (test_ledger's test_bad_rounds_are_400_and_record_nothing), and a posting starting in the past or more
than a year ahead (test_signage's test_bad_postings_are_refused_and_change_nothing).
Tests marked ``services`` need PostgreSQL (bin/test's second pass): they race real connections.
"""

import datetime
import io
import json
import random
import re
import threading
import zipfile

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from cardroom.models import AuditLogEntry, Game, Job, Jurisdiction, Table
from compliance.checking import run_establishment
from compliance.models import Finding
from exports.verify_api import VerifyView
from fees.models import (
    CollectionEntry,
    RoundOfPlay,
    ScheduleDocument,
    ScheduleVersion,
    TablePosting,
)
from signage.models import PrintOverride
from signage.postings import post_table
from tests.factories import change_a_fee, make_table

pytestmark = pytest.mark.django_db

ENTRIES = "/api/v1/ledger/entries/"
BULK = ENTRIES + "bulk/"
ROUNDS = "/api/v1/ledger/rounds/"
SCHEDULE = "/api/v1/schedules/GEGA-002888/"


@pytest.fixture
def table(people):
    return make_table(people.marysville, label="H-1")


def entry(at, key="k-1", **changes):
    """A collection entry at table ``at``, with ``changes``."""
    return {"idempotency_key": key, "table": at.pk, "reference": "H-1",
            "collected_at": "2026-03-03T02:30:00-08:00", "payer": "player", "seat": 1, "fee_kind": "player",
            "amount": "3.00", **changes}


def refused(answer, status=400):
    """The JSON error of a refusal with ``status``; its message."""
    assert answer.status_code == status, (answer.status_code, answer.content[:500])
    error = answer.json()["error"]
    assert error["status"] == status and error["code"] and error["message"]
    return error["message"]


def ledger_rows():
    """How many collection entries and rounds are stored."""
    return CollectionEntry.objects.count(), RoundOfPlay.objects.count()


# -- 1. an object or a list where an id or a key belongs ---------------------------------------------------------

@pytest.mark.parametrize("hostile", [{"id": 1}, [1]])
def test_an_object_or_list_for_a_table_id_is_400(api, people, table, hostile):
    """Finding: a JSON object or list where an id is expected (ledger entries, bulk) was a 500."""
    api.force_authenticate(people.floor)
    row = entry(table, table=hostile)
    assert "table" in refused(api.post(ENTRIES, row, format="json"))
    rows = [entry(table, "k-0"), {**row, "idempotency_key": "k-1"}]
    assert "entries[1].table" in refused(api.post(BULK, {"entries": rows}, format="json"))
    assert ledger_rows() == (0, 0)


# -- 2. NUL and lone surrogates ---------------------------------------------------------------------------------

@pytest.mark.parametrize("url", [
    "/api/v1/schedules/GEGA%00/", "/api/v1/establishments/casino%00/", ENTRIES + "?reference=H%001",
])
def test_nul_in_the_address_is_400(api, people, url):
    """Finding: NUL characters in the path reached PostgreSQL, which refuses them (500); the query string
    answers the same 400."""
    api.force_authenticate(people.compliance)
    assert "NUL" in refused(api.get(url))


def bodies_with(table, text):
    """Bodies carrying ``text`` where it would be stored (a reason, a posting's notes) or looked up (a slug)."""
    later = (timezone.now() + datetime.timedelta(days=1)).isoformat()
    return [
        (ENTRIES, entry(table, reason=f"recount {text}"), "reason"),
        ("/api/v1/postings/", {"table": table.pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5",
                               "max_wager": "500", "effective_from": later, "notes": f"Dealer {text}"}, "notes"),
        ("/api/v1/exports", {"establishment": f"casino-marysville{text}", "as_of": "2026-03-01"}, "establishment"),
    ]


@pytest.mark.parametrize("character, named", [("\ud800", "surrogate"), ("\x00", "NUL")])
def test_a_lone_surrogate_or_nul_in_a_json_body_is_400(api, people, table, character, named):
    """Finding: a NUL (PostgreSQL refuses it) or a lone surrogate (no UTF-8 encoding) in a JSON string was a
    500 where it was stored or looked up, or was stored on SQLite."""
    api.force_authenticate(people.compliance)
    for url, data, field in bodies_with(table, character):
        body = json.dumps(data).encode()  # the character travels escaped, as \ud800 or \u0000
        message = refused(api.post(url, body, content_type="application/json"))
        assert named in message and field in message, message
    assert ledger_rows() == (0, 0)
    assert not TablePosting.objects.exists() and not Job.objects.exists()


# -- 3. moments no time zone can show ---------------------------------------------------------------------------

@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-12:00"])
def test_a_moment_at_the_edge_of_time_is_400_and_the_ledger_still_reads(api, people, table, moment):
    """Finding: year 1 at +14:00 overflowed localdate (500); year 9999 at -12:00 was saved and then broke
    GET ledger/entries/ for everyone."""
    api.force_authenticate(people.floor)
    assert "collected_at" in refused(api.post(ENTRIES, entry(table, collected_at=moment), format="json"))
    assert "collected_at" in refused(api.post(BULK, {"entries": [entry(table, collected_at=moment)]},
                                              format="json"))
    assert "played_at" in refused(api.post(ROUNDS, {"table": table.pk, "reference": "H-1", "played_at": moment,
                                                    "facts": {"wagers": []}}, format="json"))
    assert ledger_rows() == (0, 0)
    for first, last in (("0001-01-01", "0001-01-31"), ("9999-12-01", "9999-12-31")):
        assert api.get(ENTRIES, {"gaming_day_from": first, "gaming_day_to": last}).status_code == 200


# -- 4. deep nesting --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("body", [b"[" * 100_000, b"[" * 100_000 + b"]" * 100_000])
def test_a_body_of_100000_nested_lists_is_400(api, people, body):
    """Finding: a body of 100,000 nested "[" was a 500 (RecursionError)."""
    api.force_authenticate(people.floor)
    for url in (ENTRIES, BULK):
        assert "nested" in refused(api.post(url, body, content_type="application/json"))
    assert ledger_rows() == (0, 0)


@pytest.mark.parametrize("leaf", ['"plain"', '"escaped \\u00e9"'])
def test_a_body_nested_past_the_limit_is_400_with_or_without_escapes(api, people, leaf):
    """Parseable JSON 21 levels deep: refused whether its strings are checked one by one (a \\u escape) or not
    (none: the parser then checks only the nesting)."""
    api.force_authenticate(people.floor)
    body = ('{"entries": ' + "[" * 20 + leaf + "]" * 20 + "}").encode()
    assert "nested more than 20" in refused(api.post(BULK, body, content_type="application/json"))
    assert ledger_rows() == (0, 0)


# -- 5. override bodies that are not objects --------------------------------------------------------------------

@pytest.mark.parametrize("body", [b'["A reason of some length"]', b'"A reason of some length"', b"42", b"null"])
def test_an_override_body_that_is_not_an_object_is_400(api, people, table, body):
    """Finding: a compliance override whose body was a list, a string or a number was a 500."""
    posting, _ = post_table(None, fields={"table": table, "game": table.game, "option_number": 1, "min_wager": 5,
                                          "max_wager": 500, "seats": 7, "effective_from": timezone.now(),
                                          "schedule": ScheduleDocument.objects.get(code="GEGA-002888")},
                            actor_label="test")
    api.force_authenticate(people.compliance)
    for step in ("", "approve/", "refuse/"):  # asking, and a second officer's answer
        message = refused(api.post(f"/api/v1/postings/{posting.pk}/override/{step}", body,
                                   content_type="application/json"))
        assert "must be a JSON object" in message
    assert not PrintOverride.objects.exists()


# -- 6. an export of a jurisdiction with no establishments ------------------------------------------------------

def test_an_export_of_a_jurisdiction_with_no_establishments_is_done(api, people,
                                                                   django_capture_on_commit_callbacks):
    """Finding: exporting a jurisdiction with no establishments ran SQL "IN ()" on PostgreSQL; the job failed."""
    Jurisdiction.objects.create(code="ZZ", name="Nowhere", kind="state", currency="USD")
    api.force_authenticate(people.admin)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.post("/api/v1/exports", {"jurisdiction": "ZZ", "from": "2026-03-01", "to": "2026-03-31"},
                          format="json")
    assert answer.status_code == 202, answer.json()
    job = api.get(f"/api/v1/jobs/{answer.json()['uuid']}/").json()
    assert job["status"] == "done", job
    assert job["result"]["rows"]["ledger_entries"] == job["result"]["rows"]["rounds"] == 0
    bundle = b"".join(api.get(job["download"]).streaming_content)
    assert "ledger_entries.csv" in zipfile.ZipFile(io.BytesIO(bundle)).namelist()


# -- 7. deleting a draft another draft is based on --------------------------------------------------------------

def test_deleting_a_draft_another_draft_is_based_on_is_409(api, people):
    """Finding: deleting a draft another draft was started from was a 500 (a protected foreign key)."""
    api.force_authenticate(people.compliance)
    for number in (1, 2):
        answer = api.post(f"{SCHEDULE}versions/{number}/drafts/", {"reason": "r", "effective_from": "2027-01-01"},
                          format="json")
        assert answer.status_code == 201, answer.json()
    message = refused(api.delete(SCHEDULE + "versions/2/"), 409)
    assert "v3" in message and "started from it" in message
    assert list(ScheduleVersion.objects.filter(document__code="GEGA-002888").values_list("number", flat=True)) == [
        1, 2, 3]
    assert api.delete(SCHEDULE + "versions/3/").status_code == 204
    assert api.delete(SCHEDULE + "versions/2/").status_code == 204


# -- 8. simultaneous new drafts ---------------------------------------------------------------------------------

def in_threads(count, work):
    """Run ``work(n)`` in ``count`` threads started together, each on its own connection; their results."""
    start, results = threading.Barrier(count), [None] * count

    def run(n):
        try:
            start.wait(timeout=30)
            results[n] = work(n)
        except Exception as error:  # noqa: BLE001 - reported by the test
            results[n] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def client_of(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_eight_simultaneous_new_drafts_get_distinct_numbers(reseed, people):
    """Finding: 8 simultaneous "new draft" requests raced for the version number (500)."""
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"

    def new_draft(n):
        answer = client_of(people.compliance).post(f"{SCHEDULE}versions/1/drafts/",
                                                   {"reason": f"draft {n}", "effective_from": "2027-01-01"},
                                                   format="json")
        return answer.status_code, answer.json()

    answers = in_threads(8, new_draft)
    assert all(isinstance(a, tuple) and a[0] in (201, 409) for a in answers), answers
    numbers = [body["number"] for status, body in answers if status == 201]
    assert numbers and len(set(numbers)) == len(numbers)
    stored = ScheduleVersion.objects.filter(document__code="GEGA-002888", number__gt=1)
    assert sorted(stored.values_list("number", flat=True)) == sorted(numbers)


# -- 9. overlapping bulk batches --------------------------------------------------------------------------------

def amount_of(key):
    return f"{int(key.split('-')[1]) % 50 + 1}.00"


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_overlapping_batches_from_concurrent_clients_never_deadlock(reseed, people):
    """Finding: overlapping bulk batches deadlocked (500)."""
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    table = Table.objects.create(establishment=people.marysville, label="C-1", seats=7)

    def batch(n):
        keys = [f"k-{i}" for i in range(n * 100, n * 100 + 1500)]
        random.Random(n).shuffle(keys)  # each client sends the shared keys in another order
        rows = [entry(table, key, reference=key, amount=amount_of(key)) for key in keys]
        answer = client_of(people.floor).post(BULK, {"entries": rows}, format="json")
        return answer.status_code, answer.json()

    answers = in_threads(8, batch)
    assert all(isinstance(a, tuple) and a[0] in (200, 201) for a in answers), answers
    stored = dict(CollectionEntry.objects.filter(table=table).values_list("idempotency_key", "amount"))
    assert len(stored) == 7 * 100 + 1500
    assert all(f"{amount}" == amount_of(key) for key, amount in stored.items())


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_key_stored_with_other_content_is_never_already_recorded(reseed, people):
    """Finding: concurrent bulk posts whose key existed with different content were told 200 ("already
    recorded") while their amounts were never stored."""
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    table = Table.objects.create(establishment=people.marysville, label="C-2", seats=7)
    amounts = ["3.00", "4.00"] * 4

    def batch(n):
        rows = [entry(table, f"k-{i}", reference=f"H-{i}", amount=amounts[n]) for i in range(100)]
        answer = client_of(people.floor).post(BULK, {"entries": rows}, format="json")
        return answer.status_code, answer.json()

    answers = in_threads(8, batch)
    stored = set(CollectionEntry.objects.filter(table=table).values_list("amount", flat=True))
    assert len(stored) == 1 and CollectionEntry.objects.filter(table=table).count() == 100
    kept = f"{stored.pop()}"
    for n, answer in enumerate(answers):
        assert isinstance(answer, tuple), answer
        status, body = answer
        if amounts[n] == kept:
            assert status in (200, 201), body
        else:
            assert status == 409, (n, status, body)
            assert re.search(r"Row \d+'s idempotency key 'k-\d+' is already recorded", body["error"]["message"])


# -- 10. the export report after an acknowledgement and a validation the same day -------------------------------

@pytest.mark.parametrize("reason", [
    "Checked with the Bureau: letter BGC/2026/CMV/000123456789/approval-of-table-H-1 covers it.",
    "Checked with the Bureau. " * 80,  # 2,000 characters, the most a reason holds: a row taller than a page
])
def test_an_export_after_an_acknowledgement_and_a_validation_that_day_has_its_report(
        api, people, django_capture_on_commit_callbacks, reason):
    """Finding: report.pdf failed (reportlab "negative availWidth") after a finding was acknowledged and a
    validation ran that day; and (found since) with a reason too long for its row to fit on a page."""
    today = timezone.localdate()
    # A table set up with a game California never approved: the room's run finds it (approval.table_game).
    Table.objects.create(establishment=people.marysville, label="H-1", seats=6,
                         game=Game.objects.get(slug="one-for-the-money"))
    run_establishment(people.marysville, as_of=today)
    finding = Finding.objects.filter(establishment=people.marysville).first()
    assert finding is not None
    api.force_authenticate(people.compliance)
    acknowledged = api.post(f"/api/v1/compliance/findings/{finding.pk}/acknowledge/", {"reason": reason},
                            format="json")
    assert acknowledged.status_code == 200, acknowledged.json()
    ran = api.post("/api/v1/compliance/runs/run/", {"establishment": "casino-marysville"}, format="json")
    assert ran.status_code == 201, ran.json()
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.post("/api/v1/exports", {"establishment": "casino-marysville", "from": today.isoformat(),
                                              "to": today.isoformat()}, format="json")
    job = api.get(f"/api/v1/jobs/{answer.json()['uuid']}/").json()
    assert job["status"] == "done", job
    with zipfile.ZipFile(io.BytesIO(b"".join(api.get(job["download"]).streaming_content))) as bundle:
        assert bundle.read("report.pdf").startswith(b"%PDF")
        assert reason.strip() in bundle.read("findings.csv").decode()


# -- 11. money read strictly ------------------------------------------------------------------------------------

@pytest.mark.parametrize("amount", ["1e3", "1_000", "٣", "１０", "-0", "+5"])
def test_money_in_the_ledger_is_read_strictly(api, people, table, amount):
    """Finding: the ledger read "1e3", "1_000", Arabic-Indic and fullwidth digits, "-0" and "+5" as money."""
    api.force_authenticate(people.floor)
    assert "amount" in refused(api.post(ENTRIES, entry(table, amount=amount), format="json"))
    assert ledger_rows() == (0, 0)


# -- 12. Django's own limits in the API's error format ----------------------------------------------------------

def test_a_body_over_the_limit_is_413_in_json(api, people, table):
    """Finding: a body over DATA_UPLOAD_MAX_MEMORY_SIZE was not answered in the API's JSON error format."""
    api.force_authenticate(people.floor)
    body = b'{"reference": "' + b"x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + b'"}'
    message = refused(api.post(ENTRIES, body, content_type="application/json"), 413)
    assert f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,}" in message
    assert ledger_rows() == (0, 0)


def test_an_upload_to_exports_verify_over_its_limit_is_413(api, people, monkeypatch):
    """Finding: uploads to exports/verify had no size limit.

    (The view's limit is read from EXPORT_VERIFY_MAX_BYTES as the code is loaded, so the test lowers it on the
    view itself.)"""
    monkeypatch.setattr(VerifyView, "max_body_bytes", 4096)
    api.force_authenticate(people.compliance)
    upload = io.BytesIO(b"PK" + b"\0" * 8192)
    upload.name = "bundle.zip"
    message = refused(api.post("/api/v1/exports/verify", {"bundle": upload}, format="multipart"), 413)
    assert "4,096" in message


def test_too_many_fields_is_400_in_json(api, people):
    """Finding: Django's TooManyFieldsSent was not answered in the API's JSON error format."""
    api.force_authenticate(people.compliance)
    many = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    assert "too many fields" in refused(api.get(f"{ENTRIES}?{many}"))
    form = {f"f{i}": "1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)}
    assert "too many fields" in refused(api.post("/api/v1/exports/verify", form, format="multipart"))


# -- 13. gaming day and moment agree in the room's zone ---------------------------------------------------------

@pytest.mark.parametrize("collected_at, gaming_day", [
    ("2026-03-03T02:30:00-08:00", "2026-03-04"),
    # 09:30 on the 3rd in Tokyo is 16:30 on the 2nd in Marysville: the room's day, not the offset's.
    ("2026-03-03T09:30:00+09:00", "2026-03-03"),
])
def test_a_gaming_day_that_disagrees_with_the_moment_in_the_rooms_zone_is_400(api, people, table, collected_at,
                                                                              gaming_day):
    """Finding: gaming_day was stored as given, whatever day collected_at fell on in the room's zone."""
    api.force_authenticate(people.floor)
    row = entry(table, collected_at=collected_at, gaming_day=gaming_day)
    message = refused(api.post(ENTRIES, row, format="json"))
    assert "gaming_day" in message and "does not agree" in message and people.marysville.time_zone in message
    message = refused(api.post(ROUNDS, {"table": table.pk, "reference": "H-1", "played_at": collected_at,
                                        "gaming_day": gaming_day, "facts": {"players": 6}}, format="json"))
    assert "gaming_day" in message and "does not agree" in message
    assert ledger_rows() == (0, 0)


# -- 15. retroactive schedule versions --------------------------------------------------------------------------

def test_a_version_effective_before_today_publishes_only_as_retroactive_with_a_reason(api, people):
    """Finding: a schedule version could be published with an effective date before its publication, silently."""
    api.force_authenticate(people.compliance)
    last_month = (timezone.localdate() - datetime.timedelta(days=30)).isoformat()
    created = api.post(SCHEDULE + "versions/1/drafts/", {"reason": "Bureau letter", "effective_from": last_month},
                       format="json")
    assert created.status_code == 201, created.json()
    change_a_fee(ScheduleVersion.objects.get(document__code="GEGA-002888", number=2))
    publish = SCHEDULE + "versions/2/publication-request/"
    assert "retroactive" in refused(api.post(publish, {"reason": "Late letter"}, format="json"))
    assert "reason" in refused(api.post(publish, {"reason": "Late letter", "retroactive": True}, format="json"))
    assert "retroactive" in refused(api.post(publish, {"reason": "Late letter", "retroactive": "yes",
                                                       "retroactive_reason": "x"}, format="json"))
    assert ScheduleVersion.objects.get(document__code="GEGA-002888", number=2).status == "draft"
    asked = api.post(publish, {"reason": "Late letter", "retroactive": True,
                               "retroactive_reason": "Bureau letter dated last month"}, format="json")
    assert asked.status_code == 200, asked.json()
    api.force_authenticate(people.admin)
    published = api.post(SCHEDULE + "versions/2/approve/", {"reason": "Letter read"}, format="json")
    assert published.status_code == 200, published.json()
    body = published.json()
    assert (body["status"], body["retroactive"], body["retroactive_reason"]) == (
        "published", True, "Bureau letter dated last month")
    logged = AuditLogEntry.objects.filter(action="schedule.publish").latest("id")
    assert logged.data["retroactive"] is True


# -- 16. idempotency keys are scoped to the establishment -------------------------------------------------------

def test_idempotency_keys_are_per_establishment_and_refusals_reveal_no_other_rooms_ids(api, people, table):
    """Finding: keys were global, so a key used in another room was refused naming that room's entry."""
    wa_table = Table.objects.create(establishment=people.wa_room, label="W-1", seats=9)
    api.force_authenticate(people.floor)
    ours = api.post(ENTRIES, entry(table, "evening-shift"), format="json")
    api.force_authenticate(people.compliance_wa)
    theirs = api.post(ENTRIES, entry(wa_table, "evening-shift", amount="4.00"), format="json")
    assert (ours.status_code, theirs.status_code) == (201, 201)
    hidden = str(ours.json()["id"])
    for answer in (api.post(ENTRIES, entry(wa_table, "evening-shift", amount="5.00"), format="json"),
                   api.post(BULK, {"entries": [entry(wa_table, "evening-shift", amount="5.00")]}, format="json")):
        message = refused(answer, 409)
        assert "'evening-shift'" in message and hidden not in re.findall(r"[0-9]+", message), message
    # A correction by key finds the entry of the corrector's own room.
    fix = api.post(ENTRIES, {"idempotency_key": "fix", "corrects_key": "evening-shift", "amount": "1.00",
                             "reason": "recount"}, format="json")
    assert fix.status_code == 201 and fix.json()["corrects"] == theirs.json()["id"]
    assert CollectionEntry.objects.count() == 3
    assert f"{CollectionEntry.objects.get(pk=hidden).amount}" == "3.00"


# -- 17. audit export bundles: compliance officers and regulators, not floor supervisors -------------------------

def test_a_floor_supervisor_neither_sees_nor_downloads_export_bundles(api, people,
                                                                      django_capture_on_commit_callbacks):
    """Finding: a floor supervisor could list audit export jobs and download their bundles."""
    api.force_authenticate(people.compliance)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.post("/api/v1/exports", {"establishment": "casino-marysville", "from": "2026-03-01",
                                              "to": "2026-03-31"}, format="json")
    assert answer.status_code == 202, answer.json()
    uuid = answer.json()["uuid"]
    assert Job.objects.get(uuid=uuid).status == Job.Status.DONE
    for user, allowed in ((people.floor, False), (people.compliance, True), (people.regulator_ca, True)):
        api.force_authenticate(user)
        listed = [job["uuid"] for job in api.get("/api/v1/jobs/").json()["results"]]
        assert (uuid in listed) is allowed, user
        download = api.get(f"/api/v1/jobs/{uuid}/download/")
        if allowed:
            assert download.status_code == 200, user
        else:
            refused(download, 404)
            refused(api.get(f"/api/v1/jobs/{uuid}/"), 404)
