"""The witness's one action: add-checkpoint (C2SP tlog-witness), cosigning a log's checkpoint when it is consistent
with the last one this witness cosigned of that log, and recording it.

No actor and no permission: the spec authenticates nothing but the checkpoint's own signature ("There is no
authentication of requests beyond the validation of the signature on the checkpoint"), so anyone may relay a log's
signed checkpoint. The checks run in the spec's order and answer its status codes: 400 unreadable, 404 an origin
this witness is not configured for (exactly ``<base>/<chain>`` of a configured base: ``cardroom.witness.logs``), 403 no verifying signature of a key trusted for it, then ``judge`` under a lock
on the log's row (409 another old size than the one last cosigned, 422 inconsistent), 200 with the cosignature.
"""

import hashlib
import logging
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .. import checkpoint
from ..audit import log_action
from ..models import WitnessedLog
from ..tlog import cosignature
from . import keys, logs

logger = logging.getLogger(__name__)

TEXT = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class Answer:
    """What the witness answers: the HTTP status, the body and its type."""

    status: int
    body: str
    content_type: str = TEXT


def origin_hash(origin: str) -> str:
    """The monitoring address's name for a log: SHA-256 of its origin, lower-case hex (tlog-witness)."""
    return hashlib.sha256(origin.encode()).hexdigest()


def add_checkpoint(*, body: bytes, now=None) -> Answer:
    """Judge and, when it holds, cosign the add-checkpoint request ``body`` (the raw HTTP body). ``now``: the POSIX
    time the cosignature states (default: the clock's)."""
    if not keys.enabled():
        return Answer(404, "This installation is not a witness.\n")
    try:
        request = cosignature.read_request(body.decode("utf-8"))
        note_body, _ = cosignature.note_parts(request.note)
        origin, size, root = checkpoint.read_body(note_body)
    except (UnicodeDecodeError, ValueError) as error:  # CosignatureError, CheckpointError
        return Answer(400, f"Unreadable request: {error}\n")
    if size > cosignature.MAX_SIZE:
        return Answer(400, "Unreadable request: a tree size above 2^63 - 1.\n")
    trusted = logs.trusted_keys(origin, settings.WITNESS_LOGS)
    if trusted is None:
        return Answer(404, f"This witness does not witness the log {origin!r}: it witnesses <base>/installation and "
                           "<base>/establishment:<id> of the logs it is configured with, and no other origin.\n")
    try:
        log_lines = cosignature.log_signatures(request.note, trusted)
    except cosignature.NotSigned as error:
        return Answer(403, f"Not cosigned: {error}\n")
    if request.old_size > size:  # judge's first answer, given here before a row is made for the log
        return Answer(400, f"Not cosigned: the old size {request.old_size} is larger than the checkpoint's, {size}.\n")
    private_key = keys.witness_key()
    key = origin_hash(origin)
    # The row to lock: created at size 0 first (its own statement; two first requests race on the unique hash and
    # the loser reads the winner's row), then locked for the check and the update, which are one transaction.
    WitnessedLog.objects.get_or_create(origin_hash=key, defaults={"origin": origin})
    with transaction.atomic():
        row = WitnessedLog.objects.select_for_update().get(origin_hash=key)
        known_root = bytes.fromhex(row.root_hash) if row.root_hash else None
        judgement = cosignature.judge(row.size, known_root, request, size, root)
        if judgement.status == 409:
            return Answer(409, f"{row.size}\n", cosignature.SIZE_CONTENT_TYPE)
        if not judgement.cosign:
            if judgement.status == 422:
                _keep_evidence(row, judgement, size, root, note_body + "\n" + _lines(log_lines))
            return Answer(judgement.status, f"Not cosigned: {judgement.reason}\n")
        if size < row.size:  # judge never allows it (old size = the size held, and size >= old size); kept so
            raise AssertionError(f"refusing to cosign {size} entries of {origin} after {row.size}")
        timestamp = int(time.time()) if now is None else int(now)
        line = cosignature.cosign(keys.name(), private_key, note_body, timestamp)
        row.size, row.root_hash = size, root.hex()
        # What the monitoring address serves: the log's signatures this witness verified, and its own.
        row.checkpoint = note_body + "\n" + _lines(log_lines) + line
        row.cosigned_at = timezone.now()
        row.save()
    return Answer(200, line)


def _lines(lines):
    return "".join(f"{line}\n" for line in lines)


def _keep_evidence(row, judgement, size, root, submitted):
    """A checkpoint the log signed that this witness will not cosign for being inconsistent with what it cosigned:
    possible evidence of a log showing two histories (tlog-witness: "the witness MAY log the request"). Two signed
    checkpoints of one size with different roots prove it by themselves, so that pair goes into the audit log; a
    consistency proof that fails proves nothing by itself (whoever relays a checkpoint writes the proof), so it is
    only logged."""
    logger.warning("Witness: not cosigning %s (%s). Submitted: %r. Last cosigned: %r.", row.origin, judgement.reason,
                   submitted, row.checkpoint)
    if row.checkpoint and size == row.size and root.hex() != row.root_hash:
        log_action("witness.conflicting_checkpoint", actor_label="witness", data={
            "origin": row.origin, "size": size, "reason": judgement.reason,
            "cosigned": row.checkpoint, "submitted": submitted})
