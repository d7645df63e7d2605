#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Regenerate Tests/StrongroomSyncTests/Vectors/sync-names.json: replication type names and blind tags computed
with Python's own hmac and hashlib (an implementation independent of swift-crypto and libsodium).

    python3 Scripts/vectors/sync_vectors.py

HKDF-SHA256 (RFC 5869) is written out below from hmac and checked against RFC 5869's test case 1 first.
"""
import base64
import hashlib
import hmac
import json
import struct
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "Tests" / "StrongroomSyncTests" / "Vectors" / "sync-names.json"


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hkdf(ikm: bytes, salt: bytes, info: bytes, length: int = 32) -> bytes:
    prk = hmac.new(salt or b"\0" * 32, ikm, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


# RFC 5869, A.1.
assert hkdf(bytes([0x0B] * 22), bytes(range(13)), bytes(range(0xF0, 0xFA)), 42).hex() == (
    "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
)


def det(label: str, n: int = 32) -> bytes:
    """Fixed bytes for a vector (not secret, only reproducible)."""
    return hashlib.blake2b(label.encode(), digest_size=n).digest()


def prefixed(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def type_name(private_key: bytes, client_id: str, name: str) -> str:
    key = hkdf(private_key, client_id.encode(), b"strongroom.sync.type.v1")
    return "sr1." + b64u(hmac.new(key, prefixed(name.encode()), hashlib.sha256).digest())[:22]


def tags(access_key: bytes, doc_id: str, rev_id: str) -> tuple[str, str]:
    key = hkdf(access_key, b"", b"strongroom.sync.tags.v1")
    document = hmac.new(key, b"d" + prefixed(doc_id.encode()), hashlib.sha256).digest()
    revision = hmac.new(key, b"r" + prefixed(doc_id.encode()) + prefixed(rev_id.encode()), hashlib.sha256).digest()
    return b64u(document), b64u(revision)


def attachment_address(access_key: bytes, digest: str) -> str:
    key = hkdf(access_key, b"", b"strongroom.sync.tags.v1")
    return b64u(hmac.new(key, b"a" + prefixed(digest.encode()), hashlib.sha256).digest())


private_key = det("sync private key")
client_id = "3a8f0c2e-6f1d-4b8e-9a51-0d2c7e4b9f10"
access_key = det("sync access key")
names = ["notes", "n", "Photos (2026)", "ünïcödé-名前", "a" * 256]
pairs = [
    ("first", "1-967a00dff5e02add41819138abb3284d"),
    ("a", "1-bc"),  # with the next, the same bytes when concatenated without lengths
    ("a1", "-bc"),
    ("doc\u0000with nul", "2-0123456789abcdef"),
    ("ü" * 256, "2147483647-" + "z" * 64),
]
digests = [
    "sha256-" + base64.b64encode(hashlib.sha256(b"").digest()).decode(),
    "sha256-" + base64.b64encode(hashlib.sha256(b"hello, attachment").digest()).decode(),
]
vectors = {
    "about": "Scripts/vectors/sync_vectors.py: Python hmac/hashlib; HKDF per RFC 5869, checked against its case A.1",
    "private_key": b64u(private_key),
    "client_id": client_id,
    "access_key": b64u(access_key),
    "types": [{"name": n, "type": type_name(private_key, client_id, n)} for n in names],
    "tags": [
        {"doc": d, "rev": r, "document_tag": t[0], "revision_tag": t[1]} for d, r in pairs for t in [tags(access_key, d, r)]
    ],
    "attachments": [{"digest": d, "address": attachment_address(access_key, d)} for d in digests],
}
OUT.parent.mkdir(parents=True, exist_ok=True)
OUT.write_text(json.dumps(vectors, indent=2, ensure_ascii=False) + "\n")
print(f"wrote {OUT}")
