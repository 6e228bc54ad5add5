"""The three errors a service raises, and every door answers in one place: ``cardroom.api.errors`` (the API),
``console.access`` (the pages), ``cardroom.management.base`` (the commands); forms that show a message beside
its field do it through ``cardroom.forms.show_error``. Plain Python: the pure modules (``cardroom.values``, the fee
engine) raise ``BadInput`` too."""


class StateConflict(Exception):
    """A request that conflicts with the state of the data (publishing twice, editing published data).

    The API answers these with 409 Conflict; subclasses live with the models they protect.
    """


class NotAllowed(Exception):
    """A step this person may not take on this record, whatever their role allows elsewhere: above all, a second
    person's approval given by the first (the author of a draft approving its publication).

    The API answers these with 403 Forbidden, the pages with their 403 page; the message says why.
    """


class BadInput(ValueError):
    """Input that cannot be taken as it is: a missing or malformed value, a choice that does not exist, a row of
    another room. The message names the field and says what is wrong; ``field`` names it for the door (the API's
    ``details`` key, the form field the message is shown beside), None when no one field is at fault.

    The API answers these with 400 Bad Request, the pages show the message beside the form and change nothing.
    Together with ``NotAllowed`` and ``StateConflict`` these are the only errors a service raises.
    """

    def __init__(self, message, *, field=None):
        super().__init__(message)
        self.field = field
