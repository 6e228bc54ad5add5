import json
import sys

from django.core.management.base import CommandError
from django.utils import timezone

from cardroom.management.base import BaseCommand
from fees.quotes import quoting


def wager(text):
    """player:base[:bonus][:backline], e.g. p1:150:25 or p2:40:0:backline"""
    parts = text.split(":")
    if len(parts) < 2 or len(parts) > 4 or (len(parts) == 4 and parts[3] != "backline"):
        raise ValueError(text)
    spot = {"player": parts[0], "base": parts[1]}
    if len(parts) > 2:
        spot["bonus"] = parts[2]
    if len(parts) == 4:
        spot["backline"] = True
    return spot


def seat(text):
    """player@FROM/TO with ISO times, e.g. a@2026-11-21T20:00-08:00/2026-11-21T21:30-08:00"""
    player, _, times = text.partition("@")
    seated_from, _, seated_to = times.partition("/")
    if not (player and seated_from and seated_to):
        raise ValueError(text)
    return {"player": player, "seated_from": seated_from, "seated_to": seated_to}


class Command(BaseCommand):
    help = (
        "Say what is owed for a hand, a round or a half-hour, and show the work. Either give the API's JSON "
        "request with --request (a file, '-' for stdin, or the JSON itself), or build one with the options below."
    )

    def add_arguments(self, parser):
        parser.add_argument("--request", help="The quote request as JSON: a path, '-' for stdin, or inline JSON.")
        parser.add_argument("--schedule", help="Schedule code, e.g. GEGA-002888.")
        parser.add_argument("--option", type=int, help="Schedule option number.")
        parser.add_argument("--as-of", help="Date the schedule is resolved on (YYYY-MM-DD); default today.")
        parser.add_argument("--wager", action="append", type=wager, default=[],
                            help="A betting spot: player:base[:bonus][:backline]. Repeat for each spot.")
        parser.add_argument("--players", type=int, help="Poker: players in the hand.")
        parser.add_argument("--flop", action="store_true", help="Poker: the hand reached the flop.")
        parser.add_argument("--river", action="store_true", help="Poker: the hand reached the river.")
        parser.add_argument("--game", nargs=2, metavar=("STARTED_AT", "ENDED_AT"), help="Time collection: the game.")
        parser.add_argument("--seat", action="append", type=seat, default=[],
                            help="Time collection: player@SEATED_FROM/SEATED_TO. Repeat for each player.")
        parser.add_argument("--json", action="store_true", help="Print the API's JSON response.")

    def build_request(self, options):
        if options["request"]:
            raw = options["request"]
            if raw == "-":
                raw = sys.stdin.read()
            elif not raw.lstrip().startswith("{"):
                with open(raw, encoding="utf-8") as handle:
                    raw = handle.read()
            try:
                return json.loads(raw)
            except json.JSONDecodeError as exc:
                raise CommandError(f"--request is not valid JSON: {exc}") from None
        request = {"schedule": options["schedule"], "option": options["option"]}
        if options["as_of"]:
            request["as_of"] = options["as_of"]
        if options["wager"]:
            request["wagers"] = options["wager"]
        elif options["game"]:
            request.update(game_started_at=options["game"][0], game_ended_at=options["game"][1],
                           players=options["seat"])
        elif options["players"] is not None:
            request.update(players=options["players"], reached_flop=options["flop"], reached_river=options["river"])
        return {key: value for key, value in request.items() if value is not None}

    def handle(self, *args, **options):
        request = self.build_request(options)
        body = quoting.quote_request(request, today=timezone.localdate())
        if options["json"]:
            self.stdout.write(json.dumps(body, indent=2))
            return
        self.stdout.write(self.describe(body))

    def describe(self, body):
        unit = body["currency"]
        explanation = body["explanation"]
        lines = [
            f"{body['schedule']} v{body['version']} (effective {explanation['effective_from'] or 'date not stated'}), "
            f"option {body['option']}, as of {body['as_of']}",
        ]
        for fee in explanation["fees"]:
            who = fee["player"] or fee["payer"].replace("_", "-")
            tier = fee["tier"]
            where = f" (tier {tier['printed_bounds'] or 'flat'}: {tier['printed_fee']})" if tier else ""
            measured = f" on {fee['measured']}" if fee["measured"] not in (None, "") else ""
            lines.append(f"  {who:<16} {fee['fee_kind']:<17} {fee['fee']:>8} {unit}{measured}{where}")
        lines.append(f"  {'total':<16} {'':<17} {body['total']:>8} {unit}")
        lines.append(f"Source: {explanation['document_citation']}; option: {explanation['citation']}")
        return "\n".join(lines)
