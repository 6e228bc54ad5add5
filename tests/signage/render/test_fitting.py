"""A posting whose sign cannot be printed on a layout (issue 23: 976-character notes made the sign a 500, and a
whole-floor batch fail): refused when it is made, saying what is too long and by how much; one stored before the
rule answers a 409 naming it, and a batch prints the other tables and names it among those skipped."""

import datetime

import pytest
from django.urls import reverse

from cardroom.access import Scope
from cardroom.models import Table
from fees.models import TablePosting
from signage import content, fit, printing, render
from signage.models import SignPrint
from signage.postings import post_table, read_posting

from tests import signs
from tests.factories import make_table
from tests.signage.test_signage import MARCH_1, body, post

pytestmark = pytest.mark.django_db
# One for the Money's sign is the longest (its payouts): 976 characters of notes do not fit either layout.
NOTES = ("Ask the floor supervisor for the house rules and for the payouts of each bonus bet. " * 12)[:976]


@pytest.fixture
def long_table(people):
    return make_table(people.marysville, label="9", game="one-for-the-money")


LONG = " ".join(["Ask about the house rules."] * 150)  # 4,049 characters: no sign has room for them


def stored_before_the_rule(monkeypatch, table, people):
    """A posting saved without the check (before it existed, or by another path) whose sign does not fit."""
    now = MARCH_1 - datetime.timedelta(minutes=1)
    fields = read_posting(body(table), scope=Scope(people.floor), now=now)
    with monkeypatch.context() as patched:
        patched.setattr(fit, "posting_overflow", lambda posting: "")
        return post_table(people.floor, fields={**fields, "notes": LONG})[0]


def test_notes_too_long_for_the_sign_are_refused_through_the_api_naming_them(api, people, long_table, clock):
    clock(MARCH_1 - datetime.timedelta(hours=1))
    api.force_login(people.floor)
    answer = api.post("/api/v1/postings/", body(long_table, notes=NOTES, bonus_limits=[]), format="json")
    assert answer.status_code == 400, answer.json()
    said = str(answer.json())
    assert "notes: 976 characters are too long for the sign" in said
    most = int(said.split("at most ", 1)[1].split(" fit the letter sign")[0])
    assert 0 < most < 976 and f"({976 - most} too many)" in said
    assert "the tent sign" in said
    assert not TablePosting.objects.filter(table=long_table).exists()
    shorter = api.post("/api/v1/postings/", body(long_table, notes=NOTES[:most], bonus_limits=[]), format="json")
    assert shorter.status_code == 201, shorter.json()


def test_notes_too_long_for_the_sign_are_refused_by_the_admin_form(client, people, long_table, clock):
    clock(MARCH_1 - datetime.timedelta(hours=1))
    client.force_login(people.admin)
    form = {"table": long_table.pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5", "max_wager": "500",
            "seats": "", "effective_from": "2026-03-01 08:00", "bonus_limits": "", "notes": NOTES}
    page = client.post(reverse("admin:fees_tableposting_post"), form)
    assert page.status_code == 200 and b"notes: 976 characters are too long for the sign" in page.content
    assert not TablePosting.objects.filter(table=long_table).exists()


def test_a_stored_posting_whose_sign_does_not_fit_answers_409_naming_why(api, people, table, monkeypatch, clock):
    posting = stored_before_the_rule(monkeypatch, table, people)
    clock(MARCH_1 + datetime.timedelta(hours=1))
    api.force_login(people.floor)
    for method in (api.get, api.post):
        for layout in render.LAYOUTS:
            answer = method(f"/api/v1/postings/{posting.pk}/signage.pdf/?layout={layout}")
            assert answer.status_code == 409, (method, layout)
            said = answer.json()["error"]["message"]
            assert f"posting {posting.pk}" in said and f"does not fit the {layout} layout" in said
            assert "notes: 4049 characters are too long for the sign" in said
    assert api.post(f"/api/v1/tables/{table.pk}/signage.pdf?layout=tent").status_code == 409
    assert not SignPrint.objects.exists()


def test_a_batch_prints_the_other_tables_and_names_the_sign_that_does_not_fit(people, table, monkeypatch,
                                                                             django_capture_on_commit_callbacks,
                                                                             api, clock):
    other = Table.objects.create(establishment=people.marysville, label="10", seats=7, game=table.game)
    clean = post(other, people)
    too_long = stored_before_the_rule(monkeypatch, table, people)
    clock(MARCH_1 + datetime.timedelta(hours=1))
    api.force_login(people.floor)
    with django_capture_on_commit_callbacks(execute=True):
        answer = api.post("/api/v1/signage/batches", {"establishment": "casino-marysville", "layout": "tent",
                                                      "tables": [table.pk, other.pk]}, format="json")
    status = api.get(f"/api/v1/jobs/{answer.json()['uuid']}/").json()
    assert (status["status"], status["done"], status["total"]) == ("done", 2, 2)
    assert [p["table"] for p in status["result"]["printed"]] == ["10"]
    (skipped,) = status["result"]["skipped"]
    assert (skipped["table"], skipped["posting"]) == ("7", too_long.pk)
    assert "does not fit the tent layout" in skipped["reason"] and "notes: 4049 characters" in skipped["reason"]
    pdf = b"".join(api.get(status["download"]).streaming_content)
    assert signs.pages(pdf) == 1
    assert [p.posting_id for p in SignPrint.objects.all()] == [clean.pk]


def test_a_batch_of_only_signs_that_do_not_fit_fails_saying_why(people, table, monkeypatch):
    posting = stored_before_the_rule(monkeypatch, table, people)
    with pytest.raises(printing.SignDoesNotFit, match=f"posting {posting.pk}: Its sign does not fit"):
        printing.print_signs([posting], "letter", channel="batch", skipped=[])
    assert not SignPrint.objects.exists()


def test_a_sign_left_out_draws_nothing_and_the_next_one_prints_whole(people, table):
    sign = content.sign_for(post(table, people))
    huge = render.Sign(**{**sign.__dict__, "notes": "Ask about the house rules. " * 400})
    rendered = render.render([huge, sign, huge], "letter", skip_overflow=True)
    assert rendered.pages == 1 and [i for i, _ in rendered.skipped] == [0, 2]
    assert rendered.scales == [render.fit(sign, "letter")]
    with pytest.raises(render.SignOverflow):
        render.fit(huge, "tent")
