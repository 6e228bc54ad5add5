"""Strict reading of the seed YAML files (see docs/seed-format.md).

Plain Python, no Django: unknown keys, missing keys, floats for money and malformed dates are errors that
name the file and the item, so a typo never loads silently.
"""

import datetime
from pathlib import Path

import yaml

from . import values

# libyaml's safe loader when PyYAML was built with it (PyPI's wheels are): ten times the pure-Python one's speed, and
# every seed load (set-up, each test run's template, the demo) reads all the files.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
from .exceptions import BadInput


def read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.load(handle, Loader=SAFE_LOADER) or {}
    except yaml.YAMLError as exc:
        raise BadInput(f"{path}: not valid YAML: {exc}") from exc


def files(directory, pattern="*.yaml"):
    return sorted(Path(directory).glob(pattern))


def check_keys(item, where, required=(), optional=()):
    if not isinstance(item, dict):
        raise BadInput(f"{where}: expected a mapping, got {type(item).__name__}")
    missing = [key for key in required if key not in item]
    if missing:
        raise BadInput(f"{where}: missing key(s) {', '.join(missing)}")
    unknown = sorted(set(item) - set(required) - set(optional))
    if unknown:
        raise BadInput(f"{where}: unknown key(s) {', '.join(unknown)}")
    return item


def money(value, where, key):
    """A decimal amount written as a quoted string (or a whole number), read by ``cardroom.values`` like every
    amount the service takes in; any number of decimal places (percentages, odds). YAML floats are refused:
    they are inexact."""
    if value is None:
        return None
    if isinstance(value, float):
        raise BadInput(f"{where}: {key} must be a quoted decimal string, not {value!r}")
    try:
        return values.decimal(value, minimum=None)
    except values.Invalid as exc:
        raise BadInput(f"{where}: {key} {exc}") from None


def day(value, where, key):
    if value is None:
        return None
    try:
        return values.day(value.isoformat() if isinstance(value, datetime.date) else value)
    except values.Invalid as exc:
        raise BadInput(f"{where}: {key} {exc}") from None


def choice(value, allowed, where, key):
    if value not in allowed:
        raise BadInput(f"{where}: {key} must be one of {', '.join(sorted(map(str, allowed)))}; got {value!r}")
    return value
