"""A regulator's pages: the establishments of their jurisdiction(s), each one's postings, findings, approvals,
fees expected vs collected and audit log; audit exports requested and bundles verified.

Read-only: nothing here changes regulatory data (an export request makes a job, which the audit log records).
Scoped as the API: a regulator sees every establishment of the jurisdictions they regulate and nothing of any
other, not even as an option of a form (console.access). The figures come from the services the API and the
audit export use: fees' postings in force, compliance.inbox (findings that stand),
exports.collect (expected vs collected), exports.requests (export requests), exports.verification (bundles),
cardroom.audit (the log and its chain).
"""

import calendar
import datetime
import json
import uuid
from decimal import Decimal

from django import forms
from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Count, Max, Prefetch, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from cardroom import checkpoint, merkle, tlog, transparency
from cardroom.api.jobs import visible_jobs
from cardroom.audit import chain_entries, chain_head, chain_name, verify_chains
from cardroom.conditions import conditions_at
from cardroom.exceptions import NotAllowed
from cardroom.models import Approval, AuditLogEntry, ConditionFulfilment, Job
from cardroom.money import format_difference
from cardroom.ordering import natural
from compliance import inbox
from compliance.models import Finding
from exports import collect, verification
from exports.requests import ExportInputError, read_request, start_export
from fees.models import CollectionEntry, Reconciliation, RoundOfPlay, TablePosting

from ..access import (
    establishment_or_404,
    page,
    regulated_establishments,
    regulated_jurisdictions,
    requires,
    roles_of,
)
from ..audit_words import describe as describe_action
from ..templatetags.console import money

AUDIT_PAGE_SIZE = 50
FINDINGS_PAGE_SIZE = 50
HANDLED_SHOWN = 25


@page("regulator")
def home(request, scope):
    """Every establishment of the jurisdiction(s): tables posted and error findings open (a fixed few queries)."""
    now = timezone.now()
    establishments = list(regulated_establishments(scope).order_by("jurisdiction__name", "name")
                          .annotate(active_tables=Count("tables", filter=Q(tables__active=True))))
    posted = dict(TablePosting.objects.in_force_at(now)
                  .filter(table__establishment__in=establishments, table__active=True)
                  .values("table__establishment").annotate(n=Count("id")).values_list("table__establishment", "n"))
    errors = inbox.open_errors(establishments, now)
    rows = [{"establishment": e, "posted": posted.get(e.pk, 0), "open_errors": errors.get(e.pk, 0)}
            for e in establishments]
    return render(request, "console/regulator/home.html", {
        "section": "regulator", "rows": rows, "now": now,
        "several": len({e.jurisdiction_id for e in establishments}) > 1})


# -- one establishment -------------------------------------------------------------------------------------------


class MonthForm(forms.Form):
    month = forms.RegexField(regex=r"^\d{4}-(0[1-9]|1[0-2])$", required=False, label="Month",
                             error_messages={"invalid": "Give a month as YYYY-MM, e.g. 2026-03."},
                             widget=forms.TextInput(attrs={"type": "month"}))

    def first_day(self):
        value = self.cleaned_data.get("month") if self.is_valid() else None
        if not value:
            return None
        year, month = (int(part) for part in value.split("-"))
        if not 1970 <= year <= 9998:
            self.add_error("month", "Give a month between 1970 and 9998.")
            return None
        return datetime.date(year, month, 1)


def _month_end(first):
    return first.replace(day=calendar.monthrange(first.year, first.month)[1])


