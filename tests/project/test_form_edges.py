"""Edges never break, on every form (issue 25): each field that takes a date, a time, an id or a choice, at both
ends of what it accepts and one step beyond each, a local time the room's clocks skip or show twice (the rooms are
in America/Los_Angeles), ids far beyond any row or of another room's row, a choice not offered. Each answers the
page again (200 or 400; 404 for an address that names no row of this room) with a message saying what is wrong,
never a 500, and changes nothing (the rows and audit entries counted before and after)."""

import pytest

from cardroom.models import AuditLogEntry, ConditionFulfilment, Job, Table
from compliance.models import Finding
from fees.models import FeeTier, Interpretation, ScheduleVersion, TablePosting
from signage.models import SignPrint

from tests import factories

pytestmark = pytest.mark.django_db

ROOM = "/compliance/casino-marysville"
GEGA = f"{ROOM}/schedules/GEGA-002888"
BIG, HUGE = str(10**12), str(2**63)  # beyond any row; beyond what a bigint holds

RANGE = "Must be between 1900-01-01 and 2199-12-31, not &#x27;{}&#x27;."
NO_DAY = "Must be a date written YYYY-MM-DD, not &#x27;{}&#x27; (no such day)."
NOT_DAY = "Must be a date written YYYY-MM-DD, not &#x27;{}&#x27;."
SKIPPED = ("2:30 on 8 Mar 2026 does not exist in Pacific time (clocks went forward from PST to PDT): give a time "
           "before or after the change.")
TWICE = "1:30 on 1 Nov 2026 happens twice in Pacific time (clocks went back from PDT to PST)."


def day_edges():
    """(value, message) for a day field: the two ends beyond the range, far beyond, no such day."""
    return [("1899-12-31", RANGE.format("1899-12-31")), ("2200-01-01", RANGE.format("2200-01-01")),
            ("0001-01-01", RANGE.format("0001-01-01")), ("9999-12-31", RANGE.format("9999-12-31")),
            ("10000-01-01", NOT_DAY.format("10000-01-01")), ("2026-02-30", NO_DAY.format("2026-02-30"))]


@pytest.fixture
def world(people, draft):
    """Table 7 at Casino Marysville (posted, so the floor offers to print); table 1 at the WA room (another room,
    another jurisdiction); the draft v2."""
    from cardroom.models import ApprovalCondition

    mine = factories.make_posted_table(people.marysville)
    other = factories.make_table(people.wa_room, label="1")
    here = ApprovalCondition.objects.filter(approval__jurisdiction=people.marysville.jurisdiction).first()
    away = ApprovalCondition.objects.exclude(approval__jurisdiction=people.marysville.jurisdiction).first()
    option = draft.options.get(number=1)
    return {"table": mine.pk, "other_table": other.pk, "draft": draft.number,
            "condition": here.pk if here else None, "other_condition": away.pk if away else None,
            "option": option, "other_tier": FeeTier.objects.exclude(option=option).first().pk}


def counts():
    """What a refused form must leave as it was."""
    return {model.__name__: model.objects.count() for model in (
        AuditLogEntry, ScheduleVersion, Interpretation, ConditionFulfilment, Job, TablePosting, SignPrint, FeeTier,
        Table)} | {"acknowledged": Finding.objects.filter(acknowledged_at__isnull=False).count(),
                   "in review": ScheduleVersion.objects.filter(status=ScheduleVersion.Status.IN_REVIEW).count()}


def fill(value, world):
    return value.format(**world) if isinstance(value, str) else [v.format(**world) for v in value]


# -- the cases: (id, role, method, url, base data, field, value, status, message) ----------------------------------

PROPOSE = {"step": "propose", "place": "1:", "field": "basis", "choice": "per_hand", "statement": "Read per hand.",
           "decided_on": "2026-01-05", "citation": "Bureau letter of 5 January 2026"}
CASES = []


def case(name, role, method, url, base, field, value, status, message):
    CASES.append(pytest.param(role, method, url, base, field, value, status, message, id=name))


