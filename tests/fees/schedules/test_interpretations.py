"""As written, and as interpreted (issue 13): the source stays as printed; an approved interpretation of what it
leaves open changes the quote and the sign, and both say it is one, with its citation."""

import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse

from cardroom.access import Scope
from cardroom.exceptions import NotAllowed
from cardroom.models import AuditLogEntry, Game, Table
from compliance.facts import document_facts
from compliance.models import Finding
from compliance.rules import lint
from fees.models import FeeOption, FeeTier, Interpretation, ScheduleDocument, ScheduleVersion
from fees.quotes import quoting
from fees.schedules import history, services
from signage import content, render
from signage.postings import post_table, read_posting

from tests import signs

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
QUOTE = "/api/v1/fees/quote"
READINGS = "/api/v1/schedules/CMV-CA-FEES-PAI-GOW/interpretations/"
CITATION = "Test: Bureau answer of 2026-10-15 to Casino Marysville"
DECIDED = datetime.date(2026, 10, 15)
# Pai Gow option 1 prints a 'Wagering Limit' column with no basis (wager_unspecified) for both fees, and closes the
# player-dealer column at $101-200. Read: the player fee by the player's total base wager, the player-dealer fee by
# total table action, its second row open-ended.
PLAYER_COLUMN = "The 'Wagering Limit' column of the player fee is each player's total base wager."
DEALER_COLUMN = "The player-dealer fee is by total table action, and its $101-200 row applies to any amount above $100."
READING = [(order, "measure", "player_wager", PLAYER_COLUMN) for order in range(1, 6)] + [
    (6, "measure", "total_table_action", DEALER_COLUMN), (7, "measure", "total_table_action", DEALER_COLUMN),
    (7, "upper", "", DEALER_COLUMN)]
ROUND = {"schedule": "CMV-CA-FEES-PAI-GOW", "option": 1,
         "wagers": [{"player": "p1", "base": "150"}, {"player": "p2", "base": "40"}]}


@pytest.fixture
def pai_gow():
    return ScheduleVersion.objects.select_related("document").get(document__code="CMV-CA-FEES-PAI-GOW", number=1)


def propose_all(version, people, reading=READING):
    return [services.propose_interpretation(people.compliance, version=version, option=1, tier=order, field=field,
                                            value=value, statement=statement, decided_on=DECIDED, citation=CITATION)
            for order, field, value, statement in reading]


def approve_all(readings, people):
    for reading in readings:
        services.approve_interpretation(people.compliance_2, reading=reading,
                                        reason="Read against the Bureau's answer.")


def printed(version):
    return list(FeeTier.objects.filter(option__version=version).order_by("order")
                .values_list("measure", "lower", "upper", "fee", "printed_bounds"))


def sign_text(posting):
    return signs.text(render.render([content.sign_for(posting)], "letter").pdf, layout=False)


def post_pai_gow(people, label="PG-1"):
    table = Table.objects.create(establishment=people.marysville, label=label, seats=7,
                                 game=Game.objects.get(slug="pai-gow-poker"))
    start = datetime.datetime.now(LA).replace(microsecond=0) + datetime.timedelta(minutes=5)
    data = {"table": table.pk, "schedule": "CMV-CA-FEES-PAI-GOW", "option": 1, "min_wager": "10", "max_wager": "100",
            "effective_from": start.isoformat()}
    posting, run = post_table(people.floor, fields=read_posting(data, scope=Scope(people.floor),
                                                                now=start - datetime.timedelta(minutes=1)))
    return posting, run


# -- the quote ------------------------------------------------------------------------------------------------------


