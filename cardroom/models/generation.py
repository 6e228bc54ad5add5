from django.db import models


class Generation(models.Model):
    """One row: a number drawn anew in the same transaction as every change that can alter a quote's answer or who
    may ask for one (``cardroom.generation``). Processes keep what quotes read in memory while it stays the same."""

    number = models.BigIntegerField(
        help_text="Random, never counted: a number a rolled-back transaction drew is never seen again.",
    )

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(id=1), name="generation_one_row")]

    def __str__(self):
        return f"generation {self.number}"