def _shift(first, months):
    index = first.year * 12 + first.month - 1 + months
    return datetime.date(index // 12, index % 12 + 1, 1)


def _latest_day(table_ids):
    """The last gaming day with a round or a collection at these tables (two index-backed queries)."""
    days = [model.objects.filter(table_id__in=table_ids).aggregate(last=Max("gaming_day"))["last"]
            for model in (RoundOfPlay, CollectionEntry)]
    days = [d for d in days if d is not None]
    return max(days) if days else None


def _reconciled(table_ids, first, last):
    """Per gaming day: how many tables were reconciled, and how many of them the latest run found with a
    variance."""
    latest = {}
    for table, day, status in (Reconciliation.objects.filter(table_id__in=table_ids, gaming_day__range=(first, last))
                               .order_by("table", "gaming_day", "-run_at", "-id")
                               .values_list("table_id", "gaming_day", "status")):
        latest.setdefault((table, day), status)
    days = {}
    for (_, day), status in latest.items():
        counts = days.setdefault(day, {"tables": 0, "variance": 0})
        counts["tables"] += 1
        counts["variance"] += status != Reconciliation.Status.BALANCED
    return days


def _nice_step(top):
    """A round axis step (1, 2 or 5 times a power of ten) giving four or five ticks up to ``top``."""
    raw = top / 4
    power = Decimal(10) ** (len(str(int(raw))) - 1) if raw >= 1 else Decimal("1")
    for factor in (1, 2, 5, 10):
        if power * factor >= raw:
            return power * factor
    return power * 10  # pragma: no cover


CHART = {"width": 640, "height": 250, "left": 66, "right": 8, "top": 14, "bottom": 36}


def _chart(first, last, days, currency):
    """The SVG chart, laid out here (numbers written as SVG wants them, titles ready): expected and collected
    side by side for every gaming day of the month, on a round money scale."""
    by_day = {d["day"]: d for d in days}
    top = max([max(d["expected"], d["collected"]) for d in days] or [Decimal("0")])
    step = _nice_step(top) if top > 0 else Decimal("1")
    ceiling = step * ((top / step).to_integral_value(rounding="ROUND_CEILING") or 1)
    plot_w = CHART["width"] - CHART["left"] - CHART["right"]
    plot_h = CHART["height"] - CHART["top"] - CHART["bottom"]
    count = (last - first).days + 1
    slot = plot_w / count
    bar = max(min(slot * 0.38, 14), 1.5)
    base = CHART["top"] + plot_h

    def y(value):
        return base - float(value / ceiling) * plot_h

    def n(value):
        return f"{value:.1f}"

    slots = []
    for index in range(count):
        day = first + datetime.timedelta(days=index)
        middle = CHART["left"] + index * slot + slot / 2
        found = by_day.get(day)
        entry = {"label_x": n(middle), "label": str(day.day) if count <= 16 or day.day % 2 == 1 else ""}
        if found:
            when = f"{day:%a} {day.day} {day:%b}"
            short = found["collected"] < found["expected"]
            entry["bars"] = [
                {"x": n(middle - bar), "y": n(y(found["expected"])), "h": n(base - y(found["expected"])),
                 "fill": "#6b7785", "title": f"{when}: expected {money(found['expected'], currency)}"},
                {"x": n(middle), "y": n(y(found["collected"])), "h": n(base - y(found["collected"])),
                 "fill": "#a4161a" if short else "#0b5cad",
                 "title": f"{when}: collected {money(found['collected'], currency)}"
                          + (", short of expected" if short else "")},
            ]
        slots.append(entry)
    ticks = []
    value = Decimal("0")
    while value <= ceiling:
        ticks.append({"label": money(value, currency), "y": n(y(value))})
        value += step
    return {**CHART, "slots": slots, "ticks": ticks, "bar": n(bar), "base": base, "label_y": base + 14,
            "tick_x": CHART["left"] - 6, "plot_right": CHART["width"] - CHART["right"],
            "axis_label_y": CHART["height"] - 4}


def signed(amount, currency):
    """A difference as people write it: +$1.00, −$2.50 (a true minus sign), $0.00."""
    return format_difference(amount or Decimal("0.00"), currency)


def _fees(establishment, tables, month_form):
    """The month shown (chosen, else the latest with rounds or collections) and its figures per gaming day."""
    table_ids = [t.pk for t in tables]
    first = month_form.first_day()
    latest = _latest_day(table_ids)
    if first is None:
        today = timezone.localdate(timezone.now(), establishment.zone)
        first = (latest or today).replace(day=1)
    last = _month_end(first)
    days = collect.fees_by_day([establishment], first, last)
    reconciled = _reconciled(table_ids, first, last)
    currency = establishment.jurisdiction.currency
    for day in days:
        day["reconciled"] = reconciled.get(day["day"])
        day["label"] = f"{day['day']:%a} {day['day'].day} {day['day']:%b}"
        day["difference_text"] = signed(day["difference"], day["currency"])
        day["differing"] = [(label, signed(difference, day["currency"]))  # only the tables that differ
                            for label, _, _, difference in day["tables"] if difference]
    mine = [d for d in days if d["currency"] == currency]
    totals = {"expected": sum((d["expected"] for d in mine), Decimal("0.00")),
              "collected": sum((d["collected"] for d in mine), Decimal("0.00"))}
    totals["difference"] = totals["collected"] - totals["expected"]
    totals["difference_text"] = signed(totals["difference"], currency)
    return {"first": first, "last": last, "days": days, "currency": currency, "totals": totals,
            "short_days": sum(1 for d in mine if d["collected"] < d["expected"]),
            "differing": sum(len(d["differing"]) for d in days),
            "chart": _chart(first, last, mine, currency), "latest": latest,
            "previous": _shift(first, -1), "next": _shift(first, 1) if latest and _shift(first, 1) <= latest else None}


def _approvals(establishment):
    """The approvals that apply: the establishment's own and its jurisdiction's (as in the audit export); each
    condition carries ``here``, where it stands at this establishment (cardroom.conditions.conditions_at)."""
    here = Q(establishment=establishment) | Q(establishment__isnull=True, jurisdiction=establishment.jurisdiction_id)
    records = ConditionFulfilment.objects.filter(establishment=establishment).select_related("recorded_by")
    approvals = list(Approval.objects.filter(here).select_related("game")
                     .prefetch_related(Prefetch("conditions__fulfilments", queryset=records))
                     .order_by("game__name", "key"))
    for _, at in conditions_at(establishment, approvals):
        for row in at:
            row["condition"].here = row
    return approvals


@page("regulator")
def establishment(request, establishment, scope):
    establishment = establishment_or_404(regulated_establishments(scope), establishment)
    now = timezone.now()
    every_table = list(establishment.tables.all())  # the ledger's figures count tables since retired too
    tables = sorted((t for t in every_table if t.active), key=lambda t: natural(t.label))
    in_force = {p.table_id: p for p in TablePosting.objects.in_force_at(now)
                .filter(table__establishment=establishment, table__active=True).display_rows()}
    kept = inbox.standing(establishment, now)  # as the compliance officers' inbox shows them
    handled_q = Q(finding__acknowledged_at__isnull=False)
    per_table = {row.pop("table_id"): row for row in (  # per table: errors and warnings open, and those acknowledged
        kept.exclude(severity=Finding.Severity.INFO).filter(table__isnull=False).order_by().values("table_id")
        .annotate(error=Count("pk", filter=Q(severity=Finding.Severity.ERROR) & ~handled_q),
                  warning=Count("pk", filter=Q(severity=Finding.Severity.WARNING) & ~handled_q),
                  acknowledged=Count("pk", filter=handled_q)))}
    counts = inbox.standing_counts(kept)
    # Errors first, then warnings, then notes; a 200-table room stands on hundreds: a page at a time.
    findings = Paginator(kept.order_by("position"), FINDINGS_PAGE_SIZE).get_page(request.GET.get("findings"))
    rows = [{"table": t, "posting": in_force.get(t.pk), "findings": per_table.get(t.pk)} for t in tables]
    month_form = MonthForm(request.GET or None)
    fees = _fees(establishment, every_table, month_form)
    if not month_form.is_bound or not month_form.errors:
        month_form = MonthForm(initial={"month": fees["first"].strftime("%Y-%m")})
    handled = (Finding.objects.filter(establishment=establishment, acknowledged_at__isnull=False)
               .select_related("acknowledged_by", "table", "run").order_by("-acknowledged_at", "-id")[:HANDLED_SHOWN])
    return render(request, "console/regulator/establishment.html", {
        "section": "regulator", "establishment": establishment, "now": now, "rows": rows,
        "unposted": sum(1 for r in rows if r["posting"] is None),
        "findings": findings, "finding_rows": inbox.shown(findings.object_list),
        "infos": counts["info"]["open"] + counts["info"]["acknowledged"], "open_errors": counts["error"]["open"],
        "handled": list(handled), "approvals": list(_approvals(establishment)),
        "month_form": month_form, "fees": fees,
    }, status=400 if month_form.is_bound and month_form.errors else 200)


# -- the audit log -------------------------------------------------------------------------------------------------

# The beat signs every chain that grew each hour (cardroom.tasks.sign_checkpoints, settings.CELERY_BEAT_SCHEDULE):
# entries no stored checkpoint covers after that and an hour's grace mean checkpoints were not signed or were deleted.
CHECKPOINTS_DUE = datetime.timedelta(hours=2)
# A checkpoint is ~150 bytes and a signature line ~100 more: this is room for a note with a dozen signatures.
KEPT_CHECKPOINT_MAX_CHARS = 4096


class KeptCheckpointForm(forms.Form):
    """A checkpoint the regulator kept (downloaded from this page or the API, or carried by an export): pasted or
    uploaded. ``clean`` gives the note's text as cardroom.checkpoint reads it; the signature is checked by the view."""

    note = forms.CharField(
        label="Paste a checkpoint you kept", required=False, strip=False, max_length=KEPT_CHECKPOINT_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 5, "cols": 64, "spellcheck": "false"}),
        error_messages={"max_length": f"A checkpoint is a few lines: at most {KEPT_CHECKPOINT_MAX_CHARS} characters."})
    upload = forms.FileField(label="or upload it (the .txt file)", required=False)

    def clean(self):
        note, upload = self.cleaned_data.get("note") or "", self.cleaned_data.get("upload")
        if self.errors:
            return self.cleaned_data
        if upload is not None:
            if note.strip():
                raise forms.ValidationError("Paste a checkpoint or upload one, not both.")
            if upload.size > KEPT_CHECKPOINT_MAX_CHARS:
                raise forms.ValidationError(f"A checkpoint is a few lines: at most {KEPT_CHECKPOINT_MAX_CHARS} bytes; "
                                            f"this file has {upload.size}.")
            try:
                note = upload.read().decode("utf-8")
            except UnicodeDecodeError:
                raise forms.ValidationError("The file is not text (UTF-8): not a checkpoint.") from None
        if not note.strip():
            raise forms.ValidationError("Paste a checkpoint you kept, or upload it.")
        if "\x00" in note:
            raise forms.ValidationError("The text holds a NUL character: not a checkpoint.")
        # A browser sends a textarea with CRLF line ends; a paste may lose the final newline. Neither is signed.
        self.cleaned_data["text"] = note.replace("\r\n", "\n").strip() + "\n"
        return self.cleaned_data


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
        checkpoint._read_body(body + "\n")
        origin, size, root, _ = ring.checkpoint(note)
    except checkpoint.CheckpointError as error:
        text = str(error)
        if "no signature of any key" in text:
            text = "it is signed by no key this installation trusts (the keys file lists them, rotated ones too)."
        elif "altered" not in text:
            text = f"not a signed checkpoint ({text})"
        form.add_error(None, f"This checkpoint cannot be checked: {text}")
        return None
    chain = origin.removeprefix(tlog.ORIGIN_PREFIX)
    if chain != chain_name(establishment):
        other = (regulated_establishments(scope).filter(pk=int(chain.split(":")[1])).first()
                 if origin.startswith(tlog.ORIGIN_PREFIX + "establishment:") and chain.split(":")[1].isdigit()
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
    report = verify_chains(establishment)[0]
    chain = chain_name(establishment)
    checkpoints = transparency.status(chain)
    rows = _audit_rows(log_page.object_list)
    return render(request, "console/regulator/audit_log.html", {
        "section": "regulator", "establishment": establishment, "page": log_page, "rows": rows,
        "report": report, "checkpoints": checkpoints, "unsigned": _unsigned_since(chain, checkpoints),
        "kept_form": kept_form, "kept": kept, "kept_limit": KEPT_CHECKPOINT_MAX_CHARS}, status=status)


# -- audit exports -------------------------------------------------------------------------------------------------


def export_choices(scope):
    """What a user may export, grouped by jurisdiction: each whole jurisdiction they regulate, and each
    establishment in it. Nothing else, so nothing of another jurisdiction is even named."""
    establishments = list(regulated_establishments(scope).order_by("name"))
    groups = []
    for jurisdiction in regulated_jurisdictions(scope):
        mine = [e for e in establishments if e.jurisdiction_id == jurisdiction.pk]
        groups.append((jurisdiction.name, [(f"jurisdiction:{jurisdiction.code}",
                                            f"All of {jurisdiction.name} ({len(mine)} establishment"
                                            f"{'' if len(mine) == 1 else 's'})")]
                       + [(f"establishment:{e.slug}", e.name) for e in mine]))
    return groups


class ExportForm(forms.Form):
    what = forms.ChoiceField(label="What to export")
    start = forms.DateField(label="From (gaming day)", widget=forms.DateInput(attrs={"type": "date"}),
                            error_messages={"invalid": "Give a date, e.g. 2026-03-01."})
    end = forms.DateField(label="To (gaming day, included)", widget=forms.DateInput(attrs={"type": "date"}),
                          error_messages={"invalid": "Give a date, e.g. 2026-03-31."})

    def __init__(self, *args, choices, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["what"].choices = choices

    def request_data(self):
        """The request as the API takes it (exports.requests.read_request)."""
        kind, _, key = self.cleaned_data["what"].partition(":")
        return {kind: key, "from": self.cleaned_data["start"].isoformat(), "to": self.cleaned_data["end"].isoformat()}


def _last_month(today):
    first = _shift(today.replace(day=1), -1)
    return first, _month_end(first)


@page("regulator")
def export(request, scope):
    """Ask for an audit export of an establishment or a whole jurisdiction; its job page shows the progress."""
    choices = export_choices(scope)
    if request.method == "POST":
        form = ExportForm(request.POST, choices=choices)
        status = 400
        if form.is_valid():
            try:
                export_scope = read_request(form.request_data(), scope=scope)
            except ExportInputError as error:
                form.add_error(None, str(error))
            except NotAllowed as error:  # the form's own message, beside the choices
                form.add_error(None, str(error))
                status = 403
            else:
                job = start_export(export_scope, user=request.user)
                return redirect("console:job", job.uuid)
    else:
        start, end = _last_month(timezone.localdate())
        wanted = request.GET.get("establishment", "")
        initial = {"start": start, "end": end}
        if any(value == f"establishment:{wanted}" for _, options in choices for value, _ in options):
            initial["what"] = f"establishment:{wanted}"
        form = ExportForm(initial=initial, choices=choices)
        status = 200
    recent = (visible_jobs(scope).filter(kind=Job.Kind.AUDIT_EXPORT).select_related("establishment", "jurisdiction")
              .order_by("-created_at", "-id")[:15])
    return render(request, "console/regulator/export.html", {
        "section": "regulator", "form": form, "recent": recent}, status=status)


# -- verifying a bundle ------------------------------------------------------------------------------------------


class VerifyForm(forms.Form):
    bundle = forms.FileField(label="Bundle (.zip)", error_messages={
        "required": "Choose the bundle (the .zip file) to check.", "empty": "The file chosen is empty."})
    public_key = forms.CharField(
        label="Another installation's public key (optional)", required=False, strip=True,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 64, "spellcheck": "false"}),
        help_text="PEM, or base64 of the raw 32 bytes. Leave empty to check against this installation's key.")


