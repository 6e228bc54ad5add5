"""Submitting the signed checkpoints to witnesses and keeping their cosignatures (docs/audit.md, "Submitting to
witnesses"; C2SP tlog-witness, ``cardroom.tlog.cosignature``).

A witness cosigns a checkpoint once it has checked that the tree is consistent with the last one it cosigned of the
same log: so the log cannot show one regulator a tree and another a different one without a witness noticing. Each
witness of ``settings.WITNESSES`` gets, for each chain, its newest signed checkpoint (the hourly beat,
``cardroom.tasks.sign_checkpoints``) and every export's (``cardroom.transparency.export_files``), with the
consistency proof from the size it last cosigned of that chain (0 at first). On a 409 the witness says which size it
holds: the request is made again, once, from that size when this log holds it (the witness judges whether the tree
it holds is ours). The answer's cosignature is verified with the witness's configured key and stored
(``CheckpointCosignature``); the export's checkpoint files carry it appended (``cosigned``).

A witness that refuses (403, 404, 422, a 409 from a size this log never signed, an answer that is not its
cosignature) is an error in the inbox of the compliance officers and administrators (the kinds registered below,
``register``) and in the audit log, until it cosigns again; one that is down (no answer, a timeout, a 5xx) is a
warning once it has been down longer than ``WITNESS_DOWN_WARNING_AFTER`` hours. Neither fails the export or the
beat: the checkpoint is carried without that cosignature. Refusals are not retried away: the next hour asks again,
and the error stands until the witness cosigns.

Nothing is logged when a witness cosigns as expected (each entry would grow the installation's chain, which would
be signed and submitted again the next hour): only a refusal, a witness down past the warning, and its return.
"""

import datetime
import logging
import urllib.error
import urllib.request
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from . import links, merkle
from .inbox import Awaiting
from .registry import InboxKind
from .models import AuditCheckpoint, CheckpointCosignature, WitnessState
from .tlog import cosignature
from .tlog.witnessed import Witness

logger = logging.getLogger(__name__)

COSIGNED, REFUSED, DOWN, BEHIND = "cosigned", "refused", "down", "behind"


def configured():
    """The witnesses of ``settings.WITNESSES`` (read and checked at start-up)."""
    return [Witness(w["name"], cosignature.read_verifier_key(w["verifier_key"])[1], w["verifier_key"], w["url"])
            for w in settings.WITNESSES]


# -- the exchange ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    text: str


class Unanswered(Exception):
    """The witness did not answer: no connection, a timeout."""


def post(url, body, timeout):
    """POST ``body`` (text) to ``url``: the witness's Answer, whatever its status; Unanswered when there is none."""
    request = urllib.request.Request(url, data=body.encode(), method="POST",
                                     headers={"Content-Type": "text/plain; charset=utf-8",
                                              "User-Agent": "cardroom-witness-client"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (configured http(s) URLs)
            return Answer(response.status, response.headers.get("Content-Type", ""), _read(response))
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.headers.get("Content-Type", "") if error.headers else "", _read(error))
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise Unanswered(str(getattr(error, "reason", error))) from None


def _read(response):
    return response.read(64 * 1024).decode("utf-8", "replace")


@dataclass(frozen=True)
class Outcome:
    witness: str
    result: str  # COSIGNED, REFUSED, DOWN or BEHIND (the witness cosigned a larger tree already: nothing to ask)
    detail: str
    cosignature: CheckpointCosignature | None = None


def submit(signed, leaves, witness, transport=None):
    """Ask ``witness`` to cosign the stored checkpoint ``signed``, whose chain's first entries are ``leaves`` (at
    least ``signed.size`` of them); its cosignature is stored and its state kept (``WitnessState``). An Outcome."""
    transport = transport or post
    held = cosignatures_of(signed).filter(witness=witness.name).first()
    if held is not None:
        return _record(witness, Outcome(witness.name, COSIGNED, "cosigned already", held))
    last = (CheckpointCosignature.objects.filter(witness=witness.name, checkpoint__chain=signed.chain)
            .aggregate(size=Max("checkpoint__size"))["size"] or 0)
    if last > signed.size:
        return Outcome(witness.name, BEHIND, f"it cosigned {last} entries of {signed.chain} already")
    try:
        outcome, answer = _ask(signed, leaves, witness, last, transport)
        if outcome is None:  # 409: the witness holds another size
            outcome = _after_conflict(signed, leaves, witness, transport, answer)
    except Unanswered as error:
        outcome = Outcome(witness.name, DOWN, f"no answer from {witness.url}: {error}")
    return _record(witness, outcome)


def _ask(signed, leaves, witness, old, transport):
    """One add-checkpoint request from size ``old``: (Outcome, answer), the Outcome None when it answered 409."""
    proof = merkle.consistency_proof(leaves[:signed.size], old) if 0 < old < signed.size else []
    answer = transport(f"{witness.url}/add-checkpoint", cosignature.request_text(old, proof, signed.note),
                       settings.WITNESS_TIMEOUT)
    what = f"the checkpoint of {signed.size} entries of {signed.chain} (from {old})"
    if answer.status == 200:
        return _cosigned(signed, witness, answer, what), answer
    if answer.status == 409:
        return None, answer
    said = f"it answered {answer.status} to {what}: {_said(answer.text)}"
    return Outcome(witness.name, REFUSED if 400 <= answer.status < 500 else DOWN, said), answer


def _after_conflict(signed, leaves, witness, transport, answer):
    """After a 409: the request made again, once, from the size the witness says it holds, when this log holds a
    tree of that size to prove from (the witness judges whether it is the one it cosigned)."""
    size = _size_of(answer)
    if size is None:
        return Outcome(witness.name, REFUSED, f"it answered 409 to {signed.chain} without the size it holds: "
                                              f"{_said(answer.text)}")
    largest = AuditCheckpoint.objects.filter(chain=signed.chain).aggregate(size=Max("size"))["size"] or 0
    if size > largest:
        return Outcome(witness.name, REFUSED, f"it holds {size} entries of {signed.chain}, a tree this log never "
                                              f"signed (it has signed up to {largest} entries): another view of the "
                                              "log, or another log of the same name")
    if size > signed.size:
        return Outcome(witness.name, BEHIND, f"it holds {size} entries of {signed.chain} already")
    outcome, answer = _ask(signed, leaves, witness, size, transport)
    if outcome is None:
        return Outcome(witness.name, REFUSED, f"it answered 409 again to {signed.chain}, asked from the size it said "
                                              f"it holds ({size}): {_said(answer.text)}")
    return outcome


def _size_of(answer):
    text = answer.text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) < 20 else None