for value, message in day_edges():
    case(f"timeline as_of {value}", "compliance", "get", f"{GEGA}/", {}, "as_of", value, 400, message)
    case(f"timeline known_at {value}", "compliance", "get", f"{GEGA}/", {"as_of": "2026-01-01"}, "known_at", value,
         400, message)
    case(f"impact from {value}", "compliance", "get", f"{GEGA}/versions/1/impact/", {"to": "2026-01-31"}, "from",
         value, 400, message)
    case(f"new draft effective_from {value}", "compliance", "post", f"{GEGA}/versions/1/new-draft/",
         {"reason": "Bureau letter"}, "effective_from", value, 400, message)
    case(f"publish effective_from {value}", "compliance", "post", f"{GEGA}/versions/{{draft}}/publish/",
         {"reason": "Bureau letter"}, "effective_from", value, 400, message)
    case(f"condition met_on {value}", "compliance", "post", f"{ROOM}/approvals/conditions/{{condition}}/met/",
         {"c{condition}-evidence": "Letter 12"}, "c{condition}-met_on", value, 400, message)
    case(f"reading decided_on {value}", "compliance", "post", f"{GEGA}/versions/{{draft}}/interpretations/",
         PROPOSE, "decided_on", value, 400, message)
    case(f"posted-at day {value}", "floor", "get", "/floor/casino-marysville/posted/",
         {"table": "{table}", "time": "12:00"}, "day", value, 400, message)
    case(f"export start {value}", "regulator_ca", "post", "/regulator/export/",
         {"what": "establishment:casino-marysville", "end": "2026-01-31"}, "start", value, 400, message)
    case(f"variance from {value}", "compliance", "get", f"{ROOM}/variance/", {"day_to": "2026-11-06"}, "day_from",
         value, 400, message)
    case(f"regulator variance to {value}", "regulator_ca", "get", "/regulator/casino-marysville/variance/",
         {"day_from": "2026-11-01"}, "day_to", value, 400, message)

