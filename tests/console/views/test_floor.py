"""A floor supervisor's pages: the floor at a glance, what a table showed at a moment, signs and batches."""

import datetime
import re
from zoneinfo import ZoneInfo

import pytest

from cardroom.access import Scope
from cardroom.models import AuditLogEntry, Game, Job, Table
from signage.models import SignPrint
from signage.postings import post_table, read_posting

from tests import signs
from tests.factories import change_a_fee

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")
# After the seed data's publication (today), so that no sign looks printed before its schedule was published.
MARCH_1 = datetime.datetime(2027, 3, 1, 8, 0, tzinfo=LA)


@pytest.fixture
def floor_of(people, clock):
    """Tables 2, 7 and 10 posted on 1 March (only 7 with bonus limits), table 12 never posted; now 3 March."""
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    tables = {label: Table.objects.create(establishment=people.marysville, label=label, seats=7, game=game)
              for label in ("10", "2", "7", "12")}
    clock(MARCH_1 - datetime.timedelta(minutes=1))
    for label, limits in (("2", ("5", "500")), ("7", ("10", "1000")), ("10", ("25", "2000"))):
        data = {"table": tables[label].pk, "schedule": "GEGA-002888", "option": 1, "min_wager": limits[0],
                "max_wager": limits[1], "effective_from": MARCH_1.isoformat()}
        if label == "7":
            data["bonus_limits"] = [{"bet": "Fortune Bonus Bet", "minimum": "1", "maximum": "25"}]
        post_table(people.floor,
                   fields=read_posting(data, scope=Scope(people.floor), now=MARCH_1 - datetime.timedelta(minutes=1)))
    clock(datetime.datetime(2027, 3, 3, 4, 0, tzinfo=LA))
    return tables


def test_a_login_lands_on_each_roles_home(client, people):
    homes = {people.floor: "/floor/casino-marysville/", people.compliance: "/compliance/casino-marysville/",
             people.regulator_ca: "/regulator/", people.admin: "/admin-home/"}
    for user, home in homes.items():
        client.force_login(user)
        answer = client.get("/", follow=True)
        assert answer.redirect_chain[-1][0] == home, user
        assert answer.status_code == 200
    client.logout()
    assert client.get("/floor/casino-marysville/")["Location"].startswith("/login/?next=")
    client.force_login(people.outsider)
    assert client.get("/").status_code == 403


def test_the_floor_shows_every_table_in_number_order(client, people, floor_of):
    client.force_login(people.floor)
    page = client.get("/floor/casino-marysville/").content.decode()
    rows = page[page.index('id="floor-tables"'):]
    positions = [rows.index(f'/tables/{floor_of[label].pk}/">{label}</a>') for label in ("2", "7", "10", "12")]
    assert positions == sorted(positions)
    assert "$10.00" in rows and "$1,000.00" in rows and "$2,000.00" in rows
    assert "GEGA-002888 option 1" in rows
    assert "No posting in force." in rows  # table 12
    assert "Signs to print or reprint (3)" in page  # never printed


def test_the_floor_page_costs_the_same_queries_for_more_tables(client, people, floor_of,
                                                               django_assert_max_num_queries):
    client.force_login(people.floor)
    client.get("/floor/casino-marysville/")  # warm caches (content types, sessions)
    with django_assert_max_num_queries(40) as few:
        client.get("/floor/casino-marysville/")
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    now = datetime.datetime(2027, 3, 3, 4, 0, tzinfo=LA)
    for n in range(20, 40):
        table = Table.objects.create(establishment=people.marysville, label=str(n), seats=7, game=game)
        data = {"table": table.pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5", "max_wager": "500",
                "effective_from": (now + datetime.timedelta(minutes=1)).isoformat()}
        post_table(people.floor, fields=read_posting(data, scope=Scope(people.floor), now=now))
    # The first look after new postings judges the floor again and keeps it (compliance.kept): a fixed few more.
    with django_assert_max_num_queries(len(few.captured_queries) + 30):
        client.get("/floor/casino-marysville/")
    with django_assert_max_num_queries(len(few.captured_queries)):
        client.get("/floor/casino-marysville/")


