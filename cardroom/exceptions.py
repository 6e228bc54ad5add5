class StateConflict(Exception):
    """A request that conflicts with the state of the data (publishing twice, editing published data).

    The API answers these with 409 Conflict; subclasses live with the models they protect.
    """


class NotAllowed(Exception):
    """A step this person may not take on this record, whatever their role allows elsewhere: above all, a second
    person's approval given by the first (the author of a draft approving its publication).

    The API answers these with 403 Forbidden, the pages with their 403 page; the message says why.
    """
