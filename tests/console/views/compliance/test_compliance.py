"""A compliance officer's pages (issue 11): findings inbox, schedules and drafts, approvals, postings and overrides.

Each job is done through the pages with the Django test client, the same services as the API underneath; every
page is scoped as the API (another room's officer gets 404, a floor supervisor 403), bad input re-renders the
form with 400 and changes nothing, and the busy pages keep a flat number of queries.
"""

import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
import rules
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cardroom.access import Scope
from cardroom.models import AuditLogEntry, Game, Table
from compliance import checking, inbox
from compliance.findings import acknowledge
from compliance.models import Finding, ValidationRun
from fees.engine import diff
from fees.models import FeeTier, ScheduleDocument, ScheduleVersion
from signage.models import PrintOverride
from signage.postings import post_table
from tests.factories import change_a_fee, make_table, post_fields

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
ROOM = "casino-marysville"
GEGA = "GEGA-002888"


def url(name, *args):
    return reverse(f"console:{name}", args=[ROOM, *args])


@pytest.fixture
def officer(client, people):
    client.force_login(people.compliance)
    return client


def post(table, game, schedule, option=1, low=5, high=500, day=1):
    return post_fields(table, game=game, schedule=schedule, option=option, low=low, high=high, seats=6,
                       effective_from=datetime.datetime(2026, 3, day, 8, tzinfo=LA))[0]


@pytest.fixture
def floor(people):
    """Two tables at Casino Marysville: one posted cleanly, one whose posting has an error finding."""
    clean = make_table(people.marysville, label="T-2", seats=6)
    broken = make_table(people.marysville, label="T-10", seats=6, game="no-bust-21st-century-blackjack")
    return {"clean": post(clean, "face-up-pai-gow-poker", GEGA),
            "broken": post(broken, "no-bust-21st-century-blackjack", "CMV-CA-TABLE-ACTION")}


def grid_data(response, **changes):
    """The tier grid's POST body as the page rendered it, with ``changes`` ({"1-fee": "3.50"}) applied."""
    formset = response.context["formset"]
    data = {f"tiers-{k}": v for k, v in formset.management_form.initial.items()}
    for i, form in enumerate(formset.forms):
        for name in form.fields:
            value = form[name].value()
            if name == "DELETE":
                continue
            data[f"tiers-{i}-{name}"] = "" if value is None else value
    for key, value in changes.items():
        data[f"tiers-{key}"] = value
    return {k: v for k, v in data.items() if v is not False}


# -- who reaches what -----------------------------------------------------------------------------------------------


PAGES = [("compliance",), ("compliance-schedules",), ("compliance-schedule", GEGA), ("compliance-findings",),
         ("compliance-approvals",), ("compliance-postings",), ("compliance-compare", GEGA),
         ("compliance-new-draft", GEGA, 1)]


@pytest.mark.parametrize("page", PAGES, ids=[p[0] for p in PAGES])
def test_each_page_is_scoped_like_the_api(client, people, page):
    address = url(*page)
    client.force_login(people.compliance)
    assert client.get(address).status_code == 200
    client.force_login(people.admin)
    assert client.get(address).status_code == 200
    client.force_login(people.compliance_wa)  # a compliance officer of another room
    assert client.get(address).status_code == 404
    for user in (people.floor, people.regulator_ca, people.outsider):
        client.force_login(user)
        assert client.get(address).status_code == 403, user
    client.logout()
    assert client.get(address).status_code == 302


def test_the_compliance_home_leads_to_the_officers_room(officer):
    assert officer.get(reverse("console:compliance-home"))["Location"] == url("compliance")


def test_writes_are_refused_outside_the_room(client, people, floor, draft):
    finding = Finding.objects.filter(establishment=people.marysville).first()
    client.force_login(people.compliance_wa)
    assert client.post(url("compliance-finding", finding.pk), {"reason": "not mine"}).status_code == 404
    assert client.post(url("compliance-run")).status_code == 404
    assert client.post(url("compliance-publish", GEGA, draft.number), {"reason": "x"}).status_code == 404
    client.force_login(people.floor)
    refused = client.post(url("compliance-override", floor["broken"].pk), {"reason": "because I say so"})
    assert refused.status_code == 403
    assert not Finding.objects.filter(pk=finding.pk, acknowledged_at__isnull=False).exists()
    assert not PrintOverride.objects.exists()
    draft.refresh_from_db()
    assert not draft.is_published


