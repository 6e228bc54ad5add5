"""What a locked schedule version refuses: the errors, and the guard that keeps the option and tier rows of a
published version (or one awaiting a second officer) as immutable as the version itself."""

from cardroom.exceptions import StateConflict


class ImmutableVersionError(StateConflict):
    """A published schedule version, or an option or tier in one, cannot be changed."""


class VersionStateError(StateConflict):
    """The requested step does not fit the version's state (e.g. publishing a published version)."""


class VersionRowGuard:
    """Options and tiers of a published version are as immutable as the version itself."""

    def owning_version(self):
        raise NotImplementedError

    def _check_mutable(self):
        version = self.owning_version()
        if version is not None and version.is_locked:
            state = "is published" if version.is_published else "awaits a second officer (withdraw the request to edit)"
            raise ImmutableVersionError(f"{version} {state}; its options and tiers cannot be changed.")

    def save(self, *args, **kwargs):
        self._check_mutable()
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        self._check_mutable()
        return super().delete(*args, **kwargs)
