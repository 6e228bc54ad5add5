"""Who gets what: the main endpoints against every role, as one table (issue 10).

Columns: an administrator; a compliance officer and a floor supervisor of Casino Marysville (California); a
California regulator; a compliance officer of another establishment (a Washington card room); anonymous.

The rules the table follows:
- no credentials: 401 with ``WWW-Authenticate: Basic realm="cardroom"`` on the API; the admin redirects to
  its login page (302), and answers that way to everyone but administrators;
- something named in the address that you may not see (another establishment's table, finding, job, a
  draft when you see only published versions): 404, as if it did not exist;
- something named in the body that you may not see (a table, an establishment to export or print): 400, the
  same answer as for one that does not exist;
- something you may see but your role may not do (a regulator printing, a floor supervisor publishing): 403.

Each cell runs on the same data (a posted table with a sign to print, a finding, a draft, a ledger entry, an audit
export bundle), made once for the module, in a savepoint of its own rolled back after it, so a write in one cell
never changes another's answer.
"""

import datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import resolve
from django.utils import timezone

from cardroom import jobs, permissions
from cardroom.models import Game, Job, Table
from compliance.checking import run_establishment
from compliance.models import Finding
from exports import tasks as export_tasks
from fees import ledger
from fees.models import CollectionEntry, ScheduleDocument, ScheduleVersion
from fees.schedules import services
from signage.postings import post_table
from tests.factories import change_a_fee

pytestmark = pytest.mark.django_db

ROLES = ("admin", "compliance", "floor", "regulator", "other", "anonymous")
SCHEDULE = "/api/v1/schedules/GEGA-002888"
ENTRY = {"idempotency_key": "matrix-1", "table": "{table}", "collected_at": "2026-11-20T22:00:00-08:00",
         "reference": "H-9", "payer": "player", "seat": 1, "fee_kind": "player", "amount": "3.00"}
READINGS = "/api/v1/schedules/CMV-CA-FEES-PAI-GOW/interpretations"
PROPOSAL = {"version": 1, "option": 1, "tier": 1, "field": "measure", "value": "player_wager",
            "statement": "Matrix: the Wagering Limit column is the player's total base wager.",
            "decided_on": "2026-11-01", "citation": "Matrix: a Bureau answer"}
# Casino Marysville's Three Card Poker approval: its owner-agreement condition, a prerequisite there.
CONDITION_MET = {"approval": "three-card-poker-casino-marysville", "condition": 1, "establishment": "casino-marysville",
                 "met_on": "2026-11-01", "evidence": "Owner agreement, matrix"}

