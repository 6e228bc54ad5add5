"""Posting checks from requests and stored postings, schedule lint, and stored validation runs.

``check_request`` reads the API's JSON body (docs/compliance.md), checks it and returns the findings; it
saves nothing. ``run_posting`` / ``run_establishment`` / ``run_schedule`` / ``run_everything`` check and store.
"""

import collections
import dataclasses
import datetime

from django.db import transaction
from django.utils import timezone

from cardroom import game_checks, values
from cardroom.models import Establishment, Jurisdiction, Table
from fees import house_banked
from fees.models import ScheduleDocument, ScheduleVersion, TablePosting

from . import identity
from .facts import Catalog, document_facts, documents_queryset, table_rounds
from .models import Finding, ValidationRun
from .rules import (
    ERROR,
    INFO,
    WARNING,
    check_posting,
    lint_approvals,
    lint_documents,
    pack_for,
    rule_player_dealer_rotation,
)
from .rules.game_math import house_edge_findings
from .rules.lint import TableFacts
from .rules.postings import HouseFee, PostingFacts


class CheckError(ValueError):
    """A request that cannot be checked; the message says what is wrong (becomes a 400)."""


# A house-banked game without a collection schedule is checked with these instead of schedule and option.
HOUSE_BANKED_FIELDS = ("rules", "decks", "paytables", "aggregate_payout_limit")
FIELDS = {"jurisdiction", "establishment", "game", "schedule", "option", "min_wager", "max_wager", "seats",
          "bonus_limits", "as_of", "fees", "class_f", "wagers_per_hand", *HOUSE_BANKED_FIELDS}
FEE_KINDS = ("time", "per_hand", "rake")


def _read(read, value, what, **options):
    try:
        return read(value, **options)
    except values.Invalid as exc:
        raise CheckError(f"{what} {exc}") from None


def _money(value, what):
    return _read(values.money, value, what)


def _whole(value, what, minimum=1):
    return _read(values.whole, value, what, minimum=minimum, maximum=10_000)


def _day(value, today):
    return today if value in (None, "") else _read(values.day, value, "as_of")


def _establishment(value, scope):
    if type(value) not in (int, str) or value == "":
        raise CheckError(f"establishment must be an id or a slug, not {value!r}.")
    found = Establishment.objects.select_related("jurisdiction").filter(scope.establishments_q()).by_key(value)
    if found is None:
        raise CheckError(f"Unknown establishment {value!r}.")
    return found


def _house(read, *args):
    try:
        return read(*args)
    except house_banked.Invalid as error:
        raise CheckError(str(error)) from None


def _house_banked(data, game, bonus_limits, catalog):
    """The HouseBankedFacts of a request naming ``rules`` (and ``decks``, ``paytables``: {bet: paytable number
    or id}, one for each bonus bet of ``bonus_limits``, and ``aggregate_payout_limit``)."""
    if game.category != game.Category.HOUSE_BANKED:
        raise CheckError(f"rules: {game.name} is not house-banked; it is posted with a collection schedule "
                         "(schedule and option).")
    rules = _house(house_banked.rules_of, game, data["rules"], "rules")
    decks = None if data.get("decks") is None else _house(house_banked.decks_of, game, data["decks"], "decks")
    raw = data.get("paytables") or {}
    if not isinstance(raw, dict):
        raise CheckError('paytables must be an object of bonus bet to paytable, e.g. {"3 Card Bonus": "WSGC 1"}.')
    bets = {name.lower(): name for name, _ in bonus_limits}
    paytables = []
    for bet, value in raw.items():
        if bet.lower() not in bets:
            raise CheckError(f"paytables.{bet}: no bonus_limits entry for this bet (give its maximum there).")
        paytables.append((bets[bet.lower()], _house(house_banked.paytable_of, game, bet, value, f"paytables.{bet}").pk))
    missing = sorted(set(bets) - {bet.lower() for bet in raw})
    if missing:
        raise CheckError(f"paytables: name the paytable of each bonus bet of a house-banked posting; missing: "
                         f"{', '.join(bets[m] for m in missing)}.")
    limit = data.get("aggregate_payout_limit")
    limit = None if limit is None else _money(limit, "aggregate_payout_limit")
    return catalog.house_banked.facts(game.slug, rules.pk, decks, paytables, limit)


