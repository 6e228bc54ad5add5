"""Receipts (issue 13): a quote or a reconciliation carries what it was computed from, by which engine, under
which schedule version (with its content hash); replay_receipt recomputes it and says whether it still holds."""

import dataclasses
import datetime
import json
from contextlib import redirect_stdout
from decimal import Decimal
from io import StringIO
from unittest import mock

import pytest
from django.core.management import CommandError, call_command, execute_from_command_line

from fees import engine, ledger
from fees.models import ScheduleDocument
from fees.quotes import quoting
from fees.quotes import receipt_format as fmt
from fees.schedules.services import publish_without_review
from tests.factories import change_a_fee, make_posted_table

pytestmark = pytest.mark.django_db

QUOTE = "/api/v1/fees/quote"
ROUNDS = "/api/v1/ledger/rounds/"
BULK = "/api/v1/ledger/entries/bulk/"
CALIFORNIA = {
    "schedule": "GEGA-002888", "option": 43, "as_of": "2026-11-21", "receipt": True,
    "wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p1", "base": "20"},
               {"player": "p2", "base": "40", "backline": True}],
}
DAY = datetime.date(2026, 3, 3)


def gega_002888_v1():
    return quoting.snapshot(ScheduleDocument.objects.get(code="GEGA-002888").versions.get(number=1))


@pytest.fixture
def quote_receipt(api, people):
    api.force_authenticate(people.floor)
    answer = api.post(QUOTE, CALIFORNIA, format="json")
    assert answer.status_code == 200, answer.json()
    return answer.json()["receipt"]


def write(tmp_path, receipt, name="receipt.json"):
    path = tmp_path / name
    path.write_text(json.dumps(receipt, indent=2, ensure_ascii=False), encoding="utf-8")
    return str(path)


def replay(path, *options):
    """(exit code, stdout) of replay_receipt, run as from the command line."""
    out = StringIO()
    # run_from_argv closes every database connection when it ends, which would close the test's own on PostgreSQL.
    with redirect_stdout(out), pytest.raises(SystemExit) as exited, \
            mock.patch("django.core.management.base.connections.close_all"):
        # --skip-checks: the system checks are about the whole project, not this command.
        execute_from_command_line(["manage.py", "replay_receipt", path, "--skip-checks", *options])
        raise SystemExit(0)  # handle() returned: the receipt holds
    return exited.value.code, out.getvalue()


def report(path):
    code, out = replay(path, "--json")
    return code, json.loads(out)


def failed(result):
    return {check["check"] for check in result["checks"] if not check["ok"]}


# -- quotes --------------------------------------------------------------------------------------------------

def test_a_quote_receipt_of_gega_002888_replays_as_holding(quote_receipt, people, tmp_path):
    receipt = quote_receipt
    assert receipt["receipt"] == "cardroom.quote/1" and receipt["engine"] == engine.ENGINE_VERSION
    assert receipt["schedule"] == {"code": "GEGA-002888", "version": 1, "effective_from": None, "currency": "USD",
                                   "content_sha256": fmt.content_sha256(gega_002888_v1())}
    assert receipt["inputs"] == {"schedule": "GEGA-002888", "option": 43, "as_of": "2026-11-21", "known_at": None,
                                 "facts": {"wagers": CALIFORNIA["wagers"]}}
    outputs = receipt["outputs"]
    assert (outputs["total"], outputs["currency"], outputs["player_dealer_fee"]) == ("7.00", "USD", "3.00")
    assert outputs["player_fees"] == [{"player": "p1", "fee": "3.00"}, {"player": "p2", "fee": "1.00"}]
    dealer = [fee for fee in outputs["fees"] if fee["payer"] == "player_dealer"]
    assert dealer[0]["tier"]["printed_bounds"] == "$101-$300" and "note" not in dealer[0]
    assert receipt["issued_by"] == people.floor.username
    assert receipt["receipt_sha256"] == fmt.sha256({k: v for k, v in receipt.items() if k != "receipt_sha256"})

    code, out = replay(write(tmp_path, receipt))
    assert code == 0 and out.startswith("HOLDS: quote of GEGA-002888 option 43 as of 2026-11-21, total 7.00 USD")
    code, result = report(write(tmp_path, receipt))
    assert code == 0 and result["holds"] is True and not failed(result)
    assert {check["check"] for check in result["checks"]} == {
        "receipt_sha256", "schedule", "schedule content", "version in force", "outputs"}


