"""The witness's HTTP doors (C2SP tlog-witness), plain Django views answering plain text:

- ``POST /witness/add-checkpoint``: the submission prefix is /witness; no login, no CSRF token (a log's client
  posts a signed checkpoint, the only authentication the spec has);
- ``GET /witness/<sha256 hex of an origin>/checkpoint``: the monitoring read, the latest checkpoint cosigned;
- ``GET /witness/key``: the witness's verifier key, for a room's administrator to configure.

All answer 404 when this installation is no witness (WITNESS_NAME empty)."""

import re

from django.http import HttpResponse, HttpResponseNotAllowed
from django.views.decorators.csrf import csrf_exempt

from .. import permissions
from . import keys, selectors, services

# A request is an old size line, at most 63 proof lines of 45 bytes and a checkpoint with its signatures
# (signed-note asks verifiers to take at least 16; a post-quantum one is near 5 kB): 128 KiB is room for all.
MAX_REQUEST_BYTES = 128 * 1024
NOT_A_WITNESS = "This installation is not a witness.\n"


def _text(status, body, content_type=services.TEXT):
    response = HttpResponse(body, status=status, content_type=content_type)
    response["Cache-Control"] = "no-store"
    return response


@permissions.public
@csrf_exempt
def add_checkpoint(request):
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    answer = services.add_checkpoint(body=request.body)
    return _text(answer.status, answer.body, answer.content_type)


add_checkpoint.max_body_bytes = MAX_REQUEST_BYTES  # cardroom.middleware: larger bodies are refused (413) unread


@permissions.public
def checkpoint(request, origin_hash):
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    if not keys.enabled():
        return _text(404, NOT_A_WITNESS)
    note = selectors.latest_checkpoint(origin_hash) if re.fullmatch(r"[0-9a-f]{64}", origin_hash) else None
    if note is None:
        return _text(404, "This witness has cosigned no checkpoint of that log (the address is the SHA-256 of its "
                          "origin, in lower-case hex).\n")
    return _text(200, note)


@permissions.public
def key(request):
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    if not keys.enabled():
        return _text(404, NOT_A_WITNESS)
    return _text(200, keys.verifier_key() + "\n")
