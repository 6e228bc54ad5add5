"""Edges never break, in a real browser (issue 25): a few representative forms given a local time the room's clocks
skip, another room's id in the query, a period beyond the end of the range and a choice the page did not offer;
each page comes back with the message, and nothing is queued or recorded. tests/project/test_form_edges.py covers
every form's fields with the test client."""

from cardroom.models import Job, Table

from tests import factories

from .conftest import serious_violations


def test_the_floor_lookup_refuses_a_skipped_time_and_another_rooms_table(login, site):
    mine = factories.make_table(site.marysville)
    other = Table.objects.create(establishment=site.wa_room, label="1", seats=7, game=mine.game)
    page = login(site.floor)
    page.goto(f"{site.url}/floor/casino-marysville/posted/")
    page.get_by_label("Table", exact=True).select_option(label="Table 7")
    page.get_by_label("Day").fill("2026-03-08")
    page.get_by_label("Time").fill("02:30")
    page.get_by_role("button", name="Look up").click()
    alert = page.get_by_role("alert")
    assert "2:30 on 8 Mar 2026 does not exist in Pacific time (clocks went forward from PST to PDT)" in \
        alert.inner_text()
    assert serious_violations(page) == []

    page.goto(f"{site.url}/floor/casino-marysville/posted/?table={other.pk}&day=2026-03-03&time=12:00")
    assert f"Choose one of this room's tables ({other.pk} is not one)." in page.get_by_role("alert").inner_text()
    assert page.locator("#answer").count() == 0


def test_the_export_form_refuses_a_period_beyond_the_end_and_a_choice_not_offered(login, site):
    page = login(site.regulator_ca)
    page.goto(f"{site.url}/regulator/export/")
    page.get_by_label("What to export").select_option("establishment:casino-marysville")
    page.get_by_label("From (gaming day)").fill("2199-12-01")
    page.get_by_label("To (gaming day, included)").fill("2199-12-31")
    page.get_by_role("button", name="Request the export").click()
    assert page.locator("#end-error").inner_text() == "The period ends in the future (2199-12-31)."

    # A room of another jurisdiction, slipped into the choices (as a stale or edited page would send it).
    page.locator("#id_what").evaluate("""select => {
        select.add(new Option("Test WA Room", "establishment:test-wa-room")); select.value = select.options[
        select.options.length - 1].value; }""")
    page.get_by_label("From (gaming day)").fill("2026-01-01")
    page.get_by_label("To (gaming day, included)").fill("2026-01-31")
    page.get_by_role("button", name="Request the export").click()
    assert page.locator("#what-error").inner_text() == (
        "Select a valid choice. establishment:test-wa-room is not one of the available choices.")
    assert Job.objects.count() == 0
    assert serious_violations(page) == []


def test_a_schedule_timeline_beyond_the_last_day_says_so(login, site):
    page = login(site.compliance)
    page.goto(f"{site.url}/compliance/casino-marysville/schedules/GEGA-002888/?as_of=2200-01-01")
    assert "Must be between 1900-01-01 and 2199-12-31, not '2200-01-01'." in page.content().replace("&#x27;", "'")