def test_an_approved_reading_makes_an_unquotable_option_quotable_and_the_quote_says_so(api, people, pai_gow):
    api.force_authenticate(people.floor)
    before = printed(pai_gow)
    refused = api.post(QUOTE, ROUND, format="json")
    assert refused.status_code == 400
    assert "does not state how its player fee is measured" in refused.json()["error"]["message"]

    approve_all(propose_all(pai_gow, people), people)
    answer = api.post(QUOTE, ROUND, format="json")
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    # p1's $150 is in the $101-200 row ($2), p2's $40 in $10-100 ($1); $190 of table action in the second row ($2).
    assert body["player_fees"] == [{"player": "p1", "fee": "2.00"}, {"player": "p2", "fee": "1.00"}]
    assert (body["player_dealer_fee"], body["total"]) == ("2.00", "5.00")
    explanation = body["explanation"]
    assert {(r["tier"], r["field"], r["printed"], r["read_as"]) for r in explanation["interpretations"]} == {
        *((order, "measure", "wager_unspecified", "player_wager") for order in range(1, 6)),
        (6, "measure", "wager_unspecified", "total_table_action"), (7, "measure", "wager_unspecified",
                                                                    "total_table_action"),
        (7, "upper", "200.00", "")}
    assert all(r["citation"] == CITATION and r["decided_on"] == "2026-10-15" for r in explanation["interpretations"])
    dealer = next(line for line in explanation["fees"] if line["payer"] == "player_dealer")
    assert dealer["measure"] == "total_table_action" and dealer["tier"]["printed_bounds"] == "$101-200"
    assert {r["field"] for r in dealer["tier"]["interpretations"]} == {"measure", "upper"}
    assert dealer["tier"]["interpretations"][0]["statement"] == DEALER_COLUMN
    # What the quote reads is not what is printed, and the printed data is exactly as it was.
    assert printed(pai_gow) == before
    assert FeeTier.objects.filter(option__version=pai_gow, measure="wager_unspecified").count() == 7
    assert FeeOption.objects.get(version=pai_gow).basis == "unstated"

    # A larger round: a player's $450 is in the $401-500 row; $700 of table action is above the printed $200 top,
    # read as open.
    big = {**ROUND, "wagers": [{"player": "p1", "base": "450"}, {"player": "p2", "base": "250"}]}
    assert api.post(QUOTE, big, format="json").json()["total"] == "10.00"  # $5 + $3 + $2

    # Withdrawn, the value is read as printed again: the cached engine view follows (no restart).
    withdrawn = Interpretation.objects.get(version=pai_gow, tier_order=3, status="approved")
    services.withdraw_interpretation(people.compliance, reading=withdrawn, reason="The Bureau withdrew its answer.")
    again = api.post(QUOTE, ROUND, format="json")
    assert again.status_code == 400 and "measured in more than one way" in again.json()["error"]["message"]


def test_a_proposed_reading_changes_nothing(api, people, pai_gow):
    propose_all(pai_gow, people)
    api.force_authenticate(people.floor)
    assert api.post(QUOTE, ROUND, format="json").status_code == 400
    option = quoting.snapshot(pai_gow).option(1)
    assert {t.measure for t in option.tiers} == {"wager_unspecified"}
    assert not any(t.interpretations for t in option.tiers)
    found = lint.lint_option("CMV-CA-FEES-PAI-GOW", 1, option)
    assert [f.severity for f in found if f.rule == "lint.ambiguous"] == ["warning", "warning"]
    # Anyone who sees the schedule reads only the approved readings (none); its compliance officers see them all.
    assert api.get(READINGS).json()["count"] == 0
    api.force_authenticate(people.compliance_2)
    assert api.get(READINGS, {"status": "proposed"}).json()["count"] == len(READING)


# -- who may do what ---------------------------------------------------------------------------------------------


def test_the_proposer_cannot_approve_nor_anyone_but_a_second_officer(api, people, pai_gow):
    (reading,) = propose_all(pai_gow, people, READING[:1])
    with pytest.raises(NotAllowed, match="second person"):
        services.approve_interpretation(people.compliance, reading=reading, reason="My own reading.")
    api.force_authenticate(people.compliance)
    answer = api.post(f"{READINGS}{reading.pk}/approve/", {"reason": "My own reading."}, format="json")
    assert answer.status_code == 403 and "second person" in answer.json()["error"]["message"]
    api.force_authenticate(people.floor)
    assert api.post(f"{READINGS}{reading.pk}/approve/", {"reason": "x" * 5}, format="json").status_code == 403
    reading.refresh_from_db()
    assert reading.status == "proposed" and reading.reviewed_by is None
    # A jurisdiction's shared schedule changes every room's quotes: its second person is an administrator.
    gega = ScheduleVersion.objects.get(document__code="GEGA-002888", number=1)
    shared = services.propose_interpretation(people.compliance, version=gega, option=1, tier=1, field="taken",
                                             value="before_deal",
                                             statement="Taken before the cards are dealt, as the provisions say.",
                                             decided_on=DECIDED, citation=CITATION)
    with pytest.raises(NotAllowed, match="administrator"):
        services.approve_interpretation(people.compliance_2, reading=shared, reason="Agreed.")
    services.approve_interpretation(people.admin, reading=shared, reason="Agreed.")
    assert AuditLogEntry.objects.filter(action="schedule.interpretation_approved", object_id=str(shared.pk)).exists()


