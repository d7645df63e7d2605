#!/usr/bin/env python3
# Strongroom — SPDX-License-Identifier: Apache-2.0
"""Regenerate the known-answer vectors in Tests/StrongroomCryptoTests/Vectors from the reference implementations.

Run inside the test virtual environment (Scripts/python-env.sh makes it):
    .build/python-venv/bin/python Scripts/vectors/generate.py

References: the official Tozny Python SDK (e3db 2.3.0, PyPI) for every E3DB wire format, and PyNaCl for the raw
libsodium primitives. Randomness is replaced by fixed, recorded bytes so every vector is reproducible and the
Swift tests can re-create the exact same output.
"""
import base64
import hashlib
import json
import os
import sys
from pathlib import Path

import nacl.bindings as b
import nacl.public
import nacl.pwhash
import nacl.secret
import nacl.signing
import nacl.hash
import nacl.encoding
import e3db
from e3db.sodium_crypto import SodiumCrypto
from e3db.base_crypto import BaseCrypto
from e3db.tsv1_auth import E3DBTSV1Auth

ROOT = Path(__file__).resolve().parents[2] / "Tests" / "StrongroomCryptoTests" / "Vectors"


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def det(label: str, n: int) -> bytes:
    """Deterministic bytes for a vector: BLAKE2b-derived from a label (not a secret, only reproducible)."""
    out = b""
    counter = 0
    while len(out) < n:
        out += hashlib.blake2b(f"{label}/{counter}".encode(), digest_size=64).digest()
        counter += 1
    return out[:n]


def pattern(size: int) -> bytes:
    """The plaintext of the file vectors: byte i is (i * 31 + 7) mod 251. The Swift tests rebuild it the same way."""
    return bytes((i * 31 + 7) % 251 for i in range(size))


def write(rel: str, payload) -> None:
    path = ROOT / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


class Replay:
    """Feeds recorded random values to SodiumCrypto in the order the SDK asks for them."""

    def __init__(self, values):
        self.values = list(values)

    def __call__(self, *args, **kwargs):
        return self.values.pop(0)


FIELD_VALUES = [
    "",
    "hello",
    "secret data 🔐 — ünïcödé",
    "quotes \" and \\ backslash\nnew line\ttab",
    "x" * 1000,
    "".join(chr(0x20 + (i % 90)) for i in range(70000)),
]


def fields():
    ak = det("fields/ak", 32)
    cases = []
    original_key, original_nonce = SodiumCrypto.random_key, SodiumCrypto.random_nonce
    try:
        for i, value in enumerate(FIELD_VALUES):
            dk = det(f"fields/{i}/dk", 32)
            efn = det(f"fields/{i}/efn", 24)
            edkn = det(f"fields/{i}/edkn", 24)
            SodiumCrypto.random_key = classmethod(Replay([dk]))
            SodiumCrypto.random_nonce = classmethod(Replay([efn, edkn]))
            wire = SodiumCrypto.encrypt_field(value, ak)
            assert SodiumCrypto.decrypt_field(wire, ak) == value
            cases.append({"value": value, "dataKey": b64u(dk), "valueNonce": b64u(efn),
                          "dataKeyNonce": b64u(edkn), "wire": wire})
    finally:
        SodiumCrypto.random_key, SodiumCrypto.random_nonce = original_key, original_nonce
    write("e3db-python/fields.json", {"source": "e3db 2.3.0 SodiumCrypto.encrypt_field", "accessKey": b64u(ak),
                                      "cases": cases})


def eaks():
    cases = []
    for i in range(3):
        writer = nacl.public.PrivateKey(det(f"eak/{i}/authorizer", 32))
        reader = nacl.public.PrivateKey(det(f"eak/{i}/reader", 32))
        ak = det(f"eak/{i}/ak", 32)
        nonce = det(f"eak/{i}/nonce", 24)
        box = SodiumCrypto.encrypt_ak(writer, reader.public_key, ak, nonce)
        wire = f"{b64u(box.ciphertext)}.{b64u(box.nonce)}"
        assert SodiumCrypto.decrypt_eak(reader, writer.public_key, box.ciphertext, box.nonce) == ak
        cases.append({"authorizerPrivateKey": b64u(bytes(writer)), "authorizerPublicKey": b64u(bytes(writer.public_key)),
                      "readerPrivateKey": b64u(bytes(reader)), "readerPublicKey": b64u(bytes(reader.public_key)),
                      "accessKey": b64u(ak), "nonce": b64u(nonce), "wire": wire})
    write("e3db-python/eaks.json", {"source": "e3db 2.3.0 SodiumCrypto.encrypt_ak", "cases": cases})


