"""What an export covers and what a kind is: ``ExportScope`` (establishments, a period, and the ledger and audit
chains fixed when the export starts), ``Kind`` (a CSV file's name, typed columns and how its rows are read), and the
UTC timestamps every kind writes."""

import datetime
from dataclasses import dataclass, field

from django.db.models import Q
from django.utils import timezone

from cardroom.models import Table
from fees.models import CollectionEntry, RoundOfPlay, ScheduleDocument

CHUNK = 5_000


@dataclass
class ExportScope:
    establishments: list  # Establishment objects
    start: datetime.date | None  # None: from the beginning ("as of" the end)
    end: datetime.date
    jurisdiction: object = None  # set when the export covers a whole jurisdiction
    # Fixed when the export starts (``freeze``), so the files agree with each other (the rounds, their fee lines and
    # the fees per table and day) even while the floor goes on recording: the last ledger entry and round, and each
    # audit chain's head.
    last_entry: int = 0
    last_round: int = 0
    chain_heads: dict = field(default_factory=dict)  # chain name -> (sequence, entry_hash)
    small_rows: dict = field(default_factory=dict, repr=False)  # kind name -> its rows, read once (``rows``)

    def freeze(self):
        from cardroom.audit import chain_head, chain_name

        self.small_rows = {}
        self.freeze_ledger()
        self.chain_heads = {chain_name(e): chain_head(e) for e in self.establishments}
        return self

    def freeze_ledger(self):
        """Fix the last ledger entry and round read (all that the ledger's kinds need)."""
        from django.db.models import Max

        self.last_entry = CollectionEntry.objects.aggregate(m=Max("id"))["m"] or 0
        self.last_round = RoundOfPlay.objects.aggregate(m=Max("id"))["m"] or 0
        return self

    def rows(self, kind):
        """The rows of ``kind`` in the scope: a small kind's are read once and kept for its CSV and the report
        (fees per table and day sums the whole ledger); a big kind's are streamed each time."""
        if kind.big:
            return kind.rows(self)
        if kind.name not in self.small_rows:
            self.small_rows[kind.name] = list(kind.rows(self))
        return self.small_rows[kind.name]

    @property
    def start_moment(self):
        if self.start is None:
            return datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return timezone.make_aware(datetime.datetime.combine(self.start, datetime.time.min))

    @property
    def end_moment(self):
        """The first moment after the period (the period is whole local days)."""
        return timezone.make_aware(datetime.datetime.combine(self.end + datetime.timedelta(days=1),
                                                             datetime.time.min))

    @property
    def establishment_ids(self):
        return [e.pk for e in self.establishments]

    @property
    def jurisdiction_ids(self):
        return sorted({e.jurisdiction_id for e in self.establishments})

    def tables(self):
        return Table.objects.filter(establishment__in=self.establishment_ids)

    def documents(self):
        return ScheduleDocument.objects.filter(
            Q(establishment__in=self.establishment_ids)
            | Q(establishment__isnull=True, jurisdiction__in=self.jurisdiction_ids))

    def describe(self):
        what = (f"jurisdiction {self.jurisdiction.code}" if self.jurisdiction is not None
                else ", ".join(e.slug for e in self.establishments))
        period = f"{self.start} to {self.end}" if self.start else f"as of {self.end}"
        return f"{what}, {period}"


@dataclass(frozen=True)
class Type:
    """What a column's cells hold, as columns.json describes it beside the column's description (format 2): the
    ``type`` (text, integer, decimal, date, timestamp, boolean, json), the ``unit`` (``money``, ``count``), for money
    the column holding its ``currency`` (of the same file, or ``<kind>.<column>``), and the ``time_zone`` a date or
    timestamp is in."""

    type: str
    unit: str | None = None
    currency: str | None = None
    time_zone: str | None = None

    def describe(self):
        return {k: v for k, v in (("type", self.type), ("unit", self.unit), ("currency", self.currency),
                                  ("time_zone", self.time_zone)) if v is not None}


TEXT = Type("text")
INTEGER = Type("integer")  # an id, a number, a position
COUNT = Type("integer", unit="count")
MONEY = Type("decimal", unit="money", currency="currency")
ROUND_MONEY = Type("decimal", unit="money", currency="rounds.currency")  # the round's, in rounds.csv
DECIMAL = Type("decimal")
BOOLEAN = Type("boolean")
JSON = Type("json")
TIMESTAMP = Type("timestamp", time_zone="UTC")
GAMING_DAY = Type("date", time_zone="local: the establishment's gaming day, in its own time zone and from its "
                                    "gaming-day start, not a UTC day")
LOCAL_DAY = Type("date", time_zone="local: a calendar day where the establishment is, not a UTC day")


@dataclass
class Kind:
    name: str
    title: str
    columns: list  # (name, description) or (name, description, Type); a column without a Type holds text
    rows: object  # rows(scope) -> iterator of tuples
    copy_sql: object = None  # copy_sql(scope) -> SQL of a SELECT whose columns are ``columns`` (PostgreSQL)
    big: bool = False  # streamed in chunks; the report shows counts, not rows
    order: tuple = ()  # the columns the rows are in the order of (COPY's ORDER BY); () for the first column
    notes: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def column_names(self):
        return [c[0] for c in self.columns]

    def column_types(self):
        """Each column's ``Type``, in order."""
        return [c[2] if len(c) > 2 else TEXT for c in self.columns]


def utc(moment):
    if moment is None:
        return None
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
