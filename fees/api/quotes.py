from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import APIView

from cardroom.access import scope_of
from fees import quoting
from fees.engine import QuoteError

EXAMPLES = [
    OpenApiExample("California game", request_only=True, value={
        "schedule": "GEGA-002888", "option": 43, "as_of": "2026-11-21",
        "wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p1", "base": "20"},
                   {"player": "p2", "base": "40", "backline": True}],
    }),
    OpenApiExample("Poker hand", request_only=True, value={
        "schedule": "GEGA-000697", "option": 1, "players": 6, "reached_flop": True, "reached_river": False,
    }),
    OpenApiExample("Time collection", request_only=True, value={
        "schedule": "GEGA-000702", "option": 1, "game_started_at": "2026-11-21T20:00:00-08:00",
        "game_ended_at": "2026-11-21T21:30:00-08:00",
        "players": [{"player": "a", "seated_from": "2026-11-21T20:00:00-08:00",
                     "seated_to": "2026-11-21T21:30:00-08:00"}],
    }),
]


class QuoteView(APIView):
    """What is owed for a hand, a round or a half-hour, with the work shown (document, version, option, tiers)."""

    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT, examples=EXAMPLES)
    def post(self, request):
        try:
            body = quoting.quote_request(request.data, today=timezone.localdate(), scope=scope_of(request))
        except QuoteError as exc:
            raise exceptions.ValidationError({"detail": str(exc)}) from None
        return Response(body)
