"""What the role pages show of a posting's judgement (``compliance.judgement``), at a glance: its errors' messages,
how many warnings, and the problems coming within 30 days (the day, whether it blocks, the message).

Kept beside the judgement (``compliance.kept``) and read back alone: the floor, the postings page and the regulator's
room show 200 tables' glances on every look, and decoding 200 whole judgements (every finding with its cited
parameters) into findings cost them ~15 ms a look at 200 tables (issue 43). A glance is made from a judgement
(``Glance.of``) and nowhere else, so it says what the judgement says.
"""

import dataclasses
import datetime

from .rules.base import ERROR, WARNING


@dataclasses.dataclass(frozen=True, slots=True)
class Soon:
    """A problem first appearing on ``day`` within the next 30 days (``judgement.Dated``): ``blocks`` when an error."""

    day: datetime.date
    blocks: bool
    message: str


@dataclasses.dataclass(frozen=True, slots=True)
class Glance:
    """``errors``: the messages of the findings that block printing; ``warnings``: how many warnings; ``upcoming``:
    the ``Soon`` problems, soonest first."""

    errors: tuple
    warnings: int
    upcoming: tuple

    @classmethod
    def of(cls, findings, upcoming):
        """A judgement's glance, from its findings and its dated problems (``Judgement.findings``, ``.upcoming``)."""
        return cls(errors=tuple(f.message for f in findings if f.severity == ERROR),
                   warnings=sum(1 for f in findings if f.severity == WARNING),
                   upcoming=tuple(Soon(d.day, d.finding.severity == ERROR, d.finding.message) for d in upcoming))

    @property
    def blocked(self):
        return bool(self.errors)

    @property
    def blocked_from(self):
        """The first day within the next 30 on which an error appears (None if none does)."""
        return next((s.day for s in self.upcoming if s.blocks), None)

    def errors_on(self, day):
        """The messages of the dated errors that first appear on ``day``."""
        return [s.message for s in self.upcoming if s.blocks and s.day == day]

    def as_dict(self):
        return {"errors": list(self.errors), "warnings": self.warnings,
                "upcoming": [[s.day.isoformat(), s.blocks, s.message] for s in self.upcoming]}

    @classmethod
    def from_dict(cls, data):
        return cls(tuple(data["errors"]), data["warnings"],
                   tuple(Soon(datetime.date.fromisoformat(day), blocks, message)
                         for day, blocks, message in data["upcoming"]))
