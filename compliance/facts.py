"""The bridge from the database to the pure rules: facts and parameters, read once and reused.

A ``Catalog`` holds what every posting check needs (rule parameters, games, approvals with their
conditions, bet limits, and the schedule versions asked for, as engine options); a run or the benchmark
builds one and checks thousands of postings against it without another query per posting.
"""

from cardroom.models import Approval, BetLimit, Game, GameRules, Paytable
from fees.models import in_force
from fees.models import FeeOption, RoundOfPlay, ScheduleDocument, ScheduleVersion
from fees.quotes import quoting

from .models import RuleParameter
from .rules import Parameter, ParameterSet
from .rules.lint import DocumentFacts
from .rules.postings import (
    ApprovalFacts,
    ApprovedContent,
    BetLimitFacts,
    Condition,
    GameFacts,
    HouseBankedFacts,
    OptionFacts,
    PayoutLine,
    PaytableFacts,
    PostingFacts,
    RulesFacts,
    ScheduleFacts,
)
from .rules.rounds import Hand, TableRounds

OPTION_LIMITS = ("min_wager_from", "min_wager_to", "max_wager_from", "max_wager_to", "table_limit_low",
                 "table_limit_high")


def parameter_set():
    return ParameterSet(
        Parameter(
            jurisdiction=p.jurisdiction.code, key=p.key, value=p.value, unit=p.unit, effective_from=p.effective_from,
            status=p.status, citation=p.citation, note=p.note,
        )
        for p in RuleParameter.objects.select_related("jurisdiction")
    )


def game_facts(game):
    return GameFacts(
        slug=game.slug, name=game.name, registration_number=game.registration_number, category=game.category,
        max_collection_rates=game.max_collection_rates,
        max_collection_rates_citation=game.max_collection_rates_citation,
    )


def approval_facts(approval):
    return ApprovalFacts(
        key=approval.key, game=approval.game.slug, game_name=approval.game.name,
        jurisdiction=approval.jurisdiction.code,
        establishment=approval.establishment.slug if approval.establishment_id else None,
        scope=approval.scope, status=approval.status, reference=approval.reference, decided_on=approval.decided_on,
        effective_from=approval.effective_from, expires_on=approval.expires_on,
        trial_ends_on=approval.trial_ends_on, citation=f"{approval.source.title}, {approval.citation}",
        conditions=tuple(condition_facts(approval, c) for c in approval.conditions.all()),
    )


def condition_facts(approval, condition):
    """A condition with the establishments where it stands as met (``APPROVAL_PREFETCH`` serves the records)."""
    met = tuple((record.establishment.slug, record.met_on) for record in condition.current_fulfilments().values()
                if not record.withdrawn)
    return Condition(condition.text, condition.applies_to, condition.status,
                     f"{approval.source.title}, {condition.citation}", kind=condition.kind, order=condition.order,
                     met=met)


# What approval_facts reads beyond the approval's own row, in a few queries for any number of approvals.
APPROVAL_PREFETCH = ("conditions", "conditions__fulfilments__establishment")


def rules_facts(rules):
    return RulesFacts(game=rules.game.slug, version=rules.version, title=rules.title, source=rules.source.key,
                      citation=f"{rules.source.title}, {rules.citation}")


def paytable_facts(paytable):
    return PaytableFacts(
        game=paytable.game.slug, bet=paytable.bet, number=paytable.number, source=paytable.source.key,
        citation=f"{paytable.source.title}, {paytable.citation}",
        lines=tuple(PayoutLine(hand=line.hand, printed=line.printed, odds_to=line.odds_to, odds_for=line.odds_for,
                               is_push=line.is_push, fixed_amount=line.fixed_amount) for line in paytable.lines.all()),
    )


