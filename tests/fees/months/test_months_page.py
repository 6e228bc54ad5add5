"""A month closed for real, as a person meets it (issue 42): the room's Months page shows it closed with the totals
its closing sealed (not the live rows, once those differ), who closed it and when, and its bundle, which downloads
as the signed export the closing wrote; July beside it is open with its running sums; reconciling June from the
variance page says June is closed."""

import datetime
import io
import re

import pytest
from django.db.models import F, Sum

from cardroom.money import format_money
from exports.verification import check
from fees.models import ClosedMonth, LedgerDay
from tests.fees.months.test_services import jobs_here, june  # noqa: F401  (the fixtures)
from tests.fees.months.test_services import JUNE, close

pytestmark = [pytest.mark.django_db, pytest.mark.services]
PAGE = "/compliance/casino-marysville/months/"


def text(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())).replace("&#x27;", "'")


def test_a_closed_month_on_the_months_page_its_sealed_totals_bundle_and_reconciling(client, people, june,
                                                                                    tmp_path):
    sums = LedgerDay.objects.filter(gaming_day__range=(JUNE, datetime.date(2024, 6, 30))).aggregate(
        expected=Sum("expected_total"), collected=Sum("collected_total"))
    close("casino-marysville", archive=tmp_path)
    closing = ClosedMonth.objects.get(month=JUNE)
    # The tables' owner makes June's kept sums whole behind the triggers' back: the page keeps the sealed figures.
    assert LedgerDay.objects.filter(gaming_day=JUNE.replace(day=10)).update(collected_total=F("expected_total"))
    client.force_login(people.compliance)
    page = client.get(PAGE)
    assert page.status_code == 200
    html, said = page.content.decode(), text(page)
    assert re.findall(r'<tr id="month-(\d{4}-\d\d)" class="state-(\w+)"', html) == [("2024-07", "open"),
                                                                                    ("2024-06", "closed")]
    june_row = said[said.index("June 2024"):]
    assert (f"{format_money(sums['expected'])} {format_money(sums['collected'])}" in june_row
            and "as its closing sealed them" in june_row), june_row
    assert "Not as sealed: casino-marysville 2024-06-10 USD collected" in june_row
    assert f"by {closing.closed_by}" in june_row
    link = "/compliance/casino-marysville/months/2024-06/bundle.zip"
    assert f'href="{link}"' in html
    bundle = b"".join(client.get(link).streaming_content)
    assert check(io.BytesIO(bundle)).ok
    assert "running sums" in said[said.index("July 2024"):said.index("June 2024")]
    # Reconciling June from the variance page: closed, when and by whom; nothing run.
    answer = client.post("/compliance/casino-marysville/variance/",
                         {"reconcile_from": "2024-06-01", "reconcile_to": "2024-06-30"})
    assert answer.status_code == 400
    assert (f"June 2024 is closed (on {closing.closed_at.astimezone(people.marysville.zone):%Y-%m-%d} by "
            f"{closing.closed_by}): its reconciliations are final; reopen it to reconcile again") in text(answer)
