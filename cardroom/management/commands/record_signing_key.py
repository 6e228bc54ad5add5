from pathlib import Path

from django.core.management.base import CommandError

from cardroom import bundle, keys, transparency
from cardroom.management.base import BaseCommand


class Command(BaseCommand):
    help = (
        "Record the configured signing key (SIGNING_KEY or SIGNING_KEY_FILE) among the installation's keys. The "
        "root of trust is SIGNING_ROOT (unset: the configured key itself), never a row of the database; any other "
        "key replaces the key in use, which endorses it: give that "
        "key's private key with --previous-key-file. Run as the tables' owner (bin/migrate does, for the first key); "
        "the service's role may not record keys. Does nothing when the configured key is already recorded."
    )

    def add_arguments(self, parser):
        parser.add_argument("--previous-key-file", metavar="PEM",
                            help="The private key of the key in use, which endorses the configured one.")

    def handle(self, *args, previous_key_file=None, **options):
        previous = None
        if previous_key_file:
            try:
                previous = bundle.load_private_key(Path(previous_key_file).read_bytes())
            except OSError as error:
                raise CommandError(f"{previous_key_file}: cannot read it ({error.strerror or error}).") from None
            except ValueError as error:
                raise CommandError(f"{previous_key_file}: not an Ed25519 private key: {error}") from None
        # The service's role may only read keys: the database refuses it, said by the base (exit status 2).
        row, created = transparency.record_key(keys.installation_key(), previous)
        if row.valid_until is not None:
            raise CommandError(f"The configured key {row.fingerprint} was replaced on {row.valid_until:%Y-%m-%d}: "
                               "configure the key in use, or a new one.")
        if options["verbosity"]:
            what = ("Recorded" if created else "Already recorded:") + f" the signing key {row.fingerprint}"
            root = transparency.root_fingerprint()
            self.stdout.write(
                f"{what}, endorsed by {row.endorsed_by}. The root of trust stays {root}: set SIGNING_ROOT={root} "
                "where the service's settings are kept, if it is not set yet." if row.endorsed_by else
                f"{what}, the root of trust: regulators keep this fingerprint (--trust), and so does the "
                f"service (SIGNING_ROOT={row.fingerprint}).")