def test_no_edit_button_for_those_who_may_not_edit(officer, draft, monkeypatch):
    page = officer.get(url("compliance-version", GEGA, draft.number)).content.decode()
    assert "Review and publish" in page and "Discard this draft" in page
    assert "Start a new draft" in officer.get(url("compliance-schedule", GEGA)).content.decode()
    for name in ("fees.edit_schedule", "fees.view_drafts", "compliance.run_validation"):  # not this officer's
        monkeypatch.setitem(rules.permissions.permissions, name, rules.always_false)
    assert officer.get(url("compliance-version", GEGA, draft.number)).status_code == 404  # drafts: editors only
    page = officer.get(url("compliance-schedule", GEGA)).content.decode()
    assert "Start a new draft" not in page and "Edit option" not in page and "Validate" not in page
    assert officer.get(url("compliance-new-draft", GEGA, 1)).status_code == 403
    assert officer.post(url("compliance-new-draft", GEGA, 1), {"reason": "r", "effective_from": "2031-01-01"}
                        ).status_code == 403


# -- home and the findings inbox ------------------------------------------------------------------------------------


def test_home_counts_findings_by_severity_and_new_since_the_last_look(officer, people, floor):
    page = officer.get(url("compliance")).content.decode()
    assert "first look at the inbox" in page
    officer.get(url("compliance-findings"))  # the look
    home = officer.get(url("compliance"))
    assert home.context["new"] == 0 and home.context["seen"] is not None
    officer.post(url("compliance-run"))  # everything found again: nothing new since the look (issue 42)
    home = officer.get(url("compliance"))
    assert home.context["new"] == 0
    assert home.context["counts"]["error"]["open"] == 1  # the broken posting's error, once, not once per run
    post(make_table(people.marysville, label="T-11", seats=6, game="no-bust-21st-century-blackjack"),
         "no-bust-21st-century-blackjack", "CMV-CA-TABLE-ACTION")  # a problem found after the look: new
    home = officer.get(url("compliance"))
    assert home.context["counts"]["error"] == {"open": 2, "new": 1, "acknowledged": 0}
    assert home.context["blocked"][0]["posting"].pk == floor["broken"].pk
    for link in ("compliance-findings", "compliance-schedules", "compliance-postings", "compliance-approvals"):
        assert url(link) in home.content.decode()


def test_findings_inbox_by_severity_marks_new_and_filters(officer, people, floor):
    first = officer.get(url("compliance-findings"))
    assert first.status_code == 200
    assert [g[0] for g in first.context["groups"]][:1] == ["error"]
    assert not any(f.is_new for f in first.context["rows"])
    officer.post(url("compliance-run"))
    again = officer.get(url("compliance-findings"))
    assert not any(f.is_new for f in again.context["rows"])  # found again is not new (issue 42)
    post(make_table(people.marysville, label="T-11", seats=6, game="no-bust-21st-century-blackjack"),
         "no-bust-21st-century-blackjack", "CMV-CA-TABLE-ACTION")
    again = officer.get(url("compliance-findings"))
    assert {f.table_label for f in again.context["rows"] if f.is_new} == {"T-11"}
    assert 'class="badge warning">new</span>' in again.content.decode()
    errors = officer.get(url("compliance-findings"), {"severity": "error"})
    assert {f.severity for f in errors.context["rows"]} == {"error"}
    assert officer.get(url("compliance-findings"), {"severity": "fatal"}).status_code == 400


def test_the_inbox_pages_keep_the_totals_and_what_was_new(officer, people, floor, monkeypatch):
    from console.views.compliance import checks as views

    officer.get(url("compliance-findings"))  # the look before
    officer.post(url("compliance-run"))  # everything found again, after that look
    for label in ("T-11", "T-12"):  # and two problems found after it
        post(make_table(people.marysville, label=label, seats=6, game="no-bust-21st-century-blackjack"),
             "no-bust-21st-century-blackjack", "CMV-CA-TABLE-ACTION")
    everything = inbox.current_findings(people.marysville)  # worked out afresh, not kept
    monkeypatch.setattr(views, "FINDINGS_PAGE_SIZE", 2)
    first = officer.get(url("compliance-findings"), {"show": "all"})
    assert len(everything) > 2 and first.context["page"].paginator.count == len(everything)
    assert [f.pk for f in first.context["rows"]] == [f.pk for f in everything[:2]]
    totals = {s: total for s, _, total, _ in first.context["groups"]}
    assert all(totals[s] == sum(1 for f in everything if f.severity == s) for s in totals)
    assert "page=2" in first.content.decode()
    second = officer.get(url("compliance-findings"), {"show": "all", "page": 2})
    assert [f.pk for f in second.context["rows"]] == [f.pk for f in everything[2:4]]
    # Page 2 still marks what was new when this look began (page 1 moved the last look to now).
    assert any(f.is_new for f in second.context["rows"])
    assert officer.get(url("compliance-findings"), {"page": "999"}).status_code == 200  # the last page


