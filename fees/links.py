"""The pages fees links to (its inbox items'), declared with their arguments; the app that serves them routes them
(``cardroom.registry``)."""

from cardroom.registry import Link

VERSION = Link("fees.version", ("room", "code", "number"))  # a schedule version's page
PUBLISH = Link("fees.publish", ("room", "code", "number"))  # where its publication is asked for and answered
INTERPRETATIONS = Link("fees.interpretations", ("room", "code", "number"))  # a version's readings
VARIANCE = Link("fees.variance", ("room",))  # a room's variance: where its days are reconciled again
