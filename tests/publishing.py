"""Publishing in tests as people do it: one officer asks, a second approves (fees.schedules.services)."""

from fees.schedules import services


def publish(version, *, requested_by, approved_by, reason="Publishing for the test", **retroactive):
    """``retroactive``: retroactive=True, retroactive_reason=... for a version dated before today."""
    services.request_publication(requested_by, version=version, reason=reason, effective_from=version.effective_from,
                                 **retroactive)
    services.approve_publication(approved_by, version=version, reason=f"Approved: {reason}")
    version.refresh_from_db()
    return version
