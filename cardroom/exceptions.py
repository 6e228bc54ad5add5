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
    another room. The message names the field and says what is wrong.

    The API answers these with 400 Bad Request, the pages show the message beside the form and change nothing.
    Together with ``NotAllowed`` and ``StateConflict`` these are the only errors a service raises.
    """
