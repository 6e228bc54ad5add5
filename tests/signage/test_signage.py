"""Table postings and their printed signs, checked against the data they are printed from (issue 5)."""

import datetime
import re
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command

from cardroom.models import AuditLogEntry, Game, Job, Table
from fees.models import FeeOption, TablePosting
from signage import content, printing, render
from signage.models import SignPrint
from signage.postings import PrintBlocked

from tests import signs
from tests.factories import post_as

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
MARCH_1 = datetime.datetime(2026, 3, 1, 8, 0, tzinfo=LA)


def body(tbl, **changes):
    data = {"table": tbl.pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5", "max_wager": "500",
            "effective_from": MARCH_1.isoformat(), "bonus_limits": [{"bet": "Fortune Bonus Bet", "minimum": "1",
                                                                       "maximum": "25"}]}
    data.update(changes)
    return data


def post(table, people, **changes):
    """Posted by the floor supervisor through the service (factories.post_as)."""
    return post_as(people.floor, body(table, **changes))[0]


def option_of(posting):
    version = posting.schedule.version_as_of(posting.effective_from.date())
    return version.options.get(number=posting.option_number)


# -- postings ---------------------------------------------------------------------------------------------------


def test_posting_through_the_api_is_validated_when_saved(api, people, table, clock):
    clock(MARCH_1 - datetime.timedelta(hours=1))
    api.force_login(people.floor)
    answer = api.post("/api/v1/postings/", body(table), format="json")
    assert answer.status_code == 201, answer.json()
    data = answer.json()
    assert (data["schedule"], data["option_number"], data["min_wager"], data["max_wager"]) == (
        "GEGA-002888", 1, "5.00", "500.00")
    assert data["bonus_limits"] == [{"bet": "Fortune Bonus Bet", "minimum": "1.00", "maximum": "25.00",
                                     "paytable": None}]
    posting = TablePosting.objects.get(pk=data["id"])
    run = posting.validation_runs.get()
    assert data["validation"]["run"] == run.pk and data["validation"]["errors"] == run.errors == 0
    assert {key: data["printing"][key] for key in ("blocked", "override", "pending_override", "prints")} == {
        "blocked": False, "override": None, "pending_override": None, "prints": 0}
    assert AuditLogEntry.objects.filter(action="posting.create", object_id=str(posting.pk)).exists()


@pytest.mark.parametrize("changes, message", [
    ({"option": 50}, "GEGA-002888 version 1 has no option 50 (it has options 1-49)"),
    ({"schedule": "NOPE"}, "Unknown schedule 'NOPE'"),
    ({"min_wager": "abc"}, "min_wager"),
    ({"max_wager": 12.5}, "max_wager"),
    ({"seats": 9}, "seats must be at most 7, not 9"),
    ({"effective_from": "2026-03-01 08:00"}, "effective_from must include its time zone offset"),
    ({"colour": "red"}, "unknown field(s): colour"),
    ({"effective_from": "2026-02-28T06:00:00-08:00"}, "is in the past"),
    ({"effective_from": "2027-03-02T08:00:00-08:00"}, "more than a year ahead"),
    ({"bonus_limits": [{"bet": "Fortune Bonus Bet", "maximum": "5", "minimum": "10"}]}, "is above the maximum"),
    ({"table": 10**9}, "No table 1000000000 among the tables you may post"),
])
def test_bad_postings_are_refused_and_change_nothing(api, people, table, changes, message, clock):
    clock(MARCH_1 - datetime.timedelta(hours=1))
    api.force_login(people.floor)
    before = (TablePosting.objects.count(), AuditLogEntry.objects.count())
    answer = api.post("/api/v1/postings/", body(table, **changes), format="json")
    assert answer.status_code == 400
    assert message in answer.json()["error"]["message"]
    assert (TablePosting.objects.count(), AuditLogEntry.objects.count()) == before