def test_acknowledge_with_a_reason_then_409(officer, people, floor):
    finding = next(f for f in officer.get(url("compliance-findings")).context["rows"] if f.severity == "error")
    address = url("compliance-finding", finding.pk)
    refused = officer.post(address, {"reason": " "})
    assert refused.status_code == 400 and refused.context["form"].errors
    assert Finding.objects.get(pk=finding.pk).acknowledged_at is None
    done = officer.post(address, {"reason": "Bureau asked; override granted", "next": url("compliance-findings")})
    assert done.status_code == 302
    finding = Finding.objects.get(pk=finding.pk)
    assert finding.acknowledged_by == people.compliance and finding.acknowledgement_reason.startswith("Bureau")
    assert AuditLogEntry.objects.filter(action="compliance.acknowledge", object_id=str(finding.pk)).exists()
    again = officer.post(address, {"reason": "twice"})
    assert again.status_code == 409
    assert "was acknowledged" in again.content.decode()
    assert Finding.objects.get(pk=finding.pk).acknowledgement_reason.startswith("Bureau")
    shown = officer.get(url("compliance-findings"), {"show": "acknowledged"}).context["rows"]
    assert finding.pk in [f.pk for f in shown]


def test_acknowledged_earlier_holds_when_a_later_run_finds_it_again(officer, floor):
    finding = Finding.objects.filter(posting=floor["broken"], severity="error").first()
    officer.post(url("compliance-finding", finding.pk), {"reason": "Handled with the Bureau"})
    officer.post(url("compliance-run"))
    rows = officer.get(url("compliance-findings"), {"show": "all"}).context["rows"]
    again = next(f for f in rows if f.severity == "error")
    # The facts judged are the same: the later run's copy carries the acknowledgement (issue 25).
    assert again.pk != finding.pk and again.acknowledged and again.acknowledgement_reason == "Handled with the Bureau"
    assert "Handled with the Bureau" in officer.get(url("compliance-findings"), {"show": "all"}).content.decode()


def test_the_inbox_keeps_what_stands_now(officer, people, floor):
    def errors():
        return [f for f in officer.get(url("compliance-findings")).context["rows"] if f.severity == "error"]

    assert [f.posting_id for f in errors()] == [floor["broken"].pk]  # the posting's own check
    officer.post(url("compliance-run"))
    assert len(errors()) == 1 and errors()[0].run_kind == "establishment"
    checking.run_everything()
    assert len(errors()) == 1 and errors()[0].run_kind == "everything"
    post(floor["broken"].table, "no-bust-21st-century-blackjack", "CMV-CA-TABLE-ACTION", day=2)  # replaces it
    assert all(f.posting_id != floor["broken"].pk for f in errors())


def test_the_kept_standing_findings_are_what_the_inbox_works_out_whatever_happened(people, floor,
                                                                                   django_assert_max_num_queries):
    """compliance.inbox.standing keeps what current_findings works out, and works it out again after a run, an
    acknowledgement or a posting coming into force, but not otherwise."""
    room = people.marysville
    start = datetime.datetime(2026, 11, 1, 12, tzinfo=LA)

    def agree(at):
        kept = list(inbox.standing(room, at).order_by("position").values_list("finding_id", "earlier_id"))
        worked_out = inbox.current_findings(room, at)
        assert kept == [(f.pk, f.earlier.pk if f.earlier else None) for f in worked_out]
        assert inbox.standing_counts(inbox.standing(room, at)) == {
            s: {"open": sum(1 for f in worked_out if f.severity == s and not f.acknowledged), "new": 0,
                "acknowledged": sum(1 for f in worked_out if f.severity == s and f.acknowledged)}
            for s in inbox.SEVERITIES}
        return len(kept)

    agree(start)
    with django_assert_max_num_queries(1):  # nothing changed: one look at the kept state
        inbox.standing(room, start)
    checking.run_establishment(room)  # a run
    agree(start)
    error = inbox.standing(room, start).filter(severity="error").first().finding
    acknowledge(people.compliance, finding=error, reason="Handled with the Bureau.", scope=Scope(people.compliance))
    agree(start)  # an acknowledgement
    assert inbox.standing_counts(inbox.standing(room, start))["error"]["acknowledged"] == 1
    # A posting made for a later moment ends the broken one's findings when it comes into force: no run needed.
    later = datetime.datetime(2026, 12, 1, 8, tzinfo=LA)
    post_table(None, fields={"table": floor["broken"].table, "game": floor["broken"].game,
                             "schedule": ScheduleDocument.objects.get(code=GEGA), "option_number": 1, "min_wager": 5,
                             "max_wager": 500, "seats": 6, "effective_from": later}, actor_label="test")
    before = agree(start)
    after = agree(later + datetime.timedelta(minutes=1))
    assert after < before


