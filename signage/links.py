"""The page signage links to (its inbox items'), declared with its arguments; the app that serves it routes it
(``cardroom.registry``)."""

from cardroom.registry import Link

OVERRIDE = Link("signage.override", ("room", "posting"))  # a posting's print override, asked for and answered
