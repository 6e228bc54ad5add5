"""Compliance throughput: 10,000 table postings checked against every rule, and a lint of every seeded document.

    .venv/bin/python benchmarks/compliance_postings.py [--postings 10000]

Uses DATABASE_URL when set; otherwise a throw-away SQLite database in a temporary directory, migrated and
seeded. The facts (games, approvals, bet limits, parameters, schedule versions) are read once into a
``compliance.facts.Catalog``, as a validation run does; the postings are varied California and Washington
postings (every CA player-dealer schedule option, WA house-banked and poker postings at dates either side of
the limit changes), built before the clock starts. Targets (the issue): the 10,000 postings in under 10 s,
the lint of every seeded document version in under 1 s. At the smoke size (BENCH_SMOKE=1) 50 postings.
"""

import argparse
import datetime
import random
import sys
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from support import figure, setup_django, sized  # noqa: E402  (benchmarks/ is on sys.path as a script)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--postings", type=int, default=sized(10_000, 50))
    args = parser.parse_args()
    setup_django()
    from compliance.checking import published_versions
    from compliance.facts import Catalog, document_facts
    from compliance.rules import check_posting, lint_documents
    from compliance.rules.postings import HouseFee, PostingFacts
    from fees.models import ScheduleDocument

    rng = random.Random(4)
    catalog = Catalog()
    day = datetime.date(2026, 11, 21)
    ca_choices = []
    for document in ScheduleDocument.objects.filter(jurisdiction__code="CA").select_related(
            "jurisdiction", "establishment", "source"):
        found = catalog.schedule_as_of(document, day)
        if found is None:
            continue
        schedule = found[1]
        for slug in schedule.games:
            game = catalog.games[catalog.game_ids[slug]]
            if game.category != "player_dealer":
                continue
            for number in schedule.options:
                ca_choices.append((game, schedule, number))
    wa_games = [catalog.games[catalog.game_ids["one-for-the-money"]]]
    postings = []
    for i in range(args.postings):
        if i % 5 == 4:  # Washington, across the limit changes
            game = wa_games[0]
            postings.append(PostingFacts(
                subject={"type": "posting", "n": i}, jurisdiction="WA",
                as_of=rng.choice([datetime.date(2006, 1, 1), datetime.date(2015, 6, 1), datetime.date(2025, 6, 1)]),
                game=game, establishment="test-wa-room", establishment_kind=rng.choice(["card_room", "tribal_casino"]),
                max_wager=Decimal(rng.choice([50, 100, 250, 300, 400, 500])), seats=6,
                bonus_limits=(("3 Card Bonus", Decimal(rng.choice([5, 25]))),),
                approvals=catalog.approvals_for(game.slug), bet_limits=catalog.bet_limits_for(game.slug),
                fees=(HouseFee("time", amount=Decimal(rng.choice([5, 10, 12]))),),
            ))
            continue
        game, schedule, number = rng.choice(ca_choices)
        postings.append(PostingFacts(
            subject={"type": "posting", "n": i}, jurisdiction="CA", as_of=day, game=game,
            establishment="casino-marysville", establishment_kind="card_room", schedule=schedule, option_number=number,
            min_wager=Decimal(rng.choice([1, 5, 10, 25])), max_wager=Decimal(rng.choice([100, 200, 500, 1000, 2000])),
            seats=rng.choice([6, 7, 9]),
            bonus_limits=(("Fortune Bonus", Decimal(rng.choice([10, 20, 25]))),) if i % 3 == 0 else (),
            approvals=catalog.approvals_for(game.slug), bet_limits=catalog.bet_limits_for(game.slug),
        ))
    params = catalog.params
    start = time.perf_counter()
    findings = 0
    errors = 0
    for facts in postings:
        found = check_posting(facts, params)
        findings += len(found)
        errors += any(f.severity == "error" for f in found)
    elapsed = time.perf_counter() - start
    documents = [document_facts(v) for v in published_versions()]
    start = time.perf_counter()
    lint = lint_documents(documents)
    lint_elapsed = time.perf_counter() - start
    options = sum(len(d.options) for d in documents)
    print(f"postings: {len(postings)} checked, {len(postings) / elapsed:,.0f} postings/s ({findings} findings; "
          f"{errors} postings with an error)")
    figure(f"{len(postings):,} postings checked", elapsed, "s", ("<", 10))
    figure(f"the lint of {len(documents)} document versions, {options} options ({len(lint)} findings)", lint_elapsed,
           "s", ("<", 1))


if __name__ == "__main__":
    sys.exit(main())
