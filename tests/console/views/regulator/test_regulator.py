"""A regulator's pages (issue 11): the establishments of the jurisdiction, one establishment's postings, findings,
approvals and fees expected vs collected, an audit export requested and downloaded, a bundle verified by
upload (tampering named file by file), the audit log with its chain status. Read-only, scoped as the API:
nothing of another jurisdiction appears anywhere, and other roles get 403.
"""

import datetime
import io
import re
import zipfile
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test import TestCase
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cardroom import bundle, keys
from cardroom import chain as chain_module
from cardroom.access import Scope
from cardroom.audit import log_action
from cardroom.models import AuditChainHead, AuditLogEntry, Game, Job, Table
from cardroom.tasks import verify_audit_chains
from compliance import inbox
from compliance.checking import run_establishment, run_everything
from compliance.findings import acknowledge
from compliance.models import Finding
from console.views import regulator
from fees.ledger import kept_sums, reconcile
from fees.models import CollectionEntry, RoundOfPlay
from tests.factories import post_fields

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
ROUND = {"wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p2", "base": "40"}]}
DAY = datetime.date(2026, 3, 3)

HOME = reverse("console:regulator-home")
EXPORT = reverse("console:regulator-export")
VERIFY = reverse("console:regulator-verify")


def page_of(slug):
    return reverse("console:regulator-establishment", args=[slug])


def log_of(slug):
    return reverse("console:regulator-audit-log", args=[slug])


def post(table, schedule, option=1, minimum=5, maximum=500):
    return post_fields(table, schedule=schedule, option=option, low=minimum, high=maximum,
                       effective_from=datetime.datetime(2026, 3, 1, 8, tzinfo=LA))[0]


def played(table, posting, reference, expected, collected, day=DAY):
    """A round and its collection straight into the ledger (the API's path is tested in test_ledger), and the
    ledger's kept sums rewritten from the rows (what the page reads)."""
    at = datetime.datetime.combine(day, datetime.time(2), LA)
    RoundOfPlay.objects.create(establishment=table.establishment, table=table, gaming_day=day, reference=reference,
                               played_at=at, facts={}, posting=posting, schedule_code=posting.schedule.code,
                               schedule_version=1, option_number=posting.option_number,
                               expected_total=Decimal(expected), currency="USD")
    if collected is not None:
        CollectionEntry.objects.create(
            idempotency_key=f"{table.pk}-{day}-{reference}", establishment=table.establishment, table=table,
            gaming_day=day, reference=reference, collected_at=at, payer="player", fee_kind="player",
            amount=Decimal(collected), currency="USD", recorded_at=at)
    kept_sums.rewrite(table.establishment, day, day)


@pytest.fixture
def room(api, people):
    """Casino Marysville: tables 2 and 10 posted (10 with an error finding, acknowledged by the compliance
    officer), 7 unposted; on 3 March two rounds at table 2 through the ledger API (one hand under-collected)
    and a reconciliation; a Washington room with a table of its own."""
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    two = Table.objects.create(establishment=people.marysville, label="R-2", seats=7, game=game)
    ten = Table.objects.create(establishment=people.marysville, label="R-10", seats=7,
                               game=Game.objects.get(slug="pure-21-5-blackjack"))
    Table.objects.create(establishment=people.marysville, label="R-7", seats=7, game=game)
    posting = post(two, "GEGA-002888")
    wrong = post(ten, "CMV-CA-TABLE-ACTION")
    error = Finding.objects.get(posting=wrong, severity="error")
    acknowledge(people.compliance, finding=error, reason="Two rates withdrawn from the floor on 2 March.",
                scope=_scope(people.compliance))
    api.force_authenticate(people.floor)
    expected = Decimal("0")
    for i, paid in ((1, "1.00"), (2, "0.00")):
        answer = api.post("/api/v1/ledger/rounds/", {"table": two.pk, "gaming_day": DAY.isoformat(),
                                                     "reference": f"H-{i}", "played_at": "2026-03-03T02:00:00-08:00",
                                                     "facts": ROUND}, format="json")
        assert answer.status_code == 201, answer.json()
        expected += Decimal(answer.json()["expected_total"])
        answer = api.post("/api/v1/ledger/entries/", {"idempotency_key": f"x-{i}", "table": two.pk,
                                                      "gaming_day": DAY.isoformat(), "reference": f"H-{i}",
                                                      "collected_at": "2026-03-03T02:30:00-08:00", "payer": "player",
                                                      "fee_kind": "player", "seat": i, "amount": paid}, format="json")
        assert answer.status_code == 201, answer.json()
    api.force_authenticate(None)
    reconcile(DAY, table_ids=[two.pk])
    wa_table = Table.objects.create(establishment=people.wa_room, label="WA-1", seats=6,
                                    game=Game.objects.get(slug="one-for-the-money"))
    return {"two": two, "ten": ten, "posting": posting, "error": error, "expected": expected,
            "collected": Decimal("1.00"), "wa_table": wa_table}


def _scope(user):
    return Scope(user)


def text(response):
    return response.content.decode()


