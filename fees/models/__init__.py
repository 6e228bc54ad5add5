from .ledger import CollectionEntry, LedgerConflict, LedgerImmutableError, Reconciliation, RoundOfPlay, RoundPricing
from .postings import PostingBonusLimit, PostingImmutableError, TablePosting
from .immutability import ImmutableVersionError, VersionRowGuard, VersionStateError
from .imports import ImportMapping, RecordImport
from .ledger_days import LedgerDay
from .months import ClosedMonth
from .options import FeeOption, FeeTier
from .reviews import Interpretation, VersionReview
from .schedules import ScheduleDocument, ScheduleVersion
from .variance import VarianceCell, VarianceChange, VarianceDay

# VersionRowGuard is a base of migrated models, so migrations import it from here.

__all__ = [
    "ClosedMonth",
    "CollectionEntry",
    "LedgerConflict",
    "LedgerDay",
    "LedgerImmutableError",
    "Reconciliation",
    "RoundOfPlay",
    "RoundPricing",
    "PostingBonusLimit",
    "PostingImmutableError",
    "TablePosting",
    "FeeOption",
    "FeeTier",
    "ImmutableVersionError",
    "ImportMapping",
    "RecordImport",
    "Interpretation",
    "ScheduleDocument",
    "ScheduleVersion",
    "VersionReview",
    "VersionRowGuard",
    "VersionStateError",
    "VarianceCell",
    "VarianceChange",
    "VarianceDay",
]
