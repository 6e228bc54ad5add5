"""What this installation, as a witness, last cosigned of each log it witnesses (cardroom.witness)."""

from django.db import models


class WitnessedLog(models.Model):
    """The latest checkpoint this witness cosigned of one log, the log named by its full origin line (C2SP
    tlog-witness: "For each log, uniquely identified by its origin line, the witness is only required to keep track
    of the latest checkpoint it observed and verified").

    ``cardroom.witness.services.add_checkpoint`` locks the row, checks a new checkpoint against it and moves it in
    the same transaction, so two requests never both cosign from the same size; the size never goes down (on
    PostgreSQL a trigger refuses it too, migration 0015). A row of size 0 with no checkpoint is a log seen but never
    cosigned (the row exists to be locked)."""

    origin = models.TextField(help_text="The log's origin line, as its checkpoints carry it.")
    origin_hash = models.CharField(max_length=64, unique=True,
                                   help_text="SHA-256 of the origin, lower-case hex: the monitoring address's key.")
    size = models.PositiveBigIntegerField(default=0, help_text="The size of the tree last cosigned (0: none yet).")
    root_hash = models.CharField(max_length=64, blank=True, help_text="Its root hash (hex); empty: none cosigned.")
    checkpoint = models.TextField(blank=True, help_text="The checkpoint last cosigned, as a signed note: the log's "
                                                        "verified signatures and this witness's cosignature.")
    cosigned_at = models.DateTimeField(null=True, blank=True, help_text="When it was cosigned.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "witnessed log"

    def __str__(self):
        return f"{self.origin} @ {self.size}"
