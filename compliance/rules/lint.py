"""Schedule lint and approval lint: what is wrong or unclear in the data itself. Pure Python.

A regulator can run ``lint_documents`` over any document versions: each option's tiers are checked
(ascending, contiguous, non-negative, in cents, open-ended at the top, unambiguous; the printed cells agree with
the typed values; the fee cliffs at each tier edge), then options are compared across the versions in force at
the same time (same tiers, a different fee in some cell). ``lint_approvals`` looks at
approvals (expired or expiring, trials ending) and at the tables that offer a game without one in force or
whose approval's prerequisites are outstanding at their establishment.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from cardroom.money import CENT
from fees import engine
from fees.engine import kinds
from fees.engine.bands import UNCLEAR as _UNCLEAR
from fees.engine.bands import band_edges, is_banded, reading_order

from .base import ERROR, INFO, WARNING, Finding, Rule, dollars, finding
from .postings import (
    EXPIRING,
    EXPIRING_WITHIN,
    ApprovalFacts,
    approval_findings,
    approval_state,
    read_measure,
    reading_citations,
    readings,
    relevant_approvals,
    scopes_for,
)
from .printed import bounds_disagree, read_amount, read_bounds

_SCHEDULE = "The approved schedule document, as printed"
NO_FEES = Rule("lint.no_fees", "Option without fees", _SCHEDULE)
NEGATIVE = Rule("lint.negative", "No negative amounts", _SCHEDULE)
CENTS = Rule("lint.cents", "Amounts in whole cents", _SCHEDULE)
ASCENDING = Rule("lint.ascending", "Tiers in order", _SCHEDULE)
AMBIGUOUS = Rule("lint.ambiguous", "Unclear schedule entry", _SCHEDULE)
CONTIGUOUS = Rule("lint.contiguous", "Tiers without gaps or overlaps", _SCHEDULE)
CLOSED_TOP = Rule("lint.closed_top", "Top tier closed", _SCHEDULE)
PRINTED_FEE = Rule("schedule.printed_fee_mismatch", "Printed fee matches the typed one", _SCHEDULE)
PRINTED_BOUNDS = Rule("schedule.printed_bounds_mismatch", "Printed tier bounds match the typed ones", _SCHEDULE)
FEE_CLIFF = Rule("schedule.fee_cliff", "Fee step at a tier edge", _SCHEDULE)
CONSISTENCY = Rule("lint.consistency", "Schedules in force together agree",
                   "The approved schedule documents in force on the same day")
EXPIRED = Rule("approval.expired", "Approval expired", "The approval: its status, expiry or trial end")
TABLE_GAME = Rule("approval.table_game", "Game at a table approved",
                  "11 CCR 2071; WAC 230-15-035 (a game is offered only once approved); the approval in force")



@dataclass(frozen=True)
class DocumentFacts:
    code: str
    version: int
    effective_from: date | None
    jurisdiction: str
    establishment: str | None
    citation: str
    options: tuple[engine.Option, ...]
    # The first day it is no longer in force, where the caller knows it (None: until superseded by a later version
    # of the same document among those linted, or for good).
    effective_to: date | None = None


def option_subject(code, version, number):
    return {"type": "schedule_option", "schedule": code, "version": version, "option": number}


def _amount(value, measure):
    if value is None:
        return "open"
    return f"{value.normalize()} players" if measure == "players" else dollars(value)


def _in_cents(value):
    return value is None or value == value.quantize(CENT)


def lint_option(code: str, version: int, option: engine.Option, citation: str = "", cliffs: bool = False
                ) -> list[Finding]:
    subject = option_subject(code, version, option.number)
    where = f"{code} v{version} option {option.number}"
    cite = f"{code} option {option.number}: {option.citation}" if option.citation else code
    out: list[Finding] = []
    if not option.tiers:
        return [finding(NO_FEES, INFO, subject, f"{where} prints no fees (blank fee cells).", cite)]
    groups: dict[str, list] = {}
    for tier in option.tiers:
        groups.setdefault(tier.fee_kind, []).append(tier)
    for kind, tiers in groups.items():
        name = kinds.WORDS.get(kind, kind)
        measures = {t.measure for t in tiers}
        measure = tiers[0].measure
        for t in tiers:
            for label, value in (("lower bound", t.lower), ("upper bound", t.upper), ("fee", t.fee)):
                if value is not None and value < 0:
                    out.append(finding(NEGATIVE, ERROR, subject,
                                       f"{where}: the {name} row {t.order} has a negative {label} ({value}).", cite))
                if not _in_cents(value):
                    out.append(finding(CENTS, ERROR, subject,
                                       f"{where}: the {name} row {t.order} has a {label} of {value}, not a whole "
                                       "number of cents.", cite))
            if t.lower is not None and t.upper is not None and t.lower > t.upper:
                out.append(finding(ASCENDING, ERROR, subject,
                                   f"{where}: the {name} row {t.order} runs from {_amount(t.lower, measure)} down to "
                                   f"{_amount(t.upper, measure)}.", cite))
        if measures & _UNCLEAR or len(measures) > 1:
            out.append(finding(AMBIGUOUS, WARNING, subject,
                               f"{where}: the {name} does not state what it is measured on "
                               f"({', '.join(sorted(measures))}); it cannot be charged without guessing.", cite))
        elif read := readings(tiers, "measure"):  # read by an approved interpretation: said, not guessed
            out.append(finding(AMBIGUOUS, INFO, subject, f"{where}: {read_measure(name, read, measure)}",
                               reading_citations(cite, read)))
        if measure == "flat" or measure in _UNCLEAR:
            if len(tiers) > 1 and all(t.lower is None and t.upper is None for t in tiers):
                fees = ", ".join(t.printed_fee or dollars(t.fee) for t in tiers)
                out.append(finding(AMBIGUOUS, WARNING, subject,
                                   f"{where}: the {name} cell holds {len(tiers)} values ({fees}) with nothing to "
                                   "choose between them.", cite))
                continue
        if not is_banded(tiers):
            continue
        ordered, edges = band_edges(tiers)
        if ordered is None:
            out.append(finding(ASCENDING, ERROR, subject,
                               f"{where}: the {name} rows are in neither ascending nor descending order of their "
                               "bounds.", cite))
            continue
        for what, before, after, step in edges:
            if what == "overlap":
                out.append(finding(CONTIGUOUS, ERROR, subject,
                                   f"{where}: the {name} rows overlap: {before.printed_bounds or before.upper} and "
                                   f"{after.printed_bounds or after.lower} both cover "
                                   f"{_amount(after.lower if after.lower is not None else before.upper, measure)}.",
                                   cite))
            else:
                out.append(finding(CONTIGUOUS, ERROR, subject,
                                   f"{where}: the {name} has a gap: nothing covers "
                                   f"{_amount(before.upper + step, measure)} to {_amount(after.lower - step, measure)} "
                                   f"(between {before.printed_bounds or before.upper} and "
                                   f"{after.printed_bounds or after.lower}).", cite))
        top = ordered[-1]
        top_read = top.interpreted("upper")
        if top_read is not None:
            printed = _amount(Decimal(top_read.printed) if top_read.printed else None, measure)
            read = (f"open-ended above {_amount(top.lower, measure)}" if top.upper is None
                    else f"to stop at {_amount(top.upper, measure)}")
            out.append(finding(CLOSED_TOP, INFO, subject,
                               f"{where}: the {name}'s top row is printed "
                               f"{top.printed_bounds or ('up to ' + printed)}; it is read {read}. "
                               f"{engine.footnote(top_read)}", reading_citations(cite, [top_read])))
        elif top.upper is not None:
            out.append(finding(CLOSED_TOP, WARNING, subject,
                               f"{where}: the {name} stops at {_amount(top.upper, measure)} "
                               f"({top.printed_bounds or 'last row'}); above {_amount(top.upper, measure)} no fee is "
                               "stated, so a table using this option must keep below it.", cite))
    out.extend(lint_printed(code, version, option))
    if cliffs:  # one note per tier edge (421 over the seed): asked for, not kept in every run's inbox
        out.extend(lint_fee_cliffs(code, version, option))
    return out


_COUNTS = {"players", "elapsed_time"}  # bounds that are counts of players or of intervals, never amounts
_ACTION = {"base_wager": "each base wager", "player_wager": "the player's total base wager",
           "total_table_action": "total table action"}


def row_citation(code, option, tier):
    """Where a tier is printed: the document, the option's own citation and the row."""
    where = f"{code} option {option.number}"
    return f"{where}: {option.citation}, row {tier.order}" if option.citation else f"{where}, row {tier.order}"


