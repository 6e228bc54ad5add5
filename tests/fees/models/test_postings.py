"""A posting is what a table shows from a moment on; it is never edited, only superseded."""

import datetime
from zoneinfo import ZoneInfo

import pytest

from fees.models import PostingImmutableError, TablePosting
from tests.factories import store_posting

pytestmark = pytest.mark.django_db
LA = ZoneInfo("America/Los_Angeles")


def post(table, option, when):
    return store_posting(table, option=option, effective_from=when, min_wager="5", max_wager="500")


def test_what_was_posted_at_a_moment(table):
    first = post(table, 7, datetime.datetime(2026, 3, 1, 8, 0, tzinfo=LA))
    second = post(table, 8, datetime.datetime(2026, 3, 3, 2, 0, tzinfo=LA))
    assert TablePosting.objects.in_force(table, datetime.datetime(2026, 3, 1, 7, 59, tzinfo=LA)) is None
    assert TablePosting.objects.in_force(table, datetime.datetime(2026, 3, 3, 1, 59, tzinfo=LA)) == first
    assert TablePosting.objects.in_force(table, datetime.datetime(2026, 3, 3, 2, 30, tzinfo=LA)) == second
    assert first.superseded_by() == second and second.superseded_by() is None


def test_a_posting_is_never_edited(table):
    posting = post(table, 7, datetime.datetime(2026, 3, 1, 8, 0, tzinfo=LA))
    posting.option_number = 9
    with pytest.raises(PostingImmutableError):
        posting.save()
    with pytest.raises(PostingImmutableError):
        TablePosting.objects.filter(pk=posting.pk).update(option_number=9)
