import json

from cardroom import game_checks
from cardroom.management.base import BaseCommand


def _stated(row) -> str:
    if row.stated_percent is None:
        return "none"
    decks = f"{row.stated_decks} decks" if row.stated_decks else "no deck count"
    strategy = f", {row.strategy}" if row.strategy else ""
    named = "" if row.stated_for == game_checks.PAYTABLE else ", for the bet"
    return f"{row.stated_percent}% ({decks}{strategy}{named}; {row.source})"


def _agrees(row) -> str:
    if row.computed_percent is None:
        return "not computed"
    if row.agrees is None:
        return "-"
    return "yes" if row.agrees else f"NO ({row.computed_at_stated_precision}% at the stated precision)"


def _printed(figures) -> str:
    return ", ".join(f"{p.number} ({p.source})" for p in figures.printings) or "-"


def _grouped(figures) -> list[tuple[str, ...]]:
    """One paytable's figures once: its game, bet and every document printing it on its first line, each deck
    count's computed edge on the first of its lines, then one line per stated figure, whichever document states
    it."""
    lines = []
    for f in figures:
        head = (f.game_name, f.bet, _printed(f))
        for decks, rows in f.by_decks:
            for i, r in enumerate(rows):
                at = (str(decks) if decks else "-", f"{r.computed_percent}%" if r.computed_percent is not None else "-")
                lines.append(head + (at if i == 0 else ("", "")) + (_stated(r), _agrees(r)))
                head = ("", "", "")
    return lines


class Command(BaseCommand):
    help = (
        "The house edge of every seeded paytable (and main game), computed exactly, beside each stated edge: per "
        "game, bet, paytable and deck count, the computed percent to 4 decimals, each stated percent (or none) "
        "with the document stating it, and whether they agree at the stated precision. Paytables paying alike "
        "are one paytable, printed by each document named. docs/game-math.md."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", help="Print the rows as JSON (decimals as strings).")

    def handle(self, *args, json=False, **options):
        rows = game_checks.rows()
        edges = game_checks.stated_edges()
        if json:
            self.stdout.write(_json({
                "rows": [r.as_dict() for r in rows],
                "stated_edges": [{
                    "id": e.id, "game": e.game, "bet": e.bet, "paytable": e.paytable, "decks": e.decks,
                    "strategy": e.strategy, "stated_percent": e.shown().rstrip("%"), "citation": e.citation,
                    "source": e.source, "reproduced": e.reproduced,
                    "approvals": [a.key for a in e.approvals],
                } for e in edges],
            }))
            return
        header = ("game", "bet", "paytable (document)", "decks", "computed", "stated (document)", "agrees")
        table = [header] + _grouped(game_checks.figures())
        widths = [max(len(line[i]) for line in table) for i in range(len(header))]
        for line in table:
            self.stdout.write("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip())
        reasons = {}
        for r in rows:
            if r.computed_percent is None and r.reason:
                reasons.setdefault((r.game_name, r.bet, r.paytable), r.reason)
        if reasons:
            self.stdout.write("\nNot computed:")
            for (game, bet, paytable), reason in reasons.items():
                self.stdout.write(f"- {game} {bet} paytable {paytable or '-'}: {reason}.")
        strategies = {}
        for r in rows:
            if r.strategy_table and (r.game_name, r.bet, r.decks) not in strategies:
                strategies[(r.game_name, r.bet, r.decks)] = r.strategy_table
        if strategies:
            self.stdout.write("\nBest strategy (the computed main game edges):")
            for (game, bet, decks), table in strategies.items():
                moves = "; ".join(f"{move} {', '.join(ranks)}" for move, ranks in table.items()
                                  if isinstance(ranks, list))
                self.stdout.write(f"- {game} {bet}, {decks} decks: {moves}; element of risk "
                                  f"{table.get('element_of_risk_percent')}% of the average "
                                  f"{table.get('average_wager_units')} units wagered.")
        reproduced = [e for e in edges if e.reproduced]
        self.stdout.write(f"\nStated house edges reproduced: {len(reproduced)} of {len(edges)}.")
        for e in edges:
            verdict = {True: "reproduced", False: "NOT reproduced", None: "not compared"}[e.reproduced]
            paytable = f" paytable {e.paytable}" if e.paytable else ""
            decks = f"{e.decks} decks" if e.decks else "no deck count"
            strategy = f", {e.strategy}" if e.strategy else ""
            self.stdout.write(f"- {e.game_name} {e.bet}{paytable} ({decks}{strategy}) {e.shown()}: {verdict} "
                              f"[{e.source}: {e.citation}]")


def _json(data):
    return json.dumps(data, indent=2, ensure_ascii=False)
