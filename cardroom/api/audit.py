"""The audit log's signed checkpoints and proofs, for outsiders to check it (docs/audit.md, ``cardroom.tlog``).

``GET audit/keys`` is public: the keys are what a verifier trusts. The rest needs a user who may read the chain: an
establishment's chain, its staff, its jurisdiction's regulators and administrators; the installation's chain,
regulators and administrators. Proofs answer in their text formats (text/plain), ready to save and check offline.
"""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from cardroom import chain as hashchain
from cardroom import permissions
from cardroom import transparency
from cardroom.access import scope_of
from cardroom.api.schema import may_conflict
from cardroom.models import Establishment

MAX_SIZE = 10**15
TEXT = {(200, "text/plain"): OpenApiTypes.STR, 404: OpenApiResponse(description=(
    "No such chain among those you may read, or no such entry or size in it."))}
REWRITTEN = ("the chain no longer agrees with a checkpoint already signed (it was rewritten), or the log's name "
             "(AUDIT_LOG_ORIGIN) is not the one its checkpoints were signed under; nothing is signed")
CHAIN = OpenApiParameter("chain", str, required=True, description=(
    "The chain: an establishment's slug, 'establishment:<id>', or 'installation'."))


class KeysView(APIView):
    permission_classes = [AllowAny]
    permission_names = {"*": permissions.PUBLIC}  # what a verifier trusts: anyone fetches it
    authentication_classes = []

    @extend_schema(responses=inline_serializer("AuditKeys", {"root": serializers.CharField(help_text=(
        "The fingerprint of the first key, the root of trust: keep it, and give it to the verifier (--trust).")),
        "origin": serializers.CharField(help_text=(
            "The log's name (AUDIT_LOG_ORIGIN): its checkpoints' origins are <origin>/installation and "
            "<origin>/establishment:<id>. Keep it with the root, and give it to the verifier (--origin): a checkpoint "
            "of any other origin, however well signed, is another log's.")),
        "keys": serializers.ListField(child=inline_serializer("AuditKey", {
            "name": serializers.CharField(), "key_id": serializers.CharField(), "algorithm": serializers.CharField(),
            "public_key": serializers.CharField(help_text="Base64 of the raw 32-byte Ed25519 public key."),
            "verifier_key": serializers.CharField(help_text="<name>+<hex key id>+<base64>, as signed notes use."),
            "fingerprint": serializers.CharField(),
            "valid_from": serializers.DateTimeField(),
            "valid_until": serializers.DateTimeField(allow_null=True, help_text="Empty for the key in use."),
            "endorsement": inline_serializer("AuditKeyEndorsement", {
                "by": serializers.CharField(help_text="The fingerprint of the key it replaced."),
                "signature": serializers.CharField(help_text="Base64 of that key's Ed25519 signature over the "
                                                             "endorsement statement (docs/audit.md)."),
            }, allow_null=True, help_text="Empty for the root."),
        }))}))
    def get(self, request):
        """Every key this installation trusts to sign checkpoints and export manifests, the rotated ones too, with
        when each was in use and the endorsement of the key before it, and the log's name (no login needed). Save the
        answer: ``python -m cardroom.tlog --keys`` reads it; keep the root's fingerprint (``--trust``) and the log's
        origin (``--origin``)."""
        return Response(transparency.keys_file())


def _count(minimum):
    return serializers.IntegerField(min_value=minimum, max_value=MAX_SIZE, required=False)


# Built with type(): one parameter is called "from", which a class body cannot name.
_Params = type("_Params", (serializers.Serializer,), {
    "chain": serializers.RegexField(r"^[A-Za-z0-9:_-]{1,80}$", error_messages={
        "invalid": "A chain is an establishment's slug, 'establishment:<id>' or 'installation'."}),
    "sequence": _count(1), "size": _count(0), "from": _count(1), "to": _count(1)})


class _ChainView(APIView):
    permission_names = {"get": "cardroom.view_records"}  # a chain you may not read is a 404, as if none
    required = ()

    def get(self, request):
        params = _Params(data=request.query_params.dict())
        params.is_valid(raise_exception=True)
        values = params.validated_data
        missing = [name for name in self.required if name not in values]
        if missing:
            raise exceptions.ValidationError({name: ["This parameter is required."] for name in missing})
        chain = self.chain(request, values["chain"])
        try:
            text = self.answer(chain, values)
        except transparency.UnknownChain as error:
            raise exceptions.NotFound(str(error)) from None
        return HttpResponse(text, content_type="text/plain; charset=utf-8")

    def chain(self, request, name):
        """The chain's name, once the user may read it; 404 when it does not exist or is not theirs to see."""
        scope = scope_of(request)
        if name == hashchain.INSTALLATION:
            if scope.is_admin or scope.regulated_jurisdictions:
                return name
            raise exceptions.NotFound("There is no such audit chain you may read.")
        prefix, _, number = name.partition(":")
        places = Establishment.objects.filter(scope.establishments_q())
        place = (places.filter(pk=number).first() if prefix == "establishment" and number.isdigit()
                 else places.filter(slug=name).first())
        if place is None:
            raise exceptions.NotFound("There is no such audit chain you may read.")
        return hashchain.chain_name(place.pk)


class CheckpointView(_ChainView):
    @may_conflict(REWRITTEN, methods=("GET",))
    @extend_schema(parameters=[CHAIN, OpenApiParameter("size", int, description=(
        "Entries the checkpoint covers (the chain's head when left out)."))], responses=TEXT)
    def get(self, request):
        """A signed checkpoint of the chain (C2SP tlog-checkpoint in a signed note): its size and Merkle tree head.
        Keep it: a later consistency proof from it shows the log was only appended to since. 409 when the chain no
        longer agrees with a checkpoint already signed."""
        return super().get(request)

    def answer(self, chain, values):
        return transparency.sign(chain, size=values.get("size")).note


class ProofView(_ChainView):
    required = ("sequence",)

    @may_conflict(REWRITTEN, methods=("GET",))
    @extend_schema(parameters=[CHAIN, OpenApiParameter("sequence", int, required=True, description=(
        "The entry's position in its chain (from 1).")), OpenApiParameter("size", int, description=(
            "Prove it under the checkpoint of this many entries (the head when left out)."))], responses=TEXT)
    def get(self, request):
        """An entry's inclusion proof in the C2SP tlog-proof shape: the entry's canonical bytes (``extra``), its
        index, the audit path and the signed checkpoint. ``python -m cardroom.tlog entry`` checks it offline."""
        return super().get(request)

    def answer(self, chain, values):
        return transparency.inclusion(chain, values["sequence"], values.get("size"))


class ConsistencyView(_ChainView):
    required = ("from",)

    @may_conflict(REWRITTEN, methods=("GET",))
    @extend_schema(parameters=[CHAIN, OpenApiParameter("from", int, required=True, description=(
        "The size of the checkpoint you kept.")), OpenApiParameter("to", int, description=(
            "The size of the newer checkpoint (the head when left out)."))], responses=TEXT)
    def get(self, request):
        """The proof that the chain's tree of ``to`` entries holds the one of ``from`` entries unchanged, followed
        by the newer signed checkpoint. ``python -m cardroom.tlog consistency`` checks it against the one you kept."""
        return super().get(request)

    def answer(self, chain, values):
        return transparency.consistency(chain, values["from"], values.get("to"))