FILE_STATES = ("altered", "missing", "added")


def _verify_job(request, scope, job_id):
    """The check asked for: its progress while it runs, then every problem and each file's state."""
    try:
        job_id = uuid.UUID(job_id)
    except ValueError:
        raise Http404("No such check.") from None
    job = get_object_or_404(visible_jobs(scope).filter(kind=Job.Kind.BUNDLE_VERIFICATION), uuid=job_id)
    context = {"job": job, "name": job.params.get("bundle") or "the bundle"}
    result = job.result if job.status == Job.Status.DONE else None
    if result:
        manifest = result.get("manifest") if isinstance(result.get("manifest"), dict) else None
        entries = manifest.get("files") if manifest else None
        listed = {f.get("name"): f for f in entries if isinstance(f, dict)} if isinstance(entries, list) else {}
        states = result.get("files") or {}
        context.update({
            "checked": result, "result": result, "manifest": manifest,
            "files": [{"name": n, "state": state, "bytes": listed.get(n, {}).get("bytes"),
                       "rows": listed.get(n, {}).get("rows")}
                      for n, state in sorted(states.items(), key=lambda item: (item[1] == "ok", item[0]))],
            "named": {state: sorted(n for n, seen in states.items() if seen == state) for state in FILE_STATES},
        })
    return context


