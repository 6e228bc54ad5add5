"""Pages say a rule's title and a parameter's name, never their codes (issue 25: words, not codes)."""

import pytest

from cardroom.citations import readable_citation
from compliance.rules.words import parameter_name, rule_title, with_article


def test_a_rule_and_a_parameter_read_as_words():
    """The words are the rule's own (tests/compliance/rules/test_base.py); a code or key no rule has, as words."""
    assert rule_title("ca.collection_rates") == "Number of collection rates (California)"
    assert rule_title("wa.no_such_rule") == "No such rule"
    assert parameter_name("max_collection_rates") == "the most collection rates allowed"
    assert parameter_name("rack_removal_hours") == "the rack removal hours"


@pytest.mark.parametrize("noun, expected", [("Omaha Hi-Low Split with a Joker", "an Omaha Hi-Low Split with a Joker"),
                                            ("Blackjack", "a Blackjack"), ("Ultimate Texas", "an Ultimate Texas")])
def test_the_article_follows_the_noun(noun, expected):
    assert with_article(noun) == expected


def test_a_citation_for_people_leaves_out_the_seed_line_numbers():
    assert readable_citation("'California Games Collection Rates' headings (seed lines 2034 and 2116)") == \
        "'California Games Collection Rates' headings"
    assert readable_citation("Perfect Match version (seed lines 56-103): rules 1-11") == "Perfect Match version: rules 1-11"
    assert readable_citation("WAC 230-15-140 (WSR 04-06-005)") == "WAC 230-15-140 (WSR 04-06-005)"


def test_a_finding_page_names_the_rule_and_its_values_in_words(client, people):
    import datetime

    from django.utils import timezone

    from compliance.models import Finding
    from tests.factories import PAI_GOW, make_table, post_fields

    table = make_table(people.marysville, label="T-2", seats=6, game=PAI_GOW)
    post_fields(table, game=PAI_GOW, schedule="GEGA-002888", low=5, high=500, seats=6,
                effective_from=timezone.make_aware(datetime.datetime(2026, 3, 1, 8)))
    finding = Finding.objects.get(rule="ca.collection_rates", table=table)
    assert finding.parameters[0]["key"] == "max_collection_rates"
    assert "(Note: the most collection rates allowed, 5, is from a secondary source.)" in finding.message
    client.force_login(people.compliance)
    page = client.get(f"/compliance/casino-marysville/findings/{finding.pk}/").content.decode()
    assert "Number of collection rates (California)" in page
    assert "The most collection rates allowed: 5 (in force from 1998-01-01, from a secondary source)" in page
    assert "ca.collection_rates" not in page and "max_collection_rates" not in page and "seed line" not in page
