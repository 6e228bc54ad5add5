"""The import's steps as a compliance officer takes them: each asks ``fees.import_records`` for the room and writes
its audit entry (``ledger.import_uploaded``, ``ledger.import_mapping``, ``ledger.import``; the job writes
``ledger.import_finished``)."""

from django.core.files.base import File
from django.db import transaction

from cardroom import audit, jobs, permissions
from cardroom.exceptions import BadInput, StateConflict
from cardroom.models import Job

from ..models import ImportMapping, RecordImport
from .mapping import FIELD_NAMES, mapping_problems, saved_mapping
from .reading import check_upload, sha256
from .recording import IMPORT_KIND, PERMISSION, import_records


def receive_upload(user, *, establishment, upload):
    """Keep an uploaded file for import once it is checked; returns the RecordImport. BadInput (nothing kept) for a
    file too large, empty, of another kind, or with too many rows."""
    permissions.require(user, PERMISSION, establishment)
    name = (upload.name or "records").rsplit("/", 1)[-1][:200]
    try:
        kind, header, rows = check_upload(upload, name)
    except BadInput as error:  # every refusal of the upload is the file's
        raise BadInput(str(error), field="file") from None
    record_import = RecordImport(establishment=establishment, name=name, format=kind, size=upload.size,
                                 sha256=sha256(upload), header=header, rows=rows, uploaded_by=user)
    with transaction.atomic():
        record_import.file.save(f"upload.{kind}", File(upload), save=False)
        record_import.save()
        audit.log_action("ledger.import_uploaded", actor=user, obj=record_import, establishment=establishment,
                         data={"file": name, "format": kind, "size": upload.size, "sha256": record_import.sha256,
                               "rows": rows, "columns": header})
    return record_import


def save_mapping(user, *, establishment, mapping, header):
    """Keep ``mapping`` (field -> column) as the room's; BadInput when it is incomplete for ``header``."""
    permissions.require(user, PERMISSION, establishment)
    mapping = {field: column for field, column in mapping.items() if field in FIELD_NAMES and column}
    problems = mapping_problems(mapping, header)
    if problems:
        raise BadInput(" ".join(problems))
    with transaction.atomic():
        kept, _ = ImportMapping.objects.select_for_update().get_or_create(establishment=establishment)
        kept.columns, kept.updated_by = mapping, user
        kept.save()
        audit.log_action("ledger.import_mapping", actor=user, obj=kept, establishment=establishment,
                         data={"mapping": mapping})
    return kept


def start_import(user, *, record_import):
    """Queue the import of a received file with the room's mapping; returns the Job (done already when jobs run
    in-process). StateConflict when this upload was imported already (upload the file again: nothing is recorded
    twice)."""
    establishment = record_import.establishment
    permissions.require(user, PERMISSION, establishment)
    mapping = saved_mapping(establishment)
    problems = mapping_problems(mapping, record_import.header)
    if problems:
        raise BadInput("Map the file's columns first. " + " ".join(problems))
    with transaction.atomic():
        locked = RecordImport.objects.select_for_update().get(pk=record_import.pk)
        if locked.job_id is not None:
            raise StateConflict("This upload has been imported already; upload the file again to import it again "
                                "(rows already recorded are not recorded twice).")
        job = Job.objects.create(kind=IMPORT_KIND.value, establishment=establishment, requested_by=user,
                                 requested_label=user.get_username(), params={"import": str(locked.uuid)})
        locked.job, locked.mapping = job, mapping
        locked.save(update_fields=["job", "mapping"])
        audit.log_action("ledger.import", actor=user, obj=locked, establishment=establishment,
                         data={"file": locked.name, "format": locked.format, "size": locked.size,
                               "sha256": locked.sha256, "rows": locked.rows, "mapping": mapping,
                               "job": str(job.uuid)})
    jobs.submit(job, import_records)
    record_import.refresh_from_db()
    job.refresh_from_db()
    return job