def _said(text):
    text = " ".join(text.split())
    return (text[:300] + "…") if len(text) > 300 else (text or "(nothing)")


def _cosigned(signed, witness, answer, what):
    """The Outcome of a 200: its cosignature by the configured key, verified and stored; a refusal otherwise."""
    try:
        lines = cosignature.response_lines(answer.text)
        found = cosignature.cosignature_of(cosignature.with_cosignatures(signed.note, lines), witness.name,
                                           witness.public_key)
    except cosignature.CosignatureError as error:
        return Outcome(witness.name, REFUSED, f"its answer to {what} is no good cosignature: {error}")
    if found is None:
        return Outcome(witness.name, REFUSED, f"its answer to {what} carries no cosignature of its configured key "
                                              f"({witness.verifier_key})")
    row, _ = CheckpointCosignature.objects.get_or_create(
        checkpoint=signed, witness=witness.name, key_id=cosignature.key_id(witness.name, witness.public_key).hex(),
        defaults={"timestamp": found.timestamp, "line": found.line, "received_at": timezone.now()})
    return Outcome(witness.name, COSIGNED, f"cosigned {what}", row)


# -- what each witness's answers leave standing ---------------------------------------------------------------------

def _record(witness, outcome):
    """The witness's state after ``outcome``; the audit log and the server's log told when it changes."""
    from .audit import log_action

    now = timezone.now()
    state, _ = WitnessState.objects.get_or_create(witness=witness.name)
    changed = []
    if outcome.result == COSIGNED:
        if state.refused_at or state.down_since:
            log_action("audit.witness_back", actor_label="witnesses", data={
                "witness": witness.name, "was": "refusing" if state.refused_at else "down",
                "since": (state.refused_at or state.down_since).isoformat()})
            logger.warning("The witness %s cosigns again.", witness.name)
        state.cosigned_at, state.down_since, state.down_reason, state.down_logged = now, None, "", False
        state.refused_at, state.refusal = None, ""
        changed = ["cosigned_at", "down_since", "down_reason", "down_logged", "refused_at", "refusal"]
    elif outcome.result == REFUSED:
        logger.error("The witness %s refused: %s", witness.name, outcome.detail)
        if state.refused_at is None:
            log_action("audit.witness_refused", actor_label="witnesses",
                       data={"witness": witness.name, "refusal": outcome.detail})
            state.refused_at = now
        state.refusal = outcome.detail
        state.down_since, state.down_reason, state.down_logged = None, "", False  # it answered
        changed = ["refused_at", "refusal", "down_since", "down_reason", "down_logged"]
    elif outcome.result == DOWN:
        logger.warning("The witness %s is down: %s", witness.name, outcome.detail)
        state.down_since = state.down_since or now
        state.down_reason = outcome.detail
        changed = ["down_since", "down_reason"]
        if not state.down_logged and state.down_since <= now - down_warning_after():
            log_action("audit.witness_down", actor_label="witnesses", data={
                "witness": witness.name, "since": state.down_since.isoformat(), "reason": outcome.detail})
            state.down_logged = True
            changed.append("down_logged")
    if changed:
        state.save(update_fields=changed)
    return outcome


