"""The schedules' two-person reviews on the one mechanism (``cardroom.review``): a version's publication and an
interpretation, as workflows (used by ``fees.schedules.services``) and as kinds the inbox lists and the emails announce
(registered in ``FeesConfig.ready``)."""

from django.db.models import OuterRef, Subquery

from cardroom import inbox, permissions, review
from cardroom.registry import InboxKind

from .. import links
from ..models import Interpretation, ScheduleVersion, VersionReview, VersionStateError
from .interpretations import InterpretationConflict

Status = ScheduleVersion.Status

PUBLICATION = review.Workflow(
    states={Status.DRAFT: review.DRAFT, Status.IN_REVIEW: review.AWAITING, Status.PUBLISHED: review.APPROVED},
    lands={review.REFUSE: Status.DRAFT, review.WITHDRAW: Status.DRAFT},  # refused or withdrawn: a draft again
    asker=lambda version: version.review_requested_by_id,
    makers=lambda version: version.editors(),  # who started or changed its content, at any door (not a review step)
    label=lambda status: str(Status(status).label).lower(),
    conflict=VersionStateError,
)

INTERPRETATION = review.Workflow(
    states={Interpretation.Status.PROPOSED: review.AWAITING, Interpretation.Status.APPROVED: review.APPROVED,
            Interpretation.Status.REFUSED: review.REFUSED, Interpretation.Status.WITHDRAWN: review.WITHDRAWN},
    allows=frozenset({(review.WITHDRAW, review.APPROVED)}),  # an approved reading is retired by withdrawing it
    asker=lambda reading: reading.recorded_by_id,
    label=lambda status: str(Interpretation.Status(status).label).split(":")[0].lower(),
    conflict=InterpretationConflict,
)


# -- as the inbox and the emails see them ----------------------------------------------------------------------------


def _role(document):
    return (f"a second compliance officer of {document.establishment.name}" if document.establishment_id
            else "an administrator")


def _version_path(version, scope=None, establishment=None):
    slug = inbox.room_slug(version.document, scope or inbox.Scope(None), establishment)
    return links.PUBLISH.path(room=slug, code=version.document.code, number=version.number) if slug else ""


def _reading_path(reading, scope=None, establishment=None):
    document = reading.version.document
    slug = inbox.room_slug(document, scope or inbox.Scope(None), establishment)
    return links.INTERPRETATIONS.path(room=slug, code=document.code, number=reading.version.number) if slug else ""


def _waiting_versions(user, scope, establishment):
    versions = (ScheduleVersion.objects.filter(inbox.concerning(establishment, "document__"), status=Status.IN_REVIEW)
                .exclude(review_requested_by=user))
    return permissions.rows(scope, "fees.approve_schedule", versions, via="document")


def _version_items(pks, user, scope, establishment):
    items = []
    for v in ScheduleVersion.objects.filter(pk__in=pks).select_related("document__establishment",
                                                                       "review_requested_by"):
        if not PUBLICATION.may(v, review.APPROVE, user):  # whoever started or changed it may not approve it
            continue
        path = _version_path(v, scope, establishment)
        if path:
            items.append(inbox.Awaiting("schedule", f"{v.document.code} v{v.number}: {v.document.title}",
                                        v.review_requested_by.get_username() if v.review_requested_by else "",
                                        v.review_requested_at or v.created_at, path, v.document.establishment_id))
    return items


def _last_answer(version):
    step = version.reviews.filter(step__in=[VersionReview.Step.APPROVED, VersionReview.Step.REFUSED]).last()
    return (step.by, step.reason) if step else (None, "")


def _publication(version):
    return f"Publication of {version.document.code} v{version.number} ({version.document.title})"


def _waiting_readings(user, scope, establishment):
    readings = (Interpretation.objects.filter(inbox.concerning(establishment, "version__document__"),
                                              status=Interpretation.Status.PROPOSED).exclude(recorded_by=user))
    return permissions.rows(scope, "fees.approve_schedule", readings, via="version__document")


