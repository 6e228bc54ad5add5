"""The tier grid at 1280 px: every select shows its whole choice (issue 25)."""

import datetime

from fees.models import ScheduleDocument

# Every choice of each select, measured in the select's own font, against the room the select gives it (its width
# less its padding and the arrow): whichever is chosen, it is shown whole.
CLIPPED = """() => {
  const ctx = document.createElement("canvas").getContext("2d");
  return [...document.querySelectorAll(".tiers-grid select")].flatMap(s => {
    const style = getComputedStyle(s);
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 22;
    return [...s.options].filter(o => ctx.measureText(o.text).width > room)
      .map(o => `${s.getAttribute("aria-label")}: ${o.text}`);
  });
}"""


def test_the_grid_choices_are_readable_at_1280_px(login, site):
    document = ScheduleDocument.objects.get(code="GEGA-002888")
    draft = document.new_draft(based_on=document.versions.get(number=1), user=site.compliance, reason="Letter",
                               effective_from=datetime.date(2030, 1, 1))
    page = login(site.compliance)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{site.url}/compliance/casino-marysville/schedules/GEGA-002888/versions/{draft.number}/options/43/tiers/")
    assert page.locator(".tiers-grid select").count() > 20
    assert page.evaluate(CLIPPED) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