def test_editing_one_output_amount_is_caught_by_the_hash(quote_receipt, tmp_path):
    quote_receipt["outputs"]["player_fees"][1]["fee"] = "0.00"
    code, out = replay(write(tmp_path, quote_receipt))
    assert code == 1 and out.startswith("DOES NOT HOLD")
    assert "FAIL  receipt_sha256: the receipt was altered" in out
    assert 'outputs.player_fees[1].fee: the receipt says "0.00", the replay gives "1.00"' in out


def test_a_rehashed_receipt_with_a_wrong_schedule_content_hash_is_caught(quote_receipt, tmp_path):
    """An attacker lowers the fees, claims a schedule content that would give them and rehashes the receipt: the
    hash now agrees, but the version in the database does not hash to what the receipt claims."""
    forged = {k: v for k, v in quote_receipt.items() if k != "receipt_sha256"}
    gentler = dataclasses.replace(gega_002888_v1(), title="a gentler schedule")
    forged["schedule"] = {**forged["schedule"], "content_sha256": fmt.content_sha256(gentler)}
    forged["outputs"] = {**forged["outputs"], "player_dealer_fee": "1.00", "total": "5.00"}
    code, result = report(write(tmp_path, fmt.seal(forged)))
    assert code == 1 and result["holds"] is False
    assert failed(result) == {"schedule content", "outputs"}
    content = next(check for check in result["checks"] if check["check"] == "schedule content")
    assert "GEGA-002888 v1 no longer matches the receipt: schedule.content_sha256" in content["detail"]


def test_a_receipt_naming_another_version_than_the_one_in_force_is_caught(quote_receipt, tmp_path):
    forged = {k: v for k, v in quote_receipt.items() if k != "receipt_sha256"}
    forged["inputs"] = {**forged["inputs"], "schedule": "GEGA-000697"}  # the version stamp still says GEGA-002888
    code, result = report(write(tmp_path, fmt.seal(forged)))
    assert code == 1 and "version in force" in failed(result)


def test_a_version_published_since_does_not_unmake_a_quote_receipt(quote_receipt, people, tmp_path):
    """The receipt holds for what the record said when the quote was made; the replay notes what it says now."""
    document = ScheduleDocument.objects.get(code="GEGA-002888")
    draft = document.new_draft(based_on=document.versions.get(number=1), reason="Retroactive rates",
                               effective_from=datetime.date(2026, 11, 1), user=people.compliance)
    change_a_fee(draft)
    publish_without_review(draft, reason="Retroactive rates", actor_label="test", retroactive=True,
                  retroactive_reason="The commission's letter came late")
    code, result = report(write(tmp_path, quote_receipt))
    assert code == 0 and result["notes"] == [
        f"As the record stands now, GEGA-002888 v{draft.number} is in force on 2026-11-21 (published since the "
        "receipt was issued)."]


def test_the_content_hash_covers_the_whole_engine_view_of_the_version():
    schedule = gega_002888_v1()
    assert fmt.content_sha256(schedule) == fmt.content_sha256(gega_002888_v1())
    option = schedule.options[0]
    cheaper = dataclasses.replace(option.tiers[0], fee=option.tiers[0].fee + Decimal("0.01"))
    changed = dataclasses.replace(schedule, options=(dataclasses.replace(option, tiers=(cheaper, *option.tiers[1:])),
                                                     *schedule.options[1:]))
    assert fmt.content_sha256(changed) != fmt.content_sha256(schedule)
    assert fmt.content_sha256(dataclasses.replace(schedule, citation=schedule.citation + ".")) != \
        fmt.content_sha256(schedule)
    assert fmt.canonical_json({"b": Decimal("1.50"), "a": datetime.date(2026, 1, 2), "c": ("é",)}) == \
        '{"a":"2026-01-02","b":"1.50","c":["é"]}'.encode()
    with pytest.raises(TypeError, match="object has no canonical JSON form"):
        fmt.canonical_json({"a": object()})


def test_a_receipt_from_another_engine_version_holds_when_its_outputs_agree(quote_receipt, tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "ENGINE_VERSION", "2")
    code, result = report(write(tmp_path, quote_receipt))
    assert code == 0 and result["replay_engine"] == "2" and result["issued_engine"] == "1"
    assert result["notes"] == ["Issued by engine 1, replayed with engine 2."]