FILE_SIZES = [0, 10, 65536, 65537, 131072, 200000]


def files():
    ak = det("files/ak", 32)
    cases = []
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / "strongroom-vectors"
    tmp.mkdir(exist_ok=True)
    for size in FILE_SIZES:
        plain = tmp / f"plain-{size}"
        plain.write_bytes(pattern(size))
        encrypted_name, checksum, length = SodiumCrypto.encrypt_file(str(plain), ak)
        data = Path(encrypted_name).read_bytes()
        os.unlink(encrypted_name)
        assert len(data) == length
        out = tmp / f"roundtrip-{size}"
        (ROOT / "e3db-python" / "files").mkdir(parents=True, exist_ok=True)
        (ROOT / "e3db-python" / "files" / f"file-{size}.e3db").write_bytes(data)
        SodiumCrypto.decrypt_file(str(ROOT / "e3db-python" / "files" / f"file-{size}.e3db"), str(out), ak)
        assert out.read_bytes() == pattern(size)
        cases.append({"plaintextSize": size, "file": f"files/file-{size}.e3db", "size": length,
                      "checksum": checksum.decode()})
    write("e3db-python/files.json", {"source": "e3db 2.3.0 SodiumCrypto.encrypt_file", "accessKey": b64u(ak),
                                     "plaintextPattern": "byte i = (i * 31 + 7) mod 251", "cases": cases})


class FakeRequest:
    def __init__(self, method, url):
        self.method = method
        self.url = url
        self.headers = {}


TSV1_REQUESTS = [
    ("POST", "http://localhost:8000/x/y%2Fz?bar=baz&foo=quux", 1000000000, "59a7d5b6-35d2-41fd-99b2-066a07bd1632"),
    ("GET", "http://localhost:8000/v2/storage/notes?id_string=a+b%2Fc&note_id=x", 1700000000, "nonce-1"),
    ("GET", "http://localhost:8000/v1/storage/records/0e8eb8c6-839f-46ca-9843-801c539e490f", 1700000001,
     "9d4f5b4e-8a1c-4c46-a3f5-1f2a3b4c5d6e"),
    ("PUT", "http://localhost:8000/v1/storage/access_keys/a/b/c/test_type_b'3f9a'", 1700000002, "n-3"),
    ("GET", "http://localhost:8000/search?z=1&a=2&a=1&empty=&flag&sp=a%20b&u=%C3%BC%E2%9C%93", 1700000003, "n-4"),
    ("DELETE", "http://localhost:8000/v1/storage/records/safe/r/v?", 1700000004, "n-5"),
]


def tsv1():
    seed_key = "d55u6bLR9tkMVA4OwYIPepOOeXVSHHEit8VoXGRMQiaf5wKRk9gooP9pN3LBJ28BIW9fZ9-ZZPLVsHtuPqkRSQ"
    uid = "0e8eb8c6-839f-46ca-9843-801c539e490f"
    auth = E3DBTSV1Auth(seed_key, uid)
    cases = []
    for method, url, ts, nonce in TSV1_REQUESTS:
        req = FakeRequest(method, url)
        E3DBTSV1Auth.create_tsv1_signature(req, auth.public_b64, auth.private_b64_decoded, uid, nonce, ts)
        from urllib.parse import urlparse
        parts = urlparse(url)
        cases.append({"method": method, "path": parts.path, "query": parts.query, "timestamp": ts, "nonce": nonce,
                      "authorization": req.headers["Authorization"]})
    anonymous = FakeRequest("GET", "http://localhost:8000/v2/storage/notes?note_id=abc")
    E3DBTSV1Auth.create_tsv1_signature(anonymous, auth.public_b64, auth.private_b64_decoded, "", "n-anon", 1700000005)
    cases.append({"method": "GET", "path": "/v2/storage/notes", "query": "note_id=abc", "timestamp": 1700000005,
                  "nonce": "n-anon", "clientID": "", "authorization": anonymous.headers["Authorization"]})
    write("e3db-python/tsv1.json", {"source": "e3db 2.3.0 E3DBTSV1Auth.create_tsv1_signature",
                                    "privateSigningKey": seed_key, "publicSigningKey": auth.public_b64,
                                    "clientID": uid, "cases": cases})