# (method, address, body, {role: status}); "{name}" in the address or body is the fresh data's ``name``.
MATRIX = [
    # Schedules: everyone in California reads them; compliance officers alone see drafts and change them.
    ("get", f"{SCHEDULE}/", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=404, anonymous=401)),
    ("get", f"{SCHEDULE}/versions/{{draft}}/", None,
     dict(admin=200, compliance=200, floor=404, regulator=404, other=404, anonymous=401)),
    ("get", f"{SCHEDULE}/diff?from={{published}}&to={{published}}", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=404, anonymous=401)),
    ("get", f"{SCHEDULE}/diff?from={{published}}&to={{draft}}", None,
     dict(admin=200, compliance=200, floor=404, regulator=404, other=404, anonymous=401)),
    # What a version would have collected over recorded rounds: drafts, as above, only for their editors.
    ("get", f"{SCHEDULE}/versions/{{published}}/impact?establishment=casino-marysville&from=2026-10-01&to=2026-10-31",
     None, dict(admin=200, compliance=200, floor=200, regulator=200, other=404, anonymous=401)),
    ("get", f"{SCHEDULE}/versions/{{draft}}/impact?establishment=casino-marysville", None,
     dict(admin=200, compliance=200, floor=404, regulator=404, other=404, anonymous=401)),
    ("post", f"{SCHEDULE}/versions/{{published}}/drafts/", {"reason": "Matrix", "effective_from": "2027-06-01"},
     dict(admin=201, compliance=201, floor=403, regulator=403, other=404, anonymous=401)),
    ("patch", f"{SCHEDULE}/versions/{{draft}}/", {"reason": "Matrix edit"},
     dict(admin=200, compliance=200, floor=403, regulator=403, other=404, anonymous=401)),
    ("post", f"{SCHEDULE}/versions/{{draft}}/publication-request/", {"reason": "Matrix"},
     dict(admin=200, compliance=200, floor=403, regulator=403, other=404, anonymous=401)),
    # A second person approves: for this jurisdiction-wide schedule, an administrator only.
    ("post", f"{SCHEDULE}/versions/{{in_review}}/approve/", {"reason": "Matrix"},
     dict(admin=200, compliance=403, floor=403, regulator=403, other=404, anonymous=401)),
    ("post", f"{SCHEDULE}/versions/{{in_review}}/refuse/", {"reason": "Matrix"},
     dict(admin=200, compliance=403, floor=403, regulator=403, other=404, anonymous=401)),
    # Only whoever asked (t-compliance-2) withdraws, or an administrator for them (cardroom.review).
    ("post", f"{SCHEDULE}/versions/{{in_review}}/withdraw/", {"reason": "Matrix"},
     dict(admin=200, compliance=403, floor=403, regulator=403, other=404, anonymous=401)),
    ("delete", f"{SCHEDULE}/versions/{{draft}}/", None,
     dict(admin=204, compliance=204, floor=403, regulator=403, other=404, anonymous=401)),
    # Interpretations of a room's own schedule: everyone who sees it reads the approved ones; its compliance officers
    # propose; a second one (here: not t-compliance-2, who proposed) approves or refuses; only who proposed it (or an
    # administrator) withdraws it.
    ("get", f"{READINGS}/", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=404, anonymous=401)),
    ("get", f"{READINGS}/{{reading_approved}}/", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=404, anonymous=401)),
    ("post", f"{READINGS}/", PROPOSAL,
     dict(admin=201, compliance=201, floor=403, regulator=403, other=404, anonymous=401)),
    ("post", f"{READINGS}/{{reading_proposed}}/approve/", {"reason": "Matrix: the Bureau's answer read."},
     dict(admin=200, compliance=200, floor=403, regulator=403, other=404, anonymous=401)),
    ("post", f"{READINGS}/{{reading_proposed}}/refuse/", {"reason": "Matrix: refused."},
     dict(admin=200, compliance=200, floor=403, regulator=403, other=404, anonymous=401)),
    ("post", f"{READINGS}/{{reading_proposed}}/withdraw/", {"reason": "Matrix: withdrawn."},
     dict(admin=200, compliance=403, floor=403, regulator=403, other=404, anonymous=401)),
    # The ledger: the establishment's staff record; regulators read.
    ("get", "/api/v1/ledger/entries/?gaming_day=2026-11-20", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=200, anonymous=401)),
    ("get", "/api/v1/ledger/entries/{entry}/", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=404, anonymous=401)),
    ("post", "/api/v1/ledger/entries/", ENTRY,
     dict(admin=201, compliance=201, floor=201, regulator=403, other=400, anonymous=401)),
    ("post", "/api/v1/ledger/entries/bulk/", {"idempotency_key": "matrix", "entries": [ENTRY]},
     dict(admin=201, compliance=201, floor=201, regulator=403, other=400, anonymous=401)),
    ("get", "/api/v1/ledger/reconciliations/{reconciliation}/receipt", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=404, anonymous=401)),
    # Quotes (with a receipt): anyone who sees the schedule; another jurisdiction's is unknown to them.
    ("post", "/api/v1/fees/quote", {"schedule": "GEGA-002888", "option": 43, "receipt": True,
                                    "wagers": [{"player": "p1", "base": "20"}]},
     dict(admin=200, compliance=200, floor=200, regulator=200, other=400, anonymous=401)),
    # Postings and signs: the staff post and print; anyone who sees the table gets a preview.
    ("get", "/api/v1/postings/{posting}/", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=404, anonymous=401)),
    ("post", "/api/v1/postings/", {"table": "{table}", "schedule": "GEGA-002888", "option": 1, "min_wager": "5",
                                   "max_wager": "500", "effective_from": "{in_an_hour}"},
     dict(admin=201, compliance=201, floor=201, regulator=403, other=400, anonymous=401)),
    ("get", "/api/v1/tables/{posted_table}/signage.pdf", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=404, anonymous=401)),
    ("post", "/api/v1/tables/{posted_table}/signage.pdf", None,
     dict(admin=200, compliance=200, floor=200, regulator=403, other=404, anonymous=401)),
    ("post", "/api/v1/postings/{posting}/signage.pdf/", None,
     dict(admin=200, compliance=200, floor=200, regulator=403, other=404, anonymous=401)),
    ("post", "/api/v1/signage/batches", {"establishment": "casino-marysville", "tables": ["{table}"]},
     dict(admin=202, compliance=202, floor=202, regulator=403, other=400, anonymous=401)),
    # Print overrides: a compliance officer of the room asks; a second one (here: not t-compliance-2, who asked)
    # approves or refuses.
    ("post", "/api/v1/postings/{broken_posting}/override/", {"reason": "Matrix: print while the Bureau looks."},
     dict(admin=201, compliance=201, floor=403, regulator=403, other=404, anonymous=401)),
    ("post", "/api/v1/postings/{override_asked}/override/approve/", {"reason": "Matrix: approved."},
     dict(admin=200, compliance=200, floor=403, regulator=403, other=404, anonymous=401)),
    ("post", "/api/v1/postings/{override_asked}/override/refuse/", {"reason": "Matrix: refused."},
     dict(admin=200, compliance=200, floor=403, regulator=403, other=404, anonymous=401)),
    # Audit exports: compliance officers and regulators; never a floor supervisor.
    ("post", "/api/v1/exports", {"establishment": "casino-marysville", "as_of": "2026-11-20"},
     dict(admin=202, compliance=202, floor=403, regulator=202, other=400, anonymous=401)),
    ("get", "/api/v1/jobs/?kind=audit_export", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=200, anonymous=401)),
    ("get", "/api/v1/jobs/{export}/", None,
     dict(admin=200, compliance=200, floor=404, regulator=200, other=404, anonymous=401)),
    ("get", "/api/v1/jobs/{export}/download/", None,
     dict(admin=200, compliance=200, floor=404, regulator=200, other=404, anonymous=401)),
    # Checking a bundle (a job, 202): regulators, compliance officers (here of another room) and administrators.
    ("post", "/api/v1/exports/verify", "bundle",
     dict(admin=202, compliance=202, floor=403, regulator=202, other=202, anonymous=401)),
    # Findings: the establishment's compliance officers acknowledge them.
    ("post", "/api/v1/compliance/findings/{finding}/acknowledge/", {"reason": "Handled at the table."},
     dict(admin=200, compliance=200, floor=403, regulator=403, other=404, anonymous=401)),
    # Approval conditions met per establishment: its compliance officers record them; everyone who sees it reads.
    ("post", "/api/v1/approval-conditions/fulfilments/", CONDITION_MET,
     dict(admin=201, compliance=201, floor=403, regulator=403, other=400, anonymous=401)),
    ("get", "/api/v1/approval-conditions/fulfilments/{condition_met}/", None,
     dict(admin=200, compliance=200, floor=200, regulator=200, other=404, anonymous=401)),
    ("post", "/api/v1/approval-conditions/fulfilments/{condition_met}/withdraw/", {"reason": "Matrix withdrawal."},
     dict(admin=201, compliance=201, floor=403, regulator=403, other=404, anonymous=401)),
    # The admin (and the audit log in it): administrators only.
    ("get", "/admin/", None,
     dict(admin=200, compliance=302, floor=302, regulator=302, other=302, anonymous=302)),
    ("get", "/admin/cardroom/auditlogentry/", None,
     dict(admin=200, compliance=302, floor=302, regulator=302, other=302, anonymous=302)),
]

