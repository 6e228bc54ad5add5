"""Closing a month of the ledger (issue 26): its rows exported as signed bundles, its partitions detached and
archived as files beside them, nothing written into it until it is reopened (``manage.py close_month`` /
``reopen_month``; docs/scaling.md, "Closing a month").

Closing, step by step (each logged in the audit log of every establishment named):

1. **frozen**: a ``ClosedMonth`` is recorded and each month partition gets a ``CHECK (false) NOT VALID`` (its rows
   stay, nothing new goes in), its DEFAULT partition a CHECK refusing the month's days. The export that follows
   therefore holds exactly the rows archived after it, however late a correction comes in. From here on the
   database refuses the month's kept sums, variance summaries and new reconciliations to every role but the owner
   (fees migration 0021). Refused, nothing changed, when the kept sums differ from the rows (``sealed.unkept``).
2. **exported**: the month's variance summaries brought up to date (``fees.variance.services.refresh``), then one
   audit export per establishment, by what the exports app registers for it (``MONTH_BUNDLE``, a
   ``cardroom.registry.Exporter``: exports stands above fees; ``exports.installation.export_month``, the export job the API and the pages run,
   listed with theirs), written into the archive folder and verified against the installation's key; its rounds
   and entries must number the partitions' rows. A failure here undoes step 1.
3. **detached**: ``ALTER TABLE ... DETACH PARTITION`` (a moment's lock on the parent).
4. **archived**: each detached table written with ``COPY ... TO STDOUT`` (PostgreSQL's text format, gzipped)
   beside the bundles, read back (rows counted, SHA-256), then dropped; the month's sums per room and gaming day
   recorded (``sealed.totals``) and the record sealed (``fees.months.selectors.seal_statement``, v2).

Both run as the tables' owner only (``need_owner``: the service's role is refused before anything changes).

``reopen`` undoes whichever of these steps were taken: a dropped partition is read back from its file (hashed as
it is read, against the digest in the closing's seal, which the installation's key signed when it archived the
month), a detached one attached again, and the CHECKs go. Partitions are PostgreSQL's, so none of
this runs on SQLite; ``fees.months.selectors.closed_for`` (the ledger's writes refuse a closed month) runs
everywhere.

The month's partitions hold every establishment's rows of that month: a month is closed for all of them at once,
and every one with rows in it must be named.
"""

import base64
import datetime
import gzip
import hashlib
import os
import zlib
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from cardroom import bundle, keys, registry, transparency, values
from cardroom.audit import log_actions
from cardroom.exceptions import BadInput, NotAllowed, StateConflict
from cardroom.models import Establishment
from cardroom.registry import Exporter

from ..models import ClosedMonth
from ..variance import services as variance
from . import partitions, sealed
from .selectors import SEAL, seal_problem, seal_statement

# The bundle's kind holding each partitioned table's rows: the bundles must hold every row archived.
KIND_OF = {"fees_roundofplay": "rounds", "fees_collectionentry": "ledger_entries"}
CLOSE_LABEL = "close_month (command line)"
REOPEN_LABEL = "reopen_month (command line)"


# What exports a room's signed bundle of a month: the ``cardroom.registry.Exporter`` of this name, the exports app's,
# registered from its AppConfig.ready (it stands above fees, so fees names it nowhere). ``export(establishment,
# first, last, path, say)`` writes the signed bundle of ``establishment``'s days ``first`` to ``last`` into ``path``,
# telling ``say`` as it goes, and raises when it cannot.
MONTH_BUNDLE = "fees.month_bundle"


# -- reading the command's arguments ----------------------------------------------------------------------------

def read_month(text):
    """The first day of a month written YYYY-MM."""
    try:
        return values.month(text or "")
    except values.Invalid:
        raise BadInput(f"--month {text!r}: give the month as YYYY-MM, e.g. 2026-10.") from None


def _need_postgresql(what):
    if connection.vendor != "postgresql":
        raise BadInput(f"{what} needs PostgreSQL: it detaches and attaches the ledger's month partitions, and on "
                       f"{connection.vendor} the ledger is kept in plain tables, with no partitions. Nothing was "
                       f"changed.")


