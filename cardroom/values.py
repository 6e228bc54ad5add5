"""Reading values that come from outside: the one place that says what a valid amount of money, date, moment,
whole number, piece of text or JSON document is.

Every entry point reads through here: the API (``cardroom.api.parsers`` and ``cardroom.api.fields``), the admin
and the pages (``cardroom.forms``), the commands and the seed loader. Plain Python, no Django.

Each reader returns the value or raises ``Invalid`` with a phrase such as "must be a date written YYYY-MM-DD,
not 'x'."; the caller puts the field's name in front (``named`` does: a ``BadInput`` naming the field). The
readers are strict on purpose: a value the database or a later computation cannot hold (a NUL character, year
9999 at -12:00, a lone surrogate, 100,000 nested lists) is refused at the door instead of failing somewhere
deeper.
"""

import datetime
import re
from decimal import Decimal, InvalidOperation

from cardroom.exceptions import BadInput
from cardroom.money import CENT

MOMENT_EXAMPLE = "2026-11-21T20:00:00-08:00"

# Dates and moments are bounded so that every one can be shown in any time zone and compared without overflow
# (year 1 at +14:00 has no UTC equivalent, year 9999 at -12:00 overflows localdate). The sources go back to 1998.
FIRST_DAY = datetime.date(1900, 1, 1)
LAST_DAY = datetime.date(2199, 12, 31)
FIRST_MOMENT = datetime.datetime.combine(FIRST_DAY, datetime.time.min, datetime.UTC)
LAST_MOMENT = datetime.datetime.combine(LAST_DAY, datetime.time.max, datetime.UTC)

MAX_ID = 2**63 - 1  # a database bigint
MAX_WHOLE = 2**63 - 1
MAX_MONEY = Decimal("9999999999.99")  # what a DecimalField(max_digits=12, decimal_places=2) holds
MAX_JSON_DEPTH = 20

# ASCII digits only: no sign, exponent, underscore, fullwidth or Arabic-Indic digits ("1e3", "1_000", "٣").
_DECIMAL = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)
_SIGNED_DECIMAL = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
_MONTH = re.compile(r"[0-9]{4}-(0[1-9]|1[0-2])", re.ASCII)
_MOMENT = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?(?:Z|[+-][0-9]{2}:[0-9]{2})?",
    re.ASCII,
)


class Invalid(BadInput):
    """A reader's refusal: a phrase with no subject yet ("must be a date ..."). A BadInput, so one that escapes is
    still a 400; kept apart so that a caller naming the value catches exactly these, not a service's sentences."""


def named(field, read, value, **options):
    """``read(value, **options)``; a refusal is a BadInput naming ``field``: "as_of must be a date ..."."""
    try:
        return read(value, **options)
    except Invalid as error:
        raise BadInput(f"{field} {error}", field=field) from None


# -- money and decimals ------------------------------------------------------------------------------------------

def money(value, *, maximum=MAX_MONEY):
    """An amount of money: a decimal string such as "12.50" (or a whole number, or a Decimal), never negative,
    at most two decimal places, quantized to the cent. Floats are refused: they cannot hold every cent."""
    return decimal(value, places=2, maximum=maximum, noun="an amount of money").quantize(CENT)


def decimal(value, *, places=None, minimum=Decimal(0), maximum=None, noun="a number", example='"12.50"'):
    """A plain decimal number: a string of ASCII digits with an optional point (a leading "-" only where
    ``minimum`` is negative), a whole number or a finite Decimal. ``places`` caps the decimal places
    ("1.500" has two: trailing zeros do not count). ``noun`` names what is expected in messages."""
    signed = minimum is not None and minimum < 0
    if type(value) is str:
        text = value.strip(" ")
        if not (_SIGNED_DECIMAL if signed else _DECIMAL).fullmatch(text):
            if _SIGNED_DECIMAL.fullmatch(text):
                raise Invalid(f"cannot be negative: {value!r}.")
            raise Invalid(f"must be {noun} such as {example}, not {value!r}.")
        amount = Decimal(text)
    elif type(value) is int:
        amount = Decimal(value)
    elif isinstance(value, Decimal):
        if not value.is_finite():
            raise Invalid(f"must be a finite number, not {value!r}.")
        amount = value
    elif isinstance(value, float):
        raise Invalid(f"must be given as a string such as {example}, not the float {value!r} (floats cannot hold "
                      "every amount exactly).")
    else:
        raise Invalid(f"must be {noun} such as {example}, not {value!r}.")
    if amount.is_signed() and not signed:
        raise Invalid(f"cannot be negative: {value!r}.")
    if amount.is_zero() and amount.is_signed():
        amount = Decimal(0).quantize(amount)  # "-0" where a sign is allowed is plain zero
    if places is not None:
        try:
            exact = amount.quantize(Decimal(1).scaleb(-places))
        except InvalidOperation:
            raise Invalid(f"is too large: {value!r}.") from None
        if exact != amount:
            raise Invalid(f"has more than {places} decimal places: {value!r}.")
    if minimum is not None and amount < minimum:
        raise Invalid(f"must be at least {minimum}, not {value!r}.")
    if maximum is not None and amount > maximum:
        raise Invalid(f"must be at most {maximum}, not {value!r}.")
    return amount


