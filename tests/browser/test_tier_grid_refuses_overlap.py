"""The tier grid refuses overlapping tiers at save, naming the rows, and saves nothing (issue 25), in a real
browser."""

import datetime

from fees.models import FeeTier, ScheduleDocument

from .conftest import serious_violations

# Option 43 of GEGA-002888: player fee rows 1-5, $1-$100, $101-$200, $201-$300, $301-$400, $401+.
OPTION = 43


def tiers(draft):
    return list(FeeTier.objects.filter(option__version=draft, option__number=OPTION).order_by("order")
                .values_list("order", "lower", "upper", "fee"))


def test_overlapping_tiers_are_refused_naming_the_rows_and_nothing_is_saved(login, site):
    document = ScheduleDocument.objects.get(code="GEGA-002888")
    draft = document.new_draft(based_on=document.versions.get(number=1), user=site.compliance, reason="Letter",
                               effective_from=datetime.date(2030, 1, 1))
    before = tiers(draft)
    address = (f"{site.url}/compliance/casino-marysville/schedules/GEGA-002888/versions/{draft.number}/options/"
               f"{OPTION}/tiers/")
    page = login(site.compliance)
    page.goto(address)
    row_3_from = page.get_by_label("From, row 3", exact=True)
    original = row_3_from.input_value()
    assert original in ("201", "201.00")
    row_3_from.fill("150")  # row 3 now starts inside row 2's $101-$200
    page.get_by_label("Reason").fill("Bureau letter of 2 March")
    with page.expect_navigation() as saved:
        page.get_by_role("button", name="Save the tiers").click()

    assert saved.value.status == 400
    assert page.locator("ul.errorlist.nonfield li").all_inner_texts() == [
        "The player fee rows 2 and 3 overlap: $101-$200 and $150-$300."]
    assert page.get_by_role("alert").filter(has_text="Nothing was saved").count() == 1
    assert page.get_by_label("From, row 3", exact=True).input_value() == "150"  # what was typed, to correct
    assert tiers(draft) == before
    assert serious_violations(page) == []

    page.goto(address)  # a reload shows the tiers as stored: unchanged
    assert page.get_by_label("From, row 3", exact=True).input_value() == original
    assert page.get_by_label("To, row 3", exact=True).input_value() in ("300", "300.00")