@requires("exports.verify_bundle")
def verify(request, scope):
    """Upload a bundle: it is checked in the background (every file's hash and size against the signed manifest,
    and the manifest's signature), and the page follows the check to its result (``?job=``)."""
    context = {"section": "regulator" if "regulator" in roles_of(scope) else "compliance",
               "limit": settings.EXPORT_VERIFY_MAX_BYTES}
    if request.method != "POST":
        if request.GET.get("job"):
            context.update(_verify_job(request, scope, request.GET["job"]))
            if request.htmx:
                return render(request, "console/regulator/_verify_job.html", context)
        return render(request, "console/regulator/verify.html", {**context, "form": VerifyForm()})
    form = VerifyForm(request.POST, request.FILES)
    key = None
    if form.is_valid():
        try:
            key = verification.public_key_from(text=form.cleaned_data["public_key"])
        except verification.PublicKeyError as error:
            form.add_error("public_key", str(error))
    if not form.is_valid():
        for upload in request.FILES.values():
            upload.close()
        return render(request, "console/regulator/verify.html", {**context, "form": form}, status=400)
    job = verification.start(form.cleaned_data["bundle"], key, user=request.user)
    return redirect(f"{reverse('console:regulator-verify')}?job={job.uuid}")


# The same upload limit as the API's (cardroom.middleware reads it before a byte of the body is).
verify.max_body_bytes = settings.EXPORT_VERIFY_MAX_BYTES

__all__ = ["audit_log", "establishment", "export", "home", "verify"]
