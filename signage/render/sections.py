"""The body of a sign as sections (lists of flowables kept together in a column): fee tables, bonus limits, the
house-banked approval and limits, payouts and notices, in the order a sign prints them."""

from __future__ import annotations

from xml.sax.saxutils import escape

from reportlab.platypus import Paragraph, Table, TableStyle

from .sign import FeeTable, Sign, money
from .styles import RULE, SHADE, Styles


def _p(text, style):
    return Paragraph(escape(text), style)


def _grid(rows, widths, styles: Styles, head=True):
    table = Table(rows, colWidths=widths, hAlign="LEFT")
    pad = 2.5 * styles.scale
    commands = [
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("FONTNAME", (0, 0), (-1, -1), "Vera"),  # the default Helvetica would be referenced, not embedded
        ("LINEBELOW", (0, 0), (-1, -1), 0.4, RULE),
        ("TOPPADDING", (0, 0), (-1, -1), pad),
        ("BOTTOMPADDING", (0, 0), (-1, -1), pad),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
    ]
    if head:
        commands.append(("BACKGROUND", (0, 0), (-1, 0), SHADE))
    table.setStyle(TableStyle(commands))
    return table


def _fee_section(fee_table: FeeTable, sign: Sign, width, styles: Styles):
    parts = [_p(f"{fee_table.title}. {fee_table.payer}.", styles.fee_title)]
    rows = [[_p(fee_table.measured_on, styles.cell_head), _p("Fee", styles.cell_head_right)]]
    rows += [[_p(row.bounds, styles.cell), _p(money(row.fee, sign.currency), styles.cell_right)]
             for row in fee_table.rows]
    parts.append(_grid(rows, [width * 0.68, width * 0.32], styles))
    if fee_table.note:
        parts.append(_p(fee_table.note, styles.note))
    return parts


def _limit_columns(limits):
    """Which of Minimum and Maximum the bonus limits state at all: a column no bet states is left off."""
    return [(head, attr) for head, attr in (("Minimum", "minimum"), ("Maximum", "maximum"))
            if any(getattr(b, attr) is not None for b in limits)]


def _bonus_section(sign: Sign, width, styles: Styles):
    columns = _limit_columns(sign.bonus_limits)
    share = 0.25 if len(columns) == 2 else 0.35
    rows = [[_p("Bonus bet", styles.cell_head)] + [_p(head, styles.cell_head_right) for head, _ in columns]]
    rows += [[_p(b.bet, styles.cell)] + [_p(money(getattr(b, attr), sign.currency), styles.cell_right)
                                         for _, attr in columns] for b in sign.bonus_limits]
    widths = [width * (1 - share * len(columns))] + [width * share] * len(columns)
    return [_p("Bonus bet limits", styles.heading), _grid(rows, widths, styles)]


def _house_banked_sections(sign: Sign, width, styles: Styles):
    """A house-banked posting: the approval and rules, the limits of every bet with the paytable it pays by, and
    the aggregate payout limit where one is set."""
    h = sign.house_banked
    about = [_p("Approval and rules", styles.heading)]
    if h.approval:
        about.append(_p(f"Approved: {h.approval}.", styles.cell))
    about.append(_p(f"Rules of play: {h.rules}" + (f". Dealt from {h.decks} decks." if h.decks else "."), styles.note))
    rows = [[_p("Bet", styles.cell_head), _p("Minimum", styles.cell_head_right), _p("Maximum", styles.cell_head_right)],
            [_p(h.main_bet, styles.cell), _p(money(sign.min_wager, sign.currency), styles.cell_right),
             _p(money(sign.max_wager, sign.currency), styles.cell_right)]]
    rows += [[[_p(b.bet, styles.cell), _p(f"paytable {b.paytable}", styles.small)] if b.paytable
              else _p(b.bet, styles.cell),
              _p(money(b.minimum, sign.currency), styles.cell_right),
              _p(money(b.maximum, sign.currency), styles.cell_right)] for b in sign.bonus_limits]
    limits = [_p("Wager limits", styles.heading), _grid(rows, [width * 0.44, width * 0.28, width * 0.28], styles)]
    sections = [about, limits]
    if h.aggregate_payout_limit is not None:
        sections.append([
            _p("Aggregate payout limit", styles.fee_title),
            _p(f"{money(h.aggregate_payout_limit, sign.currency)}: the most paid in total on odds-based prizes in "
               "one round, to all players together (WAC 230-15-490; WAC 230-15-060).", styles.cell),
        ])
    return sections


def _payout_sections(sign: Sign, width, styles: Styles):
    sections = []
    for payouts in sign.payouts:
        numbered = payouts.paytable not in ("", "unnumbered")
        title = f"{payouts.bet} (paytable {payouts.paytable})" if numbered else payouts.bet
        rows = [[_p(hand, styles.payout), _p(paid, styles.payout_right)] for hand, paid in payouts.lines]
        if payouts.unit:  # the heading names the one unit every payout of the table is written in
            rows.insert(0, [_p("Hand", styles.cell_head), _p(payouts.unit, styles.cell_head_right)])
        grid = _grid(rows, [width * 0.62, width * 0.38], styles, head=bool(payouts.unit))
        sections.append([_p(f"Payouts: {title}", styles.fee_title), grid])
    return sections


def _notice_section(sign: Sign, styles: Styles):
    items = [_p("Notices", styles.heading)]
    items += [Paragraph(escape(text), styles.notice, bulletText="\u2022") for text in sign.notices]
    if sign.notes:
        items.append(Paragraph(escape(sign.notes), styles.notice, bulletText="\u2022"))
    return items


def _fees(sign: Sign, width, styles: Styles):
    """The fee sections: the heading travels with the first fee table; a column may break between tables."""
    head = [_p("Collection fees", styles.heading)]
    if sign.option_label:
        head.append(_p(f"Schedule {sign.schedule_code}, option {sign.option_number}: {sign.option_label}",
                       styles.small))
    none = [_p(text, styles.fee_title) for text in sign.none_charged]
    if not sign.fee_tables:
        return [head + (none or [_p(sign.no_fees_note or "The schedule prints no fee for this option.", styles.cell)])]
    sections = [_fee_section(t, sign, width, styles) for t in sign.fee_tables]
    sections[0] = head + sections[0]
    if none:
        sections.append(none)
    return sections


def body_sections(sign, col_width, styles):
    if sign.house_banked is not None:
        sections = _house_banked_sections(sign, col_width, styles)
        sections += _payout_sections(sign, col_width, styles)
        sections.append(_notice_section(sign, styles))
        return sections
    sections = []
    if sign.bonus_limits:
        sections.append(_bonus_section(sign, col_width, styles))
    sections += _fees(sign, col_width, styles)
    sections += _payout_sections(sign, col_width, styles)
    sections.append(_notice_section(sign, styles))
    return sections
