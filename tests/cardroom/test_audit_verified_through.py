"""The audit log page verifies only the entries written since the last verified one (issue 25: the page re-hashed
the whole chain on every look); the hourly whole walk still finds an older entry changed, and the page then says so."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from cardroom import chain, tasks
from cardroom.audit import chain_name, log_action, verify_new_entries
from cardroom.models import AuditChainVerified
from tests.cardroom.test_audit_chain import new_room, tamper

pytestmark = pytest.mark.django_db


def steps(room, count):
    return [log_action("test.step", actor_label="test", establishment=room, data={"n": n}) for n in range(count)]


@pytest.fixture
def hashed(monkeypatch):
    """How many entries were hashed (``cardroom.chain.entry_hash`` calls) since the last reset."""
    calls = []
    original = chain.entry_hash
    monkeypatch.setattr(chain, "entry_hash", lambda entry: calls.append(entry["sequence"]) or original(entry))
    return calls


def test_a_look_hashes_only_the_entries_written_since_the_last_one(people, hashed):
    room = new_room(people)
    steps(room, 5)
    hashed.clear()
    first = verify_new_entries(room)
    assert (first.ok, first.entries, first.sequence, first.walked_after) == (True, 5, 5, 0)
    assert hashed == [1, 2, 3, 4, 5]
    point = AuditChainVerified.objects.get(chain=chain_name(room))
    assert (point.sequence, point.walked_at) == (5, None)

    steps(room, 3)
    hashed.clear()
    second = verify_new_entries(room)
    assert (second.ok, second.entries, second.sequence, second.walked_after) == (True, 3, 8, 5)
    assert second.verified_at == point.verified_at
    assert hashed == [6, 7, 8]  # the five verified before are not read again

    hashed.clear()
    assert verify_new_entries(room).entries == 0 and hashed == []


def test_a_new_entry_changed_is_found_by_the_next_look(people):
    room = new_room(people)
    steps(room, 4)
    verify_new_entries(room)
    newer = steps(room, 2)
    tamper("UPDATE {table} SET action = %s WHERE id = %s", ["test.forged", newer[0].pk])
    report = verify_new_entries(room)
    assert not report.ok and report.broken.kind == chain.CONTENT and report.broken.position == 5
    assert AuditChainVerified.objects.get(chain=chain_name(room)).sequence == 4  # not moved past the break


def test_the_hourly_whole_walk_finds_an_old_entry_changed_and_the_page_then_names_it(client, people):
    room = new_room(people)
    old = steps(room, 6)
    assert verify_new_entries(room).sequence == 6
    tamper("UPDATE {table} SET action = %s WHERE id = %s", ["test.forged", old[1].pk])
    # A look re-hashes only what is new: the change before the verified point is not seen there...
    assert verify_new_entries(room).ok
    # ...the beat's whole walk finds it, fails, and moves the verified point back to the last good entry.
    with pytest.raises(RuntimeError, match=rf"entry {old[1].pk} at position 2: content altered"):
        tasks.verify_audit_chains()
    point = AuditChainVerified.objects.get(chain=chain_name(room))
    assert (point.sequence, point.entry_hash, point.walked_at is not None) == (1, old[0].entry_hash, True)
    report = verify_new_entries(room)
    assert not report.ok and (report.broken.position, report.broken.entry_id) == (2, old[1].pk)
    with pytest.raises(CommandError, match="position 2: content altered"):
        call_command("verify_audit_log", "--establishment", room.slug)

    # The page says so, and how far the chain was verified before.
    client.force_login(people.regulator_wa)
    html = client.get(reverse("console:regulator-audit-log", args=[room.slug])).content.decode()
    assert "Broken" in html and "at position 2 (entry" in html
    assert "The whole chain is walked every hour (last at" in html


def test_the_page_says_how_far_the_chain_was_verified(client, people):
    room = new_room(people)
    steps(room, 3)
    tasks.verify_audit_chains()
    steps(room, 2)
    client.force_login(people.regulator_wa)
    url = reverse("console:regulator-audit-log", args=[room.slug])
    html = client.get(url).content.decode()
    assert "Intact" in html and "Every one of the 5 entries" in html
    assert "Verified through entry 3 at " in html and "the 2 entries written since checked just now" in html
    assert "The whole chain is walked every hour (last at" in html
    assert "Verified through entry 5 at " in client.get(url).content.decode()


def test_a_look_walks_the_whole_chain_again_when_the_entry_verified_through_was_rewritten(people, hashed):
    from tests.cardroom.test_audit_chain import fields_of, raw_sql
    from cardroom.models import AuditChainHead, AuditLogEntry

    room = new_room(people)
    last = steps(room, 4)[-1]
    verify_new_entries(room)
    rehashed = chain.entry_hash(fields_of(last, action="test.rewritten"))
    with raw_sql() as cursor:  # the last entry rewritten, its hash and the head recomputed: the chain walks clean
        cursor.execute(f"UPDATE {AuditLogEntry._meta.db_table} SET action = %s, entry_hash = %s WHERE id = %s",
                       ["test.rewritten", rehashed, last.pk])
        cursor.execute(f"UPDATE {AuditChainHead._meta.db_table} SET entry_hash = %s WHERE chain = %s",
                       [rehashed, chain_name(room)])
    hashed.clear()
    report = verify_new_entries(room)
    assert (report.ok, report.entries, report.walked_after) == (True, 4, 0)  # as the whole walk says
    assert hashed[:4] == [1, 2, 3, 4]
    assert AuditChainVerified.objects.get(chain=chain_name(room)).entry_hash == rehashed