def cell(html, element_id):
    """The inner HTML of the element with this id (enough for the flat markup of these pages)."""
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</(dd|table|ul|section)>', html, re.S)
    assert match, element_id
    return match.group(1)


# -- who may open the pages ----------------------------------------------------------------------------------------


def test_only_regulators_and_administrators_open_the_pages(client, people, room):
    pages = [HOME, page_of("casino-marysville"), log_of("casino-marysville"), EXPORT]  # VERIFY: compliance too
    for url in pages:
        assert client.get(url).status_code == 302  # to the login page
    for user in (people.floor, people.compliance, people.outsider):
        client.force_login(user)
        for url in pages:
            assert client.get(url).status_code == 403, (user, url)
        assert client.post(EXPORT, {"what": "establishment:casino-marysville", "start": "2026-03-01",
                                    "end": "2026-03-31"}).status_code == 403
    assert not Job.objects.exists()
    client.force_login(people.admin)
    for url in pages:
        assert client.get(url).status_code == 200, url


def test_nothing_of_another_jurisdiction_appears(client, people, room):
    client.force_login(people.regulator_ca)
    for url in (HOME, EXPORT, VERIFY, page_of("casino-marysville"), log_of("casino-marysville")):
        html = text(client.get(url))
        for foreign in (people.wa_room.name, people.wa_room.slug, people.washington.name, "WA-1"):
            assert foreign not in html, (url, foreign)
    assert client.get(page_of("test-wa-room")).status_code == 404
    assert client.get(log_of("test-wa-room")).status_code == 404
    # ... nor can it be asked for: not among the choices, so a 400 and no job.
    answer = client.post(EXPORT, {"what": "establishment:test-wa-room", "start": "2026-03-01", "end": "2026-03-31"})
    assert answer.status_code == 400 and "Select a valid choice" in text(answer)
    answer = client.post(EXPORT, {"what": "jurisdiction:WA", "start": "2026-03-01", "end": "2026-03-31"})
    assert answer.status_code == 400
    assert not Job.objects.exists()

    client.force_login(people.regulator_wa)
    html = text(client.get(HOME))
    assert people.wa_room.name in html and people.marysville.name not in html
    assert client.get(page_of("casino-marysville")).status_code == 404


# -- home and an establishment ------------------------------------------------------------------------------------


def _home_row(client, slug="casino-marysville"):
    html = text(client.get(HOME))
    return html, re.search(rf'<a href="/regulator/{slug}/">.*?</tr>', html, re.S).group(0)


def test_home_lists_each_establishment_with_its_tables_posted_and_open_errors(client, people, room):
    client.force_login(people.regulator_ca)
    html, row = _home_row(client)
    assert "2 of 3" in row  # R-7 has no posting
    assert "none" in row  # the one error found is acknowledged
    assert 'method="post"' not in html.replace('method="post" action="/logout/"', "")
    eleven = Table.objects.create(establishment=people.marysville, label="R-11", seats=7,
                                  game=Game.objects.get(slug="pure-21-5-blackjack"))
    post(eleven, "CMV-CA-TABLE-ACTION")
    _, row = _home_row(client)
    assert "3 of 4" in row and "1 open" in row

    client.force_login(people.admin)  # administrators see every jurisdiction, each under its name
    html, row = _home_row(client, "test-wa-room")
    assert "0 of 1" in row and people.washington.name in html and "California" in html


def test_the_homes_open_errors_agree_with_the_inbox_whatever_ran(people, room):
    """compliance.inbox.open_errors counts for many establishments at once what compliance.inbox shows for each."""
    rooms = [people.marysville, people.wa_room]

    def agree():
        now = timezone.now()
        batched = inbox.open_errors(rooms, now)
        one_by_one = {e.pk: sum(1 for f in inbox.current_findings(e, now)
                                if f.severity == "error" and not f.acknowledged) for e in rooms}
        assert batched == one_by_one
        return batched[people.marysville.pk]

    assert agree() == 0  # posting runs only; the one error is acknowledged
    run_establishment(people.marysville)
    assert agree() == 0  # found again by the room's run, the same facts: its acknowledgement holds (issue 25)
    run_everything()
    assert agree() == 0  # the run over everything replaces the room's: still acknowledged
    eleven = Table.objects.create(establishment=people.marysville, label="R-11", seats=7,
                                  game=Game.objects.get(slug="pure-21-5-blackjack"))
    post(eleven, "CMV-CA-TABLE-ACTION")
    assert agree() == 1  # a table posted since adds its own
    run_establishment(people.marysville)
    assert agree() == 1
    for finding in Finding.objects.filter(run__kind="establishment", severity="error",
                                          acknowledged_at__isnull=True).order_by("-id")[:1]:
        acknowledge(people.compliance, finding=finding, reason="Handled on the floor.", scope=_scope(people.compliance))
    assert agree() == 0