def signed_fields():
    signer = nacl.signing.SigningKey(det("tfsp1/seed", 32))
    private = b64u(bytes(signer) + bytes(signer.verify_key))
    cases = []
    for i, (key, value) in enumerate([("signature", "c720777d-fe43-4ded-bf90-90d2726f113e"), ("secret", "data"),
                                      ("name", "ünïcödé 🔐"), ("empty", ""), ("semi", "a;b;c;86;"),
                                      ("long", "y" * 5000)]):
        salt = f"{i:08x}-1637-411e-8bab-93c4f3e26fd9"
        signed = BaseCrypto.sign_field.__func__(SodiumCrypto, key, value, private, salt)
        assert e3db.Client.verify_field(key, signed, b64u(bytes(signer.verify_key))) == value
        cases.append({"key": key, "value": value, "salt": salt, "signed": signed})
    write("e3db-python/signed_fields.json", {"source": "e3db 2.3.0 BaseCrypto.sign_field / Client.verify_field",
                                             "privateSigningKey": private,
                                             "publicSigningKey": b64u(bytes(signer.verify_key)), "cases": cases})


def canonical(value) -> str:
    """The canonical serialization (JSON.stringify escaping == json.dumps(ensure_ascii=False); keys in UTF-16
    code-unit order; no whitespace)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value.keys(), key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canonical(value[k]) for k in keys) + "}"
    raise TypeError(value)


NAUGHTY = ["", "undefined", "null", "\u0000\u0001\u001f", "\b\f\n\r\t", "\"'`", "\\\\", "/path/to</script>",
           "ünïcödé", "日本語", "🔐🎉", "\u2028\u2029", "\ufeffbom", "<>&", "1e308", "-0", "Ω≈ç√∫"]


def signable():
    signer = nacl.signing.SigningKey(det("signable/seed", 32))
    docs = [
        {"name": "string", "value": "hello"},
        {"name": "naughty-strings", "value": NAUGHTY},
        {"name": "nested", "value": {"b": [1, True, None, "x"], "a": {"z": "", "y": -42}, "é": "v", "Z": False}},
        {"name": "key-order", "value": {"b": 1, "a": 2, "B": 3, "aa": 4, "": 5, "\ue000": 6, "\U0001F510": 7}},
        {"name": "naughty-object", "value": {s: s for s in NAUGHTY}},
    ]
    cases = []
    for doc in docs:
        text = canonical(doc["value"])
        cases.append({"name": doc["name"], "value": doc["value"], "canonical": text,
                      "signature": b64u(signer.sign(text.encode()).signature)})
    meta = {"plain": {"client_pub_sig_key": "abc", "server_sig_of_client_sig_key": "d"}, "type": "record-type",
            "user_id": "0e8eb8c6-839f-46ca-9843-801c539e490f", "writer_id": "0e8eb8c6-839f-46ca-9843-801c539e490f"}
    data = {"field": "value", "naughty": "\"\\/\n🔐"}
    record_text = canonical(meta) + canonical(data)
    record = {"writerID": meta["writer_id"], "userID": meta["user_id"], "type": meta["type"], "plain": meta["plain"],
              "data": data, "canonical": record_text, "signature": b64u(signer.sign(record_text.encode()).signature)}
    write("canonical/signable.json", {"source": "Python json.dumps(ensure_ascii=False) + PyNaCl 1.6.2 Ed25519",
                                      "privateSigningKey": b64u(bytes(signer) + bytes(signer.verify_key)),
                                      "publicSigningKey": b64u(bytes(signer.verify_key)), "cases": cases,
                                      "record": record})


def pynacl():
    key, nonce = bytes(range(32)), bytes(range(24))
    secretbox = []
    for msg in [b"", b"abc", det("sb/msg", 1000)]:
        ct = nacl.secret.SecretBox(key).encrypt(msg, nonce).ciphertext
        secretbox.append({"key": b64u(key), "nonce": b64u(nonce), "message": b64u(msg), "box": b64u(ct)})
    sender = nacl.public.PrivateKey(det("box/sender", 32))
    recipient = nacl.public.PrivateKey(det("box/recipient", 32))
    box_ct = nacl.public.Box(sender, recipient.public_key).encrypt(b"crypto_box from PyNaCl", nonce).ciphertext
    signer = nacl.signing.SigningKey(det("ed/seed", 32))
    ed = [{"message": b64u(m), "signature": b64u(signer.sign(m).signature)} for m in [b"", b"abc", det("ed/m", 300)]]
    blake = [{"message": b64u(m), "digest": b64u(nacl.hash.blake2b(m, digest_size=32, encoder=nacl.encoding.RawEncoder))}
             for m in [b"", b"abc", det("bl/m", 1000)]]
    salt = det("argon/salt", 16)
    argon = {"password": "correct horse battery staple", "salt": b64u(salt),
             "iterations": nacl.pwhash.argon2id.OPSLIMIT_INTERACTIVE,
             "memoryBytes": nacl.pwhash.argon2id.MEMLIMIT_INTERACTIVE,
             "key": b64u(nacl.pwhash.argon2id.kdf(32, b"correct horse battery staple", salt,
                                                  opslimit=nacl.pwhash.argon2id.OPSLIMIT_INTERACTIVE,
                                                  memlimit=nacl.pwhash.argon2id.MEMLIMIT_INTERACTIVE))}
    keys = {"encryptionPrivateKey": b64u(bytes(sender)), "encryptionPublicKey": b64u(bytes(sender.public_key)),
            "signingPrivateKey": b64u(bytes(signer) + bytes(signer.verify_key)),
            "signingSeed": b64u(bytes(signer)), "signingPublicKey": b64u(bytes(signer.verify_key))}
    write("pynacl/primitives.json", {
        "source": "PyNaCl 1.6.2", "secretbox": secretbox,
        "box": {"senderPrivateKey": b64u(bytes(sender)), "senderPublicKey": b64u(bytes(sender.public_key)),
                "recipientPrivateKey": b64u(bytes(recipient)), "recipientPublicKey": b64u(bytes(recipient.public_key)),
                "nonce": b64u(nonce), "message": b64u(b"crypto_box from PyNaCl"), "box": b64u(box_ct)},
        "ed25519": {"privateKey": keys["signingPrivateKey"], "publicKey": keys["signingPublicKey"], "cases": ed},
        "blake2b256": blake, "argon2id": argon, "keys": keys})


def key_link() -> None:
    """The link between access-key generations (AccessKey.sealingLink, docs/design/Revocation.md): the previous
    generation's key sealed with crypto_secretbox under the next one, in an EAK's wire form."""
    cases = []
    for index in range(3):
        nxt, previous, nonce = det(f"link/{index}/next", 32), det(f"link/{index}/previous", 32), det(f"link/{index}/nonce", 24)
        box = nacl.secret.SecretBox(nxt).encrypt(previous, nonce).ciphertext
        cases.append({"next": b64u(nxt), "previous": b64u(previous), "nonce": b64u(nonce),
                      "link": b64u(box) + "." + b64u(nonce)})
    write("pynacl/key-link.json", {"source": "PyNaCl 1.6.2 (crypto_secretbox of the previous key under the next)",
                                   "links": cases})


def safety_number_half(client_id: bytes, encryption: bytes, signing) -> str:
    """One client's 30 digits of a safety number (SafetyNumber.Half): SHA-512 over the domain, the client ID's 16
    bytes and its two public keys (32 zero bytes for no signing key), then 5,200 times over the hash and the input."""
    data = b"strongroom/safety-number/v1" + client_id + encryption + (signing or bytes(32))
    digest = hashlib.sha512(data).digest()
    for _ in range(5200):
        digest = hashlib.sha512(digest + data).digest()
    return "".join(f"{int.from_bytes(digest[i * 5:i * 5 + 5], 'big') % 100000:05d}" for i in range(6))


def safety_numbers() -> None:
    """Safety numbers (SafetyNumber): each client's half, and the code of each pair (the halves in ascending order)."""
    clients = []
    for index in range(4):
        client_id = det(f"safety/{index}/id", 16)
        encryption = nacl.public.PrivateKey(det(f"safety/{index}/x25519", 32)).public_key.encode()
        signing = None if index == 3 else nacl.signing.SigningKey(det(f"safety/{index}/ed25519", 32)).verify_key.encode()
        clients.append({"clientID": client_id.hex(), "encryptionKey": b64u(encryption),
                        "signingKey": b64u(signing) if signing else None,
                        "half": safety_number_half(client_id, encryption, signing)})
    pairs = []
    for first, second in [(0, 1), (1, 0), (2, 3)]:
        halves = sorted([clients[first]["half"], clients[second]["half"]])
        pairs.append({"first": first, "second": second, "code": halves[0] + halves[1]})
    write("keylog/safety-number.json", {"source": "Python hashlib (SHA-512), PyNaCl 1.6.2 for the public keys",
                                        "clients": clients, "pairs": pairs})


