"""Quotes answered from each process's memory (cardroom.generation), never from what a committed change replaced.

A quote reads the generation number once; the schedule's published versions, the token and the requester's roles
are remembered under it. Every change that can alter an answer or who may ask draws a new number in its own
transaction, so the next quote, in any process, reads afresh.
"""

import datetime
import secrets
import threading
from decimal import Decimal

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from cardroom import generation
from cardroom.models import Membership, Role
from cardroom.roles import appoint
from fees.models import FeeTier, ScheduleDocument
from tests.publishing import publish

URL = "/api/v1/fees/quote"
GEGA = "GEGA-002888"
ROUND = {"schedule": GEGA, "option": 1, "wagers": [{"player": "p1", "base": "5"}]}


@pytest.fixture
def number_row(db):
    """The generation row as migrated (a transactional test's flush removes it; the next change puts it back)."""
    generation.bump()


def token_client(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def quote(client, **fields):
    return client.post(URL, {**ROUND, **fields}, format="json")


def new_version(people, *, effective, fee="9.00", retroactive=False):
    """v2 of GEGA-002888 from v1 with option 1's every tier at ``fee``, published by two people."""
    gega = ScheduleDocument.objects.get(code=GEGA)
    draft = gega.new_draft(based_on=gega.versions.get(number=1), user=people.compliance, reason="Bureau letter",
                           effective_from=effective)
    for tier in FeeTier.objects.filter(option__version=draft, option__number=1):
        tier.fee, tier.printed_fee = Decimal(fee), f"${fee}"
        tier._change_reason, tier._history_user = "Bureau letter", people.compliance
        tier.save()
    extra = {"retroactive": True, "retroactive_reason": "The letter applies from its own date"} if retroactive else {}
    return publish(draft, requested_by=people.compliance, approved_by=people.admin, reason="Bureau letter", **extra)


def test_a_quote_of_a_schedule_seen_before_reads_only_the_generation_number(people, number_row):
    client = token_client(people.floor)
    assert quote(client).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        again = quote(client)
    assert again.status_code == 200 and again.json()["version"] == 1
    assert [query["sql"] for query in queries] == [generation.READ_SQL]


def test_a_revoked_token_is_refused_at_once(people, number_row):
    client = token_client(people.floor)
    assert quote(client).status_code == quote(client).status_code == 200
    assert generation.current().size("token") == 1
    Token.objects.get(user=people.floor).delete()
    assert quote(client).status_code == 401


def test_a_deactivated_user_is_refused_at_once(people, number_row):
    client = token_client(people.floor)
    assert quote(client).status_code == 200
    people.floor.is_active = False
    people.floor.save()
    assert quote(client).status_code == 401


def test_a_role_revoked_or_granted_counts_at_once(people, number_row):
    client = token_client(people.floor)
    assert quote(client).status_code == quote(client).status_code == 200
    Membership.objects.filter(user=people.floor).delete()
    refused = quote(client)  # GEGA-002888 is California's: with no role there, unknown
    assert refused.status_code == 400 and "Unknown schedule" in refused.json()["error"]["message"]
    appoint(people.floor, Role.FLOOR_SUPERVISOR, establishment=people.marysville)
    assert quote(client).status_code == 200


def test_made_up_tokens_and_schedules_leave_nothing_behind(people, number_row):
    client = token_client(people.floor)
    assert quote(client).status_code == 200
    memory = generation.current()
    for _ in range(50):
        guess = APIClient()
        guess.credentials(HTTP_AUTHORIZATION=f"Token {secrets.token_hex(20)}")
        assert quote(guess).status_code == 401
        assert quote(client, schedule=f"NO-{secrets.token_hex(4)}").status_code == 400
    assert generation.current() is memory  # nothing changed: the same memory, no larger
    assert (memory.size("token"), memory.size("published"), memory.size("scope")) == (1, 1, 1)


def test_a_number_drawn_by_a_rolled_back_change_is_never_used_again(people, number_row):
    """Inside a transaction that publishes, a quote reads the new version under the transaction's new number; the
    transaction rolls back; another change commits. A counter would give that change the rolled-back number back,
    and the quote after it the rolled-back version."""
    client = token_client(people.floor)
    assert quote(client).json()["version"] == 1
    with pytest.raises(RuntimeError), transaction.atomic():
        new_version(people, effective=timezone.localdate())
        assert quote(client).json()["version"] == 2
        raise RuntimeError("rolled back")
    generation.bump()  # any other change, committed
    assert quote(client).json()["version"] == 1


@pytest.mark.django_db(transaction=True)
def test_a_publication_committed_on_another_connection_is_read_by_the_next_quote(reseed, people):
    """A retroactive v2 published by another connection (its own transaction, as another process would) changes
    the answer for a day already quoted; the record as it stood before it still answers v1."""
    effective = timezone.localdate() - datetime.timedelta(days=10)
    client = token_client(people.floor)
    first = quote(client, as_of=effective.isoformat())
    assert first.status_code == 200 and first.json()["version"] == 1
    before = timezone.now()
    failures = []

    def publish_elsewhere():
        try:
            new_version(people, effective=effective, retroactive=True)
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(error)
        finally:
            connection.close()

    elsewhere = threading.Thread(target=publish_elsewhere)
    elsewhere.start()
    elsewhere.join(timeout=60)
    assert not failures
    now = quote(client, as_of=effective.isoformat())
    assert now.status_code == 200 and now.json()["version"] == 2 and now.json()["total"] != first.json()["total"]
    then = quote(client, as_of=effective.isoformat(), known_at=before.isoformat())
    assert then.json()["version"] == 1 and then.json()["total"] == first.json()["total"]


def test_each_table_is_bounded_and_a_memory_with_no_number_keeps_nothing(monkeypatch):
    monkeypatch.setattr(generation, "LIMIT", 3)
    memory = generation.Memory(12345)
    for key in range(10):
        memory.keep("token", key, object())
        assert memory.size("token") <= 3
    assert memory.get("token", 9) is not None
    nothing = generation.Memory(None)
    assert nothing.keep("token", "k", "v") == "v" and nothing.get("token", "k") is None
