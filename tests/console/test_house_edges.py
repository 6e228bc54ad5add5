"""Game math on the pages (issue 25): a Washington room's paytables show each stated house edge beside the exact
one, a disagreement as a sentence a person reads, to its compliance officers and its regulators; the game-math
report (check_game_math) shows one paytable's figures once, whichever documents print it or state them.

Figures from the seed (docs/game-math.md): the SHFL paytable sheet (ofm-paytables) states 6.07% / 5.41% for the
3 Card Bonus paytable 1 and 2.93% / 2.36% for paytable 2 (6 / 8 decks); the exact edges are 6.0731% / 5.4151% and
3.2386% / 2.7360%. The WSGC letter's 'WSGC 1' and 'WSGC 2' pay exactly as the sheet's 1 and 2.
"""

import html
import re
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cardroom.models import Game, GameRules, Paytable
from console import house_edges
from fees.models import PostingBonusLimit
from tests.factories import make_table, store_posting

pytestmark = pytest.mark.django_db

PAYTABLE_2_AT_6 = (
    "SHFL Entertainment (Shuffle Master) states 2.93% for the 3 Card Bonus, paytable 2, with 6 decks; the exact "
    "figure with 6 decks is 3.2386%, 3.24% to 2 decimals: the stated figure is lower than the game's, so it tells "
    "players the bet costs them less than it does.")
PAYTABLE_1_AT_8 = (
    "SHFL Entertainment (Shuffle Master) states 5.41% for the 3 Card Bonus, paytable 1, with 8 decks; the exact "
    "figure with 8 decks is 5.4151%, 5.42% to 2 decimals: the stated figure is the exact one cut to 2 decimals "
    "rather than rounded, a note, not a misstatement.")
PERFECT_MATCH_AT_8 = (
    "Gambling Commission (Great Britain) states 6.4% for the Perfect Match bet, with no deck count; the exact "
    "figure with 8 decks is 4.1767%, 4.2% to 1 decimal: the figure is the one for 6 decks, where it agrees, so it "
    "holds only there.")


def regulator_page(room):
    return reverse("console:regulator-game-math", args=[room.slug])


def compliance_page(room):
    return reverse("console:compliance-game-math", args=[room.slug])


def text_of(response):
    return html.unescape(response.content.decode())


def paytable(bet, number):
    return Paytable.objects.get(game__slug="one-for-the-money", bet=bet, number=number)


def posted_table(room, label, bet, number):
    """A One for the Money table at ``room`` whose posting in force pays ``bet`` by paytable ``number``."""
    table = make_table(room, label=label, seats=6, game="one-for-the-money")
    rules = GameRules.objects.get(game=table.game, version=f"{bet} (WSGC enclosure 2014)")
    posting = store_posting(table, schedule=None, option=None, rules=rules, decks=6, min_wager=Decimal("10"),
                            max_wager=Decimal("300"))
    PostingBonusLimit.objects.create(posting=posting, bet=bet, minimum=Decimal("1"), maximum=Decimal("5"),
                                     paytable=paytable(bet, number))
    return table


def test_the_room_s_paytables_show_each_stated_figure_beside_the_exact_one(people):
    games = house_edges.for_room(people.wa_room)
    assert [g["game"].slug for g in games] == ["one-for-the-money"]  # the WSGC letter approves it state-wide
    shown = {(p["figures"].bet, tuple(pr.number for pr in p["figures"].printings)): p for p in games[0]["paytables"]}
    # The sheet's paytables and the letter's pay alike: one paytable each, printed by both documents.
    assert set(shown) == {("Main game", ()), ("3 Card Bonus", ("1", "WSGC 1")), ("3 Card Bonus", ("2", "WSGC 2")),
                          ("3 Card Bonus", ("Paytable 1",)), ("3 Card Bonus", ("Paytable 2",)),
                          ("Perfect Match", ("1", "WSGC 1")), ("Perfect Match", ("Paytable 1",))}
    rows = [(line["row"].decks, str(line["row"].computed_percent), str(line["row"].stated_percent), line["row"].source,
             line["verdict"]) for line in shown[("3 Card Bonus", ("1", "WSGC 1"))]["lines"]]
    assert rows == [(6, "6.0731", "6.07", "ofm-paytables", "agrees"), (8, "5.4151", "5.41", "ofm-paytables", "note")]
    two = shown[("3 Card Bonus", ("2", "WSGC 2"))]
    assert [line["sentence"] for line in two["lines"]][0] == PAYTABLE_2_AT_6
    assert [line["verdict"] for line in two["lines"]] == ["warning", "warning"] and two["warnings"] == 2
    match = [(line["row"].decks, str(line["row"].stated_percent), line["row"].source, line["verdict"])
             for line in shown[("Perfect Match", ("1", "WSGC 1"))]["lines"]]
    assert match == [(6, "6.40", "ofm-paytables", "agrees"), (6, "6.4", "gb-trial", "agrees"),
                     (8, "4.18", "ofm-paytables", "agrees"), (8, "6.4", "gb-trial", "other-decks")]


def test_a_regulator_reads_the_figures_and_the_disagreements_as_sentences(client, people):
    client.force_login(people.regulator_wa)
    response = client.get(regulator_page(people.wa_room))
    assert response.status_code == 200
    text = text_of(response)
    sheet = paytable("3 Card Bonus", "2")
    section = text[text.index(f'id="paytable-{sheet.pk}"'):]
    section = section[:section.index("<h3")]
    assert "3 Card Bonus, paytable 2 = WSGC 2" in text
    assert "(as “2”); Washington State Gambling Commission letter of 18 February 2014" in section
    assert "<strong>2.93%</strong>, 6 decks; computed to the same precision: 3.24%" in section
    assert "3.2386%" in section and "2.7360%" in section
    assert "Paytable sheet, '3 Card Bonus' table, row 'House Edge 6 Deck', column 2 (2.93%)" in section
    assert PAYTABLE_2_AT_6 in section
    assert PAYTABLE_1_AT_8 in text and PERFECT_MATCH_AT_8 in text
    assert '<span class="badge warning">2 disagreements</span>' in section


