"""The public page a sign's QR code opens: the posting as posted, whether it is still in force, and whether its sign
still shows the fees in force (printed under a schedule version since replaced: out of date)."""

import datetime

from django.http import Http404
from django.shortcuts import render
from django.utils import timezone

from cardroom.permissions import public
from fees.models import TablePosting

from . import content, printing
from .render import limits_text, money


@public  # a player's phone, with no account: the posting as posted
def verify(request, token):
    posting = (TablePosting.objects.select_related("table__establishment", "game", "schedule")
               .filter(public_token=token).first() if len(token) <= 32 else None)
    if posting is None:
        raise Http404("No posting has this verification code.")
    later = posting.superseded_by()
    now = timezone.now()
    # The fees as they stood while the posting was up: now if it still is, else its last moment.
    if later is None:
        at = max(posting.effective_from, now)
    else:
        at = max(posting.effective_from, later.effective_from - datetime.timedelta(microseconds=1))
    sign = content.sign_for(posting, at=at)
    minimum, maximum = limits_text(sign)
    in_force = later is None and posting.effective_from <= now
    printed = printing.sign_states([posting], now)[posting.pk] if in_force else None
    context = {
        "sign": sign, "posting": posting, "minimum": minimum, "maximum": maximum,
        "future": posting.effective_from > now,
        "out_of_date": printed if printed and printed["out_of_date"] else None,
        "superseded_by": later, "superseded_at": content.local(later.effective_from) if later else "",
        "successor_url": content.verify_url(later) if later else "",
        "successor_limits": (money(later.min_wager, later.currency),
                             money(later.max_wager, later.currency)) if later else None,
        "fee_tables": [
            {"table": t, "rows": [(row.bounds, money(row.fee, sign.currency)) for row in t.rows]}
            for t in sign.fee_tables
        ],
        "bonus_limits": [(b.bet, money(b.minimum, sign.currency), money(b.maximum, sign.currency), b.paytable)
                         for b in sign.bonus_limits],
        "aggregate_payout_limit": sign.house_banked and money(sign.house_banked.aggregate_payout_limit, sign.currency),
        "checked_at": content.local(now),
    }
    response = render(request, "signage/verify.html", context, status=200)
    response["Cache-Control"] = "no-store"  # the answer changes the moment a new posting takes effect
    response["X-Robots-Tag"] = "noindex"
    return response
