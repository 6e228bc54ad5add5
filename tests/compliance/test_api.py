"""Compliance API, lint over the seeded documents, stored runs, acknowledgement and access per role."""

import datetime
from decimal import Decimal as D

import pytest
from django.core.management import call_command
from django.utils import timezone

from cardroom.models import Game, Table
from compliance.checking import lint_all
from compliance.models import Finding, RuleParameter, ValidationRun
from fees.models import PostingBonusLimit, ScheduleDocument, TablePosting

pytestmark = pytest.mark.django_db
URL = "/api/v1/compliance/check"
EXAMPLE = {"jurisdiction": "CA", "game": "GEGR-002247", "schedule": "GEGA-002888", "option": 7, "min_wager": "5",
           "max_wager": "500", "seats": 6, "bonus_limits": {"pair_plus": "100"}, "as_of": "2026-11-21"}


def counts():
    return (ValidationRun.objects.count(), Finding.objects.count(), RuleParameter.objects.count(),
            TablePosting.objects.count())


def rules(body):
    return {(f["rule"], f["severity"]) for f in body["findings"]}


def test_check_example_saves_nothing(api, people):
    api.force_login(people.compliance)
    before = counts()
    response = api.post(URL, EXAMPLE, format="json")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert counts() == before
    assert body["rule_pack"] == "CA" and isinstance(body["ok"], bool)
    assert ("ca.flat_fees", "info") in rules(body)


def test_check_closed_top_is_an_error_naming_the_amount(api, people):
    api.force_login(people.compliance)
    body = api.post(URL, {**EXAMPLE, "option": 43, "establishment": "casino-marysville"}, format="json").json()
    assert body["ok"] is False
    (coverage,) = [f for f in body["findings"] if f["rule"] == "coverage.tiers"]
    assert "$3,600" in coverage["message"] and "GEGA-002888" in coverage["citation"]


def test_check_by_establishment_and_slug(api, people):
    api.force_login(people.floor)
    body = api.post(URL, {"establishment": people.marysville.pk, "game": "three-card-poker-6-card-bonus",
                          "schedule": "GEGA-002888", "option": 46, "min_wager": "5", "max_wager": "200",
                          "seats": 6}, format="json").json()
    assert body["ok"] is True, body
    assert ("approval.game_approved", "info") in rules(body)  # no date stated


def test_no_bust_table_action_option_has_too_many_rates(api, people):
    api.force_login(people.compliance)
    body = api.post(URL, {"establishment": "casino-marysville", "game": "GEGA-000698",
                          "schedule": "CMV-CA-TABLE-ACTION", "option": 8, "min_wager": "5", "max_wager": "100",
                          "seats": 7}, format="json").json()
    (f,) = [f for f in body["findings"] if f["rule"] == "ca.collection_rates"]
    assert f["severity"] == "error" and "at most 3" in f["message"]


@pytest.mark.parametrize("day,severity,value,status", [
    ("2015-06-01", "error", "300.00", "secondary"), ("2025-06-01", "info", "400.00", "check"),
])
def test_washington_limit_at_two_dates(api, people, day, severity, value, status):
    api.force_login(people.compliance_wa)
    body = api.post(URL, {"establishment": "test-wa-room", "game": "one-for-the-money", "max_wager": "400",
                          "seats": 6, "as_of": day}, format="json").json()
    (f,) = [f for f in body["findings"] if f["rule"] == "wa.max_single_wager"]
    assert f["severity"] == severity and f["citation"].startswith("WAC 230-15-140")
    assert f["parameters"][0]["value"] == value and f["parameters"][0]["status"] == status


@pytest.mark.parametrize("change,message", [
    ({"jurisdiction": "XX"}, "Unknown jurisdiction"),
    ({"game": "no-such-game"}, "Unknown game"),
    ({"schedule": "NOPE"}, "Unknown schedule"),
    ({"max_wager": 5.5}, "not the float"),
    ({"seats": 0}, "seats must be at least 1"),
    ({"as_of": "21/11/2026"}, "as_of must be a date"),
    ({"colour": "red"}, "Unknown field(s): colour"),
    ({"jurisdiction": None}, "jurisdiction (CA, WA, GB) or establishment"),
])
def test_bad_input_is_400(api, people, change, message):
    api.force_login(people.compliance)
    response = api.post(URL, {**EXAMPLE, **change}, format="json")
    assert response.status_code == 400
    assert message in response.json()["error"]["message"]


