#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Writes Tests/StrongroomCryptoTests/Vectors/keylog/entries.json: key log entries in their fixed binary layout,
salted commitments, and an RFC 9162 tree of 37 leaves (every root, and proofs), computed here with Python's standard
library alone (hashlib, hmac) — an implementation independent of the Swift one, from the layout in KeyLogEntry.swift's
documentation and RFC 9162 §2.1. Run from the repository root: python3 Scripts/vectors/keylog_vectors.py"""
import hashlib, hmac, json, pathlib, struct, uuid

root = pathlib.Path(__file__).resolve().parent.parent.parent
out = root / "Tests" / "StrongroomCryptoTests" / "Vectors" / "keylog" / "entries.json"

ENCRYPTION = bytes.fromhex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")  # RFC 7748 §6.1
SIGNING = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")  # RFC 8032 §7.1 test 1
ALICE = uuid.UUID("0e8eb8c6-839f-46ca-9843-801c539e490f")
BOB = uuid.UUID("9c2a4f1e-0b7d-4f43-9d55-1f0e3a6b2c11")
CAROL = uuid.UUID("5e7a2f6c-8a8e-4b8e-9a57-2f1a0c9d3e44")
NONE = 0xFFFFFFFFFFFFFFFF


def keys_entry(kind, time, client, previous, signing=SIGNING):
    return bytes([1, kind]) + struct.pack(">Q", time) + client.bytes + ENCRYPTION + signing + struct.pack(">Q", previous)


def commitment(kind, ids, type_name, salt):
    t = type_name.encode()
    message = b"strongroom/keylog/commitment/v1\x00" + bytes([kind]) + salt + b"".join(i.bytes for i in ids)
    return hashlib.sha256(message + struct.pack(">H", len(t)) + t).digest()


def commitment_entry(kind, time, client, value):
    return bytes([1, kind]) + struct.pack(">Q", time) + client.bytes + value


def generation_mac(key, domain, writer, user, type_name):
    t = type_name.encode()
    message = domain + b"\x00" + writer.bytes + user.bytes + struct.pack(">H", len(t)) + t
    return hmac.new(key, message, hashlib.sha256).digest()


def leaf(entry):
    return hashlib.sha256(b"\x00" + entry).digest()


def node(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n):
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(leaves):
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = split(len(leaves))
    return node(mth(leaves[:k]), mth(leaves[k:]))


def path(m, leaves):
    if len(leaves) <= 1:
        return []
    k = split(len(leaves))
    return path(m, leaves[:k]) + [mth(leaves[k:])] if m < k else path(m - k, leaves[k:]) + [mth(leaves[:k])]


def subproof(m, leaves, whole):
    n = len(leaves)
    if m == n:
        return [] if whole else [mth(leaves)]
    k = split(n)
    if m <= k:
        return subproof(m, leaves[:k], whole) + [mth(leaves[k:])]
    return subproof(m - k, leaves[k:], False) + [mth(leaves[:k])]


salt = bytes(range(32))
granted = commitment(3, [ALICE, ALICE, BOB], "notes", salt)
revoked = commitment(4, [ALICE, ALICE, BOB], "notes", salt)
authorized = commitment(5, [ALICE, CAROL], "sr1.team", salt)
entries = [
    ("registration", keys_entry(1, 1_764_244_800_000_000, ALICE, NONE)),
    ("key change", keys_entry(2, 1_764_244_900_000_000, ALICE, 0)),
    ("access granted", commitment_entry(3, 1_764_245_000_000_000, ALICE, granted)),
    ("access revoked", commitment_entry(4, 1_764_245_100_000_000, ALICE, revoked)),
    ("authorizer granted", commitment_entry(5, 1_764_245_200_000_000, ALICE, authorized)),
    # A client registered without a signing key (the official SDKs allow it): 32 zero bytes in its place.
    ("registration without a signing key", keys_entry(1, 1_764_245_300_000_000, BOB, NONE, bytes(32))),
]
# Key generation leaves (KeyGenerationLeaf.swift): the rotation of Alice's "notes" from key 1 to key 2, and from key
# 2 to key 3; each leaf's ID field is the old key's successor tag, its commitment is to the new key.
generation_keys = [bytes(range(32)), bytes(range(32, 64)), bytes(range(64, 96))]
generations = []
for old, new in zip(generation_keys, generation_keys[1:]):
    tag = generation_mac(old, b"strongroom/keylog/successor/v1", ALICE, ALICE, "notes")[:16]
    value = generation_mac(new, b"strongroom/keylog/generation/v1", ALICE, ALICE, "notes")
    generations.append({
        "previous": old.hex(), "next": new.hex(), "successorTag": tag.hex(), "commitment": value.hex(),
        "encoded": commitment_entry(7, 1_764_248_400_000_000, uuid.UUID(bytes=tag), value).hex(),
    })
leaves = [leaf(e) for _, e in entries] + [leaf(struct.pack(">Q", i)) for i in range(32)]
vectors = {
    "source": "Scripts/vectors/keylog_vectors.py (Python standard library: struct, hashlib, uuid)",
    "keys": {"encryption": ENCRYPTION.hex(), "signing": SIGNING.hex()},
    "ids": {"alice": str(ALICE), "bob": str(BOB), "carol": str(CAROL)},
    "salt": salt.hex(),
    "commitments": [
        {"kind": 3, "ids": [str(ALICE), str(ALICE), str(BOB)], "type": "notes", "value": granted.hex()},
        {"kind": 4, "ids": [str(ALICE), str(ALICE), str(BOB)], "type": "notes", "value": revoked.hex()},
        {"kind": 5, "ids": [str(ALICE), str(CAROL)], "type": "sr1.team", "value": authorized.hex()},
    ],
    "generations": {"writer": str(ALICE), "user": str(ALICE), "type": "notes", "rotations": generations},
    "entries": [{"name": n, "encoded": e.hex(), "leaf": leaf(e).hex()} for n, e in entries],
    "tree": {
        "leaves": [l.hex() for l in leaves],
        "roots": [mth(leaves[:n]).hex() for n in range(len(leaves) + 1)],
        "inclusion": [{"index": i, "size": n, "proof": [h.hex() for h in path(i, leaves[:n])]}
                      for (i, n) in [(0, 1), (4, 5), (6, 37), (36, 37), (17, 33), (31, 32)]],
        "consistency": [{"old": m, "new": n, "proof": [h.hex() for h in subproof(m, leaves[:n], True)]}
                        for (m, n) in [(1, 37), (5, 37), (16, 32), (31, 33), (32, 37), (36, 37), (37, 37)]],
    },
}
out.write_text(json.dumps(vectors, indent=1) + "\n")
print(f"wrote {out.relative_to(root)}")
