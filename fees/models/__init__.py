from .schedules import (
    FeeOption,
    FeeTier,
    ImmutableVersionError,
    ScheduleDocument,
    ScheduleVersion,
    VersionRowGuard,
    VersionStateError,
)

# VersionRowGuard is a base of migrated models, so migrations import it from here.

__all__ = [
    "FeeOption",
    "FeeTier",
    "ImmutableVersionError",
    "ScheduleDocument",
    "ScheduleVersion",
    "VersionRowGuard",
    "VersionStateError",
]