def test_without_receipt_true_a_quote_has_no_receipt_and_a_bad_flag_is_400(api, people):
    api.force_authenticate(people.floor)
    assert "receipt" not in api.post(QUOTE, {**CALIFORNIA, "receipt": False}, format="json").json()
    assert "receipt" not in api.post(QUOTE, {k: v for k, v in CALIFORNIA.items() if k != "receipt"},
                                     format="json").json()
    for bad in ("yes", 1, None, {}):
        answer = api.post(QUOTE, {**CALIFORNIA, "receipt": bad}, format="json")
        assert answer.status_code == 400 and "receipt must be true or false" in answer.json()["error"]["message"]
    raw = json.dumps(CALIFORNIA)[:-1] + ', "note": 1e999}'  # read as infinity, which no JSON can hold
    answer = api.post(QUOTE, raw, content_type="application/json")
    assert answer.status_code == 400 and "cannot be written in a receipt" in answer.json()["error"]["message"]
    raw = json.dumps(CALIFORNIA)[:-1] + ', "note": "\\ud800"}'  # a lone surrogate: no UTF-8 for it
    answer = api.post(QUOTE, raw, content_type="application/json")
    assert answer.status_code == 400 and "body.note" in answer.json()["error"]["message"]


# -- reconciliations -----------------------------------------------------------------------------------------

@pytest.fixture
def table(people):
    return make_posted_table(people.marysville, label="RC-1")


def entries(table, reference, amounts):
    payers = [("player", "p1"), ("player", "p2"), ("player_dealer", "")]
    return [{"idempotency_key": f"{reference}-{i}", "table": table.pk, "reference": reference,
             "collected_at": "2026-03-03T02:00:00-08:00", "payer": payers[i][0], "player": payers[i][1],
             "fee_kind": payers[i][0], "amount": amount} for i, amount in enumerate(amounts)]


@pytest.fixture
def reconciled(api, people, table):
    """H-1 collected in full, H-2 short by $1, X-9 collected with no round; then reconciled."""
    api.force_authenticate(people.floor)
    for reference in ("H-1", "H-2"):
        answer = api.post(ROUNDS, {"table": table.pk, "reference": reference, "played_at": "2026-03-03T02:00:00-08:00",
                                   "facts": {"wagers": CALIFORNIA["wagers"]}}, format="json")
        assert answer.status_code == 201, answer.json()
    rows = entries(table, "H-1", ["3.00", "1.00", "3.00"]) + entries(table, "H-2", ["3.00", "1.00", "2.00"]) + \
        entries(table, "X-9", ["5.00"])
    assert api.post(BULK, {"entries": rows}, format="json").status_code == 201
    (reconciliation,) = ledger.reconcile(DAY, table_ids=[table.pk], user=people.floor)
    return reconciliation


def test_a_reconciliation_receipt_replays(api, people, reconciled, tmp_path):
    api.force_authenticate(people.regulator_ca)
    answer = api.get(f"/api/v1/ledger/reconciliations/{reconciled.pk}/receipt")
    assert answer.status_code == 200, answer.json()
    receipt = answer.json()
    assert api.get(f"/api/v1/ledger/reconciliations/{reconciled.pk}/receipt/").json()["inputs"] == receipt["inputs"]
    assert receipt["receipt"] == "cardroom.reconciliation/1" and receipt["issued_by"] == people.regulator_ca.username
    assert [(s["code"], s["version"]) for s in receipt["schedule"]] == [("GEGA-002888", 1)]
    inputs = receipt["inputs"]
    assert inputs["gaming_day"] == "2026-03-03" and inputs["table"]["label"] == "RC-1"
    assert [(h["reference"], h["expected"], h["collected"], len(h["rounds"]), len(h["entries"]))
            for h in inputs["hands"]] == [("H-1", "7.00", "7.00", 1, 3), ("H-2", "7.00", "6.00", 1, 3),
                                          ("X-9", "0.00", "5.00", 0, 1)]
    assert inputs["hands_count"] == 3 and inputs["hands_sha256"] == fmt.sha256(inputs["hands"])
    assert receipt["outputs"] == {
        "currency": "USD", "status": "variance", "expected_total": "14.00", "collected_total": "18.00",
        "difference": "4.00", "rounds": 2, "entries": 7, "hands": 3, "hands_balanced": 1, "hands_with_variance": 2}

    code, out = replay(write(tmp_path, receipt))
    assert code == 0 and out.startswith("HOLDS: reconciliation of table RC-1 on 2026-03-03, variance"), out
    assert "ok    rounds repriced: the engine gives each of the 2 rounds its recorded expected fee" in out

    # Collected after the run: the receipt still holds (it counted what the ledger held then), and says so.
    api.force_authenticate(people.floor)
    assert api.post("/api/v1/ledger/entries/", {"idempotency_key": "late", "corrects_key": "H-2-2", "amount": "3.00",
                                                "reason": "found in the drop box"}, format="json").status_code == 201
    code, result = report(write(tmp_path, receipt))
    assert code == 0 and result["notes"] == [
        "1 round(s) or entries were recorded for this table and day after the run: a new reconciliation would count "
        "them."]