def database_role():
    """(the database role connected, whether it may close and reopen months): it must own the ledger's tables, whose
    partitions closing detaches and drops and reopening makes and attaches, and write the closing's record, which
    only the owner may (``grant_service_role``: the service's role reads it)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user, pg_has_role(current_user, c.relowner, 'USAGE') "
                       "AND has_table_privilege(%s, 'INSERT') AND has_table_privilege(%s, 'UPDATE') "
                       "FROM pg_class c WHERE c.oid = %s::regclass",
                       [ClosedMonth._meta.db_table, ClosedMonth._meta.db_table, partitions.TABLES[0]])
        return cursor.fetchone()


def need_owner(command):
    """Raise NotAllowed, before anything is changed, unless this database role may close and reopen months
    (``database_role``): ``command`` is what the sentence names. PostgreSQL only (no roles elsewhere)."""
    role, may = database_role()
    if not may:
        raise NotAllowed(f"The database role {role} may not run {command}: it changes what only the tables' owner "
                         f"may (the ledger's month partitions, the closings' records), and {role} does not own them. "
                         f"Run it as the tables' owner (DATABASE_URL=$MIGRATE_DATABASE_URL, as bin/migrate runs). "
                         f"Nothing was changed.")


def _establishments(slugs):
    slugs = list(dict.fromkeys(slugs or ()))
    if not slugs:
        raise BadInput("Name the establishments whose month it is: --establishment <slug> (repeat it).")
    found = {e.slug: e for e in Establishment.objects.filter(slug__in=slugs).select_related("jurisdiction")}
    if missing := [slug for slug in slugs if slug not in found]:
        raise BadInput(f"No establishment {', '.join(map(repr, missing))}.")
    return [found[slug] for slug in slugs]


# -- the database side ------------------------------------------------------------------------------------------

def _check_name(first):
    return f"closed_{first:%Y_%m}"


def _q(name):
    return connection.ops.quote_name(name)


def _one(cursor, sql, params=()):
    cursor.execute(sql, params)
    row = cursor.fetchone()
    return row[0] if row else None


def _attached(cursor, table, name):
    return _one(cursor, "SELECT 1 FROM pg_inherits WHERE inhparent = %s::regclass AND inhrelid = to_regclass(%s)",
                [table, name]) is not None


def _exists(cursor, name):
    return _one(cursor, "SELECT to_regclass(%s) IS NOT NULL", [name])


def _columns(cursor, table):
    cursor.execute("SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 "
                   "AND NOT attisdropped ORDER BY attnum", [table])
    return [name for (name,) in cursor.fetchall()]


def _range(first):
    return f"gaming_day >= '{first.isoformat()}' AND gaming_day < '{partitions.next_month(first).isoformat()}'"


def _digest(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _write_out(cursor, name, columns, path):
    """COPY a detached partition into ``path`` (gzipped text format); the rows written."""
    rows, part = 0, path.with_name(path.name + ".part")
    with open(part, "wb") as raw:
        # Level 1: most of what gzip saves on these rows (JSON), at a fraction of its default level's time.
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0) as out, \
                cursor.cursor.copy(f"COPY {_q(name)} ({', '.join(map(_q, columns))}) TO STDOUT") as copy:
            for data in copy:
                data = bytes(data)
                rows += data.count(b"\n")  # one line a row: the text format escapes newlines in values
                out.write(data)
        raw.flush()
        os.fsync(raw.fileno())  # on disk before the table is dropped
    os.replace(part, path)
    return rows


def _read_back(path):
    """(rows, SHA-256) of an archive file as it lies on disk, read whole (gzip checks its own CRC on the way):
    what is recorded is what a later reopening will find."""
    digest, rows = hashlib.sha256(), 0
    with open(path, "rb") as raw:
        hashing = _Reading(raw, digest)
        with gzip.GzipFile(fileobj=hashing, mode="rb") as archived:
            for chunk in iter(lambda: archived.read(1 << 20), b""):
                rows += chunk.count(b"\n")
    return rows, digest.hexdigest()


class _Reading:
    """A file that hashes what is read from it."""

    def __init__(self, raw, digest):
        self.raw, self.digest = raw, digest

    def read(self, size=-1):
        data = self.raw.read(size)
        self.digest.update(data)
        return data


def _log(action, establishments, obj=None, label=CLOSE_LABEL, **data):
    """One entry in each establishment's audit chain."""
    log_actions([(action, {"actor_label": label, "obj": obj, "establishment": e, "jurisdiction": e.jurisdiction,
                           "data": data}) for e in establishments])


def _named(closed):
    return list(closed.establishments.select_related("jurisdiction").order_by("slug"))


# -- closing ----------------------------------------------------------------------------------------------------