def test_a_posting_never_rewrites_the_past(api, people, table, clock):
    post(table, people)
    clock(datetime.datetime(2026, 1, 31, tzinfo=LA))  # 1 February is still ahead, but before the latest posting
    api.force_login(people.floor)
    answer = api.post("/api/v1/postings/", body(table, effective_from="2026-02-01T08:00:00-08:00"), format="json")
    assert answer.status_code == 400
    assert "must be after table 7's latest posting" in answer.json()["error"]["message"]


def test_regulators_and_outsiders_do_not_post(api, people, table):
    # Who posts no table is refused (403); an officer elsewhere names a table they cannot see, which is bad input
    # like any unknown table (400), not a hint that it exists.
    for user, status, message in ((people.regulator_ca, 403, "Only floor supervisors and compliance officers"),
                                  (people.outsider, 403, "Only floor supervisors and compliance officers"),
                                  (people.compliance_wa, 400, "among the tables you may post")):
        api.force_login(user)
        answer = api.post("/api/v1/postings/", body(table), format="json")
        assert answer.status_code == status and message in answer.json()["error"]["message"], (user, answer.json())
    assert not TablePosting.objects.filter(table=table).exists()


def test_what_was_posted_at_table_7_at_0230_on_3_march(api, people, table):
    first = post(table, people)
    second = post(table, people, option=2, effective_from="2026-03-03T02:00:00-08:00")
    api.force_login(people.regulator_ca)
    at = "2026-03-03T02:30:00-08:00"
    answer = api.get(f"/api/v1/tables/{table.pk}/posting", {"at": at})
    assert answer.status_code == 200 and answer.json()["id"] == second.pk
    answer = api.get(f"/api/v1/tables/{table.pk}/posting", {"at": "2026-03-03T01:59:00-08:00"})
    assert answer.json()["id"] == first.pk and answer.json()["superseded_by"]["id"] == second.pk
    assert api.get(f"/api/v1/tables/{table.pk}/posting", {"at": "2026-02-28T00:00:00-08:00"}).status_code == 404
    assert api.get(f"/api/v1/tables/{table.pk}/posting", {"at": "yesterday"}).status_code == 400
    listed = api.get("/api/v1/postings/", {"establishment": "casino-marysville", "table": "7", "at": at}).json()
    assert [p["id"] for p in listed["results"]] == [second.pk]
    api.force_login(people.regulator_wa)
    assert api.get(f"/api/v1/tables/{table.pk}/posting", {"at": at}).status_code == 404


def test_in_force_at_is_one_query_over_every_table(people, table, django_assert_num_queries):
    other = Table.objects.create(establishment=people.marysville, label="8", seats=7, game=table.game)
    post(table, people)
    later = post(table, people, option=2, effective_from="2026-03-03T02:00:00-08:00")
    mine = post(other, people, effective_from="2026-03-02T00:00:00-08:00")
    with django_assert_num_queries(1):
        found = set(TablePosting.objects.in_force_at(datetime.datetime(2026, 3, 3, 2, 30, tzinfo=LA))
                    .filter(table__in=[table, other]))
    assert found == {later, mine}


# -- the print gate ---------------------------------------------------------------------------------------------