def _reading_items(pks, user, scope, establishment):
    items = []
    for r in Interpretation.objects.filter(pk__in=pks).select_related("version__document__establishment",
                                                                      "recorded_by"):
        path = _reading_path(r, scope, establishment)
        if path:
            items.append(inbox.Awaiting("interpretation", str(r),
                                        r.recorded_by.get_username() if r.recorded_by else "", r.recorded_at, path,
                                        r.version.document.establishment_id))
    return items


SCHEDULE_KIND = InboxKind(
    name="schedule", label="Publication of a schedule version", waiting=_waiting_versions, items=_version_items,
    what=_publication, path=_version_path, role=lambda v: _role(v.document),
    approvers=lambda v: inbox.schedule_approvers(v.document, exclude=PUBLICATION.involved(v)),
    asked=lambda v: (v.review_requested_by, v.publication_reason), answered=_last_answer,
    outcomes=("approved: it is published", "refused: it is a draft again"),
)

INTERPRETATION_KIND = InboxKind(
    name="interpretation", label="Interpretation of a schedule", waiting=_waiting_readings, items=_reading_items,
    what=lambda r: f"Interpretation #{r.pk}: {r}", path=_reading_path, role=lambda r: _role(r.version.document),
    approvers=lambda r: inbox.schedule_approvers(r.version.document, exclude=INTERPRETATION.involved(r)),
    asked=lambda r: (r.recorded_by, r.statement), answered=lambda r: (r.reviewed_by, r.review_reason),
    outcomes=("approved: it is in use", "refused"),
)


# -- a refused draft, back with whoever asked for it ----------------------------------------------------------------


def _refused_drafts(user, scope, establishment):
    """The drafts ``user`` asked to publish whose last step is a refusal: theirs to correct and ask again (or
    discard)."""
    last_step = VersionReview.objects.filter(version=OuterRef("pk")).order_by("-at", "-id").values("step")[:1]
    drafts = (ScheduleVersion.objects.filter(inbox.concerning(establishment, "document__"), status=Status.DRAFT,
                                             review_requested_by=user)
              .annotate(last_step=Subquery(last_step)).filter(last_step=VersionReview.Step.REFUSED))
    return drafts  # their own requests: no other scope to ask


def _refused(version):
    by, reason = _last_answer(version)
    who = by.get_username() if by else "a second officer"
    return (f"{version.document.code} v{version.number} was refused by {who}" + (f" ({reason.rstrip('.')})" if reason
                                                                                    else "")
            + ": correct it and ask again, or discard it")


def _refused_items(pks, user, scope, establishment):
    items = []
    for v in ScheduleVersion.objects.filter(pk__in=pks).select_related("document__establishment"):
        path = links.VERSION.path(room=inbox.room_slug(v.document, scope, establishment), code=v.document.code,
                                  number=v.number)
        refusal = v.reviews.filter(step=VersionReview.Step.REFUSED).last()
        items.append(inbox.Awaiting(DRAFT_REFUSED, _refused(v), refusal.by_label if refusal else "",
                                    refusal.at if refusal else v.created_at, path, v.document.establishment_id))
    return items


DRAFT_REFUSED = "draft_refused"
DRAFT_REFUSED_KIND = InboxKind(
    name=DRAFT_REFUSED, label="Your draft was refused", waiting=_refused_drafts, items=_refused_items,
    what=_refused, path=lambda v: _version_path(v), role=lambda v: "whoever asked for its publication",
    approvers=lambda v: [v.review_requested_by] if v.review_requested_by_id else [],
    asked=lambda v: (v.review_requested_by, v.publication_reason), answered=_last_answer,
    outcomes=("asked again", "discarded"), alert=True,
)


INBOX_KINDS = (SCHEDULE_KIND, INTERPRETATION_KIND, DRAFT_REFUSED_KIND)  # registered in FeesConfig.ready
