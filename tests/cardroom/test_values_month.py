"""cardroom.values.month: the one reader of a month written YYYY-MM (the months page's bundles, the closing
command, the held months' inbox, the regulator's month form), where each once had its own strptime."""

import datetime

import pytest

from cardroom import values


def test_a_month_is_read_as_its_first_day():
    assert values.month("2026-10") == datetime.date(2026, 10, 1)
    assert values.month("1900-01") == values.FIRST_DAY


@pytest.mark.parametrize("text", [
    "2026-1",  # strptime's "%Y-%m" took this one
    "2026-13", "2026-00", "26-10", "2026-10-01", " 2026-10", "2026/10", "", "２０２６-10", None, 202610,
])
def test_anything_else_is_refused_in_words(text):
    with pytest.raises(values.Invalid, match="must be a month written YYYY-MM"):
        values.month(text)


def test_a_month_outside_the_days_every_reader_accepts_is_refused():
    with pytest.raises(values.Invalid, match="must be between 1900-01-01 and 2199-12-31"):
        values.month("1899-12")
