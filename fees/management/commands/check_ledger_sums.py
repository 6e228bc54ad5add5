import datetime

from django.core.management.base import CommandError

from cardroom.management.base import BaseCommand
from cardroom.models import Establishment

from ...ledger import kept_sums
from ...months.selectors import sealed_months


def _day(text):
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a day (YYYY-MM-DD).") from None


class Command(BaseCommand):
    help = (
        "Rebuild the ledger's kept sums (per table and gaming day: rounds, expected, entries, collected, by payer "
        "and fee kind) from the rounds and entries and print where they differ from the sums kept as the ledger was "
        "written. A closed month's rows are archived: its kept sums and variance summaries are compared with the "
        "totals its closing sealed instead (per room and gaming day), and are never repaired (reopen the month "
        "first). With --repair, rewrite the differing table-days of open months from the rows and log it in the "
        "audit log. Exit status 1 when differences are found and not repaired."
    )

    def add_arguments(self, parser):
        parser.add_argument("--establishment", metavar="SLUG", help="Only this establishment (its slug).")
        parser.add_argument("--from", dest="day_from", type=_day, help="The first gaming day (YYYY-MM-DD).")
        parser.add_argument("--to", dest="day_to", type=_day, help="The last gaming day (YYYY-MM-DD).")
        parser.add_argument("--repair", action="store_true", help="Rewrite the differing kept sums from the rows.")

    def handle(self, *args, establishment, day_from, day_to, repair, **options):
        room = None
        if establishment is not None:
            room = Establishment.objects.filter(slug=establishment).first()
            if room is None:
                raise CommandError(f"No establishment {establishment!r}.")
        if day_from and day_to and day_to < day_from:
            raise CommandError(f"--to ({day_to}) comes before --from ({day_from}).")
        if repair:
            found = kept_sums.repair(room, day_from, day_to)
        else:
            found = kept_sums.differences(room, day_from, day_to)
        for (establishment_id, table_id, day, currency), name, kept, rebuilt in found:
            self.stdout.write(f"establishment {establishment_id} table {table_id} {day} {currency} {name}: "
                              f"kept {kept}, rows {rebuilt}")
        table_days = len({key for key, *_ in found})
        closed = sealed_months([room] if room else None, day_from, day_to)
        for month in closed.unsealed:
            self.stdout.write(f"closed {month.month:%Y-%m}: closed before closings sealed their sums, so its kept "
                              f"sums are not checked (reopen_month and close_month again seal them).")
        for problem in closed.problems:
            self.stdout.write(f"closed {problem.month:%Y-%m}, as sealed: {problem}")
        if not found:
            if closed.problems:
                self.stdout.write("The kept sums of the open months agree with their rows.")
            else:
                self.stdout.write(self.style.SUCCESS("The kept sums agree with the rows" + (
                    " and the closed months' with their seals." if closed.covered else ".")))
        elif repair:
            self.stdout.write(self.style.SUCCESS(f"Repaired {table_days} table-days ({len(found)} figures) from "
                                                 f"the rows; logged in the audit log."))
        else:
            self.stdout.write(f"{table_days} table-days differ ({len(found)} figures); --repair rewrites them.")
        if closed.problems:
            months = sorted({f"{problem.month:%Y-%m}" for problem in closed.problems})
            raise CommandError(f"The closed months {', '.join(months)} differ from what their closings sealed "
                               f"({len(closed.problems)} differences): their rows are archived, so nothing here "
                               f"repairs them. Reopen the month (reopen_month), run check_ledger_sums --repair, and "
                               f"close it again.")
        if found and not repair:
            raise CommandError(f"The kept sums differ from the rows at {table_days} table-days.")
