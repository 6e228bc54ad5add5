"""Two add-checkpoint requests at once (PostgreSQL, one connection each): the check and the update are one
transaction under the log's row lock, so tlog-witness's race ("rolling back K leaves") cannot happen. One request
wins; the other is judged against the winner's size, and the stored size never goes down."""

import threading

import pytest
from django.db import DatabaseError, connection, transaction

from cardroom.models import WitnessedLog
from cardroom.tlog import cosignature
from cardroom.witness import services

from .conftest import ORIGIN, Log

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _require_postgresql():
    assert connection.vendor == "postgresql", "this test needs PostgreSQL (bin/test's second pass)"


def _at_once(bodies):
    """Submit ``bodies`` from one thread (and connection) each, released together; their answers, in order."""
    start, answers, failures = threading.Barrier(len(bodies)), [None] * len(bodies), []

    def submit(n):
        try:
            start.wait(timeout=30)
            answers[n] = services.add_checkpoint(body=bodies[n])
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(n,)) for n in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures
    return answers


@pytest.fixture
def slow_judge(monkeypatch):
    """The judgement made slow, so that both requests are inside add_checkpoint at once: without the lock both
    would read the same size and both be cosigned."""
    judge = cosignature.judge

    def slow(*args, **kwargs):
        threading.Event().wait(0.2)
        return judge(*args, **kwargs)

    monkeypatch.setattr(cosignature, "judge", slow)


@pytest.mark.parametrize("rounds", [3])
def test_two_submissions_of_different_sizes_resolve_to_one_in_order(witness, log, slow_judge, rounds):
    _require_postgresql()
    held = 0
    for round_ in range(rounds):
        smaller, larger = held + 2, held + 5
        answers = _at_once([log.request(held, smaller), log.request(held, larger)])
        statuses = sorted(answer.status for answer in answers)
        assert statuses == [200, 409], (round_, answers)
        winner = (smaller, larger)[[a.status for a in answers].index(200)]
        loser_answer = next(a for a in answers if a.status == 409)
        # The loser is told the winner's size, and the stored tree is the winner's.
        assert loser_answer.body == f"{winner}\n" and loser_answer.content_type == "text/x.tlog.size"
        row = WitnessedLog.objects.get(origin=ORIGIN)
        assert (row.size, row.root_hash) == (winner, log.root(winner).hex())
        if winner == smaller:  # the larger one follows from the smaller
            assert services.add_checkpoint(body=log.request(smaller, larger)).status == 200
        else:  # the smaller one after the larger: its old size is the one it knew, not the one held
            late = services.add_checkpoint(body=log.request(held, smaller))
            assert (late.status, late.body) == (409, f"{larger}\n")
            assert services.add_checkpoint(body=log.request(larger, smaller, proof=[])).status == 400
        held = larger
        assert WitnessedLog.objects.get(origin=ORIGIN).size == larger


def test_two_first_submissions_make_one_row(witness, slow_judge):
    _require_postgresql()
    fresh = Log(origin="cardroom/audit/establishment:9")
    answers = _at_once([fresh.request(0, 3), fresh.request(0, 6)])
    assert sorted(a.status for a in answers) == [200, 409]
    assert WitnessedLog.objects.filter(origin=fresh.origin).count() == 1


def test_the_database_refuses_a_smaller_tree_after_a_larger_one(witness, log):
    _require_postgresql()
    assert services.add_checkpoint(body=log.request(0, 8)).status == 200
    row = WitnessedLog.objects.get(origin=ORIGIN)
    row.size = 5
    with pytest.raises(DatabaseError, match="only grows"), transaction.atomic():
        row.save()
    assert WitnessedLog.objects.get(origin=ORIGIN).size == 8
