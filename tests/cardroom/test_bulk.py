"""cardroom.bulk.insert: what it writes (COPY on PostgreSQL, bulk_create elsewhere) reads back as given, with the
primary keys it set, and the audit log's bulk path chains as one entry at a time does."""

import datetime
from decimal import Decimal

import pytest

from cardroom import audit, bulk
from cardroom.models import AuditLogEntry, Establishment, Game, Table
from fees.models import Reconciliation

pytestmark = pytest.mark.django_db

AWKWARD = "tab\there, line\nbreak, back\\slash, quote ' \" and ünïcode"


def reconciliation(table, day, **changes):
    values = {
        "establishment": table.establishment, "table": table, "gaming_day": day, "trigger": "nightly",
        "status": "variance", "currency": "USD", "expected_total": Decimal("1234.50"),
        "collected_total": Decimal("1230.25"), "difference": Decimal("-4.25"), "rounds": 7, "entries": 20,
        "hands": 8, "hands_balanced": 6, "hands_with_variance": 2,
        "variances": [{"reference": AWKWARD, "status": "under_collected", "expected": "7.00", "collected": "2.75",
                       "difference": "-4.25", "rounds": 1, "entries": 2}, {"reference": "S-9", "status": "no_round"}],
    }
    return Reconciliation(**{**values, **changes})


def test_rows_read_back_as_given_with_their_keys():
    table = Table.objects.create(establishment=Establishment.objects.get(slug="casino-marysville"), label="BULK-1",
                                 seats=7, game=Game.objects.get(slug="face-up-pai-gow-poker"))
    day = datetime.date(2026, 3, 3)
    made = [reconciliation(table, day + datetime.timedelta(days=n), rounds=n) for n in range(1203)]
    made.append(reconciliation(table, day, variances=[], status="balanced", run_by=None))

    returned = bulk.insert(Reconciliation, made, batch_size=500)

    assert returned is made or list(returned) == made
    assert len({r.pk for r in made}) == len(made) and all(r.pk for r in made)
    assert all(r.run_at is not None for r in made)  # auto_now_add, as bulk_create sets it
    stored = Reconciliation.objects.in_bulk([r.pk for r in made])
    assert len(stored) == len(made)
    for given in made:
        back = stored[given.pk]
        for field in Reconciliation._meta.concrete_fields:
            assert getattr(back, field.attname) == getattr(given, field.attname), field.name
    assert stored[made[0].pk].variances[0]["reference"] == AWKWARD


def test_nothing_to_insert_is_nothing_written():
    before = Reconciliation.objects.count()
    assert bulk.insert(Reconciliation, []) == []
    assert Reconciliation.objects.count() == before


def test_bulk_audit_entries_chain_like_single_ones():
    marysville = Establishment.objects.get(slug="casino-marysville")
    one = audit.log_action("test.single", establishment=marysville, data={"note": AWKWARD})
    many = audit.log_actions([("test.bulk", {"establishment": marysville, "data": {"n": n, "note": AWKWARD}})
                              for n in range(5)])
    assert [e.sequence for e in many] == list(range(one.sequence + 1, one.sequence + 6))
    assert many[0].prev_hash == one.entry_hash
    stored = AuditLogEntry.objects.in_bulk([e.pk for e in many])
    assert [stored[e.pk].entry_hash for e in many] == [e.entry_hash for e in many]
    assert stored[many[-1].pk].data == {"n": 4, "note": AWKWARD}
    report, = audit.verify_chains(marysville)
    assert report.ok and report.head_hash == many[-1].entry_hash
