"""The one way money and moments are written for people (cardroom.money, cardroom.moments): pages, signs, the
report and messages all call them, so "$196.00" and "2026-11-21 13:52 PST" read the same everywhere."""

import datetime
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from cardroom.moments import abbreviations, format_moment
from cardroom.money import CENT, format_difference, format_money

LA = ZoneInfo("America/Los_Angeles")


@pytest.mark.parametrize("amount, currency, text", [
    (Decimal("196"), "USD", "$196.00"),
    (Decimal("0.5"), "USD", "$0.50"),
    (Decimal("0.01"), "USD", "$0.01"),
    (Decimal("1234.5"), "USD", "$1,234.50"),
    (Decimal("9999999999.99"), "USD", "$9,999,999,999.99"),  # the largest amount a money column holds
    (Decimal("-2.5"), "USD", "-$2.50"),
    (Decimal("0"), "USD", "$0.00"),
    (Decimal("-0.00"), "USD", "$0.00"),
    (Decimal("1E+2"), "USD", "$100.00"),  # an exponent is no concern of the reader's
    (7, "USD", "$7.00"),  # a whole number is exact too
    (Decimal("12"), "GBP", "£12.00"),
    (Decimal("1234.5"), "EUR", "€1,234.50"),
    (Decimal("1000"), "JPY", "¥1,000"),  # a currency's own number of decimals
])
def test_money_reads_as_the_pages_write_it(amount, currency, text):
    assert format_money(amount, currency) == text


def test_money_is_usd_unless_told_and_a_missing_amount_says_so():
    assert format_money(Decimal("3")) == "$3.00"
    assert format_money(None) == "—"
    assert format_money(None, "USD", missing="not stated") == "not stated"


@pytest.mark.parametrize("amount, currency, text", [
    (Decimal("400"), "USD", "$400"),
    (Decimal("1500.00"), "USD", "$1,500"),
    (Decimal("12.5"), "USD", "$12.50"),  # cents that are there are written
    (Decimal("0.004"), "USD", "$0"),  # rounded to the cent first
    (Decimal("-3"), "USD", "-$3"),
    (Decimal("1000"), "JPY", "¥1,000"),
    (Decimal("12"), "GBP", "£12"),
])
def test_whole_amounts_are_written_without_cents_as_schedules_print_limits(amount, currency, text):
    # The one formatter for bounds and limits too: the fee engine's compact amounts, the schedules' bounds and the
    # findings' limits all write "$400", where each once cut the ".00" off by hand.
    assert format_money(amount, currency, whole=True) == text


def test_money_rounds_a_fraction_of_a_cent_as_decimal_does():
    assert format_money(Decimal("0.005")) == "$0.00" and format_money(Decimal("0.015")) == "$0.02"  # half to even


@pytest.mark.parametrize("amount", [1.1, True, "1.10"])
def test_money_refuses_what_is_not_an_exact_amount(amount):
    with pytest.raises(TypeError, match="an amount of money is a Decimal"):
        format_money(amount)


def test_money_refuses_what_is_not_a_number():
    with pytest.raises(ValueError, match="finite"):
        format_money(Decimal("NaN"))


def test_a_difference_always_says_which_way():
    assert format_difference(Decimal("1")) == "+$1.00"
    assert format_difference(Decimal("-2.5")) == "\u2212$2.50"  # a true minus sign
    assert format_difference(Decimal("0.00")) == "$0.00"
    assert format_difference(Decimal("-1234.5"), "GBP") == "\u2212£1,234.50"


def test_the_cent():
    assert CENT == Decimal("0.01") and Decimal("1.005").quantize(CENT) == Decimal("1.00")


def test_a_moment_is_shown_in_the_zone_with_its_abbreviation_across_a_dst_change():
    # 1 November 2026: Los Angeles goes back from PDT (-07:00) to PST (-08:00) at 02:00 local; 01:30 happens twice.
    first = datetime.datetime(2026, 11, 1, 8, 30, tzinfo=datetime.UTC)
    assert format_moment(first, LA) == "2026-11-01 01:30 PDT"
    assert format_moment(first + datetime.timedelta(hours=1), LA) == "2026-11-01 01:30 PST"
    assert format_moment(datetime.datetime(2026, 3, 8, 10, 0, tzinfo=datetime.UTC), LA) == "2026-03-08 03:00 PDT"
    assert format_moment(datetime.datetime(2026, 11, 21, 21, 52, tzinfo=datetime.UTC), LA) == "2026-11-21 13:52 PST"


def test_a_moment_in_another_zone_by_name_or_from_iso_text():
    moment = datetime.datetime(2026, 7, 1, 12, 0, tzinfo=datetime.UTC)
    assert format_moment(moment, "Europe/London") == "2026-07-01 13:00 BST"
    assert format_moment(moment, ZoneInfo("America/New_York")) == "2026-07-01 08:00 EDT"
    assert format_moment("2026-01-15T12:00:00.000000Z", "Europe/London") == "2026-01-15 12:00 GMT"


def test_no_moment_and_a_naive_one():
    assert format_moment(None, LA) == "" and format_moment(None, LA, missing="—") == "—"
    with pytest.raises(ValueError, match="must say its zone"):
        format_moment(datetime.datetime(2026, 1, 1, 12), LA)


def test_the_abbreviations_of_a_period():
    start = datetime.datetime(2026, 10, 1, tzinfo=LA)
    assert abbreviations(start, datetime.datetime(2026, 10, 31, tzinfo=LA), LA) == ["PDT"]
    assert abbreviations(start, datetime.datetime(2026, 12, 31, tzinfo=LA), LA) == ["PDT", "PST"]
    assert abbreviations(datetime.datetime(2026, 1, 1, tzinfo=LA), datetime.datetime(2026, 12, 31, tzinfo=LA),
                         "Europe/London") == ["BST", "GMT"]


def test_nothing_is_never_negative():
    assert format_money(Decimal("-0.001")) == "$0.00" and format_difference(Decimal("-0.001")) == "$0.00"


def test_the_pages_filters_call_the_same_functions():
    from types import SimpleNamespace

    from console.templatetags.console import money, room_time

    moment = datetime.datetime(2026, 11, 21, 21, 52, tzinfo=datetime.UTC)
    assert room_time(moment, SimpleNamespace(zone=ZoneInfo("Europe/London"))) == "2026-11-21 21:52 GMT"
    assert room_time(moment) == "2026-11-21 13:52 PST"  # no room: the installation's zone (settings.TIME_ZONE)
    assert room_time(None, SimpleNamespace(zone=LA)) == "—"
    assert money(Decimal("196"), "USD") == "$196.00" and money(None) == "—"
