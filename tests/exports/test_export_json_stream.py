"""The big kinds' JSON files come from PostgreSQL (COPY), byte for byte what the Python path writes (issue 14)."""

import datetime
import io
import json

import pytest
from django.db import connection

from exports import build, collect
from fees.models import CollectionEntry

from tests.exports.test_exports import month  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.services]
NASTY = 'a "quoted" back\\slash\nnew line\ttab\r\x01\x1f é 中 \u2028 end '


class _Zip:
    """What _write_json writes to: collects the bytes of each file."""

    def __init__(self):
        self.files = {}

    def open(self, name):
        handle = io.BytesIO()
        handle.rows = None
        self.files[name] = handle

        class Closing:
            def __enter__(self):
                return handle

            def __exit__(self, *exc):
                return False

        return Closing()


def written(kind, scope, monkeypatch, from_postgresql):
    monkeypatch.setattr(collect, "use_copy", lambda: from_postgresql)
    out = _Zip()
    rows = build._write_json(out, kind, scope, build.Progress(1, None))
    return out.files[f"{kind.name}.json"].getvalue(), rows


def test_the_big_kinds_json_from_postgresql_is_the_python_paths_byte_for_byte(people, month, monkeypatch):  # noqa: F811
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    first = CollectionEntry.objects.order_by("id").first()
    # A correction whose free text holds everything JSON must escape, and what it must not.
    CollectionEntry.objects.create(
        idempotency_key=NASTY[:90], establishment=first.establishment, table=first.table, gaming_day=first.gaming_day,
        reference=NASTY[:60], collected_at=first.collected_at, payer=first.payer, seat=None, player=NASTY[:60],
        fee_kind=first.fee_kind, amount="1.50", currency="USD", corrects=first, reason=NASTY,
        recorded_at=first.recorded_at)
    scope = collect.ExportScope(establishments=[people.marysville], start=datetime.date(2026, 3, 1),
                                end=datetime.date(2026, 3, 31)).freeze()
    for name in ("ledger_entries", "rounds"):
        kind = next(k for k in collect.KINDS if k.name == name)
        streamed, rows = written(kind, scope, monkeypatch, True)
        python, python_rows = written(kind, scope, monkeypatch, False)
        assert streamed == python and rows == python_rows == {"ledger_entries": 3, "rounds": 2}[name]
        records = json.loads(streamed)
        assert [list(r) for r in records] == [kind.column_names] * rows
    entries = json.loads(written(next(k for k in collect.KINDS if k.name == "ledger_entries"), scope, monkeypatch,
                                 True)[0])
    assert entries[-1]["reason"] == NASTY and entries[-1]["amount"] == "1.50" and entries[-1]["seat"] is None
    assert entries[-1]["corrects"] == first.pk and entries[0]["collected_at"].endswith("Z")


def test_an_empty_kind_is_an_empty_array_either_way(people, monkeypatch):
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    scope = collect.ExportScope(establishments=[people.wa_room], start=datetime.date(2026, 3, 1),
                                end=datetime.date(2026, 3, 31)).freeze()
    kind = next(k for k in collect.KINDS if k.name == "rounds")
    assert written(kind, scope, monkeypatch, True) == written(kind, scope, monkeypatch, False) == (b"[\n]\n", 0)


def test_a_whole_bundle_from_postgresql_verifies(people, month, tmp_path):  # noqa: F811
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"
    from cardroom import bundle, keys

    scope = collect.ExportScope(establishments=[people.marysville], start=datetime.date(2026, 3, 1),
                                end=datetime.date(2026, 3, 31))
    manifest = build.build(scope, tmp_path / "b.zip", requested_by="test")
    assert bundle.verify(tmp_path / "b.zip", keys.public_key()).ok
    assert manifest["rows"]["ledger_entries"] == 2
