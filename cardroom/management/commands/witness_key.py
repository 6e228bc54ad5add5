from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import CommandError

from cardroom.management.base import BaseCommand
from cardroom.witness import keys


class Command(BaseCommand):
    help = (
        "Print this installation's witness key as the rooms it witnesses configure it: the C2SP verifier key "
        "<name>+<hex key id>+<base64 of 0x04 and the Ed25519 public key> (also at GET /witness/key). Creates "
        "WITNESS_KEY_FILE when it does not exist and WITNESS_KEY is not set, as the service would."
    )

    def handle(self, *args, **options):
        if not keys.enabled():
            raise CommandError("This installation is not a witness: set WITNESS_NAME (docs/audit.md, 'Witnesses').")
        try:
            self.stdout.write(keys.verifier_key())
        except ImproperlyConfigured as error:
            raise CommandError(str(error)) from None
