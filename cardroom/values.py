"""Reading single values from JSON requests, with one wording for every endpoint.

Plain Python. Each function returns the value or raises ``Invalid`` with a phrase such as "must be a date
written YYYY-MM-DD, not 'x'."; the caller puts the field's name in front and raises its own error type.
"""

import datetime

MOMENT_EXAMPLE = "2026-11-21T20:00:00-08:00"


class Invalid(ValueError):
    pass


def day(value):
    """A date written YYYY-MM-DD."""
    if not isinstance(value, str):
        raise Invalid(f"must be a date written YYYY-MM-DD, not {value!r}.")
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise Invalid(f"must be a date written YYYY-MM-DD, not {value!r}.") from None


def moment(value, example=MOMENT_EXAMPLE):
    """A date and time with its UTC offset (a naive time would be ambiguous across time zones)."""
    if not isinstance(value, str):
        raise Invalid(f"must be a date and time like {example}, not {value!r}.")
    try:
        parsed = datetime.datetime.fromisoformat(value)
    except ValueError:
        raise Invalid(f"must be a date and time like {example}, not {value!r}.") from None
    if parsed.tzinfo is None:
        raise Invalid(f"must include its time zone offset, e.g. {example}.")
    return parsed


def whole(value):
    """A whole number (JSON booleans are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"must be a whole number, not {value!r}.")
    return value
