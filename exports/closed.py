"""An export of a period whose months are (partly) closed: a bundle of bundles (format 3, ``cardroom.bundle.nesting``;
docs/exports.md, "A bundle of bundles").

A closed month's rounds and entries left the database when it was closed (``fees.months.services.close``); what
holds them is the bundle signed then, one per establishment, in the month's archive folder. So an export of such a
period carries those bundles as they are (each checked against the SHA-256 its closing recorded, and that record
against the closing's seal: never rebuilt), a bundle of the open days built as any export is (``build.build``), the
consistency proofs that join their audit checkpoints into one log where an inner bundle does not carry one, and a
report of the whole period, under one manifest signed by the installation's key. A period with no closed month is
exported as before (format 2).
"""

import contextlib
import datetime
import json
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from functools import partial
from pathlib import Path

from django.db import connection
from django.utils import timezone

from cardroom import keys
from cardroom.bundle import CHUNK, FORMAT_3, BundleWriter
from cardroom.bundle import reading as bundle_reading
from cardroom.bundle.nesting import checkpoint_stem, link_name
from cardroom.exceptions import StateConflict
from fees.models import ClosedMonth
from fees.months.selectors import seal_problem

from . import build, report
from .collect import ExportScope

FEES = "fees_by_table_day"


def _next_month(first):
    return (first.replace(day=28) + datetime.timedelta(days=4)).replace(day=1)


def segments(scope):
    """The period cut where its months are closed, in order: ``(first, last, closed, entries, open_establishments)``
    each; ``closed`` the ClosedMonth (None for open days), ``entries`` its recorded bundles of the scope's
    establishments, ``open_establishments`` those the export builds a bundle of for these days (all of them for
    open days; in a closed month, those the closing did not name: it names every one with rows in the month)."""
    slugs = [e.slug for e in scope.establishments]
    months = ClosedMonth.objects.filter(reopened_at__isnull=True, month__lte=scope.end).order_by("month")
    if scope.start is not None:
        months = months.filter(month__gte=scope.start.replace(day=1))
    found, cursor = [], scope.start
    for closed in months:
        entries = [b for b in closed.bundles if b.get("establishment") in slugs]
        if not entries:
            continue  # none of these rooms had rows in it: their days are read as open ones
        first, last = closed.month, _next_month(closed.month) - datetime.timedelta(days=1)
        if cursor is None or cursor < first:
            found.append((cursor, first - datetime.timedelta(days=1), None, [], scope.establishments))
        named = {b["establishment"] for b in entries}
        found.append((first, last, closed, entries, [e for e in scope.establishments if e.slug not in named]))
        cursor = last + datetime.timedelta(days=1)
    if found and cursor <= scope.end:
        found.append((cursor, scope.end, None, [], scope.establishments))
    return found


def write(scope, path, *, requested_by="", on_progress=None):
    """Write the export of ``scope`` to ``path``: a bundle of bundles when months of its period are closed, else the
    bundle ``build.build`` writes. Returns the manifest as signed.

    The closed months' bundles are copied as they are while the open days' bundles are built on a second connection
    (``_beside``): the building is the export's longest part, the copying mostly reading and hashing files."""
    parts = segments(scope)
    if not parts:
        return build.build(scope, path, requested_by=requested_by, on_progress=on_progress)
    from cardroom.transparency import current_key

    signing_key, _ = current_key()  # recorded, if new, before a build beside this one asks for it
    started = timezone.now()
    total = sum(len(entries) + (1 if others else 0) for _, _, _, entries, others in parts) + 2
    done = 0

    def say(stage):
        if on_progress is not None:
            on_progress(done, total, stage)

    work = Path(tempfile.mkdtemp(prefix="cardroom-export-"))
    by_part, fees, carried = [[] for _ in parts], [], []
    try:
        with BundleWriter(path) as writer:
            with _beside() as run:
                building = {}
                for index, (first, last, closed, _, others) in enumerate(parts):
                    if others:
                        inner_scope = ExportScope(establishments=others, start=first, end=last,
                                                  jurisdiction=scope.jurisdiction if closed is None else None)
                        name = f"audit-{_who(inner_scope)}-{first.isoformat() if first else 'beginning'}-to-{last}.zip"
                        say(f"bundles/{name}: building the {'open days' if closed is None else 'rooms with no rows'}")
                        building[index] = name, run(build.build, inner_scope, work / name, requested_by=requested_by)
                for index, (first, last, closed, entries, _) in enumerate(parts):
                    for entry in entries:
                        say(f"bundles/{entry['file']}: the bundle of {closed.month:%Y-%m}, as closed")
                        by_part[index].append(_closed_bundle(writer, closed, entry, work))
                        fees += _fee_rows(work / entry["file"], scope, first, last)
                        done += 1
                    if entries:
                        carried.append(_carried(scope, closed, first, last, by_part[index]))
                for index, (name, built) in building.items():
                    built()  # waits for it (raises what it raised)
                    first, last, closed, _, _ = parts[index]
                    by_part[index].append(_add(writer, f"bundles/{name}", work / name, closed))
                    if closed is None:  # the open days' fees as their bundle has them (not summed a second time)
                        fees += _fee_rows(work / name, scope, first, last)
                    done += 1
                    say(f"bundles/{name}: built")
            inners = [inner for found in by_part for inner in found]  # in the order of their periods
            links = _links(writer, inners)
            scope.freeze()
            counts = {}
            for inner in inners:
                for kind, rows in inner["manifest"].get("rows", {}).items():
                    counts[kind] = counts.get(kind, 0) + rows
            say("report.pdf")
            whole = _WholePeriod(scope, fees, [c["why"] for c in carried])
            writer.add_bytes("report.pdf", report.render(whole, counts, generated_at=started,
                                                         requested_by=requested_by))
            done += 1
            manifest = {
                **build.manifest_head(scope, started, requested_by, counts),
                "bundles": [{k: v for k, v in inner.items() if k != "manifest"} for inner in inners],
                "links": links,
                "closed_months": carried,  # each closed month carried whole, and why (its "why": the report's words)
                "signing_key": keys.key_fingerprint(),
            }
            return writer.finish(manifest, signing_key, format=FORMAT_3)
    finally:
        for leftover in work.iterdir():
            leftover.unlink()
        work.rmdir()