def _typed_bounds(tier):
    if tier.lower is None and tier.upper is None:
        return "no bounds"
    lower = "no lower bound" if tier.lower is None else dollars(tier.lower)
    return f"{lower} to {'open' if tier.upper is None else dollars(tier.upper)}"


def lint_printed(code: str, version: int, option: engine.Option) -> list[Finding]:
    """Printed and typed values agree: a printed fee that reads as an amount is the typed fee
    (``schedule.printed_fee_mismatch``), printed bounds that read as amounts are the typed bounds
    (``schedule.printed_bounds_mismatch``). A cell that cannot be read as amounts (words, "N/A", blank) and the
    bounds of poker and time rows (player counts, intervals) are not compared: nothing is guessed."""
    out = []
    where = f"{code} v{version} option {option.number}"
    for t in option.tiers:
        name = kinds.WORDS.get(t.fee_kind, t.fee_kind)
        subject = {**option_subject(code, version, option.number), "fee_kind": t.fee_kind, "row": t.order}
        printed_fee = read_amount(t.printed_fee)
        if printed_fee is not None and printed_fee != t.fee:
            out.append(finding(
                PRINTED_FEE, ERROR,
                {**subject, "printed": t.printed_fee, "typed": str(t.fee)},
                f"{where}: the {name} row {t.order} prints \"{t.printed_fee}\" but its fee is typed as "
                f"{dollars(t.fee)}: quotes and signs use the typed fee, so one of the two is wrong.",
                row_citation(code, option, t)))
        if t.measure in _COUNTS or not t.printed_bounds:
            continue
        printed = read_bounds(t.printed_bounds)
        if printed is None:
            continue
        differing = bounds_disagree(printed, t.lower, t.upper)
        read = [t.interpreted(bound) for bound in differing if t.interpreted(bound) is not None]
        if differing and len(read) == len(differing):  # each differing bound is read so by an interpretation
            out.append(finding(
                PRINTED_BOUNDS, INFO,
                {**subject, "printed": t.printed_bounds, "typed": [None if t.lower is None else str(t.lower),
                                                                  None if t.upper is None else str(t.upper)],
                 "bounds": differing},
                f"{where}: the {name} row {t.order} prints bounds \"{t.printed_bounds}\"; it is read as "
                f"{_typed_bounds(t)}. " + " ".join(engine.footnote(r) for r in read),
                reading_citations(row_citation(code, option, t), read)))
        elif differing:
            out.append(finding(
                PRINTED_BOUNDS, ERROR,
                {**subject, "printed": t.printed_bounds, "typed": [None if t.lower is None else str(t.lower),
                                                                  None if t.upper is None else str(t.upper)],
                 "bounds": differing},
                f"{where}: the {name} row {t.order} prints bounds \"{t.printed_bounds}\" but is typed as "
                f"{_typed_bounds(t)} (the {' and '.join(b + ' bound' for b in differing)} differ"
                f"{'s' if len(differing) == 1 else ''}).",
                row_citation(code, option, t)))
    return out