def test_check_access(api, people):
    assert api.post(URL, EXAMPLE, format="json").status_code == 401
    api.force_login(people.outsider)
    assert api.post(URL, EXAMPLE, format="json").status_code == 400  # sees no jurisdiction
    api.force_login(people.regulator_wa)
    assert "Unknown jurisdiction" in api.post(URL, EXAMPLE, format="json").json()["error"]["message"]
    api.force_login(people.regulator_ca)
    assert api.post(URL, EXAMPLE, format="json").status_code == 200


def test_lint_over_seeded_documents():
    found = lint_all()
    closed = {(f.subject["schedule"], f.subject["option"]) for f in found if f.rule == "lint.closed_top"
              and f.subject["schedule"] in ("GEGA-002888", "CMV-CA-PLAYER-WAGER")}
    assert closed == {("GEGA-002888", n) for n in (43, 44, 45, 48, 49)} | {
        ("CMV-CA-PLAYER-WAGER", n) for n in (6, 7, 8, 11, 12)}
    ambiguous = {(f.subject["schedule"], f.subject["option"]) for f in found if f.rule == "lint.ambiguous"}
    assert ("CMV-CA-PLAYER-WAGER", 3) in ambiguous and ("CMV-CA-FEES-PAI-GOW", 1) in ambiguous
    pai_gow = [f for f in found if f.rule == "lint.closed_top" and f.subject["schedule"] == "CMV-CA-FEES-PAI-GOW"]
    assert any("stops at $500" in f.message for f in pai_gow)
    pairs = {(f.subject["schedule"], f.subject["option"], f.subject["other"]["schedule"], f.subject["other"]["option"])
             for f in found if f.rule == "lint.consistency"}
    assert ("CMV-CA-TABLE-ACTION", 27, "GEGA-002888", 26) in pairs
    assert ("CMV-CA-TABLE-ACTION", 34, "GEGA-002888", 31) in pairs
    assert not [f for f in found if f.rule in ("lint.contiguous", "lint.negative", "lint.cents")]


def test_seeded_parameters_are_dated_and_cited():
    values = list(RuleParameter.objects.filter(jurisdiction__code="WA", key="house_banked_max_wager")
                  .values_list("value", "effective_from", "status"))
    assert values == [(D("100"), datetime.date(2004, 7, 1), "confirmed"), (D("300"), datetime.date(2009, 1, 1), "secondary"),
                      (D("400"), datetime.date(2023, 7, 20), "check")]
    call_command("load_seed_data", verbosity=0)
    assert RuleParameter.objects.count() == len(RuleParameter.objects.values("pk"))
    assert RuleParameter.history.count() == RuleParameter.objects.count()  # a second load changed nothing


def post_tables(people):
    game = Game.objects.get(slug="face-up-pai-gow-poker")
    gega = ScheduleDocument.objects.get(code="GEGA-002888")
    ok = Table.objects.create(establishment=people.marysville, label="T1", seats=6, game=game)
    bad = Table.objects.create(establishment=people.marysville, label="T2", seats=6, game=game)
    unapproved = Table.objects.create(establishment=people.marysville, label="T3", seats=6,
                                      game=Game.objects.get(slug="one-for-the-money"))
    start = timezone.now() - datetime.timedelta(days=1)
    TablePosting.objects.create(table=ok, game=game, schedule=gega, option_number=46, min_wager=D("5"),
                                max_wager=D("200"), seats=6, effective_from=start)
    posting = TablePosting.objects.create(table=bad, game=game, schedule=gega, option_number=43, min_wager=D("5"),
                                          max_wager=D("500"), seats=6, effective_from=start)
    PostingBonusLimit.objects.create(posting=posting, bet="Fortune Bonus", maximum=D("25"))
    return ok, bad, unapproved


