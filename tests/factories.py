"""Test data, made in one place: plain functions with keyword defaults over the seed data.

Each one makes what most tests need and takes a keyword for what a test cares about. tests/conftest.py turns the
common ones into fixtures (``table``, ``draft``); a test file that needs another label, game or date keeps a
one-line fixture of its own over the same function. Imports are inside the functions: this module is imported by
conftest.py, before Django is set up.
"""
import datetime

PAI_GOW = "face-up-pai-gow-poker"
GEGA = "GEGA-002888"
# Postings stored straight into the table, for tests of play and collections, start well before any test day.
LONG_AGO = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
# Drafts take effect after every test day unless a test says otherwise.
DRAFT_EFFECTIVE = datetime.date(2030, 1, 1)


def _game(game):
    from cardroom.models import Game

    return Game.objects.get(slug=game) if isinstance(game, str) else game


def _schedule(schedule):
    from fees.models import ScheduleDocument

    return ScheduleDocument.objects.get(code=schedule) if isinstance(schedule, str) else schedule


def make_table(establishment=None, *, label="7", seats=7, game=PAI_GOW):
    """A table at ``establishment`` (Casino Marysville unless given) playing ``game`` (a slug, a Game or None)."""
    from cardroom.models import Establishment, Table

    if establishment is None:
        establishment = Establishment.objects.get(slug="casino-marysville")
    return Table.objects.create(establishment=establishment, label=label, seats=seats, game=_game(game))


def store_posting(table, *, schedule=GEGA, option=43, game=None, seats=None, effective_from=LONG_AGO, **fields):
    """A posting saved straight to the table, with no validation run and no audit entry (for tests of what is
    played and collected under it). ``game`` and ``seats`` default to the table's."""
    from fees.models import TablePosting

    return TablePosting.objects.create(
        table=table, game=_game(game) if game else table.game, schedule=_schedule(schedule), option_number=option,
        seats=table.seats if seats is None else seats, effective_from=effective_from, **fields)


def make_posted_table(establishment=None, *, label="7", seats=7, game=PAI_GOW, schedule=GEGA, option=43,
                      effective_from=LONG_AGO):
    """A table with a posting stored since ``effective_from`` (GEGA-002888 option 43 unless given)."""
    table = make_table(establishment, label=label, seats=seats, game=game)
    store_posting(table, schedule=schedule, option=option, effective_from=effective_from)
    return table


def post_fields(table, *, effective_from, schedule=GEGA, option=1, game=None, low=5, high=500, seats=None,
                actor_label="test"):
    """A posting through signage's service as trusted code does it (validated and logged as ``actor_label``);
    the posting and its validation run. ``low``/``high`` are the minimum and maximum wager; ``game`` and ``seats``
    default to the table's."""
    from signage.postings import post_table

    return post_table(None, fields={"table": table, "game": _game(game) if game else table.game,
                                    "schedule": _schedule(schedule), "option_number": option, "min_wager": low,
                                    "max_wager": high, "seats": table.seats if seats is None else seats,
                                    "effective_from": effective_from}, actor_label=actor_label)


def post_as(user, data):
    """A posting request ``data`` (the API's body) read with ``user``'s scope and posted by them through the
    service, a minute before it takes effect (a posting never starts in the past); the posting and its run."""
    from cardroom.access import Scope
    from signage.postings import post_table, read_posting

    now = datetime.datetime.fromisoformat(data["effective_from"]) - datetime.timedelta(minutes=1)
    return post_table(user, fields=read_posting(data, scope=Scope(user), now=now))


def make_draft(document=GEGA, *, based_on=1, user=None, reason="Bureau letter", effective_from=DRAFT_EFFECTIVE):
    """A new draft of ``document`` (a code or a ScheduleDocument) copied from ``based_on`` (a version number or a
    ScheduleVersion), started by ``user``."""
    document = _schedule(document)
    if isinstance(based_on, int):
        based_on = document.versions.get(number=based_on)
    return document.new_draft(based_on=based_on, user=user, reason=reason, effective_from=effective_from)


def change_a_fee(draft):
    """A real change to ``draft``: its first option's first tier's fee one dollar more (a draft that changes nothing
    from the version in force cannot be sent for approval on its page)."""
    from fees.models import FeeTier

    tier = FeeTier.objects.filter(option__version=draft).order_by("option__number", "order").first()
    tier.fee += 1
    tier.save()
    return tier
