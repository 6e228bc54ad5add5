"""The error findings that stand open at a room, in its compliance officers' "Awaiting you" (``cardroom.inbox``):
what an officer must do, until it is put right or acknowledged with a reason (issue 42: a condition withdrawn
blocked two signs and the home said nothing awaited).

What it reads is the room's standing findings (``compliance.inbox.standing``, each problem once), so there is no
store of its own: the kind is registered with the inbox (``cardroom.registry.InboxKind``, from
``ComplianceConfig.ready``) as the reviews are. One item per problem, naming every table it touches: the same
condition outstanding at two tables is one thing to do, at tables OFM-1 and OFM-2.
"""

from django.db.models import Min

from cardroom import permissions
from cardroom.inbox import Awaiting
from cardroom.ordering import natural
from cardroom.registry import InboxKind

from . import inbox, links
from .models import StandingFinding
from .rules.words import rule_title

KIND = "finding_error"
PERMISSION = "console.view_compliance"
SHORT = 120  # characters of a finding's message said in the list  # the room's compliance officers; administrators everywhere


def _waiting(user, scope, establishment):
    found = StandingFinding.objects.filter(severity="error", finding__acknowledged_at__isnull=True)
    if establishment is not None:
        inbox.standing(establishment)  # worked out again first if a run or an acknowledgement came since
        found = found.filter(establishment=establishment)
    return permissions.rows(scope, PERMISSION, found)


def what(rule, message, tables):
    """'Approval conditions outstanding at tables OFM-1 and OFM-2: their signs may not be printed until it is put
    right, or a second officer approves an override' (the finding itself is one click away, on the inbox)."""
    labels = sorted({t for t in tables if t}, key=natural)
    if not labels:
        short = message if len(message) <= SHORT else message[:SHORT].rsplit(" ", 1)[0] + "…"
        return f"{rule_title(rule)}: {short}"
    where = (f"table {labels[0]}" if len(labels) == 1
             else f"tables {', '.join(labels[:-1])} and {labels[-1]}")
    signs = "its sign" if len(labels) == 1 else "their signs"
    return (f"{rule_title(rule)} at {where}: {signs} may not be printed until it is put right, or a second officer "
            f"approves an override")


def path(establishment):
    return _path(establishment.slug)


def _path(slug):
    return links.FINDINGS.path(room=slug) + "?severity=error"


def _items(pks, user, scope, establishment):
    """One item per problem. Read as plain values: at 200 tables a room stands on hundreds of error findings, and the
    navigation counts them on every page (model objects cost ~40 ms a page there)."""
    problems = {}
    rows = (StandingFinding.objects.filter(pk__in=pks).order_by("establishment_id", "position")
            .values_list("establishment_id", "establishment__slug", "finding__rule", "finding__message",
                         "table__label", "found_at"))
    for room_id, slug, rule, message, label, found_at in rows:
        problem = problems.setdefault((room_id, rule, message), {"slug": slug, "tables": [], "since": found_at})
        problem["tables"].append(label)
        problem["since"] = min(problem["since"], found_at)
    return [Awaiting(KIND, what(rule, message, p["tables"]), "", p["since"], _path(p["slug"]), room_id)
            for (room_id, rule, message), p in problems.items()]


def _one_each(rows):
    """The rows grouped as ``_items`` groups them, one per problem (``InboxKind.one_each``)."""
    return rows.values("establishment_id", "finding__rule", "finding__message").annotate(first=Min("pk"))


FINDING_ERROR_KIND = InboxKind(
    name=KIND, label="Error to put right", waiting=_waiting, items=_items,
    what=lambda row: what(row.finding.rule, row.finding.message, [row.table.label if row.table_id else None]),
    path=lambda row: path(row.establishment), approvers=lambda row: [],
    role=lambda row: f"a compliance officer of {row.establishment.name}",
    asked=lambda row: (None, ""), answered=lambda row: (None, ""),
    outcomes=("put right", "acknowledged"), alert=True, one_each=_one_each,
)