def down_warning_after():
    return datetime.timedelta(hours=settings.WITNESS_DOWN_WARNING_AFTER)


# -- the doors: the beat and the exports ------------------------------------------------------------------------------

def witness(signed, leaves, transport=None, down=None):
    """Submit ``signed`` to every configured witness; never raises for a witness (an export or the beat goes on
    without its cosignature). ``down``: a set of the witnesses found down by earlier calls of the same export or
    beat, not asked again (each would wait its timeout once per chain); those found down are added. [Outcome]."""
    outcomes = []
    for w in configured():
        if down is not None and w.name in down:
            continue
        try:
            outcome = submit(signed, leaves, w, transport)
        except Exception as error:  # a bug or a database hiccup here must not fail an export
            logger.exception("Submitting %s to the witness %s failed", signed, w.name)
            outcome = Outcome(w.name, DOWN, f"the submission failed here: {error}")
        if down is not None and outcome.result == DOWN:
            down.add(w.name)
        outcomes.append(outcome)
    return outcomes


def pending():
    """The newest signed checkpoint of each chain that some configured witness has not cosigned (the beat's)."""
    names = [w["name"] for w in settings.WITNESSES]
    if not names:
        return []
    newest = []
    for chain in AuditCheckpoint.objects.filter(size__gt=0).order_by("chain").values_list("chain", flat=True).distinct():
        signed = AuditCheckpoint.objects.filter(chain=chain).order_by("-size", "-signed_at").first()
        done = set(cosignatures_of(signed).values_list("witness", flat=True))
        if set(names) - done:
            newest.append(signed)
    return sorted(newest, key=lambda c: c.chain)


# -- reading them back ------------------------------------------------------------------------------------------------

def cosignatures_of(signed):
    """The stored cosignatures of ``signed``'s body (its chain, size and root), whichever note of it they were asked
    with."""
    return CheckpointCosignature.objects.filter(
        checkpoint__chain=signed.chain, checkpoint__size=signed.size, checkpoint__root_hash=signed.root_hash
    ).order_by("witness", "timestamp")


def cosigned(signed, note=None):
    """``note`` (by default the checkpoint's own) with the stored cosignatures of its body appended."""
    lines = [c.line for c in cosignatures_of(signed)]
    note = note if note is not None else signed.note
    return cosignature.with_cosignatures(note, lines) if lines else note


def latest_by_witness(chain):
    """[(witness, CheckpointCosignature or None)]: each configured witness's latest cosignature of ``chain``."""
    out = []
    for w in settings.WITNESSES:
        row = (CheckpointCosignature.objects.filter(witness=w["name"], checkpoint__chain=chain)
               .select_related("checkpoint").order_by("-checkpoint__size", "-timestamp").first())
        out.append((w["name"], row))
    return out


def moment(timestamp):
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC)


# -- the inbox: a refusal is an error, a witness down too long a warning ----------------------------------------------

REFUSED_KIND, DOWN_KIND = "witness_refused", "witness_down"


def _standing(kind):
    names = [w["name"] for w in settings.WITNESSES]
    states = WitnessState.objects.filter(witness__in=names)
    if kind == REFUSED_KIND:
        return states.filter(refused_at__isnull=False)
    return states.filter(refused_at__isnull=True, down_since__lte=timezone.now() - down_warning_after())


def _items(kind):
    def items(pks, user, scope, establishment):
        path = links.ROOM.path(room=establishment.slug) if establishment is not None else links.HOME.path()
        out = []
        for state in WitnessState.objects.filter(pk__in=pks):
            if kind == REFUSED_KIND:
                out.append(Awaiting(kind, f"the witness {state.witness} refused to cosign: {state.refusal}. Until "
                                          "it cosigns again, the exports carry no cosignature of it.",
                                    state.witness, state.refused_at, path, None))
            else:
                out.append(Awaiting(kind, f"the witness {state.witness} has not answered since "
                                          f"{state.down_since:%Y-%m-%d %H:%M} UTC ({state.down_reason}); the "
                                          "exports carry no cosignature of it.",
                                    state.witness, state.down_since, path, None))
        return out
    return items


def _kind(name, label):
    return InboxKind(
        name=name, label=label, waiting=lambda user, scope, establishment: _standing(name), items=_items(name),
        what=lambda state: f"the witness {state.witness}", path=lambda state: links.HOME.path(),
        approvers=lambda state: [], role=lambda state: "compliance officer or administrator",
        asked=lambda state: (None, state.refusal or state.down_reason), answered=lambda state: (None, ""),
        outcomes=("cosigns again", "stays"), alert=True)


# The inbox's two kinds (compliance officers' and administrators'), until the witness cosigns again: an error when it
# refused, a warning when it has been down too long (registered in CardroomConfig.ready).
INBOX_KINDS = (_kind(REFUSED_KIND, "Error: a witness refused"), _kind(DOWN_KIND, "Warning: a witness is down"))
