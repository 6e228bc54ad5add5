from django.db import connection

from cardroom.management.base import BaseCommand

from ...months.services import need_owner
from ...tasks import close_due_months


class Command(BaseCommand):
    help = (
        "Close every month of the ledger due (LEDGER_CLOSE_AFTER_DAYS days after its last day), its last days "
        "reconciled first: what the nightly beat task fees.tasks.close_due_months does, here in this process. Run "
        "it as the database's owner (DATABASE_URL=$MIGRATE_DATABASE_URL) where the worker's role does not own the "
        "ledger's tables; as any other role it refuses, saying so (exit status 2). A month that cannot close stays open and "
        "says why in the inbox."
    )

    def handle(self, *args, **options):
        if connection.vendor == "postgresql":
            need_owner("close_due_months")  # the beat's task, as the service, only says so in the inbox
        outcome = close_due_months.run()
        for month in outcome["months"]:
            state = "closed" if month["closed"] else "left open: " + "; ".join(month["reasons"])
            self.stdout.write(f"{month['month']} ({', '.join(month['establishments'])}): {state}")
        self.stdout.write(outcome["note"])
