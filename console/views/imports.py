"""A compliance officer's imports of the room's own records (fees.imports): the list, a new upload, the column
mapping, the preview, the job's progress and result, and the refused rows' download. Every change goes through
``fees.imports``; every page asks ``fees.import_records`` (the room: one of the user's compliance rooms, else 404)."""

from django import forms
from django.contrib import messages
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.views.decorators.http import require_POST

from cardroom.exceptions import BadInput, StateConflict
from cardroom.forms import show_error
from fees import imports
from fees.models import RecordImport

from ..access import compliance_establishments, establishment_or_404, requires

PERMISSION = imports.PERMISSION
NOT_MAPPED = ("", "— not in the file —")


class UploadForm(forms.Form):
    file = forms.FileField(label="File of rounds and collections (CSV or XLSX)")


def mapping_form(header, data=None, initial=None):
    """One choice per ledger field: the file's columns, or none."""
    form = forms.Form(data=data, initial=initial)
    choices = [NOT_MAPPED, *((column, column) for column in header)]
    for field in imports.FIELDS:
        form.fields[field.name] = forms.ChoiceField(label=field.label, help_text=field.help, choices=choices,
                                                    required=False)
    return form


def _room(scope, slug):
    return establishment_or_404(compliance_establishments(scope), slug)


def _import(establishment, uuid):
    return get_object_or_404(RecordImport.objects.select_related("job", "uploaded_by", "establishment__jurisdiction"),
                             establishment=establishment, uuid=uuid)


def _render(request, template, establishment, context, status=200):
    return render(request, f"console/compliance/{template}",
                  {"section": "compliance", "establishment": establishment, **context}, status=status)


@requires(PERMISSION)
def import_list(request, establishment, scope):
    establishment = _room(scope, establishment)
    rows = RecordImport.objects.filter(establishment=establishment).select_related("job", "uploaded_by")[:100]
    return _render(request, "imports.html", establishment, {"imports": rows, "form": UploadForm()})


@requires(PERMISSION)
def new_import(request, establishment, scope):
    establishment = _room(scope, establishment)
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            received = imports.receive_upload(request.user, establishment=establishment,
                                              upload=form.cleaned_data["file"])
        except BadInput as error:
            show_error(form, error)
        else:
            messages.success(request, f"{received.name}: {received.rows:,} rows, SHA-256 {received.sha256[:12]}…")
            return redirect("console:compliance-import-mapping", establishment.slug, received.uuid)
    status = 400 if request.method == "POST" else 200
    return _render(request, "imports_new.html", establishment, {"form": form}, status=status)


# The import's file limit (settings.IMPORT_MAX_BYTES), read before a byte of the body is (cardroom.middleware), with
# room for the form's other fields; the upload itself is streamed to a temporary file, never held in memory.
FORM_ALLOWANCE = 64 * 1024
new_import.max_body_bytes = lambda: imports.max_bytes() + FORM_ALLOWANCE
new_import.body_too_large = lambda length, limit: imports.too_large(length)


@requires(PERMISSION)
def import_mapping(request, establishment, uuid, scope):
    establishment = _room(scope, establishment)
    record_import = _import(establishment, uuid)
    saved = imports.saved_mapping(establishment)
    guessed = imports.guess_mapping(record_import.header, saved)
    form = mapping_form(record_import.header, request.POST or None, initial=guessed)
    if request.method == "POST" and form.is_valid():
        try:
            imports.save_mapping(request.user, establishment=establishment, mapping=form.cleaned_data,
                                 header=record_import.header)
        except BadInput as error:
            show_error(form, error)
        else:
            return redirect("console:compliance-import-preview", establishment.slug, record_import.uuid)
    return _render(request, "imports_mapping.html", establishment, {
        "record_import": record_import, "form": form, "first_time": not saved,
        "rows": [(form[field.name], field) for field in imports.FIELDS],
    }, status=400 if request.method == "POST" else 200)


@requires(PERMISSION)
def import_preview(request, establishment, uuid, scope):
    establishment = _room(scope, establishment)
    record_import = _import(establishment, uuid)
    mapping = imports.saved_mapping(establishment)
    problems = imports.mapping_problems(mapping, record_import.header)
    if problems and record_import.job_id is None:
        return redirect("console:compliance-import-mapping", establishment.slug, record_import.uuid)
    rows = imports.preview(record_import, mapping)
    columns, table = imports.as_table(rows)
    return _render(request, "imports_preview.html", establishment, {
        "record_import": record_import, "mapping": mapping, "rows": rows, "columns": columns, "table": table,
        "shown": imports.PREVIEW_ROWS,
    })


@require_POST
@requires(PERMISSION)
def start_import(request, establishment, uuid, scope):
    establishment = _room(scope, establishment)
    record_import = _import(establishment, uuid)
    try:
        imports.start_import(request.user, record_import=record_import)
    except (BadInput, StateConflict) as error:
        messages.error(request, str(error))
    return redirect("console:compliance-import", establishment.slug, record_import.uuid)


@requires(PERMISSION)
def import_detail(request, establishment, uuid, scope):
    """The import's progress (htmx asks again every second while its job runs), then its counts and refused rows."""
    establishment = _room(scope, establishment)
    record_import = _import(establishment, uuid)
    template = "imports_progress.html" if request.htmx else "imports_detail.html"
    return _render(request, template, establishment, {"record_import": record_import, "job": record_import.job})


@requires(PERMISSION)
def refused_rows(request, establishment, uuid, scope):
    establishment = _room(scope, establishment)
    record_import = _import(establishment, uuid)
    if not record_import.refused_file:
        raise Http404("This import refused no row.")
    return FileResponse(record_import.refused_file.open("rb"), as_attachment=True, content_type="text/csv",
                        filename=imports.refused_name(record_import))


# Under compliance/<room>/imports/ (console.urls includes them).
patterns = [
    path("", import_list, name="compliance-imports"),
    path("new/", new_import, name="compliance-import-new"),
    path("<uuid:uuid>/", import_detail, name="compliance-import"),
    path("<uuid:uuid>/mapping/", import_mapping, name="compliance-import-mapping"),
    path("<uuid:uuid>/preview/", import_preview, name="compliance-import-preview"),
    path("<uuid:uuid>/start/", start_import, name="compliance-import-start"),
    path("<uuid:uuid>/refused.csv", refused_rows, name="compliance-import-refused"),
]
