"""A bundle of bundles (format 3, ``cardroom.bundle.nesting``), checked on made-up inner bundles: each inner bundle
verified as a bundle, their periods one after another, and one audit log across them, bundle to bundle."""

import hashlib
import json
import zipfile

import pytest

from cardroom import bundle, checkpoint, merkle, tlog

CHAIN, ORIGIN = "establishment:1", "cardroom/audit/establishment:1"
LEAVES = [hashlib.sha256(b"entry %d" % i).digest() for i in range(40)]
MONTHS = [{"from": "2024-06-01", "to": "2024-06-30"}, {"from": "2024-07-01", "to": "2024-07-31"},
          {"from": "2024-08-01", "to": "2024-08-31"}]
QUARTER = {"from": "2024-06-01", "to": "2024-08-31"}
SIZES = [11, 23, 37]  # each month's checkpoint: the log as it stood when the month was exported


@pytest.fixture
def key():
    return bundle.generate_private_key()


def inner(path, key, period, size, leaves=LEAVES, carried=()):
    """A bundle of a month: a data file, its chain's checkpoint, the proofs from earlier sizes it carries."""
    note = checkpoint.sign(ORIGIN, size, merkle.root(leaves[:size]), "cardroom", key)
    with bundle.BundleWriter(path) as writer:
        writer.add_bytes("rounds.csv", f"id,period\n1,{period['from']}\n".encode(), rows=1)
        writer.add_bytes("checkpoints/establishment-1.txt", note.encode())
        for old in carried:
            writer.add_bytes(f"checkpoints/establishment-1.from-{old}.txt", tlog.consistency_text(
                old, merkle.consistency_proof(leaves[:size], old), note).encode())
        writer.finish({"period": period, "signing_key": bundle.fingerprint(key),
                       "audit_chains": [{"chain": CHAIN, "sequence": size, "entry_hash": "00" * 32}]}, key)
    return path


def outer(path, key, inners, links=(), period=QUARTER):
    """The bundle of ``inners`` ([(name, path)], in period order) with ``links`` [(from, to, old, new)]."""
    entries, listed = [], []
    with bundle.BundleWriter(path) as writer:
        for name, inner_path in inners:
            data = inner_path.read_bytes()
            writer.add_bytes(name, data)
            with zipfile.ZipFile(inner_path) as archive:
                own = json.loads(archive.read("manifest.json"))["period"]
            entries.append({"name": name, "period": own, "sha256": hashlib.sha256(data).hexdigest(),
                            "bytes": len(data)})
        for earlier, later, old, new in links:
            name = bundle.nesting.link_name(CHAIN, old, new)
            note = checkpoint.sign(ORIGIN, new, merkle.root(LEAVES[:new]), "cardroom", key)
            writer.add_bytes(name, tlog.consistency_text(old, merkle.consistency_proof(LEAVES[:new], old),
                                                         note).encode())
            listed.append({"chain": CHAIN, "from": earlier, "to": later, "file": name})
        writer.finish({"period": period, "bundles": entries, "links": listed}, key, format=bundle.FORMAT_3)
    return path


def quarter(tmp_path, key, carried=False, links=True, sizes=SIZES, leaves=(LEAVES, LEAVES, LEAVES)):
    paths = [inner(tmp_path / f"m{i}.zip", key, MONTHS[i], sizes[i], leaves[i],
                   carried=[sizes[i - 1]] if carried and i else ()) for i in range(3)]
    names = [f"bundles/month-{i}.zip" for i in range(3)]
    joined = [(names[i], names[i + 1], sizes[i], sizes[i + 1]) for i in range(2)] if links else []
    return outer(tmp_path / "quarter.zip", key, list(zip(names, paths)), joined), names


def test_three_months_in_one_bundle_hold_as_one_log(tmp_path, key):
    path, names = quarter(tmp_path, key)
    checked = bundle.verify(path, key.public_key())
    assert checked.ok, checked.problems
    assert checked.format == bundle.FORMAT_3 and sorted(checked.inner) == names
    assert all(inner.ok and inner.format == bundle.FORMAT_2 for inner in checked.inner.values())
    assert checked.links == [
        f"link {names[0]} -> {names[1]}, {CHAIN}: the log of 23 entries holds the 11 entries of the other checkpoint, "
        f"unchanged (links/establishment-1.11-23.txt)",
        f"link {names[1]} -> {names[2]}, {CHAIN}: the log of 37 entries holds the 23 entries of the other checkpoint, "
        f"unchanged (links/establishment-1.23-37.txt)"]


def test_the_proof_a_later_month_carries_joins_it_to_the_one_before(tmp_path, key):
    path, names = quarter(tmp_path, key, carried=True, links=False)
    checked = bundle.verify(path, key.public_key())
    assert checked.ok, checked.problems
    assert checked.links[0].endswith(f"({names[1]}'s proof from 11 entries)")
    # Without it, and with no link, nothing shows the log unbroken: said, naming the two bundles.
    bare, names = quarter(tmp_path, key, links=False)
    checked = bundle.verify(bare, key.public_key())
    assert not checked.ok
    assert checked.problems == [
        f"link {names[i]} -> {names[i + 1]}, {CHAIN}: no consistency proof from {SIZES[i]} to {SIZES[i + 1]} entries "
        f"is carried (no link file, and the later bundle carries none): the log cannot be shown unbroken across them"
        for i in range(2)]