def test_run_validation_now(officer, people, floor):
    assert officer.get(url("compliance-run")).status_code == 405
    response = officer.post(url("compliance-run"))
    assert response.status_code == 302
    run = ValidationRun.objects.get(kind=ValidationRun.Kind.ESTABLISHMENT, establishment=people.marysville)
    assert run.started_by == people.compliance and run.postings_checked == 2


# -- schedules ------------------------------------------------------------------------------------------------------


def test_schedules_search_and_version_in_force(officer):
    found = officer.get(url("compliance-schedules"), {"q": "000700"})
    assert [r["document"].code for r in found.context["rows"]] == ["GEGA-000700"]
    assert found.context["rows"][0]["in_force"].number == 1
    by_title = officer.get(url("compliance-schedules"), {"q": "poker collection"})
    assert all("poker collection" in r["document"].title.lower() for r in by_title.context["rows"])
    everything = officer.get(url("compliance-schedules")).context["rows"]
    assert GEGA in [r["document"].code for r in everything]
    assert officer.get(url("compliance-schedules"), {"q": "a\x00b"}).status_code == 400


def test_schedule_shows_one_option_at_a_time(officer):
    page = officer.get(url("compliance-schedule", GEGA), {"option": 43})
    assert page.status_code == 200
    assert page.context["option"].number == 43 and page.context["version"].number == 1
    assert [t.order for t in page.context["tiers"]] == sorted(t.order for t in page.context["tiers"])
    assert len(page.context["options"]) == 49
    assert page.context["previous"].number == 42 and page.context["next"].number == 44
    html = page.content.decode()
    assert 'id="tiers"' in html and html.count('id="option-panel"') == 1
    partial = officer.get(url("compliance-schedule", GEGA), {"option": 7}, HTTP_HX_REQUEST="true",
                          HTTP_HX_TARGET="option-panel")
    assert partial.content.decode().lstrip().startswith('<div id="option-panel">')
    assert "<html" not in partial.content.decode()
    assert officer.get(url("compliance-schedule", GEGA), {"option": "seven"}).status_code == 400
    assert officer.get(url("compliance-schedule", GEGA), {"option": 99}).status_code == 404


def test_compare_two_versions_tier_by_tier(officer, draft):
    tier = FeeTier.objects.get(option__version=draft, option__number=43, order=2)
    tier.fee = Decimal("3.50")
    tier.save()
    page = officer.get(url("compliance-compare", GEGA), {"from": 1, "to": draft.number})
    assert page.status_code == 200
    changes = page.context["diff"]
    assert [o.number for o in changes.changed] == [43]
    assert changes.counts()["tiers_changed"] == 1
    html = page.content.decode()
    assert "amount 2.00 → 3.50" in html and 'class="new num changed"' in html
    assert officer.get(url("compliance-compare", GEGA), {"from": 1, "to": 9}).status_code == 400


# -- drafts, the tier grid, publishing ------------------------------------------------------------------------------


def test_new_draft_needs_a_reason(officer, people):
    document = ScheduleDocument.objects.get(code=GEGA)
    refused = officer.post(url("compliance-new-draft", GEGA, 1), {"effective_from": "2031-01-01", "reason": ""})
    assert refused.status_code == 400 and "reason" in refused.context["form"].errors
    assert document.versions.count() == 1
    bad_day = officer.post(url("compliance-new-draft", GEGA, 1), {"effective_from": "31/01/2031", "reason": "r"})
    assert bad_day.status_code == 400 and document.versions.count() == 1
    made = officer.post(url("compliance-new-draft", GEGA, 1), {"effective_from": "2031-01-01",
                                                               "reason": "Bureau letter of May"})
    draft = document.versions.get(number=2)
    assert made["Location"] == url("compliance-version", GEGA, 2)
    assert draft.reason == "Bureau letter of May" and draft.created_by == people.compliance
    assert AuditLogEntry.objects.filter(action="schedule.new_draft", object_id=str(draft.pk)).exists()
    assert officer.get(made["Location"]).context["editable"]


