"""An establishment's hash-chained audit log, whether its chain is intact and its checkpoints signed, and the log
checked against a checkpoint the regulator kept (cardroom.tlog, as the offline verifier)."""

import datetime
import json

from django.core.paginator import Paginator
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from cardroom import checkpoint, merkle, tlog, transparency, witnessing
from cardroom.audit import chain_entries, chain_head, chain_name, verify_new_entries
from cardroom.models import AuditLogEntry, Job

from ...access import establishment_or_404, page, regulated_establishments
from ...audit_words import describe as describe_action
from .forms import KEPT_CHECKPOINT_MAX_CHARS, KeptCheckpointForm

AUDIT_PAGE_SIZE = 50

# The beat signs every chain that grew each hour (cardroom.tasks.sign_checkpoints, settings.CELERY_BEAT_SCHEDULE):
# entries no stored checkpoint covers after that and an hour's grace mean checkpoints were not signed or were deleted.
CHECKPOINTS_DUE = datetime.timedelta(hours=2)


def _unsigned_since(chain, checkpoints):
    """The position and time of the oldest entry no stored checkpoint covers, when the beat should have signed it
    by now; None when the stored checkpoints are as recent as expected."""
    covered = checkpoints["latest"].size if checkpoints["latest"] else 0
    first = (AuditLogEntry.objects.filter(chain=chain, sequence=covered + 1)
             .values_list("sequence", "created_at").first())
    if first is None or first[1] > timezone.now() - CHECKPOINTS_DUE:
        return None
    return {"sequence": first[0], "at": first[1], "covered": covered}


def _check_kept(note, establishment, scope, form):
    """The current log against a checkpoint the regulator kept, as the offline verifier checks it (cardroom.tlog):
    its signature by a key of the installation's keys file, then the kept root recomputed from the entries and the
    consistency proof the API gives from the kept size to the head. None, with the form's error, when it is not a
    checkpoint of this establishment's log signed by this installation."""
    ring = transparency.trusted_keys()  # the keys the keys file lists as trusted (its root and what it endorsed)
    body, blank, signatures = note.partition("\n\n")
    try:
        # The keyring tells only "no signature of ours" for anything else: junk is named first.
        if not blank or not signatures.startswith(checkpoint.DASH + " "):
            raise checkpoint.CheckpointError("a checkpoint is its origin, size and root hash, a blank line, then "
                                             f"signature lines starting with {checkpoint.DASH}")
        checkpoint.read_body(body + "\n")
        origin, size, root, _ = ring.checkpoint(note)
    except tlog.OtherLog as error:  # well signed, of a log this installation's regulators do not know as its own
        form.add_error(None, f"This checkpoint cannot be checked: {error}")
        return None
    except checkpoint.CheckpointError as error:
        text = str(error)
        if "no signature of any key" in text:
            text = "it is signed by no key this installation trusts (the keys file lists them, rotated ones too)."
        elif "altered" not in text:
            text = f"not a signed checkpoint ({text})"
        form.add_error(None, f"This checkpoint cannot be checked: {text}")
        return None
    chain = tlog.chain_of(origin)
    if chain != chain_name(establishment):
        other = (regulated_establishments(scope).filter(pk=int(chain.split(":")[1])).first()
                 if chain.startswith("establishment:") and chain.split(":")[1].isdigit()
                 else None)
        if other is None:
            form.add_error(None, f"This checkpoint is of the log {origin}, not of a log you may read here.")
        else:
            form.add_error(None, format_html(
                'This checkpoint is of the log of {}, not of {}: check it on <a href="{}">its audit log</a>.',
                other.name, establishment.name, reverse("console:regulator-audit-log", args=[other.slug])))
        return None
    leaves = transparency.tree_leaves(chain, chain_head(establishment)[0])
    found = {"size": size, "now": len(leaves), "grew": len(leaves) - size, "root": root.hex()}
    if len(leaves) < size:
        return {**found, "ok": False, "problem": (
            f"the log now has {len(leaves)} entries, fewer than the {size} your checkpoint covers: entries were "
            "removed after it was signed.")}
    if merkle.root(leaves[:size]) != root:
        return {**found, "ok": False, "problem": (
            f"the log's first {size} entries no longer give your checkpoint's root: at least one entry at positions "
            f"1 to {size} was changed, removed or reordered after your checkpoint was signed. The entries after "
            f"position {size} cannot be checked against it.")}
    if size == 0:
        return {**found, "ok": True, "lines": []}
    try:
        result = tlog.check_consistency(ring, note, transparency.consistency(chain, size))
    except transparency.ChainRewritten as error:  # the service's own checkpoints disagree: shown above the form
        return {**found, "ok": True, "lines": [], "refused": str(error)}
    return {**found, "ok": result.ok, "lines": result.lines,
            "problem": None if result.ok else "the consistency proof from your checkpoint to the head does not hold."}


def _audit_rows(entries):
    """Each entry with its sentence (console.audit_words) and, for a job, the job as it stands now: the entry's
    text was written when the job was asked for (or was still running) and an entry is never changed."""
    entries = list(entries)
    job_ids = [e.object_id for e in entries if e.object_type == Job._meta.label and e.object_id.isdigit()]
    jobs = Job.objects.in_bulk([int(pk) for pk in job_ids]) if job_ids else {}
    rows = []
    for e in entries:
        job = jobs.get(int(e.object_id)) if e.object_type == Job._meta.label and e.object_id.isdigit() else None
        rows.append({"entry": e, "words": describe_action(e.action, e.data),
                     "what": f"{job.get_kind_display()}, {job.get_status_display().lower()}" if job else e.object_repr,
                     "data": json.dumps(e.data, sort_keys=True, ensure_ascii=False, indent=1) if e.data else ""})
    return rows


@page("regulator")
def audit_log(request, establishment, scope):
    """The establishment's hash-chained audit log, newest first, and whether its chain is intact; on POST, the log
    checked against a checkpoint the regulator kept (nothing is changed but a checkpoint of the head signed)."""
    establishment = establishment_or_404(regulated_establishments(scope), establishment)
    entries = chain_entries(establishment).order_by("-sequence", "-id")
    log_page = Paginator(entries, AUDIT_PAGE_SIZE).get_page(request.GET.get("page"))
    kept_form, kept, status = KeptCheckpointForm(), None, 200
    if request.method == "POST":
        kept_form = KeptCheckpointForm(request.POST, request.FILES)
        if kept_form.is_valid():
            kept = _check_kept(kept_form.cleaned_data["text"], establishment, scope, kept_form)
        if kept is None:
            status = 400
    report = verify_new_entries(establishment)  # the whole chain is walked hourly (cardroom.tasks)
    chain = chain_name(establishment)
    checkpoints = transparency.status(chain)
    rows = _audit_rows(log_page.object_list)
    return render(request, "console/regulator/audit_log.html", {
        "section": "regulator", "establishment": establishment, "page": log_page, "rows": rows,
        "report": report, "checkpoints": checkpoints, "unsigned": _unsigned_since(chain, checkpoints),
        "kept_form": kept_form, "kept": kept, "kept_limit": KEPT_CHECKPOINT_MAX_CHARS,
        "witnesses": [(name, row, witnessing.moment(row.timestamp) if row else None)
                      for name, row in witnessing.latest_by_witness(chain)]}, status=status)
