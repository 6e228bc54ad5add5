"""Strict reading of the seed YAML files (see docs/seed-format.md).

Plain Python, no Django: unknown keys, missing keys, floats for money and malformed dates are errors that
name the file and the item, so a typo never loads silently.
"""

import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

import yaml


class SeedError(ValueError):
    pass


def read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.safe_load(handle) or {}
    except yaml.YAMLError as exc:
        raise SeedError(f"{path}: not valid YAML: {exc}") from exc


def files(directory, pattern="*.yaml"):
    return sorted(Path(directory).glob(pattern))


def check_keys(item, where, required=(), optional=()):
    if not isinstance(item, dict):
        raise SeedError(f"{where}: expected a mapping, got {type(item).__name__}")
    missing = [key for key in required if key not in item]
    if missing:
        raise SeedError(f"{where}: missing key(s) {', '.join(missing)}")
    unknown = sorted(set(item) - set(required) - set(optional))
    if unknown:
        raise SeedError(f"{where}: unknown key(s) {', '.join(unknown)}")
    return item


def money(value, where, key):
    """A decimal amount written as a string (or integer); floats are refused because they are inexact."""
    if value is None:
        return None
    if isinstance(value, bool) or isinstance(value, float):
        raise SeedError(f"{where}: {key} must be a quoted decimal string, not {value!r}")
    try:
        amount = Decimal(str(value))
    except InvalidOperation as exc:
        raise SeedError(f"{where}: {key} is not a decimal amount: {value!r}") from exc
    if not amount.is_finite():
        raise SeedError(f"{where}: {key} is not a finite amount: {value!r}")
    return amount


def day(value, where, key):
    if value is None or isinstance(value, datetime.date):
        return value
    try:
        return datetime.date.fromisoformat(str(value))
    except ValueError as exc:
        raise SeedError(f"{where}: {key} must be a date YYYY-MM-DD, not {value!r}") from exc


def choice(value, allowed, where, key):
    if value not in allowed:
        raise SeedError(f"{where}: {key} must be one of {', '.join(sorted(map(str, allowed)))}; got {value!r}")
    return value