def test_tier_grid_saves_through_the_audited_path(officer, draft):
    address = url("compliance-edit-tiers", GEGA, draft.number, 43)
    page = officer.get(address)
    assert page.status_code == 200 and len(page.context["formset"].forms) == 8  # 7 tiers and a blank row
    saved = officer.post(address, grid_data(page, **{"1-fee": "3.50"}) | {"reason": "Bureau letter of 1 May"})
    assert saved.status_code == 302, saved.context and saved.context["formset"].errors
    tier = FeeTier.objects.get(option__version=draft, option__number=43, order=2)
    assert tier.fee == Decimal("3.50")
    assert FeeTier.history.filter(id=tier.pk).latest("history_date").history_change_reason == "Bureau letter of 1 May"
    entry = AuditLogEntry.objects.filter(action="fees.feetier.change", object_id=str(tier.pk)).latest("sequence")
    assert entry.data["reason"] == "Bureau letter of 1 May" and "fee" in entry.data["changes"]
    published = FeeTier.objects.get(option__version__number=1, option__version__document__code=GEGA,
                                     option__number=43, order=2)
    assert published.fee == Decimal("2.00")


@pytest.mark.parametrize("changes, field", [
    ({"1-fee": "abc"}, "fee"), ({"1-fee": "-1"}, "fee"), ({"1-fee": "1.234"}, "fee"), ({"1-fee": "1e3"}, "fee"),
    ({"1-upper": "50"}, "upper"), ({"1-order": "1"}, "order"), ({"1-fee_kind": "bribe"}, "fee_kind"),
    ({"1-printed_fee": "a\tb"}, "printed_fee"),
])
def test_tier_grid_bad_input_is_400_and_changes_nothing(officer, draft, changes, field):
    address = url("compliance-edit-tiers", GEGA, draft.number, 43)
    before = list(FeeTier.objects.filter(option__version=draft, option__number=43).values_list(
        "order", "fee", "upper", "fee_kind", "printed_fee"))
    response = officer.post(address, grid_data(officer.get(address), **changes) | {"reason": "typo"})
    assert response.status_code == 400
    assert field in response.context["formset"].forms[1].errors
    assert "Nothing was saved" in response.content.decode()
    after = list(FeeTier.objects.filter(option__version=draft, option__number=43).values_list(
        "order", "fee", "upper", "fee_kind", "printed_fee"))
    assert after == before


def test_tier_grid_needs_a_reason(officer, draft):
    address = url("compliance-edit-tiers", GEGA, draft.number, 43)
    response = officer.post(address, grid_data(officer.get(address), **{"1-fee": "3.50"}) | {"reason": ""})
    assert response.status_code == 400 and "reason" in response.context["reason"].errors
    assert FeeTier.objects.get(option__version=draft, option__number=43, order=2).fee == Decimal("2.00")


def test_tier_grid_adds_removes_and_swaps_rows(officer, draft):
    address = url("compliance-edit-tiers", GEGA, draft.number, 43)
    page = officer.get(address)
    data = grid_data(page, **{"0-order": "2", "1-order": "1", "6-DELETE": "on", "7-order": "8",
                              "7-fee_kind": "player_dealer", "7-payer": "player_dealer",
                              "7-measure": "total_table_action", "7-lower": "101", "7-upper": "", "7-fee": "4",
                              "7-taken": "before_deal", "7-printed_bounds": "$101+", "7-printed_fee": "$4"})
    response = officer.post(address, data | {"reason": "Top band added per the Bureau"})
    assert response.status_code == 302, response.context and response.context["formset"].errors
    rows = list(FeeTier.objects.filter(option__version=draft, option__number=43).order_by("order")
                .values_list("order", "lower", "fee"))
    assert rows[0] == (1, Decimal("101.00"), Decimal("2.00")) and rows[1] == (2, Decimal("1.00"), Decimal("1.00"))
    assert rows[-1] == (8, Decimal("101.00"), Decimal("4.00")) and len(rows) == 7
    assert AuditLogEntry.objects.filter(action="fees.feetier.delete").exists()
    assert AuditLogEntry.objects.filter(action="fees.feetier.create").exists()