def test_the_api_proposes_approves_refuses_and_withdraws_with_reasons(api, people, pai_gow):
    api.force_authenticate(people.compliance)
    body = {"version": 1, "option": 1, "tier": 7, "field": "upper", "value": "", "statement": DEALER_COLUMN,
            "decided_on": "2026-10-15", "citation": CITATION, "source": "cmv-binder"}
    answer = api.post(READINGS, body, format="json")
    assert answer.status_code == 201, answer.json()
    reading = answer.json()
    assert (reading["printed"], reading["value"], reading["value_label"], reading["status"], reading["source"]) == (
        "200.00", "", "open (no bound)", "proposed", "cmv-binder")
    assert reading["footnote"] == f"Interpretation: {DEALER_COLUMN.rstrip('.')} ({CITATION}, 2026-10-15)."
    # One live reading per field.
    assert api.post(READINGS, body, format="json").status_code == 409
    api.force_authenticate(people.compliance_2)
    url = f"{READINGS}{reading['id']}/"
    assert api.post(url + "approve/", {}, format="json").status_code == 400  # a reason is required
    approved = api.post(url + "approve/", {"reason": "Matches the Bureau's answer."}, format="json").json()
    assert (approved["status"], approved["reviewed_by"]) == ("approved", "t-compliance-2")
    assert api.post(url + "refuse/", {"reason": "Too late."}, format="json").status_code == 409
    api.force_authenticate(people.floor)
    assert api.get(READINGS).json()["count"] == 1  # approved, on a published version: everyone who sees it reads it
    api.force_authenticate(people.compliance)
    assert api.post(url + "withdraw/", {"reason": "Superseded."}, format="json").json()["status"] == "withdrawn"
    assert api.post(READINGS, body, format="json").status_code == 201  # the field may be read again
    second = Interpretation.objects.filter(version=pai_gow, status="proposed").get()
    api.force_authenticate(people.compliance_2)
    refused = api.post(f"{READINGS}{second.pk}/refuse/", {"reason": "Not what the Bureau said."}, format="json")
    assert refused.json()["status"] == "refused"
    steps = list(AuditLogEntry.objects.filter(action__startswith="schedule.interpretation_").order_by("id")
                 .values_list("action", flat=True))
    assert steps == ["schedule.interpretation_proposed", "schedule.interpretation_approved",
                     "schedule.interpretation_withdrawn", "schedule.interpretation_proposed",
                     "schedule.interpretation_refused"]


@pytest.mark.parametrize("changes, field", [
    ({"field": "fee"}, "field"),  # the printed fee is never read otherwise
    ({"field": "basis"}, "field"),  # a basis is an option's, not a row's
    ({"value": "unstated", "field": "measure"}, "value"),  # a reading says what it is
    ({"value": "percent_of_pot", "field": "measure"}, "value"),
    ({"value": "1e3"}, "value"),
    ({"value": "-5"}, "value"),
    ({"value": ["200"]}, "value"),
    ({"tier": 99}, "tier"),
    ({"tier": "7"}, "tier"),
    ({"option": 0}, "option"),
    ({"option": 2}, "option"),
    ({"version": 9}, "version"),
    ({"decided_on": "2099-01-01"}, "decided_on"),
    ({"decided_on": "15/10/2026"}, "decided_on"),
    ({"statement": ""}, "statement"),
    ({"statement": "Short"}, "statement"),
    ({"citation": "a\x00b"}, "citation"),
    ({"source": "no-such-source"}, "source"),
    ({"colour": "red"}, "unknown field"),
])
def test_hostile_proposals_are_400_and_record_nothing(api, people, changes, field):
    api.force_authenticate(people.compliance)
    body = {"version": 1, "option": 1, "tier": 7, "field": "upper", "value": "", "statement": DEALER_COLUMN,
            "decided_on": "2026-10-15", "citation": CITATION, **changes}
    answer = api.post(READINGS, body, format="json")
    assert answer.status_code == 400, answer.content
    assert field in answer.json()["error"]["message"]
    assert not Interpretation.objects.exists() and not AuditLogEntry.objects.filter(
        action__startswith="schedule.interpretation_").exists()


