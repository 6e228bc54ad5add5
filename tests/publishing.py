"""Publishing in tests as people do it: one officer asks, a second approves (fees.models.ScheduleVersion)."""


def publish(version, *, requested_by, approved_by, reason="Publishing for the test", **retroactive):
    """``retroactive``: retroactive=True, retroactive_reason=... for a version dated before today."""
    version.request_publication(user=requested_by, reason=reason, **retroactive)
    version.approve_publication(user=approved_by, reason=f"Approved: {reason}")
    version.refresh_from_db()
    return version