def close(first, slugs, *, archive_dir=None, say=lambda line: None, now=None, label=CLOSE_LABEL):
    """Close the month beginning ``first`` for the establishments ``slugs`` (every one with rows in it). Returns
    the ClosedMonth. Raises BadInput (nothing changed) for a month that cannot be closed; ``say`` is told each
    step and the export's progress; ``label``: who closes it, as the record and the audit log name them (the
    command, or the nightly close: ``fees.months.nightly``)."""
    if registry.find(Exporter, MONTH_BUNDLE) is None:
        raise StateConflict("No audit export is registered (the exports app registers it): a month is closed only "
                            "with its bundles. Nothing was changed.")
    _need_postgresql("close_month")
    need_owner("close_month")
    establishments = _establishments(slugs)
    following = partitions.next_month(first)
    last = following - datetime.timedelta(days=1)
    month = f"{first:%Y-%m}"
    _refuse_if_closed(first)
    now = now or timezone.now()
    for establishment in establishments:
        today = establishment.gaming_day_of(now)
        if today <= last:
            raise BadInput(f"{month} is not over at {establishment.slug} ({establishment.time_zone}): it is gaming "
                           f"day {today.isoformat()} there. Close the month once its last gaming day, "
                           f"{last.isoformat()}, is over.")
    names = {e.pk for e in establishments}
    found = []
    with connection.cursor() as cursor:
        for table in partitions.TABLES:
            name = partitions.month_name(table, first)
            if not partitions.is_partitioned(cursor, table):
                raise BadInput(f"{table} is not partitioned by month (migrate first): there is no partition to "
                               f"detach. Nothing was changed.")
            if not _attached(cursor, table, name):
                rows = _one(cursor, f"SELECT count(*) FROM {_q(table + '_default')} WHERE {_range(first)}")
                raise BadInput(f"{table} has no partition of its own for {month}: its {rows} rows of that month are "
                               f"in {table}_default, which holds every month without one and is not detached a "
                               f"month at a time. The month cannot be closed; nothing was changed.")
            cursor.execute(f"SELECT DISTINCT establishment_id FROM {_q(name)}")
            others = {pk for (pk,) in cursor.fetchall()} - names
            if others:
                slugs_else = sorted(Establishment.objects.filter(pk__in=others).values_list("slug", flat=True))
                raise BadInput(f"{name} also holds rows of {', '.join(slugs_else)}: a month's partition is shared by "
                               f"every establishment, so closing it closes the month for all of them. Name each "
                               f"one (--establishment, repeated). Nothing was changed.")
            found.append({"table": table, "partition": name, "columns": _columns(cursor, table)})
    directory = Path(archive_dir) if archive_dir else Path(settings.LEDGER_ARCHIVE_DIR) / month
    bundle_paths = {e.slug: directory / f"audit-{e.slug}-{first.isoformat()}-to-{last.isoformat()}.zip"
                    for e in establishments}
    targets = list(bundle_paths.values()) + [directory / f"{part['partition']}.copy.gz" for part in found]
    if present := [str(path) for path in targets if path.exists()]:
        raise BadInput(f"Already there: {', '.join(present)}. An archive is never written over: move it away or "
                       f"give another --archive-dir. Nothing was changed.")
    made = not directory.exists()
    directory.mkdir(parents=True, exist_ok=True)
    try:
        closed = _freeze(first, establishments, directory, found, now, label)
    except BadInput:
        if made:
            directory.rmdir()  # nothing was written there yet: nothing was changed
        raise
    held = ", ".join(f"{part['partition']}: {part['rows']:,} rows" for part in found)
    say(f"1/4 {month} frozen: nothing is written into it from now on ({held}).")
    try:
        # The month's variance summaries brought up to date under the freeze (a reconciliation committed just
        # before it is summed up too): what the closing seals (fees.months.sealed), as the owner alone now may.
        for establishment in establishments:
            variance.refresh(establishment, closing=first)
        bundles = _export_bundles(first, last, establishments, bundle_paths, found, say)
    except BaseException:
        say(f"The export failed: {month} is opened again as it was.")
        _unfreeze(closed)
        for path in bundle_paths.values():  # this run's, none was there before: a new run can write them
            path.unlink(missing_ok=True)
        raise
    closed.bundles = bundles
    closed.save(update_fields=["bundles"])
    _log("ledger.month_exported", establishments, closed, label=label, month=month, bundles=bundles)
    say(f"2/4 exported and verified: {', '.join(b['file'] for b in bundles)}.")

    _detach(closed)
    say(f"3/4 detached: {', '.join(p['partition'] for p in closed.partitions)}.")
    _archive(closed, directory, say)
    return closed