def test_what_was_posted_at_a_table_at_a_moment(client, people, floor_of):
    client.force_login(people.floor)
    answer = client.get("/floor/casino-marysville/posted/",
                        {"table": floor_of["7"].pk, "day": "2027-03-03", "time": "02:30"})
    page = answer.content.decode()
    assert "Table 7 at 2027-03-03 02:30 PST" in page
    assert "$10.00 to $1,000.00" in page and "Fortune Bonus Bet" in page and "$25.00" in page
    assert "GEGA-002888 version" in page and "Collection fees" in page
    before = client.get("/floor/casino-marysville/posted/",
                        {"table": floor_of["7"].pk, "day": "2027-02-01", "time": "02:30"})
    assert "Table 7 had no posting in force then." in before.content.decode()
    bad = client.get("/floor/casino-marysville/posted/", {"table": floor_of["7"].pk, "day": "2027-02-30",
                                                         "time": "25:00"})
    assert bad.status_code == 400 and 'role="alert"' in bad.content.decode()


def test_the_lookup_names_the_zone_and_each_moment_its_own_abbreviation(client, people, floor_of):
    """Now is 3 March (PST); a moment of 20 March is PDT. The time field stands for any moment, so it names the zone
    ("Pacific time"), not now's abbreviation, and the answer gives the abbreviation of the moment shown."""
    client.force_login(people.floor)
    label = '<label for="id_time">Time (Pacific time)</label>'
    assert label in client.get("/floor/casino-marysville/").content.decode()
    page = client.get("/floor/casino-marysville/posted/",
                      {"table": floor_of["7"].pk, "day": "2027-03-20", "time": "12:00"}).content.decode()
    assert label in page
    assert "Table 7 at 2027-03-20 12:00 PDT" in page and "PST)" not in page


def test_a_moment_is_answered_as_the_record_stood_then_with_a_later_change_one_click_away(client, people, floor_of,
                                                                                          clock):
    """Issue 33: a same-day change published at 21:00 did not exist at 10:00; the lookup of 10:00 shows what the
    table showed (the version then in force, as the record stood), says a later change applies to that moment, and
    shows it as the record stands now one click away."""
    from fees.models import ScheduleDocument
    from tests.fees.schedules.test_services_two_timelines import raise_option_1
    from tests.publishing import publish

    gega = ScheduleDocument.objects.get(code="GEGA-002888")
    before = gega.version_as_of(datetime.date(2027, 3, 3))
    clock(datetime.datetime(2027, 3, 3, 20, 30, tzinfo=LA))
    draft = gega.new_draft(based_on=before, user=people.compliance, reason="Same-day letter",
                           effective_from=datetime.date(2027, 3, 3))
    raise_option_1(draft, people.compliance)
    clock(datetime.datetime(2027, 3, 3, 21, 0, tzinfo=LA))
    publish(draft, requested_by=people.compliance, approved_by=people.admin, reason="The letter of this morning")
    client.force_login(people.floor)
    lookup = {"table": floor_of["7"].pk, "day": "2027-03-03", "time": "10:00"}
    then = client.get("/floor/casino-marysville/posted/", lookup).content.decode()
    assert "Table 7 at 2027-03-03 10:00 PST, as it stood then" in then
    assert f"GEGA-002888 version {before.number}, option 1" in then and "$9.00" not in then
    assert (f"as the record stands now, its fees are those of GEGA-002888 version {draft.number} (then: version "
            f"{before.number}, as the sign said)") in then
    now = client.get("/floor/casino-marysville/posted/", {**lookup, "view": "now"}).content.decode()
    assert "as the record stands now" in now and f"GEGA-002888 version {draft.number}, option 1" in now
    assert "$9.00" in now and "Show it as it stood then" in now
    # Before the table's record began (its posting recorded on 1 March, effective from then): the postings
    # recorded since, the versions its sign showed (issue 42), saying so; as the record stands now one click away.
    early = client.get("/floor/casino-marysville/posted/", {**lookup, "day": "2027-02-20"}).content.decode()
    assert "as it stood then" in early and 'id="record-began"' in early
    assert "Table 7 had no posting in force then." in early and "Show it as the record stands now" in early
    # Before the change was made, both answers agree and nothing is said of a later change.
    quiet = client.get("/floor/casino-marysville/posted/", {**lookup, "day": "2027-03-02"}).content.decode()
    assert 'id="later-change"' not in quiet


def test_a_get_previews_and_a_post_prints(client, people, floor_of):
    client.force_login(people.floor)
    url = f"/floor/casino-marysville/tables/{floor_of['7'].pk}/sign.pdf"
    preview = client.get(url, {"layout": "tent"})
    assert preview["Content-Type"] == "application/pdf" and "PREVIEW" in signs.text(preview.content)
    assert not SignPrint.objects.exists()
    printed = client.post(url, {"layout": "letter"})
    assert printed.status_code == 200 and "PREVIEW" not in signs.text(printed.content)
    record = SignPrint.objects.get()
    assert (record.posting.table.label, record.number, record.layout) == ("7", 1, "letter")
    assert AuditLogEntry.objects.filter(action="signage.print").exists()
    page = client.get("/floor/casino-marysville/").content.decode()
    assert "Signs to print or reprint (2)" in page


