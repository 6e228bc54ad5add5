from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from cardroom import generation, values
from cardroom.access import remembered_scope
from cardroom.authentication import RememberedTokenAuthentication, TokenAuthentication
from fees.quotes import quoting, receipts

EXAMPLES = [
    OpenApiExample("California game", request_only=True, value={
        "schedule": "GEGA-002888", "option": 43, "as_of": "2026-11-21",
        "wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p1", "base": "20"},
                   {"player": "p2", "base": "40", "backline": True}],
    }),
    OpenApiExample("California game, with its receipt", request_only=True, value={
        "schedule": "GEGA-002888", "option": 43, "as_of": "2026-11-21", "receipt": True,
        "wagers": [{"player": "p1", "base": "150", "bonus": "25"}, {"player": "p2", "base": "40"}],
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
    """What is owed for a hand, a round or a half-hour, with the work shown (document, version, option, tiers).

    With ``"receipt": true`` the answer also carries ``receipt``: the quote's inputs and outputs, the engine
    version and the schedule version with the hash of its content, hashed as a whole; ``python manage.py
    replay_receipt`` checks it later (docs/receipts.md)."""

    permission_names = {"post": "cardroom.view_records"}  # a quote reads published schedules: anyone signed in
    # The project's, the token's remembered per process (cardroom.generation): a quote reads the generation number
    # once and, for a schedule, token and person already seen, nothing else.
    authentication_classes = [RememberedTokenAuthentication if door is TokenAuthentication else door
                              for door in api_settings.DEFAULT_AUTHENTICATION_CLASSES]

    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT, examples=EXAMPLES)
    def post(self, request):
        data = request.data
        wants_receipt = False
        if isinstance(data, dict) and "receipt" in data:
            data = {key: value for key, value in data.items() if key != "receipt"}
            wants_receipt = values.named("receipt", values.flag, request.data["receipt"])
        memory = generation.of_request(request)
        body = quoting.quote_request(data, today=timezone.localdate(), scope=remembered_scope(request.user, memory),
                                     memory=memory)
        if wants_receipt:
            body["receipt"] = receipts.quote_receipt(data, body, user=request.user)
        return Response(body)