def _refuse_if_closed(first):
    closed = ClosedMonth.objects.filter(month=first, reopened_at__isnull=True).first()
    if closed is not None:
        unfinished = "" if closed.archived else (" (its closing stopped before its partitions were archived; "
                                                 "reopen_month puts back what it had done)")
        raise BadInput(f"{first:%Y-%m} is already closed, since {closed.closed_at:%Y-%m-%d %H:%M} UTC{unfinished}. "
                       f"Nothing was changed.")


def _freeze(first, establishments, directory, found, now, label):
    check = _check_name(first)
    with transaction.atomic():
        try:
            with transaction.atomic():
                closed = ClosedMonth.objects.create(month=first, archive_dir=str(directory.resolve()),
                                                    closed_at=now, closed_by=label)
        except IntegrityError:  # closed_month_once
            raise BadInput(f"{first:%Y-%m} is being closed by another run. Nothing was changed.") from None
        closed.establishments.set(establishments)
        with connection.cursor() as cursor:
            # PostgreSQL refuses to ALTER a table with deferred checks pending (rows written in this transaction).
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            for part in found:
                # NOT VALID: the rows there stay as they are; any new one is refused.
                cursor.execute(f"ALTER TABLE {_q(part['partition'])} ADD CONSTRAINT {_q(check)} CHECK (false) "
                               f"NOT VALID")
                cursor.execute(f"ALTER TABLE {_q(part['table'] + '_default')} ADD CONSTRAINT {_q(check)} "
                               f"CHECK (NOT ({_range(first)}))")
                # Counted under the freeze: the rows the bundles must hold and the files will.
                part["rows"] = _one(cursor, f"SELECT count(*) FROM {_q(part['partition'])}")
        # The kept sums are sealed once the rows are gone: only when they are what the rows sum to.
        last = partitions.next_month(first) - datetime.timedelta(days=1)
        if differing := sealed.unkept(first, last):
            table, day, currency, kept, rows = differing[0]
            raise BadInput(f"The kept sums of {first:%Y-%m} differ from its rows at {len(differing)} table-day(s) "
                           f"(the first: table {table} on {day.isoformat()} in {currency}, kept "
                           f"{', '.join(f'{k} {v}' for k, v in kept.items())}; rows "
                           f"{', '.join(f'{k} {v}' for k, v in rows.items())}): a closing seals them as they are. "
                           f"Run `manage.py check_ledger_sums --repair --from {first.isoformat()} --to "
                           f"{last.isoformat()}`, then close the month. Nothing was changed.")
        closed.partitions = found
        closed.save(update_fields=["partitions"])
        _log("ledger.month_frozen", establishments, closed, label=label, month=f"{first:%Y-%m}",
             partitions={p["partition"]: p["rows"] for p in found})
    return closed


def _unfreeze(closed):
    """Undo ``_freeze`` (the export failed): the month as it was, and the log says so."""
    check = _check_name(closed.month)
    with transaction.atomic(), connection.cursor() as cursor:
        for part in closed.partitions:
            cursor.execute(f"ALTER TABLE {_q(part['partition'])} DROP CONSTRAINT IF EXISTS {_q(check)}")
            cursor.execute(f"ALTER TABLE {_q(part['table'] + '_default')} DROP CONSTRAINT IF EXISTS {_q(check)}")
        _log("ledger.month_unfrozen", _named(closed), closed, label=closed.closed_by, month=f"{closed.month:%Y-%m}",
             reason="the export failed; nothing was archived")
        ClosedMonth.objects.filter(pk=closed.pk).delete()


def _export_bundles(first, last, establishments, paths, found, say):
    """One signed, verified bundle per establishment; their rounds and entries number the partitions' rows."""
    bundles, counted = [], {}
    for establishment in establishments:
        path = paths[establishment.slug]
        say(f"    exporting {establishment.slug}, {first.isoformat()} to {last.isoformat()}, into {path}")
        registry.entry(Exporter, MONTH_BUNDLE).export(establishment, first, last, path, say)
        checked = bundle.verify(path, keys.public_key())
        if not checked.ok:
            raise BadInput(f"{path} does not verify: {'; '.join(checked.problems)}")
        for kind, rows in checked.manifest["rows"].items():
            counted[kind] = counted.get(kind, 0) + rows
        bundles.append({"establishment": establishment.slug, "file": path.name, "sha256": _digest(path),
                        "bytes": path.stat().st_size})
    for part in found:
        kind = KIND_OF.get(part["table"])
        if kind is not None and counted.get(kind, 0) != part["rows"]:
            raise BadInput(f"The bundles hold {counted.get(kind, 0)} {kind} rows, {part['partition']} holds "
                           f"{part['rows']}: the month was not archived.")
    return bundles


