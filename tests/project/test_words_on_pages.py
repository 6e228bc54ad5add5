"""Pages meant for people say words, not codes (issue 25): no rule code, no rule parameter's key, no seed line
locator and no 'a' before a vowel in the visible text of the pages each role works on, with findings standing."""

import datetime
import re

import pytest
from django.utils import timezone

from cardroom.models import Establishment
from compliance import checking
from compliance.models import Finding
from compliance.models import RuleParameter
from compliance.rules import RULES
from tests.factories import PAI_GOW, make_table, post_fields


def codes():
    """Every rule's code and every recorded parameter's key, a seed line locator or 'a' before a vowel."""
    keys = set(RuleParameter.objects.values_list("key", flat=True))
    return re.compile("|".join(re.escape(code) for code in [*RULES, *sorted(keys)])
                      + r"|seed lines? \d|\ba [AEIOU][a-z]+ (?:table|game)")


def visible(html):
    """The text a person sees: no tags, scripts, styles or the raw record a <details> of the audit log keeps."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def standing(people):
    """Casino Marysville with a table posted on GEGA-002888 (collection-rate note, table-limit findings) and
    Washington's test room validated: findings that cite parameters on both sides."""
    table = make_table(people.marysville, label="T-9", seats=6, game=PAI_GOW)
    post_fields(table, game=PAI_GOW, schedule="GEGA-002888", low=5, high=500, seats=6,
                effective_from=timezone.make_aware(datetime.datetime(2026, 3, 1, 8)))
    checking.run_establishment(Establishment.objects.get(slug="casino-marysville"))
    return table


def pages(people, table):
    room = "casino-marysville"
    finding = Finding.objects.filter(establishment__slug=room).order_by("pk").first()
    return [
        (people.compliance, f"/compliance/{room}/"),
        (people.compliance, f"/compliance/{room}/findings/?show=all"),
        (people.compliance, f"/compliance/{room}/findings/{finding.pk}/"),
        (people.compliance, f"/compliance/{room}/approvals/"),
        (people.compliance, f"/compliance/{room}/postings/"),
        (people.compliance, f"/compliance/{room}/game-math/"),
        (people.compliance, f"/compliance/{room}/schedules/GEGA-002888/"),
        (people.compliance, f"/compliance/{room}/schedules/GEGA-002888/versions/1/history/"),
        (people.floor, f"/floor/{room}/"),
        (people.floor, f"/floor/{room}/tables/{table.pk}/"),
        (people.regulator_ca, "/regulator/"),
        (people.regulator_ca, f"/regulator/{room}/"),
        (people.regulator_wa, "/regulator/test-wa-room/game-math/"),
        (people.compliance_wa, "/compliance/test-wa-room/approvals/"),
    ]


def test_the_pages_say_words_not_codes(client, people, standing):
    assert Finding.objects.filter(rule="ca.collection_rates", table=standing).exists()
    seen, found_in = {}, codes()
    for user, url in pages(people, standing):
        client.force_login(user)
        answer = client.get(url)
        assert answer.status_code == 200, url
        found = sorted(set(found_in.findall(visible(answer.content.decode()))))
        if found:
            seen[url] = found
    assert seen == {}


# Identifiers that leaked onto pages (issue 42): a chain's internal name, a repository path, a payer's or field's code,
# a room's slug where its name belongs, a time in UTC on pages that say the room's time.
LEAKED = re.compile(r"(?<![\w/])establishment:\d|\bdocs/[\w-]+\.md|player_dealer|\bgaming_day\b|\bOf casino-|\bUTC\b"
                    r"|\b(?:Error|Warning|Info) [a-z]+\.[a-z_.]+")


def test_no_identifier_leaks_onto_the_pages_of_each_role(client, people, standing):
    room = "casino-marysville"
    pages_seen = [
        *pages(people, standing),
        (people.compliance, f"/compliance/{room}/imports/new/"),
        (people.regulator_ca, f"/regulator/{room}/audit-log/"),
        (people.regulator_ca, f"/regulator/{room}/game-math/"),
        (people.regulator_wa, "/regulator/test-wa-room/"),
        (people.compliance, f"/compliance/{room}/schedules/GEGA-002888/?as_of=2026-03-01&known_at=2026-01-01"),
    ]
    seen = {}
    for user, url in pages_seen:
        client.force_login(user)
        answer = client.get(url)
        assert answer.status_code == 200, url
        found = sorted(set(LEAKED.findall(visible(answer.content.decode()))))
        if found:
            seen[url] = found
    assert seen == {}


def test_the_verifiers_lines_name_the_rooms_log_and_say_the_rooms_time(people):
    from console.templatetags.console import log_words

    room = people.marysville
    said = log_words(f"establishment:{room.pk}: cosigned at 2026-10-20 19:00:00 UTC by witness-1 "
                     f"(origin cardroom/audit/establishment:{room.pk}); installation: held.", room)
    assert said == (f"the audit log of {room.name}: cosigned at 2026-10-20 12:00 PDT by witness-1 "
                    f"(origin cardroom/audit/establishment:{room.pk}); the installation's audit log: held.")