def key_changes() -> None:
    """Client key changes (KeyChangeStatement): the 168 signed bytes and PyNaCl's Ed25519 signatures by the old and
    the new signing key."""
    cases = []
    for index in range(3):
        client_id = det(f"keychange/{index}/id", 16)
        old_box = nacl.public.PrivateKey(det(f"keychange/{index}/old-x25519", 32))
        new_box = nacl.public.PrivateKey(det(f"keychange/{index}/new-x25519", 32))
        old_sign = nacl.signing.SigningKey(det(f"keychange/{index}/old-ed25519", 32))
        new_sign = nacl.signing.SigningKey(det(f"keychange/{index}/new-ed25519", 32))
        signed = (b"strongroom/key-change/v1" + client_id + old_box.public_key.encode() + old_sign.verify_key.encode()
                  + new_box.public_key.encode() + new_sign.verify_key.encode())
        cases.append({"clientID": client_id.hex(),
                      "oldEncryptionKey": b64u(old_box.public_key.encode()),
                      "oldSigningSeed": b64u(det(f"keychange/{index}/old-ed25519", 32)),
                      "newEncryptionKey": b64u(new_box.public_key.encode()),
                      "newSigningSeed": b64u(det(f"keychange/{index}/new-ed25519", 32)),
                      "signed": b64u(signed),
                      "oldSignature": b64u(old_sign.sign(signed).signature),
                      "newSignature": b64u(new_sign.sign(signed).signature)})
    write("keylog/key-change.json", {"source": "PyNaCl 1.6.2 (Ed25519 signatures over the key change statement)",
                                     "changes": cases})


