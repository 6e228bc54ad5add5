from .ledger import CollectionEntry, LedgerConflict, LedgerImmutableError, Reconciliation, RoundOfPlay
from .postings import PostingBonusLimit, PostingImmutableError, TablePosting
from .schedules import (
    FeeOption,
    FeeTier,
    ImmutableVersionError,
    Interpretation,
    ScheduleDocument,
    ScheduleVersion,
    VersionReview,
    VersionRowGuard,
    VersionStateError,
)

# VersionRowGuard is a base of migrated models, so migrations import it from here.

__all__ = [
    "CollectionEntry",
    "LedgerConflict",
    "LedgerImmutableError",
    "Reconciliation",
    "RoundOfPlay",
    "PostingBonusLimit",
    "PostingImmutableError",
    "TablePosting",
    "FeeOption",
    "FeeTier",
    "ImmutableVersionError",
    "Interpretation",
    "ScheduleDocument",
    "ScheduleVersion",
    "VersionReview",
    "VersionRowGuard",
    "VersionStateError",
]
