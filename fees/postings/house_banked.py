"""The house-banked part of a posting request, read the same way by the posting service
(``signage.postings.read_posting``) and the compliance check (``compliance.request_check.read_request``): which of
the game's rules versions, how many decks, which of its paytables for a bonus bet.

Each reader returns the row or value, or raises ``BadInput`` with a sentence naming the field (``what``) and what
the game offers instead (a 400 at every door). Whether the rules and paytables are the *approved* ones is not
decided here: that is a compliance finding (``approval.rules_and_paytables``), so a posting can be checked, and
printed under an override, while a question about its approval is open.
"""

import re

from cardroom import values
from cardroom.exceptions import BadInput
from cardroom.models import GameRules, Paytable

MAX_DECKS = 16


def _normal(name):
    return " ".join(re.sub(r"[^a-z0-9]+", " ", name.lower()).split())


def _listed(names):
    return ", ".join(f"'{n}'" for n in names) or "none"


def _own(model, noun, pk, game, what, describe):
    """``game``'s row of ``model`` whose id is ``pk``; BadInput saying whose it is when it is another game's."""
    values.named(what, values.identifier, pk)
    found = model.objects.select_related("game").filter(pk=pk).first()
    if found is None:
        raise BadInput(f"{what}: there is no {noun} {pk}.", field=what)
    if found.game_id != game.pk:
        raise BadInput(f"{what}: {noun} {pk} is {found.game.name}'s ({describe(found)}), not {game.name}'s.",
                       field=what)
    return found


def rules_of(game, value, what="rules"):
    """One of ``game``'s rules versions: its ``version`` as a string (e.g. '3 Card Bonus (WSGC enclosure 2014)')
    or its id."""
    versions = GameRules.objects.filter(game=game).order_by("version")
    if type(value) is int:
        return _own(GameRules, "rules", value, game, what, lambda r: r.version)
    try:
        version = values.text(value, max_length=40)
    except values.Invalid as error:
        raise BadInput(f"{what} (a rules version of {game.name}, or its id) {error}", field=what) from None
    found = versions.filter(version=version).first()
    if found is None:
        raise BadInput(f"{what}: {game.name} has no rules version {version!r}; its versions: "
                       f"{_listed(versions.values_list('version', flat=True))}.", field=what)
    return found


def allowed_decks(game):
    """The deck counts the game's rules name: its ``decks_min`` and ``decks_max`` ('six or eight decks' is 6 and
    8, not 7; a game whose rules allow any count in between would need it listed). Empty when not stated."""
    return tuple(sorted({n for n in (game.decks_min, game.decks_max) if n is not None}))


def decks_of(game, value, what="decks"):
    try:
        decks = values.whole(value, minimum=1, maximum=MAX_DECKS)
    except values.Invalid as error:
        raise BadInput(f"{what} (the number of decks dealt) {error}", field=what) from None
    allowed = allowed_decks(game)
    if allowed and decks not in allowed:
        counts = " or ".join(str(n) for n in allowed)
        raise BadInput(f"{what}: {game.name} is dealt from {counts} decks, as its rules say; not {decks}.",
                       field=what)
    return decks


def paytable_of(game, bet, value, what="paytable"):
    """The paytable ``bet`` pays by: one of ``game``'s paytables for that bet, by its number as printed (e.g.
    'WSGC 1') or its id."""
    mine = [p for p in Paytable.objects.filter(game=game).order_by("bet", "number")]
    for_bet = [p for p in mine if _normal(p.bet) == _normal(bet)]
    if not for_bet:
        bets = sorted({p.bet for p in mine})
        raise BadInput(f"{what}: {game.name} has no paytable for a bet called {bet!r}; its bets with paytables: "
                       f"{_listed(bets)}.", field=what)
    if type(value) is int:
        found = _own(Paytable, "paytable", value, game, what, lambda p: f"{p.bet} {p.number}")
        if found not in for_bet:
            raise BadInput(f"{what}: paytable {value} pays the {found.bet} bet, not {bet}.", field=what)
        return found
    try:
        number = values.text(value, max_length=20)
    except values.Invalid as error:
        raise BadInput(f"{what} (the {bet} paytable's number as printed, or its id) {error}", field=what) from None
    found = next((p for p in for_bet if p.number.lower() == number.lower()), None)
    if found is None:
        raise BadInput(f"{what}: {game.name} has no {for_bet[0].bet} paytable {number!r}; its {for_bet[0].bet} "
                       f"paytables: {_listed(p.number for p in for_bet)}.", field=what)
    return found


__all__ = ["allowed_decks", "decks_of", "paytable_of", "rules_of"]