def test_steps_on_a_reading_of_another_schedule_or_none_are_404(api, people, pai_gow):
    (reading,) = propose_all(pai_gow, people, READING[:1])
    api.force_authenticate(people.compliance_2)
    other = "/api/v1/schedules/CMV-CA-PLAYER-WAGER/interpretations/"
    assert api.post(f"{other}{reading.pk}/approve/", {"reason": "Wrong door."}, format="json").status_code == 404
    assert api.post(f"{READINGS}99999999999999999999/approve/", {"reason": "x" * 4}, format="json").status_code == 404
    assert api.get(f"{READINGS}?status=maybe").status_code == 400
    assert api.get(f"{READINGS}?option=abc").status_code == 400


# -- validation -----------------------------------------------------------------------------------------------------


def test_validation_says_the_value_is_interpreted_with_its_citation(people, pai_gow):
    option = document_facts(pai_gow).options[0]
    before = {(f.rule, f.severity) for f in lint.lint_option("CMV-CA-FEES-PAI-GOW", 1, option)}
    assert {("lint.ambiguous", "warning"), ("lint.closed_top", "warning")} <= before
    approve_all(propose_all(pai_gow, people), people)
    found = lint.lint_option("CMV-CA-FEES-PAI-GOW", 1, document_facts(pai_gow).options[0])
    ambiguous = [f for f in found if f.rule == "lint.ambiguous"]
    assert [f.severity for f in ambiguous] == ["info", "info"]
    assert "does not state what it is measured on; it is read as measured on the player's total base wager" in \
        ambiguous[0].message and f"Interpretation: {PLAYER_COLUMN.rstrip('.')} ({CITATION}, 2026-10-15)" in \
        ambiguous[0].message and CITATION in ambiguous[0].citation
    player, dealer = [f for f in found if f.rule == "lint.closed_top"]
    assert player.severity == "warning"  # the player fee's $500 top is read as printed
    assert dealer.severity == "info" and "read open-ended above $101" in dealer.message and CITATION in dealer.citation
    # The printed bounds "$101-200" against the open bound read: info, said, never an error.
    mismatch = [f for f in found if f.rule == "schedule.printed_bounds_mismatch"]
    assert [f.severity for f in mismatch] == ["info"] and "Interpretation:" in mismatch[0].message


# -- the sign -------------------------------------------------------------------------------------------------------


def test_the_sign_uses_the_reading_and_says_it_is_one(people, pai_gow):
    posting, run = post_pai_gow(people)
    text = sign_text(posting)
    assert "basis not stated" not in text and "Interpretation" not in text
    assert "Player fee. Paid by each player." in " ".join(text.split())  # as printed, no claim about its basis

    approve_all(propose_all(pai_gow, people), people)
    sign = content.sign_for(posting)
    titles = [t.title for t in sign.fee_tables]
    assert titles == ["Player fee by total base wager", "Player-dealer fee by total table action"]
    player, dealer = sign.fee_tables
    assert player.note == f"Interpretation: {PLAYER_COLUMN.rstrip('.')} ({CITATION}, 2026-10-15)."
    # The open bound is read, not as printed: the whole table is then written from the amounts, one way.
    assert [row.bounds for row in dealer.rows] == ["$10 to $100", "$101 or more"]
    flat = " ".join(sign_text(posting).split())
    assert "Interpretation: The 'Wagering Limit' column of the player fee is each player's total base wager" in flat
    assert CITATION in flat and "2026-10-15" in flat and "basis not stated" not in flat
    # A posting checked now says the measure is read, with the citation (coverage of the table's wagers).
    _, rechecked = post_pai_gow(people, "PG-2")
    coverage = Finding.objects.filter(run=rechecked, rule="coverage.tiers", severity="info")
    assert coverage.exists() and all(CITATION in f.citation for f in coverage)
    assert not Finding.objects.filter(run=run, rule="coverage.tiers", severity="info").exists()