def test_the_whole_floor_prints_as_one_job_with_progress(client, people, floor_of,
                                                        django_capture_on_commit_callbacks):
    client.force_login(people.floor)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/floor/casino-marysville/print/", {"layout": "letter", "print": "floor"})
    job = Job.objects.get()
    assert answer["Location"] == f"/jobs/{job.uuid}/"
    assert job.status == Job.Status.DONE and job.total == 3
    page = client.get(answer["Location"]).content.decode()
    assert 'value="100"' in page and f"/jobs/{job.uuid}/file" in page
    assert re.search(r'href="/floor/"[^>]*aria-current="page"', page)  # the job is part of the floor's pages
    pdf = client.get(f"/jobs/{job.uuid}/file")
    assert signs.pages(b"".join(pdf.streaming_content)) == 3
    assert SignPrint.objects.count() == 3


def test_other_roles_and_rooms_get_nothing(client, people, floor_of):
    table = floor_of["7"].pk
    client.force_login(people.regulator_ca)
    assert client.get("/floor/casino-marysville/").status_code == 403
    client.force_login(people.compliance_wa)  # staff of another room: the floor is not theirs
    assert client.get("/floor/casino-marysville/").status_code == 404
    assert client.post(f"/floor/casino-marysville/tables/{table}/sign.pdf").status_code == 404
    assert client.post("/floor/casino-marysville/print/", {"layout": "letter"}).status_code == 404
    assert not SignPrint.objects.exists() and not Job.objects.exists()


def test_bad_print_requests_change_nothing(client, people, floor_of):
    client.force_login(people.floor)
    assert client.post("/floor/casino-marysville/print/", {"layout": "poster"}).status_code == 400
    assert client.post("/floor/casino-marysville/print/", {"layout": "letter", "tables": ["x"]}).status_code == 400
    assert client.get("/floor/casino-marysville/print/").status_code == 405
    url = f"/floor/casino-marysville/tables/{floor_of['12'].pk}/sign.pdf"
    assert client.post(url, {"layout": "letter"}).status_code == 404  # never posted
    assert not SignPrint.objects.exists() and not Job.objects.exists()


def test_the_tables_ticked_print_and_nothing_else(client, people, floor_of, django_capture_on_commit_callbacks):
    client.force_login(people.floor)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/floor/casino-marysville/print/",
                             {"layout": "letter", "print": "ticked", "tables": [floor_of["7"].pk]})
    job = Job.objects.get()
    assert answer["Location"] == f"/jobs/{job.uuid}/"
    assert [p["table"] for p in job.result["printed"]] == ["7"]


def test_a_print_naming_another_rooms_or_unknown_tables_is_refused_and_never_prints_the_floor(client, people,
                                                                                               floor_of):
    foreign = Table.objects.create(establishment=people.wa_room, label="1", seats=7, game=floor_of["7"].game)
    client.force_login(people.floor)
    mine = floor_of["7"].pk
    for tables, refused in (([foreign.pk], foreign.pk), ([mine, foreign.pk], foreign.pk), ([mine, 10**9], 10**9)):
        answer = client.post("/floor/casino-marysville/print/", {"layout": "letter", "print": "ticked",
                                                                 "tables": tables})
        assert answer.status_code == 400, tables
        page = answer.content.decode()
        error = re.search(r'<p class="error" role="alert" id="print-error">([^<]*)</p>', page).group(1)
        assert error == f"Not tables of Casino Marysville: {refused}. Nothing was printed."
        assert 'id="floor-tables"' in page  # the floor page again, with the choice still ticked
        assert (f'value="{mine}" aria-label="Include table 7" checked' in page) == (mine in tables)
    assert not SignPrint.objects.exists() and not Job.objects.exists()


def test_printing_the_tables_ticked_with_none_ticked_is_refused(client, people, floor_of):
    client.force_login(people.floor)
    for data in ({"layout": "letter", "print": "ticked"}, {"layout": "letter"}):
        answer = client.post("/floor/casino-marysville/print/", data)
        assert answer.status_code == 400
        assert "Choose at least one table, or print the whole floor." in answer.content.decode()
    assert not Job.objects.exists()