def test_an_inner_bundle_changed_is_named_with_what_changed_in_it(tmp_path, key):
    path, names = quarter(tmp_path, key)
    changed = tmp_path / "changed.zip"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(changed, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == names[1]:
                data = _replaced(data, "rounds.csv", b"id,period\n2,2024-07-01\n")
            target.writestr(info, data)
    checked = bundle.verify(changed, key.public_key())
    assert not checked.ok
    # The outer manifest no longer vouches for it, and its own check says what changed in it; no link is checked
    # across a bundle that does not verify.
    outer_problem, inner_problem = checked.problems
    assert outer_problem.startswith(f"{names[1]}: ") and outer_problem.endswith("(altered)")
    assert inner_problem == f"{names[1]}: rounds.csv: SHA-256 does not match the manifest (altered)"
    assert checked.inner[names[1]].files["rounds.csv"] == "altered"


def _replaced(zip_bytes, name, data):
    import io

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(zip_bytes)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            target.writestr(info, data if info.filename == name else source.read(info))
    return out.getvalue()


def test_a_month_whose_checkpoint_is_of_another_log_breaks_the_link_even_signed(tmp_path, key):
    # July's checkpoint signed over a rewritten log, its bundle and the outer one signed again: every signature and
    # hash holds, but June's log is not the start of July's.
    rewritten = [hashlib.sha256(b"other %d" % i).digest() for i in range(40)]
    path, names = quarter(tmp_path, key, links=False, leaves=(LEAVES, rewritten, LEAVES))
    checked = bundle.verify(path, key.public_key())
    assert not checked.ok
    assert [p for p in checked.problems if p.startswith("link")][0].startswith(
        f"link {names[0]} -> {names[1]}, {CHAIN}: no consistency proof")
    # With links computed over the true log, they do not join July's forged checkpoint.
    path = outer(tmp_path / "linked.zip", key, [(n, tmp_path / f"m{i}.zip") for i, n in enumerate(names)],
                 [(names[0], names[1], 11, 23), (names[1], names[2], 23, 37)])
    checked = bundle.verify(path, key.public_key())
    assert [p.split(": ")[0] for p in checked.problems] == [f"link {names[0]} -> {names[1]}, {CHAIN}",
                                                           f"link {names[1]} -> {names[2]}, {CHAIN}"]
    assert "does NOT hold the 11 entries of the other checkpoint" in checked.problems[0]


def test_the_outer_manifest_changed_fails_its_signature(tmp_path, key):
    path, _ = quarter(tmp_path, key)
    changed = tmp_path / "changed.zip"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(changed, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "manifest.json":
                data = data.replace(b"2024-08-31", b"2024-09-30")
            target.writestr(info, data)
    checked = bundle.verify(changed, key.public_key())
    assert checked.signature == "invalid" and not checked.ok
    assert checked.problems[0].startswith("manifest.json has been altered or was not signed by this key")


def test_periods_with_a_gap_or_not_covering_the_period_are_named(tmp_path, key):
    months = [inner(tmp_path / "a.zip", key, MONTHS[0], 11), inner(tmp_path / "c.zip", key, MONTHS[2], 37)]
    path = outer(tmp_path / "gap.zip", key, [("bundles/a.zip", months[0]), ("bundles/c.zip", months[1])],
                 [("bundles/a.zip", "bundles/c.zip", 11, 37)])
    checked = bundle.verify(path, key.public_key())
    assert checked.problems == ["manifest.json: the inner bundles' periods do not follow each other: one ends on "
                                "2024-06-30, the next covers 2024-08-01 to 2024-08-31 (a gap, or days twice)"]
    short = outer(tmp_path / "short.zip", key, [("bundles/a.zip", months[0])])
    checked = bundle.verify(short, key.public_key())
    assert checked.problems == ["manifest.json: the inner bundles cover 2024-06-01 to 2024-06-30, not the period "
                                "{'from': '2024-06-01', 'to': '2024-08-31'}"]


def test_an_inner_bundle_signed_by_another_key_is_checked_against_the_key_it_names(tmp_path, key):
    older = bundle.generate_private_key()
    months = [inner(tmp_path / "a.zip", older, MONTHS[0], 11), inner(tmp_path / "b.zip", key, MONTHS[1], 23,
                                                                     carried=[11])]
    path = outer(tmp_path / "two.zip", key, [("bundles/a.zip", months[0]), ("bundles/b.zip", months[1])],
                 period={"from": "2024-06-01", "to": "2024-07-31"})
    unknown = bundle.verify(path, key.public_key())
    assert unknown.problems[0].startswith("bundles/a.zip: manifest.json has been altered or was not signed by this")
    known = bundle.verify(path, key.public_key(), keys={bundle.fingerprint(older): older.public_key()})
    assert known.ok, known.problems