def test_an_establishments_findings_come_a_page_at_a_time_errors_first(client, people, room, monkeypatch):
    client.force_login(people.regulator_ca)
    run_establishment(people.marysville)  # findings beside the posting checks': more than one page of one
    standing = inbox.current_findings(people.marysville)
    assert len(standing) > 1
    monkeypatch.setattr(regulator.rooms, "FINDINGS_PAGE_SIZE", 1)
    first = text(client.get(page_of("casino-marysville")))
    assert standing[0].message[:40] in cell(first, "findings-table")
    assert f"Findings 1\u20131 of {len(standing)}" in first and "findings=2#findings" in first
    last = text(client.get(page_of("casino-marysville"), {"findings": len(standing)}))
    assert standing[-1].message[:40] in cell(last, "findings-table")
    assert standing[0].message[:40] not in cell(last, "findings-table") or standing[0].message == standing[-1].message


def test_an_establishment_shows_postings_findings_approvals_and_fees(client, people, room):
    client.force_login(people.regulator_ca)
    response = client.get(page_of("casino-marysville"))
    assert response.status_code == 200
    html = text(response)
    # Postings in force, tables in floor order (R-2 before R-7 before R-10), times in the room's zone.
    postings = cell(html, "postings-table")
    assert postings.index(">R-2<") < postings.index(">R-7<") < postings.index(">R-10<")
    assert "GEGA-002888 option 1" in postings and "2026-03-01 08:00 PST" in postings
    assert "No posting in force." in postings
    # Findings and how they were handled: the acknowledged error names who, when and why.
    findings = cell(html, "findings-table")
    assert room["error"].message[:40] in findings
    assert "Acknowledged by t-compliance" in findings and "Two rates withdrawn from the floor on 2 March." in findings
    assert "Two rates withdrawn" in cell(html, "handled-table")
    # Approvals with their conditions.
    approvals = cell(html, "approvals-table")
    assert "Face Up Pai Gow Poker" in approvals
    # Expected vs collected for the latest month with data (March 2026): an SVG chart and the table beside it.
    assert "Fees expected vs collected, March 2026" in html
    assert '<svg viewBox=' in html and 'role="img"' in html and "<script" not in cell(html, "fees").lower()
    fees = cell(html, "fees-table")
    assert "Tue 3 Mar" in fees
    assert f"${room['expected']:,.2f}" in fees and f"${room['collected']:,.2f}" in fees
    assert f"\u2212${room['expected'] - room['collected']:,.2f}" in fees
    assert "1 of 1" in fees  # the reconciliation found table R-2 with a variance
    # Nothing to edit.
    assert 'method="post"' not in html.replace('method="post" action="/logout/"', "")
    for word in ("Acknowledge</button>", "Edit", "Delete"):
        assert word not in html


def test_a_month_is_chosen_and_a_bad_month_is_a_400(client, people, room):
    client.force_login(people.regulator_ca)
    html = text(client.get(page_of("casino-marysville"), {"month": "2026-02"}))
    assert "Fees expected vs collected, February 2026" in html and "No round or collection recorded" in html
    assert "March 2026 →" in html  # the way back to the month with data
    response = client.get(page_of("casino-marysville"), {"month": "March"})
    assert response.status_code == 400 and "Give a month as YYYY-MM" in text(response)


def _extend_floor(people, count, start):
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    for i in range(start, start + count):
        table = Table.objects.create(establishment=people.marysville, label=f"Q-{i}", seats=7, game=game)
        posting = post(table, "GEGA-002888")
        played(table, posting, "H-1", "3.00", "2.00")
        played(table, posting, "H-2", "3.00", None, day=DAY + datetime.timedelta(days=1))


def test_the_establishment_page_makes_a_fixed_number_of_queries(client, people, room,
                                                                django_assert_max_num_queries):
    client.force_login(people.regulator_ca)
    url = page_of("casino-marysville")
    client.get(url)  # warm the session and content types
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    _extend_floor(people, 6, 1)
    # The first look after new postings and runs works the standing findings out again and judges the floor again,
    # keeping it (compliance.kept): a fixed few more.
    with django_assert_max_num_queries(len(few) + 45):
        assert client.get(url).status_code == 200
    with django_assert_max_num_queries(len(few)):
        assert client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as home_few:
        client.get(HOME)
    _extend_floor(people, 3, 10)
    with django_assert_max_num_queries(len(home_few)):
        client.get(HOME)


# -- audit exports ------------------------------------------------------------------------------------------------


