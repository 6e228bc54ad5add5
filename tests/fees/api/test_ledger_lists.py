"""Lists of the ledger never read the whole ledger (issue 32: with 2.5 million entries GET ledger/entries/ ran 30 s
and its worker was killed): a list names its gaming days, at most LEDGER_LIST_MAX_DAYS of them; it pages by key
(gaming day, table, id), counting nothing; and a query the database stops (statement_timeout) answers 503 in the
API's format, or an error page, never a 500."""

import datetime
from decimal import Decimal
from urllib.parse import urlsplit

import jsonschema
import pytest
from django.db import OperationalError, connection, transaction
from django.db.backends.signals import connection_created
from django.db.models import IntegerField
from django.db.models.expressions import RawSQL
from django.test.utils import CaptureQueriesContext
from drf_spectacular.generators import SchemaGenerator

from cardroom import timeouts
from cardroom.api.schema import ERROR_SCHEMA
from fees.api import ledger as ledger_api
from fees.models import CollectionEntry, RoundOfPlay, TablePosting
from tests.factories import make_posted_table, make_table

pytestmark = pytest.mark.django_db

ENTRIES = "/api/v1/ledger/entries/"
ROUNDS = "/api/v1/ledger/rounds/"
LA = datetime.timezone(datetime.timedelta(hours=-8))
# statement_timeout is PostgreSQL's: these run in bin/test's PostgreSQL stage with the other services tests, and fail
# (never skip) anywhere else.
postgresql_only = pytest.mark.services


def add_entry(table, day, n):
    moment = datetime.datetime.combine(day, datetime.time(12), tzinfo=LA)
    return CollectionEntry.objects.create(
        idempotency_key=f"k-{table.pk}-{day}-{n}", establishment=table.establishment, table=table, gaming_day=day,
        reference=f"H-{n}", collected_at=moment, payer="player", fee_kind="player", amount=Decimal("1.00"),
        currency="USD", recorded_at=moment)


def refused(answer, status=400):
    assert answer.status_code == status, (answer.status_code, answer.content[:300])
    jsonschema.validate(answer.json(), ERROR_SCHEMA)
    return answer.json()["error"]


def walk(api, address, link="next"):
    """Every page from ``address`` on along ``link``: the rows' ids page by page, and the last page."""
    pages = []
    while True:
        answer = api.get(address)
        assert answer.status_code == 200, answer.json()
        body = answer.json()
        assert set(body) == {"next", "previous", "results", "closed_months"}
        pages.append([row["id"] for row in body["results"]])
        if body[link] is None:
            return pages, body
        parts = urlsplit(body[link])
        address = f"{parts.path}?{parts.query}"


@pytest.fixture
def three_days(people):
    """Entries on 3, 4 and 5 March at two tables, written out of order (the 5th first), several sharing their
    day and table: what the pages must walk in (gaming day, table, id) order."""
    one, two = make_table(label="1"), make_table(label="2")
    days = [datetime.date(2026, 3, d) for d in (5, 3, 4)]
    for day in days:
        for n in range(4):
            add_entry(two, day, n)
            add_entry(one, day, n)
    add_entry(one, datetime.date(2026, 3, 6), 0)  # outside the range listed
    return one, two


# -- the days a list names ------------------------------------------------------------------------------------

@pytest.mark.parametrize("url", [ENTRIES, ROUNDS])
def test_a_list_without_its_gaming_days_is_refused_saying_which_and_how_many(api, people, url):
    api.force_authenticate(people.compliance)
    for params in ({}, {"page_size": 1}, {"table": 1, "reference": "H-1"}, {"gaming_day": ""}):
        error = refused(api.get(url, params))
        assert error["message"].startswith("gaming_day_from: a list of "), error
        assert "gaming_day_to" in error["message"] and "at most 31 days" in error["message"]
        assert list(error["details"]) == ["gaming_day_from"]


