class StateConflict(Exception):
    """A request that conflicts with the state of the data (publishing twice, editing published data).

    The API answers these with 409 Conflict; subclasses live with the models they protect.
    """