CELLS = [
    pytest.param(role, method, address, body, expected[role], id=f"{role}-{method}-{address}")
    for method, address, body, expected in MATRIX for role in ROLES
]


class World:
    """The data a cell needs, made when first asked for."""

    def __init__(self, people, capture):
        self.people, self.capture, self.made = people, capture, {}

    def __getitem__(self, name):
        if name not in self.made:
            self.made[name] = getattr(self, f"make_{name}")()
        return self.made[name]

    def make_table(self):
        table = Table.objects.create(establishment=self.people.marysville, label="MX-1", seats=6,
                                     game=Game.objects.get(slug="face-up-pai-gow-poker"))
        return table.pk

    def make_posting(self):
        posting, _ = post_table(None, fields={
            "table": Table.objects.get(pk=self["table"]), "game": Game.objects.get(slug="face-up-pai-gow-poker"),
            "schedule": ScheduleDocument.objects.get(code="GEGA-002888"), "option_number": 1, "min_wager": 5,
            "max_wager": 500, "seats": 6, "effective_from": timezone.now() - datetime.timedelta(hours=1),
        }, actor_label="test")
        return posting.pk

    def make_broken_posting(self):
        """A posting with an error finding (a maximum above California's $10,000), so it needs an override."""
        table = Table.objects.create(establishment=self.people.marysville, label="MX-2", seats=6,
                                     game=Game.objects.get(slug="face-up-pai-gow-poker"))
        posting, run = post_table(None, fields={
            "table": table, "game": table.game, "schedule": ScheduleDocument.objects.get(code="GEGA-002888"),
            "option_number": 1, "min_wager": 5, "max_wager": 20000, "seats": 6,
            "effective_from": timezone.now() - datetime.timedelta(hours=1),
        }, actor_label="test")
        assert run.errors
        return posting.pk

    def make_override_asked(self):
        from fees.models import TablePosting
        from signage import services as signage_services

        posting = TablePosting.objects.get(pk=self["broken_posting"])
        asker = self.people.compliance_2
        signage_services.request_override(asker, posting=posting, reason="Matrix: asked by a second officer.")
        return posting.pk

    def make_posted_table(self):
        self["posting"]
        return self["table"]

    def make_in_an_hour(self):
        return (timezone.now() + datetime.timedelta(hours=1)).isoformat()

    def make_published(self):
        return ScheduleVersion.objects.filter(document__code="GEGA-002888", status="published").latest("number").number

    def make_draft(self):
        document = ScheduleDocument.objects.get(code="GEGA-002888")
        based_on = document.versions.get(number=self["published"])
        draft = document.new_draft(based_on=based_on, reason="Matrix draft", effective_from=datetime.date(2027, 6, 1),
                                   user=self.people.compliance)
        change_a_fee(draft)  # a draft that changes nothing is refused (fees.models.publication)
        return draft.number

    def make_in_review(self):
        """A draft another officer started and asked to publish (so every column may be the second person)."""
        document = ScheduleDocument.objects.get(code="GEGA-002888")
        draft = document.new_draft(based_on=document.versions.get(number=self["published"]), reason="Matrix draft",
                                   effective_from=datetime.date(2027, 6, 1), user=self.people.compliance_2)
        change_a_fee(draft)
        services.request_publication(self.people.compliance_2, version=draft, reason="Matrix request",
                                     effective_from=draft.effective_from)
        return draft.number

    def make_reading_proposed(self):
        """A reading of CMV-CA-FEES-PAI-GOW v1 proposed by t-compliance-2 (so every column may be the second person)."""
        version = ScheduleVersion.objects.get(document__code="CMV-CA-FEES-PAI-GOW", number=1)
        return services.propose_interpretation(
            self.people.compliance_2, version=version, option=1, tier=6, field="measure", value="total_table_action",
            statement="Matrix: the player-dealer column is by total table action.", decided_on="2026-11-01",
            citation="Matrix: a Bureau answer").pk

    def make_reading_approved(self):
        from fees.models import Interpretation

        services.approve_interpretation(self.people.compliance,
                                        reading=Interpretation.objects.get(pk=self["reading_proposed"]),
                                        reason="Matrix: approved.")
        return self["reading_proposed"]

    def make_entry(self):
        moment = datetime.datetime(2026, 11, 20, 21, tzinfo=datetime.timezone(datetime.timedelta(hours=-8)))
        return CollectionEntry.objects.create(
            idempotency_key="matrix-0", establishment=self.people.marysville, table_id=self["table"],
            gaming_day=datetime.date(2026, 11, 20), reference="H-1", collected_at=moment, payer="player",
            fee_kind="player", amount="1.00", currency="USD", recorded_at=moment).pk

    def make_reconciliation(self):
        (reconciliation,) = ledger.reconcile(datetime.date(2026, 11, 20), table_ids=[self["table"]])
        return reconciliation.pk

    def make_finding(self):
        self["posting"]  # a posted table gives the run something to find
        run_establishment(self.people.marysville, as_of=timezone.localdate())
        return Finding.objects.filter(establishment=self.people.marysville, acknowledged_at=None).first().pk

    def make_condition_met(self):
        from cardroom.conditions import record_condition_met
        from cardroom.models import ApprovalCondition

        condition = ApprovalCondition.objects.get(approval__key=CONDITION_MET["approval"], order=1)
        return record_condition_met(self.people.compliance, condition=condition, establishment=self.people.marysville,
                                    met_on="2026-11-01", evidence="Matrix evidence").pk

    def make_export(self):
        with self.capture(execute=True):
            job = Job.objects.create(kind="audit_export", establishment=self.people.marysville,
                                     jurisdiction=self.people.marysville.jurisdiction, requested_label="test",
                                     params={"establishments": ["casino-marysville"], "jurisdiction": None,
                                             "from": "2026-11-01", "to": "2026-11-20"})
            jobs.submit(job, export_tasks.export_audit)
        job.refresh_from_db()
        assert job.status == Job.Status.DONE, job.error
        return job.uuid


