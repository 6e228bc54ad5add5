"""What the service's database role may write is listed in docs/scaling.md ("What the service's database role may
write") with why, and the list is the grants (issue 41): a role granted by ``grant_service_role`` on PostgreSQL holds
exactly the privileges listed, table by table, and nothing else, so the list cannot fall behind a new table."""

import re
from pathlib import Path

import pytest
from django.db import connection

from tests.database_roles import make_service_role

pytestmark = [pytest.mark.services, pytest.mark.django_db]

DOCS = Path(__file__).resolve().parents[3] / "docs" / "scaling.md"
SECTION = "## What the service's database role may write"
WRITES = ("INSERT", "UPDATE", "DELETE")
NEVER = ("TRUNCATE", "REFERENCES", "TRIGGER")


def documented(tables):
    """({table: its write privileges, as listed}, {tables listed as read only}) from the docs' section."""
    section = DOCS.read_text().split(SECTION, 1)[1].split("\n## ", 1)[0]
    writes = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            names, privileges, _ = (cell.strip() for cell in line.strip().strip("|").split(" | ", 2))
            for name in re.findall(r"`([a-z0-9_]+)`", names):
                assert name not in writes, f"{name} is listed twice"
                writes[name] = privileges
    read_only = section.split("The service's role reads", 1)[1]
    return writes, {name for name in re.findall(r"`([a-z0-9_]+)`", read_only) if name in tables}


def granted(role):
    """{table: (partition's parent or None, {privilege: held})} of every table of the schema."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT c.relname, p.relname, " + ", ".join(
            f"has_table_privilege(%s, c.oid, '{privilege}')" for privilege in ("SELECT", *WRITES, *NEVER))
            + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
              "LEFT JOIN pg_inherits i ON i.inhrelid = c.oid LEFT JOIN pg_class p ON p.oid = i.inhparent "
              "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')", [role] * (1 + len(WRITES) + len(NEVER)))
        return {name: (parent, dict(zip(("SELECT", *WRITES, *NEVER), held)))
                for name, parent, *held in cursor.fetchall()}


def test_the_docs_list_every_table_the_service_role_may_write_and_its_privileges_there():
    assert connection.vendor == "postgresql", "roles are PostgreSQL's (bin/test's second pass)"
    grants = granted(make_service_role())
    tables = {name for name, (parent, _) in grants.items() if parent is None}
    writes, read_only = documented(tables)
    assert writes == {name: ", ".join(p for p in WRITES if held[p]) for name, (parent, held) in grants.items()
                      if parent is None and any(held[p] for p in WRITES)}
    assert read_only == {name for name in tables if not any(grants[name][1][p] for p in WRITES)}
    for name, (parent, held) in grants.items():
        assert held["SELECT"] and not any(held[p] for p in NEVER), name
        if parent is not None:  # a month's partition: its parent's privileges, so the parent's line says it
            assert held == grants[parent][1], name
    assert "fees_ledgerday" in writes and "fees_closedmonth" in read_only  # the list was read, not found empty