def test_the_print_job_page_names_the_tables_printed_and_skipped_and_a_file_a_person_would_name(
        client, people, floor_of, django_capture_on_commit_callbacks):
    client.force_login(people.floor)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post("/floor/casino-marysville/print/", {"layout": "tent", "print": "floor"})
    job = Job.objects.get()
    page = client.get(answer["Location"]).content.decode()
    printed = page[page.index('id="job-printed"'):page.index("</ul>", page.index('id="job-printed"'))]
    assert [re.sub(r"<[^>]+>", "", t) for t in re.findall(r"<li>(.*?)</li>", printed)] == [
        "Table 2", "Table 7", "Table 10"]
    skipped = page[page.index('id="job-skipped"'):]
    assert "Table 12: No posting is in force at this table." in skipped
    # The room's name, its local day and the layout, not the storage path.
    assert "Casino Marysville signs 2027-03-03 (tent).pdf" in page and "signage_batch/" not in page
    download = client.get(f"/jobs/{job.uuid}/file")
    assert 'filename="Casino Marysville signs 2027-03-03 (tent).pdf"' in download["Content-Disposition"]


def test_a_floor_with_nothing_to_print_offers_no_print_button(client, people):
    Table.objects.create(establishment=people.marysville, label="1", seats=7,
                         game=Game.objects.get(slug="face-up-pai-gow-poker"))
    client.force_login(people.floor)
    page = client.get("/floor/casino-marysville/").content.decode()
    assert 'name="print"' not in page and "Print the whole floor" not in page
    assert "there is no sign to print" in page


# -- stale signs, upcoming versions and overrides (issue 25) ----------------------------------------------------------


def _flat(answer):
    return " ".join(re.sub(r"<[^>]+>", " ", answer.content.decode()).split())


def test_the_floor_says_every_sign_is_current_then_which_a_reading_or_a_coming_version_touches(client, people,
                                                                                              floor_of, clock):
    from fees.schedules import services
    from fees.models import ScheduleDocument, ScheduleVersion
    from signage import printing
    from tests.publishing import publish

    postings = list(printing.postings_in_force(floor_of.values(), datetime.datetime(2027, 3, 3, 4, 0, tzinfo=LA))
                    .values())
    printing.print_signs(postings, "letter", user=people.floor, channel=SignPrint.Channel.API)
    client.force_login(people.floor)
    page = _flat(client.get("/floor/casino-marysville/"))
    assert "Every sign is current." in page and "Signs to print or reprint (" not in page
    assert "Coming into force" not in page

    # 3 March 05:00: a reading of GEGA-002888 v1 option 1 approved (an administrator: a shared schedule).
    clock(datetime.datetime(2027, 3, 3, 5, 0, tzinfo=LA))
    version = ScheduleVersion.objects.get(document__code="GEGA-002888", number=1)
    reading = services.propose_interpretation(people.compliance, version=version, option=1, tier=1, field="taken",
                                              value="before_deal", statement="Taken before the cards are dealt.",
                                              decided_on=datetime.date(2027, 3, 1), citation="Test: Bureau answer")
    services.approve_interpretation(people.admin, reading=reading, reason="Agreed with the Bureau.")
    document = ScheduleDocument.objects.get(code="GEGA-002888")
    draft = document.new_draft(based_on=version, user=people.compliance, reason="Bureau letter: new rates",
                               effective_from=datetime.date(2027, 3, 10))
    change_a_fee(draft)
    publish(draft, requested_by=people.compliance, approved_by=people.admin)
    page = _flat(client.get("/floor/casino-marysville/"))
    why = "a reading approved on 2027-03-03 adds a notice: reprint it"
    assert "Signs to print or reprint (3)" in page and "Every sign is current." not in page
    assert f"Table 2 : {why} Table 7 : {why} Table 10 : {why}" in page
    assert ("GEGA-002888 version 2 takes effect on 2027-03-10: reprint the signs of tables 2, 7 and 10 that day."
            in page)
    table_page = _flat(client.get(f"/floor/casino-marysville/tables/{floor_of['7'].pk}/"))
    assert f"Sign out of date A{why[1:]}." in table_page

    client.post(f"/floor/casino-marysville/tables/{floor_of['7'].pk}/sign.pdf", {"layout": "letter"})
    page = _flat(client.get("/floor/casino-marysville/"))
    assert "Signs to print or reprint (2)" in page and "Table 7 :" not in page