def fill(value, world):
    """``value`` with every "{name}" replaced by the world's ``name`` (a whole "{name}" keeps its type)."""
    if isinstance(value, str):
        if value.startswith("{") and value.endswith("}") and value.count("{") == 1:
            return world[value[1:-1]]
        names = [part.split("}")[0] for part in value.split("{")[1:]]
        return value.format(**{name: world[name] for name in names})
    if isinstance(value, dict):
        return {key: fill(item, world) for key, item in value.items()}
    if isinstance(value, list):
        return [fill(item, world) for item in value]
    return value


# What the cells read, made once for the module. The others would change what another cell starts from (approving
# the proposed reading, asking for the broken posting's override, recording the condition a cell records), so each
# cell that needs them makes its own.
SHARED = ("table", "posting", "broken_posting", "posted_table", "in_an_hour", "published", "draft", "in_review",
          "reading_proposed", "entry", "reconciliation", "finding", "export")


@pytest.fixture(scope="module")
def shared_world(django_db_setup, django_db_blocker, tmp_path_factory):
    """The data the cells share, made once inside a transaction rolled back after the module; each cell runs in a
    savepoint of its own (pytest-django's), rolled back after it, so a write in one cell never changes another's
    answer. Jobs run in-process and exports are signed with the test run's key, as the function fixtures
    (tests/conftest.py) arrange for each test."""
    from django.db import transaction
    from django.test import TestCase, override_settings

    from project.celery import app
    from tests.conftest import People

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        with django_db_blocker.unblock(), transaction.atomic(), override_settings(
                CELERY_TASK_ALWAYS_EAGER=True, SIGNING_KEY_FILE=tmp_path_factory.getbasetemp() / "signing-key.pem"):
            world = World(People(), TestCase.captureOnCommitCallbacks)
            for name in SHARED:
                world[name]
            yield dict(world.made)
            transaction.set_rollback(True)
    finally:
        app.conf.task_always_eager = eager


