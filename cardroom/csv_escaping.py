"""The one CSV escaping of text cells a spreadsheet would run as a formula (OWASP, CSV injection), for every CSV the
installation writes for people to open: the audit bundle's files (``exports.build.csv_cell``, and its SQL form
``exports.collect.csv_copy_sql``) and an import's refused rows (``fees.imports``). Plain Python (no Django): the
offline verifier reads the bundle's cells back with ``unescape`` (``cardroom.bundle.reading``).

A text cell that begins with one of ``FORMULA_STARTS`` is written with a ' before it; so is one that begins with ',
so that the escape can be undone: take the first ' off any text cell that begins with one and you have the exact
text."""

# What a spreadsheet would read as the start of a formula. The ledger also refuses identifiers (keys, references,
# players) that begin with one (fees.ledger.intake).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
ESCAPE = "'"
ESCAPE_STARTS = FORMULA_STARTS + (ESCAPE,)
CSV_ESCAPING = ("A text cell that begins with =, +, -, @, a tab or a carriage return is written with a single quote "
                "(') before it, so that a spreadsheet shows it as text instead of running it as a formula (OWASP, CSV "
                "injection); so is one that begins with a single quote. To read the exact text, take the first ' off "
                "any text cell that begins with one. Numbers (a negative amount such as -5.00), dates and booleans are "
                "never changed.")


def escape(text):
    """``text`` as a CSV cell: with a ' before it when it begins with a formula character or a '."""
    return ESCAPE + text if text.startswith(ESCAPE_STARTS) else text


def unescape(text):
    """The exact text of a cell ``escape`` wrote: its first ' taken off."""
    return text[1:] if text.startswith(ESCAPE) else text
