"""Is a game approved here on this day, and are its approval's conditions met (shared with the lint)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from ..base import ERROR, INFO, WARNING, Rule, finding
from .facts import ApprovalFacts, Condition

EXPIRING_WITHIN = timedelta(days=30)

# Findings the approval checks make besides their own rule's (approval.game_approved at a posting,
# approval.table_game in the lint).
TRIAL_PERIOD = Rule("approval.trial_period", "Trial period", "The approval in force: its trial period")
EXPIRING = Rule("approval.expiring", "Approval expiring soon", "The approval in force: its expiry or trial end")
CONDITIONS_OUTSTANDING = Rule("approval.conditions_outstanding", "Approval conditions outstanding",
                              "The approval's conditions, where its source writes them")


@dataclass(frozen=True)
class ApprovalState:
    approval: ApprovalFacts
    in_force: bool
    why: str  # for a floor supervisor
    date_stated: bool


def approval_state(approval: ApprovalFacts, day: date) -> ApprovalState:
    start = approval.effective_from or approval.decided_on
    ref = f"{approval.reference or approval.key}"
    if approval.status in ("withdrawn", "revoked", "pending"):
        return ApprovalState(approval, False, f"the approval ({ref}) is {approval.status}", start is not None)
    if start is not None and day < start:
        return ApprovalState(approval, False, f"the approval ({ref}) applies only from {start.isoformat()}", True)
    if approval.expires_on is not None and day > approval.expires_on:
        return ApprovalState(approval, False, f"the approval ({ref}) expired on {approval.expires_on.isoformat()}",
                             True)
    if approval.status == "trial" and approval.trial_ends_on is not None and day > approval.trial_ends_on:
        return ApprovalState(approval, False, f"the trial ({ref}) ended on {approval.trial_ends_on.isoformat()}",
                             True)
    return ApprovalState(approval, True, "", start is not None)


def scopes_for(establishment_kind: str | None) -> tuple[str, ...]:
    if establishment_kind is None:
        return ("all", "commercial", "tribal")
    return ("all", "tribal") if establishment_kind == "tribal_casino" else ("all", "commercial")


def relevant_approvals(approvals, game, jurisdiction, establishment, establishment_kind):
    scopes = scopes_for(establishment_kind)
    return [
        a for a in approvals
        if a.game == game and a.jurisdiction == jurisdiction and a.scope in scopes
        and (establishment is None or a.establishment in (None, establishment))
    ]


def approval_findings(rule, subject, approvals, game_label, jurisdiction, establishment, establishment_kind, day,
                      place=None):
    """Findings of ``rule`` (a posting's approval.game_approved, the lint's approval.table_game) for 'is this game
    approved here on this day', with the trial, expiry and conditions findings that go with them."""
    citation_default = {
        "CA": "11 CCR 2071 (a game must be approved before it is offered)",
        "WA": "WAC 230-15-035 (only games the director authorized may be played)",
    }.get(jurisdiction, "Game approval")
    where = place or establishment or jurisdiction  # place: the establishment's name, for people
    if not approvals:
        return [finding(rule, ERROR, subject,
                        f"{game_label} has no approval recorded for {where}: it may not be offered.",
                        citation_default)]
    states = [approval_state(a, day) for a in approvals]
    in_force = [s for s in states if s.in_force]
    if not in_force:
        reasons = "; ".join(s.why for s in states)
        return [finding(rule, ERROR, subject,
                        f"{game_label} is not approved for {where} on {day.isoformat()}: {reasons}.",
                        states[0].approval.citation)]
    chosen = next((s for s in in_force if s.date_stated), in_force[0])
    approval = chosen.approval
    out = []
    if not chosen.date_stated:
        out.append(finding(rule, INFO, subject,
                           f"{game_label} is approved ({approval.reference}), but the approval states no date; "
                           "treated as in force.", approval.citation))
    if approval.status == "trial":
        end = (f"until {approval.trial_ends_on.isoformat()}" if approval.trial_ends_on
               else "with no end date stated")
        out.append(finding(TRIAL_PERIOD, INFO, subject,
                           f"{game_label} is on trial ({approval.reference}) {end}; "
                           f"{day.isoformat()} is within the trial.", approval.citation))
    if approval.expires_on is not None and approval.expires_on - day <= EXPIRING_WITHIN:
        out.append(finding(EXPIRING, WARNING, subject,
                           f"The approval of {game_label} ({approval.reference}) expires on "
                           f"{approval.expires_on.isoformat()}.", approval.citation))
    if establishment is None and approval.establishment is not None:
        out.append(finding(rule, INFO, subject,
                           f"{game_label} is approved only at {approval.establishment}; name the establishment "
                           "to check a posting there.", approval.citation))
    out.extend(condition_findings(subject, approval, game_label, establishment, establishment_kind, day, place))
    return out


def conditions_outstanding(approval: ApprovalFacts, establishment: str | None, establishment_kind: str | None,
                           day: date) -> list[Condition]:
    """The prerequisites of ``approval`` that concern an establishment of this kind (``applies_to``) and are not
    recorded as met at ``establishment`` on or before ``day`` (all of them when no establishment is named). A
    condition the source itself records as met, not applicable or withdrawn is outstanding nowhere; 'operating'
    and 'other_party' conditions are never met once, so never outstanding here."""
    scopes = scopes_for(establishment_kind)
    return [c for c in approval.conditions
            if c.kind == "prerequisite" and c.status == "outstanding" and c.applies_to in scopes
            and (establishment is None or c.met_at(establishment, day) is None)]


def condition_findings(subject, approval: ApprovalFacts, game_label, establishment, establishment_kind, day,
                       place=None):
    """``approval.conditions_outstanding``: an error when a prerequisite of the approval in force is not recorded
    as met at the establishment by ``day`` (the game may not be offered there yet), naming each condition and
    citing where it is written; without an establishment, a warning that they must be met where it is offered."""
    outstanding = conditions_outstanding(approval, establishment, establishment_kind, day)
    if not outstanding:
        return []
    named = "; ".join(f"{c.label()}, \"{c.text.rstrip('.')}\"" for c in outstanding)
    citation = "; ".join(dict.fromkeys(c.citation for c in outstanding))
    count = f"{len(outstanding)} condition{'s' if len(outstanding) > 1 else ''}"
    if establishment is None:
        return [finding(CONDITIONS_OUTSTANDING, WARNING, subject,
                        f"The approval of {game_label} ({approval.reference}) has {count} to be met at each "
                        f"establishment before the game is offered there: {named}. Name the establishment to check "
                        "whether they are met.", citation)]
    return [finding(CONDITIONS_OUTSTANDING, ERROR, subject,
                    f"{game_label} may not be offered at {place or establishment} on {day.isoformat()}: {count} of its "
                    f"approval ({approval.reference}) {'are' if len(outstanding) > 1 else 'is'} not recorded as met "
                    f"there: {named}.", citation)]