class HouseBankedCatalog:
    """Rules versions, paytables and what each approval approves (the rules and paytables transcribed from the
    approval's own document: the same source), loaded once on first use: only house-banked postings need them."""

    def __init__(self):
        self.rules = {r.pk: rules_facts(r) for r in GameRules.objects.select_related("game", "source")}
        self.paytables = {p.pk: paytable_facts(p) for p in Paytable.objects.select_related("game", "source")
                          .prefetch_related("lines")}
        self.approved = {}
        for approval in Approval.objects.select_related("game", "source").order_by("key"):
            slug, source = approval.game.slug, approval.source.key
            self.approved.setdefault(slug, []).append(ApprovedContent(
                approval=approval.key, reference=approval.reference,
                citation=f"{approval.source.title}, {approval.citation}",
                rules=tuple(r for r in self.rules.values() if r.game == slug and r.source == source),
                paytables=tuple(p for p in self.paytables.values() if p.game == slug and p.source == source),
            ))

    def facts(self, game_slug, rules_id, decks, paytables, aggregate_payout_limit):
        """HouseBankedFacts of a posting: ``paytables`` is [(bet as posted, paytable id)]."""
        return HouseBankedFacts(
            rules=self.rules[rules_id], decks=decks,
            paytables=tuple((bet, self.paytables[pk]) for bet, pk in paytables),
            aggregate_payout_limit=aggregate_payout_limit, approved=tuple(self.approved.get(game_slug, ())),
        )


class Catalog:
    """Games, approvals, bet limits and parameters, loaded once; schedule versions loaded as asked for."""

    def __init__(self):
        self.params = parameter_set()
        self.games = {}
        self.game_ids = {}
        self.games_by_key = {}
        for game in Game.objects.all():
            facts = game_facts(game)
            self.games[game.pk] = facts
            self.game_ids[game.slug] = game.pk
            self.games_by_key[game.slug] = game
            if game.registration_number:
                self.games_by_key[game.registration_number.upper()] = game
        self.approvals = {}
        self.approval_ids = {}
        for approval in Approval.objects.select_related("game", "jurisdiction", "establishment", "source") \
                .prefetch_related(*APPROVAL_PREFETCH):
            facts = approval_facts(approval)
            self.approvals.setdefault(approval.game.slug, []).append(facts)
            self.approval_ids[approval.key] = approval.pk
        self.bet_limits = {}
        gaming_activity_limits = []
        for limit in BetLimit.objects.select_related("game", "source"):
            facts = BetLimitFacts(
                game=limit.game.slug, bet=limit.bet, minimum=limit.minimum, maximum=limit.maximum,
                maximum_is_lesser_of_base_wager=limit.maximum_is_lesser_of_base_wager,
                citation=f"{limit.source.title}, {limit.citation}",
            )
            self.bet_limits.setdefault(limit.game.slug, []).append(facts)
            if limit.game.category == Game.Category.GAMING_ACTIVITY:
                gaming_activity_limits.append(facts)
        # A gaming activity (a bonus bet offered on other games) carries its cap wherever it is offered.
        self.gaming_activity_limits = tuple(gaming_activity_limits)
        self._schedules = {}
        self._versions = {}
        self._published = {}  # document id: its published versions, when read in hand (``know_versions``)

    def game(self, key):
        """A game by slug or registration number (case-insensitive for the number)."""
        if not isinstance(key, str):
            return None
        return self.games_by_key.get(key) or self.games_by_key.get(key.strip().upper())

    @property
    def house_banked(self):
        """Rules, paytables and approved content for house-banked postings (loaded on first use)."""
        if getattr(self, "_house_banked", None) is None:
            self._house_banked = HouseBankedCatalog()
        return self._house_banked

    def approvals_for(self, game_slug):
        return tuple(self.approvals.get(game_slug, ()))

    def bet_limits_for(self, game_slug):
        return tuple(self.bet_limits.get(game_slug, ())) + self.gaming_activity_limits

    def schedule(self, document, version):
        """ScheduleFacts for one (published) version; cached per version."""
        cached = self._schedules.get(version.pk)
        if cached is not None:
            return cached
        snapshot = quoting.snapshot(version)
        limits = {
            row["number"]: row
            for row in FeeOption.objects.filter(version=version).values("number", *OPTION_LIMITS)
        }
        options = {
            option.number: OptionFacts(option=option, **{k: limits[option.number][k] for k in OPTION_LIMITS})
            for option in snapshot.options
        }
        facts = ScheduleFacts(
            code=document.code, version=version.number, jurisdiction=document.jurisdiction.code,
            establishment=document.establishment.slug if document.establishment_id else None,
            games=frozenset(document.games.values_list("slug", flat=True)),
            citation=f"{document.source.title}, {document.citation}", options=options,
        )
        if version.is_published:
            self._schedules[version.pk] = facts
        return facts

    def know_versions(self, document_ids):
        """Read the published versions of many documents in one query, so that ``schedule_as_of`` picks the one in
        force on any day among them in hand (the rule of ``fees.models.in_force``), with no query per document and day."""
        wanted = set(document_ids) - set(self._published) - {None}
        for pk in wanted:
            self._published[pk] = []
        for version in (ScheduleVersion.objects.filter(document_id__in=wanted, status=ScheduleVersion.Status.PUBLISHED)
                .select_related("document")):
            self._published[version.document_id].append(version)

    def published(self, document_id):
        """The published versions of a document read by ``know_versions`` (empty when not read)."""
        return tuple(self._published.get(document_id, ()))

    def schedule_as_of(self, document, day):
        key = (document.pk, day)
        if key not in self._versions:
            known = self._published.get(document.pk)
            self._versions[key] = document.version_as_of(day) if known is None else in_force.among(known, day)
        version = self._versions[key]
        return None if version is None else (version, self.schedule(document, version))