def test_a_regulator_requests_an_export_watches_it_and_downloads_it(client, people, room,
                                                                    django_capture_on_commit_callbacks):
    client.force_login(people.regulator_ca)
    form = text(client.get(EXPORT, {"establishment": "casino-marysville"}))
    assert '<option value="establishment:casino-marysville" selected>' in form
    assert 'type="date"' in form and "All of California" in form
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(EXPORT, {"what": "establishment:casino-marysville", "start": "2026-03-01",
                                      "end": "2026-03-31"})
    job = Job.objects.get()
    assert answer.status_code == 302 and answer["Location"] == reverse("console:job", args=[job.uuid])
    assert (job.kind, job.establishment, job.requested_by) == ("audit_export", people.marysville,
                                                                people.regulator_ca)
    assert job.params["from"] == "2026-03-01" and job.params["to"] == "2026-03-31"
    progress = text(client.get(answer["Location"]))
    assert 'id="job-download"' in progress and "100%" in progress
    download = client.get(reverse("console:job-file", args=[job.uuid]))
    assert download.status_code == 200
    # The whole name, uncut (jobs/audit_export/<uuid>/ takes 55 of the file field's characters).
    assert download["Content-Disposition"].endswith(
        'filename="audit-casino-marysville-2026-03-01-to-2026-03-31.zip"')
    data = b"".join(download.streaming_content)
    checked = bundle.verify(io.BytesIO(data), keys.public_key())
    assert checked.ok, checked.problems
    assert checked.manifest["scope"]["establishments"] == ["casino-marysville"]
    # The export page lists it among the recent ones.
    assert str(job.uuid) in text(client.get(EXPORT))

    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(EXPORT, {"what": "jurisdiction:CA", "start": "2026-03-01", "end": "2026-03-31"})
    whole = Job.objects.exclude(pk=job.pk).get()
    assert answer.status_code == 302 and whole.establishment is None and whole.jurisdiction.code == "CA"
    assert whole.status == Job.Status.DONE


@pytest.mark.parametrize("fields, message", [
    ({"what": "establishment:casino-marysville", "start": "2026-03-31", "end": "2026-03-01"}, "is after to"),
    ({"what": "establishment:casino-marysville", "start": "March", "end": "2026-03-31"},
     "Must be a date written YYYY-MM-DD"),
    ({"what": "establishment:casino-marysville", "start": "today-5", "end": "today+10"}, "in the future"),
    ({"what": "establishment:casino-marysville", "start": "2016-01-01", "end": "2026-03-01"}, "at most"),
    ({"what": "establishment:nowhere", "start": "2026-03-01", "end": "2026-03-31"}, "Select a valid choice"),
    ({"start": "2026-03-01", "end": "2026-03-31"}, "This field is required"),
])
def test_a_bad_export_request_is_a_400_with_the_forms_errors(client, people, room, fields, message):
    today = timezone.localdate()
    for key, value in fields.items():  # days relative to today
        if value.startswith("today"):
            fields[key] = (today + datetime.timedelta(days=int(value[5:]))).isoformat()
    client.force_login(people.regulator_ca)
    answer = client.post(EXPORT, fields)
    assert answer.status_code == 400
    assert message in text(answer)
    assert 'id="export-form"' in text(answer)
    assert not Job.objects.exists()


# -- verifying a bundle -------------------------------------------------------------------------------------------


def _bundle(key=None, files=None):
    out = io.BytesIO()
    with bundle.BundleWriter(out) as writer:
        for name, data in (files or {"ledger_entries.csv": b"id,amount\n1,1.00\n2,2.00\n",
                                     "postings.json": b'[{"id": 1}]', "report.pdf": b"%PDF-1.4 test"}).items():
            writer.add_bytes(name, data)
        writer.finish({"period": {"from": "2026-03-01", "to": "2026-03-31"},
                       "scope": {"establishments": ["casino-marysville"], "jurisdiction": None}},
                      key or keys.installation_key())
    return out.getvalue()


def _tampered(data):
    """One file changed, one removed, one added."""
    with zipfile.ZipFile(io.BytesIO(data)) as source:
        contents = {name: source.read(name) for name in source.namelist()}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name, value in contents.items():
            if name == "postings.json":
                continue
            target.writestr(name, value.replace(b"2.00", b"0.20") if name == "ledger_entries.csv" else value)
        target.writestr("extra-rows.csv", b"id,amount\n3,5.00\n")
    return out.getvalue()


def upload(client, data, name="bundle.zip", **fields):
    """Post a bundle to the page, then open the check's page it leads to (the job runs in-process once committed,
    as the page's own transaction ends)."""
    handle = io.BytesIO(data)
    handle.name = name
    with TestCase.captureOnCommitCallbacks(execute=True):
        answer = client.post(VERIFY, {"bundle": handle, **fields})
    return client.get(answer["Location"]) if answer.status_code == 302 else answer


def test_the_verify_page_is_for_regulators_compliance_officers_and_administrators(client, people):
    for user in (people.floor, people.outsider):
        client.force_login(user)
        assert client.get(VERIFY).status_code == 403
        answer = upload(client, _bundle())
        assert answer.status_code == 403
    assert not Job.objects.exists()
    for user in (people.compliance, people.regulator_ca, people.admin):
        client.force_login(user)
        assert client.get(VERIFY).status_code == 200
        assert "Verified: every file is as signed" in text(upload(client, _bundle()))
    # The link: in a compliance officer's pages and a regulator's home; not in a floor supervisor's.
    client.force_login(people.compliance)
    assert f'href="{VERIFY}"' in text(client.get(reverse("console:compliance", args=["casino-marysville"])))
    client.force_login(people.regulator_ca)
    assert f'href="{VERIFY}"' in text(client.get(HOME))
    client.force_login(people.floor)
    assert f'href="{VERIFY}"' not in text(client.get(reverse("console:floor-home"), follow=True))