def test_a_posting_with_errors_prints_only_under_a_compliance_override(api, people, table):
    posting = post(table, people, max_wager="20000")  # above California's $10,000 maximum wagering limit
    assert posting.validation_runs.get().errors >= 1
    api.force_login(people.floor)
    answer = api.post(f"/api/v1/tables/{table.pk}/signage.pdf")
    assert answer.status_code == 409
    assert ("Table 7's sign may not be printed. Wager limits (California): The table maximum of $20,000"
            in answer.json()["error"]["message"])
    assert ("a compliance officer may ask for an override with a reason, which a second officer approves"
            in answer.json()["error"]["message"])
    assert "ca.wager_limits" not in answer.json()["error"]["message"]  # the rule in words (issue 42)
    assert api.post(f"/api/v1/postings/{posting.pk}/override/", {"reason": "Bureau letter of 2026-03-02 allows it."},
                    format="json").status_code == 403
    assert not SignPrint.objects.filter(posting=posting).exists()

    api.force_login(people.compliance)
    assert api.post(f"/api/v1/postings/{posting.pk}/override/", {"reason": "ok"}, format="json").status_code == 400
    answer = api.post(f"/api/v1/postings/{posting.pk}/override/",
                      {"reason": "Bureau letter of 2026-03-02 allows it."}, format="json")
    assert answer.status_code == 201 and answer.json()["printing"]["blocked"] is True  # until a second officer
    asked = AuditLogEntry.objects.get(action="signage.print_override_requested", object_id=str(posting.pk))
    assert asked.actor == people.compliance and asked.data["reason"] == "Bureau letter of 2026-03-02 allows it."
    api.force_login(people.compliance_2)
    answer = api.post(f"/api/v1/postings/{posting.pk}/override/approve/", {"reason": "Letter read; agreed."},
                      format="json")
    assert answer.status_code == 200 and answer.json()["printing"]["blocked"] is False
    logged = AuditLogEntry.objects.get(action="signage.print_override", object_id=str(posting.pk))
    assert logged.actor == people.compliance_2 and logged.data["reason"] == "Letter read; agreed."
    assert logged.data["request_reason"] == "Bureau letter of 2026-03-02 allows it."
    assert logged.data["findings"][0]["rule"] == "ca.wager_limits"

    api.force_login(people.floor)
    answer = api.post(f"/api/v1/tables/{table.pk}/signage.pdf")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/pdf"
    assert SignPrint.objects.get(posting=posting).override.reason == "Bureau letter of 2026-03-02 allows it."


def test_a_clean_posting_needs_no_override(api, people, table):
    posting = post(table, people)
    api.force_login(people.compliance)
    answer = api.post(f"/api/v1/postings/{posting.pk}/override/", {"reason": "Just in case, for the record."},
                      format="json")
    assert answer.status_code == 400 and "has no error findings" in answer.json()["error"]["message"]


# -- what the sign says -----------------------------------------------------------------------------------------


def test_letter_sign_prints_every_fee_limit_and_code_of_the_data(api, people, table):
    posting = post(table, people)
    api.force_login(people.floor)
    answer = api.post(f"/api/v1/tables/{table.pk}/signage.pdf?layout=letter")
    assert answer.status_code == 200
    pdf = answer.content
    assert signs.pages(pdf) == 1
    text = signs.text(pdf)
    flat = " ".join(signs.text(pdf, layout=False).split())
    game = table.game
    assert game.name in flat and "Game registration" not in flat  # none on record: the sign says nothing of it
    assert "$5.00" in text and "$500.00" in text
    assert re.search(r"Fortune Bonus Bet\s+\$1\.00\s+\$25\.00", text)
    option = option_of(posting)
    for tier in option.tiers.exclude(fee=0):
        assert signs.row(tier.printed_bounds, f"${tier.fee:,.2f}").search(text), (tier, text)
    # The option's "$0" player fee is said in words, not as an "Any $0.00" row.
    assert "No player fee is charged." in flat and not signs.row("Any", "$0.00").search(text)
    # Version 1 states no effective date: the sign names the version and says nothing of a date.
    assert "Collection schedule GEGA-002888, version 1, option 1." in flat
    assert "Posted at this table from 2026-03-01 08:00 PST." in flat
    assert "never a fraction or percentage of the wagers" in flat
    assert "no one may hold it more than 2 consecutive hands" in flat
    assert "not stated" not in flat and "no effective date" not in flat and "seed line" not in flat
    # Each paytable in one unit, named in its heading: the Envy Bonus's prizes in dollars, the others in odds.
    assert signs.row("7 Card Straight Flush (no Joker)", "$1,000.00").search(text)
    assert signs.row("7 Card Straight Flush (no Joker)", "5,000 to 1").search(text)
    assert signs.row("Hand", "Prize").search(text) and len(signs.row("Hand", "Pays (odds)").findall(text)) == 2
    for paytable in game.paytables.all():
        for line in paytable.lines.all():
            assert line.hand in flat
    assert all(embedded for _, embedded in signs.fonts(pdf))