def _detach(closed):
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # as in _freeze
        for part in closed.partitions:
            # No key of the table's refers to it: the corrections' key is each partition's own, onto itself
            # (fees.months.partitions.OWN_KEYS), and leaves with it; the other months are not checked.
            cursor.execute(f"ALTER TABLE {_q(part['table'])} DETACH PARTITION {_q(part['partition'])}")
        _log("ledger.month_detached", _named(closed), closed, label=closed.closed_by, month=f"{closed.month:%Y-%m}",
             partitions=[p["partition"] for p in closed.partitions])


def _archive(closed, directory, say):
    """Write each detached partition out, read the file back, then drop the table."""
    parts = []
    with connection.cursor() as cursor:
        for part in closed.partitions:
            path = directory / f"{part['partition']}.copy.gz"
            written = _write_out(cursor, part["partition"], part["columns"], path)
            rows, sha256 = _read_back(path)
            if not written == rows == part["rows"]:
                raise BadInput(f"{path}: {rows} rows read back, {written} written, {part['rows']} in "
                               f"{part['partition']}; the table is kept (detached). Nothing was dropped.")
            parts.append({**part, "file": path.name, "sha256": sha256, "bytes": path.stat().st_size})
            say(f"    {part['partition']}: {rows:,} rows in {path.name}, SHA-256 {sha256}")
    with transaction.atomic(), connection.cursor() as cursor:
        for part in parts:
            cursor.execute(f"DROP TABLE {_q(part['partition'])}")
        closed.partitions, closed.archived = parts, True
        # The month's sums per room and gaming day, sealed with the files (statement v2): what its pages and
        # check_ledger_sums hold the kept sums and variance summaries to once its rows are gone.
        closed.totals = sealed.totals(closed.month, sealed.month_end(closed.month))
        closed.seal = _seal(closed)
        closed.save(update_fields=["partitions", "archived", "totals", "seal"])
        _log("ledger.month_closed", _named(closed), closed, label=closed.closed_by, month=f"{closed.month:%Y-%m}",
             bundles=closed.bundles, partitions=[{k: p[k] for k in ("partition", "file", "rows", "sha256")}
                                                 for p in parts])
    say(f"4/4 archived and dropped: {', '.join(p['file'] for p in parts)} in {directory}.")


# -- the seal: what a reopening may restore (its statement: fees.months.selectors.seal_statement) -------------

def _seal(closed):
    private, key = transparency.current_key()
    return {"statement": SEAL, "key": key.fingerprint,
            "signature": base64.b64encode(private.sign(seal_statement(closed, SEAL))).decode()}


# -- reopening --------------------------------------------------------------------------------------------------

