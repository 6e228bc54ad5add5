"""Whether a draft may be published: the one answer the model's publish step (``ScheduleVersion.mark_published``),
the services (``fees.schedules.services``: asking, approving, publishing without review), the publish form and its
page all give (issue 44).

- ``reaches_back``: before today means retroactive, written once;
- ``earliest_problem``: how far back a version may take effect (also asked when a draft is started);
- ``retroactive_problem``: a retroactive confirmation given for a version that does not reach back;
- ``publication_problems``: every reason a draft cannot be published, a ``BadInput`` each naming the field at
  fault (None: the draft's content), so each door says it beside that field (the form), in the API's ``details``,
  or in a message (the admin).

What the step may be taken from (a draft, not a version published or awaiting a second officer) is the review's
(``cardroom.review``, ``fees.schedules.reviews.PUBLICATION``), not a problem of the draft's.
"""

import datetime
from types import SimpleNamespace

from django.conf import settings
from django.utils import timezone

from cardroom.exceptions import BadInput
from fees.engine import diff

from . import in_force

# What a request for publication sets on the draft, and may be checked as asked before anything is saved.
ASKED = ("effective_from", "publication_reason", "retroactive", "retroactive_reason")


def reaches_back(effective_from, today):
    """A version dated before ``today`` reaches back: publishing it changes what was in force on days already
    played, so it is published only as retroactive."""
    return effective_from is not None and effective_from < today


def earliest_problem(document, effective_from, version=None, today=None):
    """Why a version of ``document`` cannot take effect on ``effective_from`` (None when it can): never before the
    schedule's first dated version, nor before its source was issued, and never further back than
    RETROACTIVE_MAX_DAYS before today (a date such as 1900-01-01 reaches back to no fee this room ever charged, and
    would reprice every round ever recorded). Starting a draft asks here too."""
    if effective_from is None:
        return None
    # The first version in the record's timeline: one whose source states no date is in force from the beginning
    # (fees.models.in_force), and then no version bounds the date; a later, dated one never does.
    published = document.versions.filter(status="published").exclude(pk=getattr(version, "pk", None))
    first = (None if published.filter(effective_from__isnull=True).exists() else
             published.order_by("effective_from").values_list("effective_from", "number").first())
    if first is not None and effective_from < first[0]:
        return (f"{document.code} cannot take effect on {effective_from}: its record starts with version {first[1]}, "
                f"in force from {first[0]}. Give a date on or after it.")
    issued = document.source.issued_on if document.source_id else None
    if issued is not None and effective_from < issued:
        return (f"{document.code} cannot take effect on {effective_from}, before its source was issued "
                f"({document.source.title}, {issued}). Give a date on or after it.")
    today = today or timezone.localdate()
    furthest = today - datetime.timedelta(days=settings.RETROACTIVE_MAX_DAYS)
    if effective_from < furthest:
        return (f"{effective_from} reaches back more than {settings.RETROACTIVE_MAX_DAYS} days, to before "
                f"{furthest}: a change may take effect at most that far back (RETROACTIVE_MAX_DAYS), since it "
                f"reprices every round recorded since. Give a later date.")
    return None


def retroactive_problem(effective_from, retroactive, today):
    """Why ``retroactive`` cannot be confirmed (None when it can): only a version that reaches back does, and a flag
    kept on any other would tell whoever reads its history something that did not happen."""
    if not retroactive or reaches_back(effective_from, today):
        return None
    when = "with no effective date" if effective_from is None else (
        f"effective on {effective_from}, {'today' if effective_from == today else 'a future date'},")
    return (f"A version {when} is not retroactive: untick the retroactive confirmation "
            f"(only a date before today, {today}, needs it).")


def taken_over(version, effective_from, today):
    """The published version ``version`` would take over from: the one in force on ``effective_from`` (today when
    it has none), or None."""
    return in_force.candidates(version.document.versions.exclude(pk=version.pk), effective_from or today).first()


def changes_nothing(version, current, changes=None):
    """Whether ``version`` has the options, tiers and provisions of ``current`` (None: there is none), so publishing
    it would change nothing (issue 42). ``changes``: their ``fees.engine.diff``, when in hand."""
    if current is None:
        return False
    if changes is None:
        changes = diff.diff_versions(current.diff_records(), version.diff_records())
    return changes.is_empty and list(version.provisions or []) == list(current.provisions or [])


def publication_problems(version, *, today=None, **asked):
    """Why the draft ``version`` cannot be published, a ``BadInput`` each (empty when it can). ``asked``: any of
    ``ASKED`` as a request for publication would set them, checked over the draft's own (nothing is saved)."""
    if unknown := set(asked) - set(ASKED):
        raise TypeError(f"publication_problems() takes {', '.join(ASKED)}, not {', '.join(sorted(unknown))}")
    today = today or timezone.localdate()
    draft = SimpleNamespace(**{name: asked.get(name, getattr(version, name)) for name in ASKED})
    # A confirmation or a date no request could carry is said alone: the rest would be read against it.
    if problem := retroactive_problem(draft.effective_from, draft.retroactive, today):
        return [BadInput(problem, field="retroactive")]
    if problem := earliest_problem(version.document, draft.effective_from, version, today):
        return [BadInput(problem, field="effective_from")]
    problems = []
    if not (version.reason.strip() or (draft.publication_reason or "").strip()):
        problems.append(BadInput("A reason is required to publish a version.", field="reason"))
    if draft.effective_from is None and version.document.versions.filter(number__lt=version.number).exists():
        problems.append(BadInput("An effective-from date is required for every version after the first.",
                                 field="effective_from"))
    if reaches_back(draft.effective_from, today):
        if not draft.retroactive:
            problems.append(BadInput(
                f"It takes effect on {draft.effective_from}, before today ({today}): a retroactive change. "
                "Publish it only as one: confirm it is retroactive and say why.", field="retroactive"))
        elif not (draft.retroactive_reason or "").strip():
            problems.append(BadInput("A retroactive version needs the reason it must reach back before its "
                                     "publication.", field="retroactive_reason"))
    if not version.options.exists():
        problems.append(BadInput("A version with no options cannot be published."))
    else:
        current = taken_over(version, draft.effective_from, today)
        if changes_nothing(version, current):
            problems.append(BadInput(
                f"Nothing changed from version {current.number}: this draft's options, tiers and provisions are the "
                "same, so publishing it would change nothing. Change what is to change first, or discard the draft."))
    return problems


def said(problems):
    """The problems as one message, one sentence after another."""
    return " ".join(str(problem) for problem in problems)