# -- dates and moments -------------------------------------------------------------------------------------------

def _in_range(day, value):
    if not FIRST_DAY <= day <= LAST_DAY:
        raise Invalid(f"must be between {FIRST_DAY.isoformat()} and {LAST_DAY.isoformat()}, not {value!r}.")


def day(value):
    """A date written YYYY-MM-DD (or a ``datetime.date`` already read, e.g. by a form or YAML)."""
    if type(value) is datetime.date:
        _in_range(value, value.isoformat())
        return value
    if type(value) is not str or not _DAY.fullmatch(value):
        raise Invalid(f"must be a date written YYYY-MM-DD, not {value!r}.")
    try:
        parsed = datetime.date.fromisoformat(value)
    except ValueError:
        raise Invalid(f"must be a date written YYYY-MM-DD, not {value!r} (no such day).") from None
    _in_range(parsed, value)
    return parsed


def month(value):
    """A month written YYYY-MM (a closing, a report's month, a bundle's name), as its first day."""
    if type(value) is not str or not _MONTH.fullmatch(value):
        raise Invalid(f"must be a month written YYYY-MM, e.g. 2026-10, not {value!r}.")
    first = datetime.date(int(value[:4]), int(value[5:]), 1)
    _in_range(first, value)
    return first


def moment(value, example=MOMENT_EXAMPLE):
    """A date and time with its UTC offset (a naive time would be ambiguous across time zones)."""
    if isinstance(value, datetime.datetime):
        parsed = value
    elif type(value) is not str or not _MOMENT.fullmatch(value):
        raise Invalid(f"must be a date and time like {example}, not {value!r}.")
    else:
        try:
            parsed = datetime.datetime.fromisoformat(value)
        except ValueError:
            raise Invalid(f"must be a date and time like {example}, not {value!r} (no such moment).") from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise Invalid(f"must include its time zone offset, e.g. {example}.")
    in_range(parsed, value)
    return parsed


def known_at(value, zone=datetime.UTC):
    """A moment of the record: a date and time with its offset, or a day, read as the end of that day in ``zone``
    ("what did we know on 1 November" counts everything published that day)."""
    if type(value) is str and _DAY.fullmatch(value):
        end = datetime.datetime.combine(day(value), datetime.time.max).replace(tzinfo=zone)
        return in_range(end, value)
    try:
        return moment(value)
    except Invalid:
        raise Invalid(f"must be a day written YYYY-MM-DD or a date and time like {MOMENT_EXAMPLE}, "
                      f"not {value!r}.") from None


def in_range(moment_, value=None):
    """Refuse an aware datetime outside the years every reader accepts (for values read some other way)."""
    try:
        ok = FIRST_MOMENT <= moment_ <= LAST_MOMENT
    except OverflowError:
        ok = False
    if not ok:
        shown = value if value is not None else moment_.isoformat()
        raise Invalid(f"must be between {FIRST_DAY.isoformat()} and {LAST_DAY.isoformat()}, not {shown!r}.")
    return moment_


# -- whole numbers and identifiers -------------------------------------------------------------------------------

def whole(value, *, minimum=None, maximum=MAX_WHOLE):
    """A whole number (JSON booleans are not numbers here, nor are strings or floats)."""
    if type(value) is not int:
        raise Invalid(f"must be a whole number, not {value!r}.")
    if minimum is not None and value < minimum:
        raise Invalid(f"must be at least {minimum}, not {value}.")
    if maximum is not None and value > maximum:
        raise Invalid(f"must be at most {maximum}, not {value}.")
    return value


def whole_text(value, *, minimum=None, maximum=MAX_WHOLE):
    """A whole number written in ASCII digits, as in a query string or a form."""
    if type(value) is str and re.fullmatch(r"-?[0-9]{1,19}", value, re.ASCII):
        return whole(int(value), minimum=minimum, maximum=maximum)
    raise Invalid(f"must be a whole number, not {value!r}.")


def identifier(value):
    """A row id: a whole number from 1 to what a database bigint holds."""
    if type(value) is not int:
        raise Invalid(f"must be an id (a whole number), not {value!r}.")
    if not 0 < value <= MAX_ID:
        raise Invalid(f"must be an id from 1 to {MAX_ID}, not {value}.")
    return value


def is_id(value):
    """True for a value that could be a row id (databases answer an error, not "none", to larger numbers)."""
    return type(value) is int and 0 < value <= MAX_ID