def read_request(data, *, scope, today, catalog):
    """The request body as PostingFacts, or a CheckError saying what is wrong."""
    if not isinstance(data, dict):
        raise CheckError("The request body must be a JSON object.")
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise CheckError(f"Unknown field(s): {', '.join(unknown)}. Allowed: {', '.join(sorted(FIELDS))}.")
    establishment = None
    if data.get("establishment") not in (None, ""):
        establishment = _establishment(data["establishment"], scope)
    code = data.get("jurisdiction")
    if code in (None, ""):
        if establishment is None:
            raise CheckError("Say where: jurisdiction (CA, WA, GB) or establishment (id or slug) is required.")
        jurisdiction = establishment.jurisdiction
    else:
        if not isinstance(code, str):
            raise CheckError(f"jurisdiction must be a code such as CA, WA or GB, not {code!r}.")
        jurisdiction = scope.jurisdictions_qs().filter(code=code.strip().upper()).first()
        if jurisdiction is None:
            raise CheckError(f"Unknown jurisdiction {code!r}.")
        if establishment is not None and establishment.jurisdiction_id != jurisdiction.pk:
            raise CheckError(f"{establishment.name} is in {establishment.jurisdiction.code}, not {jurisdiction.code}.")
    if "game" not in data:
        raise CheckError("game is required (its registration number, e.g. GEGR-002247, or its slug).")
    game = catalog.game(data["game"])
    if game is None:
        raise CheckError(f"Unknown game {data['game']!r}.")
    as_of = _day(data.get("as_of"), today)
    schedule = option = None
    if data.get("schedule") not in (None, ""):
        if not isinstance(data["schedule"], str):
            raise CheckError(f"schedule must be a schedule code such as GEGA-002888, not {data['schedule']!r}.")
        document = documents_queryset().filter(code=data["schedule"].strip()).first()
        if document is None or not scope.sees_placed(
            document.establishment_id, document.establishment.jurisdiction_id if document.establishment_id else None,
            document.jurisdiction_id,
        ):
            raise CheckError(f"Unknown schedule {data['schedule']!r}.")
        found = catalog.schedule_as_of(document, as_of)
        if found is None:
            raise CheckError(f"{document.code} has no published version in force on {as_of.isoformat()}.")
        schedule = found[1]
        if "option" not in data:
            raise CheckError(f"option is required with a schedule (the option number of {document.code}).")
        option = _whole(data["option"], "option")
    elif data.get("option") is not None:
        raise CheckError("option was given without a schedule.")
    min_wager = _money(data["min_wager"], "min_wager") if data.get("min_wager") is not None else None
    max_wager = _money(data["max_wager"], "max_wager") if data.get("max_wager") is not None else None
    seats = _whole(data.get("seats", 1), "seats")
    bonus = data.get("bonus_limits") or {}
    if not isinstance(bonus, dict):
        raise CheckError('bonus_limits must be an object of bet name to maximum, e.g. {"pair_plus": "100"}.')
    bonus_limits = tuple((_read(values.text, name, "a bonus_limits bet", max_length=120),
                          _money(value, f"bonus_limits.{name}")) for name, value in bonus.items())
    fees = []
    raw_fees = data.get("fees") or []
    if not isinstance(raw_fees, list):
        raise CheckError("fees must be a list of {kind, amount | percent, cap}.")
    for i, fee in enumerate(raw_fees):
        if not isinstance(fee, dict) or fee.get("kind") not in FEE_KINDS:
            raise CheckError(f"fees[{i}] must be an object whose kind is one of {', '.join(FEE_KINDS)}.")
        extra = set(fee) - {"kind", "amount", "percent", "cap"}
        if extra:
            raise CheckError(f"fees[{i}] has unknown field(s): {', '.join(sorted(extra))}.")
        fees.append(HouseFee(
            kind=fee["kind"],
            amount=_money(fee["amount"], f"fees[{i}].amount") if fee.get("amount") is not None else None,
            percent=_money(fee["percent"], f"fees[{i}].percent") if fee.get("percent") is not None else None,
            cap=_money(fee["cap"], f"fees[{i}].cap") if fee.get("cap") is not None else None,
        ))
    class_f = _read(values.flag, data.get("class_f", False), "class_f")
    wagers_per_hand = data.get("wagers_per_hand")
    if wagers_per_hand is not None:
        wagers_per_hand = _whole(wagers_per_hand, "wagers_per_hand")
    house = None
    given = [name for name in HOUSE_BANKED_FIELDS if data.get(name) not in (None, "", {})]
    if data.get("rules") not in (None, ""):
        if schedule is not None:
            raise CheckError(f"{', '.join(given)}: only a house-banked posting without a collection schedule names "
                             "these; give them or schedule and option, not both.")
        house = _house_banked(data, game, bonus_limits, catalog)
    elif given:
        raise CheckError(f"{', '.join(given)}: give rules too (the approved rules version of a house-banked game "
                         "posted without a collection schedule).")
    subject = {"type": "posting", "game": game.slug, "jurisdiction": jurisdiction.code,
               **({"establishment": establishment.slug} if establishment else {}),
               **({"schedule": schedule.code, "option": option} if schedule else {}),
               **({"rules": house.rules.version, "decks": house.decks} if house else {})}
    return PostingFacts(
        subject=subject, jurisdiction=jurisdiction.code, as_of=as_of, game=catalog.games[game.pk],
        establishment=establishment.slug if establishment else None,
        establishment_kind=establishment.kind if establishment else None,
        schedule=schedule, option_number=option, min_wager=min_wager, max_wager=max_wager, seats=seats,
        bonus_limits=bonus_limits, approvals=catalog.approvals_for(game.slug),
        bet_limits=catalog.bet_limits_for(game.slug), fees=tuple(fees), class_f=class_f,
        wagers_per_hand=wagers_per_hand, house_banked=house,
    )