def test_the_page_checks_in_the_background_and_shows_the_check_to_who_asked_alone(client, people, settings,
                                                                                   tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    client.force_login(people.regulator_ca)
    answer = upload(client, _bundle(), name="audit-march.zip")
    job = Job.objects.get(kind="bundle_verify")
    assert answer.request["QUERY_STRING"] == f"job={job.uuid}" and "Verification of audit-march.zip" in text(answer)
    assert job.status == Job.Status.DONE and job.result["ok"] is True and job.requested_by == people.regulator_ca
    assert not job.file and not any(p.is_file() for p in (tmp_path / "media").rglob("*"))  # the upload is removed
    # htmx asks again while it runs; done, it gets the result in the same place.
    partial = text(client.get(f"{VERIFY}?job={job.uuid}", HTTP_HX_REQUEST="true"))
    assert partial.lstrip().startswith('<div id="verify-job"') and "hx-get" not in partial
    assert "Verified: every file is as signed" in partial
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, done=1, total=4, stage="checking files")
    running = text(client.get(f"{VERIFY}?job={job.uuid}", HTTP_HX_REQUEST="true"))
    assert "hx-get" in running and "25%" in running and "Verified" not in running
    # Not even a compliance officer of the room the bundle is of sees it; an administrator does.
    client.force_login(people.compliance)
    assert client.get(f"{VERIFY}?job={job.uuid}").status_code == 404
    assert client.get(f"{VERIFY}?job=not-a-uuid").status_code == 404
    client.force_login(people.admin)
    assert client.get(f"{VERIFY}?job={job.uuid}").status_code == 200
    # The generic job page sends to the check's result: the upload is gone, so there is nothing to download.
    client.force_login(people.regulator_ca)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.DONE)
    page = text(client.get(f"/jobs/{job.uuid}/"))
    assert "job-download" not in page and f"{VERIFY}?job={job.uuid}" in page


def test_an_intact_bundle_verifies(client, people):
    client.force_login(people.regulator_ca)
    form = text(client.get(VERIFY))
    assert 'enctype="multipart/form-data"' in form and 'type="file"' in form
    html = text(upload(client, _bundle(), name="audit-march.zip"))
    assert "Verification of audit-march.zip" in html
    assert "Verified: every file is as signed" in html
    assert "Valid" in cell(html, "signature-status")
    assert "Version 2: each kind once" in cell(html, "bundle-format")
    for section in ("altered-files", "missing-files", "added-files"):
        assert "none" in cell(html, section)
    assert keys.key_fingerprint() in html and "This installation's public key" in html


def test_a_tampered_bundle_names_every_altered_missing_and_added_file(client, people):
    client.force_login(people.regulator_ca)
    answer = upload(client, _tampered(_bundle()))
    assert answer.status_code == 200
    html = text(answer)
    assert "Not verified: 3 problems" in html
    assert "ledger_entries.csv" in cell(html, "altered-files")
    assert "postings.json" in cell(html, "missing-files")
    assert "extra-rows.csv" in cell(html, "added-files")
    assert "report.pdf" not in cell(html, "altered-files") + cell(html, "missing-files") + cell(html, "added-files")
    assert "Valid" in cell(html, "signature-status")  # the manifest itself is untouched
    problems = cell(html, "problems")
    for name in ("ledger_entries.csv", "postings.json", "extra-rows.csv"):
        assert name in problems


def test_a_bundle_signed_by_another_key(client, people):
    other = bundle.generate_private_key()
    data = _bundle(other)
    client.force_login(people.regulator_ca)
    html = text(upload(client, data))
    assert "Not verified" in html and "Invalid" in cell(html, "signature-status")
    html = text(upload(client, data, public_key=bundle.public_key_pem(other)))
    assert "Verified: every file is as signed" in html and bundle.fingerprint(other) in html
    assert "The public key given" in html
    # An unsigned bundle: the signature is missing.
    with zipfile.ZipFile(io.BytesIO(data)) as source:
        contents = {name: source.read(name) for name in source.namelist() if name != bundle.SIGNATURE}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name, value in contents.items():
            target.writestr(name, value)
    assert "Missing" in cell(text(upload(client, out.getvalue())), "signature-status")


def test_bad_verify_input_is_a_400_with_the_forms_errors(client, people):
    client.force_login(people.regulator_ca)
    answer = client.post(VERIFY, {})
    assert answer.status_code == 400 and "Choose the bundle" in text(answer)
    answer = upload(client, _bundle(), public_key="not a key")
    assert answer.status_code == 400 and "Not an Ed25519 public key" in text(answer)
    answer = upload(client, b"hello, not a zip")
    assert answer.status_code == 200 and "not a zip file" in text(answer) and "Not verified" in text(answer)


