from celery import shared_task
from django.db import connection

from .models import Approval, Game


@shared_task
def worker_health():
    """What a worker sees of the database: proves the broker, the worker and the database are wired up."""
    return {"database": connection.vendor, "games": Game.objects.count(), "approvals": Approval.objects.count()}


@shared_task
def sign_checkpoints():
    """The beat's checkpoints: every audit chain that grew since its last one, then each chain's newest
    checkpoint submitted to the witnesses that have not cosigned it. Fails (so the failure shows where
    tasks are watched) when a chain disagrees with a checkpoint already signed; each such chain is also logged."""
    from . import transparency

    signed, refused = transparency.sign_moved_chains()
    # Then the witnesses (cardroom.witnessing): one down or refusing is said in the inbox, never fails the task.
    witnessed = transparency.witness_pending()
    if refused:
        raise transparency.ChainRewritten(f"Refused to sign checkpoints of {', '.join(refused)}: they no longer "
                                          "agree with checkpoints already signed (see the audit log).")
    return {"signed": signed, "witnessed": {chain: {o.witness: o.result for o in outcomes}
                                            for chain, outcomes in witnessed.items()}}


@shared_task
def recover_jobs():
    """The beat's every minute: jobs whose worker was lost are queued again or failed saying why, and queued jobs
    no worker took are sent again (``cardroom.jobs.recover``)."""
    from . import jobs

    return jobs.recover()


@shared_task
def verify_audit_chains():
    """The beat's hourly walk of every audit chain, whole (``cardroom.audit.verify_chains``): the audit log page
    re-hashes only the entries written since the last verified one, so an older entry changed behind the
    application's back is found here, and the page names the break from the next look on. Fails (so the failure
    shows where tasks are watched) when a chain is broken."""
    from .audit import verify_chains

    reports = verify_chains()
    broken = [report.describe() for report in reports if not report.ok]
    if broken:
        raise RuntimeError("Audit log chains broken: " + "; ".join(broken))
    return {"chains": len(reports), "entries": sum(report.entries for report in reports)}


@shared_task
def refresh_planner_statistics():
    """Nightly, and after loading (``load_seed_data``, ``load_demo``): SQLite's query planner statistics brought
    up to date (``ANALYZE``). SQLite never gathers them itself, and without them it sums a month of the ledger table
    by table (the regulator's room page: 1.9 s instead of 0.15 s). PostgreSQL's autovacuum keeps its own."""
    if connection.vendor != "sqlite":
        return {"analyzed": False}
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {"analyzed": True}
