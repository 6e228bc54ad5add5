"""The pages the core links to (an inbox item's page, where a session owing its second factor is sent), declared
here with their arguments; the app that serves them routes them (``cardroom.registry``)."""

from .registry import Link

HOME = Link("cardroom.home")  # a person's own home: their role's pages
ROOM = Link("cardroom.room", ("room",))  # a room's compliance page, by its slug
SIGN_IN = Link("cardroom.sign_in")
SIGN_OUT = Link("cardroom.sign_out")
SECOND_FACTOR = Link("cardroom.second_factor")  # where a session passes its second factor
SECOND_FACTOR_ENROL = Link("cardroom.second_factor_enrol")  # where an account sets one up