def test_a_table_printing_under_an_override_says_why_and_who_approved_it(client, people, floor_of):
    from signage import services

    data = {"table": floor_of["12"].pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5",
            "max_wager": "20000", "effective_from": datetime.datetime(2027, 3, 3, 4, 1, tzinfo=LA).isoformat()}
    posting, run = post_table(people.floor, fields=read_posting(data, scope=Scope(people.floor), now=datetime.datetime(
        2027, 3, 3, 4, 0, tzinfo=LA)))
    assert run.errors
    client.force_login(people.floor)
    clock_to = datetime.datetime(2027, 3, 3, 5, 0, tzinfo=LA)
    import time_machine
    with time_machine.travel(clock_to, tick=False):
        services.request_override(people.compliance, posting=posting, reason="The Bureau is reviewing the maximum.")
        page = _flat(client.get("/floor/casino-marysville/"))
        # asked for, not yet approved: it prints under none, and its sign may not print
        assert "Prints under an override" not in page and "Signs that may not be printed (1)" in page
        services.approve_override(people.compliance_2, posting=posting, reason="Findings read; print meanwhile.")
        said = ("Prints under an override approved by t-compliance-2 on 2027-03-03 05:00 PST: "
                "“The Bureau is reviewing the maximum.”")
        assert said in _flat(client.get("/floor/casino-marysville/"))
        table_page = _flat(client.get(f"/floor/casino-marysville/tables/{floor_of['12'].pk}/"))
        assert ("Prints under an override asked for by t-compliance (“The Bureau is reviewing the maximum.”), "
                "approved by t-compliance-2 on 2027-03-03 05:00 PST (“Findings read; print meanwhile.”).") in table_page
        client.force_login(people.regulator_ca)
        page = _flat(client.get("/regulator/casino-marysville/"))
    assert ("Its sign prints under an override approved by t-compliance-2 on 2027-03-03 05:00 PST: "
            "“The Bureau is reviewing the maximum.”") in page
    # Beside the error finding it overrides, in the findings table.
    findings = page[page.index("Findings and how they were handled"):page.index("Acknowledged findings")]
    assert findings.count("Overridden for printing: asked for by t-compliance (“The Bureau is reviewing the "
                          "maximum.”), approved by t-compliance-2 on 2027-03-03 05:00 PST.") == run.errors


def test_the_floor_costs_the_same_queries_with_signs_printed_stale_and_overridden(client, people, floor_of, clock,
                                                                                  django_assert_max_num_queries):
    from fees.schedules import services
    from fees.models import ScheduleVersion
    from signage import printing, services as signage_services

    game = Game.objects.get(slug="face-up-pai-gow-poker")

    minutes = iter(range(1, 60))

    def at(minute=None):
        """The clock on to the next minute (or to ``minute``) of 3 March 04:00."""
        moment = datetime.datetime(2027, 3, 3, 4, minute or next(minutes), tzinfo=LA)
        clock(moment)
        return moment

    def more(labels, maximum):
        now = at()
        for label in labels:
            table = Table.objects.create(establishment=people.marysville, label=label, seats=7, game=game)
            data = {"table": table.pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5",
                    "max_wager": maximum, "effective_from": (now + datetime.timedelta(minutes=1)).isoformat()}
            posting, _ = post_table(people.floor, fields=read_posting(data, scope=Scope(people.floor), now=now))
            if maximum == "20000":
                signage_services.request_override(people.compliance, posting=posting,
                                                  reason="The Bureau is reviewing it.")
                signage_services.approve_override(people.compliance_2, posting=posting,
                                                  reason="Findings read; print it.")
        at()  # the postings take effect
        now = at()
        printing.print_signs(printing.postings_in_force(Table.objects.filter(label__in=labels), now).values(),
                             "letter", user=people.floor, channel=SignPrint.Channel.API)

    more(["30"], "20000")
    version = ScheduleVersion.objects.get(document__code="GEGA-002888", number=1)
    reading = services.propose_interpretation(people.compliance, version=version, option=1, tier=1, field="taken",
                                              value="before_deal", statement="Taken before the cards are dealt.",
                                              decided_on=datetime.date(2027, 3, 1), citation="Test: Bureau answer")
    at()
    services.approve_interpretation(people.admin, reading=reading, reason="Agreed with the Bureau.")
    client.force_login(people.floor)
    client.get("/floor/casino-marysville/")  # warm caches (content types, sessions)
    with django_assert_max_num_queries(40) as few:
        page = client.get("/floor/casino-marysville/").content.decode()
    assert "adds a notice" in page and "Prints under an override" in page
    more([str(n) for n in range(40, 45)], "20000")
    more([str(n) for n in range(50, 65)], "500")
    with django_assert_max_num_queries(len(few.captured_queries) + 30):  # judged again and kept (compliance.kept)
        client.get("/floor/casino-marysville/")
    with django_assert_max_num_queries(len(few.captured_queries)):
        page = client.get("/floor/casino-marysville/").content.decode()
    assert page.count("Prints under an override") == 6