def test_sign_qr_code_opens_the_postings_verification_page(api, people, table, tmp_path):
    posting = post(table, people)
    api.force_login(people.floor)
    for layout, faces in (("letter", 1), ("tent", 2)):
        pdf = api.post(f"/api/v1/tables/{table.pk}/signage.pdf?layout={layout}").content
        (png,) = signs.png_pages(pdf, tmp_path / layout)
        assert signs.qr_codes(png) == [content.verify_url(posting)] * faces


def test_tent_has_two_faces_with_the_whole_sign(api, people, table):
    posting = post(table, people)
    api.force_login(people.floor)
    pdf = api.post(f"/api/v1/tables/{table.pk}/signage.pdf?layout=tent").content
    assert signs.pages(pdf) == 1
    flat = " ".join(signs.text(pdf, layout=False).split())
    assert flat.count(table.game.name) == 2 and flat.count("GEGA-002888, version 1") == 2
    for tier in option_of(posting).tiers.exclude(fee=0):
        assert flat.count(f"${tier.fee:,.2f}") >= 2


@pytest.mark.parametrize("code, number, expect", [
    ("GEGA-000700", 1, ["Poker drop", "Players in the hand", "No flop, no drop"]),
    ("GEGA-000702", 1, ["Time collection every 30 minutes", "Each 30-minute period", "$3.00"]),
])
def test_poker_and_lowball_signs_say_how_they_collect(people, code, number, expect):
    game = Game.objects.filter(schedules__code=code).first()
    tbl = Table.objects.create(establishment=people.marysville, label="P1", seats=9, game=game)
    posting = post(tbl, people, schedule=code, option=number, min_wager="2", max_wager="20", seats=None,
                   bonus_limits=None)
    rendered, _ = printing.print_signs([posting], "letter", user=people.floor, channel=SignPrint.Channel.API)
    flat = " ".join(signs.text(rendered.pdf, layout=False).split())
    for phrase in expect:
        assert phrase in flat


def test_reprints_are_marked_and_logged(people, table):
    posting = post(table, people)
    first, (record,) = printing.print_signs([posting], "letter", user=people.floor, channel=SignPrint.Channel.API)
    second, (again,) = printing.print_signs([posting], "tent", user=people.floor, channel=SignPrint.Channel.API)
    assert (record.number, again.number, again.is_reprint) == (1, 2, True)
    assert "REPRINT" not in signs.text(first.pdf)
    assert "REPRINT" in signs.text(second.pdf) and "Reprint: print 2 of this posting" in " ".join(
        signs.text(second.pdf, layout=False).split())
    actions = list(AuditLogEntry.objects.filter(object_id=str(posting.pk), action__startswith="signage.")
                   .order_by("id").values_list("action", flat=True))
    assert actions == ["signage.print", "signage.reprint"]


def test_a_get_is_a_watermarked_preview_and_records_nothing(api, people, table):
    """A GET never changes data: printing (a numbered print and an audit entry) is a POST."""
    post(table, people)
    before = AuditLogEntry.objects.count()
    for user in (people.floor, people.regulator_ca):
        api.force_login(user)
        answer = api.get(f"/api/v1/tables/{table.pk}/signage.pdf")
        assert answer.status_code == 200 and "PREVIEW - NOT FOR POSTING" in signs.text(answer.content)
    assert not SignPrint.objects.exists() and AuditLogEntry.objects.count() == before
    assert api.post(f"/api/v1/tables/{table.pk}/signage.pdf").status_code == 403  # a regulator does not print
    assert api.get(f"/api/v1/tables/{table.pk}/signage.pdf", {"layout": "poster"}).status_code == 400