def flag(value):
    """A JSON boolean."""
    if type(value) is not bool:
        raise Invalid(f"must be true or false, not {value!r}.")
    return value


def flag_text(value):
    """A boolean in a query string: true/false or 1/0."""
    lowered = value.lower() if type(value) is str else None
    if lowered not in ("true", "false", "1", "0"):
        raise Invalid(f"must be true or false, not {value!r}.")
    return lowered in ("true", "1")


# -- text --------------------------------------------------------------------------------------------------------

def clean_string(value):
    """Refuse what no column can store: NUL characters (PostgreSQL refuses them) and lone surrogates (they have
    no UTF-8 encoding). Returns the string."""
    if "\x00" in value:
        raise Invalid("must not contain NUL characters.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise Invalid("must be valid Unicode text (it holds a lone surrogate).") from None
    return value


def text(value, *, max_length, required=True, single_line=True, blank=""):
    """A string, stripped, at most ``max_length`` characters; one line of printable characters unless
    ``single_line`` is False. Missing or blank: ``blank`` when not required."""
    if value is None or value == "":
        if required:
            raise Invalid("is required.")
        return blank
    if type(value) is not str:
        raise Invalid(f"must be a string, not {value!r}.")
    clean_string(value)
    value = value.strip()
    if not value:
        if required:
            raise Invalid("must not be blank.")
        return blank
    if single_line and not value.isprintable():
        raise Invalid("must be one line of printable characters (no tabs, line breaks or control codes).")
    if len(value) > max_length:
        raise Invalid(f"must be at most {max_length} characters long, not {len(value)}.")
    return value


def choice(value, allowed):
    """One of ``allowed`` (strings)."""
    if type(value) is not str or value not in allowed:
        raise Invalid(f"must be one of {', '.join(sorted(allowed))}, not {value!r}.")
    return value


# -- JSON shapes -------------------------------------------------------------------------------------------------

def obj(value, *, allowed, required=(), what="The body"):
    """A JSON object whose keys are all ``allowed`` and include ``required``. ``what`` names it in messages."""
    if type(value) is not dict:
        raise Invalid(f"{what} must be a JSON object, not {type(value).__name__ if value is not None else 'null'}.")
    unknown = set(value) - set(allowed)
    if unknown:
        raise Invalid(f"{what} has unknown field(s): {', '.join(sorted(map(str, unknown)))}. "
                      f"Allowed: {', '.join(sorted(allowed))}.")
    missing = [key for key in required if key not in value]
    if missing:
        raise Invalid(f"{what} is missing {', '.join(missing)}.")
    return value


def items(value, *, max_items, what="The list", required=True):
    """A JSON list of at most ``max_items`` items (non-empty when required)."""
    if type(value) is not list:
        raise Invalid(f"{what} must be a list, not {value!r}."[:300])
    if required and not value:
        raise Invalid(f"{what} must not be empty.")
    if len(value) > max_items:
        raise Invalid(f"{what} holds at most {max_items} items, not {len(value)}; split it.")
    return value


def document(value, max_depth=MAX_JSON_DEPTH, *, escapes=True):
    """A whole JSON document as parsed: nested at most ``max_depth`` deep, every string and key storable
    (see ``clean_string``). Walked without recursion, so a hostile document cannot exhaust the stack; a bad
    string is named by where it is, e.g. ``entries[4].player``.

    ``escapes=False`` says the JSON text held no ``\\u`` escape: parsed from valid UTF-8, its strings then
    cannot hold a NUL (JSON refuses a raw one) or a lone surrogate, and only the nesting is checked."""
    if not escapes:
        return _nesting(value, max_depth)
    stack = [(value, 1, None)]  # (item, depth, where: (parent's where, key or index), built into text on error)
    while stack:
        item, depth, where = stack.pop()
        kind = type(item)
        if kind is str:
            try:
                clean_string(item)
            except Invalid as error:
                raise Invalid(f"{_location(where)}: {error}") from None
        elif kind is dict or kind is list:
            if depth > max_depth:
                raise Invalid(f"The body is nested more than {max_depth} levels deep.")
            if kind is dict:
                for key, child in item.items():
                    stack.append((key, depth, (where, key)))
                    stack.append((child, depth + 1, (where, key)))
            else:
                stack.extend((child, depth + 1, (where, index)) for index, child in enumerate(item))
    return value


def _nesting(value, max_depth):
    stack = [(value, 1)] if type(value) is dict or type(value) is list else []
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            raise Invalid(f"The body is nested more than {max_depth} levels deep.")
        children = item.values() if type(item) is dict else item
        stack.extend((child, depth + 1) for child in children if type(child) is dict or type(child) is list)
    return value


def _location(where):
    parts = []
    while where is not None:
        where, step = where
        parts.append(f"[{step}]" if type(step) is int else f".{step}")
    return "body" + "".join(reversed(parts))
