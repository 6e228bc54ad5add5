"""The API's JSON parser: every body is read through ``cardroom.values.document`` before any view sees it."""

import json

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from cardroom import values


def _refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")


class StrictJSONParser(JSONParser):
    """Standard JSON (no NaN or Infinity), UTF-8, nested at most ``values.MAX_JSON_DEPTH`` deep, and no string
    that no column can store (NUL, lone surrogates). Anything else is a 400 that says what is wrong."""

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ParseError(f"The body is not UTF-8 text: {error.reason} at byte {error.start}.") from None
        try:
            data = json.loads(text, parse_constant=_refuse_constant)
        except RecursionError:
            raise ParseError(f"The body is nested more than {values.MAX_JSON_DEPTH} levels deep.") from None
        except ValueError as error:
            raise ParseError(f"The body is not valid JSON: {error}.") from None
        try:
            # Only an escape can put a NUL or a lone surrogate in a string of valid UTF-8 JSON.
            return values.document(data, escapes="\\u" in text)
        except values.Invalid as error:
            raise ParseError(str(error)) from None
