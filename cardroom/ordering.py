"""Orderings people expect (plain Python)."""

import re


def natural(label):
    """Table labels in floor order: 2 before 10, PG-2 before PG-10.

    ``re.split`` with a group alternates text and digits and always starts with text, so two keys compare
    text with text and numbers with numbers.
    """
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", str(label))]