CASES += [
    # the ends of the range are accepted
    pytest.param("compliance", "get", f"{GEGA}/", {}, "as_of", "1900-01-01", 200, "", id="timeline as_of first day"),
    pytest.param("compliance", "get", f"{GEGA}/", {}, "as_of", "2199-12-31", 200, "", id="timeline as_of last day"),
    pytest.param("compliance", "get", f"{GEGA}/versions/1/impact/", {"from": "2199-12-01"}, "to", "2199-12-31", 200,
                 "", id="impact to the last day"),
    pytest.param("compliance", "get", f"{ROOM}/variance/", {"day_from": "2199-12-01"}, "day_to", "2199-12-31", 200,
                 "", id="variance to the last day"),
    pytest.param("compliance", "get", f"{ROOM}/variance/", {"day_to": "1900-01-31"}, "day_from", "1900-01-01", 200,
                 "", id="variance from the first day"),
    pytest.param("compliance", "get", f"{GEGA}/versions/1/impact/", {"from": "1900-01-01"}, "to", "2199-12-31", 400,
                 "The period from 1900-01-01 to 2199-12-31 is 109573 days long; it can be at most 92 days.",
                 id="impact from first to last day"),
    # local times the room's clocks skip or show twice
    pytest.param("floor", "get", "/floor/casino-marysville/posted/", {"table": "{table}", "day": "2026-03-08"},
                 "time", "02:30", 400, SKIPPED, id="posted-at a time that does not exist"),
    pytest.param("floor", "get", "/floor/casino-marysville/posted/", {"table": "{table}", "day": "2026-11-01"},
                 "time", "01:30", 400, TWICE + " Give a time before or after the change.",
                 id="posted-at a time that happens twice"),
    pytest.param("floor", "get", "/floor/casino-marysville/posted/", {"table": "{table}", "day": "2026-11-01"},
                 "time", "00:59", 200, "", id="posted-at the minute before the change"),
    # ids far beyond any row, of another room's row, not an id
    *[pytest.param("floor", "get", "/floor/casino-marysville/posted/", {"day": "2026-03-03", "time": "12:00"},
                   "table", value, 400, f"Choose one of this room&#x27;s tables ({shown} is not one).",
                   id=f"posted-at table {name}")
      for name, value, shown in (("of another room", "{other_table}", "{other_table}"), ("10**12", BIG, BIG),
                                 ("2**63", HUGE, HUGE), ("not a number", "seven", "seven"))],
    *[pytest.param("floor", "post", "/floor/casino-marysville/print/", {"layout": "letter"}, "tables", value, 400,
                   message, id=f"print tables {name}")
      for name, value, message in (
          ("of another room", "{other_table}", "Not tables of Casino Marysville: {other_table}. Nothing was printed."),
          ("10**12", BIG, f"Not tables of Casino Marysville: {BIG}. Nothing was printed."),
          ("2**63", HUGE, f"Not tables of Casino Marysville: {HUGE}. Nothing was printed."))],
    *[pytest.param("compliance", "post", f"{GEGA}/versions/{{draft}}/interpretations/", {"step": step, "r-reason":
                   "Because"}, "reading", value, 400,
                   f"GEGA-002888 version 2 has no reading &#x27;{value}&#x27;: it may be another version&#x27;s, or "
                   "the page is out of date. Nothing was changed.", id=f"reading {step} {value}")
      for step, value in (("approve", BIG), ("refuse", HUGE), ("withdraw", "x"))],
    # the admin's own forms: a local moment in one box, a table chosen by id
    *[pytest.param("admin", "get", "/admin/fees/tableposting/lookup/", {"table": "{table}"}, "at", value, 200, message,
                   id=f"admin lookup at {value}")
      for value, message in (
          ("2026-03-08 02:30", SKIPPED), ("2026-11-01 01:30", TWICE + " Write it with its offset: 2026-11-01 "
                                          "01:30-07:00 for the first (PDT), 2026-11-01 01:30-08:00 for the second "
                                          "(PST)."),
          ("2199-12-31 23:59", "Must be between 1900-01-01 00:00 and 2199-12-31 23:59 UTC, not 2199-12-31 23:59 "
                               "Pacific time."),
          ("0001-01-01 00:00", "Must be between 1900-01-01 00:00 and 2199-12-31 23:59 UTC, not 0001-01-01 00:00 "
                               "Pacific time."),
          ("2026-02-30 10:00", "Must be a date and time written YYYY-MM-DD HH:MM (e.g. 2026-03-03 02:30), not "
                               "&#x27;2026-02-30 10:00&#x27;."),
          ("10000-01-01 00:00", "Must be a date and time written YYYY-MM-DD HH:MM (e.g. 2026-03-03 02:30), not "
                                "&#x27;10000-01-01 00:00&#x27;."))],
    pytest.param("admin", "get", "/admin/fees/tableposting/lookup/", {"table": "{table}"}, "at",
                 "2026-11-01 01:30-08:00", 200, "at 2026-11-01 01:30 PST",
                 id="admin lookup at the second 01:30, with its offset"),
    *[pytest.param("admin", "get", "/admin/fees/tableposting/lookup/", {"at": "2026-03-03 12:00"}, "table", value,
                   200, "Select a valid choice. That choice is not one of the available choices.",
                   id=f"admin lookup table {name}") for name, value in (("10**12", BIG), ("2**63", HUGE))],
    pytest.param("compliance", "get", f"{GEGA}/compare/", {"to": "1"}, "from", "99", 400,
                 "Select a valid choice. 99 is not one of the available choices.", id="compare a version not offered"),
    pytest.param("compliance", "get", f"{GEGA}/compare/", {"to": "1"}, "from", HUGE, 400,
                 f"Select a valid choice. {HUGE} is not one of the available choices.", id="compare version 2**63"),
    pytest.param("compliance", "post", f"{GEGA}/versions/{{draft}}/interpretations/", PROPOSE, "place", "99:", 400,
                 "Select a valid choice. 99: is not one of the available choices.", id="reading of no such option"),
    pytest.param("compliance", "post", f"{GEGA}/versions/{{draft}}/interpretations/", PROPOSE, "field", "colour",
                 400, "Select a valid choice. colour is not one of the available choices.", id="reading no such field"),
    pytest.param("compliance", "post", f"{GEGA}/versions/{{draft}}/interpretations/", PROPOSE, "choice", "purple",
                 400, "Select a valid choice. purple is not one of the available choices.",
                 id="reading a value not offered"),
    pytest.param("compliance", "post", f"{GEGA}/versions/{{draft}}/interpretations/", PROPOSE, "source", "nope",
                 400, "Select a valid choice. That choice is not one of the available choices.",
                 id="reading of no such source"),
    pytest.param("compliance", "get", f"{ROOM}/findings/", {}, "severity", "fatal", 400,
                 "Select a valid choice. fatal is not one of the available choices.", id="inbox severity not offered"),
    pytest.param("regulator_ca", "get", "/regulator/casino-marysville/", {}, "month", "1899-12", 400,
                 "Give a month between 1900-01 and 2199-12.", id="regulator month before the range"),
    pytest.param("regulator_ca", "get", "/regulator/casino-marysville/", {}, "month", "2200-01", 400,
                 "Give a month between 1900-01 and 2199-12.", id="regulator month after the range"),
    pytest.param("regulator_ca", "get", "/regulator/casino-marysville/", {}, "month", "2199-12", 200, "",
                 id="regulator last month"),
    pytest.param("regulator_ca", "post", "/regulator/export/", {"start": "2026-01-01", "end": "2026-01-31"}, "what",
                 "establishment:test-wa-room", 400,
                 "Select a valid choice. establishment:test-wa-room is not one of the available choices.",
                 id="export of another jurisdiction's room"),
    pytest.param("regulator_ca", "post", "/regulator/export/", {"what": "establishment:casino-marysville",
                                                                "start": "2199-12-01"}, "end", "2199-12-31", 400,
                 "The period ends in the future (2199-12-31).", id="export ending far ahead"),
]