@pytest.fixture
def world(people, shared_world, django_capture_on_commit_callbacks):
    world = World(people, django_capture_on_commit_callbacks)
    world.made.update(shared_world)
    return world


@pytest.mark.parametrize("role, method, address, body, expected", CELLS)
def test_role_matrix(api, people, world, django_capture_on_commit_callbacks, role, method, address, body, expected):
    address = fill(address, world)
    if body == "bundle":
        job = Job.objects.get(uuid=world["export"])
        body = {"bundle": SimpleUploadedFile("bundle.zip", job.file.read(), content_type="application/zip")}
        options = {"format": "multipart"}
    else:
        body = fill(body, world)
        options = {"format": "json"} if body is not None else {}
    user = {"admin": people.admin, "compliance": people.compliance, "floor": people.floor,
            "regulator": people.regulator_ca, "other": people.compliance_wa, "anonymous": None}[role]
    if user is not None:
        api.force_login(user)
    with django_capture_on_commit_callbacks(execute=True):
        answer = getattr(api, method)(address, body, **options) if body is not None else getattr(api, method)(address)
    assert answer.status_code == expected, (answer.status_code, answer.content[:400])
    if address.startswith("/api/"):
        if expected == 401:
            assert answer["WWW-Authenticate"] == 'Basic realm="cardroom"'
        if expected >= 400:
            assert answer.json()["error"]["status"] == expected
    elif expected == 302:
        assert answer["Location"].startswith("/admin/login/")