def test_no_sign_of_any_seeded_option_says_basis_not_stated():
    for option in FeeOption.objects.select_related("version__document").prefetch_related("tiers"):
        for table in content.fee_tables(option, option.version.document.currency):
            said = " ".join([table.title, table.payer, table.measured_on, table.note, *(r.bounds for r in table.rows)])
            assert "not stated" not in said and "does not state" not in said, (option, said)


# -- drafts ---------------------------------------------------------------------------------------------------------


def test_a_new_draft_carries_the_approved_readings(people, pai_gow):
    readings = propose_all(pai_gow, people)
    approve_all(readings[:-1], people)  # the open top stays a proposal
    document = ScheduleDocument.objects.get(code="CMV-CA-FEES-PAI-GOW")
    draft = document.new_draft(based_on=pai_gow, user=people.compliance, reason="Next binder page",
                               effective_from=datetime.date(2027, 1, 1))
    carried = list(draft.interpretations.order_by("id"))
    assert len(carried) == len(READING) - 1
    assert all(c.status == "approved" and c.reviewed_by == people.compliance_2 and c.carried_from_id == r.pk
               and (c.field, c.value, c.statement, c.citation) == (r.field, r.value, r.statement, r.citation)
               for c, r in zip(carried, readings))
    assert not draft.interpretations.filter(field="upper").exists()
    created = history.version_history(draft)[0]
    assert created["copied"]["readings"] == len(READING) - 1  # in the draft's history, copied with it
    dealer = {t.order: t for t in quoting.snapshot(draft).option(1).tiers}[7]
    assert (dealer.measure, dealer.upper) == ("total_table_action", Decimal("200.00"))


# -- the page -------------------------------------------------------------------------------------------------------


def test_the_page_lists_proposes_and_approves(client, people, pai_gow):
    url = reverse("console:compliance-interpretations", args=["casino-marysville", "CMV-CA-FEES-PAI-GOW", 1])
    client.force_login(people.compliance)
    page = client.get(url)
    assert page.status_code == 200 and b"No reading is recorded" in page.content
    tier = FeeTier.objects.get(option__version=pai_gow, order=6)
    form = {"step": "propose", "place": "1:6", "field": "measure", "choice": "total_table_action",
            "statement": DEALER_COLUMN, "decided_on": "2026-10-15", "citation": CITATION, "source": ""}
    assert client.post(url, {**form, "decided_on": "2099-01-01"}).status_code == 400
    assert client.post(url, form).status_code == 302
    reading = Interpretation.objects.get(version=pai_gow)
    assert (reading.tier_order, reading.value, reading.recorded_by) == (tier.order, "total_table_action",
                                                                        people.compliance)
    page = client.get(url)
    assert DEALER_COLUMN.encode() in page.content.replace(b"&#x27;", b"'") and b"Total table action" in page.content
    step = {"reading": reading.pk, f"r{reading.pk}-reason": "My own reading.", "step": "approve"}
    assert client.post(url, step).status_code == 403  # the proposer
    client.force_login(people.compliance_2)
    assert client.post(url, {**step, f"r{reading.pk}-reason": "Read the Bureau's answer."}).status_code == 302
    reading.refresh_from_db()
    assert (reading.status, reading.reviewed_by) == ("approved", people.compliance_2)
    client.force_login(people.floor)
    assert client.get(url).status_code == 403  # a compliance page
    schedule = client.get(reverse("console:compliance-version", args=["casino-marysville", "CMV-CA-FEES-PAI-GOW", 1]))
    assert schedule.status_code == 403
    client.force_login(people.compliance)
    assert url.encode() in client.get(reverse("console:compliance-version",
                                              args=["casino-marysville", "CMV-CA-FEES-PAI-GOW", 1])).content
