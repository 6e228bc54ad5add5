"""Reading a format-2 bundle's CSV files back into values: each cell as ``columns.json`` says its column holds it, and
the CSV escaping undone, so a reader gets what format 1's JSON file of the kind held. Plain Python (no Django): the
offline verifier (``cardroom.tlog``) reads the audit rows with it.

The values, by the column's ``type`` in columns.json: ``integer`` an int, ``boolean`` True or False, ``json`` the
parsed value, ``decimal``, ``date`` and ``timestamp`` their text as written (a decimal string, ``YYYY-MM-DD``,
``YYYY-MM-DDTHH:MM:SS.ffffffZ``), ``text`` the exact text. An empty cell is None, but for a text column: the CSV
does not tell empty text from no value, and every text the audit log hashes is text, never null.
"""

import csv
import io
import json

from ..csv_escaping import unescape  # a text cell that began with a formula character or ' was written with a '


class BadFile(ValueError):
    """A bundle file that cannot be read as columns.json describes it; the message names the file."""


def columns_of(columns_text, kind):
    """The column descriptions (``{"name", "type", ...}``) of ``kind`` from the text of a format-2 columns.json."""
    try:
        document = json.loads(columns_text)
        columns = document[kind]["columns"]
        if not all(isinstance(c, dict) and isinstance(c.get("name"), str) for c in columns):
            raise TypeError("a column without a name")
    except (ValueError, KeyError, TypeError) as error:
        raise BadFile(f"columns.json does not describe the columns of {kind}.csv ({error})") from None
    return columns


def _value(text, column_type):
    if column_type == "text":
        return unescape(text)
    if text == "":
        return None
    if column_type == "integer":
        return int(text)
    if column_type == "boolean":
        if text not in ("true", "false"):
            raise ValueError(f"{text!r} is not true or false")
        return text == "true"
    if column_type == "json":
        return json.loads(text)
    if column_type in ("decimal", "date", "timestamp"):
        return text
    raise ValueError(f"unknown column type {column_type!r}")


def records(name, text, columns):
    """The rows of the CSV file ``name`` (its text) as dicts of values, its header checked against ``columns``."""
    reader = csv.reader(io.StringIO(text, newline=""))
    names = [c["name"] for c in columns]
    header = next(reader, None)
    if header != names:
        raise BadFile(f"{name}: its columns ({', '.join(header or [])}) are not those columns.json describes "
                      f"({', '.join(names)})")
    types = [c.get("type", "text") for c in columns]
    rows = []
    for number, row in enumerate(reader, start=1):
        if len(row) != len(names):
            raise BadFile(f"{name}: row {number} has {len(row)} cells, not {len(names)}")
        try:
            rows.append({n: _value(cell, t) for n, cell, t in zip(names, row, types)})
        except ValueError as error:
            raise BadFile(f"{name}: row {number} does not hold what columns.json says ({error})") from None
    return rows
