"""House-banked games without a collection schedule: the rules version and paytables posted are the approved ones,
and every payout reads 'N to 1'."""

from __future__ import annotations

import re

from ..base import ERROR, INFO, WARNING, ParameterSet, finding, rule
from .approvals import approval_state, relevant_approvals
from .common import normal_name
from .facts import PostingFacts


@rule(code="approval.rules_and_paytables", title="Approved rules and paytables",
      citation="The approval in force and its own document; WAC 230-15-035 in Washington")
def rule_approved_rules_and_paytables(f: PostingFacts, params: ParameterSet):
    """The rules version and each paytable posted are among those the approval in force approves: the ones
    transcribed from the approval's own document. A paytable printed elsewhere with the very same payouts as an
    approved one is accepted, with an info finding saying which."""
    h = f.house_banked
    if h is None:
        return []
    relevant = relevant_approvals(f.approvals, f.game.slug, f.jurisdiction, f.establishment, f.establishment_kind)
    in_force = {a.key for a in relevant if approval_state(a, f.as_of).in_force}
    contents = [c for c in h.approved if c.approval in in_force]
    if not contents:
        return []  # approval.game_approved says there is no approval in force
    reference = "; ".join(c.reference for c in contents)
    citation = "; ".join(c.citation for c in contents)
    if f.jurisdiction == "WA":
        citation += "; WAC 230-15-035 (only games and rules the director authorized)"
    out = []
    approved_rules = [r for c in contents for r in c.rules]
    if not approved_rules:
        out.append(finding(rule_approved_rules_and_paytables, WARNING, f.subject,
                           f"The approval ({reference}) records no rules version, so whether '{h.rules.version}' "
                           "is the approved one cannot be checked.", citation))
    elif (h.rules.game, h.rules.version) not in {(r.game, r.version) for r in approved_rules}:
        listed = ", ".join(f"'{r.version}'" for r in approved_rules)
        out.append(finding(rule_approved_rules_and_paytables, ERROR, f.subject,
                           f"The rules version posted, '{h.rules.version}' ({h.rules.title}), is not one the approval "
                           f"({reference}) approves; approved: {listed}.", citation))
    approved_paytables = [p for c in contents for p in c.paytables]
    for bet, paytable in h.paytables:
        if paytable.key in {p.key for p in approved_paytables}:
            continue
        same_bet = [p for p in approved_paytables if normal_name(p.bet) == normal_name(paytable.bet)]
        same_payouts = [p for p in same_bet if p.payouts() == paytable.payouts()]
        if same_payouts:
            out.append(finding(rule_approved_rules_and_paytables, INFO, f.subject,
                               f"The {bet} {paytable.label()} ({paytable.citation}) is not the approval's own printing "
                               f"but pays exactly as its approved {same_payouts[0].label()}.", citation))
        elif not approved_paytables:
            out.append(finding(rule_approved_rules_and_paytables, WARNING, f.subject,
                               f"The approval ({reference}) records no paytable, so whether the {bet} "
                               f"{paytable.label()} is approved cannot be checked.", citation))
        else:
            listed = ", ".join(p.label() for p in same_bet) or "none"
            out.append(finding(rule_approved_rules_and_paytables, ERROR, f.subject,
                               f"The {bet} bet pays by {paytable.label()}, which the approval ({reference}) does not "
                               f"approve; approved {paytable.bet} paytables: {listed}.", citation))
    return out


_FOR = re.compile(r"\d\s*for\s*\d", re.IGNORECASE)


@rule(code="paytable.payouts_to_one", title="Payouts stated 'to 1'",
      citation="The paytable; WAC 230-15-060 (payout odds posted)")
def rule_payouts_to_one(f: PostingFacts, params: ParameterSet):
    """Every payout of a paytable in use reads 'N to 1' (what is won for each unit wagered, the wager kept),
    never 'N for 1' (which counts the wager returned: '5 for 1' pays 4 to 1), and can be read at all."""
    h = f.house_banked
    if h is None:
        return []
    out = []
    for bet, paytable in h.paytables:
        citation = f"{paytable.citation}; WAC 230-15-060 (payout odds posted)"
        for line in paytable.lines:
            if _FOR.search(line.printed):
                out.append(finding(rule_payouts_to_one, ERROR, f.subject,
                                   f"The {bet} {paytable.label()} prints the {line.hand} payout as '{line.printed}': "
                                   "payouts are stated 'to 1' (winnings for each unit wagered, the wager returned "
                                   "as well), never 'for 1', which counts the wager in the payout.", citation))
            elif line.odds is None and not line.is_push and line.fixed_amount is None:
                out.append(finding(rule_payouts_to_one, ERROR, f.subject,
                                   f"The {bet} {paytable.label()} prints the {line.hand} payout as '{line.printed}', "
                                   "which cannot be read as odds: the sign would not say what it pays.", citation))
    return out


HOUSE_BANKED = (rule_approved_rules_and_paytables, rule_payouts_to_one)