def test_published_versions_are_not_edited(officer):
    assert officer.get(url("compliance-edit-tiers", GEGA, 1, 43)).status_code == 409
    assert officer.post(url("compliance-publish", GEGA, 1), {"reason": "again"}).status_code == 409
    assert officer.post(url("compliance-discard", GEGA, 1)).status_code == 409
    assert ScheduleDocument.objects.get(code=GEGA).versions.get(number=1).is_published


def test_publish_page_shows_changes_findings_and_asks_for_the_reason(officer, people, floor, draft):
    tier = FeeTier.objects.get(option__version=draft, option__number=1, order=1)
    tier.fee = Decimal("0.50")
    tier.save()
    address = url("compliance-publish", GEGA, draft.number)
    page = officer.get(address)
    assert page.status_code == 200
    assert page.context["current"].number == 1
    assert [o.number for o in page.context["diff"].changed] == [1]
    preview = page.context["preview"]
    assert preview["as_of"] == datetime.date(2030, 1, 1)
    assert [r["posting"] for r in preview["postings"]] == [floor["clean"]]  # the table that uses GEGA-002888
    assert "Findings publishing would raise" in page.content.decode()
    refused = officer.post(address, {"effective_from": "2030-01-01", "reason": ""})
    assert refused.status_code == 400 and "reason" in refused.context["form"].errors
    draft.refresh_from_db()
    assert not draft.is_published
    done = officer.post(address, {"effective_from": "2030-02-01", "reason": "Approved by the Bureau"})
    assert done.status_code == 302
    draft.refresh_from_db()
    assert draft.status == "in_review" and draft.review_requested_by == people.compliance
    assert draft.effective_from == datetime.date(2030, 2, 1) and draft.publication_reason == "Approved by the Bureau"
    # The officer who asked cannot approve; GEGA-002888 is shared, so an administrator does.
    assert officer.post(address, {"step": "approve", "reason": "Looks right to me"}).status_code == 403
    draft.refresh_from_db()
    assert draft.status == "in_review"
    officer.force_login(people.admin)
    page = officer.get(address).content.decode()
    assert "Approve and publish version" in page and "Approved by the Bureau" in page
    assert officer.post(address, {"step": "approve", "reason": "Read the Bureau's letter"}).status_code == 302
    draft.refresh_from_db()
    assert draft.is_published and draft.published_by == people.admin and draft.reason  # the draft's reason kept
    assert AuditLogEntry.objects.filter(action="schedule.publish", object_id=str(draft.pk)).exists()


def test_a_retroactive_date_needs_the_confirmation_and_its_reason(officer, draft):
    change_a_fee(draft)
    address = url("compliance-publish", GEGA, draft.number)
    past = str(timezone.localdate() - datetime.timedelta(days=60))  # within RETROACTIVE_MAX_DAYS
    refused = officer.post(address, {"effective_from": past, "reason": "Late letter"})
    assert refused.status_code == 400 and "retroactive" in refused.context["form"].errors
    no_why = officer.post(address, {"effective_from": past, "reason": "Late letter", "retroactive": "on"})
    assert no_why.status_code == 400 and "retroactive_reason" in no_why.context["form"].errors
    draft.refresh_from_db()
    assert not draft.is_published and draft.effective_from == datetime.date(2030, 1, 1)
    done = officer.post(address, {"effective_from": past, "reason": "Late letter", "retroactive": "on",
                                  "retroactive_reason": "The Bureau's letter applies from its own date"})
    assert done.status_code == 302
    draft.refresh_from_db()
    assert draft.status == "in_review" and draft.retroactive and str(draft.effective_from) == past


def test_a_retroactive_confirmation_on_a_future_date_is_refused_and_changes_nothing(officer, draft):
    address = url("compliance-publish", GEGA, draft.number)
    refused = officer.post(address, {"effective_from": "2030-02-01", "reason": "Bureau letter", "retroactive": "on",
                                     "retroactive_reason": "No reason to reach back"})
    assert refused.status_code == 400
    assert refused.context["form"].errors["retroactive"] == [
        "A version effective on 2030-02-01, a future date, is not retroactive: untick the retroactive confirmation "
        f"(only a date before today, {timezone.localdate()}, needs it)."]
    assert "is not retroactive: untick the retroactive confirmation" in refused.content.decode()
    draft.refresh_from_db()
    assert (draft.status, draft.effective_from, draft.retroactive, draft.retroactive_reason) == (
        "draft", datetime.date(2030, 1, 1), False, "")