def test_an_upload_over_the_limit_is_refused_before_it_is_read(client, people, monkeypatch):
    monkeypatch.setattr(regulator.verify, "max_body_bytes", 4096)
    client.force_login(people.regulator_ca)
    answer = upload(client, b"PK" + b"\0" * 8192)
    assert answer.status_code == 413 and "4,096" in text(answer)
    # A browser gets the message on a page of the site, with the way back to the form.
    handle = io.BytesIO(b"PK" + b"\0" * 8192)
    handle.name = "bundle.zip"
    answer = client.post(VERIFY, {"bundle": handle}, HTTP_ACCEPT="text/html,application/xhtml+xml")
    html = text(answer)
    assert answer.status_code == 413 and answer["Content-Type"].startswith("text/html")
    assert "<h1>Request Entity Too Large</h1>" in html and "accepts at most 4,096" in html
    assert f'href="{VERIFY}"' in html


# -- the audit log ------------------------------------------------------------------------------------------------


def test_the_audit_log_newest_first_with_its_chain_status(client, people, room):
    for i in range(regulator.AUDIT_PAGE_SIZE + 5):
        log_action("test.note", actor_label="test", establishment=people.marysville, data={"n": i})
    client.force_login(people.regulator_ca)
    html = text(client.get(log_of("casino-marysville")))
    assert "Intact" in cell(html, "chain-status")
    entries = AuditLogEntry.objects.filter(establishment=people.marysville).order_by("-sequence")
    table = cell(html, "audit-table")
    positions = [int(p) for p in re.findall(r'data-label="Position" class="num">(\d+)<', table)]
    assert positions == [e.sequence for e in entries[:regulator.AUDIT_PAGE_SIZE]]
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d P[SD]T", table)  # the room's local time and zone
    older = text(client.get(log_of("casino-marysville"), {"page": 2}))
    assert f'class="num">{entries.last().sequence}<' in older
    # Read-only: the only forms that post are the logout and the check of a kept checkpoint (which changes nothing).
    assert 'method="post"' not in html.replace('method="post" action="/logout/"', "").replace(
        f'method="post" action="{log_of("casino-marysville")}"', "")

    # Somebody changes an entry behind the application's back: the chain is broken, and the page says where.
    target = entries[3]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(f"UPDATE {AuditLogEntry._meta.db_table} SET action = %s WHERE id = %s",
                       ["test.forged", target.pk])
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = DEFAULT")
    # A look re-hashes only the entries written since the last one; the hourly whole walk finds the change.
    with pytest.raises(RuntimeError):
        verify_audit_chains()
    status = cell(text(client.get(log_of("casino-marysville"))), "chain-status")
    assert "Broken" in status and f"position {target.sequence}" in status


def test_a_log_with_no_entries_offers_no_checkpoint_to_download(client, people, room):
    # Aspers Stratford London (seeded, no tables) had a "Download a checkpoint" button answering 404: an empty chain
    # has no head to sign. The page says why there is none; a log with entries offers one, and it downloads.
    assert not AuditLogEntry.objects.filter(establishment__slug="aspers-stratford-london").exists()
    client.force_login(people.admin)
    empty = text(client.get(log_of("aspers-stratford-london")))
    assert "/api/v1/audit/checkpoint" not in empty
    assert "The audit log of Aspers Stratford London has no entries yet" in cell(empty, "no-checkpoint")

    log_action("test.note", actor_label="test", establishment=people.marysville, data={})
    html = text(client.get(log_of("casino-marysville")))
    link = re.search(r'href="(/api/v1/audit/checkpoint\?chain=casino-marysville)"', html).group(1)
    assert client.get(link).status_code == 200


def test_the_audit_log_page_says_whether_the_chain_still_agrees_with_its_signed_checkpoints(client, people, room):
    from cardroom import transparency
    from cardroom.audit import chain_name

    client.force_login(people.regulator_ca)
    assert "No checkpoint of this chain has been signed yet" in cell(text(client.get(log_of("casino-marysville"))),
                                                                      "checkpoints")
    chain = chain_name(people.marysville)
    signed = transparency.sign(chain)
    html = text(client.get(log_of("casino-marysville")))
    assert "Agrees" in cell(html, "checkpoints") and f"the {signed.size} entries" in cell(html, "checkpoints")
    proof = client.get(f"/api/v1/audit/proof?chain=casino-marysville&sequence={signed.size}")
    assert proof.status_code == 200 and proof.content.decode().endswith(signed.note)
    assert f"sequence={signed.size}" in cell(html, "audit-table")

    # The last entry rewritten with a recomputed hash and head: the chain walks clean; the checkpoint tells.
    from tests.cardroom.test_audit_chain import fields_of, raw_sql

    last = AuditLogEntry.objects.get(chain=chain, sequence=signed.size)
    rehashed = chain_module.entry_hash(fields_of(last, action="test.rewritten"))
    with raw_sql() as cursor:
        cursor.execute(f"UPDATE {AuditLogEntry._meta.db_table} SET action = %s, entry_hash = %s WHERE id = %s",
                       ["test.rewritten", rehashed, last.pk])
        cursor.execute(f"UPDATE {AuditChainHead._meta.db_table} SET entry_hash = %s WHERE chain = %s",
                       [rehashed, chain])
    html = text(client.get(log_of("casino-marysville")))
    assert "Intact" in cell(html, "chain-status")
    assert "Rewritten" in cell(html, "checkpoints") and "rewritten after it" in cell(html, "checkpoints")