@pytest.mark.parametrize("url", [ENTRIES, ROUNDS])
def test_a_range_wider_than_the_limit_or_half_given_is_refused(api, people, url, settings):
    api.force_authenticate(people.regulator_ca)
    error = refused(api.get(url, {"gaming_day_from": "2026-03-01", "gaming_day_to": "2026-04-01"}))
    assert error["message"] == ("gaming_day_to: must be at most 31 days from gaming_day_from, both included: "
                                "2026-03-01 to 2026-04-01 is 32 days.")
    assert api.get(url, {"gaming_day_from": "2026-03-01", "gaming_day_to": "2026-03-31"}).status_code == 200
    settings.LEDGER_LIST_MAX_DAYS = 7
    assert "at most 7 days" in refused(api.get(url, {"gaming_day_from": "2026-03-01",
                                                     "gaming_day_to": "2026-03-08"}))["message"]
    assert "is required with gaming_day_from" in refused(api.get(url, {"gaming_day_from": "2026-03-01"}))["message"]
    assert "is required with gaming_day_to" in refused(api.get(url, {"gaming_day_to": "2026-03-01"}))["message"]
    assert "must not be before gaming_day_from" in refused(
        api.get(url, {"gaming_day_from": "2026-03-02", "gaming_day_to": "2026-03-01"}))["message"]
    # One day needs no range; a malformed day is refused as before.
    assert api.get(url, {"gaming_day": "2026-03-02"}).status_code == 200
    assert "gaming_day" in refused(api.get(url, {"gaming_day": "2026-13-01"}))["details"]


def test_one_entry_by_its_id_needs_no_days(api, people, three_days):
    api.force_authenticate(people.floor)
    entry = CollectionEntry.objects.first()
    assert api.get(f"{ENTRIES}{entry.pk}/").json()["id"] == entry.pk


# -- pages by key -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("page_size", [1, 3, 4, 5, 24, 100])
def test_pages_walk_every_row_of_the_range_once_in_key_order_both_ways(api, people, three_days, page_size):
    api.force_authenticate(people.compliance)
    days = f"gaming_day_from=2026-03-03&gaming_day_to=2026-03-05&page_size={page_size}"
    expected = list(CollectionEntry.objects.filter(gaming_day__lte=datetime.date(2026, 3, 5))
                    .order_by("gaming_day", "table_id", "id").values_list("id", flat=True))
    assert len(expected) == 24
    pages, last = walk(api, f"{ENTRIES}?{days}")
    assert [row for page in pages for row in page] == expected
    assert all(len(page) == page_size for page in pages[:-1]) and 0 < len(pages[-1]) <= page_size
    # Back from the last page along the previous links: the same pages, in reverse.
    if last["previous"] is None:
        assert len(pages) == 1
        return
    parts = urlsplit(last["previous"])
    back, first = walk(api, f"{parts.path}?{parts.query}", link="previous")
    assert back == pages[-2::-1] and first["next"] is not None


def test_pages_keep_their_filters_and_key_order_on_rounds(api, people):
    table = make_posted_table(people.marysville, label="R-1")
    posting = TablePosting.objects.get(table=table)
    for day, reference in ((4, "B"), (3, "C"), (3, "A"), (4, "A")):
        played = datetime.datetime(2026, 3, day, 12, tzinfo=LA)
        RoundOfPlay.objects.create(establishment=table.establishment, table=table, gaming_day=played.date(),
                                   reference=reference, played_at=played, facts={}, posting=posting,
                                   schedule_code="GEGA-002888", schedule_version=1, option_number=43,
                                   expected_total=Decimal("0.00"), currency="USD")
    api.force_authenticate(people.regulator_ca)
    pages, _ = walk(api, f"{ROUNDS}?gaming_day_from=2026-03-01&gaming_day_to=2026-03-31&page_size=1&table={table.pk}")
    rows = RoundOfPlay.objects.in_bulk([page[0] for page in pages])
    assert [(rows[page[0]].gaming_day.day, rows[page[0]].reference) for page in pages] == [
        (3, "C"), (3, "A"), (4, "B"), (4, "A")]  # by day, then in the order recorded


def test_a_list_counts_nothing(api, people, three_days):
    api.force_authenticate(people.compliance)
    days = {"gaming_day_from": "2026-03-03", "gaming_day_to": "2026-03-05", "page_size": 5}
    for url in (ENTRIES, ROUNDS):
        with CaptureQueriesContext(connection) as queries:
            first = api.get(url, days).json()
            if first["next"]:
                parts = urlsplit(first["next"])
                assert api.get(f"{parts.path}?{parts.query}").status_code == 200
        assert queries.captured_queries
        assert not [q["sql"] for q in queries.captured_queries if "count(" in q["sql"].lower()]
        assert "count" not in first