@pytest.mark.parametrize("role, method, url, base, field, value, status, message", CASES)
def test_a_field_at_its_edge_answers_the_page_with_a_message_and_changes_nothing(
        client, people, world, role, method, url, base, field, value, status, message):
    client.force_login(getattr(people, role))
    data = {fill(k, world): fill(v, world) for k, v in base.items()} | {fill(field, world): fill(value, world)}
    before = counts()
    answer = getattr(client, method)(fill(url, world), data)
    page = answer.content.decode()
    assert answer.status_code == status, page[:2000]
    assert fill(message, world) in page
    assert counts() == before


# -- addresses that name no row of this room: 404 with a message ------------------------------------------------

NOTHING = "There is nothing at this address: it may have been removed, or be another room&#x27;s."


@pytest.mark.parametrize("role, method, url, message", [
    ("compliance", "post", f"{ROOM}/approvals/conditions/{BIG}/met/", NOTHING),
    ("compliance", "post", f"{ROOM}/approvals/conditions/{{other_condition}}/met/", NOTHING),
    ("compliance", "get", f"{ROOM}/findings/{HUGE}/", NOTHING),
    ("compliance", "post", f"{ROOM}/postings/{BIG}/override/", NOTHING),
    ("compliance", "get", f"{GEGA}/versions/{BIG}/", "No version 1000000000000."),
    ("floor", "get", "/floor/casino-marysville/tables/{other_table}/", NOTHING),
    ("floor", "get", f"/floor/casino-marysville/tables/{HUGE}/", NOTHING),
])
def test_an_address_naming_no_row_of_the_room_is_not_found(client, people, world, role, method, url, message):
    client.force_login(getattr(people, role))
    before = counts()
    answer = getattr(client, method)(fill(url, world), {}, headers={"accept": "text/html"})
    assert answer.status_code == 404
    assert message in answer.content.decode()
    assert counts() == before
