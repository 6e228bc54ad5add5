"""The floor's and the regulator's long tables are formatted once in Python (console.rows, issue 25): what people
typed reaches the page escaped, in the same words the template wrote."""

import datetime

import pytest
import time_machine

from cardroom.access import Scope
from signage import services
from signage.postings import post_table, read_posting
from tests.console.views.test_floor import LA, floor_of  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db
REASON = 'Print <b>now</b> & "ask" \'later\''
ESCAPED = "Print &lt;b&gt;now&lt;/b&gt; &amp; &quot;ask&quot; &#x27;later&#x27;"


def test_an_override_reason_is_escaped_on_the_floor_and_the_regulators_page(client, people, floor_of):  # noqa: F811
    data = {"table": floor_of["12"].pk, "schedule": "GEGA-002888", "option": 1, "min_wager": "5",
            "max_wager": "20000", "effective_from": datetime.datetime(2027, 3, 3, 4, 1, tzinfo=LA).isoformat()}
    posting, run = post_table(people.floor, fields=read_posting(data, scope=Scope(people.floor), now=datetime.datetime(
        2027, 3, 3, 4, 0, tzinfo=LA)))
    assert run.errors == 1
    with time_machine.travel(datetime.datetime(2027, 3, 3, 5, 0, tzinfo=LA), tick=False):
        services.request_override(people.compliance, posting=posting, reason=REASON)
        services.approve_override(people.compliance_2, posting=posting, reason="Findings read & print.")
        client.force_login(people.floor)
        floor = client.get("/floor/casino-marysville/").content.decode()
        client.force_login(people.regulator_ca)
        regulator = client.get("/regulator/casino-marysville/").content.decode()
    assert "<b>now" not in floor and "<b>now" not in regulator
    assert (f'<td data-label="Findings"><span class="badge error">1 error</span> <br><span class="small override">'
            f"Prints under an override approved by t-compliance-2 on 2027-03-03 05:00 PST: “{ESCAPED}”</span></td>"
            ) in floor
    assert (f'<input type="checkbox" name="tables" value="{floor_of["12"].pk}" aria-label="Include table 12">'
            ) in floor
    assert (f'<span class="small override">Its sign prints under an override approved by t-compliance-2 on '
            f"2027-03-03 05:00 PST: “{ESCAPED}”</span></td>") in regulator
    assert (f'<br><span class="small override">Overridden for printing: asked for by t-compliance (“{ESCAPED}”), '
            "approved by t-compliance-2 on 2027-03-03 05:00 PST.</span></td>") in regulator