# -- every seeded option fits ------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", render.LAYOUTS)  # one test a layout: the two share the run's two processes
@pytest.mark.long
def test_every_seeded_option_fits_both_layouts(people, table, tmp_path, layout):
    """The longest (most tiers) and the shortest options, with the game that has the most payouts, print
    without overflow on both layouts; pdftoppm renders every page."""
    posting = post(table, people)
    base = content.sign_for(posting)
    options = list(FeeOption.objects.select_related("version__document").prefetch_related("tiers"))
    assert len(options) > 100
    sample = []
    for option in options:
        tables = content.fee_tables(option, option.version.document.currency)
        sample.append(render.Sign(**{**base.__dict__, "fee_tables": tables, "option_number": option.number,
                                     "schedule_code": option.version.document.code, "option_label": option.label}))
    rendered = render.render(sample, layout)
    assert rendered.pages == len(sample) and min(rendered.scales) >= render.SCALES[-1]
    longest = max(options, key=lambda o: (o.tiers.count(), len(o.label)))
    shortest = min(options, key=lambda o: o.tiers.count())
    for option in (longest, shortest):
        rendered = render.render([sample[options.index(option)]], layout)
        (png,) = signs.png_pages(rendered.pdf, tmp_path / f"{option.pk}-{layout}", resolution=50)
        assert png.stat().st_size > 10_000


def test_content_that_cannot_fit_is_refused_not_clipped(people, table):
    sign = content.sign_for(post(table, people))
    rows = tuple(render.FeeRow(f"${i}", Decimal(i)) for i in range(400))
    with pytest.raises(render.SignOverflow, match="does not fit the layout"):
        render.render([render.Sign(**{**sign.__dict__, "fee_tables": (render.FeeTable("Huge", "x", "y", rows),)})])


# -- the public verification page --------------------------------------------------------------------------------


def test_verification_page_is_public_and_says_when_superseded(client, people, table):
    first = post(table, people, notes="Table by the window.")
    url = content.verify_url(first).split("8000", 1)[1]
    page = client.get(url)
    assert page.status_code == 200 and b"In force" in page.content
    assert table.game.name.encode() in page.content and b"$500.00" in page.content
    assert people.floor.username.encode() not in page.content  # no private data
    second = post(table, people, option=2, max_wager="1000", effective_from="2026-03-03T02:00:00-08:00")
    page = client.get(url).content.decode()
    assert "Superseded" in page and "2026-03-03 02:00 PST" in page and "$1,000.00" in page
    assert content.verify_url(second) in page
    assert client.get("/verify/not-a-real-code/").status_code == 404
    assert first.public_token != second.public_token and len(first.public_token) >= 22


def test_a_superseded_signs_qr_says_so(client, people, table, tmp_path):
    first = post(table, people)
    rendered, _ = printing.print_signs([first], "letter", user=people.floor, channel=SignPrint.Channel.API)
    post(table, people, option=2, effective_from="2026-03-03T02:00:00-08:00")
    (png,) = signs.png_pages(rendered.pdf, tmp_path)
    (url,) = signs.qr_codes(png)
    page = client.get(url.split("8000", 1)[1])
    assert b"Superseded" in page.content


# -- batches --------------------------------------------------------------------------------------------------------


