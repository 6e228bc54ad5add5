from django.conf import settings
from django.db import models

from cardroom.exceptions import StateConflict


class AppendOnlyError(StateConflict):
    """Raised when code tries to change or remove an audit-log entry, or to write one around log_action."""


class AuditLogQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnlyError("The audit log is append-only: entries are never updated.")

    def delete(self):
        raise AppendOnlyError("The audit log is append-only: entries are never deleted.")

    def bulk_update(self, objs, fields, batch_size=None):
        raise AppendOnlyError("The audit log is append-only: entries are never updated.")

    def bulk_create(self, objs, *args, **kwargs):
        raise AppendOnlyError("Audit-log entries are written one at a time, through cardroom.audit.log_action.")


class AuditLogEntry(models.Model):
    """One action taken in the system (publish, import, print, export, ...) and who took it.

    Written only through ``cardroom.audit.log_action``; the application never updates or deletes an entry, and
    on PostgreSQL a trigger makes the database refuse UPDATE and DELETE (migration 0003). Entries are
    hash-chained, one chain per establishment plus one for the installation (``cardroom.chain``): each entry
    has its position in its chain, the hash of the entry before it and its own hash, which covers its content
    and that previous hash. ``python manage.py verify_audit_log`` walks the chains.
    """

    # Set by log_action (not auto_now_add) before hashing, so the hashed value is the stored one.
    created_at = models.DateTimeField(db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    actor_label = models.CharField(max_length=150, help_text="Username, or the command that acted.")
    action = models.CharField(max_length=60, db_index=True)
    object_type = models.CharField(max_length=100, blank=True)
    object_id = models.CharField(max_length=64, blank=True)
    object_repr = models.CharField(max_length=300, blank=True)
    establishment = models.ForeignKey(
        "cardroom.Establishment", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    jurisdiction = models.ForeignKey(
        "cardroom.Jurisdiction", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    data = models.JSONField(default=dict, blank=True)
    chain = models.CharField(
        max_length=64, help_text="The hash chain the entry belongs to: 'establishment:<id>' or 'installation'."
    )
    sequence = models.PositiveBigIntegerField(help_text="Position in its chain, from 1.")
    prev_hash = models.CharField(
        max_length=64, help_text="Hash of the previous entry in the chain (zeros for the first)."
    )
    entry_hash = models.CharField(max_length=64, help_text="SHA-256 of this entry's content and the previous hash.")

    objects = AuditLogQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "audit log entry"
        verbose_name_plural = "audit log"
        constraints = [
            models.UniqueConstraint(fields=["chain", "sequence"], name="cardroom_audit_chain_sequence_unique"),
        ]

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise AppendOnlyError("The audit log is append-only: entries are never updated.")
        if not self.entry_hash:
            raise AppendOnlyError("Audit-log entries are written through cardroom.audit.log_action, which chains them.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("The audit log is append-only: entries are never deleted.")

    def __str__(self):
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_label} {self.action} {self.object_repr}"


class AuditChainHead(models.Model):
    """Where each audit-log chain ends: the position and hash of its last entry.

    ``log_action`` locks the row to append (one writer per chain at a time) and advances it in the same
    transaction as the entry. Verification compares the end of the walked chain with it, so entries removed
    from the end of a chain (which leaves a chain that is intact as far as it goes) are noticed.
    """

    chain = models.CharField(max_length=64, unique=True)
    sequence = models.PositiveBigIntegerField(default=0, help_text="Position of the chain's last entry (0: none yet).")
    entry_hash = models.CharField(max_length=64, help_text="Hash of the chain's last entry.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "audit chain head"

    def __str__(self):
        return f"{self.chain} @ {self.sequence} {self.entry_hash[:12]}"


class AuditChainVerified(models.Model):
    """How far each audit-log chain is known intact, so that a look at the log re-hashes only the entries written
    since (``cardroom.audit.verify_new_entries``). The whole walk (``verify_chains``: the hourly beat and
    ``verify_audit_log``) sets it back to the last good entry when it finds a break, which the next look then shows.
    """

    chain = models.CharField(max_length=64, unique=True)
    sequence = models.PositiveBigIntegerField(help_text="Position of the last entry verified (0: none yet).")
    entry_hash = models.CharField(max_length=64, help_text="Hash of that entry.")
    verified_at = models.DateTimeField(help_text="When the entries up to it were last verified.")
    walked_at = models.DateTimeField(null=True, blank=True, help_text="When the whole chain was last walked.")

    class Meta:
        verbose_name = "audit chain verified point"

    def __str__(self):
        return f"{self.chain} verified through {self.sequence}"


class SigningKey(models.Model):
    """A public key the installation signs with (checkpoints, export manifests), and when.

    The private key is configuration (``cardroom.keys``); this is its public half as the record knows it. Keys are
    recorded by the database owner (``manage.py record_signing_key``; in the embedded default the first key is
    recorded the first time it signs): the first is the root of trust, which regulators keep; each later one
    carries the endorsement of the key it replaces, that key's signature over ``cardroom.tlog.endorsement_statement``,
    and starts when that one ends. A key nobody endorsed verifies nothing. Retired keys stay listed
    (``GET /api/v1/audit/keys``), so what they signed still verifies. The service's database role may only read
    them, and on PostgreSQL a trigger keeps a key as recorded (migration 0009)."""

    name = models.CharField(max_length=64, default="cardroom", help_text="The signer's name in signed notes.")
    key_id = models.CharField(max_length=8, unique=True, help_text="The signed-note key id (hex, 4 bytes).")
    public_key = models.CharField(max_length=64, help_text="Base64 of the raw 32-byte Ed25519 public key.")
    fingerprint = models.CharField(max_length=71, unique=True, help_text="SHA256:<hex> of the raw public key.")
    valid_from = models.DateTimeField(help_text="When it started signing.")
    valid_until = models.DateTimeField(null=True, blank=True, help_text="When another key replaced it; empty while "
                                                                         "it is the key in use.")
    endorsed_by = models.CharField(max_length=71, blank=True, help_text="The fingerprint of the key it replaced, "
                                                                        "which endorsed it; empty for the first key.")
    endorsement = models.CharField(max_length=88, blank=True, help_text="Base64 of that key's Ed25519 signature "
                                                                        "over the endorsement statement.")

    class Meta:
        ordering = ["valid_from"]

    def __str__(self):
        return f"{self.name} {self.key_id}"


class AuditCheckpoint(models.Model):
    """A signed checkpoint of one audit chain (its Merkle tree head at a size), as handed out.

    ``cardroom.transparency.sign`` writes them and refuses to sign one the chain no longer agrees with: two
    checkpoints of a chain are always consistent (the larger tree contains the smaller one unchanged)."""

    class Purpose(models.TextChoices):
        SCHEDULE = "schedule", "signed hourly"
        EXPORT = "export", "carried by an audit export"
        REQUEST = "request", "asked for over the API"

    chain = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField(help_text="Entries covered: positions 1 to size.")
    root_hash = models.CharField(max_length=64, help_text="The Merkle tree head (hex).")
    note = models.TextField(help_text="The checkpoint as a signed note (C2SP tlog-checkpoint).")
    signing_key = models.ForeignKey(SigningKey, on_delete=models.PROTECT, related_name="checkpoints")
    purpose = models.CharField(max_length=16, choices=Purpose.choices)
    signed_at = models.DateTimeField()

    class Meta:
        ordering = ["chain", "size"]
        constraints = [
            models.UniqueConstraint(fields=["chain", "size", "signing_key", "purpose"],
                                    name="cardroom_checkpoint_once"),
        ]

    def __str__(self):
        return f"{self.chain} @ {self.size} {self.root_hash[:12]}"