# The pages and the admin's actions, from the same registry: each address's view names its permission
# (console.access.requires); a role that does not hold it gets 403, anonymous the login page (302), and a role that
# holds it the answer given here (404: the room or record is not among those it sees). Admin addresses are behind
# the admin site's gate, ``cardroom.use_admin``: 302 to the admin's login for everyone else.
PAGES = [
    ("get", "/floor/casino-marysville/", None, dict(admin=200, compliance=200, floor=200, other=404)),
    ("get", "/compliance/casino-marysville/", None, dict(admin=200, compliance=200, other=404)),
    ("get", "/compliance/casino-marysville/findings/", None, dict(admin=200, compliance=200, other=404)),
    ("get", "/compliance/casino-marysville/approvals/", None, dict(admin=200, compliance=200, other=404)),
    ("get", "/compliance/casino-marysville/postings/", None, dict(admin=200, compliance=200, other=404)),
    ("post", "/compliance/casino-marysville/findings/run/", {}, dict(admin=302, compliance=302, other=404)),
    ("get", "/regulator/", None, dict(admin=200, regulator=200)),
    ("get", "/regulator/verify/", None, dict(admin=200, compliance=200, regulator=200, other=200)),
    ("get", "/jobs/{export}/", None, dict(admin=200, compliance=200, floor=404, regulator=200, other=404)),
    ("get", "/admin/", None, dict(admin=200)),
    ("post", "/admin/fees/tableposting/", {"action": "print_letter", "_selected_action": ["{posting}"]},
     dict(admin=200)),
]
PAGE_CELLS = [
    pytest.param(role, method, address, body, expected, id=f"{role}-{method}-{address}")
    for method, address, body, expected in PAGES for role in ROLES
]


def declared_permission(address):
    """The permission the view at ``address`` names: a page's own, the admin site's gate for the admin."""
    if address.startswith("/admin/"):
        return "cardroom.use_admin"
    return resolve(address).func.permission_name


@pytest.mark.parametrize("role, method, address, body, expected", PAGE_CELLS)
def test_role_matrix_of_the_pages(client, people, world, role, method, address, body, expected):
    address, body = fill(address, world), fill(body, world)
    user = {"admin": people.admin, "compliance": people.compliance, "floor": people.floor,
            "regulator": people.regulator_ca, "other": people.compliance_wa, "anonymous": None}[role]
    name = declared_permission(address)
    if user is not None:
        client.force_login(user)
    answer = getattr(client, method)(address, body) if body is not None else getattr(client, method)(address)
    if user is None or (address.startswith("/admin/") and not permissions.allowed(user, name)):
        assert answer.status_code == 302
        assert answer["Location"].startswith("/admin/login/" if address.startswith("/admin/") else "/login/")
    elif not permissions.allowed(user, name):
        assert answer.status_code == 403, (name, answer.content[:300])
    else:
        assert answer.status_code == expected[role], (name, answer.status_code, answer.content[:300])


def test_floor_supervisors_see_no_export_in_the_list(api, people, world):
    export = str(world["export"])
    for user, sees in ((people.compliance, True), (people.regulator_ca, True), (people.floor, False),
                       (people.compliance_wa, False)):
        api.force_login(user)
        listed = [job["uuid"] for job in api.get("/api/v1/jobs/", {"kind": "audit_export"}).json()["results"]]
        assert (export in listed) is sees, user


def test_the_matrix_covers_every_role_for_every_endpoint():
    assert all(set(expected) == set(ROLES) for _, _, _, expected in MATRIX)


def test_the_page_matrix_gives_an_answer_to_every_role_that_holds_the_permission(people):
    users = {"admin": people.admin, "compliance": people.compliance, "floor": people.floor,
             "regulator": people.regulator_ca, "other": people.compliance_wa}
    for _, address, _, expected in PAGES:
        name = declared_permission(address.replace("{export}", "00000000-0000-0000-0000-000000000000"))
        assert set(expected) == {role for role, user in users.items() if permissions.allowed(user, name)}, address