def summary(findings):
    return {
        "ok": not any(f.severity == ERROR for f in findings),
        "counts": {s: sum(1 for f in findings if f.severity == s) for s in (ERROR, WARNING, INFO)},
    }


def check_request(data, *, scope, today, catalog=None):
    """Check a proposed posting (the API's body). Saves nothing; raises CheckError on bad input."""
    catalog = catalog or Catalog()
    facts = read_request(data, scope=scope, today=today, catalog=catalog)
    findings = check_posting(facts, catalog.params)
    return {
        **summary(findings), "as_of": facts.as_of.isoformat(), "jurisdiction": facts.jurisdiction,
        "rule_pack": pack_for(facts.jurisdiction, facts.establishment_kind),
        "findings": [f.as_dict() for f in findings],
    }


# -- stored postings and runs ------------------------------------------------------------------------------


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
        establishment=establishment.slug, establishment_kind=establishment.kind,
        schedule=found[1] if found else None, option_number=posting.option_number,
        min_wager=posting.min_wager, max_wager=posting.max_wager, seats=posting.seats,
        bonus_limits=tuple((b.bet, b.maximum) for b in limits),
        approvals=catalog.approvals_for(game.slug), bet_limits=catalog.bet_limits_for(game.slug),
        house_banked=house,
    )


def current_postings(tables, at):
    """The posting in force at each table at moment ``at`` (tables with none are left out)."""
    in_force = {p.table_id: p for p in TablePosting.objects.in_force_at(at).filter(table__in=tables)
                .select_related("schedule__jurisdiction", "schedule__establishment", "schedule__source")
                .prefetch_related("bonus_limits")}
    postings = []
    for table in tables:
        posting = in_force.get(table.pk)
        if posting is not None:
            posting.table = table
            postings.append(posting)
    return postings