# -- a checkpoint the regulator kept, checked on the page (issue 23) ------------------------------------------------


def _kept(chain):
    """A checkpoint as a regulator downloads and keeps it."""
    from cardroom import transparency

    return transparency.sign(chain).note


def _check_kept(client, slug, note=None, upload=None):
    data = {"note": note} if note is not None else {"upload": upload}
    return client.post(log_of(slug), data)


def _steps(establishment, count):
    for i in range(count):
        log_action("test.step", actor_label="test", establishment=establishment, data={"n": i})


def test_a_kept_checkpoint_reads_consistent_after_the_stored_ones_were_deleted(client, people, room, monkeypatch):
    from cardroom.audit import chain_name
    from tests.cardroom.test_transparency import forget_checkpoints

    _steps(people.marysville, 4)
    chain = chain_name(people.marysville)
    kept = _kept(chain)
    kept_size = int(kept.split("\n")[1])
    _steps(people.marysville, 3)
    forget_checkpoints()  # as the database owner would, with the trigger off
    client.force_login(people.regulator_ca)
    # None stored while the chain has entries the hourly task should have signed: a warning, not a bare "Intact".
    monkeypatch.setattr(regulator.audit, "CHECKPOINTS_DUE", datetime.timedelta(0))
    status = cell(text(client.get(log_of("casino-marysville"))), "chain-status")
    assert "Not confirmed" in status and "No signed checkpoint of this chain is stored" in status
    assert "Intact" not in status
    # Pasted from a browser: CRLF line ends, no final newline.
    response = _check_kept(client, "casino-marysville", note=kept.replace("\n", "\r\n").strip())
    assert response.status_code == 200
    result = cell(text(response), "kept-result")
    assert "Consistent" in result and "NOT" not in result
    assert f"the {kept_size} entries your checkpoint covers" in result and "grew by 3 entries" in result
    # Uploaded as a file, the same answer.
    upload = io.BytesIO(kept.encode())
    upload.name = "kept.txt"
    assert "grew by 3 entries" in cell(text(_check_kept(client, "casino-marysville", upload=upload)), "kept-result")
    # The check signed a checkpoint of the head (as the API does for a consistency proof): no warning any more.
    assert "Intact" in cell(text(client.get(log_of("casino-marysville"))), "chain-status")


def test_a_kept_checkpoint_reads_not_consistent_after_the_tail_was_rewritten(client, people, room):
    from types import SimpleNamespace

    from cardroom.audit import chain_name
    from tests.cardroom.test_transparency import forget_checkpoints, rewrite_tail

    _steps(people.marysville, 6)
    chain = chain_name(people.marysville)
    kept = _kept(chain)
    size = int(kept.split("\n")[1])
    rewrite_tail(SimpleNamespace(chain=chain), size - 2)
    forget_checkpoints()
    client.force_login(people.regulator_ca)
    html = text(client.get(log_of("casino-marysville")))
    assert "Intact" in cell(html, "chain-status")  # the hashes were all recomputed: the chain walks clean
    response = _check_kept(client, "casino-marysville", note=kept)
    assert response.status_code == 200
    result = cell(text(response), "kept-result")
    assert "NOT consistent" in result
    assert f"first {size} entries no longer give your checkpoint&#x27;s root" in result


def test_a_kept_checkpoint_checks_out_against_a_stale_latest_checkpoint_warning(client, people, room, monkeypatch):
    from cardroom.audit import chain_name

    _steps(people.marysville, 2)
    kept = _kept(chain_name(people.marysville))
    size = int(kept.split("\n")[1])
    _steps(people.marysville, 2)
    client.force_login(people.regulator_ca)
    assert "Not confirmed" not in cell(text(client.get(log_of("casino-marysville"))), "chain-status")  # just now
    monkeypatch.setattr(regulator.audit, "CHECKPOINTS_DUE", datetime.timedelta(0))
    status = cell(text(client.get(log_of("casino-marysville"))), "chain-status")
    assert "Not confirmed" in status and f"position {size + 1}" in status and f"covers {size} entries" in status


@pytest.mark.parametrize("note, message", [
    ("hello", "not a signed checkpoint"),
    ("", "Paste a checkpoint you kept, or upload it"),
    ("x" * 9000, "at most"),
])
def test_junk_in_place_of_a_kept_checkpoint_is_a_400_with_a_message(client, people, room, note, message):
    client.force_login(people.regulator_ca)
    response = _check_kept(client, "casino-marysville", note=note)
    assert response.status_code == 400
    assert message in text(response)
    assert 'id="kept-result"' not in text(response)