@contextlib.contextmanager
def _beside():
    """``run(function, *args, **kwargs)`` starts a job and gives back what waits for it and returns its result. On
    PostgreSQL outside a transaction the jobs run in turn on a thread of their own, with its own connection, beside
    this one (a connection inside a transaction would see what another cannot: a test's rows); elsewhere each runs
    here when it is waited for."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield lambda function, *args, **kwargs: partial(function, *args, **kwargs)
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="export-beside") as pool:
        yield lambda function, *args, **kwargs: pool.submit(_apart, partial(function, *args, **kwargs)).result


def _apart(job):
    try:
        return job()
    finally:
        connection.close()  # the thread's own connection


def _carried(scope, closed, first, last, bundles):
    """What the manifest and the report say of a closed month carried whole: its days and rows, the part of it the
    period asked for, and a sentence saying why all of it is there ("October 2026 is closed: its sealed bundle is
    carried whole, 31 gaming days, 1,985 entries; the period asked for was 10-20 October")."""
    rows = {}
    for inner in bundles:
        for kind, number in inner["manifest"].get("rows", {}).items():
            rows[kind] = rows.get(kind, 0) + number
    asked_from, asked_to = max(first, scope.start or first), min(last, scope.end)
    days = (last - first).days + 1
    entries, rounds = rows.get("ledger_entries", 0), rows.get("rounds", 0)
    if (asked_from, asked_to) == (first, last):
        asked = "the period asked for covers all of it"
    else:
        same = asked_from == asked_to
        asked = (f"the period asked for was {asked_from.day}{'' if same else f'-{asked_to.day}'} {first:%B}"
                 f" ({(asked_to - asked_from).days + 1} gaming day{'' if same else 's'} of it)")
    why = (f"{closed.month:%B %Y} is closed: its sealed bundle{'s are' if len(bundles) > 1 else ' is'} carried whole, "
           f"{days} gaming days, {entries:,} entr{'y' if entries == 1 else 'ies'} and {rounds:,} "
           f"round{'' if rounds == 1 else 's'}; {asked}. A closed month's rows are exported only as its closing "
           f"signed them, never cut (closed on {timezone.localtime(closed.closed_at).date().isoformat()} by "
           f"{closed.closed_by}).")
    return {"month": f"{closed.month:%Y-%m}", "closed_at": closed.closed_at.isoformat(),
            "closed_by": closed.closed_by, "carried": {"from": first.isoformat(), "to": last.isoformat()},
            "asked": {"from": asked_from.isoformat(), "to": asked_to.isoformat()}, "gaming_days": days,
            "bundles": [inner["name"] for inner in bundles], "rows": rows, "why": why}


def _who(scope):
    return scope.jurisdiction.code if scope.jurisdiction is not None else "-".join(e.slug for e in scope.establishments)


def _closed_bundle(writer, closed, entry, work):
    """A closed month's recorded bundle, copied into the outer bundle (and beside it, to read its fees) once its
    closing record is as sealed and the file is the one recorded, byte for byte."""
    month = f"{closed.month:%Y-%m}"
    if closed.archived and (problem := seal_problem(closed)):
        raise StateConflict(f"The closing of {month} cannot vouch for its bundles: {problem}. Nothing was exported.")
    source = Path(closed.archive_dir) / entry["file"]
    if not source.is_file():
        raise StateConflict(f"The bundle of {month} for {entry['establishment']}, {source}, is not there: a closed "
                            f"month is exported from the bundle signed when it was closed. Nothing was exported.")
    name, copy = f"bundles/{entry['file']}", work / entry["file"]
    sha256, size = _put(writer, name, source, copy)
    if sha256 != entry["sha256"]:
        raise StateConflict(f"{source} has SHA-256 {sha256}, not the {entry['sha256']} its closing "
                            f"recorded: it is not the bundle of {month}. Nothing was exported.")
    return _entry(name, copy, sha256, size, closed)


def _add(writer, name, path, closed):
    return _entry(name, path, *_put(writer, name, path), closed)


def _put(writer, name, path, copy=None):
    """An inner bundle put into the outer one as it is (stored: a zip is compressed already), and written to
    ``copy`` on the way when given; (its SHA-256, its size)."""
    with open(path, "rb") as f, writer.open(name, stored=True) as into, \
            (open(copy, "wb") if copy else contextlib.nullcontext()) as kept:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            into.write(chunk)
            if kept:
                kept.write(chunk)
    return into.sha256, into.bytes


def _entry(name, path, sha256, size, closed):
    """The outer manifest's entry of an inner bundle, with its own manifest (dropped from what is written)."""
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
    return {"name": name, "period": manifest["period"], "sha256": sha256, "bytes": size, "manifest": manifest,
            **({"closed_month": f"{closed.month:%Y-%m}"} if closed is not None else {})}


def _links(writer, inners):
    """For each chain, between inner bundles that follow each other: the consistency proof from the smaller
    checkpoint to the larger, written when the larger bundle does not carry it (``transparency.consistency``)."""
    from cardroom.transparency import consistency

    links, written = [], set()
    chains = sorted({head["chain"] for inner in inners for head in inner["manifest"].get("audit_chains", [])})
    for chain in chains:
        carrying = [(inner, head["sequence"]) for inner in inners for head in inner["manifest"]["audit_chains"]
                    if head["chain"] == chain and head["sequence"]]
        for (earlier, size_a), (later, size_b) in zip(carrying, carrying[1:]):
            (old, _), (new, larger) = sorted(((size_a, earlier), (size_b, later)), key=lambda item: item[0])
            carried = f"{checkpoint_stem(chain)}.from-{old}.txt"
            if old == new or any(f["name"] == carried for f in larger["manifest"]["files"]):
                continue
            name = link_name(chain, old, new)
            if name not in written:
                writer.add_bytes(name, consistency(chain, old, new).encode())
                written.add(name)
            links.append({"chain": chain, "from": earlier["name"], "to": later["name"], "file": name})
    return links


def _fee_rows(path, scope, first, last):
    """The fees per table and day of an inner bundle, read from it as ``fee_day_rows`` gives them."""
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        if f"{FEES}.csv" not in names or "columns.json" not in names:
            return []  # a format-1 bundle: its fees are in its own report
        columns = bundle_reading.columns_of(archive.read("columns.json").decode(), FEES)
        records = bundle_reading.records(f"{FEES}.csv", archive.read(f"{FEES}.csv").decode(), columns)
    start = max(first or datetime.date.min, scope.start or datetime.date.min)  # None: from the beginning
    rows = []
    for r in records:
        day = datetime.date.fromisoformat(r["gaming_day"])
        if start <= day <= min(last, scope.end):
            rows.append((day, r["establishment"], r["table"], Decimal(r["expected"]), Decimal(r["collected"]),
                         Decimal(r["difference"]), r["currency"]))
    return rows


class _WholePeriod:
    """The whole period as the report reads it: the database's rows, but the fees per table and day read from the
    inner bundles (a closed month's rounds and entries are no longer in the database; the open days' were summed
    once, into their bundle)."""

    def __init__(self, scope, fees, closed_notes=()):
        self._scope, self._fees = scope, fees
        self.closed_notes = list(closed_notes)  # why each closed month is carried whole (the report's summary)

    def __getattr__(self, name):
        return getattr(self._scope, name)

    def rows(self, kind):
        if kind.name != FEES:
            return self._scope.rows(kind)
        return sorted(self._fees, key=lambda r: (r[0], r[1], r[2]))