def _table_facts(tables, catalog):
    return [
        TableFacts(establishment=t.establishment.slug, establishment_kind=t.establishment.kind,
                   jurisdiction=t.establishment.jurisdiction.code, label=t.label, game=t.game.slug,
                   game_name=t.game.name)
        for t in tables if t.game_id is not None
    ]


class _Recorder:
    def __init__(self, run, catalog):
        self.run = run
        self.catalog = catalog
        self.rows = []
        self.tables = {}
        self.documents = {}
        self.versions = {}
        self.jurisdictions = {j.code: j for j in Jurisdiction.objects.all()}
        self.establishments = {}

    def add(self, finding, *, table=None, posting=None, establishment=None, judged=None):
        """``judged``: the posting's values the finding judged (``identity.posting_facts``)."""
        subject = finding.subject
        document = version = None
        if "schedule" in subject:
            document = self.documents.get(subject["schedule"])
            if document is None:
                document = ScheduleDocument.objects.filter(code=subject["schedule"]).first()
                self.documents[subject["schedule"]] = document
            if document is not None and subject.get("version"):
                key = (document.pk, subject["version"])
                if key not in self.versions:
                    self.versions[key] = document.versions.filter(number=subject["version"]).first()
                version = self.versions[key]
        slug = subject.get("establishment")
        if establishment is None and slug:
            if slug not in self.establishments:
                self.establishments[slug] = Establishment.objects.filter(slug=slug).first()
            establishment = self.establishments[slug]
        jurisdiction = (establishment.jurisdiction if establishment is not None
                        else document.jurisdiction if document is not None
                        else self.jurisdictions.get(subject.get("jurisdiction")))
        approval_id = self.catalog.approval_ids.get(subject.get("approval"))
        if table is None and subject.get("type") == "table" and establishment is not None:
            table = Table.objects.filter(establishment=establishment, label=subject.get("table")).first()
        parameters = [p.as_dict() for p in finding.parameters]
        facts = identity.facts_of(subject, finding.message, parameters, judged)
        self.rows.append(Finding(
            run=self.run, rule=finding.rule, severity=finding.severity, subject_type=subject.get("type", ""),
            subject=subject, message=finding.message, citation=finding.citation[:500],
            parameters=parameters, jurisdiction=jurisdiction,
            establishment=establishment, table=table, posting=posting, schedule=document, schedule_version=version,
            option_number=subject.get("option"), approval_id=approval_id,
            identity=identity.identity(finding.rule, subject, establishment.pk if establishment else None,
                                       jurisdiction.pk if jurisdiction else None),
            facts=facts, fingerprint=identity.fingerprint(facts),
        ))

    def save(self):
        carry_acknowledgements(self.rows)
        Finding.objects.bulk_create(self.rows, batch_size=500)
        run = self.run
        run.errors = sum(1 for r in self.rows if r.severity == ERROR)
        run.warnings = sum(1 for r in self.rows if r.severity == WARNING)
        run.infos = sum(1 for r in self.rows if r.severity == INFO)
        run.save(update_fields=["errors", "warnings", "infos", "postings_checked", "options_linted"])
        return run


