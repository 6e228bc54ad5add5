"""What the witness last cosigned, for the monitoring address (tlog-witness, "Monitor Retrieval Mechanism")."""

from ..models import WitnessedLog


def latest_checkpoint(origin_hash: str) -> str | None:
    """The latest checkpoint cosigned of the log whose origin hashes to ``origin_hash``, with the log's signatures
    the witness verified and its own cosignature; None when it never cosigned one."""
    note = WitnessedLog.objects.filter(origin_hash=origin_hash).values_list("checkpoint", flat=True).first()
    return note or None
