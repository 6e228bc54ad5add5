"""The installation's public key, and checking an audit export bundle over the API (docs/exports.md)."""

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from cardroom import keys, permissions
from cardroom.api.jobs import JobSerializer

from . import tasks, verification


class PublicKeyView(APIView):
    """The key that verifies this installation's export bundles: public, so anyone holding a bundle can check it."""

    permission_classes = [AllowAny]
    permission_names = {"*": permissions.PUBLIC}
    authentication_classes = []

    @extend_schema(
        responses=inline_serializer("ExportPublicKey", {
            "algorithm": serializers.CharField(),
            "public_key_pem": serializers.CharField(),
            "public_key": serializers.CharField(help_text="Base64 of the raw 32-byte Ed25519 public key."),
            "fingerprint": serializers.CharField(help_text="SHA256:<hex of SHA-256 over the raw public key>."),
        }),
    )
    def get(self, request):
        """The Ed25519 public key that signs this installation's audit export bundles (no login needed)."""
        return Response({
            "algorithm": "Ed25519",
            "public_key_pem": keys.public_key_pem(),
            "public_key": keys.public_key_base64(),
            "fingerprint": keys.key_fingerprint(),
        })


def _public_key_of(request):
    """The key to verify against: the one uploaded or given as text, else this installation's."""
    return verification.public_key_from(request.FILES.get("public_key"), request.data.get("public_key"))


class VerifyView(APIView):
    permission_names = {"post": "exports.verify_bundle"}
    parser_classes = [MultiPartParser]
    max_body_bytes = settings.EXPORT_VERIFY_MAX_BYTES  # a year's bundle; the upload is spooled to disk

    @extend_schema(
        request={"multipart/form-data": {
            "type": "object",
            "properties": {
                "bundle": {"type": "string", "format": "binary", "description": "The bundle (zip) to check."},
                "public_key": {"type": "string", "description": (
                    "Check against this Ed25519 public key (PEM, or base64 of the raw 32 bytes; text or a file) "
                    "instead of this installation's.")},
            },
            "required": ["bundle"],
        }},
        responses={
            202: OpenApiResponse(JobSerializer, description=(
                "The check, queued (kind bundle_verify). Once its status is done, its result holds: ok (boolean), "
                "problems (each naming the file concerned), format (cardroom-audit-bundle/2 or /1, as the manifest "
                "names it, or /3 for a bundle of bundles; null when unreadable), inner and links (a bundle of "
                "bundles: each inner bundle's ok, format, signature, number of problems, period and closed_month "
                "as the outer manifest lists them, and the links between their audit checkpoints that hold; a "
                "problem of an inner bundle or a link is named by it), manifest (as read from the bundle: trust it "
                "only when ok), public_key_fingerprint, installation_key (checked against one of this "
                "installation's keys), origin (checked against this installation's keys: its log's name, "
                "AUDIT_LOG_ORIGIN; a checkpoint of any other origin is a problem naming it; null when checked "
                "against a key given), witnesses (where "
                "witnesses are configured: a line per witness, the checkpoints it cosigned, in a bundle of bundles "
                "named by their inner bundle), "
                "signature (valid, invalid, missing or unchecked) and files (each file's state: ok, altered, "
                "missing, added or unchecked). It is kept small: the first 100 problems and 200 files, each cut at "
                "500 characters, with how many were left out (problems_left_out, files_left_out), and the manifest "
                "when at most 256 kB (manifest_left_out otherwise). Names are shown with control and format "
                "characters escaped (\\n, \\u202e).")),
            400: OpenApiResponse(description="No bundle uploaded, or the public key given is not usable."),
            403: OpenApiResponse(description="Bundles are verified by regulators, compliance officers and "
                                             "administrators."),
            413: OpenApiResponse(description="The upload is over EXPORT_VERIFY_MAX_BYTES."),
        },
    )
    def post(self, request):
        """Check an audit export bundle in the background: every file's SHA-256 and size against the manifest, no
        file missing or added, and the manifest's Ed25519 signature. A bundle past the installation's limits (files,
        sizes, compression) is refused unread, with the reason. Answers 202 with the job: follow it at
        ``/api/v1/jobs/{uuid}/``; its ``result`` says whether the bundle verifies (``ok``) and every problem found.
        The upload is removed once checked; the job is seen only by who asked (and administrators)."""
        upload = request.FILES.get("bundle")
        if upload is None:
            raise exceptions.ValidationError(
                {"bundle": "Upload the bundle (zip) as the multipart form field 'bundle'."}
            )
        job = tasks.start_check(request.user, upload=upload, public_key=_public_key_of(request))
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)