def test_a_reconciliation_receipt_that_leaves_out_a_hand_is_caught(api, people, reconciled, tmp_path):
    api.force_authenticate(people.floor)
    receipt = api.get(f"/api/v1/ledger/reconciliations/{reconciled.pk}/receipt").json()
    forged = {k: v for k, v in receipt.items() if k != "receipt_sha256"}
    hands = [hand for hand in receipt["inputs"]["hands"] if hand["reference"] != "H-2"]
    forged["inputs"] = {**forged["inputs"], "hands": hands, "hands_count": 2, "hands_sha256": fmt.sha256(hands)}
    forged["outputs"] = fmt.reconciliation_outputs(hands, "USD")  # balanced, as the forger wishes
    code, result = report(write(tmp_path, fmt.seal(forged)))
    assert code == 1 and failed(result) == {"inputs", "outputs"}
    inputs = next(check for check in result["checks"] if check["check"] == "inputs")
    assert "not the 2 of the receipt: not in the receipt: H-2" in inputs["detail"]


def test_a_quiet_day_has_a_receipt_too(api, people, table, tmp_path):
    (reconciliation,) = ledger.reconcile(datetime.date(2026, 3, 10), table_ids=[table.pk])
    api.force_authenticate(people.compliance)
    receipt = api.get(f"/api/v1/ledger/reconciliations/{reconciliation.pk}/receipt").json()
    assert receipt["schedule"] == [] and receipt["inputs"]["hands"] == []
    assert receipt["outputs"]["status"] == "balanced" and receipt["outputs"]["expected_total"] == "0.00"
    assert replay(write(tmp_path, receipt))[0] == 0


def test_a_receipt_of_a_reconciliation_you_may_not_see_is_404(api, people, reconciled):
    for user in (people.compliance_wa, people.regulator_wa):
        api.force_authenticate(user)
        answer = api.get(f"/api/v1/ledger/reconciliations/{reconciled.pk}/receipt")
        assert answer.status_code == 404 and answer.json()["error"]["status"] == 404
    api.force_authenticate(people.floor)
    assert api.get("/api/v1/ledger/reconciliations/99999999/receipt").status_code == 404
    assert api.get("/api/v1/ledger/reconciliations/x1/receipt").status_code == 404


# -- the command's exit codes --------------------------------------------------------------------------------

def test_the_command_exits_0_1_or_2(quote_receipt, tmp_path, capsys):
    assert replay(write(tmp_path, quote_receipt))[0] == 0
    quote_receipt["outputs"]["total"] = "70.00"
    assert replay(write(tmp_path, quote_receipt))[0] == 1
    for name, text in (("empty.json", ""), ("list.json", "[]"), ("nan.json", '{"a": NaN}'),
                       ("kind.json", json.dumps({**quote_receipt, "receipt": "cardroom.quote/9"})),
                       ("missing.json", json.dumps({k: v for k, v in quote_receipt.items() if k != "inputs"})),
                       ("option.json", json.dumps({**quote_receipt, "inputs": {**quote_receipt["inputs"],
                                                                               "option": True}})),
                       ("surrogate.json", json.dumps({**quote_receipt, "issued_by": "\ud800"})),
                       ("deep.json", "[" * 100_000 + "]" * 100_000),
                       ("naive.json", json.dumps({**quote_receipt, "issued_at": "2026-11-21T20:00:00"})),
                       ("version.json", json.dumps({**quote_receipt, "schedule": {**quote_receipt["schedule"],
                                                                                  "version": 2**70}}))):
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert replay(str(tmp_path / name))[0] == 2, name
    (tmp_path / "latin1.json").write_bytes('{"é": 1}'.encode("latin-1"))
    assert replay(str(tmp_path / "latin1.json"))[0] == 2
    assert replay(str(tmp_path / "nowhere.json"))[0] == 2
    assert "nowhere.json: no such file" in capsys.readouterr().err
    with pytest.raises(CommandError) as error:
        call_command("replay_receipt", str(tmp_path / "kind.json"))
    assert error.value.returncode == 2 and "receipt must be one of cardroom.quote/1" in str(error.value)


def test_a_receipt_naming_a_version_that_is_not_published_does_not_hold(quote_receipt, tmp_path):
    forged = {k: v for k, v in quote_receipt.items() if k != "receipt_sha256"}
    forged["schedule"] = {**forged["schedule"], "version": 99}
    code, result = report(write(tmp_path, fmt.seal(forged)))
    assert code == 1 and failed(result) == {"schedule"}