def hybrid_key_leaves() -> None:
    """A client publishing its X-Wing key (HybridKeyLeaf): the signed bytes, PyNaCl's Ed25519 signature and the key
    log leaf (version 1, kind 8, time, client ID, SHA-256 of the key). The key is the draft-ietf-hpke-pq vector's."""
    pq = json.loads((ROOT / "hpke-pq" / "xwing-sha256-chacha20poly1305.json").read_text())["vectors"][0]
    key = bytes.fromhex(pq["pkRm"])
    cases = []
    for index in range(2):
        client_id = det(f"hybrid/{index}/id", 16)
        seed = det(f"hybrid/{index}/ed25519", 32)
        time = 1_700_000_000_000_000 + index
        signed = b"strongroom/hybrid-key/v1" + client_id + hashlib.sha256(key).digest()
        entry = bytes([1, 8]) + time.to_bytes(8, "big") + client_id + hashlib.sha256(key).digest()
        cases.append({"clientID": client_id.hex(), "signingSeed": b64u(seed), "time": time,
                      "signed": b64u(signed), "signature": b64u(nacl.signing.SigningKey(seed).sign(signed).signature),
                      "entry": b64u(entry)})
    write("keylog/hybrid-key.json", {"source": "Python hashlib (SHA-256), PyNaCl 1.6.2 (Ed25519); the key is "
                                     "hpke-pq/xwing-sha256-chacha20poly1305.json's pkRm", "leaves": cases})


if __name__ == "__main__":
    hybrid_key_leaves()
    key_changes()
    safety_numbers()
    key_link()
    pynacl()
    fields()
    eaks()
    files()
    tsv1()
    signed_fields()
    signable()
    print(f"vectors written under {ROOT}")
