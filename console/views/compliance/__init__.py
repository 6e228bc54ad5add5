"""A compliance officer's pages for one establishment: findings, schedules and drafts, approvals, postings.

Scoped as the API: the establishment must be one of the user's compliance establishments (else 404); its
schedules are its own and its jurisdiction's shared ones; drafts are seen and changed by those who may edit
the schedule (``fees.view_drafts``, ``fees.edit_schedule``: cardroom.permissions). Every change goes through the
services the API uses: ``fees.schedules.services`` (drafts, publishing), ``fees.schedules.editing`` (tiers),
``compliance.findings.acknowledge``, ``compliance.checking.run_establishment`` / ``run_schedule``,
``signage.services.request_override`` (and a second officer's ``approve_override`` / ``refuse_override``, or the
request withdrawn).

The pages, by job: ``overview`` (choosing an establishment, its home), ``browsing`` (schedules, one schedule,
comparing versions), ``drafts`` (new draft, tiers, discard), ``publication`` (the two-person publication),
``checks`` (the findings inbox, a finding, validation runs), ``conditions`` (approvals and their conditions),
``overrides`` (postings and print overrides); ``base`` what they share, ``forms`` their forms. The views are
re-exported here for console.urls.
"""

from .base import SECTION, in_force
from .browsing import compare, schedule, schedules
from .checks import FINDINGS_PAGE_SIZE, finding, findings, run_now, validate_version
from .conditions import approvals, record_condition, withdraw_condition
from .drafts import discard, edit_tiers, new_draft
from .forms import (AcknowledgeForm, CompareForm, ConditionMetForm, InboxForm, OverrideForm, ReviewForm, SearchForm,
                    TimelineForm, WithdrawMetForm)
from .overrides import OVERRIDE_STEPS, override_posting, postings
from .overview import establishment, home
from .publication import PUBLICATION_STEPS, publish

__all__ = [
    "SECTION", "in_force", "FINDINGS_PAGE_SIZE", "OVERRIDE_STEPS", "PUBLICATION_STEPS",
    "home", "establishment", "schedules", "schedule", "compare", "new_draft", "edit_tiers", "discard", "publish",
    "validate_version", "findings", "finding", "run_now", "approvals", "record_condition", "withdraw_condition",
    "postings", "override_posting",
    "TimelineForm", "SearchForm", "CompareForm", "ReviewForm", "InboxForm", "AcknowledgeForm", "ConditionMetForm",
    "WithdrawMetForm", "OverrideForm",
]
