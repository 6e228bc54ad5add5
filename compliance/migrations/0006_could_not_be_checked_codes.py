"""Findings that said "This rule could not be checked" were stored under a code rebuilt from the rule's function
name (``wa.max.single.wager`` for ``wa.max_single_wager``): a code no rule has, so no title, and an identity of its
own, so an acknowledgement of the real rule's finding did not hold for it. Each now has its rule's own code and the
identity that follows from it (``compliance.identity``); nothing else in the finding changes."""

import hashlib
import json

from django.db import migrations

# The codes the old rebuilding produced, and the rules they stood for (compliance.rules.postings, issue 34).
MISBUILT = {
    "approved.rules.and.paytables": "approval.rules_and_paytables",
    "ca.collection.rates": "ca.collection_rates",
    "ca.flat.fees": "ca.flat_fees",
    "ca.wager.limits": "ca.wager_limits",
    "coverage": "coverage.tiers",
    "game.approved": "approval.game_approved",
    "payouts.to.one": "paytable.payouts_to_one",
    "schedule.option": "schedule.option_approved_for_game",
    "table.limit": "option.table_limit",
    "wa.aggregate.payout.limit": "wa.aggregate_payout_limit",
    "wa.max.single.wager": "wa.max_single_wager",
    "wa.poker.limits": "wa.poker_limits",
    "wa.wagers.per.hand": "wa.wagers_per_hand",
}
COPY_AND_FACT_KEYS = ("posting", "schedule", "option", "rules", "decks", "version")  # compliance.identity, as of now


def identity(rule, subject, establishment_id, jurisdiction_id):
    thing = {k: v for k, v in subject.items() if k not in COPY_AND_FACT_KEYS}
    return hashlib.sha256(json.dumps([rule, establishment_id, jurisdiction_id, thing], sort_keys=True,
                                     default=str).encode()).hexdigest()


def recode(apps, schema_editor):
    Finding = apps.get_model("compliance", "Finding")
    found = Finding.objects.filter(rule__in=MISBUILT, message__startswith="This rule could not be checked")
    for finding in found.iterator():
        finding.rule = MISBUILT[finding.rule]
        finding.identity = identity(finding.rule, finding.subject, finding.establishment_id, finding.jurisdiction_id)
        finding.save(update_fields=["rule", "identity"])


class Migration(migrations.Migration):
    dependencies = [("compliance", "0005_finding_identity")]
    operations = [migrations.RunPython(recode, migrations.RunPython.noop)]
