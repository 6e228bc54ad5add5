"""Merkle trees over an audit chain, as Certificate Transparency builds them (RFC 9162, section 2.1). Plain Python.

The hash chain (``cardroom.chain``) proves an entry's place only to someone who holds the whole chain. A Merkle
tree over the same entries lets an outsider who kept a small signed checkpoint (tree size and root hash) check, with
a few hashes each, that one entry is in the log (an inclusion proof) and that a later log still contains the
earlier one unchanged (a consistency proof): rewriting the log after a checkpoint was handed out is then caught by
anyone who kept it.

Definitions (RFC 9162 §2.1.1), with ``D[n]`` the list of leaves and ``k`` the largest power of two below ``n``:

- ``MTH({}) = SHA-256()``
- ``MTH({d0}) = SHA-256(0x00 || d0)``                        (a leaf)
- ``MTH(D[n]) = SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n]))``  (a node)

A leaf here is the entry's ``entry_hash`` as 32 raw bytes: that hash already covers the entry's canonical bytes and
its predecessor, so the tree commits to exactly what the chain does.
"""

import hashlib

EMPTY_ROOT = hashlib.sha256(b"").digest()


class ProofError(ValueError):
    """A proof asked for sizes or an index the tree does not have."""


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n):
    """The largest power of two smaller than ``n`` (n > 1)."""
    k = 1
    while k << 1 < n:
        k <<= 1
    return k


def _root(hashes):
    """MTH over leaf hashes already computed."""
    if not hashes:
        return EMPTY_ROOT
    if len(hashes) == 1:
        return hashes[0]
    k = _split(len(hashes))
    return node_hash(_root(hashes[:k]), _root(hashes[k:]))


def root(leaves) -> bytes:
    """The tree head over ``leaves`` (bytes each)."""
    return _root([leaf_hash(leaf) for leaf in leaves])


def inclusion_proof(leaves, index) -> list[bytes]:
    """The audit path for leaf ``index`` in the tree over ``leaves`` (RFC 9162 §2.1.3.1)."""
    if not 0 <= index < len(leaves):
        raise ProofError(f"index {index} is not in a tree of {len(leaves)} entries.")
    return _path(index, [leaf_hash(leaf) for leaf in leaves])


def _path(m, hashes):
    n = len(hashes)
    if n == 1:
        return []
    k = _split(n)
    if m < k:
        return _path(m, hashes[:k]) + [_root(hashes[k:])]
    return _path(m - k, hashes[k:]) + [_root(hashes[:k])]


def consistency_proof(leaves, old_size) -> list[bytes]:
    """The proof that the first ``old_size`` leaves' tree is a prefix of the tree over ``leaves`` (§2.1.4.1)."""
    if not 0 < old_size <= len(leaves):
        raise ProofError(f"a consistency proof runs from a size between 1 and {len(leaves)}, not {old_size}.")
    return _subproof(old_size, [leaf_hash(leaf) for leaf in leaves], True)


def _subproof(m, hashes, whole):
    n = len(hashes)
    if m == n:
        return [] if whole else [_root(hashes)]
    k = _split(n)
    if m <= k:
        return _subproof(m, hashes[:k], whole) + [_root(hashes[k:])]
    return _subproof(m - k, hashes[k:], False) + [_root(hashes[:k])]


def verify_inclusion(leaf: bytes, index: int, size: int, proof, expected_root: bytes) -> bool:
    """Whether ``leaf`` is entry ``index`` of the tree of ``size`` whose head is ``expected_root`` (§2.1.3.2)."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf_hash(leaf)
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == expected_root


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof) -> bool:
    """Whether the tree of ``new_size`` with head ``new_root`` extends the one of ``old_size`` with head
    ``old_root`` (§2.1.4.2)."""
    if not 0 < old_size <= new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    proof = list(proof)
    if old_size & (old_size - 1) == 0:  # a power of two: the old root is the first node of the path
        proof = [old_root] + proof
    if not proof:
        return False
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return sn == 0 and fr == old_root and sr == new_root


# -- range proofs: a run of consecutive entries (an export's period) against a tree head -----------------------------
#
# Not in RFC 9162, built from its definitions: the tree over [0, n) is split as MTH splits it; a subtree wholly
# inside the run [start, end) is computed from the run's own leaves, one wholly outside is given by the proof (its
# MTH, left to right in the order the recursion meets them). With the run and the proof, whoever holds the entries
# recomputes the tree head, so the run is exactly what the log held at those positions.


def _range(lo, hi, start, end, inside, outside):
    if hi <= start or lo >= end:
        return outside(lo, hi)
    if start <= lo and hi <= end:
        return inside(lo, hi)
    k = _split(hi - lo)
    return node_hash(_range(lo, lo + k, start, end, inside, outside), _range(lo + k, hi, start, end, inside, outside))


def range_proof(leaves, start, end) -> list[bytes]:
    """The subtree heads outside leaves ``[start, end)`` of the tree over ``leaves``."""
    if not 0 <= start <= end <= len(leaves) or not leaves:
        raise ProofError(f"entries {start} to {end} are not a run of a tree of {len(leaves)} entries.")
    hashes = [leaf_hash(leaf) for leaf in leaves]
    proof = []

    def outside(lo, hi):
        proof.append(_root(hashes[lo:hi]))
        return proof[-1]

    _range(0, len(hashes), start, end, lambda lo, hi: _root(hashes[lo:hi]), outside)
    return proof


def root_from_range(run, start, size, proof) -> bytes | None:
    """The tree head of ``size`` entries whose entries ``start`` onwards are ``run`` (leaves), given the range
    proof; None when the proof has too few or too many hashes for that shape."""
    end = start + len(run)
    if not 0 <= start <= end <= size or size == 0:
        return None
    hashes, given = [leaf_hash(leaf) for leaf in run], iter(proof)
    short = []

    def outside(lo, hi):
        value = next(given, None)
        if value is None:
            short.append((lo, hi))
            return b""
        return value

    head = _range(0, size, start, end, lambda lo, hi: _root(hashes[lo - start:hi - start]), outside)
    return None if short or next(given, None) is not None else head
