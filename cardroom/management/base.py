"""The commands' one mapping of a service's errors: a ``BadInput`` (or a refusal, a conflict) is the command's
``CommandError``, its message on stderr and exit status 1, as the API's 400 and the pages' message."""

from django.core.management.base import BaseCommand as DjangoBaseCommand
from django.core.management.base import CommandError

from cardroom.exceptions import BadInput, NotAllowed, StateConflict


class BaseCommand(DjangoBaseCommand):
    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except (BadInput, NotAllowed, StateConflict) as error:
            raise CommandError(str(error)) from None
