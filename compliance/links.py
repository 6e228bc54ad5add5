"""The pages compliance links to (its inbox items', the digest's), declared with their arguments; the app that
serves them routes them (``cardroom.registry``)."""

from cardroom.registry import Link

FINDINGS = Link("compliance.findings", ("room",))  # a room's findings
APPROVALS = Link("compliance.approvals", ("room",))  # a room's approvals and their conditions