def test_batch_through_the_api_reports_progress_and_downloads(api, people, table,
                                                            django_capture_on_commit_callbacks):
    other = Table.objects.create(establishment=people.marysville, label="10", seats=7, game=table.game)
    empty = Table.objects.create(establishment=people.marysville, label="11", seats=7, game=table.game)
    post(table, people)
    post(other, people, option=2)
    api.force_login(people.floor)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.post("/api/v1/signage/batches", {"establishment": "casino-marysville", "layout": "tent",
                                                      "tables": [table.pk, other.pk, empty.pk]}, format="json")
    assert answer.status_code == 202, answer.json()
    job = answer.json()
    status = api.get(f"/api/v1/jobs/{job['uuid']}/").json()
    assert (status["status"], status["total"], status["done"], status["percent"]) == ("done", 2, 2, 100)
    assert [p["table"] for p in status["result"]["printed"]] == ["7", "10"]
    assert status["result"]["skipped"] == [{"table": "11", "reason": "No posting is in force at this table."}]
    download = api.get(status["download"])
    pdf = b"".join(download.streaming_content)
    assert signs.pages(pdf) == 2
    assert SignPrint.objects.filter(job__uuid=job["uuid"], channel="batch").count() == 2
    api.force_login(people.regulator_wa)
    assert api.get(f"/api/v1/jobs/{job['uuid']}/").status_code == 404


def test_batch_refuses_bad_requests(api, people, table):
    api.force_login(people.floor)
    for payload, field in (({"establishment": "test-wa-room"}, "establishment"),
                           ({"establishment": "casino-marysville", "layout": "poster"}, "layout"),
                           ({"establishment": "casino-marysville", "tables": [10**9]}, "tables")):
        answer = api.post("/api/v1/signage/batches", payload, format="json")
        assert answer.status_code == 400 and field in str(answer.json()), payload
    assert not Job.objects.exists()


def test_a_batch_naming_another_rooms_or_unknown_tables_is_refused_by_id(api, people, table):
    post(table, people)
    foreign = Table.objects.create(establishment=people.wa_room, label="7", seats=7, game=table.game)
    api.force_login(people.floor)
    for tables, refused in (([foreign.pk], foreign.pk), ([table.pk, foreign.pk], foreign.pk),
                            ([table.pk, 10**9], 10**9)):
        answer = api.post("/api/v1/signage/batches", {"establishment": "casino-marysville", "tables": tables},
                          format="json")
        assert answer.status_code == 400, tables
        assert answer.json()["error"]["details"] == {
            "tables": f"Not tables of Casino Marysville: {refused}. Nothing was printed."}
    answer = api.post("/api/v1/signage/batches", {"establishment": "casino-marysville", "tables": []}, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"]["details"] == {"tables": "Choose at least one table, or print the whole floor."}
    assert not Job.objects.exists() and not SignPrint.objects.exists()


def test_a_batch_without_tables_prints_the_whole_floor(api, people, table, django_capture_on_commit_callbacks):
    post(table, people)
    api.force_login(people.floor)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.post("/api/v1/signage/batches", {"establishment": "casino-marysville"}, format="json")
    assert answer.status_code == 202, answer.json()
    assert [p["table"] for p in Job.objects.get().result["printed"]] == ["7"]


def test_print_signage_command(people, table, tmp_path, capsys):
    post(table, people)
    out = tmp_path / "signs.pdf"
    call_command("print_signage", "--establishment", "casino-marysville", "--table", "7", "--layout", "letter",
                 "-o", str(out))
    printed = capsys.readouterr().out
    assert "100%  1/1 tables" in printed and f"Wrote {out}: 1 sign(s)" in printed
    assert signs.pages(out.read_bytes()) == 1
    assert SignPrint.objects.get().channel == "batch"
    with pytest.raises(Exception, match="has no table '99'"):
        call_command("print_signage", "--establishment", "casino-marysville", "--table", "99", "-o", str(out))


def test_a_blocked_table_is_left_out_of_a_batch_and_named(people, table):
    post(table, people, max_wager="20000")
    with pytest.raises(Exception, match="None of the chosen tables has a printable posting"):
        call_command("print_signage", "--establishment", "casino-marysville", "-o", "/dev/null")
    with pytest.raises(PrintBlocked):
        printing.print_signs([TablePosting.objects.get(table=table)], "letter", channel="api")