def posting_facts(posting, day, catalog):
    table = posting.table
    establishment = table.establishment
    game = catalog.games[posting.game_id]
    limits = posting.bonus_limits.all()
    subject = {"type": "posting", "posting": posting.pk, "table": table.label, "establishment": establishment.slug,
               "game": game.slug}
    found = house = None
    if posting.schedule_id is not None:
        found = catalog.schedule_as_of(posting.schedule, day)
        subject.update(schedule=posting.schedule.code, option=posting.option_number)
    else:  # a house-banked posting without a collection schedule
        house = catalog.house_banked.facts(
            game.slug, posting.rules_id, posting.decks,
            [(b.bet, b.paytable_id) for b in limits if b.paytable_id is not None], posting.aggregate_payout_limit)
        subject.update(rules=house.rules.version, decks=posting.decks)
    return PostingFacts(
        subject=subject, jurisdiction=establishment.jurisdiction.code, as_of=day, game=game,
        establishment=establishment.slug, establishment_kind=establishment.kind, establishment_name=establishment.name,
        schedule=found[1] if found else None, option_number=posting.option_number,
        min_wager=posting.min_wager, max_wager=posting.max_wager, seats=posting.seats,
        bonus_limits=tuple((b.bet, b.maximum) for b in limits),
        approvals=catalog.approvals_for(game.slug), bet_limits=catalog.bet_limits_for(game.slug),
        house_banked=house,
    )


def document_facts(version):
    snapshot = quoting.snapshot(version)
    document = version.document
    return DocumentFacts(
        code=document.code, version=version.number, effective_from=version.effective_from,
        jurisdiction=document.jurisdiction.code,
        establishment=document.establishment.slug if document.establishment_id else None,
        citation=f"{document.source.title}, {document.citation}", options=snapshot.options,
    )


def documents_queryset():
    return ScheduleDocument.objects.select_related("jurisdiction", "establishment", "source")


def player_dealer(facts):
    """Who held the player-dealer position in a round's facts (``player_dealer``), or None if not recorded."""
    value = facts.get("player_dealer") if isinstance(facts, dict) else None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    value = str(value).strip()
    return value or None


def table_rounds(tables, day):
    """TableRounds of ``day`` (gaming day) for each table that recorded California rounds (facts with
    ``wagers``) that day; poker hands and time-collection periods have no player-dealer position."""
    by_table = {t.pk: t for t in tables}
    hands = {}
    rows = (RoundOfPlay.objects.filter(table_id__in=list(by_table), gaming_day=day)
            .order_by("table_id", "played_at", "id").values_list("id", "table_id", "reference", "played_at", "facts"))
    for pk, table_id, reference, played_at, facts in rows.iterator():
        if isinstance(facts, dict) and "wagers" in facts:
            hands.setdefault(table_id, []).append(Hand(reference, played_at, player_dealer(facts), pk))
    out = []
    for table_id, held in hands.items():
        table = by_table[table_id]
        establishment = table.establishment
        out.append((table, TableRounds(
            subject={"type": "table", "table": table.label, "establishment": establishment.slug},
            jurisdiction=establishment.jurisdiction.code, table=table.label, gaming_day=day, hands=tuple(held),
        )))
    return out