def carry_acknowledgements(rows):
    """Before new findings are stored: each whose identity was acknowledged before carries that acknowledgement
    when the facts it judged are those acknowledged (any acknowledgement of them holds); otherwise it stays open,
    saying what changed since the latest acknowledgement (one query)."""
    several = collections.Counter(row.identity for row in rows if row.identity)
    wanted = set(several)
    if not wanted:
        return
    # Only the acknowledgements people made (not the copies runs carried: those grow with every run).
    earlier = {}  # identity: {fingerprint: the first acknowledgement of those facts, None: the latest}
    wanted = sorted(wanted)
    for start in range(0, len(wanted), 500):
        for done in (Finding.objects.filter(identity__in=wanted[start:start + 500], acknowledged_at__isnull=False,
                                            acknowledgement_of__isnull=True)
                     .select_related("acknowledged_by").order_by("acknowledged_at", "id")):
            mine = earlier.setdefault(done.identity, {})
            mine.setdefault(done.fingerprint, done)
            mine[None] = done
    for row in rows:
        mine = earlier.get(row.identity)
        if not mine:
            continue
        same = mine.get(row.fingerprint)
        if same is not None:
            row.acknowledged_at, row.acknowledged_by = same.acknowledged_at, same.acknowledged_by
            row.acknowledgement_reason = same.acknowledgement_reason
            row.acknowledgement_of_id = same.pk
            continue
        if several[row.identity] > 1:
            continue  # the rule found more than one thing here (say two bonus bets): which one changed is unknown
        latest = mine[None]
        when = timezone.localtime(latest.acknowledged_at)
        row.changes = (f"Acknowledged on {when:%Y-%m-%d} by {latest.acknowledged_by} "
                       f"(\u201c{latest.acknowledgement_reason}\u201d); since then "
                       f"{identity.changes(latest.facts, row.facts) or 'the facts judged changed'}.")


def _check_tables(recorder, tables, day, at):
    catalog = recorder.catalog
    for posting in current_postings(tables, at):
        recorder.run.postings_checked += 1
        facts = posting_facts(posting, day, catalog)
        for finding in check_posting(facts, catalog.params):
            recorder.add(finding, table=posting.table, posting=posting, establishment=posting.table.establishment,
                         judged=identity.posting_facts(facts))
    approvals = [a for items in catalog.approvals.values() for a in items]
    for finding in lint_approvals(approvals, _table_facts(tables, catalog), day):
        if finding.subject.get("type") == "table":
            recorder.add(finding)
    _check_rounds(recorder, tables, day)


def _check_rounds(recorder, tables, day):
    """Rules over the rounds recorded at each table on gaming day ``day`` (player-dealer rotation)."""
    for table, rounds in table_rounds(tables, day):
        for finding in rule_player_dealer_rotation(rounds, recorder.catalog.params):
            recorder.add(finding, table=table, establishment=table.establishment)


def _lint_versions(recorder, versions):
    documents = [document_facts(v) for v in versions]
    recorder.run.options_linted += sum(len(d.options) for d in documents)
    for finding in lint_documents(documents):
        recorder.add(finding)


def _moment(day):
    """End of ``day`` in the service's time zone: the postings shown that day, latest first."""
    end = datetime.datetime.combine(day, datetime.time.max)
    return timezone.make_aware(end) if timezone.is_naive(end) else end


def _tables(queryset):
    return list(queryset.filter(active=True).select_related("establishment__jurisdiction", "game"))


@transaction.atomic
def run_establishment(establishment, *, as_of=None, user=None, trigger=ValidationRun.Trigger.ON_DEMAND):
    day = as_of or timezone.localdate()
    run = ValidationRun.objects.create(kind=ValidationRun.Kind.ESTABLISHMENT, establishment=establishment,
                                       as_of=day, started_by=user, trigger=trigger)
    recorder = _Recorder(run, Catalog())
    _check_tables(recorder, _tables(Table.objects.filter(establishment=establishment)), day, _moment(day))
    approvals = [a for items in recorder.catalog.approvals.values() for a in items
                 if a.establishment == establishment.slug
                 or (a.establishment is None and a.jurisdiction == establishment.jurisdiction.code)]
    for finding in lint_approvals(approvals, [], day):
        recorder.add(finding, establishment=establishment)
    for finding in house_edge_findings(game_checks.stated_edges([a.key for a in approvals])):
        recorder.add(finding, establishment=establishment)
    return recorder.save()