def test_a_compliance_officer_sees_it_too_and_a_floor_supervisor_does_not(client, people):
    client.force_login(people.compliance_wa)
    response = client.get(compliance_page(people.wa_room))
    assert response.status_code == 200
    assert PAYTABLE_2_AT_6 in text_of(response)
    assert f'href="{compliance_page(people.wa_room)}" aria-current="page">Game math' in text_of(response)
    assert client.get(regulator_page(people.wa_room)).status_code == 403  # the regulator's pages are theirs
    client.force_login(people.floor)  # the floor's pages show postings, not the compliance or regulator pages
    assert client.get(compliance_page(people.marysville)).status_code == 403
    assert client.get(regulator_page(people.marysville)).status_code == 403
    client.force_login(people.regulator_ca)  # another jurisdiction's room is not theirs to see
    assert client.get(regulator_page(people.wa_room)).status_code == 404
    client.force_login(people.compliance)
    assert client.get(compliance_page(people.wa_room)).status_code == 404
    assert client.get(compliance_page(people.marysville)).status_code == 200


def test_the_overview_pages_link_to_it(client, people):
    client.force_login(people.regulator_wa)
    overview = text_of(client.get(reverse("console:regulator-establishment", args=[people.wa_room.slug])))
    assert f'href="{regulator_page(people.wa_room)}"' in overview
    client.force_login(people.compliance_wa)
    approvals = text_of(client.get(reverse("console:compliance-approvals", args=[people.wa_room.slug])))
    assert f'href="{compliance_page(people.wa_room)}"' in approvals


def test_the_tables_posting_a_paytable_are_named_and_the_queries_stay_flat(client, people):
    posted_table(people.wa_room, "OFM-1", "3 Card Bonus", "WSGC 1")
    client.force_login(people.regulator_wa)
    url = regulator_page(people.wa_room)
    client.get(url)
    with CaptureQueriesContext(connection) as few:
        text = text_of(client.get(url))
    assert "(as “WSGC 1”): the same payouts, so one paytable. Posted at table OFM-1." in text
    for n in range(2, 8):
        posted_table(people.wa_room, f"OFM-{n}", "Perfect Match" if n % 2 else "3 Card Bonus", "WSGC 1")
    with CaptureQueriesContext(connection) as many:
        text = text_of(client.get(url))
    assert len(many) == len(few)
    assert "Posted at tables OFM-1, OFM-2, OFM-4, OFM-6." in text
    assert "Posted at tables OFM-3, OFM-5, OFM-7." in text


def test_the_report_groups_one_paytable_s_figures_once(people):
    out = StringIO()
    call_command("check_game_math", stdout=out)
    lines = out.getvalue().splitlines()
    cells = [re.split(r"\s{2,}", line.strip()) for line in lines]
    at = next(i for i, c in enumerate(cells) if c[:2] == ["One for the Money", "Perfect Match"])
    assert cells[at:at + 4] == [
        ["One for the Money", "Perfect Match", "1 (ofm-paytables), WSGC 1 (wsgc-letter-2014)", "6", "6.4018%",
         "6.40% (6 decks; ofm-paytables)", "yes"],
        ["6.4% (no deck count, for the bet; gb-trial)", "yes"],
        ["8", "4.1767%", "4.18% (8 decks; ofm-paytables)", "yes"],
        ["6.4% (no deck count, for the bet; gb-trial)", "NO (4.2% at the stated precision)"],
    ]
    # The lines under a paytable leave its game, bet and documents blank: each is named once.
    assert all(lines[i].startswith(" " * 40) for i in range(at + 1, at + 4))
    assert sum("WSGC 1 (wsgc-letter-2014)" in line for line in lines) == 2  # 3 Card Bonus and Perfect Match
    card_bonus_2 = next(i for i, c in enumerate(cells) if len(c) > 2 and c[2].startswith("2 (ofm-paytables)"))
    assert cells[card_bonus_2:card_bonus_2 + 2] == [
        ["One for the Money", "3 Card Bonus", "2 (ofm-paytables), WSGC 2 (wsgc-letter-2014)", "6", "3.2386%",
         "2.93% (6 decks; ofm-paytables)", "NO (3.24% at the stated precision)"],
        ["8", "2.7360%", "2.36% (8 decks; ofm-paytables)", "NO (2.74% at the stated precision)"],
    ]
    assert "Stated house edges reproduced: 5 of 9." in lines


def test_the_game_of_a_table_counts_even_without_an_approval(people):
    """A room's game is also the game its active tables are set up for (Three Card Poker's paytable, nothing
    stated: the computed edge alone)."""
    make_table(people.wa_room, label="TCP-1", seats=6, game=Game.objects.get(slug="three-card-poker"))
    games = {g["game"].slug: g for g in house_edges.for_room(people.wa_room)}
    assert set(games) == {"one-for-the-money", "three-card-poker"}
    (pair_plus,) = games["three-card-poker"]["paytables"]
    assert [(line["row"].decks, str(line["row"].computed_percent), line["verdict"], line["sentence"])
            for line in pair_plus["lines"]] == [(1, "4.3801", "nothing-stated", "")]