@pytest.mark.parametrize("cursor", ["bogus", "cD0yMDI2LTAzLTAz",  # p=2026-03-03: too few parts
                                    "cD0yMDI2LTAzLTAzLDEsOTk5OTk5OTk5OTk5OTk5OTk5OTk5OQ==",  # an id beyond bigint
                                    "cD14LDEsMQ=="])  # p=x,1,1
def test_a_cursor_that_is_not_a_links_is_404_in_the_error_format(api, people, three_days, cursor):
    api.force_authenticate(people.compliance)
    error = refused(api.get(ENTRIES, {"gaming_day": "2026-03-03", "cursor": cursor}), status=404)
    assert error["message"] == "Invalid cursor"


def test_the_schema_describes_the_lists_as_they_are():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path in (ENTRIES, ROUNDS):
        operation = schema["paths"][path]["get"]
        parameters = {p["name"]: p for p in operation["parameters"]}
        assert {"cursor", "page_size", "gaming_day", "gaming_day_from", "gaming_day_to"} <= set(parameters)
        assert "page" not in parameters and "ordering" not in parameters
        assert parameters["page_size"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 500, "default": 50}
        assert "at most 31 days" in parameters["gaming_day_from"]["description"]
        page = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        assert set(schema["components"]["schemas"][page]["properties"]) == {"next", "previous", "results"}
        assert "503" in operation["responses"]
    reconciliations = {p["name"] for p in schema["paths"]["/api/v1/ledger/reconciliations/"]["get"]["parameters"]}
    assert {"page", "ordering"} <= reconciliations  # a small table: numbered pages, counted, as before


# -- a query the database stops ---------------------------------------------------------------------------------

def test_a_stopped_query_is_told_apart_from_other_database_errors():
    class Canceled(Exception):
        sqlstate = "57014"

    stopped = OperationalError("canceling statement due to statement timeout")
    stopped.__cause__ = Canceled()
    assert timeouts.timed_out(stopped)
    assert not timeouts.timed_out(OperationalError("server closed the connection unexpectedly"))
    assert not timeouts.timed_out(Canceled())


def slow(monkeypatch, viewset):
    """Each row of ``viewset``'s list takes a second to read (pg_sleep in its query)."""
    original = viewset.get_queryset

    def get_queryset(self):
        return original(self).annotate(slow=RawSQL("(SELECT 1 FROM pg_sleep(1))", [], output_field=IntegerField()))

    monkeypatch.setattr(viewset, "get_queryset", get_queryset)


@postgresql_only
def test_a_list_the_database_stops_answers_503_in_the_api_format(api, people, three_days, monkeypatch, settings):
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's services stage)"
    settings.STATEMENT_TIMEOUT_MS = 300
    slow(monkeypatch, ledger_api.CollectionEntryViewSet)
    api.force_authenticate(people.compliance)
    with connection.cursor() as cursor:  # for this test's transaction only, as a web connection has it
        cursor.execute("SET LOCAL statement_timeout = 300")
    error = refused(api.get(ENTRIES, {"gaming_day": "2026-03-03"}), status=503)
    assert error["code"] == "timeout"
    assert error["message"].startswith("The database took too long over this request and stopped it (one query "
                                       "may run for 0.3 s here). Ask for less at once")


@postgresql_only
def test_a_page_the_database_stops_answers_a_503_page(client, people, monkeypatch):
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's services stage)"
    from console.views import floor

    def stuck(*args, **kwargs):
        # In a savepoint, so that the page saying so can still read the database in this test's transaction.
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 50")
            cursor.execute("SELECT pg_sleep(1)")

    monkeypatch.setattr(floor, "_floor_rows", stuck)
    client.force_login(people.floor)
    answer = client.get("/floor/casino-marysville/", HTTP_ACCEPT="text/html")
    assert answer.status_code == 503 and answer["Content-Type"].startswith("text/html")
    page = answer.content.decode()
    assert "Service Unavailable" in page and "The database took too long over this request" in page


@postgresql_only
def test_a_web_process_sets_its_connections_up(settings):
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's services stage)"
    import project.wsgi  # noqa: F401  (what gunicorn and runserver load)

    assert connection_created.disconnect(dispatch_uid="cardroom.timeouts")  # it was connected: now no longer
    settings.STATEMENT_TIMEOUT_MS = 1234
    timeouts.set_timeout(None, connection)  # as on a new connection; this test's transaction undoes it
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('statement_timeout'), current_setting('jit')")
        assert cursor.fetchone() == ("1234ms", "off")