@transaction.atomic
def run_schedule(version, *, as_of=None, user=None, trigger=ValidationRun.Trigger.ON_DEMAND):
    """Lint one schedule version, and compare it with every other published version in force."""
    day = as_of or timezone.localdate()
    run = ValidationRun.objects.create(kind=ValidationRun.Kind.SCHEDULE, schedule_version=version, as_of=day,
                                       started_by=user, trigger=trigger)
    recorder = _Recorder(run, Catalog())
    facts, found = schedule_findings(version)
    recorder.run.options_linted = len(facts.options)
    for finding in found:
        recorder.add(finding)
    return recorder.save()


def schedule_findings(version):
    """(DocumentFacts, findings) of one version, published or draft: its options' lint, and its consistency with
    every other published version. Saves nothing: ``run_schedule`` stores these, the publish page shows them."""
    from .rules.lint import lint_consistency, lint_option

    others = [v for v in published_versions() if v.pk != version.pk]
    documents = [document_facts(version)]
    found = []
    for option in documents[0].options:
        found.extend(lint_option(documents[0].code, documents[0].version, option))
    mine = (documents[0].code, documents[0].version)
    for finding in lint_consistency(documents + [document_facts(v) for v in others]):
        other = finding.subject.get("other", {})
        if (finding.subject["schedule"], finding.subject["version"]) == mine or \
                (other.get("schedule"), other.get("version")) == mine:
            found.append(finding)
    return documents[0], found


def preview_version(version, *, tables, at=None):
    """What publishing ``version`` (a draft) would raise, saving nothing: its schedule findings, and the
    findings of the postings in force at ``tables`` that use its schedule, checked against it as of the day it
    takes effect (today when that is earlier). Returns {"as_of", "lint", "postings": [(posting, findings)]}."""
    at = at or timezone.now()
    today = timezone.localdate(at)
    day = max(version.effective_from or today, today)
    _, lint = schedule_findings(version)
    catalog = Catalog()
    schedule = catalog.schedule(version.document, version)
    checked = []
    for posting in current_postings(tables, at):
        if posting.schedule_id != version.document_id:
            continue
        facts = dataclasses.replace(posting_facts(posting, day, catalog), schedule=schedule)
        checked.append((posting, check_posting(facts, catalog.params)))
    return {"as_of": day, "lint": lint, "postings": checked}


@transaction.atomic
def run_posting(posting, *, user=None):
    """Check one table posting as it is saved, as of the day it takes effect; the run is kept with the posting."""
    day = timezone.localdate(posting.effective_from)
    establishment = posting.table.establishment
    run = ValidationRun.objects.create(kind=ValidationRun.Kind.POSTING, posting=posting, establishment=establishment,
                                       as_of=day, started_by=user)
    recorder = _Recorder(run, Catalog())
    run.postings_checked = 1
    facts = posting_facts(posting, day, recorder.catalog)
    for finding in check_posting(facts, recorder.catalog.params):
        recorder.add(finding, table=posting.table, posting=posting, establishment=establishment,
                     judged=identity.posting_facts(facts))
    return recorder.save()


def published_versions():
    return list(ScheduleVersion.objects.filter(status=ScheduleVersion.Status.PUBLISHED)
                .select_related("document__jurisdiction", "document__establishment", "document__source")
                .order_by("document__code", "number"))


@transaction.atomic
def run_everything(*, as_of=None, user=None, trigger=ValidationRun.Trigger.ON_DEMAND):
    day = as_of or timezone.localdate()
    run = ValidationRun.objects.create(kind=ValidationRun.Kind.EVERYTHING, as_of=day, started_by=user,
                                       trigger=trigger)
    recorder = _Recorder(run, Catalog())
    tables = _tables(Table.objects.all())
    _check_tables(recorder, tables, day, _moment(day))
    approvals = [a for items in recorder.catalog.approvals.values() for a in items]
    for finding in lint_approvals(approvals, [], day):
        recorder.add(finding)
    for finding in house_edge_findings(game_checks.stated_edges()):
        recorder.add(finding)
    _lint_versions(recorder, published_versions())
    return recorder.save()


def lint_all(as_of=None):
    """Findings (not stored) of the lint over every published version: for the command and the benchmark."""
    return lint_documents([document_facts(v) for v in published_versions()])