def test_establishment_run_stores_findings_and_acknowledgement(api, people):
    ok, bad, unapproved = post_tables(people)
    api.force_login(people.compliance)
    response = api.post("/api/v1/compliance/runs/run/", {"establishment": "casino-marysville"}, format="json")
    assert response.status_code == 201, response.json()
    run = ValidationRun.objects.get(pk=response.json()["id"])
    assert run.postings_checked == 2 and run.errors >= 2
    assert run.findings.filter(table=bad, rule="coverage.tiers", severity="error").exists()
    assert not run.findings.filter(table=ok, severity="error").exists()
    assert run.findings.filter(table=unapproved, rule="approval.table_game").exists()
    finding = run.findings.filter(table=bad, severity="error").first()
    listed = api.get(f"/api/v1/compliance/findings/?run={run.pk}&table={bad.pk}").json()
    assert finding.pk in [f["id"] for f in listed["results"]]
    # regulators read only
    api.force_login(people.regulator_ca)
    assert api.get(f"/api/v1/compliance/runs/{run.pk}/").status_code == 200
    assert api.post(f"/api/v1/compliance/findings/{finding.pk}/acknowledge/", {"reason": "seen"},
                    format="json").status_code == 403
    assert api.post("/api/v1/compliance/runs/run/", {"establishment": "casino-marysville"},
                    format="json").status_code == 403
    # another jurisdiction sees nothing
    api.force_login(people.regulator_wa)
    assert api.get(f"/api/v1/compliance/runs/{run.pk}/").status_code == 404
    assert api.get(f"/api/v1/compliance/findings/{finding.pk}/").status_code == 404
    api.force_login(people.floor)
    assert api.post(f"/api/v1/compliance/findings/{finding.pk}/acknowledge/", {"reason": "seen"},
                    format="json").status_code == 403
    api.force_login(people.compliance)
    response = api.post(f"/api/v1/compliance/findings/{finding.pk}/acknowledge/",
                        {"reason": "Table moved to option 46 tonight"}, format="json")
    assert response.status_code == 200 and response.json()["acknowledged"] is True
    finding.refresh_from_db()
    assert finding.acknowledged_by == people.compliance
    assert finding.history.first().history_change_reason.startswith("Acknowledged")
    assert api.post(f"/api/v1/compliance/findings/{finding.pk}/acknowledge/", {"reason": "again"},
                    format="json").status_code == 409


def test_schedule_run_and_command_and_task(api, people, capsys):
    api.force_login(people.compliance)
    response = api.post("/api/v1/compliance/runs/run/", {"schedule": "GEGA-002888"}, format="json")
    assert response.status_code == 201, response.json()
    run = ValidationRun.objects.get(pk=response.json()["id"])
    assert run.findings.filter(rule="lint.closed_top", option_number=43).exists()
    assert run.findings.filter(rule="lint.consistency", option_number=26).exists()
    api.force_login(people.regulator_ca)
    assert api.post("/api/v1/compliance/runs/run/", {"everything": True}, format="json").status_code == 403
    assert api.get("/api/v1/compliance/lint?schedule=CMV-CA-PLAYER-WAGER").status_code == 200
    assert api.get("/api/v1/compliance/parameters/?key=house_banked_max_wager").json()["count"] == 0
    api.force_login(people.regulator_wa)
    assert api.get("/api/v1/compliance/parameters/?key=house_banked_max_wager").json()["count"] == 3
    call_command("check_compliance", "--establishment", "casino-marysville", "--json")
    assert '"kind": "establishment"' in capsys.readouterr().out
    from compliance.tasks import validate_everything
    from fees.ledger import previous_gaming_day

    result = validate_everything()  # the task body; run in-process so no worker is needed
    nightly = ValidationRun.objects.get(pk=result["run"])
    assert nightly.trigger == "nightly" and nightly.options_linted > 100
    assert nightly.as_of == previous_gaming_day()  # the gaming day that just ended