def test_discard_a_draft(officer, draft):
    address = url("compliance-discard", GEGA, draft.number)
    assert officer.get(address).status_code == 200
    assert officer.post(address)["Location"] == url("compliance-schedule", GEGA)
    assert not ScheduleVersion.objects.filter(pk=draft.pk).exists()
    assert AuditLogEntry.objects.filter(action="schedule.discard_draft").exists()


def test_validate_a_published_version_now(officer, people):
    response = officer.post(url("compliance-validate", GEGA, 1))
    assert response.status_code == 302
    run = ValidationRun.objects.get(kind=ValidationRun.Kind.SCHEDULE)
    assert run.schedule_version.number == 1 and run.started_by == people.compliance


# -- approvals, postings and overrides ------------------------------------------------------------------------------


def test_approvals_with_their_conditions(officer):
    page = officer.get(url("compliance-approvals"))
    rows = page.context["rows"]
    assert rows and all(r["approval"].jurisdiction.code == "CA" for r in rows)
    with_conditions = next(r for r in rows if r["conditions"])
    assert with_conditions["conditions"][0].text[:40] in page.content.decode()
    assert rows[0]["attention"]  # those needing attention first


def test_postings_show_errors_and_an_override_asked_for_and_approved_with_reasons(officer, client, people, floor):
    page = officer.get(url("compliance-postings"))
    rows = {r["posting"].pk: r for r in page.context["rows"]}
    assert rows[floor["broken"].pk]["blocked"] and not rows[floor["clean"].pk]["blocked"]
    assert url("compliance-override", floor["broken"].pk) in page.content.decode()
    address = url("compliance-override", floor["broken"].pk)
    assert officer.get(address).status_code == 200
    short = officer.post(address, {"reason": "ok"})
    assert short.status_code == 400 and not PrintOverride.objects.exists()
    clean = officer.post(url("compliance-override", floor["clean"].pk), {"reason": "No errors to override here"})
    assert clean.status_code == 400 and not PrintOverride.objects.exists()
    asked = officer.post(address, {"reason": "The Bureau is reviewing the option; print meanwhile"})
    assert asked.status_code == 302
    override = PrintOverride.objects.get(posting=floor["broken"])
    assert (override.requested_by, override.status) == (people.compliance, PrintOverride.Status.REQUESTED)
    page = officer.get(url("compliance-postings"))
    assert "The Bureau is reviewing the option" in page.content.decode()
    assert "yours: awaiting another officer" in page.content.decode()
    assert {r["posting"].pk: r for r in page.context["rows"]}[floor["broken"].pk]["blocked"]  # until approved

    client.force_login(people.compliance_2)
    page = client.get(url("compliance-postings")).content.decode()
    assert "Overrides awaiting a second officer (1)" in page and "Approve or refuse…" in page
    approved = client.post(address, {"reason": "Read the findings; agreed", "step": "approve"})
    assert approved.status_code == 302
    page = officer.get(url("compliance-postings"))
    assert not {r["posting"].pk: r for r in page.context["rows"]}[floor["broken"].pk]["blocked"]
    assert "Read the findings; agreed" in page.content.decode()


# -- query counts ---------------------------------------------------------------------------------------------------


def count_queries(client, address, **params):
    """A page's queries as every look but the first after a change asks them: the first judges the postings again
    and keeps the judgements (compliance.kept), a fixed few queries more whatever their number."""
    client.get(address, params)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(address, params).status_code == 200
    return len(captured)


def add_tables(people, n, start):
    for i in range(n):
        table = Table.objects.create(establishment=people.marysville, label=f"X-{start + i}", seats=6,
                                     game=Game.objects.get(slug="no-bust-21st-century-blackjack"))
        post(table, "no-bust-21st-century-blackjack", "CMV-CA-TABLE-ACTION")


def test_schedule_page_queries_are_few(officer, draft, django_assert_max_num_queries):
    officer.get(url("compliance-schedule", GEGA))  # the session and the like, once
    with django_assert_max_num_queries(12):
        officer.get(url("compliance-schedule", GEGA), {"option": 43})
    with django_assert_max_num_queries(12):
        officer.get(url("compliance-version", GEGA, draft.number), {"option": 1})