def _plain(number: Decimal) -> str:
    """'200' for 200.00, '12.5' for 12.50: no exponent, no trailing zeros."""
    text = format(number, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _percent(rate: Decimal) -> str:
    return f"{Decimal(_plain(rate.quantize(CENT))):,}%"


def lint_fee_cliffs(code: str, version: int, option: engine.Option) -> list[Finding]:
    """Fee cliffs (``schedule.fee_cliff``, info): where a fee measured on an amount (a base wager, a player's
    total wager, total table action) rises from one tier to the next, one more dollar (one more cent where the
    bounds are in cents) of that amount costs the whole rise: the marginal rate at that tier edge, e.g. $1 up
    to $100 and $3 from $101 is $2 for the 101st dollar, a 200% marginal rate. One finding per edge."""
    out = []
    where = f"{code} v{version} option {option.number}"
    groups: dict[str, list] = {}
    for tier in option.tiers:
        groups.setdefault(tier.fee_kind, []).append(tier)
    for kind, tiers in groups.items():
        measures = {t.measure for t in tiers}
        if len(measures) != 1 or tiers[0].measure not in _ACTION or len(tiers) < 2:
            continue
        ordered = reading_order(tiers)
        if ordered is None:
            continue  # reported as out of order
        name = kinds.WORDS.get(kind, kind)
        whole = all(t.upper is None or t.upper == t.upper.to_integral_value() for t in ordered)
        step = Decimal(1) if whole else CENT
        unit = "dollar" if whole else "cent"
        for before, after in zip(ordered, ordered[1:]):
            if before.upper is None or after.fee <= before.fee:
                continue
            jump = after.fee - before.fee
            rate = jump / step * 100
            edge = before.upper
            subject = {**option_subject(code, version, option.number), "fee_kind": kind,
                       "rows": [before.order, after.order], "edge": str(edge), "jump": str(jump),
                       "marginal_rate_percent": _plain(rate)}
            out.append(finding(
                FEE_CLIFF, INFO, subject,
                f"{where}: the {name} rises from {dollars(before.fee)} to {dollars(after.fee)} between "
                f"{dollars(edge)} and {dollars(edge + step)} of {_ACTION[before.measure]} (rows {before.order} and "
                f"{after.order}): one more {unit} costs {dollars(jump)} more in fee, a {_percent(rate)} marginal "
                "rate at that edge.",
                f"{row_citation(code, option, before)}; row {after.order}"))
    return out


def _charged(option: engine.Option):
    """The rows that can charge something: a flat $0 row (GEGA-002888 options 1-38's player fee) charges nothing."""
    return tuple(t for t in option.tiers if not (t.measure == "flat" and t.fee == 0))


def _signature(option: engine.Option):
    """The option's rows without their fees: what it measures and where its bounds are."""
    return tuple((t.fee_kind, t.measure, t.lower, t.upper) for t in _charged(option))


def _fees(option: engine.Option):
    return tuple(t.fee for t in _charged(option))


def _rank(doc):
    """How ``ScheduleDocument.version_as_of`` ranks versions on a day they are all in effect from: the latest
    effective date wins (a version with none is in force from the beginning), then the higher number."""
    return (doc.effective_from is not None, doc.effective_from or date.min, doc.version)


def in_force_periods(documents) -> dict:
    """``{(code, version): (first day, first day no longer)}`` of each version, by the rule of
    ``ScheduleDocument.version_as_of``: a version is in force from its effective date (from the beginning when
    it has none) until a version of the same document among ``documents`` that ranks above it takes effect, or
    its ``effective_to`` where given. ``date.min`` / ``date.max`` stand for no start / no end; a version
    superseded on the day it takes effect has an empty period (start >= end) and is never in force."""
    by_code: dict = {}
    for doc in documents:
        by_code.setdefault(doc.code, []).append(doc)
    periods = {}
    for doc in documents:
        start = doc.effective_from or date.min
        ends = [doc.effective_to] if doc.effective_to is not None else []
        for other in by_code[doc.code]:
            if other is not doc and other.version != doc.version and _rank(other) > _rank(doc):
                ends.append(other.effective_from or date.min)
        periods[(doc.code, doc.version)] = (start, min(ends, default=date.max))
    return periods


def _overlap(a, b) -> bool:
    return max(a[0], b[0]) < min(a[1], b[1])


def lint_consistency(documents) -> list[Finding]:
    """The same option (same rows and bounds) in two documents in force at the same time, with a different fee
    in a cell.

    Only versions whose periods in force overlap are compared (``in_force_periods``): two versions of one
    document never are (one replaces the other), two documents in force on the same day may be. Options count
    as the same when every row and bound matches and the fees differ in fewer than half of the
    cells that carry a fee (more than that is a different option with the same bands, e.g. GEGA-002888
    options 1-3), and the other document has no option with exactly those fees. Each pair is reported once,
    naming both places and the differing cells.
    """
    documents = list(documents)
    periods = in_force_periods(documents)
    entries = []
    for doc in documents:
        for option in doc.options:
            if _charged(option):
                entries.append((doc, option, _signature(option), _fees(option)))
    by_signature: dict = {}
    for entry in entries:
        by_signature.setdefault(entry[2], []).append(entry)
    out = []
    seen = set()
    for group in by_signature.values():
        for i, (doc_a, opt_a, _, fees_a) in enumerate(group):
            for doc_b, opt_b, _, fees_b in group[i + 1:]:
                if (doc_a.code, doc_a.version) == (doc_b.code, doc_b.version) or fees_a == fees_b:
                    continue
                if not _overlap(periods[(doc_a.code, doc_a.version)], periods[(doc_b.code, doc_b.version)]):
                    continue  # never in force on the same day (one version of a document replaces the other)
                if doc_a.code == doc_b.code and opt_a.number != opt_b.number:
                    continue  # two options of one document that share bands are different options
                cells = [k for k, (x, y) in enumerate(zip(fees_a, fees_b)) if x != y]
                charged = sum(1 for x, y in zip(fees_a, fees_b) if x or y)
                if not cells or len(cells) * 2 >= charged:
                    continue
                exact_a = any(s == group[0][2] and f == fees_a and d.code == doc_b.code and d.version == doc_b.version
                              for d, _, s, f in group)
                exact_b = any(s == group[0][2] and f == fees_b and d.code == doc_a.code and d.version == doc_a.version
                              for d, _, s, f in group)
                if exact_a or exact_b:
                    continue
                key = tuple(sorted([(doc_a.code, doc_a.version, opt_a.number), (doc_b.code, doc_b.version, opt_b.number)]))
                if key in seen:
                    continue
                seen.add(key)
                rows_a = _charged(opt_a)
                differing = "; ".join(
                    f"{kinds.WORDS.get(rows_a[k].fee_kind, rows_a[k].fee_kind)} "
                    f"{rows_a[k].printed_bounds or _amount(rows_a[k].upper, rows_a[k].measure)}: "
                    f"{dollars(fees_a[k])} in {doc_a.code} option {opt_a.number}, {dollars(fees_b[k])} in "
                    f"{doc_b.code} option {opt_b.number}"
                    for k in cells
                )
                subject = {
                    "type": "schedule_option", "schedule": doc_a.code, "version": doc_a.version, "option": opt_a.number,
                    "other": {"schedule": doc_b.code, "version": doc_b.version, "option": opt_b.number},
                    "cells": [rows_a[k].order for k in cells],
                }
                out.append(finding(CONSISTENCY, WARNING, subject,
                                   f"{doc_a.code} v{doc_a.version} option {opt_a.number} and {doc_b.code} "
                                   f"v{doc_b.version} option {opt_b.number} have the same tiers but different fees "
                                   f"({differing}).",
                                   f"{doc_a.code} option {opt_a.number}: {opt_a.citation}; {doc_b.code} option "
                                   f"{opt_b.number}: {opt_b.citation}"))
    return out


def lint_documents(documents, cliffs=False) -> list[Finding]:
    """Every option of ``documents`` and the conflicts between them; with ``cliffs``, each fee cliff too."""
    out = []
    for doc in documents:
        for option in doc.options:
            out.extend(lint_option(doc.code, doc.version, option, cliffs=cliffs))
    out.extend(lint_consistency(documents))
    return out


@dataclass(frozen=True)
class TableFacts:
    establishment: str
    establishment_kind: str
    jurisdiction: str
    label: str
    game: str
    game_name: str
    establishment_name: str | None = None


def lint_approvals(approvals, tables, day: date) -> list[Finding]:
    """Approvals expired or expiring, trials ending; tables offering a game with no approval in force, or whose
    approval's prerequisites are not recorded as met at the table's establishment (``approval_findings``).

    Conditions are met per establishment, so there is no jurisdiction-wide "conditions outstanding" finding on an
    approval: an establishment that does not offer the game need not meet them, and one that does gets an error
    on each table set up with the game and on each posting of it (``approval.conditions_outstanding``)."""
    out = []
    for a in approvals:
        subject = {"type": "approval", "approval": a.key, "game": a.game, "establishment": a.establishment,
                   "jurisdiction": a.jurisdiction}
        label = f"The approval of {a.game_name} ({a.reference or a.key})"
        state = approval_state(a, day)
        if not state.in_force and a.status not in ("pending",):
            out.append(finding(EXPIRED, ERROR if a.status != "withdrawn" else WARNING, subject,
                               f"{label}: {state.why}.", a.citation))
        elif a.expires_on is not None and day <= a.expires_on <= day + EXPIRING_WITHIN:
            out.append(finding(EXPIRING, WARNING, subject,
                               f"{label} expires on {a.expires_on.isoformat()}, within 30 days.", a.citation))
        if a.status == "trial" and a.trial_ends_on is not None and day <= a.trial_ends_on <= day + EXPIRING_WITHIN:
            out.append(finding(EXPIRING, WARNING, subject,
                               f"{label}: the trial ends on {a.trial_ends_on.isoformat()}, within 30 days.",
                               a.citation))
    for t in tables:
        subject = {"type": "table", "establishment": t.establishment, "table": t.label, "game": t.game}
        found = relevant_approvals(approvals, t.game, t.jurisdiction, t.establishment, t.establishment_kind)
        errors = [f for f in approval_findings(TABLE_GAME, subject, found, t.game_name, t.jurisdiction,
                                               t.establishment, t.establishment_kind, day, t.establishment_name)
                  if f.severity == ERROR]
        out.extend(errors)
    return out


__all__ = ["ApprovalFacts", "DocumentFacts", "TableFacts", "in_force_periods", "lint_approvals", "lint_consistency",
           "lint_documents", "lint_fee_cliffs", "lint_option", "lint_printed", "scopes_for"]
