"""One vocabulary for input errors (issue 34): every domain input error is a ``cardroom.exceptions.BadInput`` naming
its field, and each door answers it in one place: the API with a 400 in its one JSON error format, the field in
``details``; a page with its form again, the message beside the field, nothing changed; a command with its
CommandError."""

import ast
import datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from cardroom.models import ApprovalCondition, AuditLogEntry, ConditionFulfilment, Job
from fees.models import CollectionEntry, Reconciliation, TablePosting
from tests.factories import make_posted_table

pytestmark = pytest.mark.django_db

APPS = ("cardroom", "fees", "compliance", "signage", "exports", "console", "demo")
# The project's other ValueErrors: none is a request's input error, so no door answers one with a 400.
NOT_INPUT_ERRORS = {
    "cardroom.bundle.reading.BadFile": "the offline verifier's (no Django): a bundle's problem, reported as one",
    "cardroom.checkpoint.CheckpointError": "the offline verifier's: a checkpoint that does not verify",
    "cardroom.merkle.ProofError": "the offline verifier's: a proof that does not verify",
    "cardroom.tlog.proofs.Unreadable": "the offline verifier's: a proof it cannot read",
    "cardroom.tlog.cosignature.CosignatureError": "no Django: a witness's request or answer that cannot be read; "
                                                  "the witness answers it with tlog-witness's plain-text 400",
    "cardroom.transparency.UnknownChain": "no such chain, size or entry: the API's 404",
    "cardroom.gamemath.paytables.NotComputable": "a paytable the game math cannot read: said on the page, not refused",
    "fees.engine.compact.NotCompactable": "an account that would not rebuild exactly: a bug, never input",
    "signage.render.sign.SignOverflow": "a sign that does not fit: the posting service says what to shorten",
}
# BadInputs of their own, each because some code tells it apart (their docstrings say which).
BAD_INPUT_KINDS = {"cardroom.values.Invalid", "fees.engine.amounts.QuoteError", "fees.months.selectors.MonthClosed",
                   "fees.quotes.receipt_format.ReceiptFormatError"}