def test_findings_and_postings_pages_do_not_grow_with_rows(officer, people, floor, django_assert_max_num_queries):
    officer.get(url("compliance-findings"))
    with django_assert_max_num_queries(15):  # session, user, roles, room, kept state, counts, a page, awaiting (+ errors)
        officer.get(url("compliance-findings"))
    few = {name: count_queries(officer, url(name)) for name in ("compliance-findings", "compliance-postings",
                                                                "compliance", "compliance-schedules")}
    add_tables(people, 6, 100)
    officer.post(url("compliance-run"))
    # The first look after a run works the standing findings out again and keeps them (a fixed few queries more).
    with django_assert_max_num_queries(30):
        officer.get(url("compliance-findings"))
    many = {name: count_queries(officer, url(name)) for name in few}
    assert many == few
    assert len(officer.get(url("compliance-findings")).context["rows"]) > 6


# -- the comparison itself (plain Python) ---------------------------------------------------------------------------


def tier(order, lower, upper, fee, kind="player", measure="base_wager"):
    return {"order": order, "fee_kind": kind, "payer": "player", "measure": measure, "lower": Decimal(lower),
            "upper": None if upper is None else Decimal(upper), "fee": Decimal(fee), "taken": "before_deal",
            "printed_bounds": "", "printed_fee": f"${fee}", "note": ""}


def option(number, *tiers, **fields):
    return {"number": number, **{name: None for name in diff.OPTION_FIELDS}, **fields, "tiers": list(tiers)}


def test_diff_pairs_tiers_by_what_they_are():
    old = [option(1, tier(1, "1", "10", "1"), tier(2, "11", "50", "2"), tier(3, "51", None, "3")),
           option(2, tier(1, "1", None, "1")), option(3, tier(1, "1", None, "1"))]
    new = [option(1, tier(1, "1", "10", "1"), tier(2, "11", "50", "2.50"), tier(3, "51", "100", "3"),
                  tier(4, "101", None, "4")),
           option(2, tier(1, "1", None, "1"), max_wager_to=Decimal(500)), option(4, tier(1, "1", None, "1"))]
    result = diff.diff_versions(old, new)
    by_number = {o.number: o for o in result.options}
    first = by_number[1]
    assert [t.status for t in first.tiers] == ["same", "changed", "changed", "added"]
    assert first.tiers[1].fields == ("fee", "printed_fee") and first.tiers[2].fields == ("upper",)
    assert by_number[2].status == "changed" and by_number[2].changed_fields == ("max_wager_to",)
    assert by_number[3].status == "removed" and by_number[4].status == "added"
    assert result.counts() == {"options_changed": 2, "options_added": 1, "options_removed": 1, "tiers_changed": 2,
                               "tiers_added": 1, "tiers_removed": 0}
    assert "Option 1, player fee 11.00–50.00: amount 2.00 → 2.50; fee as printed $2 → $2.50." in result.lines()
    assert diff.diff_versions(old, old).is_empty


def test_diff_renumbering_alone_is_no_change():
    old = [option(1, tier(1, "1", "10", "1"), tier(2, "11", None, "2"))]
    new = [option(1, tier(5, "1", "10", "1"), tier(9, "11", None, "2"))]
    assert diff.diff_versions(old, new).is_empty


def test_a_tier_printed_without_bounds_reads_as_its_fee_alone(officer):
    """GEGA-002888 option 1 prints its player fee "$0" once, with no bounds: "As printed" says "$0", not "—: $0"."""
    page = officer.get(reverse("console:compliance-version", args=["casino-marysville", "GEGA-002888", 1]))
    html = page.content.decode()
    tier = FeeTier.objects.filter(option__version__document__code="GEGA-002888", option__version__number=1,
                                  option__number=1, printed_bounds="").first()
    assert tier is not None and tier.printed_fee == "$0"
    assert f'<td data-label="As printed">{tier.printed_fee}</td>' in html
    assert ">—: " not in html and '<td data-label="As printed">: ' not in html


def test_a_draft_that_changes_nothing_cannot_be_sent_for_approval(officer, draft):
    """Issue 42: a draft with no change was sent for approval without a word."""
    address = url("compliance-publish", GEGA, draft.number)
    page = officer.get(address).content.decode()
    assert 'id="nothing-changed"' in page and "publishing it would change nothing" in page
    assert 'value="request"' not in page
    refused = officer.post(address, {"effective_from": "2030-01-01", "reason": "Bureau letter"})
    assert refused.status_code == 400
    assert "Nothing changed from version 1" in " ".join(refused.context["form"].non_field_errors())
    draft.refresh_from_db()
    assert draft.status == "draft"
    change_a_fee(draft)
    assert 'value="request"' in officer.get(address).content.decode()