def reopen(first, *, archive_dir=None, say=lambda line: None, now=None):
    """Attach a closed month again: each archived partition read back from its file (hashed as it is read, and
    restored only when its SHA-256 is the one the closing sealed), a detached one attached as it is; the CHECKs
    dropped. Returns the ClosedMonth, marked reopened. Raises BadInput (nothing changed)."""
    _need_postgresql("reopen_month")
    need_owner("reopen_month")
    month = f"{first:%Y-%m}"
    closed = ClosedMonth.objects.filter(month=first, reopened_at__isnull=True).first()
    if closed is None:
        raise BadInput(f"{month} is not closed: there is nothing to reopen.")
    directory = Path(archive_dir) if archive_dir else Path(closed.archive_dir)
    if closed.archive_removed_at and not archive_dir:
        raise BadInput(f"{month} is not reopened: its archived files were removed on "
                       f"{closed.archive_removed_at:%Y-%m-%d} ({closed.archive_removed_by}), its retention period "
                       f"over. Give --archive-dir where a copy of {closed.archive_dir} is kept. Nothing was changed.")
    if any(part.get("file") for part in closed.partitions) and (problem := seal_problem(closed)):
        raise BadInput(f"{month} is not reopened: {problem}. Its signed bundles ({closed.archive_dir}) are the "
                       f"month's record. Nothing was changed.")
    with connection.cursor() as cursor:
        for part in closed.partitions:
            if not part.get("file"):
                continue  # the closing stopped before writing it out: still there, attached or detached
            if _exists(cursor, part["partition"]):
                raise BadInput(f"{part['partition']} was archived and dropped, yet a table of that name exists: "
                               f"someone made it since (ensure_months over a closed month?). Nothing was changed.")
            path = directory / part["file"]
            if not path.is_file():
                raise BadInput(f"{part['partition']}'s archive {path} is not there (give --archive-dir where the "
                               f"files are). Nothing was changed.")
    check = _check_name(first)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        for part in closed.partitions:
            table, name = part["table"], part["partition"]
            if _attached(cursor, table, name):
                cursor.execute(f"ALTER TABLE {_q(name)} DROP CONSTRAINT IF EXISTS {_q(check)}")
                say(f"    {name}: still attached, opened")
            else:
                # Detached and not dropped (a closing stopped half way), it still has its keys.
                restored = not _exists(cursor, name)
                if restored:
                    _restore(cursor, part, directory / part["file"], first)
                    say(f"    {name}: {part['rows']:,} rows read back from {part['file']}, SHA-256 as sealed")
                cursor.execute(f"ALTER TABLE {_q(name)} DROP CONSTRAINT IF EXISTS {_q(check)}")
                # The DEFAULT's CHECK still refuses the month: PostgreSQL need not scan it to attach.
                cursor.execute(f"ALTER TABLE {_q(table)} ATTACH PARTITION {_q(name)} FOR VALUES FROM "
                               f"('{first.isoformat()}') TO ('{partitions.next_month(first).isoformat()}')")
                cursor.execute(f"ALTER TABLE {_q(name)} DROP CONSTRAINT IF EXISTS {_q(check + '_bound')}")
                if restored:
                    # LIKE copies no foreign key: the partition's keys onto itself, made once ATTACH has built its
                    # primary key (they check this month's rows only).
                    partitions.add_own_keys(cursor, table, name)
                say(f"    {name}: attached")
            cursor.execute(f"ALTER TABLE {_q(table + '_default')} DROP CONSTRAINT IF EXISTS {_q(check)}")
        closed.reopened_at, closed.reopened_by = now or timezone.now(), REOPEN_LABEL
        closed.save(update_fields=["reopened_at", "reopened_by"])
        _log("ledger.month_reopened", _named(closed), closed, label=REOPEN_LABEL, month=month,
             partitions=[p["partition"] for p in closed.partitions])
    say(f"{month} reopened: its rows can be read and written again.")
    return closed


def _restore(cursor, part, path, first):
    """A table like the parent holding the file's rows, ready to attach. The file is read once, hashed as it is
    restored: a digest other than the sealed one raises, and the caller's transaction takes the rows away again."""
    table, name = part["table"], part["partition"]
    cursor.execute(f"CREATE TABLE {_q(name)} (LIKE {_q(table)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS "
                   f"INCLUDING STORAGE INCLUDING COMPRESSION)")
    digest, failure = hashlib.sha256(), None
    with open(path, "rb") as raw:
        try:
            with gzip.GzipFile(fileobj=_Reading(raw, digest), mode="rb") as archived, \
                    cursor.cursor.copy(f"COPY {_q(name)} ({', '.join(map(_q, part['columns']))}) FROM STDIN") as copy:
                for chunk in iter(lambda: archived.read(1 << 20), b""):
                    copy.write(chunk)
        except (OSError, EOFError, zlib.error, DatabaseError, connection.Database.Error) as error:
            # Not gzip, or rows the table refuses (the driver's own error: COPY runs on its cursor).
            failure = error
        digest.update(raw.read())  # the rest of the file (after the gzip stream, or after a failure) counts too
    if (sha256 := digest.hexdigest()) != part["sha256"]:
        raise BadInput(f"{path} has SHA-256 {sha256}, not the {part['sha256']} sealed when the month was closed: "
                       f"it is not the file archived. Nothing was changed.")
    if failure is not None:
        raise BadInput(f"{path} is the file archived, yet its rows could not be read back ({failure}). Nothing was "
                       f"changed.")
    rows = _one(cursor, f"SELECT count(*) FROM {_q(name)}")
    if rows != part["rows"]:
        raise BadInput(f"{path} gave {rows} rows, not the {part['rows']} archived. Nothing was changed.")
    # The partition's bound as a CHECK: PostgreSQL attaches without scanning the rows just checked.
    cursor.execute(f"ALTER TABLE {_q(name)} ADD CONSTRAINT {_q(_check_name(first) + '_bound')} "
                   f"CHECK ({_range(first)})")
    # Dropped once attached (reopen): ATTACH has used it by then.
