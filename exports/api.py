"""Requesting audit exports (docs/exports.md). Progress and the download are the job's (``/api/v1/jobs/``)."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from cardroom.access import scope_of
from cardroom.api.jobs import JobSerializer

from .requests import read_request, start_export


class ExportView(APIView):
    permission_names = {"post": "exports.request_export"}  # and again for the place asked (exports.requests)

    @extend_schema(
        request=inline_serializer("ExportInput", {
            "establishment": serializers.CharField(required=False),
            "jurisdiction": serializers.CharField(required=False),
            "from": serializers.DateField(required=False), "to": serializers.DateField(required=False),
            "as_of": serializers.DateField(required=False),
        }),
        responses={202: JobSerializer},
    )
    def post(self, request):
        """Start an audit export of an establishment (compliance officers, regulators) or a whole jurisdiction
        (regulators) for a period (``from``/``to``, inclusive) or ``as_of`` a day. Answers 202 with the job:
        follow it at ``/api/v1/jobs/{uuid}/`` and download the bundle from its ``download`` link."""
        scope = scope_of(request)
        export_scope = read_request(request.data, scope=scope)
        job = start_export(request.user, export_scope=export_scope)
        return Response(JobSerializer(job, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)
