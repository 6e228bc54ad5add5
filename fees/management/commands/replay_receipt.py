import json
import sys
from pathlib import Path

from django.core.management.base import CommandError

from cardroom.management.base import BaseCommand
from fees.quotes import receipt_format, receipts

# Exit codes: 0 the receipt holds, 1 it does not, 2 the file is not a receipt that can be read.
HOLDS, DOES_NOT_HOLD, UNREADABLE = 0, 1, 2


class Command(BaseCommand):
    help = (
        "Replay a quote or reconciliation receipt (docs/receipts.md): check its receipt_sha256, load the schedule "
        "version it names and recompute that version's content hash, recompute the outputs from the inputs with "
        "the current engine, and compare. Exits 0 when it holds, 1 when it does not, 2 when the file cannot be read "
        "as a receipt."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="The receipt (JSON), or '-' for stdin.")
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args, file, **options):
        receipt = self.read(file)
        result = receipts.replay(receipt)
        if options["json"]:
            self.stdout.write(json.dumps(result.as_dict(), indent=2, ensure_ascii=False))
        else:
            self.stdout.write(self.describe(receipt, result))
        if not result.holds:
            sys.exit(DOES_NOT_HOLD)

    def read(self, file):
        try:
            text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CommandError(f"{file}: no such file", returncode=UNREADABLE) from None
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"{file}: cannot be read ({getattr(error, 'strerror', None) or error})",
                               returncode=UNREADABLE) from None
        try:
            return receipt_format.read(text)
        except receipt_format.ReceiptFormatError as error:
            raise CommandError(f"{file} is not a receipt: {error}", returncode=UNREADABLE) from None

    def describe(self, receipt, result):
        inputs = receipt["inputs"]
        if receipt["receipt"] == receipt_format.QUOTE:
            what = (f"quote of {inputs['schedule']} option {inputs['option']} as of {inputs['as_of']}, "
                    f"total {receipt['outputs'].get('total')} {receipt['outputs'].get('currency')}")
        else:
            table = inputs["table"]
            what = (f"reconciliation of table {table.get('label', table['id'])} on {inputs['gaming_day']}, "
                    f"{receipt['outputs'].get('status')}")
        lines = [f"{'HOLDS' if result.holds else 'DOES NOT HOLD'}: {what}",
                 f"  issued {receipt['issued_at']} by {receipt['issued_by']} (engine {receipt['engine']})"]
        for name, ok, detail in result.checks:
            lines.append(f"  {'ok  ' if ok else 'FAIL'}  {name}: {detail}")
        lines += [f"  note  {note}" for note in result.notes]
        return "\n".join(lines)