def _subclasses(*bases):
    found = set()
    for app in APPS:
        for path in sorted((Path(settings.BASE_DIR) / app).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = ".".join(path.relative_to(settings.BASE_DIR).with_suffix("").parts)
            for node in ast.walk(ast.parse(path.read_text())):
                names = {getattr(base, "id", getattr(base, "attr", None)) for base in getattr(node, "bases", [])}
                if isinstance(node, ast.ClassDef) and names & set(bases):
                    found.add(f"{module}.{node.name}")
    return found


def test_every_input_error_is_a_bad_input():
    assert _subclasses("ValueError") == {"cardroom.exceptions.BadInput", *NOT_INPUT_ERRORS}
    assert _subclasses("BadInput") == BAD_INPUT_KINDS


# -- the API: 400, {"error": {"status", "code", "message", "details": {field: message}}}, nothing changed ------------

TODAY = timezone.localdate()
LATER = (TODAY + datetime.timedelta(days=30)).isoformat()
WA_LETTER = {"approval": "one-for-the-money-wa-2014", "condition": 2, "establishment": "test-wa-room",
             "evidence": "WSGC letter IC-2026-17"}
ENTRY = {"idempotency_key": "k-1", "gaming_day": "2026-03-03", "reference": "H-1", "payer": "player", "seat": 1,
         "collected_at": "2026-03-03T02:30:00-08:00", "fee_kind": "player", "amount": "3,00"}
WAGERS = [{"player": "p1", "base": "100"}]

# (what raised it before, who asks, method, address, body, the field named, words of the message)
API = [
    ("ledger: one entry", "floor", "post", "/api/v1/ledger/entries/", lambda t: {**ENTRY, "table": t.pk},
     "amount", "must be an amount of money"),
    ("ledger: a batch", "floor", "post", "/api/v1/ledger/entries/bulk/",
     lambda t: {"entries": [{**ENTRY, "table": t.pk}]}, "entries", "entries[0].amount: must be an amount of money"),
    ("posting", "floor", "post", "/api/v1/postings/",
     lambda t: {"table": t.pk, "schedule": "NO-SUCH-1", "option": 1, "min_wager": "5", "max_wager": "500"},
     "schedule", "Unknown schedule 'NO-SUCH-1'."),
    ("posting: a house-banked game's rules", "floor", "post", "/api/v1/postings/",
     lambda t: {"table": t.pk, "game": "one-for-the-money", "rules": "No such rules", "min_wager": "5",
                "max_wager": "500"}, "rules", "has no rules version 'No such rules'"),
    ("posting: the moment looked up", "floor", "get", "/api/v1/postings/", lambda t: {"at": "yesterday"},
     "at", "at must be a date and time"),
    ("condition met", "compliance_wa", "post", "/api/v1/approval-conditions/fulfilments/",
     lambda t: {**WA_LETTER, "met_on": "2099-01-01"}, "met_on", "The day it was met, 2099-01-01, is after today"),
    ("export", "compliance", "post", "/api/v1/exports",
     lambda t: {"establishment": "casino-marysville", "from": TODAY.isoformat(), "to": LATER}, "to",
     "The period ends in the future"),
    ("impact", "compliance", "get", "/api/v1/schedules/GEGA-002888/versions/1/impact",
     lambda t: {"establishment": "casino-marysville", "from": "2026-01-01", "to": "2026-12-31"}, "to",
     "it can be at most 92 days"),
    ("compliance check", "compliance", "post", "/api/v1/compliance/check",
     lambda t: {"jurisdiction": "ZZ", "game": "face-up-pai-gow-poker"}, "jurisdiction", "Unknown jurisdiction 'ZZ'."),
    ("quote", "compliance", "post", "/api/v1/fees/quote",
     lambda t: {"schedule": "NO-SUCH-1", "option": 1, "wagers": WAGERS}, "schedule", "Unknown schedule 'NO-SUCH-1'."),
    ("quote: a value read", "compliance", "post", "/api/v1/fees/quote",
     lambda t: {"schedule": "GEGA-002888", "option": 1, "wagers": WAGERS, "receipt": "yes"}, "receipt",
     "receipt must be true or false"),
    ("a value read at the door", "compliance", "get", "/api/v1/schedules/GEGA-002888/",
     lambda t: {"as_of": "21-11-2026"}, "as_of", "as_of must be a date written YYYY-MM-DD"),
    ("a review step's reason", "compliance", "post", "override",
     lambda t: {"reason": "x"}, "reason", "reason must say why the sign may be printed"),
    ("a batch of signs", "floor", "post", "/api/v1/signage/batches",
     lambda t: {"establishment": "casino-marysville", "tables": []}, "tables", "Choose at least one table"),
    ("a public key", "compliance", "post", "/api/v1/exports/verify",
     lambda t: {"bundle": SimpleUploadedFile("bundle.zip", b"PK"), "public_key": "not a key"}, "public_key",
     "Not an Ed25519 public key"),
]


def _counts():
    return [model.objects.count() for model in (AuditLogEntry, Job, CollectionEntry, TablePosting,
                                                ConditionFulfilment)]


@pytest.mark.parametrize("who, method, address, body, field, said", [case[1:] for case in API],
                         ids=[case[0] for case in API])
def test_the_api_answers_each_input_error_in_its_one_format_naming_the_field(api, people, who, method, address,
                                                                             body, field, said):
    table = make_posted_table(people.marysville)
    if address == "override":
        address = f"/api/v1/postings/{TablePosting.objects.get(table=table).pk}/override/"
    api.force_login(getattr(people, who))
    before = _counts()
    data = body(table)
    if method == "get":
        answer = api.get(address, data)
    else:
        answer = api.post(address, data, format="multipart" if "bundle" in data else "json")
    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    assert set(error) == {"status", "code", "message", "details"} and error["status"] == 400
    assert list(error["details"]) == [field] and said in error["details"][field]
    assert error["message"].startswith(field) and said in error["message"]
    assert _counts() == before


# -- the pages: the form again (400), the message beside the field, nothing changed ----------------------------------


def _beside(answer, form, field, said):
    assert answer.status_code == 400
    errors = answer.context[form].errors
    assert any(said in message for message in errors.get(field, [])), errors
    assert said in answer.content.decode().replace("&#x27;", "'")


def test_the_export_page_shows_the_request_s_error_beside_its_field(client, people):
    client.force_login(people.regulator_ca)
    answer = client.post(reverse("console:regulator-export"), {
        "what": "establishment:casino-marysville", "start": TODAY.isoformat(), "end": LATER})
    _beside(answer, "form", "end", "The period ends in the future")
    assert not Job.objects.exists()


def test_the_reconcile_form_shows_the_period_s_error_beside_its_field(client, people):
    client.force_login(people.compliance)
    answer = client.post(reverse("console:compliance-variance", args=["casino-marysville"]),
                         {"reconcile_from": "2026-01-01", "reconcile_to": "2026-06-02"})
    _beside(answer, "reconcile_form", "reconcile_to", "Reconcile at most 92 gaming days at a time")
    assert not Job.objects.exists() and not Reconciliation.objects.exists()


def test_the_impact_page_shows_the_period_s_error_beside_its_field(client, people):
    client.force_login(people.compliance)
    answer = client.get(reverse("console:compliance-impact", args=["casino-marysville", "GEGA-002888", 1]),
                        {"from": "2026-01-01", "to": "2026-12-31"})
    _beside(answer, "form", "to", "it can be at most 92 days")


def test_the_condition_met_form_shows_the_day_s_error_beside_its_field(client, people):
    client.force_login(people.compliance_wa)
    condition = ApprovalCondition.objects.get(approval__key=WA_LETTER["approval"], order=WA_LETTER["condition"])
    answer = client.post(reverse("console:compliance-condition-met", args=["test-wa-room", condition.pk]),
                         {f"c{condition.pk}-met_on": "2099-01-01", f"c{condition.pk}-evidence": "WSGC letter"})
    assert answer.status_code == 400
    assert "The day it was met, 2099-01-01, is after today" in answer.content.decode()
    assert not ConditionFulfilment.objects.exists()


def test_the_admin_s_posting_form_shows_the_service_s_error_beside_its_field(client, people):
    table = make_posted_table(people.marysville)
    client.force_login(people.admin)
    before = TablePosting.objects.count()
    answer = client.post(reverse("admin:fees_tableposting_post"), {
        "table": table.pk, "schedule": "GEGA-002888", "option": 77, "min_wager": "5", "max_wager": "500",
        "effective_from": (timezone.localtime() + datetime.timedelta(hours=1)).strftime("%Y-%m-%d %H:%M")})
    assert answer.status_code == 200  # the admin's own form page
    assert any("has no option 77" in message for message in answer.context["form"].errors["option"])
    assert TablePosting.objects.count() == before


def test_the_floor_page_says_why_a_batch_is_refused(client, people):
    make_posted_table(people.marysville)
    client.force_login(people.floor)
    answer = client.post(reverse("console:floor-print", args=["casino-marysville"]),
                         {"layout": "letter", "tables": ["999999"]})
    assert answer.status_code == 400 and "Not tables of Casino Marysville: 999999" in answer.content.decode()
    assert not Job.objects.exists()


# -- the commands: CommandError with the service's sentence ----------------------------------------------------------


@pytest.mark.parametrize("command, said", [
    (["export_audit", "--establishment", "nowhere", "--as-of", "2026-01-01", "-o", "/dev/null"],
     "No establishment 'nowhere' among those you may see."),
    (["quote_fee", "--schedule", "NO-SUCH-1", "--option", "1", "--wager", "p1:100"], "Unknown schedule 'NO-SUCH-1'."),
    (["check_compliance", "--as-of", "21-11-2026"], "--as-of must be a date written YYYY-MM-DD"),
])
def test_a_command_answers_a_bad_input_with_its_command_error(people, command, said):
    with pytest.raises(CommandError, match=said):
        call_command(*command)
