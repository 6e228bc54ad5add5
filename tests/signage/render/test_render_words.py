"""What a sign says to a player (issue 25): only what they can rely on, in words, each table written one way;
a preview is marked across the whole page."""

import dataclasses
from decimal import Decimal

import pytest
from PIL import Image

from cardroom.models import Game, Paytable, PaytableLine, Table
from signage import content, printing, render

from tests import signs
from tests.signage.test_signage import post

pytestmark = pytest.mark.django_db
PREVIEW = printing.PREVIEW_BANNER


def test_a_bet_the_source_limits_two_ways_is_left_off_and_no_cell_says_not_stated(people):
    # Fortune Pai Gow's rules put the Envy eligibility at $5 in one place and $25 in another, and no maximum.
    game = Game.objects.get(name="Fortune Pai Gow Poker")
    tbl = Table.objects.create(establishment=people.marysville, label="FP", seats=7, game=game)
    posting = post(tbl, people, bonus_limits=None)
    sign = content.sign_for(posting)
    assert [(b.bet, b.minimum, b.maximum) for b in sign.bonus_limits] == [
        ("Fortune Bonus", Decimal("1.00"), Decimal("20.00"))]
    text = signs.text(render.render([sign], "letter").pdf)
    assert signs.row("Fortune Bonus", "$1.00").search(text) and "Envy Bonus eligibility" not in text
    assert "not stated" not in text


def test_each_paytable_is_written_in_one_unit_named_in_its_heading(people):
    # Three Card Poker prints its limits "200:1"; another paytable mixing odds and a prize is headed "Pays".
    game = Game.objects.get(name="Three Card Poker")
    mixed = Paytable.objects.create(game=game, bet="Mixed Bonus", number="X-1", currency="USD",
                                    source=game.paytables.first().source, citation="test")
    PaytableLine.objects.create(paytable=mixed, order=1, hand="Royal", printed="$500", fixed_amount=Decimal("500"))
    PaytableLine.objects.create(paytable=mixed, order=2, hand="Pair", printed="3:2", odds_to=3, odds_for=2)
    by_bet = {p.bet: p for p in content.payouts(game, "USD")}
    assert by_bet["Bonus/Pair Plus"].unit == "Pays (odds)"
    assert by_bet["Bonus/Pair Plus"].lines[0] == ("Mini Royal Flush", "200 to 1")
    assert (by_bet["Mixed Bonus"].unit, by_bet["Mixed Bonus"].lines) == (
        "Pays", (("Royal", "$500.00"), ("Pair", "3 to 2")))


def test_a_preview_is_marked_light_across_the_page_diagonal(people, table, tmp_path):
    sign = content.sign_for(post(table, people))
    plain = render.render([sign], "letter").pdf
    preview = render.render([dataclasses.replace(sign, watermark=PREVIEW)], "letter").pdf
    assert PREVIEW not in signs.text(plain) and PREVIEW in signs.text(preview)  # the header says it in words
    assert signs.text(preview).count("P") == signs.text(plain).count("P") + 2  # the mark is no text of the page
    (a,), (b,) = signs.png_pages(plain, tmp_path / "a", 40), signs.png_pages(preview, tmp_path / "b", 40)
    a, b = Image.open(a).convert("L"), Image.open(b).convert("L")
    w, h = a.size

    def marked(box):  # pixels the watermark changed within (left, top, right, bottom), as fractions of the page
        x0, y0, x1, y1 = int(box[0] * w), int(box[1] * h), int(box[2] * w), int(box[3] * h)
        return [(a.getpixel((x, y)), b.getpixel((x, y))) for x in range(x0, x1) for y in range(y0, y1)
                if a.getpixel((x, y)) != b.getpixel((x, y))]

    # Along the diagonal from the lower left to the upper right, and not in the other two corners.
    assert marked((0.05, 0.75, 0.3, 0.95)) and marked((0.7, 0.1, 0.95, 0.3)) and marked((0.4, 0.4, 0.6, 0.6))
    assert not marked((0.0, 0.06, 0.2, 0.25)) and not marked((0.8, 0.8, 1.0, 1.0))
    # Light: where the page was white, the mark is a pale grey.
    on_white = [after for before, after in marked((0.05, 0.75, 0.3, 0.95)) if before == 255]
    assert on_white and min(on_white) > 180
