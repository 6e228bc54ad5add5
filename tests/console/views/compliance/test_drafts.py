"""The tier grid refuses what the schedule lint calls wrong, rows of other options and absurd row counts (issue 25);
the option picker says what tells the options apart."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from fees.models import FeeOption, FeeTier, ScheduleDocument
from fees.schedules.option_label import option_label
from tests.console.views.compliance.test_compliance import GEGA, grid_data, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def officer(client, people):
    client.force_login(people.compliance)
    return client


def stored(draft):
    return list(FeeTier.objects.filter(option__version=draft).order_by("option__number", "order").values_list(
        "option__number", "order", "lower", "upper", "fee"))


def refused(officer, draft, **changes):
    """POST option 43's grid with ``changes``; assert a 400 that saved nothing; return the response."""
    address = url("compliance-edit-tiers", GEGA, draft.number, 43)
    before = stored(draft)
    response = officer.post(address, grid_data(officer.get(address), **changes) | {"reason": "Bureau letter"})
    assert response.status_code == 400
    assert stored(draft) == before
    return response


# Option 43's player fee rows 1-5: $1-$100, $101-$200, $201-$300, $301-$400, $401+.

def test_overlapping_rows_are_named(officer, draft):
    response = refused(officer, draft, **{"2-lower": "150"})
    assert list(response.context["formset"].non_form_errors()) == [
        "The player fee rows 2 and 3 overlap: $101-$200 and $150-$300."]
    assert "rows 2 and 3 overlap" in response.content.decode()


def test_gapped_rows_are_named(officer, draft):
    response = refused(officer, draft, **{"2-lower": "250"})
    assert list(response.context["formset"].non_form_errors()) == [
        "The player fee rows 2 and 3 leave a gap: nothing covers $201-$249 (between $101-$200 and $250-$300)."]


def test_rows_out_of_number_order_are_checked_by_their_bands(officer, draft):
    # Rows 1 and 2 trade numbers but not bounds: the bands still meet, so it saves.
    address = url("compliance-edit-tiers", GEGA, draft.number, 43)
    response = officer.post(address, grid_data(officer.get(address), **{"0-order": "2", "1-order": "1"})
                            | {"reason": "Renumbered"})
    assert response.status_code == 302


def test_a_row_of_another_option_is_an_error_not_ignored(officer, draft):
    other = FeeTier.objects.get(option__version=draft, option__number=42, order=1)
    response = refused(officer, draft, **{"1-id": str(other.pk), "1-fee": "9"})
    assert "is not one of option 43's tiers" in " ".join(response.context["formset"].forms[1].non_field_errors())
    assert "Nothing was saved" in response.content.decode()


def test_a_new_row_claiming_an_existing_tier_is_an_error(officer, draft):
    other = FeeTier.objects.get(option__version=draft, option__number=42, order=1)
    response = refused(officer, draft, **{"7-id": str(other.pk), "7-order": "8", "7-fee_kind": "jackpot",
                                          "7-payer": "pot", "7-measure": "flat", "7-fee": "1",
                                          "7-taken": "after_flop", "7-printed_fee": "$1"})
    assert "is not one of option 43's tiers" in " ".join(response.context["formset"].forms[7].non_field_errors())


def test_an_absurd_row_count_is_refused_before_any_row_is_read(officer, draft):
    address = url("compliance-edit-tiers", GEGA, draft.number, 43)
    data = grid_data(officer.get(address)) | {"reason": "Bureau letter", "tiers-TOTAL_FORMS": "100000"}
    before = stored(draft)
    with CaptureQueriesContext(connection) as queries:
        response = officer.post(address, data)
    assert response.status_code == 400 and "at most 500" in response.content.decode()
    assert len(queries) < 25  # session, user, scope, draft, option: no query per claimed row
    assert stored(draft) == before


def test_more_existing_rows_claimed_than_sent_is_refused(officer, draft):
    response = refused(officer, draft, **{"INITIAL_FORMS": "9"})
    assert "claims 9 existing rows but sent 8" in response.content.decode()


def test_picker_labels_say_what_tells_the_options_apart(officer):
    version = ScheduleDocument.objects.get(code=GEGA).versions.get(number=1)
    options = FeeOption.objects.filter(version=version).prefetch_related("tiers").order_by("number")
    labels = {o.number: option_label(o.number, o.tiers.all()) for o in options}
    assert labels[1] == "Option 1 · table action: $1-$10 $1.00 … $201+ $5.00"
    assert labels[43] == ("Option 43 · each base wager: $1-$100 $1.00 … $401+ $5.00 · "
                          "table action: $1-$100 $1.00 $101-$300 $3.00")
    assert len(labels) == 49
    page = officer.get(url("compliance-schedule", GEGA)).content.decode()
    assert ">Option 1 · table action: $1-$10 $1.00 … $201+ $5.00</option>" in page
    assert "limits $1.00" not in page  # the limits all 49 options share no longer fill the picker


def test_option_label_is_pure_and_handles_flat_and_other_currencies():
    from fees.engine import Tier

    tiers = [Tier(2, "player", "player", "flat", None, None, Decimal("0"), "before_deal"),
             Tier(1, "collection", "pot", "players", Decimal("2"), Decimal("5"), Decimal("1.5"), "after_flop")]
    assert option_label(7, tiers, "GBP") == "Option 7 · players: 2-5 players £1.50"
    assert option_label(8, [Tier(1, "time", "player", "flat", None, None, Decimal("6"), "each_interval")]) == (
        "Option 8 · time collection $6.00")