def test_an_altered_or_foreign_kept_checkpoint_is_refused_with_what_is_wrong(client, people, room):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from cardroom import checkpoint, tlog
    from cardroom.audit import chain_name

    _steps(people.marysville, 3)
    chain = chain_name(people.marysville)
    kept = _kept(chain)
    origin, size, root = kept.split("\n")[:3]
    client.force_login(people.regulator_ca)
    altered = kept.replace(f"\n{size}\n", f"\n{int(size) + 1}\n", 1)
    response = _check_kept(client, "casino-marysville", note=altered)
    assert response.status_code == 400 and "it was altered" in text(response)
    import base64

    foreign = checkpoint.sign(origin, int(size), base64.b64decode(root), "cardroom", Ed25519PrivateKey.generate())
    response = _check_kept(client, "casino-marysville", note=foreign)
    assert response.status_code == 400 and "no key this installation trusts" in text(response)
    assert tlog.ORIGIN_PREFIX + chain == origin


def test_a_checkpoint_of_another_jurisdictions_chain_is_refused(client, people, room):
    from cardroom.audit import chain_name

    _steps(people.wa_room, 2)
    washington = _kept(chain_name(people.wa_room))
    client.force_login(people.regulator_ca)
    response = _check_kept(client, "casino-marysville", note=washington)
    assert response.status_code == 400
    assert "not of a log you may read" in text(response)
    assert people.wa_room.name not in text(response)
    # A regulator of both sees it is the other establishment's and where to check it.
    client.force_login(people.admin)
    response = _check_kept(client, "casino-marysville", note=washington)
    assert response.status_code == 400 and people.wa_room.name in text(response)
    assert log_of(people.wa_room.slug) in text(response)


def test_a_checkpoint_of_the_log_under_another_name_is_refused_naming_it(client, people, room, settings):
    """Issue 41: a checkpoint signed with the installation's own key but of another origin (a log its owner minted
    under a new name, <base>/fork2/<chain>) is no checkpoint of this log: refused, naming both names."""
    import base64

    from cardroom import checkpoint, keys
    from cardroom.audit import chain_name

    _steps(people.marysville, 3)
    chain = chain_name(people.marysville)
    origin, size, root = _kept(chain).split("\n")[:3]
    forked = checkpoint.sign(f"{settings.AUDIT_LOG_ORIGIN}/fork2/{chain}", int(size), base64.b64decode(root),
                             "cardroom", keys.installation_key())
    client.force_login(people.regulator_ca)
    response = _check_kept(client, "casino-marysville", note=forked)
    said = text(response)
    assert response.status_code == 400 and "This checkpoint cannot be checked: the checkpoint is signed by " in said
    assert f"it is of the log {settings.AUDIT_LOG_ORIGIN}/fork2/{chain}, not of {settings.AUDIT_LOG_ORIGIN} " in said
    assert "not a signed checkpoint" not in said
    assert _check_kept(client, "casino-marysville", note=_kept(chain)).status_code == 200


@pytest.mark.long
def test_the_audit_log_says_in_words_what_happened_at_room_time_and_a_done_export_is_not_running(client, people):
    import io

    from django.core.management import call_command

    # The demo's first day: seed import, roles, publications, readings, postings, overrides, conditions, a night's
    # reconciliations. Every action reads as a sentence; no action code or model label reaches the page.
    call_command("load_demo", force=True, days=1, stdout=io.StringIO(), stderr=io.StringIO())
    mine = AuditLogEntry.objects.filter(establishment=people.marysville)
    actions = set(mine.values_list("action", flat=True))
    assert {"schedule.publish", "posting.create", "ledger.reconcile", "signage.print_override"} <= actions
    client.force_login(people.regulator_ca)
    every = text(client.get(log_of("casino-marysville"), {"page": 1}))
    pages = [every] + [text(client.get(log_of("casino-marysville"), {"page": n}))
                       for n in range(2, mine.count() // regulator.AUDIT_PAGE_SIZE + 2)]
    shown = "".join(cell(html, "audit-table") for html in pages)
    for action in actions:
        assert f">{action}<" not in shown and f"<code>{action}" not in shown, action
    assert "fees.TablePosting" not in shown and "fees.Reconciliation" not in shown
    assert not re.search(r"Recorded [a-z_]+\.[a-z_.]+\.", shown)  # the fallback, for actions with no words
    assert re.search(r"Posted \S+ option \d+ at a table, wagers \$", shown)
    assert "Reconciled the gaming day " in shown and "Published CMV-CA-FEES-" in shown
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d P[SD]T", shown)

    # An export logs itself while its job is running; the page shows the job as it stands now.
    job = Job.objects.create(kind="audit_export", status=Job.Status.RUNNING, establishment=people.marysville)
    log_action("audit.export", actor_label="t-regulator-ca", obj=job, establishment=people.marysville,
               data={"job": str(job.uuid), "period": {"from": "2026-03-01", "to": "2026-03-31"}})
    job.status = Job.Status.DONE
    job.save(update_fields=["status"])
    first = cell(text(client.get(log_of("casino-marysville"))), "audit-table")
    row = first.split("</tr>")[1]  # the newest entry, after the heading row
    assert "Made a signed audit export of 2026-03-01 to 2026-03-31." in row
    assert "Audit export bundle, done" in row and "(running)" not in row
